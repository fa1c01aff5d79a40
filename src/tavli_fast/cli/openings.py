"""``tavli-openings``: roll out every legal play of every opening roll; rank the plays.

Exit status: 0 done; 2 bad usage or bad input (one line on stderr); 1 the run failed (e.g.
worker processes kept dying); 130 interrupted by Ctrl-C (the result so far is printed, and saved
with --checkpoint so --resume can continue).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from .. import api
from ..jobs.openings_report import read_checkpoint
from ..run.progress import TqdmProgress
from . import (
    add_force_option,
    check_plot_available,
    check_writable,
    public_settings,
    add_game_option,
    entry_point,
    EXIT_INTERRUPTED,
    OneLineParser,
    UsageError,
    add_executor_options,
    add_reply_filter_option,
    add_evaluator_option,
    executor_settings,
    parse_count,
    players_from_args,
    run_command,
)
from .rollout import _seed

from ..jobs.openings import (DEFAULT_CHUNK_SIZE, DEFAULT_SCREEN, DEFAULT_SCREEN_TRIALS, DEFAULT_TRIALS,
                             play_trials)
from ..jobs.options import openings_settings

PROG = "tavli-openings"
# The net's games are luck-adjusted unless --no-vr, as in every command (the library's default:
# the smaller SE per CPU-second for openings and replies too, bench/vr_default.py).
DEFAULT_REPLY_TRIALS = DEFAULT_CHUNK_SIZE  # per reply roll (--replies)


def _threshold(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be an equity difference >= 0, got {text!r}")
    return value


def build_parser() -> OneLineParser:
    p = OneLineParser(
        prog=PROG,
        description="Opening statistics: roll out every distinct legal play of every opening roll "
        "(the 15 non-doubles, or the 21 rolls with --rules portes) on common dice, rank the plays by "
        "the first mover's cubeless equity with the difference to the best play +- its SE, and "
        "give the first mover's advantage.",
        epilog="Exit status: 0 ok, 2 bad input, 1 run failed, 130 interrupted (partial result printed).",
    )
    p.add_argument("--trials", "-n", type=parse_count, default=None, metavar="N",
                   help=f"trials per play (1e4 and 10_000 work; default {DEFAULT_TRIALS:,}, "
                   f"or {DEFAULT_REPLY_TRIALS:,} per reply roll with --replies)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--players", default=None, metavar="A,B",
                     help="first mover, then opponent (default: the strongest player available)")
    who.add_argument("--player", default=None, metavar="P", help="the same player for both sides")
    add_executor_options(p)
    p.add_argument("--seed", type=_seed, default=None, help="master seed (default: random, always printed)")
    p.add_argument("--rolls", default=None, metavar="R,R",
                   help="only these opening rolls, e.g. 31,62 (default: all)")
    p.add_argument("--rules", default=None, help="backgammon (default) or portes (doubles may open)")
    p.add_argument("--game", default=None, choices=("plakoto", "fevga"),
                   help="Plakoto or Fevga instead of Portes: the 21 rolls (T3), players random, "
                   "heuristic, neural (the default) or neural-1ply")
    add_game_option(p)
    screen = p.add_mutually_exclusive_group()
    screen.add_argument("--screen", type=_threshold, default=None, metavar="X",
                        help="screen first: every play gets a short run, and only plays within X "
                        f"(equity) of its roll's best get the full trials (default {DEFAULT_SCREEN})")
    screen.add_argument("--no-screen", action="store_true",
                        help="no screening: every play gets the full trials")
    p.add_argument("--screen-trials", type=parse_count, default=None, metavar="N",
                   help=f"trials of the short run (default {DEFAULT_SCREEN_TRIALS:,} with the default "
                   "trials, else max(1296, trials/7))")
    p.add_argument("--replies", default=None, metavar="PLAY",
                   help="reply statistics instead: roll out the opening PLAY of the one roll given "
                   "by --rolls (e.g. --rolls 31 --replies '8/5 6/5') against each of the 21 replies")
    p.add_argument("--chunk-size", type=parse_count, default=None, metavar="N",
                   help=f"trials per unit of work (default {DEFAULT_CHUNK_SIZE}; results depend on it, not on --jobs)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--csv", default=None, metavar="FILE", help="write one row per play to FILE")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="draw each roll's best play with error bars (needs matplotlib)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--checkpoint", default=None, metavar="FILE", help="keep progress in FILE (JSON)")
    add_force_option(p)
    p.add_argument("--resume", default=None, metavar="FILE",
                   help="continue the run saved in FILE (its settings; keeps saving to it)")
    p.add_argument("--no-stratify", action="store_true", help="plain random dice for the first two rolls")
    p.add_argument("--no-bearoff", action="store_true",
                   help="pubeval and greedy play bear-offs by their own evaluation")
    p.add_argument("--no-truncate", action="store_true", help="play every game to the end")
    vr = p.add_mutually_exclusive_group()
    vr.add_argument("--vr", dest="vr", action="store_true", default=None,
                    help="variance reduction: take each roll's luck by the net off every figure "
                    "(default: on when a neural player plays, the default player included, as in "
                    "every command: the smallest SE per CPU-second, bench/vr_default.py)")
    vr.add_argument("--no-vr", dest="vr", action="store_false", help="no variance reduction")
    add_reply_filter_option(p)
    add_evaluator_option(p)
    p.add_argument("--cache-dir", default=None, metavar="DIR", help="where the bear-off databases are kept")
    p.add_argument("--weights", default=None, metavar="FILE",
                   help="a weights file (tavli-train --export) for the neural players' net and "
                   "variance reduction (default: the shipped net); with --game, a file of that game's "
                   "net (tavli-train --game G --export)")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    return p


def run(args: argparse.Namespace) -> int:
    for path, option in ((args.csv, "--csv"), (args.plot, "--plot"), (args.checkpoint, "--checkpoint")):
        if path is not None:
            check_writable(path, option)
    if args.plot is not None:
        check_plot_available()
    executor = executor_settings(args)
    if args.replies is not None:
        return _run_replies(args, executor)
    if args.resume is not None:
        given = [o for o, v in (("--trials", args.trials), ("--players/--player", players_from_args(args)),
                                ("--seed", args.seed), ("--rolls", args.rolls), ("--rules", args.rules),
                                ("--game", args.game), ("--option", args.option),
                                ("--screen", args.screen), ("--no-screen", args.no_screen or None),
                                ("--screen-trials", args.screen_trials), ("--chunk-size", args.chunk_size),
                                ("--vr/--no-vr", args.vr), ("--weights", args.weights),
                                ("--reply-filter", args.reply_filter),
                                ("--evaluator", args.evaluator))
                 if v is not None]
        if given:
            raise UsageError(f"--resume takes its settings from the checkpoint; do not give {', '.join(given)}")
    settings = openings_settings(vars(args))
    if args.resume is None:
        total = play_trials(settings["trials"], settings["rules"], args.rolls, args.game, args.option)
    else:
        saved = read_checkpoint(args.resume)["request"]
        total = play_trials(saved["trials"], saved["rules"], ",".join(saved["rolls"]), saved.get("game"),
                            saved.get("game_rules"))
    with TqdmProgress(total, enabled=not (args.no_progress or args.json)) as bar:
        if args.resume is not None:
            result = api.openings(**public_settings({}, executor), progress=bar,
                                  resume=args.resume, checkpoint=args.checkpoint, force=args.force)
        else:
            result = api.openings(**public_settings(settings, executor), progress=bar,
                                  checkpoint=args.checkpoint, force=args.force)
    print(result.to_json() if args.json else str(result))
    sys.stdout.flush()
    if args.csv is not None:
        result.write_csv(args.csv)
    if args.plot is not None:
        result.plot(args.plot)
    if result.interrupted:
        if result.checkpoint:
            print(f"{PROG}: interrupted; continue with --resume {result.checkpoint}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _run_replies(args: argparse.Namespace, executor: dict) -> int:
    unsupported = [o for o, v in (("--csv", args.csv), ("--plot", args.plot), ("--screen", args.screen),
                                  ("--no-screen", args.no_screen or None), ("--game", args.game),
                                  ("--checkpoint", args.checkpoint), ("--resume", args.resume))
                   if v is not None]
    if unsupported:
        raise UsageError(f"--replies does not support {', '.join(unsupported)}")
    if args.rolls is None or "," in args.rolls:
        raise UsageError("--replies needs exactly one opening roll in --rolls, e.g. --rolls 31")
    trials = args.trials if args.trials is not None else DEFAULT_REPLY_TRIALS
    settings: dict = dict(
        trials=trials, players=players_from_args(args), seed=args.seed, rules=args.rules or "backgammon",
        stratify=not args.no_stratify, bearoff=not args.no_bearoff, truncate=not args.no_truncate,
        cache_dir=args.cache_dir, vr=args.vr, weights=args.weights, reply_filter=args.reply_filter,
        evaluator=args.evaluator,
    )
    if args.chunk_size is not None:
        settings["chunk_size"] = args.chunk_size
    with TqdmProgress(21 * trials, enabled=not (args.no_progress or args.json)) as bar:
        result = api.replies(args.rolls.strip(), args.replies.strip(),
                             **public_settings(settings, executor), progress=bar)
    print(result.to_json() if args.json else str(result))
    sys.stdout.flush()
    return EXIT_INTERRUPTED if result.interrupted else 0


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tavli-openings``; returns the exit status."""
    return run_command(PROG, build_parser(), run, argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
