"""``tavli-analyse``: analyse a played match (a ``.mat`` file): every checker play and cube
decision evaluated, the errors marked, both players rated, the luck of the dice.

    tavli-analyse match.mat
    tavli-analyse match.mat --ply 1 --player Ann
    tavli-analyse match.mat --json > analysis.json
    tavli-analyse match.mat --csv decisions.csv
    tavli-analyse match.mat --rollout-close 0.02 --trials 1296 --seed 1
    tavli-analyse match.mat --evaluator float32

Exit status: 0 done; 2 bad usage or a bad file (one line on stderr naming the file and the
place: line, game, move); 130 interrupted by Ctrl-C (the games analysed so far are reported
first).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from typing import Sequence

from . import (EXIT_INTERRUPTED, OneLineParser, UsageError, add_evaluator_option, check_writable,
               entry_point, run_command)
from ..analysis.decisions import PLIES
from ..analysis.report import DECISION_FIELDS, analyse_match
from ..run.atomic import atomic_file
from .rollout import _VersionAction

PROG = "tavli-analyse"


def build_parser() -> OneLineParser:
    p = OneLineParser(prog=PROG, description="Analyse a played match (.mat): errors, ratings, luck.")
    p.add_argument("file", metavar="FILE", help="the match file (.mat, or gnubg's .sgf)")
    p.add_argument("--ply", type=int, default=0, metavar="N",
                   help="the depth of the checker plays' and cube decisions' evaluation: 0, 1 or 2")
    p.add_argument("--rollout-close", type=float, default=None, metavar="EMG",
                   help="settle the decisions whose two best options are closer than EMG by "
                        "cubeful rollouts (with --trials)")
    p.add_argument("--trials", type=int, default=None, metavar="N",
                   help="trials of each --rollout-close rollout (per play)")
    p.add_argument("--seed", type=int, default=None, metavar="S",
                   help="the rollouts' master seed (default: a random one, reported)")
    add_evaluator_option(p)
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print one JSON document")
    out.add_argument("--csv", metavar="FILE", default=None, help="write the decisions as CSV")
    p.add_argument("--player", default=None, metavar="NAME",
                   help="list only this player's decisions")
    p.add_argument("-j", "--jobs", type=int, default=1, metavar="N",
                   help="worker processes, one game a unit (default 1: this process)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("-v", "--verbose", action="count", default=0, help="more log output")
    p.add_argument("-q", "--quiet", action="count", default=0, help="only errors in the log")
    p.add_argument("--version", action=_VersionAction)
    return p


def decisions_csv(rows: list[dict]) -> str:
    """The decisions as CSV text, one row each, DECISION_FIELDS as the header."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=DECISION_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({k: json.dumps(v) if isinstance(v, dict) else v for k, v in row.items()}
                     for row in rows)
    return buffer.getvalue()


def run(args: argparse.Namespace) -> int:
    if args.ply not in PLIES:
        raise UsageError(f"--ply {args.ply}: the engine analyses at "
                         f"{', '.join(map(str, PLIES))} ply")
    if (args.rollout_close is None) != (args.trials is None):
        raise UsageError("--rollout-close and --trials go together: give both")
    if args.csv:
        check_writable(args.csv, "--csv")
    show = not (args.no_progress or args.json) and sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if show:
            print(f"\r{PROG}: game {done}/{total}", end="" if done < total else "\n",
                  file=sys.stderr, flush=True)

    analysis = analyse_match(args.file, ply=args.ply, player=args.player, progress=progress,
                             jobs=args.jobs, rollout_close=args.rollout_close,
                             trials=args.trials, seed=args.seed, evaluator=args.evaluator)
    if args.json:
        print(json.dumps(analysis.to_dict(), indent=2, ensure_ascii=False))
    else:
        if args.csv:
            with atomic_file(args.csv, text=True, readable=True) as f:
                f.write(decisions_csv(analysis.to_records()))
        print(analysis)
    sys.stdout.flush()
    if analysis.interrupted:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``tavli-analyse``; returns the exit status."""
    return run_command(PROG, build_parser(), run, argv)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
