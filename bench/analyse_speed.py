"""Time tavli-analyse on a 7-point match: the seconds of ``analyse_match`` at each ply asked
for, on -j worker processes (the net's loading and the pool's start included).

    python bench/analyse_speed.py --ply 0 2 -j 2
    python bench/analyse_speed.py --ply 0 --rollout-close 0.01 --trials 324

The match is the fixture tests/data/matches/gnubg-7pt.mat (8 games GNU Backgammon played
against itself); the workload (its games and checker decisions) is checked before it is
timed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from tavli_fast.analysis.report import analyse_match

MATCH = Path(__file__).resolve().parents[1] / "tests" / "data" / "matches" / "gnubg-7pt.mat"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ply", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("-j", "--jobs", type=int, default=2)
    p.add_argument("--rollout-close", type=float, default=None)
    p.add_argument("--trials", type=int, default=None)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    extra = {}
    if args.rollout_close is not None:
        extra = {"rollout_close": args.rollout_close, "trials": args.trials, "seed": args.seed}
    for ply in args.ply:
        start = time.perf_counter()
        analysis = analyse_match(MATCH, ply=ply, jobs=args.jobs, **extra)
        seconds = time.perf_counter() - start
        checker = sum(d.kind == "checker" for d in analysis.decisions)
        cube = sum(d.kind == "cube" for d in analysis.decisions)
        assert len(analysis.analyses) == 8 and checker == 232, (len(analysis.analyses), checker)
        rolled = [d for d in analysis.decisions if d.rollout is not None]
        se = max((d.error_se for d in rolled if d.error_se), default=0.0)
        print(f"ply {ply}, {args.jobs} worker(s): {seconds:.1f} s "
              f"({checker} checker and {cube} cube decisions; {len(rolled)} rolled out, "
              f"largest error SE {se:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
