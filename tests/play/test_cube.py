"""cube_decision: the 0-ply cube model (CUBE.md), worked by hand, and its input checks.

The differential tests against GNU Backgammon are in test_cube_oracle.py; here each expected
value is computed in the test from the formulas of CUBE.md (or by a rule of the game), never
copied from the code's output.
"""

from __future__ import annotations

import math

import pytest

import tavli_fast as tf
from helpers import pos
from tavli_fast.errors import InvalidPositionError
from tavli_fast.game.position import GameContext

START = "4HPwATDgc/ABMA"
CONTACT_X = 0.76


def money_by_hand(p, owner, x=CONTACT_X):
    """CUBE.md's money formulas for gammonless probabilities p (W = L = 1)."""
    tp, cp = 0.5 / 2.5, 2.0 / 2.5
    dead = 2 * p - 1
    if owner == "centre":
        live = -1 + 2 * (p - tp) / (cp - tp) if tp <= p <= cp else (-1 if p < tp else 1)
    elif owner == "opponent":
        live = -1 + 2 * (p - tp) / (1 - tp) if p >= tp else -1
    else:
        live = -1 + 2 * p / cp if p <= cp else 1
    return (1 - x) * dead + x * live


@pytest.mark.parametrize("p", [0.55, 0.65, 0.72, 0.78])
def test_r22_money_centred_cube_without_gammons_follows_janowski_by_hand(p):
    d = tf.cube_decision(START, probabilities=(p, 0, 0, 0, 0))
    assert d.efficiency == CONTACT_X                    # the start is a contact position
    assert d.no_double == pytest.approx(money_by_hand(p, "centre"), abs=1e-12)
    assert d.double_take == pytest.approx(2 * money_by_hand(p, "opponent"), abs=1e-12)
    assert d.double_pass == 1.0
    assert d.mwc is None and d.can_double


def test_r22_worked_example_p075_is_double_take():
    # p = 0.75, no gammons: ND = 0.24 * 0.5 + 0.76 * (-1 + 2 * 0.55 / 0.6) = 0.75333...,
    # DT = 2 * (0.24 * 0.5 + 0.76 * (-1 + 2 * 0.55 / 0.8)) = 0.81: DT > ND, DP > DT.
    d = tf.cube_decision(START, probabilities=(0.75, 0, 0, 0, 0))
    assert d.no_double == pytest.approx(0.12 + 0.76 * (-1 + 1.1 / 0.6))
    assert d.double_take == pytest.approx(0.81)
    assert d.action == "Double, take" and d.double and d.take and not d.too_good


def test_r22_a_sure_win_with_no_gammons_is_double_pass():
    d = tf.cube_decision(START, probabilities=(1.0, 0, 0, 0, 0))
    assert d.action == "Double, pass" and d.double and not d.take


def test_r22_a_big_gammon_threat_is_too_good():
    d = tf.cube_decision(START, probabilities=(0.9, 0.6, 0.05, 0.01, 0.0))
    assert d.no_double > d.double_pass                  # playing on beats cashing
    assert d.action == "Too good to double, pass" and d.too_good and not d.double


def test_r22_owner_says_redouble_and_the_opponent_cannot_double():
    owned = pos("x 6:5 8:3 13:5 24:2; o 6:5 8:3 13:5 24:2").with_context(
        GameContext(cube_value=2, cube_owner="me"))
    d = tf.cube_decision(owned, probabilities=(0.75, 0, 0, 0, 0))
    assert d.action == "Redouble, take"
    theirs = owned.with_context(GameContext(cube_value=2, cube_owner="opponent"))
    d = tf.cube_decision(theirs, probabilities=(0.75, 0, 0, 0, 0))
    assert not d.can_double and d.action == "You cannot double"


def test_r23_jacoby_makes_gammons_worthless_before_the_cube_is_turned():
    probs = (0.6, 0.3, 0.0, 0.1, 0.0)
    plain = tf.cube_decision(START, probabilities=probs)
    jacoby = tf.cube_decision(
        tf.Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:0:10"), probabilities=probs)
    assert jacoby.no_double < plain.no_double           # the gammons no longer count
    assert jacoby.double_take == pytest.approx(plain.double_take)   # DT turns the cube


def test_r23_beaver_is_offered_when_the_taker_is_the_favourite():
    beaver = tf.Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:0:10")
    d = tf.cube_decision(beaver, probabilities=(0.4, 0.05, 0.0, 0.05, 0.0))
    assert d.double_take < 0 and d.action == "No double, beaver" and d.take


def test_r23_no_double_at_the_maximum_cube():
    top = tf.Position.from_id("XGID=-b----E-C---eE---c-e----B-:6:1:1:00:0:0:0:0:6")
    assert top.context.cube_value == 64 and top.context.max_cube == 64
    assert tf.cube_decision(top, probabilities=(0.8, 0, 0, 0, 0)).action == "You cannot double"


def test_r25_crawford_game_has_no_cube_and_the_equity_is_dead():
    crawford = tf.Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:1:5:10")
    d = tf.cube_decision(crawford, probabilities=(0.6, 0.15, 0.0, 0.1, 0.0))
    assert not d.can_double and d.action == "You cannot double"
    # Dead cube: the MWC is the plain average over the game's outcomes. I am 1-away, the
    # opponent 3-away: any win wins the match; a single loss leaves 1-away against 2-away
    # post-Crawford, a gammon loss double match point (1-away each), a backgammon loses.
    loss_single = tf.match_equity(1, 2, post_crawford=True)
    expected = 0.6 + (0.4 - 0.1) * loss_single + 0.1 * 0.5
    assert d.mwc["no_double"] == pytest.approx(expected, abs=1e-12)


def test_r25_double_match_point_is_a_coin_toss_for_the_cube():
    dmp = tf.Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:4:0:5:10")
    d = tf.cube_decision(dmp, probabilities=(0.6, 0.2, 0.01, 0.1, 0.0))
    assert not d.can_double
    assert d.mwc["no_double"] == pytest.approx(0.6)     # gammons do not matter at DMP
    assert d.no_double == pytest.approx(2 * 0.6 - 1)


def test_r25_post_crawford_trailer_may_double_and_the_leader_may_not():
    trailer = tf.Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:4:0:5:10")
    assert tf.cube_decision(trailer, probabilities=(0.5, 0.1, 0, 0.1, 0)).can_double
    leader = tf.Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:4:2:0:5:10")
    assert not tf.cube_decision(leader, probabilities=(0.5, 0.1, 0, 0.1, 0)).can_double


def test_match_double_pass_is_one_and_its_mwc_the_tables():
    # 5-point match at 1-0 for me (4-away against 5-away), cube 1: a pass gives me 2-0,
    # i.e. 3-away against 5-away.
    p = tf.Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:1:0:0:5:10")
    d = tf.cube_decision(p, probabilities=(0.7, 0.2, 0.01, 0.05, 0.0))
    assert d.double_pass == 1.0
    assert d.mwc["double_pass"] == pytest.approx(tf.match_equity(3, 5))


def test_the_neural_player_gives_the_probabilities_when_none_are_given():
    d = tf.cube_decision(START)
    assert d.probabilities == pytest.approx(tuple(vars(tf.evaluate(START)).values()))
    assert d.action == "No double, take"                 # nobody doubles at the start


@pytest.mark.parametrize("position, error", [
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", InvalidPositionError),  # dice rolled
    ("nonsense", InvalidPositionError),
])
def test_bad_positions_raise_precise_errors(position, error):
    with pytest.raises(error):
        tf.cube_decision(position, probabilities=(0.5, 0.1, 0, 0.1, 0))


@pytest.mark.parametrize("probs", [
    (0.5, 0.1, 0.0, 0.1),                  # four numbers
    (1.2, 0.1, 0.0, 0.1, 0.0),             # win above 1
    (0.5, 0.6, 0.0, 0.1, 0.0),             # gammons above wins
    (0.5, 0.1, 0.2, 0.1, 0.0),             # backgammons above gammons
    (0.5, 0.1, 0.0, 0.6, 0.0),             # losing gammons above losses
    (0.5, math.nan, 0.0, 0.1, 0.0),
    "0.5",
])
def test_bad_probabilities_raise_value_error(probs):
    with pytest.raises(ValueError):
        tf.cube_decision(START, probabilities=probs)


def test_players_without_probabilities_are_refused():
    with pytest.raises(ValueError, match="no probabilities"):
        tf.cube_decision(START, player="pubeval")
    with pytest.raises(ValueError, match="unknown player"):
        tf.cube_decision(START, player="gnubg")
