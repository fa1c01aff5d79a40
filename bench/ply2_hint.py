"""The time of a 2-ply hint (issue 54: <= 1 s on one core for a middle-game position).

    python bench/ply2_hint.py [--repeats 5] [--positions 20] [--seed 54]

In one process, one thread.  Each figure is CPU time (``time.process_time``: less disturbed
by the other processes of a shared machine than the wall clock; the wall-clock median is
printed too), the median of ``--repeats`` runs after an untimed one that checks the workload
(the number of plays ranked, and that some were looked at 2 ply):

- ``tavli-hint --ply 2``'s work (``hint(..., ply=2)``) for one middle-game position and roll,
  a fresh search cache each run (cold), then with the cache of the previous run (warm: the
  case of a player or an analysis that keeps its cache);
- the same with every one of the 5 plays looked at 1 ply also looked at 2 ply (the widest
  second filter, ``filter_2ply=(5, inf)``);
- the same at 1 ply, the ratio beside it;
- then the first ``--positions`` contact positions of the benchmark set
  (``../shared/data/positions/contact.csv``; TAVLI_BENCH_POSITIONS overrides the directory),
  each with a roll drawn from ``--seed``: the median and the slowest 2-ply hint, with the
  cache's hit rate.

The move filters are the defaults (docs/usage.md): 0 to 1 ply the best 5 plays by 0 ply
(``--top``), 1 to 2 ply the best 3 of those within 0.10 by 1 ply.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from pathlib import Path

import numpy as np

from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.play.hint import hint
from tavli_fast.play.neural import default_net

REPO = Path(__file__).resolve().parents[1]
POSITIONS = Path(os.environ.get("TAVLI_BENCH_POSITIONS",
                                REPO.parent / "shared" / "data" / "positions"))
# A middle-game position: both sides with an anchor or back checkers, blots, a 6-3 to play
# (30 legal plays).
MIDDLE_GAME = "x 24:1 22:1 13:4 8:3 6:4 5:2; o 24:2 13:4 10:1 8:2 6:4 4:2"
MIDDLE_DICE = (6, 3)


def timed(call, repeats: int) -> tuple[float, float]:
    """(median CPU seconds, median wall seconds) of `repeats` calls."""
    cpu, wall = [], []
    for _ in range(repeats):
        c, w = time.process_time(), time.perf_counter()
        call()
        cpu.append(time.process_time() - c)
        wall.append(time.perf_counter() - w)
    return statistics.median(cpu), statistics.median(wall)


def check(plays) -> int:
    """The workload: plays ranked, some at 2 ply."""
    deep = sum(p.equity_2ply is not None for p in plays)
    assert deep >= 1 and all(p.equity_1ply is not None for p in plays[:deep]), plays
    return len(plays)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--positions", type=int, default=20)
    p.add_argument("--seed", type=int, default=54)
    args = p.parse_args(argv)
    net = default_net()
    position = Position.parse(MIDDLE_GAME)
    d1, d2 = MIDDLE_DICE
    n = check(hint(position, d1, d2, ply=2, net=net))
    cold = timed(lambda: hint(position, d1, d2, ply=2, net=net), args.repeats)
    cache = _core.SearchCache()
    hint(position, d1, d2, ply=2, net=net, cache=cache)
    warm = timed(lambda: hint(position, d1, d2, ply=2, net=net, cache=cache), args.repeats)
    wide = timed(lambda: hint(position, d1, d2, ply=2, net=net, filter_2ply=(5, math.inf)),
                 args.repeats)
    one = timed(lambda: hint(position, d1, d2, ply=1, net=net), args.repeats)
    print(f"middle game {position.position_id()} dice {d1}{d2}: {n} plays")
    print(f"  2-ply hint, cold cache  {cold[0]:8.3f} s CPU  ({cold[1]:.3f} s wall)")
    print(f"  2-ply hint, warm cache  {warm[0]:8.3f} s CPU  ({warm[1]:.3f} s wall)")
    print(f"  2-ply hint, 5 at 2 ply  {wide[0]:8.3f} s CPU  ({wide[1]:.3f} s wall)")
    print(f"  1-ply hint              {one[0]:8.3f} s CPU  ({one[1]:.3f} s wall)   "
          f"2-ply / 1-ply {cold[0] / one[0]:.1f}x")

    ids = (POSITIONS / "contact.csv").read_text().split()[:args.positions]
    rng = np.random.default_rng(args.seed)
    times, hits, looks = [], 0, 0
    for pid in ids:
        pos = Position.from_id(pid)
        a, b = (int(x) for x in rng.integers(1, 7, 2))
        cache = _core.SearchCache()
        check(hint(pos, a, b, ply=2, net=net, cache=cache))
        hits += cache.hits
        looks += cache.hits + cache.misses
        times.append(timed(lambda: hint(pos, a, b, ply=2, net=net), 1)[0])
    print(f"{len(ids)} contact positions of the benchmark set, a roll each (seed {args.seed}):")
    print(f"  2-ply hint  median {statistics.median(times):.3f} s CPU, slowest {max(times):.3f} s; "
          f"cache hits within one hint {hits / max(looks, 1):.1%} of {looks:,} look-ups")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
