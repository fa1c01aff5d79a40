"""Play notation: hand-verified examples (RULES.md "Play notation") and GNU Backgammon parity."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import from_gnubg_board, gnubg_board, pos, random_positions
from oracles.backgammon import reference_plays

from tavli_fast.errors import InvalidPositionError
from tavli_fast.game.notation import format_play, format_steps

START = "x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5"
ALL_ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


@pytest.mark.parametrize(
    ("before", "roll", "after", "text"),
    [
        (START, (3, 1), "x 24:2 13:5 8:2 6:4 5:2; o 24:2 13:5 8:3 6:5", "8/5 6/5"),
        (START, (3, 3), "x 24:2 13:5 8:1 6:3 5:2 3:2; o 24:2 13:5 8:3 6:5", "8/5(2) 6/3(2)"),
        (START, (4, 4), "x 20:1 16:1 13:4 9:1 8:3 6:5; o 24:2 13:5 8:3 6:5", "24/16 24/20 13/9"),
        (START, (6, 5), "x 24:1 13:6 8:3 6:5; o 24:2 13:5 8:3 6:5", "24/13"),
        (START, (2, 1), "x 24:2 13:4 11:1 8:3 6:4 5:1; o 24:2 13:5 8:3 6:5", "13/11 6/5"),
        ("x bar:1 6:14; o 3:1 6:14", (3, 1), "x 22:1 6:13 5:1; o bar:1 6:14", "bar/22* 6/5"),
        ("x 13:1 6:14; o 18:1 6:13 off:1", (6, 4), "x 3:1 6:14; o bar:1 6:13 off:1", "13/7*/3"),
        ("x 6:1 5:1 off:13; o 23:1 off:14", (4, 3), "x 2:2 off:13; o bar:1 off:14", "6/2* 5/2"),
        ("x 6:4 off:11; o 24:1 off:14", (5, 5), "x 1:4 off:11; o bar:1 off:14", "6/1*(4)"),
        ("x 6:2 4:1; o 13:2", (6, 1), "x 6:1 3:1; o 13:2", "6/off 4/3"),
        ("x 5:3 3:2; o 13:2", (3, 3), "x 5:1 2:2; o 13:2", "5/2(2) 3/off(2)"),
        ("x 6:2 3:2; o 13:2", (3, 3), "x 3:2; o 13:2", "6/off(2)"),
        ("x 8:2 6:13; o 13:2", (6, 5), "x 6:13 3:1 2:1; o 13:2", "8/3 8/2"),
        ("x bar:4 6:11; o 13:2", (2, 2), "x 23:4 6:11; o 13:2", "bar/23(4)"),
    ],
)
def test_rules_examples(before, roll, after, text):
    assert format_play(pos(before), pos(after), *roll) == text


def test_no_legal_move_is_written_as_gnubg_does_empty_string():
    closed = pos("x bar:1 6:14; o 1:2 2:2 3:2 4:2 5:2 6:2 7:3")
    assert format_play(closed, closed, 6, 6) == ""


def test_winning_play_takes_a_board_after():
    before = pos("x 2:1 1:1; o 13:2")
    after = np.array(before.board)
    after[0] = 0
    after[0, 0] = 15
    assert format_play(before, after, 2, 1) == "2/off 1/off"


def test_illegal_after_is_rejected():
    start = pos(START)
    with pytest.raises(InvalidPositionError, match="not a legal result"):
        format_play(start, start, 3, 1)
    # Sides switched by mistake: also not a result of the play.
    after = pos("x 24:2 13:5 8:2 6:4 5:2; o 24:2 13:5 8:3 6:5").sides_switched()
    with pytest.raises(InvalidPositionError, match="sides not switched"):
        format_play(start, after, 3, 1)


@pytest.mark.oracle
def test_notation_equals_gnubg_formatter_on_random_plays():
    """gnubg's own FormatMove (PyPI gnubg: move_tuple_to_string) on gnubg's own steps
    (gnubg_nn.moves), for every legal play of 150 random positions x 21 rolls. Also: every
    step sequence reaching the same result is written the same way."""
    gnubg = pytest.importorskip("gnubg")
    gnubg_nn = pytest.importorskip("gnubg_nn")
    compared = 0
    for p in random_positions(150, seed=4242):
        gb = gnubg_board(p)
        for d1, d2 in ALL_ROLLS:
            plays = reference_plays(p.board, d1, d2)
            texts = {}
            for key, sequences in plays.items():
                written = {format_steps(p.board, seq) for seq in sequences}
                assert len(written) == 1, (p.position_id(), d1, d2, written)
                texts[key] = written.pop()
            for key, steps in gnubg_nn.moves(gb, d1, d2, 1):
                after = from_gnubg_board(gnubg_nn.boardfromkey(key)).tobytes()
                assert texts[after] == gnubg.move_tuple_to_string(steps, gb), (
                    p.position_id(), d1, d2, steps,
                )
                compared += 1
    assert compared > 20000


@pytest.mark.oracle
def test_format_play_on_positions_matches_gnubg():
    gnubg = pytest.importorskip("gnubg")
    gnubg_nn = pytest.importorskip("gnubg_nn")
    for p in random_positions(40, seed=77):
        gb = gnubg_board(p)
        for d1, d2 in [(6, 5), (3, 3), (2, 1)]:
            for key, steps in gnubg_nn.moves(gb, d1, d2, 1):
                after = from_gnubg_board(gnubg_nn.boardfromkey(key))
                assert format_play(p, after, d1, d2) == gnubg.move_tuple_to_string(steps, gb)


def test_position_plays_from_the_start():
    pytest.importorskip("tavli_fast._core")
    plays = pos(START).plays(3, 1)
    assert len(plays) == 16
    by_text = {play.notation: play.position for play in plays}
    assert by_text["8/5 6/5"] == pos("x 24:2 13:5 8:2 6:4 5:2; o 24:2 13:5 8:3 6:5")
    assert "24/20" in by_text and "13/9" in by_text
