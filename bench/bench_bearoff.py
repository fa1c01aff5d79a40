"""Bear-off databases: building the one-sided database, and lookups.

Run with ``pytest bench/bench_bearoff.py --benchmark-only``.  Each benchmark first checks its
workload, then times it.
"""

from __future__ import annotations

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.play.bearoff import BearoffDatabase, build_one_sided
from tavli_fast.game.position import Position


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> BearoffDatabase:
    return BearoffDatabase(tmp_path_factory.mktemp("bearoff"), two_sided_checkers=6)


def test_build_one_sided_54264_positions(benchmark):
    arrays = build_one_sided(6, 15)
    assert arrays["rolls"].shape[0] == 54_264
    assert arrays["mean"][_core.bearoff_index(np.array([15, 0, 0, 0, 0, 0], np.int8))] == \
        pytest.approx(6.9796, abs=5e-5)
    benchmark.pedantic(build_one_sided, args=(6, 15), rounds=3, iterations=1)


def test_build_two_sided_six_checkers(benchmark):
    table = _core.bearoff_build_two_sided(6)
    assert table.shape == (924, 924)
    benchmark.pedantic(_core.bearoff_build_two_sided, args=(6,), rounds=3, iterations=1)


def test_one_sided_lookup(benchmark, db):
    counts = [3, 2, 0, 4, 1, 5]
    assert db.rolls(counts).sum() == pytest.approx(1.0)
    benchmark(db.rolls, counts)


def test_two_sided_lookup_from_a_board(benchmark, db):
    board = Position.parse("x 6:2 5:1 4:1 2:1; o 6:1 5:1 3:1").board
    assert 0.0 < db.tables.win(board) < 1.0
    benchmark(db.tables.win, board)


def test_best_play_by_the_databases(benchmark, db):
    board = Position.parse("x 6:2 5:1 4:1 2:1; o 6:1 5:1 3:1").board
    assert db.tables.choose(board, 6, 5) is not None
    benchmark(db.tables.choose, board, 6, 5)
