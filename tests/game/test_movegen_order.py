"""The ORDER of the generator's plays, which the players depend on: they pick the first of equal
plays, and the random player picks by index, so a change of order changes pinned rollout figures.

The order has a rule, which the plain-Python oracle follows by construction: a play sits where
its first sequence of single-die steps falls when the sequences are listed depth-first, the dice
in the order given first (then, for a non-double, the other order), and at each step the sources
from the highest down (the bar first); for doubles, sources never rise within a play. So the
compiled output, in order, must equal ``list(reference_plays(...))`` (the oracle's dict keeps
that first-derivation order), for both orders of every non-double.

A pinned digest of the whole ordered output of the benchmark set x the 36 ordered rolls guards
the same thing on more positions than the slow oracle can visit.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from helpers import SHARED, random_positions
from oracles.backgammon import reference_plays

from tavli_fast import _core
from tavli_fast.game.movegen import generate_plays_batch
from tavli_fast.game.position import Position

ORDERED_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]

# sha256 of the offsets (int64) then the result boards (int8) of generate_plays_batch over
# contact.csv then race.csv (shared/data/positions) x ORDERED_ROLLS, made by main's generator
# at db503dd (before the faster generator of issue 54) with `ordered_digest` below.
BENCHMARK_DIGEST = "d1f36954a310e26274f153c0a9e95c7c1b186589ce7fd215f54f708b97adb6ee"
# The same over random_positions(2000, seed=20261206) (gnubg_nn random games).
RANDOM_DIGEST = "e2c94f77541f1310c6e210deaff777174420b53f8fc5afbd08826b90494da5d7"


def benchmark_boards() -> np.ndarray:
    ids = []
    for name in ("contact.csv", "race.csv"):
        text = (SHARED / "data" / "positions" / name).read_text()
        ids += [line.strip() for line in text.splitlines() if line.strip()]
    assert len(ids) == 2000, len(ids)
    return np.stack([Position.from_id(i).board for i in ids]).astype(np.int8)


def ordered_digest(boards: np.ndarray) -> str:
    results, offsets = generate_plays_batch(np.ascontiguousarray(boards), ORDERED_ROLLS)
    h = hashlib.sha256(np.ascontiguousarray(offsets, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(results, dtype=np.int8).tobytes())
    return h.hexdigest()


def assert_oracle_order(boards) -> None:
    for board in boards:
        board = np.ascontiguousarray(board, dtype=np.int8)
        for d1, d2 in ORDERED_ROLLS:
            got = [r.tobytes() for r in _core.generate(board, d1, d2)]
            want = list(reference_plays(board, d1, d2))
            assert got == want, (Position.from_board(board).position_id(), d1, d2)


def test_generator_order_is_the_oracles_first_derivation_order_on_benchmark_positions():
    boards = benchmark_boards()
    assert_oracle_order(boards[::10])  # 100 contact, 100 race


@pytest.mark.oracle
def test_generator_order_is_the_oracles_first_derivation_order_on_random_positions():
    pytest.importorskip("gnubg_nn")
    positions = random_positions(600, seed=20261207)
    assert sum(int(p.board[0, 25]) > 0 for p in positions) >= 20  # the bar is visited
    assert_oracle_order([p.board for p in positions])


def test_generator_order_is_pinned_on_the_benchmark_set():
    assert ordered_digest(benchmark_boards()) == BENCHMARK_DIGEST


@pytest.mark.oracle
def test_generator_order_is_pinned_on_random_positions():
    pytest.importorskip("gnubg_nn")
    boards = np.stack([p.board for p in random_positions(2000, seed=20261206)])
    assert ordered_digest(boards) == RANDOM_DIGEST


def test_the_order_rule_is_not_vacuous():
    """3-1 from the start: the oracle's order is one of many orders of the same set."""
    board = np.ascontiguousarray(Position.initial().board, dtype=np.int8)
    got = [r.tobytes() for r in _core.generate(board, 3, 1)]
    want = list(reference_plays(board, 3, 1))
    assert got == want
    assert sorted(got) != want and got[::-1] != want
