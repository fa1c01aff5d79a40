"""Match equity tables (met.py): identities of the shipped Kazaross-XG2 table, gnubg's own
copy of it as the oracle, and every bad argument."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import SHARED

import tavli_fast
from tavli_fast.play.met import MatchEquityTable, load_met, match_equity

MET_DIR = SHARED / "data" / "met"


@pytest.fixture(scope="module")
def met() -> MatchEquityTable:
    return load_met()


def test_default_table_is_kazaross_xg2_with_its_source(met):
    assert met.name == "Kazaross-XG2"
    assert "Kazaross" in met.source and "gnubg" in met.source
    assert met.max_away == 25
    assert met.pre_crawford.shape == (25, 25) and met.post_crawford.shape == (25,)
    assert met.pre_crawford.dtype == np.float64 and met.post_crawford.dtype == np.float64
    assert load_met() is met  # cached
    assert tavli_fast.match_equity is match_equity


def test_shipped_table_is_the_shared_one(met):
    shared = json.loads((MET_DIR / "kazaross-xg2.json").read_text())
    assert np.array_equal(met.pre_crawford, np.array(shared["pre_crawford"]))
    assert np.array_equal(met.post_crawford, np.array(shared["post_crawford"]))


def test_table_is_read_only(met):
    with pytest.raises(ValueError):
        met.pre_crawford[0, 0] = 1.0
    with pytest.raises(AttributeError):
        met.name = "other"  # type: ignore[misc]


def test_antisymmetry_pre_crawford(met):
    for i in range(1, met.max_away + 1):
        for j in range(1, met.max_away + 1):
            assert match_equity(i, j) + match_equity(j, i) == pytest.approx(1.0, abs=1e-12)
    assert match_equity(7, 7) == 0.5


def test_antisymmetry_post_crawford(met):
    for j in range(1, met.max_away + 1):
        leader = match_equity(1, j, post_crawford=True)
        trailer = match_equity(j, 1, post_crawford=True)
        assert leader + trailer == pytest.approx(1.0, abs=1e-12)
    assert match_equity(1, 1, post_crawford=True) == 0.5  # double match point


def test_r25_post_crawford_3_away_equals_2_away_in_the_crawford_game():
    # The identity: the trailer 3-away after the Crawford game has the MWC of the
    # trailer 2-away in the Crawford game. Kazaross-XG2 holds it exactly (0.32264); it is
    # not a general rule (4-away post-Crawford 0.31002 vs 3-away Crawford 0.24924).
    assert match_equity(3, 1, post_crawford=True) == match_equity(2, 1) == 0.32264


def test_crawford_game_reads_row_and_column_zero(met):
    assert match_equity(1, 5) == met.pre_crawford[0, 4] == 1 - match_equity(5, 1)
    # The Crawford game is better for the leader than the free-drop games after it.
    for j in range(2, met.max_away + 1):
        assert match_equity(1, j) > match_equity(1, j, post_crawford=True)


def test_won_scores():
    assert match_equity(0, 3) == 1.0 and match_equity(-2, 3) == 1.0
    assert match_equity(3, 0) == 0.0 and match_equity(3, -1) == 0.0
    assert match_equity(0, 1, post_crawford=True) == 1.0


def test_numpy_ints_are_counts():
    assert match_equity(np.int64(3), np.int8(5)) == match_equity(3, 5)


def test_values_against_gnubg_met(met):
    gnubg = pytest.importorskip("gnubg")
    pre, post0, post1 = gnubg.met(met.max_away)
    # gnubg keeps its tables in float32: agree to its precision.
    assert np.allclose(met.pre_crawford, np.array(pre), atol=1e-6, rtol=0)
    # gnubg reads the same XML file, but its last post-Crawford entry (25-away) is its own
    # extrapolation, 0.00118125, not the file's 0.00123: compare the 24 entries before it.
    last = met.max_away - 1
    assert np.allclose(met.post_crawford[:last], np.array(post0[:last]), atol=1e-6, rtol=0)
    assert np.allclose(met.post_crawford[:last], np.array(post1[:last]), atol=1e-6, rtol=0)
    assert met.post_crawford[last] == 0.00123
    assert post0[last] == pytest.approx(0.00118125, abs=1e-8)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((26, 3), "away_me = 26 is beyond the 25-point match equity table"),
        ((3, 26), "away_opponent = 26 is beyond the 25-point"),
        ((0, 0), "both players have already won"),
        ((-1, 0), "both players have already won"),
        ((3, 4, True), "post-Crawford needs a player 1-away, the score is 3-away, 4-away"),
        ((True, 3), "away_me must be an int"),
        ((3, 2.0), "away_opponent must be an int"),
        (("3", 2), "away_me must be an int"),
        ((3, 1, 1), "post_crawford must be a bool"),
    ],
)
def test_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        match_equity(*args)


def test_unknown_table_names_the_shipped_ones():
    with pytest.raises(ValueError, match="no match equity table 'nope'; shipped: kazaross-xg2"):
        load_met("nope")
    with pytest.raises(ValueError, match="plain file stem"):
        load_met("../met/kazaross-xg2")


def test_malformed_tables_are_refused():
    with pytest.raises(ValueError, match="pre_crawford must be n x n"):
        MatchEquityTable("t", "s", np.zeros((2, 3)), np.zeros(2))
    with pytest.raises(ValueError, match="post_crawford must have 2 entries"):
        MatchEquityTable("t", "s", np.full((2, 2), 0.5), np.zeros(3))
    with pytest.raises(ValueError, match="outside"):
        MatchEquityTable("t", "s", np.full((2, 2), 1.5), np.zeros(2))


def test_a_smaller_table_bounds_the_scores():
    small = MatchEquityTable("three", "test", np.array(
        [[0.5, 0.7, 0.8], [0.3, 0.5, 0.6], [0.2, 0.4, 0.5]]), np.array([0.5, 0.45, 0.3]))
    assert small.max_away == 3
    assert small.mwc(2, 3) == 0.6 and small.mwc(1, 3, post_crawford=True) == 0.7
    with pytest.raises(ValueError, match="beyond the 3-point"):
        small.mwc(4, 1)
