"""The pure-Python reference move generator (the test oracle in tests/oracles/backgammon.py):
golden counts, rules, and gnubg parity."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import from_gnubg_board, gnubg_board, pos, random_positions
from oracles.backgammon import reference_plays, reference_positions

from tavli_fast.errors import InvalidDiceError
from tavli_fast.game.position import Position

ALL_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def results(position: Position, d1: int, d2: int) -> set[str]:
    """Results as readable fixture-free Position IDs (sides not switched)."""
    ids = set()
    for key in reference_positions(position.board, d1, d2):
        board = np.frombuffer(key, dtype=np.int8).reshape(2, 26)
        ids.add(Position.from_board(board).position_id())
    return ids


@pytest.mark.parametrize(("roll", "count"), [((3, 1), 16), ((4, 4), 52), ((1, 1), 42), ((6, 6), 11), ((2, 1), 15)])
def test_golden_counts_from_the_start(roll, count):
    assert len(reference_positions(Position.initial().board, *roll)) == count


def test_r12_bar_checker_must_enter_first():
    p = pos("x bar:1 6:14; o 6:15")
    plays = reference_plays(p.board, 3, 1)
    for sequences in plays.values():
        for steps in sequences:
            assert steps[0][0] == 25


def test_r13_no_entry_loses_the_turn():
    p = pos("x bar:1 6:14; o 1:2 2:2 3:2 4:2 5:2 6:2 7:3")
    assert reference_plays(p.board, 6, 6) == {p.board.tobytes(): [()]}


def test_r11_hit_sends_blot_to_bar():
    p = pos("x 8:1 6:14; o 20:1 6:14")  # opponent's 20 = my 5
    after = [np.frombuffer(k, np.int8).reshape(2, 26) for k in reference_positions(p.board, 3, 1)]
    assert any(b[1, 25] == 1 and b[0, 5] == 1 for b in after)


def test_r10_larger_die_when_only_one_can_be_played():
    # 13/7 and 13/8 are both open, but 7/2 and 8/2 are blocked (opponent's 23 = my 2).
    p = pos("x 13:1 off:14; o 23:2 off:13")
    assert results(p, 6, 5) == {pos("x 7:1 off:14; o 23:2 off:13").position_id()}
    assert results(p, 5, 6) == results(p, 6, 5)


def test_r16_r17_bear_off_from_highest_only_with_larger_die():
    p = pos("x 5:1 3:1; o 13:1")
    # 6 bears off from 5 (highest); the 2 plays 5/3 or 3/1 but never bears off from 3 (R17).
    assert results(p, 6, 2) == {pos("x 1:1; o 13:1").position_id(), pos("x 3:1; o 13:1").position_id()}
    # R17: with 4-4 the first 4 must move 5/1, not bear off from the 3-point.
    sequences = {seq for seqs in reference_plays(p.board, 4, 4).values() for seq in seqs}
    assert sequences and all(seq[0] == (5, 1, False) for seq in sequences)


def test_r18_checker_coming_home_lets_second_die_bear_off():
    p = pos("x 8:1 6:14; o 24:1")
    assert Position.parse("x 6:14; o 24:1").position_id() in {
        Position.from_board(np.frombuffer(k, np.int8).reshape(2, 26)).position_id()
        for k in reference_positions(p.board, 2, 6)
    }


def test_doubles_all_orders_give_the_same_results():
    for p in random_positions(30, seed=5) if _has_gnubg() else [Position.initial()]:
        for d in range(1, 7):
            fast = reference_plays(p.board, d, d)
            full = reference_plays(p.board, d, d, all_orders=True)
            assert fast.keys() == full.keys()


def test_bad_dice_raise():
    with pytest.raises(InvalidDiceError):
        reference_positions(Position.initial().board, 0, 3)


def _has_gnubg() -> bool:
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.oracle
def test_reference_equals_gnubg_on_random_positions():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    positions = random_positions(200, seed=99)
    pairs = 0
    kinds = {"bar": 0, "bearoff": 0, "contact": 0}
    for p in positions:
        kinds["bar"] += bool(p.board[0, 25])
        kinds["bearoff"] += p.can_bear_off()
        kinds["contact"] += not p.is_race()
        gb = gnubg_board(p)
        for d1, d2 in ALL_ROLLS:
            keys = gnubg_nn.moves(gb, d1, d2, 0)
            expected = {from_gnubg_board(gnubg_nn.boardfromkey(k)).tobytes() for k in keys}
            assert reference_positions(p.board, d1, d2) == (expected or {p.board.tobytes()}), (
                p.position_id(), d1, d2,
            )
            pairs += 1
    assert pairs >= 2000
    assert min(kinds.values()) >= 15, kinds
