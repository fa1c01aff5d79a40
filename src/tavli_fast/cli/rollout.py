"""``tavli-rollout``: roll out a position with fast players, print the result with error bars.

Exit status: 0 done; 2 bad usage or bad input (one line on stderr); 1 the run failed (e.g.
worker processes kept dying); 130 interrupted by Ctrl-C (SIGINT) -- the result of the trials
completed so far is printed first (and saved, with --checkpoint, so --resume can continue).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from typing import Any, Sequence

from .._version import __version__
from ..api import read_checkpoint, rollout
from ..jobs.cubeful import DEFAULT_MAX_CUBE
from ..jobs.options import (DEFAULT_PLAYERS, DEFAULT_PLAYERS_WHY, DEFAULT_TRIALS,
                            finish_rollout_settings, plays_settings, rollout_settings)
from ..errors import VariantIdError
from ..play.players import PLAYERS
from ..run.progress import TqdmProgress
from .plays import add_plays_options, run_plays, wants_plays
from . import (
    add_force_option,
    public_settings,
    add_game_option,
    entry_point,
    OneLineParser,
    add_executor_options,
    add_reply_filter_option,
    add_evaluator_option,
    compiled_core_status,
    executor_settings,
    parse_count,
    print_result,
    run_command,
    settings_from_checkpoint,
)

PROG = "tavli-rollout"


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any):
        super().__init__(option_strings, dest, nargs=0, help="print the version and whether the compiled core is used")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"{PROG} (tavli_fast {_version()}), {compiled_core_status()}")
        parser.exit(0)


def _version() -> str:
    try:
        return importlib.metadata.version("tavli_fast")
    except Exception:  # not installed as a distribution (e.g. run from a source tree)
        return __version__


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text.replace("_", ""), 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"must be from 0 to 2**64-1, got {text!r}")
    return value


def _known_players() -> str:
    return ", ".join(PLAYERS)


def build_parser() -> OneLineParser:
    p = OneLineParser(
        prog=PROG,
        description="Roll out a backgammon / tavli position: play many games with fast players "
        "from it and report win, gammon and backgammon rates and the cubeless equity, with "
        "standard errors, for the side on roll.",
        epilog="Exit status: 0 ok, 2 bad input, 1 run failed, 130 interrupted (partial result "
        "printed). With --checkpoint FILE, an interrupted run is continued by --resume FILE.",
    )
    p.add_argument("--position", default=None, metavar="ID",
                   help="'start' (default), a gnubg Position ID, PositionID:MatchID or an XGID (with "
                   "its dice rolled, the candidate plays of that roll are rolled out, as with --dice; "
                   "the 'XGID=' prefix may be left out: write --position=-b---... when the id starts "
                   "with '-')")
    p.add_argument("--trials", "-n", type=parse_count, default=None, metavar="N",
                   help=f"games to play (1e6, 1_000_000 and 1000000 all work; default {DEFAULT_TRIALS:,})")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--players", default=None, metavar="A,B",
                     help=f"player on roll, then opponent ({_known_players()}); default "
                     f"{','.join(DEFAULT_PLAYERS)}: {DEFAULT_PLAYERS_WHY}")
    who.add_argument("--player", default=None, metavar="P", help="the same player for both sides")
    p.add_argument("--ply", type=int, choices=(0, 1, 2), action="append", default=None,
                   help="search depth of the neural players: 0, 1 or 2 (neural-2ply: seconds a "
                   "game); give it twice for the side on roll, then the opponent (default: as the "
                   "player is named)")
    p.add_argument("--filter-candidates", type=int, default=None, metavar="N",
                   help="1-ply move filter: look at most N plays 1 ply deeper (default 5, at most 16)")
    p.add_argument("--filter-window", type=float, default=None, metavar="X",
                   help="1-ply move filter: only plays within X equity of the best 0-ply play "
                   "(default 0.16)")
    add_reply_filter_option(p)
    add_evaluator_option(p)
    vr = p.add_mutually_exclusive_group()
    vr.add_argument("--vr", dest="vr", action="store_true", default=None,
                    help="variance reduction: also report figures with each roll's luck taken off "
                    "(default: on when a neural player plays a cubeless Portes game, in every "
                    "command; bench/vr_default.py)")
    vr.add_argument("--no-vr", dest="vr", action="store_false", help="no variance reduction")
    p.add_argument("--truncate-plies", type=parse_count, default=None, metavar="N",
                   help="stop each game after N plies and count the net's cubeless estimate: fast "
                   "but BIASED by the net's errors")
    add_executor_options(p)
    p.add_argument("--seed", type=_seed, default=None, help="master seed (default: random, always printed)")
    p.add_argument("--rules", default=None, help="backgammon (default) or portes")
    p.add_argument("--game", default=None, choices=("plakoto", "fevga"),
                   help="roll out Plakoto or Fevga instead of Portes (--position: start or the "
                   "game's text id or 'x 24:14 13:1; o 24:15'; players random, heuristic, neural, the "
                   "default, or neural-1ply)")
    add_game_option(p)
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--checkpoint", default=None, metavar="FILE", help="keep progress in FILE (JSON)")
    p.add_argument("--resume", default=None, metavar="FILE",
                   help="continue the rollout saved in FILE (keeps saving to it)")
    add_force_option(p)
    p.add_argument("--target-se", type=_positive_float, default=None, metavar="X",
                   help="stop once the equity's standard error is below X")
    p.add_argument("--min-trials", type=parse_count, default=None, metavar="N",
                   help="trials before --target-se may stop the run (default 1296)")
    p.add_argument("--chunk-size", type=parse_count, default=None, metavar="N",
                   help="trials per unit of work (default 10,000; results depend on it, not on --jobs)")
    p.add_argument("--no-stratify", action="store_true",
                   help="plain random dice (default: stratified first two rolls)")
    p.add_argument("--no-bearoff", action="store_true",
                   help="pubeval and greedy play bear-offs by their own evaluation, not by the "
                   "exact bear-off databases")
    p.add_argument("--no-truncate", action="store_true",
                   help="play every game to the end (default: stop once both sides are inside the "
                   "two-sided bear-off database and count the exact win probability)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="where the bear-off databases are kept (default: $TAVLI_FAST_CACHE or the "
                   "user cache directory)")
    p.add_argument("--weights", default=None, metavar="FILE",
                   help="a weights file (tavli-train --export) for the neural players' net, "
                   "variance reduction and --truncate-plies (default: the shipped net); with --game, a "
                   "file of that game's net (tavli-train --game G --export)")
    p.add_argument("--cubeful", action="store_true",
                   help="also play the doubling cube from the position's cube and score: no double "
                   "and double/take on the same dice, with the proper cube action (in a match, "
                   "match winning chances); games stop where the bear-off databases answer "
                   "exactly (--no-truncate: played to the end)")
    p.add_argument("--max-cube", type=int, default=None, metavar="V",
                   help=f"with --cubeful, the highest cube value (default {DEFAULT_MAX_CUBE}, rule R23)")
    add_plays_options(p, with_dice=True)
    p.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv debug)")
    p.add_argument("-q", "--quiet", action="count", default=0, help="only errors in the log")
    p.add_argument("--version", action=_VersionAction)
    return p


def run(args: argparse.Namespace) -> int:
    executor = executor_settings(args)
    options = vars(args)
    if wants_plays(args):
        return run_plays(PROG, args, plays_settings(options), executor)
    settings = rollout_settings(options)
    # Settings a checkpoint may lack (it predates them): their values at the time.
    settings_from_checkpoint(args, settings, lambda path: read_checkpoint(path)["request"],
                             predating={"vr": False, "truncate_plies": 0})
    finish_rollout_settings(settings)
    with TqdmProgress(settings["trials"], enabled=not (args.no_progress or args.json)) as bar:
        try:
            result = rollout(
                **public_settings(settings, executor),
                checkpoint=args.checkpoint,
                resume=args.resume,
                force=args.force,
                progress=bar,
            )
        except VariantIdError as e:
            raise e.with_advice(f"add --game {e.game}") from None
    return print_result(PROG, args, result)


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tavli-rollout`` and ``python -m tavli_fast``; returns the exit status."""
    return run_command(PROG, build_parser(), run, argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
