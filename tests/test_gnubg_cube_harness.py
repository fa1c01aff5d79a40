"""The gnubg cube oracle harness (tests/gnubg_cube.py) checked against itself and known facts.

These tests need only gnubg, not tavli_fast's cube model: they make sure the harness reads
gnubg's output right (the differential tests in play/test_cube_oracle.py rely on it).
"""

from __future__ import annotations

import pytest

from tavli_fast.game.position import GameContext, Position

pytest.importorskip("gnubg")

from gnubg_cube import CANNOT_DOUBLE, gnubg_cube_analysis  # noqa: E402

pytestmark = pytest.mark.oracle

START = "4HPwATDgc/ABMA"


def test_money_centred_start_reads_all_fields():
    a = gnubg_cube_analysis(START, GameContext())
    win, wg, wbg, lg, lbg = a.probabilities
    assert 0.4 < win < 0.6 and 0 < wbg < wg < win and 0 < lbg < lg < 1 - win
    # Money cubeless equity is 2p - 1 + (G - g) + (B - b), printed to 6 decimals.
    assert a.cubeless_equity == pytest.approx(2 * win - 1 + wg - lg + wbg - lbg, abs=1e-6)
    assert a.double_pass == 1.0
    assert a.no_double > a.double_take
    assert a.action == "No double, take"
    assert a.mwc is None and a.cubeless_mwc is None
    assert a.can_double and 0 < a.confidence < 1


def test_the_position_id_names_the_side_on_roll_for_gnubg():
    # Swapping sides swaps win and loss gammons and (nearly) flips the cubeless equity.
    p = Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    a = gnubg_cube_analysis(p)
    b = gnubg_cube_analysis(p.sides_switched())
    assert a.probabilities == b.probabilities  # the start is symmetric
    race = Position.parse("x 6:5 5:5 4:5; o 13:15")
    a, b = gnubg_cube_analysis(race), gnubg_cube_analysis(race.sides_switched())
    assert a.probabilities[0] > 0.99 and b.probabilities[0] < 0.01
    assert a.action.startswith("Too good") and a.no_double > 1


@pytest.mark.parametrize(
    "context",
    [
        GameContext(match_length=7, score=(6, 1), crawford=True),  # the Crawford game
        GameContext(match_length=7, score=(6, 1)),  # post-Crawford leader
        GameContext(cube_value=2, cube_owner="opponent"),
        GameContext(cube_value=4, cube_owner="opponent", match_length=7, score=(1, 2)),
    ],
    ids=["crawford", "post-crawford-leader", "money-opponent-owns", "match-opponent-owns"],
)
def test_no_cube_action_gives_cubeful_no_double_only(context):
    a = gnubg_cube_analysis(START, context)
    assert a.action == CANNOT_DOUBLE and not a.can_double
    assert a.double_take is None and a.double_pass is None
    assert (a.mwc is None) == context.is_money
    if context.crawford:  # dead cube: cubeful equals cubeless
        assert a.no_double == pytest.approx(a.cubeless_equity, abs=1e-6)
    if context.cube_owner == "opponent" and context.is_money:
        # The opponent's cube costs the side on roll: below its cubeless equity.
        assert a.no_double < a.cubeless_equity


def test_match_mwcs_and_equities_lie_on_one_line_through_double_pass():
    # gnubg maps MWC to equity linearly at the current cube, with DP = +1.
    a = gnubg_cube_analysis(START, GameContext(match_length=7, score=(1, 4)))
    keys = ("no_double", "double_take", "double_pass")
    eq = [getattr(a, k) for k in keys]
    mwc = [a.mwc[k] for k in keys]
    slope = (eq[0] - eq[1]) / (mwc[0] - mwc[1])
    assert eq[2] == 1.0
    assert eq[2] - eq[0] == pytest.approx(slope * (mwc[2] - mwc[0]), abs=2e-5)
    assert 0 < a.cubeless_mwc < 1


def test_jacoby_and_beaver_are_passed_to_gnubg():
    plain = gnubg_cube_analysis(START, GameContext())
    jacoby = gnubg_cube_analysis(START, GameContext(jacoby=True))
    beaver = gnubg_cube_analysis(START, GameContext(beaver=True))
    # Jacoby: gammons do not count with a centred cube, so not doubling is worth less here.
    assert jacoby.no_double < plain.no_double
    assert jacoby.double_take == plain.double_take  # the turned cube: gammons count again
    assert beaver.action == "No double, beaver" and plain.action == "No double, take"


def test_dice_rolled_is_refused():
    with pytest.raises(ValueError, match="before the roll"):
        gnubg_cube_analysis("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10")


def test_an_xgid_with_a_second_context_is_refused():
    with pytest.raises(ValueError, match="carries its own context"):
        gnubg_cube_analysis("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", GameContext())


def test_a_pasted_gnubg_id_gives_the_same_analysis_as_its_xgid():
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:1:0:7:10"
    a = gnubg_cube_analysis(xgid)
    b = gnubg_cube_analysis(Position.from_id(a.gnubg_id))
    assert (b.no_double, b.double_take, b.mwc, b.action) == (a.no_double, a.double_take, a.mwc,
                                                             a.action)
    assert a.action.startswith(("No redouble", "Redouble", "Too good to redouble"))
