"""Differential tests of the move generator against GNU Backgammon (gnubg_nn, test-only) and
against our pure-Python reference generator, on thousands of positions from random games x all 21
rolls.

gnubg lists no move when a roll cannot be played; we return the unchanged position (one pass play),
so an empty gnubg list is compared with ``[position_id]``.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import gnubg_board, random_positions
from oracles.backgammon import reference_positions

import tavli_fast
from tavli_fast import _core
from tavli_fast.game.movegen import count_plays_batch

gnubg_nn = pytest.importorskip("gnubg_nn")

pytestmark = pytest.mark.oracle

N_POSITIONS = 2000
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]  # the 21 rolls, larger die first


@pytest.fixture(scope="module")
def positions():
    found = random_positions(N_POSITIONS, seed=20240611)
    assert len(found) == N_POSITIONS
    return found


@pytest.fixture(scope="module")
def reference_results(positions):
    """reference_positions for every position x roll (slow pure Python: computed once)."""
    return [
        {
            dice: reference_positions(np.ascontiguousarray(p.board, dtype=np.int8), *dice)
            for dice in ROLLS
        }
        for p in positions
    ]


def gnubg_ids(position, d1: int, d2: int) -> set[str]:
    """gnubg's resulting positions (sides not switched) as Position IDs; a pass is the start."""
    board = gnubg_board(position)
    keys = gnubg_nn.moves(board, d1, d2)
    if not keys:
        return {position.position_id()}
    return {gnubg_nn.position_id([list(row) for row in gnubg_nn.boardfromkey(k)]) for k in keys}


def describe(position, dice, got, want) -> str:
    return (
        f"{position.position_id()} dice {dice}: {len(got)} results, gnubg {len(want)}; "
        f"missing {sorted(want - got)[:5]}, unexpected {sorted(got - want)[:5]}"
    )


def test_oracle_positions_cover_contact_bar_and_bear_off(positions):
    contact = sum(not p.is_race() for p in positions)
    race = len(positions) - contact
    on_bar = sum(int(p.board[0, 25]) > 0 for p in positions)
    bearing_off = sum(p.can_bear_off() for p in positions)
    both_bearing_off = sum(p.is_bearoff() for p in positions)
    assert contact >= 600, contact
    assert race >= 200, race
    assert on_bar >= 50, on_bar
    assert bearing_off >= 100, bearing_off
    assert both_bearing_off >= 30, both_bearing_off
    # the set also holds rolls that cannot be played at all (passes) for gnubg
    passes = sum(
        1 for p in positions[:500] for d in ROLLS if not gnubg_nn.moves(gnubg_board(p), *d)
    )
    assert passes >= 20, passes


def test_legal_positions_match_gnubg(positions):
    mismatches = []
    compared = 0
    for i, position in enumerate(positions):
        pid = position.position_id()
        for d1, d2 in ROLLS:
            want = gnubg_ids(position, d1, d2)
            orders = [(d1, d2), (d2, d1)] if d1 != d2 and i % 4 == 0 else [(d1, d2)]
            for dice in orders:
                got_list = tavli_fast.legal_positions(pid, *dice)
                got = set(got_list)
                compared += 1
                if got != want or len(got_list) != len(got):
                    mismatches.append(describe(position, dice, got, want))
    assert compared >= N_POSITIONS * 21
    assert not mismatches, f"{len(mismatches)} mismatches, first: " + "\n".join(mismatches[:10])


def test_reference_generator_matches_core(positions, reference_results):
    """The second oracle: the pure-Python reference generator gives the same boards as the core
    kernel behind legal_positions (which test_legal_positions_match_gnubg compares with gnubg)."""
    mismatches = []
    for position, by_roll in zip(positions, reference_results):
        board = np.ascontiguousarray(position.board, dtype=np.int8)
        for d1, d2 in ROLLS:
            reference = set(by_roll[d1, d2])
            core = [b.tobytes() for b in np.asarray(_core.generate(board, d1, d2))]
            if reference != set(core) or len(core) != len(set(core)):
                mismatches.append(
                    f"{position.position_id()} dice {(d1, d2)}: core {len(core)} results, "
                    f"reference {len(reference)}"
                )
    assert not mismatches, f"{len(mismatches)} mismatches, first: " + "\n".join(mismatches[:10])


def test_reference_generator_matches_gnubg(positions, reference_results):
    mismatches = []
    for position, by_roll in list(zip(positions, reference_results))[::4]:
        for d1, d2 in ROLLS:
            reference = {
                gnubg_nn.position_id(
                    [[int(c) for c in b[1, 1:26]], [int(c) for c in b[0, 1:26]]]
                )
                for b in (np.frombuffer(raw, dtype=np.int8).reshape(2, 26)
                          for raw in by_roll[d1, d2])
            }
            want = gnubg_ids(position, d1, d2)
            if reference != want:
                mismatches.append(describe(position, (d1, d2), reference, want))
    assert not mismatches, f"{len(mismatches)} mismatches, first: " + "\n".join(mismatches[:10])


def test_count_plays_batch_matches_gnubg(positions):
    ids = [p.position_id() for p in positions]
    dice = np.array(ROLLS, dtype=np.int8)
    counts = np.asarray(count_plays_batch(ids, dice))
    assert counts.shape == (len(ids), len(ROLLS))
    assert counts.dtype == np.int64
    want = np.array(
        [
            [max(1, len(gnubg_nn.moves(gnubg_board(p), d1, d2))) for d1, d2 in ROLLS]
            for p in positions
        ],
        dtype=np.int64,
    )
    bad = np.argwhere(counts != want)
    assert bad.size == 0, [
        (ids[i], ROLLS[j], int(counts[i, j]), int(want[i, j])) for i, j in bad[:10]
    ]
    # the same through an array of boards
    boards = np.stack([np.array(p.board) for p in positions]).astype(np.int8)
    assert np.array_equal(np.asarray(count_plays_batch(boards, dice)), want)
