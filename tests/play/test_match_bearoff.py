"""Exact match-play cube decisions inside the two-sided bear-off database (R21-R25).

Checked four ways: by hand on one-checker positions whose figures are a line of arithmetic
over the match equity table; against a small dynamic programme written here in plain
Python over the oracle move generator (tests/oracles), on tiny positions at many scores and
cubes; in money play against the cubeful money database (another program solves it); and
on the figures of issue 51 (an exact solve elsewhere: +0.484 / +0.775 at 7-point 0-0).
"""

from __future__ import annotations

import functools
import itertools
import json

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.cli.evaluate import hint_main
from tavli_fast.game.position import GameContext, Position
from tavli_fast.play import match_bearoff
from tavli_fast.play.bearoff import default_database
from tavli_fast.play.cube import cube_decision
from tavli_fast.play.met import load_met

from helpers import pos
from oracles.backgammon import reference_positions

CENTRE, MINE, THEIRS = 0, 1, 2
ISSUE_XGID = "XGID=-AAA--A--------------baa--:0:0:1:00:{}:{}:0:7:10"
BUDGET = 1 << 24


def _match(text: str, length: int, score: tuple[int, int], cube: int = 1,
           owner: str = "centre", crawford: bool = False) -> Position:
    return pos(text).with_context(GameContext(
        cube_value=cube, cube_owner=owner, match_length=length, score=score,
        crawford=crawford, max_cube=64))


def _solve(board, value, owner, away_me, away_opp, crawford=False, max_value=64):
    met = load_met().kernel if away_me else None
    return _core.bearoff_cube_solution(np.ascontiguousarray(board, dtype=np.int8), value,
                                       owner, max_value, away_me, away_opp, crawford, met,
                                       default_database(cubeful=away_me == 0).tables, BUDGET)


# ------------------------------------------------------------------ by hand

def test_r22_r24_one_checker_race_at_2_away_4_away_by_hand():
    # I (2-away) have one checker on my 6 point, the opponent (4-away) one on his 1 point.
    # I bear off with 27 rolls of 36 (every roll but 11 12 21 13 31 14 41 15 51: 9 rolls),
    # else he bears off. Nobody gets another cube turn that matters, so with M the table:
    #   no double   0.75 M(1-away, 4-away, Crawford game next) + 0.25 M(2, 3)
    #   double/take 0.75 x 1 (2 points win the match) + 0.25 M(2, 2)
    #   double/pass M(1, 4)
    met = load_met()
    d = cube_decision(_match("x 6:1; o 1:1", 7, (5, 3)), exact=True)
    assert d.exact
    assert d.mwc["no_double"] == pytest.approx(0.75 * met.mwc(1, 4) + 0.25 * met.mwc(2, 3), abs=1e-6)
    assert d.mwc["double_take"] == pytest.approx(0.75 + 0.25 * met.mwc(2, 2), abs=1e-6)
    assert d.mwc["double_pass"] == pytest.approx(met.mwc(1, 4), abs=1e-6)
    # Kazaross-XG2: DT = 0.75 + 0.25 x 0.5 = 0.875 > DP = M(1, 4) = 0.8144: a pass.
    assert d.double and not d.take and d.action == "Double, pass"


def test_r25_crawford_game_has_no_cube_by_hand():
    # Crawford game, me 2-away, him 1-away: no double (R25). I win one point with 27/36
    # and reach 1-away/1-away after the Crawford game (MWC 0.5), else I lose the match.
    d = cube_decision(_match("x 6:1; o 1:1", 5, (3, 4), crawford=True), exact=True)
    assert d.exact and not d.can_double and d.action == "You cannot double"
    assert d.mwc["no_double"] == pytest.approx(0.75 * 0.5, abs=1e-6)


def test_r25_post_crawford_trailer_doubles_by_hand():
    # Post-Crawford, me 3-away, him 1-away. Doubled, he takes: I win 2 points with 27/36
    # and reach 1-away/1-away (0.5); passing, he leaves me 2-away post-Crawford, P(2).
    # Not doubling I win one point: 0.75 P(2). So DT = 0.375, DP = P(2), ND = 0.75 P(2).
    met = load_met()
    p2 = met.mwc(2, 1, post_crawford=True)
    d = cube_decision(_match("x 6:1; o 1:1", 5, (2, 4)), exact=True)
    assert d.exact and d.can_double
    assert d.mwc["no_double"] == pytest.approx(0.75 * p2, abs=1e-6)
    assert d.mwc["double_take"] == pytest.approx(0.375, abs=1e-6)
    assert d.mwc["double_pass"] == pytest.approx(p2, abs=1e-6)
    assert d.double and d.take and d.action == "Double, take"


def test_r22_r24_a_cube_that_wins_the_match_is_dead():
    # Me 2-away owning a cube of 2: a win of 2 already wins the match, so redoubling gains
    # me nothing (the cube is dead for me). I win with 27/36; else he, 4-away, wins 2
    # points and cannot redouble a cube I own: 2-away/2-away.
    d = cube_decision(_match("x 6:1; o 1:1", 7, (5, 3), cube=2, owner="me"), exact=True)
    assert d.exact and not d.can_double
    assert d.mwc["no_double"] == pytest.approx(0.75 + 0.25 * load_met().mwc(2, 2), abs=1e-6)


# ------------------------------------------------------------------ the issue's figures

def test_issue_51_example_at_7_point_0_0():
    d = cube_decision(Position.from_id(ISSUE_XGID.format(0, 0)), exact=True)
    assert d.exact and d.efficiency is None
    assert d.no_double == pytest.approx(0.484, abs=0.0006)
    assert d.double_take == pytest.approx(0.775, abs=0.0006)
    assert d.double_pass == 1.0
    assert d.action == "Double, take"


def test_issue_51_example_at_2_away_4_away_is_no_double():
    # Doubled, the 4-away side redoubles at once and the game decides the match.
    d = cube_decision(Position.from_id(ISSUE_XGID.format(5, 3)), exact=True)
    assert d.exact and d.can_double and not d.double
    assert d.action == "No double, take"
    assert d.double_take < d.no_double


# ------------------------------------------------------------------ a plain-Python solve

def _python_solve(mine: tuple, theirs: tuple, value: int, owner: int | None,
                  away: tuple[int, int], crawford: bool, max_cube: int = 64):
    """(ND, DT, DP) MWCs of side 0 on roll: a plain recursion over the 36 dice, the plays
    from the oracle generator, each side maximising its own MWC. `owner`: None centred,
    else the side (0 on roll, 1 its opponent) that owns the cube."""
    met = load_met()
    post = 1 in away

    def won(p: int, points: int) -> float:
        if away[p] - points <= 0:
            return 1.0
        a, b = away[p] - points, away[1 - p]
        return met.mwc(a, b, post and 1 in (a, b))

    def may_double(p: int, v: int, own: int | None) -> bool:
        return own in (None, p) and not crawford and 2 * v <= max_cube and away[p] > v

    @functools.lru_cache(maxsize=None)
    def plays(me: tuple, d1: int, d2: int) -> list[tuple]:
        board = np.zeros((2, 26), dtype=np.int8)
        board[0, 1:7] = me
        board[0, 0] = 15 - sum(me)
        board[1, 0] = 15
        return [tuple(np.frombuffer(r, dtype=np.int8).reshape(2, 26)[0, 1:7])
                for r in reference_positions(board, d1, d2)]

    @functools.lru_cache(maxsize=None)
    def no_double(p: int, me: tuple, him: tuple, v: int, own: int | None) -> float:
        total = 0.0
        for d1, d2 in itertools.product(range(1, 7), repeat=2):
            total += max(won(p, v) if sum(r) == 0 else 1.0 - acting(1 - p, him, r, v, own)
                         for r in plays(me, d1, d2))
        return total / 36.0

    def acting(p: int, me: tuple, him: tuple, v: int, own: int | None) -> float:
        x = no_double(p, me, him, v, own)
        if may_double(p, v, own):
            x = max(x, min(won(p, v), no_double(p, me, him, 2 * v, 1 - p)))
        return x

    return (no_double(0, mine, theirs, value, owner),
            no_double(0, mine, theirs, 2 * value, 1), won(0, value))


TINY = [((0, 0, 0, 0, 1, 1), (1, 0, 1, 0, 0, 0)), ((1, 0, 0, 0, 0, 1), (0, 0, 0, 1, 0, 0)),
        ((0, 2, 0, 0, 0, 0), (0, 0, 0, 0, 0, 1)), ((0, 0, 0, 1, 0, 1), (0, 0, 0, 0, 2, 0))]
# (away me, away him, crawford, cube, owner): neutral, leader, trailer, 2-away/2-away,
# 2-away/4-away, Crawford, post-Crawford both ways, an owned cube, the opponent's cube.
CONTEXTS = [(7, 7, False, 1, CENTRE), (3, 6, False, 1, CENTRE), (6, 3, False, 1, CENTRE),
            (2, 2, False, 1, CENTRE), (2, 4, False, 1, CENTRE), (4, 2, False, 1, CENTRE),
            (3, 1, True, 1, CENTRE), (4, 1, False, 1, CENTRE), (1, 4, False, 1, CENTRE),
            (9, 7, False, 2, MINE), (9, 7, False, 2, THEIRS), (5, 5, False, 4, THEIRS)]


@pytest.mark.parametrize("mine, theirs", TINY)
def test_solve_equals_a_plain_python_solve(mine, theirs):
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 1:7], board[1, 1:7] = mine, theirs
    board[:, 0] = 15 - board[:, 1:7].sum(axis=1)
    for a, b, crawford, cube, owner in CONTEXTS:
        got = _solve(board, cube, owner, a, b, crawford)
        want = _python_solve(mine, theirs, cube, {CENTRE: None, MINE: 0, THEIRS: 1}[owner],
                             (a, b), crawford)
        context = (mine, theirs, a, b, crawford, cube, owner)
        assert got[0] == pytest.approx(want[0], abs=2e-6), context
        assert got[1] == pytest.approx(want[1], abs=2e-6), context
        assert got[2] == pytest.approx(want[2], abs=1e-12), context


# ------------------------------------------------------------------ money: the money DP

def test_money_solve_reproduces_the_cubeful_money_database():
    """The same solve in money play (points, cube to 64 from 1: six doublings, 1.2e-5 from
    the unlimited cube) against the cubeful database's three ND tables and DT = 2 X."""
    db = default_database(cubeful=True)
    rng = np.random.default_rng(5)
    checked = 0
    while checked < 12:
        board = np.zeros((2, 26), dtype=np.int8)
        for side in range(2):
            for _ in range(rng.integers(1, 5)):
                board[side, rng.integers(1, 7)] += 1
        board[:, 0] = 15 - board[:, 1:7].sum(axis=1)
        nd_c, nd_o, nd_x = db.tables.cubeful_equities(board)
        for owner, want in ((CENTRE, nd_c), (MINE, nd_o), (THEIRS, nd_x)):
            got = _solve(board, 1, owner, 0, 0)
            assert got[0] == pytest.approx(want, abs=1e-4)
            assert got[1] == pytest.approx(2 * nd_x, abs=2e-4)
            assert got[2] == 1.0
        checked += 1


def test_money_cube_decisions_still_come_from_the_money_database():
    p = pos("x 6:1 5:2; o 4:1 3:2")
    d = cube_decision(p, exact=True)
    nd_c, _, nd_x = default_database(cubeful=True).tables.cubeful_equities(p.board)
    assert d.exact and d.mwc is None
    assert d.no_double == pytest.approx(nd_c, abs=1e-7)
    assert d.double_take == pytest.approx(2 * nd_x, abs=1e-7)


# ------------------------------------------------------------------ use and limits

def test_match_analysis_is_cached_by_position_and_score():
    p = _match("x 6:1 5:1 1:1; o 4:1 2:2", 9, (2, 5))
    first = match_bearoff.exact_match_analysis(p)
    hits = match_bearoff._solved.cache_info().hits
    assert match_bearoff.exact_match_analysis(p) == first
    assert match_bearoff._solved.cache_info().hits == hits + 1
    other = match_bearoff.exact_match_analysis(_match("x 6:1 5:1 1:1; o 4:1 2:2", 9, (5, 2)))
    assert other != first


def test_positions_outside_the_database_or_money_are_not_solved_here():
    assert match_bearoff.exact_match_analysis(pos("x 6:1; o 1:1")) is None       # money
    assert match_bearoff.exact_match_analysis(_match("x 8:1; o 1:1", 7, (0, 0))) is None
    outside = pos("x 8:1; o 1:1").board
    with pytest.raises(ValueError, match="inside the two-sided"):
        _solve(outside, 1, CENTRE, 7, 7)
    with pytest.raises(ValueError, match="match score"):
        _core.cube_analysis_match_exact(pos("x 6:1; o 1:1").board, 1, 0, 64, 0, 0, False,
                                        load_met().kernel, default_database().tables, BUDGET)


def test_over_the_budget_the_solve_declines():
    board = pos("x 6:3 5:2; o 6:3 4:2").board
    assert _core.bearoff_cube_solution(board, 1, 0, 64, 7, 7, False, load_met().kernel,
                                       default_database().tables, 100) is None
    assert _solve(board, 1, CENTRE, 7, 7) is not None


def test_model_answers_when_asked_and_differs_from_the_solve():
    p = Position.from_id(ISSUE_XGID.format(0, 0))
    model = cube_decision(p, exact=False)
    exact = cube_decision(p, exact=True)
    assert not model.exact and model.efficiency == pytest.approx(0.6)
    assert abs(model.no_double - exact.no_double) > 0.1


# ------------------------------------------------------------------ the solved region

@pytest.fixture(scope="module")
def region():
    """Every pair of at most 3 checkers a side at 9-away/5-away, cube 1 centred."""
    return _core.MatchBearoffRegion(default_database().tables, 3, 1, CENTRE, 64, 9, 5, False,
                                    load_met().kernel)


@pytest.mark.parametrize("text", ["x 6:1 5:1 1:1; o 4:1 2:2", "x 3:2; o 6:1 1:1",
                                  "x 1:1; o 6:3"])
def test_region_lookups_equal_the_solve_of_the_position(region, text):
    board = pos(text).board
    tables = default_database().tables
    met = load_met().kernel
    # Player 0 (9-away) on roll, then player 1 (5-away): the cube as each side sees it.
    for side, (a, b) in ((0, (9, 5)), (1, (5, 9))):
        for value, owner in ((1, CENTRE), (2, MINE), (2, THEIRS), (4, MINE)):
            got = region.cube_analysis(board, side, value, owner, tables)
            want = _core.cube_analysis_match_exact(board, value, owner, 64, a, b, False, met,
                                                   tables, BUDGET)
            assert got is not None
            # ND, its MWC and the action always; DT where the side may double.
            assert got[1] == pytest.approx(want[1], abs=1e-6)
            assert got[4] == pytest.approx(want[4], abs=1e-6)
            assert got[7] == want[7] and got[8] == want[8]
            if want[8]:
                assert got[2] == pytest.approx(want[2], abs=1e-6)


def test_region_answers_only_inside_it_and_at_its_score(region):
    tables = default_database().tables
    assert region.pairs == _core.bearoff_n_positions(6, 3) ** 2
    assert region.cube_analysis(pos("x 6:4; o 1:1").board, 0, 1, CENTRE, tables) is None
    # A cube of 1 owned by someone is not a state of a game that started centred at 1.
    assert region.cube_analysis(pos("x 6:1; o 1:1").board, 0, 1, MINE, tables) is None


def test_tavli_hint_says_exact_and_keeps_its_json_keys(capsys):
    xgid = ISSUE_XGID.format(0, 0)
    assert hint_main(["--position", xgid]) == 0
    text = capsys.readouterr().out
    assert "exact: bear-off solved at the match score" in text
    assert "Double, take" in text
    assert hint_main(["--position", xgid, "--json"]) == 0
    cube = json.loads(capsys.readouterr().out)["cube"]
    assert hint_main(["--position", "XGID=-AAA--A--------------baa--:0:0:1:00:0:0:0:0:10",
                      "--json"]) == 0
    money = json.loads(capsys.readouterr().out)["cube"]
    assert set(cube) == set(money) and cube["exact"] and money["exact"]
    assert cube["no_double"] == pytest.approx(0.484, abs=0.0006)
    assert set(cube["mwc"]) == {"no_double", "double_take", "double_pass"}
