"""Time the move generator of two builds against each other, and their neural 0-ply rollouts.

    python bench/compare_movegen.py db503dd HEAD [--rounds 6]

Both revisions are built as compare_builds.py builds them (``git archive``, then
``build_ext --inplace``). Each round runs the two builds at the same time, one on each of
two cores (swapped every round), so that the load of a shared machine falls on both alike.
Each run times, in CPU time, on bench_movegen.py's mix (3,000 positions x the 36 rolls):
``count_plays_batch`` and ``generate_plays_batch`` (the median of 5 calls each),
``legal_positions`` called once per (position, roll), and a 1,000-game neural 0-ply rollout
of the start (``jobs=1``, no variance reduction). Every run first checks its workload: the
number of resulting positions, and the rollout's equity equal across the builds.

Printed: per build and measure the median over the rounds, and the median of the ratios
(old time / new time: above 1 is faster) with the least and greatest.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_builds import build_both, revisions_parser, run_rounds, speed_up  # noqa: E402

BENCH = Path(__file__).resolve().parent

CHILD = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[1])
import bench_movegen
import tavli_fast as tf

mix = bench_movegen.workloads()["mix"]
times, work = {}, {}

def timed(name, run, repeats):
    got = run()
    spent = []
    for _ in range(repeats):
        t = time.process_time()
        again = run()
        spent.append(time.process_time() - t)
        assert again == got, name
    times[name] = statistics.median(spent)
    work[name] = got

timed("count_plays_batch", lambda: bench_movegen.run_count_batch(mix), 5)
timed("generate_plays_batch", lambda: bench_movegen.run_generate_batch(mix), 5)
timed("legal_positions", lambda: bench_movegen.run_legal_positions(mix), 1)
assert work["count_plays_batch"] == mix.expected_plays
t = time.process_time()
r = tf.rollout("start", 1000, players=("neural", "neural"), seed=1, jobs=1, vr=False)
times["neural 0-ply rollout, 1,000 games"] = time.process_time() - t
work["neural 0-ply rollout, 1,000 games"] = r.equity
print(json.dumps({"file": tf.__file__, "times": times, "work": work,
                  "positions": mix.expected_plays, "calls": mix.calls}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = revisions_parser(__doc__.splitlines()[0], rounds=6)
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        srcs = build_both(args.a, args.b, Path(tmp))
        runs = run_rounds(srcs, args.rounds, CHILD, [str(BENCH)])
    first = runs[args.a][0]
    for rev in srcs:
        if runs[rev][0]["work"] != first["work"]:
            raise SystemExit(f"{rev} did other work: {runs[rev][0]['work']} != {first['work']}")
    rates = {"count_plays_batch": first["positions"], "generate_plays_batch": first["positions"],
             "legal_positions": first["calls"], "neural 0-ply rollout, 1,000 games": 1000}
    units = {"legal_positions": "calls/s", "neural 0-ply rollout, 1,000 games": "games/s"}
    print(f"{args.rounds} rounds, CPU time; speed-up = time of {args.a} / time of {args.b}, "
          "median over the rounds (least, greatest)")
    for measure, work in rates.items():
        old = [t["times"][measure] for t in runs[args.a]]
        new = [t["times"][measure] for t in runs[args.b]]
        unit = units.get(measure, "M resulting positions/s")
        scale = 1e6 if unit.startswith("M") else 1
        print(f"{measure:>34s}: {args.a} {work / statistics.median(old) / scale:,.1f}, "
              f"{args.b} {work / statistics.median(new) / scale:,.1f} {unit}; speed-up "
              f"{speed_up(old, new)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
