"""``tavli-match``: play whole matches (cube, Crawford rule) and report match-winning chances.

    tavli-match --length 7 --players neural,pubeval --matches 10000
    tavli-match --length 5 --score 4,3 --post-crawford --matches 4000 --seed 1
    tavli-match --length 5 --rules portes --players neural,greedy
    tavli-match --tavli --length 5 --players neural,random --matches 2000
    tavli-match --length 7 --matches 1 --seed 3 --names Ann,Bob --save match.mat
    tavli-match --length 5 --players neural,pubeval --matches 20 --save m.mat -j 2

Exit status: 0 done; 2 bad usage or bad input (one line on stderr); 1 the run failed; 130
interrupted by Ctrl-C -- the result of the matches completed so far is printed first (and
saved, with --checkpoint, so --resume can continue).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Sequence

from . import (
    add_force_option,
    public_settings,
    add_game_option,
    entry_point,
    OneLineParser,
    UsageError,
    add_executor_options,
    add_reply_filter_option,
    add_evaluator_option,
    check_writable,
    executor_settings,
    fill_defaults,
    parse_count,
    players_from_args,
    positive_int,
    print_result,
    run_command,
    settings_from_checkpoint,
)
from ..api import play_matches
from ..jobs.cubeful import DEFAULT_MAX_CUBE
from ..jobs.match import read_match_checkpoint
from ..run.progress import TqdmProgress
from .rollout import _known_players, _seed, _VersionAction

PROG = "tavli-match"
DEFAULT_MATCHES = 1000


def _score(text: str) -> tuple[int, int]:
    parts = text.replace("-", ",").split(",")
    try:
        a, b = (int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes the two players' points as A,B (e.g. 4,3), not {text!r}") from None
    if a < 0 or b < 0:
        raise argparse.ArgumentTypeError(f"points cannot be negative: {text!r}")
    return a, b


def build_parser() -> OneLineParser:
    p = OneLineParser(
        prog=PROG,
        description="Play whole matches to N points between two players, with the doubling "
        "cube and the Crawford rule, and report each player's match-winning chance with its "
        "standard error, games per match, the mean final cube and gammon rates.",
        epilog="Exit status: 0 ok, 2 bad input, 1 run failed, 130 interrupted (partial result "
        "printed). With --checkpoint FILE, an interrupted run is continued by --resume FILE.",
    )
    p.add_argument("--length", type=positive_int, default=None, metavar="N", help="points to win (default 7)")
    p.add_argument("--matches", "-n", type=parse_count, default=None, metavar="N",
                   help=f"matches to play (default {DEFAULT_MATCHES:,}; 1 with --save)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--players", default=None, metavar="A,B",
                     help=f"players A and B ({_known_players()}); default neural,neural")
    who.add_argument("--player", default=None, metavar="P", help="the same player for both")
    p.add_argument("--score", type=_score, default=None, metavar="A,B",
                   help="points A and B have already won (default 0,0); a player 1-away starts "
                   "with the Crawford game, both 1-away are post-Crawford")
    p.add_argument("--post-crawford", action="store_true",
                   help="the Crawford game has been played already")
    p.add_argument("--rules", default=None,
                   help="backgammon (default) or portes (no cube, no backgammons, the previous "
                   "game's winner starts)")
    p.add_argument("--tavli", action="store_true",
                   help="a tavli match (T1-T3): games rotate Portes, Plakoto, Fevga, no cube, the "
                   "previous game's winner starts; in Plakoto and Fevga 'random' plays randomly, "
                   "'neural' and 'neural-1ply' by the game's net, every other player by the "
                   "variants' heuristic")
    add_game_option(p, "with --tavli, an option of Plakoto or Fevga")
    p.add_argument("--no-cube", action="store_true", help="play without the doubling cube")
    p.add_argument("--max-cube", type=int, default=None, metavar="V",
                   help=f"the highest cube value (default {DEFAULT_MAX_CUBE}, rule R23)")
    add_executor_options(p)
    p.add_argument("--seed", type=_seed, default=None, help="master seed (default: random, always printed)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--checkpoint", default=None, metavar="FILE", help="keep progress in FILE (JSON)")
    p.add_argument("--resume", default=None, metavar="FILE",
                   help="continue the matches saved in FILE (keeps saving to it)")
    add_force_option(p)
    p.add_argument("--chunk-size", type=parse_count, default=None, metavar="N",
                   help="matches per unit of work (default 200; results depend on it, not on --jobs)")
    p.add_argument("--no-bearoff", action="store_true",
                   help="players other than random play bear-offs by their own evaluation")
    p.add_argument("--save", default=None, metavar="FILE.mat",
                   help="also write the matches played as .mat files (gnubg, XG, tavli-analyse "
                   "read backgammon ones): FILE.mat for one match, FILE-1.mat ... FILE-N.mat "
                   "(numbers as wide as N) for more; at most 10,000 matches; not with "
                   "--checkpoint or --resume")
    p.add_argument("--names", default=None, metavar="A,B",
                   help="with --save, the players' names in the files (default Player 1,Player 2)")
    p.add_argument("--cache-dir", default=None, metavar="DIR",
                   help="where the bear-off databases are kept")
    p.add_argument("--weights", default=None, metavar="FILE",
                   help="a weights file (tavli-train --export) for the neural players' net "
                   "(default: the shipped net)")
    add_reply_filter_option(p)
    add_evaluator_option(p)
    p.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv debug)")
    p.add_argument("-q", "--quiet", action="count", default=0, help="only errors in the log")
    p.add_argument("--version", action=_VersionAction)
    return p


def run(args: argparse.Namespace) -> int:
    if args.names is not None and args.save is None:
        raise UsageError("--names is for --save")
    if args.save is not None:
        given = [o for o, v in (("--checkpoint", args.checkpoint), ("--resume", args.resume)) if v]
        if given:
            raise UsageError(f"--save cannot be used with {', '.join(given)}: a checkpoint keeps "
                             "no moves, so the matches are saved from one run")
        check_writable(args.save, "--save")
    executor = executor_settings(args)
    settings: dict[str, Any] = {
        "length": args.length,
        "matches": args.matches,
        "players": players_from_args(args),
        "score": args.score,
        "post_crawford": True if args.post_crawford else None,
        "rules": args.rules,
        "cube": False if args.no_cube else None,
        "max_cube": args.max_cube,
        "seed": args.seed,
        "chunk_size": args.chunk_size,
        "bearoff": False if args.no_bearoff else None,
        "cache_dir": args.cache_dir,
        "tavli": True if args.tavli else None,
        "game_rules": args.option,
        "weights": args.weights,
        # None: the default, or with --resume the checkpoint's (an older one: every reply).
        "reply_filter": args.reply_filter,
        # None: the default evaluator, or with --resume the checkpoint's.
        "evaluator": args.evaluator,
    }
    settings_from_checkpoint(args, settings, lambda path: read_match_checkpoint(path)["request"],
                             tuples=("players", "score"))
    tavli = bool(settings["tavli"])
    if tavli:
        given = [o for o, v in (("--score", args.score), ("--post-crawford", args.post_crawford),
                                ("--no-cube", args.no_cube), ("--max-cube", args.max_cube))
                 if v not in (None, False)]
        if given:
            raise UsageError(f"{', '.join(given)} cannot be used with --tavli (a tavli match "
                             "starts at 0-0 and has no cube)")
        if settings["rules"] not in (None, "portes"):
            raise UsageError(f"--rules {settings['rules']}: a tavli match plays Portes by the portes rules")
    fill_defaults(settings, {"length": 7, "matches": 1 if args.save is not None else DEFAULT_MATCHES,
                             "players": ("neural", "neural"),
                             "score": (0, 0), "post_crawford": False,
                             "rules": "portes" if tavli else "backgammon", "cube": not tavli,
                             "max_cube": DEFAULT_MAX_CUBE, "bearoff": True, "tavli": False})
    if settings["chunk_size"] is None:
        del settings["chunk_size"]
    if settings["rules"] == "portes" and args.max_cube is not None:
        raise UsageError("--max-cube: the portes rules are played without the cube")

    with TqdmProgress(settings["matches"], enabled=not (args.no_progress or args.json)) as bar:
        result = play_matches(**public_settings(settings, executor), checkpoint=args.checkpoint,
                              resume=args.resume, force=args.force, progress=bar,
                              save=args.save, **({"names": args.names} if args.names else {}))
    return print_result(PROG, args, result)


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tavli-match``; returns the exit status."""
    return run_command(PROG, build_parser(), run, argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
