"""The public move-generation API: argument checking, return types, passes, winning plays."""

from __future__ import annotations

import base64
import re

import numpy as np
import pytest
from helpers import pos

import tavli_fast
from tavli_fast.errors import InvalidPositionError
from tavli_fast.game.movegen import count_plays_batch, generate_positions
from tavli_fast.game.position import Position

START_ID = "4HPwATDgc/ABMA"
START_TEXT = "x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5"
CLOSED_BOARD = "x bar:1 13:6 8:3 6:5; o 13:2 6:3 5:2 4:2 3:2 2:2 1:2"


def encode_id(mine: dict[int, int], theirs: dict[int, int]) -> str:
    """A gnubg Position ID written from its definition (RULES.md), independent of the package:
    80-bit key, the player not on roll first, each side from its ace point (1) up to its bar (25),
    one 1 bit per checker then a 0 bit; bits fill each byte from the low bit; base64, 14 chars.
    Counts are not validated, so malformed ids can be built too."""
    bits: list[int] = []
    for side in (theirs, mine):
        for index in range(1, 26):
            bits += [1] * side.get(index, 0) + [0]
    bits += [0] * (80 - len(bits))
    key = bytearray(10)
    for i, bit in enumerate(bits[:80]):
        key[i // 8] |= bit << (i % 8)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def test_encoder_reproduces_the_starting_position_id():
    start = {24: 2, 13: 5, 8: 3, 6: 5}
    assert encode_id(start, start) == START_ID


# ------------------------------------------------------------------------- dice
BAD_DICE = [0, 7, -1, 2.5, "3", True, None, 3.0]


@pytest.mark.parametrize("bad", BAD_DICE, ids=repr)
@pytest.mark.parametrize("which", [0, 1])
def test_bad_dice_raise_value_error_with_a_clear_message(bad, which):
    dice = [3, 1]
    dice[which] = bad
    calls = [
        lambda: tavli_fast.legal_positions(START_ID, *dice),
        lambda: tavli_fast.play_notation(START_ID, *dice),
        lambda: generate_positions(Position.from_id(START_ID), *dice),
    ]
    for call in calls:
        with pytest.raises(ValueError) as info:
            call()
        message = str(info.value)
        assert repr(bad) in message or str(bad) in message, message
        assert re.search(r"1\D{1,4}6", message), f"message should give the range 1..6: {message}"


@pytest.mark.parametrize("bad", [0, 7, -1])
def test_bad_dice_in_a_batch_raise_value_error(bad):
    with pytest.raises(ValueError):
        count_plays_batch([START_ID], np.array([[3, 1], [bad, 2]], dtype=np.int8))


def test_numpy_integer_dice_are_accepted():
    assert sorted(tavli_fast.legal_positions(START_ID, np.int64(3), np.int8(1))) == sorted(
        tavli_fast.legal_positions(START_ID, 3, 1)
    )


# ------------------------------------------------------------------------- ids
MALFORMED_IDS = {
    "empty": "",
    "too short": "4HPwATDgc/ABM",
    "too long": "4HPwATDgc/ABMAA",
    "not base64": "4HPwATDgc/AB!A",
    "16 checkers on roll": encode_id({6: 16}, {6: 14}),
    "16 opposing checkers": encode_id({6: 14}, {6: 16}),
    "all 80 bits set": "//////////////"[:13] + "w",
    "point held by both sides": encode_id({1: 15}, {24: 15}),
}


@pytest.mark.parametrize("bad", list(MALFORMED_IDS.values()), ids=list(MALFORMED_IDS))
def test_malformed_ids_raise_invalid_position_error(bad):
    with pytest.raises(InvalidPositionError):
        tavli_fast.legal_positions(bad, 3, 1)
    with pytest.raises(InvalidPositionError):
        tavli_fast.play_notation(bad, 3, 1)
    with pytest.raises(InvalidPositionError):
        count_plays_batch([bad], np.array([[3, 1]], dtype=np.int8))


@pytest.mark.parametrize("bad", [None, 123, b"4HPwATDgc/ABMA"], ids=repr)
def test_non_string_ids_raise_invalid_position_error(bad):
    with pytest.raises(InvalidPositionError):
        tavli_fast.legal_positions(bad, 3, 1)


def test_invalid_position_error_is_a_value_error():
    assert issubclass(InvalidPositionError, ValueError)


# ------------------------------------------------------------------------- return types
def test_legal_positions_returns_a_list_of_position_ids():
    result = tavli_fast.legal_positions(START_ID, 3, 1)
    assert type(result) is list
    assert all(type(pid) is str and len(pid) == 14 for pid in result)
    assert len(result) == len(set(result)) == 16
    # 8/5 6/5 (making the 5-point) is one of them, with sides not switched
    made_five = pos("x 24:2 13:5 8:2 6:4 5:2; o 24:2 13:5 8:3 6:5").position_id()
    assert made_five in result
    assert START_ID not in result


def test_legal_positions_sides_are_not_switched():
    # 6-5 from the start: 24/13 is a play; the opponent's checkers stay as they were.
    result = tavli_fast.legal_positions(START_ID, 6, 5)
    assert encode_id({24: 1, 13: 6, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}) in result


def test_generate_positions_returns_positions():
    start = pos(START_TEXT)
    result = generate_positions(start, 3, 1)
    assert type(result) is list
    assert all(isinstance(p, Position) for p in result)
    ids = sorted(p.position_id() for p in result)
    assert ids == sorted(tavli_fast.legal_positions(START_ID, 3, 1))
    for p in result:
        board = np.asarray(p.board)
        assert board.shape == (2, 26) and board.dtype == np.int8
        assert np.array_equal(board[1], np.asarray(start.board)[1])


def test_play_notation_keys_equal_legal_positions():
    for text, dice in [
        (START_TEXT, (3, 1)),
        (START_TEXT, (4, 4)),
        ("x bar:1 10:1; o 24:2 17:1", (2, 1)),
        ("x 6:1 3:1 1:1; o 1:2", (3, 1)),
        (CLOSED_BOARD, (6, 6)),
    ]:
        pid = pos(text).position_id()
        notation = tavli_fast.play_notation(pid, *dice)
        assert isinstance(notation, dict)
        assert set(notation) == set(tavli_fast.legal_positions(pid, *dice))
        assert all(isinstance(v, str) for v in notation.values())


def test_play_notation_values_for_known_plays():
    notation = tavli_fast.play_notation(START_ID, 3, 1)
    assert notation[pos("x 24:2 13:5 8:2 6:4 5:2; o 24:2 13:5 8:3 6:5").position_id()] == "8/5 6/5"
    notation = tavli_fast.play_notation(START_ID, 6, 5)
    assert notation[pos("x 24:1 13:6 8:3 6:5; o 24:2 13:5 8:3 6:5").position_id()] == "24/13"
    notation = tavli_fast.play_notation(START_ID, 4, 4)
    after = pos("x 20:2 13:3 9:2 8:3 6:5; o 24:2 13:5 8:3 6:5").position_id()
    assert notation[after] == "24/20(2) 13/9(2)"


# ------------------------------------------------------------------------- pass and win
def test_pass_returns_the_unchanged_position():
    pid = pos(CLOSED_BOARD).position_id()
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            assert tavli_fast.legal_positions(pid, d1, d2) == [pid]
    result = generate_positions(pos(CLOSED_BOARD), 6, 5)
    assert result == [pos(CLOSED_BOARD)]
    assert list(tavli_fast.play_notation(pid, 6, 5)) == [pid]
    assert count_plays_batch([pid], np.array([[6, 5], [1, 1]], dtype=np.int8)).tolist() == [[1, 1]]


def test_winning_play_is_listed():
    # One checker on my 1-point: any roll bears it off; the result has all 15 of mine off.
    pid = pos("x 1:1; o 6:14").position_id()
    won = encode_id({}, {6: 14})
    for dice in [(6, 5), (1, 1), (2, 1)]:
        assert tavli_fast.legal_positions(pid, *dice) == [won]
        assert list(tavli_fast.play_notation(pid, *dice)) == [won]


def test_generate_positions_can_return_a_winning_position():
    # The result of the winning play has the mover's 15 checkers off (sides not switched):
    # generate_positions must still return it (a Position, or at least its board).
    result = generate_positions(pos("x 1:1; o 6:14"), 6, 5)
    assert len(result) == 1
    board = np.asarray(result[0].board)
    assert board[0, 0] == 15 and board[1, 6] == 14


def test_count_plays_batch_shapes_and_types():
    ids = [START_ID, pos(CLOSED_BOARD).position_id()]
    dice = np.array([[3, 1], [4, 4], [6, 6]], dtype=np.int8)
    counts = count_plays_batch(ids, dice)
    assert isinstance(counts, np.ndarray)
    assert counts.dtype == np.int64
    assert counts.shape == (2, 3)
    assert counts.tolist() == [[16, 52, 11], [1, 1, 1]]
    boards = np.stack([np.asarray(Position.from_id(i).board) for i in ids])
    assert count_plays_batch(boards, dice).tolist() == counts.tolist()


def test_generate_plays_batch_grows_its_buffer_without_losing_plays():
    """1,000 starting positions x four doubles: 242 plays a board, far beyond the 16 a
    (board, roll) the batch's buffer reserves at first, so it grows (by mremap on Linux)."""
    from tavli_fast import _core
    from tavli_fast.game.movegen import generate_plays_batch

    start = Position.initial().board
    boards = np.repeat(start[np.newaxis], 1000, axis=0)
    dice = [(1, 1), (2, 2), (3, 3), (4, 4)]
    results, offsets = generate_plays_batch(boards, dice)
    one = [_core.generate(np.ascontiguousarray(start, dtype=np.int8), *d) for d in dice]
    assert [len(r) for r in one] == [42, 75, 73, 52]
    assert len(results) == offsets[-1] == 1000 * 242
    expected = np.concatenate(one)
    for i in (0, 499, 999):
        assert np.array_equal(results[offsets[4 * i]:offsets[4 * i + 4]], expected)
