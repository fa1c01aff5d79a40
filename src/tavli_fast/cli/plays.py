"""The candidate plays of a roll from the command line: ``tavli-rollout --dice 31`` (or a
position with its dice) and ``tavli-hint --rollout``. Both call ``tavli_fast.rollout_plays``
and print its table (gnubg's order), JSON (keys ``plays`` and ``decided``) or a plot.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any, Callable

from ..api import rollout_plays
from ..jobs import options as _options
from ..jobs.plays import CHECKPOINT_FORMAT, DEFAULT_STOP, DEFAULT_TRIALS, read_checkpoint
from ..run.progress import TqdmProgress
from . import check_plot_available, check_writable, print_result, public_settings

__all__ = ["add_plays_options", "wants_plays", "run_plays"]


def _stop(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of standard errors > 0, got {text!r}")
    return value


def add_plays_options(p: argparse.ArgumentParser, *, with_dice: bool) -> None:
    """The options of a candidate-play rollout (``with_dice``: the command has no --dice yet)."""
    if with_dice:
        p.add_argument("--dice", default=None, metavar="31",
                       help="roll out the candidate plays of this roll side by side on common "
                       "dice (an XGID with its dice does the same)")
    p.add_argument("--candidates", type=int, default=None, metavar="N",
                   help="the net's best N plays (default: its best two and the others within "
                   "0.16 of the best at 1 ply, 5 at most)")
    p.add_argument("--plays", default=None, metavar="'8/5 6/5,24/21 13/12'",
                   help="name the candidate plays, comma-separated, in gnubg notation")
    stop = p.add_mutually_exclusive_group()
    stop.add_argument("--stop-when-decided", type=_stop, default=None, metavar="K",
                      help=f"stop rolling out a play once it trails the best by more than K "
                      f"paired SEs (default {DEFAULT_STOP})")
    stop.add_argument("--no-stop", action="store_true",
                      help="give every candidate every trial")
    p.add_argument("--plot", default=None, metavar="FILE.png",
                   help="draw the plays' equities with error bars (needs matplotlib)")
    if with_dice:
        p.add_argument("--no-candidates", action="store_true",
                       help="with a position whose dice are rolled: roll out the position "
                       "itself, its dice every trial's first roll, each player making its own "
                       "play (not the candidate plays)")


def _checkpoint_format(path: str) -> str | None:
    if not os.path.isfile(path):
        return None  # (a pipe would block the reading); the rollout's reader says what it is
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("format")
    except (OSError, ValueError, AttributeError):
        return None  # the rollout's own reader says what is wrong with it


def wants_plays(args: argparse.Namespace) -> bool:
    """Whether tavli-rollout's arguments ask for the candidate plays of a roll: --dice, the
    candidate options, a position with its dice rolled (``jobs/options.py``), or a
    candidate-play checkpoint."""
    if args.resume is not None:
        return _checkpoint_format(args.resume) == CHECKPOINT_FORMAT
    return _options.wants_plays(vars(args))


def run_plays(prog: str, args: argparse.Namespace, settings: dict[str, Any],
              executor: dict[str, Any], preface: Callable[[], None] | None = None) -> int:
    """Roll out the candidate plays with ``settings`` (rollout_plays' keywords, None where
    not given) and print the result; the exit status. ``preface``, once the options are
    checked and before the rollout starts: what to print first (tavli-hint's hint)."""
    _options.check_plays_options(vars(args))
    for path, option in ((args.plot, "--plot"), (args.checkpoint, "--checkpoint")):
        if path is not None:
            check_writable(path, option)
    if args.plot is not None:
        check_plot_available()
    if args.resume is not None:
        read_checkpoint(args.resume)  # a plays checkpoint: its settings are the run's
        check_writable(args.checkpoint or args.resume, "--checkpoint")
        # A reply filter or evaluator given must be the run's (rollout_plays refuses another).
        settings = {"position": None, "reply_filter": settings.get("reply_filter"),
                    "evaluator": settings.get("evaluator")}
    else:
        settings = _options.finish_plays_settings(settings, vars(args))
    if preface is not None:
        preface()
    total = settings.get("trials") or DEFAULT_TRIALS
    with TqdmProgress(total, enabled=not (args.no_progress or args.json)) as bar:
        result = rollout_plays(**public_settings(settings, executor), checkpoint=args.checkpoint,
                               resume=args.resume, force=args.force, progress=bar)
    status = print_result(prog, args, result)
    if args.plot is not None and result.plays and result.trials_played:
        result.plot(args.plot)
    return status

