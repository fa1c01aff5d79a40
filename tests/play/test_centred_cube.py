"""A centred cube above 1 (XGID's cube field is the log2 of the value and its owner field 0 is
centred: automatic doubles leave a centred cube of 2) is read and evaluated as that cube,
never as a cube of 1 (issue 51)."""

from __future__ import annotations

import pytest

from tavli_fast.game.position import Position
from tavli_fast.play.cube import cube_decision
from tavli_fast.play.met import match_equity

#: The start position, 7-point match, bottom player (on roll) 2, top player 3, no dice.
MATCH = "XGID=-b----E-C---eE---c-e----B-:{log2}:0:1:00:2:3:0:7:10"
#: The same in money play with the highest cube 2**max_log2.
MONEY = "XGID=-b----E-C---eE---c-e----B-:{log2}:0:1:00:0:0:0:0:{max_log2}"
#: Made-up probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon).
PROBS = (0.62, 0.18, 0.01, 0.09, 0.004)


def test_a_centred_cube_of_2_is_read_as_2_and_written_back():
    position = Position.from_id(MATCH.format(log2=1))
    assert position.context.cube_value == 2 and position.context.cube_owner == "centre"
    assert position.xgid() == MATCH.format(log2=1)


@pytest.mark.parametrize("log2", [0, 1, 2])
def test_in_a_match_a_pass_of_a_centred_cube_wins_its_value(log2):
    # 5-away (on roll) against 4-away: a pass of a centred cube of value v gives v points.
    decision = cube_decision(MATCH.format(log2=log2), probabilities=PROBS)
    assert decision.mwc["double_pass"] == pytest.approx(match_equity(5 - (1 << log2), 4))


def test_in_a_match_a_centred_cube_of_2_is_another_decision_than_a_cube_of_1():
    one = cube_decision(MATCH.format(log2=0), probabilities=PROBS)
    two = cube_decision(MATCH.format(log2=1), probabilities=PROBS)
    assert one.mwc["no_double"] != pytest.approx(two.mwc["no_double"], abs=1e-3)


def test_in_money_a_centred_cube_of_2_at_the_highest_cube_cannot_be_doubled():
    # Money figures are per unit of the cube (as gnubg gives them); the value still counts
    # against the highest cube: 2 is already the most that a maximum of 2**1 allows.
    assert cube_decision(MONEY.format(log2=0, max_log2=1), probabilities=PROBS).can_double
    assert not cube_decision(MONEY.format(log2=1, max_log2=1), probabilities=PROBS).can_double
