"""Plakoto and Fevga move generation: resulting positions per second (issue 12: >= 10 M/s
per core on positions from random games of each game).

Run with ``python -m pytest bench/bench_variants.py --benchmark-only`` or, for the figures
of the README, ``python bench/bench_variants.py`` (medians of several runs, wall clock and
CPU time).

Workload per game: every position of 100 random games (``random_game_positions``, seed
20261130) x the 36 rolls as the dice fall, counted by ``_core.variant_count_batch`` in one
call with the GIL released. Each benchmark first asserts its workload (the pinned total of
resulting positions, a roll without a play counted as one), then times it.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.variants.games import random_game_positions
from tavli_fast.variants.movegen import GAME_CODES

SEED = 20261130
GAMES = 100
ROLLS_AS_DICE_FALL = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int8)
# Resulting positions of the workload, pinned when the benchmark was written (the parity
# tests, not this number, show that they are right).
EXPECTED = {"plakoto": 6_627_846, "fevga": 4_530_334}


@functools.cache
def workload(game: str) -> tuple[np.ndarray, np.ndarray]:
    positions = random_game_positions(game, GAMES, SEED)
    boards = np.ascontiguousarray(np.stack([p.core_board() for p in positions]))
    pinned = np.array([p.pinned_mask() for p in positions], dtype=np.uint32)
    return boards, pinned


def count(game: str) -> int:
    boards, pinned = workload(game)
    return int(_core.variant_count_batch(boards, pinned, GAME_CODES[game], 0, ROLLS_AS_DICE_FALL).sum())


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_variant_count_batch(benchmark, game: str) -> None:
    expected = EXPECTED[game]
    assert count(game) == expected
    assert benchmark(count, game) == expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    for game in ("plakoto", "fevga"):
        boards, _ = workload(game)
        total = count(game)
        walls, cpus = [], []
        for _ in range(args.repeats):
            w, c = time.perf_counter(), time.process_time()
            assert count(game) == total
            walls.append(time.perf_counter() - w)
            cpus.append(time.process_time() - c)
        wall, cpu = statistics.median(walls), statistics.median(cpus)
        print(
            f"{game}: {len(boards):,} positions x 36 rolls = {total:,} resulting positions; "
            f"median {wall * 1e3:.1f} ms wall = {total / wall / 1e6:.1f} M/s, "
            f"{cpu * 1e3:.1f} ms CPU = {total / cpu / 1e6:.1f} M/s (one core)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
