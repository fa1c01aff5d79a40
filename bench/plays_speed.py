"""Time the net on the plays of a roll alone: the workload to profile the evaluator with.

    python bench/plays_speed.py [--positions 4000] [--repeats 5]
    perf record -F 5000 python bench/plays_speed.py --repeats 25          # where the time goes
    valgrind --tool=callgrind --toggle-collect='*play_equities*' python bench/plays_speed.py \
        --positions 1000 --repeats 1                                       # instructions

The plays of one random roll of each of the first ``--positions`` live positions of
bench_neural.py, evaluated by ``play_equities`` (as changes to the position before the
move, the players' way) ``--repeats`` times; printed: the plays, and the best and the median
evaluations per second in CPU time of this process. Nothing else is timed, so that a
profiler's samples are the evaluator's, and two builds (``PYTHONPATH`` pointing at another
build's package) can be compared by running this in alternation.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_neural  # noqa: E402
from perf_neural import plays_of_one_roll  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=4_000, help="positions, one roll each")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes over the plays")
    args = parser.parse_args(argv)
    if args.positions < 1 or args.repeats < 1:
        parser.error("--positions and --repeats must be at least 1")

    from tavli_fast.play.neural import default_net

    net = default_net()
    items = plays_of_one_roll(bench_neural.positions(args.positions), args.positions)
    n = sum(len(p) for _, p in items)
    times = []
    for _ in range(args.repeats):
        t0 = time.process_time()
        for board, plays in items:
            net.play_equities(board, plays)
        times.append(time.process_time() - t0)
    best, median = n / min(times) / 1e6, n / statistics.median(times) / 1e6
    print(f"{n:,} plays of one roll of {len(items):,} positions: {best:.3f} M/s best, "
          f"{median:.3f} M/s median of {args.repeats} (CPU time)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
