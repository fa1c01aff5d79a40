"""Golden counts of distinct plays: the starting position for all 21 rolls, and the published
totals over the benchmark position files (shared/data/positions/README.md).

A roll with no legal play counts as one play (the pass: the unchanged position).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers import SHARED

import tavli_fast
from tavli_fast.game.position import Position
from tavli_fast.game.movegen import count_plays_batch

START_ID = "4HPwATDgc/ABMA"  # R3
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
DOUBLES = [(d, d) for d in range(1, 7)]
NON_DOUBLES = [(a, b) for a in range(1, 7) for b in range(1, a)]

# Known by hand (and quoted in the backgammon literature / STYLE.md).
HAND_KNOWN = {(3, 1): 16, (4, 4): 52, (1, 1): 42, (6, 6): 11, (2, 1): 15}

# The remaining rolls, as GNU Backgammon lists them (gnubg_nn.moves on the starting position);
# test_start_position_counts_match_gnubg re-derives the whole table when gnubg_nn is installed.
FROM_GNUBG = {
    (2, 2): 75, (3, 2): 17, (3, 3): 73, (4, 1): 14, (4, 2): 18, (4, 3): 17,
    (5, 1): 8, (5, 2): 8, (5, 3): 9, (5, 4): 9, (5, 5): 4,
    (6, 1): 10, (6, 2): 14, (6, 3): 14, (6, 4): 14, (6, 5): 7,
}
START_COUNTS = {**HAND_KNOWN, **FROM_GNUBG}

# shared/data/positions/README.md
PUBLISHED = {
    "contact.csv": {"doubles": 218_356, "non_doubles": 185_957},
    "race.csv": {"doubles": 140_720, "non_doubles": 122_570},
}


def data_dir() -> Path:
    """../shared/data/positions from the repository root (CI clones with shared/ beside it)."""
    return SHARED / "data" / "positions"


def read_ids(name: str) -> list[str]:
    path = data_dir() / name
    # Fail, never skip: these counts are the benchmark's workload.
    assert path.is_file(), f"benchmark positions missing: {path} (../shared beside the repo?)"
    ids = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    assert len(ids) == 1000, f"{path} has {len(ids)} ids, the README says 1,000"
    return ids


def test_start_table_covers_all_21_rolls():
    assert sorted(START_COUNTS) == sorted(ROLLS)


@pytest.mark.parametrize("dice", sorted(START_COUNTS))
def test_start_position_counts(dice):
    d1, d2 = dice
    assert len(tavli_fast.legal_positions(START_ID, d1, d2)) == START_COUNTS[dice]
    assert len(tavli_fast.legal_positions(START_ID, d2, d1)) == START_COUNTS[dice]


def test_start_position_counts_batch():
    dice = np.array(sorted(START_COUNTS), dtype=np.int8)
    counts = np.asarray(count_plays_batch([START_ID], dice))
    assert counts.shape == (1, len(dice))
    assert counts[0].tolist() == [START_COUNTS[tuple(d)] for d in dice.tolist()]


@pytest.mark.oracle
def test_start_position_counts_match_gnubg():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    board = gnubg_nn.board_from_position_id(START_ID)
    assert {d: len(gnubg_nn.moves(board, *d)) for d in ROLLS} == START_COUNTS


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_totals_batch(name):
    ids = read_ids(name)
    for kind, rolls in (("doubles", DOUBLES), ("non_doubles", NON_DOUBLES)):
        counts = np.asarray(count_plays_batch(ids, np.array(rolls, dtype=np.int8)))
        assert counts.shape == (len(ids), len(rolls))
        assert (counts >= 1).all(), "every roll has at least one play (the pass)"
        assert int(counts.sum()) == PUBLISHED[name][kind], (name, kind)


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_totals_legal_positions(name):
    ids = read_ids(name)
    for kind, rolls in (("doubles", DOUBLES), ("non_doubles", NON_DOUBLES)):
        total = sum(len(tavli_fast.legal_positions(pid, d1, d2)) for pid in ids for d1, d2 in rolls)
        assert total == PUBLISHED[name][kind], (name, kind)


def test_published_totals_batch_of_boards():
    """The batch API also takes a (m, 2, 26) int8 array of boards."""
    ids = read_ids("contact.csv")
    boards = np.stack([np.asarray(Position.from_id(i).board) for i in ids]).astype(np.int8)
    counts = np.asarray(count_plays_batch(boards, np.array(DOUBLES, dtype=np.int8)))
    assert int(counts.sum()) == PUBLISHED["contact.csv"]["doubles"]
