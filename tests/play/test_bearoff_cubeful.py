"""The cubeful two-sided bear-off database (money, perfect checker and cube play).

Checked three ways: against GNU Backgammon's own cubeful two-sided database (its
``gnubg_ts0.bd``, 6 checkers a side on 6 points, read as a test-only oracle), on every pair
it holds; by hand on positions whose equities follow from a few lines of arithmetic; and
in use (cube_decision, tavli-hint, cubeful rollouts, the players' cube in games).
"""

from __future__ import annotations

import itertools
import logging
from pathlib import Path

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.cli import setup_logging
from tavli_fast.play import bearoff
from tavli_fast.play.bearoff import default_database
from tavli_fast.play.cube import cube_decision
from tavli_fast.game.position import GameContext, Position

from gnubg_cube import gnubg_cube_analysis

CENTRE, OWN, THEIRS = 0, 1, 2
N6 = _core.bearoff_n_positions(6, 6)      # 924 positions of up to 6 checkers


@pytest.fixture(scope="module")
def ours6() -> np.ndarray:
    return _core.bearoff_build_two_sided_cubeful(6)


def _gnubg_ts_file() -> Path:
    import gnubg

    path = Path(gnubg.__file__).parent / "data" / "gnubg_ts0.bd"
    assert path.read_bytes()[:16] == b"gnubg-TS-06-06-1", "expected gnubg's cubeful 6x6 database"
    return path


@pytest.fixture(scope="module")
def gnubg6() -> np.ndarray:
    """gnubg's table as [k, opponent, on roll] in our indices and our k order (centred,
    owned, opponent owns): ND equities of the side on roll, before its roll."""
    import gnubg

    raw = np.frombuffer(_gnubg_ts_file().read_bytes()[40:], dtype="<u2")
    # gnubg writes, for each side on roll (its index i) and opponent (j), four 16-bit
    # equities: cubeless, owned, centred, opponent owns; 0x8000 is 0 and 0x7FFF is +1.
    table = (raw.reshape(N6, N6, 4).astype(np.float64) - 0x8000) / 0x7FFF
    ours_of = np.empty(N6, dtype=np.int64)
    for g in range(N6):
        side = gnubg.position_from_bearoff(g, 6, 6)
        ours_of[g] = _core.bearoff_index(np.array(side[:6], dtype=np.int8))
    assert sorted(ours_of) == list(range(N6))
    out = np.empty((3, N6, N6))
    for k, column in ((CENTRE, 2), (OWN, 1), (THEIRS, 3)):
        out[k][np.ix_(ours_of, ours_of)] = table[:, :, column].T
    return out


def _actions(nd: np.ndarray, x: np.ndarray) -> np.ndarray:
    """CUBE.md's decision without gammons: 0 no double, 1 double/take, 2 double/pass."""
    dt = 2 * x
    double = np.minimum(dt, 1.0) >= nd
    return np.where(double, np.where(dt < 1.0, 1, 2), 0)


def test_every_pair_of_gnubgs_database_agrees(ours6, gnubg6):
    """ND and DT within 0.02 of gnubg's exact figures (they agree to its 16-bit rounding),
    and the same action (double or not, take or pass) wherever gnubg's own figures are not
    a tie at its rounding."""
    inner = np.s_[:, 1:, 1:]                  # both sides still have checkers to bear off
    diff = np.abs(ours6[inner] - gnubg6[inner])
    assert diff.max() < 2e-4, diff.max()         # 1.1e-4 measured: its integer arithmetic
    checked = 0
    for state in (CENTRE, OWN):
        ours = _actions(ours6[state][1:, 1:], ours6[THEIRS][1:, 1:])
        theirs = _actions(gnubg6[state][1:, 1:], gnubg6[THEIRS][1:, 1:])
        nd, dt = gnubg6[state][1:, 1:], 2 * gnubg6[THEIRS][1:, 1:]
        clear = (np.abs(np.minimum(dt, 1.0) - nd) > 1e-3) & (np.abs(dt - 1.0) > 1e-3)
        assert np.array_equal(ours[clear], theirs[clear])
        assert clear.mean() > 0.95              # the rest are ties, most of them sure wins
        checked += int(clear.sum())
    assert checked > 1_600_000


def test_the_nine_checker_database_extends_the_six_checker_one(ours6):
    """The positions of up to 6 checkers come first in our index, and their values depend
    only on positions of up to 6 checkers: the default database holds the same numbers."""
    tables = default_database(cubeful=True)._cubeful
    assert np.array_equal(np.asarray(tables[:, :N6, :N6]), ours6)


def _side(points: dict[int, int]) -> np.ndarray:
    row = np.zeros(26, dtype=np.int8)
    for p, n in points.items():
        row[p] = n
    row[0] = 15 - sum(points.values())
    return row


def _position(mine: dict[int, int], theirs: dict[int, int], **context) -> Position:
    return Position.from_board(np.stack([_side(mine), _side(theirs)]),
                               GameContext(**context) if context else None)


def test_hand_checked_one_checker_each():
    """R21-R23 by hand: one checker each on the 1 point (the side on roll always wins); a
    checker on the 6 point against one on the opponent's 1 point: it is off with 27 of the
    36 rolls (the 22 non-doubles of 6 pips or more, and 22, 33, 44, 55, 66), else the opponent is off next.  ND = 2p - 1 = 0.5 whoever
    owns the cube; doubling gives DT = 2 (2p - 1) = 1 = DP, so the side on roll doubles."""
    db = default_database(cubeful=True)
    sure = db.cubeful_equities(_position({1: 1}, {1: 1}))
    assert sure.centred == pytest.approx(1.0) and sure.opponent_owns == pytest.approx(1.0)
    p = 27 / 36
    last = db.cubeful_equities(_position({6: 1}, {1: 1}))
    for value in (last.centred, last.owned, last.opponent_owns):
        assert value == pytest.approx(2 * p - 1, abs=1e-6)
    decision = cube_decision(_position({6: 1}, {1: 1}))
    assert decision.exact and decision.double
    assert decision.no_double == pytest.approx(0.5, abs=1e-6)
    assert decision.double_take == pytest.approx(1.0, abs=1e-6)


def test_hand_checked_two_checkers_against_one_roll():
    """Two checkers on the 6 point against a checker on the 1 point: the side on roll wins
    only with a double of 3 or more (both off, 4/36), else the opponent bears off next.
    Doubling would give DT = 2 (2p - 1) < ND, and the opponent's cube never matters, so
    every equity is 2p - 1."""
    db = default_database(cubeful=True)
    eq = db.cubeful_equities(_position({6: 2}, {1: 1}))
    for value in (eq.centred, eq.owned, eq.opponent_owns):
        assert value == pytest.approx(2 * (4 / 36) - 1, abs=1e-6)


def test_cube_decision_is_exact_where_gnubg_is(ours6):
    """The issue's position: gnubg says Double, take from its database; so do we, with its
    figures; the model (exact=False) said No double."""
    pos = Position.from_id("4QAAQDQAAAAAAA:cAkAAAAAAAAE")
    exact = cube_decision(pos)
    gnubg = gnubg_cube_analysis(pos)
    assert exact.exact and exact.efficiency is None
    assert exact.action == gnubg.action == "Double, take"
    assert exact.no_double == pytest.approx(gnubg.no_double, abs=2e-4)
    assert exact.double_take == pytest.approx(gnubg.double_take, abs=2e-4)
    model = cube_decision(pos, exact=False)
    assert not model.exact and model.action == "No double, take"


def _random_bearoffs(n: int, seed: int, most: int = 6) -> list[Position]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        sides = []
        for _ in range(2):
            k = int(rng.integers(1, most + 1))
            sides.append(_spread(rng, k))
        out.append(_position(*sides))
    return out


def _spread(rng, k: int) -> dict[int, int]:
    side: dict[int, int] = {}
    for p in rng.integers(1, 7, size=k):
        side[int(p)] = side.get(int(p), 0) + 1
    return side


@pytest.mark.oracle
@pytest.mark.parametrize("owner", ["centre", "me"])
def test_gnubg_hint_agrees_on_random_short_bearoffs(owner):
    """gnubg's hint (the real program) on random pairs of its database: the same action,
    ND and DT within 0.02 (in practice within its rounding)."""
    for pos in _random_bearoffs(12, seed=41 if owner == "centre" else 42):
        ctx = GameContext(cube_value=1 if owner == "centre" else 2, cube_owner=owner)
        pos = pos.with_context(ctx)
        ours = cube_decision(pos)
        theirs = gnubg_cube_analysis(pos)
        assert ours.exact
        assert abs(ours.no_double - theirs.no_double) < 0.02
        assert abs(ours.double_take - theirs.double_take) < 0.02
        if theirs.margin() > 1e-3:
            assert ours.action == theirs.action, (pos.position_id(), ours, theirs.hint_text)


def test_levels_below_the_maximum_cube_are_close_to_the_unlimited_cube(ours6):
    """R23's maximum cube: solved level by level from the dead cube up, the values with
    five doublings left differ from the unlimited cube's by little, which is what lets
    cube decisions use the unlimited tables there (_cube.pxi CUBE_EXACT_DOUBLINGS)."""
    win = _core.bearoff_build_two_sided(6)
    level = np.broadcast_to(2 * win - 1, ours6.shape).copy()
    gaps = []
    for _ in range(6):
        level = _core.bearoff_build_two_sided_cubeful(6, level)
        gaps.append(float(np.abs(level - ours6)[:, 1:, 1:].max()))
    assert gaps[0] > 0.1                       # one doubling left is another game
    assert all(b < a for a, b in itertools.pairwise(gaps))
    assert gaps[4] < 2e-4 and gaps[3] < 2e-3    # five doublings: ND; four: X, as DT needs


def test_near_the_maximum_cube_the_model_answers():
    pos = _position({6: 2, 5: 1}, {1: 2, 3: 1}, cube_value=16, cube_owner="me", max_cube=64)
    decision = cube_decision(pos)
    assert not decision.exact                  # 2 doublings left of the R23 maximum 64
    dead = cube_decision(_position({6: 2, 5: 1}, {1: 2, 3: 1}, cube_value=64,
                                   cube_owner="me", max_cube=64))
    assert dead.exact and not dead.can_double
    assert dead.no_double == pytest.approx(dead.cubeless_equity)


def test_matches_do_not_read_the_money_database():
    # A match is solved at its score (tests/play/test_match_bearoff.py), in MWCs.
    pos = _position({6: 2, 5: 1}, {1: 2, 3: 1}, match_length=5, score=(1, 2))
    decision = cube_decision(pos)
    money = cube_decision(_position({6: 2, 5: 1}, {1: 2, 3: 1}))
    assert decision.exact and decision.mwc is not None
    assert decision.no_double != pytest.approx(money.no_double, abs=1e-3)


def test_cubeful_rollout_inside_the_database_is_exact():
    """Truncated at once (the position is inside), a cubeful money rollout returns the
    database's ND and DT with no spread; played out by the neural players, who decide
    their cubes by the database, it agrees within its standard errors."""
    from tavli_fast import rollout

    pos = Position.from_id("4QAAQDQAAAAAAA:cAkAAAAAAAAE")
    exact = cube_decision(pos)
    cube = rollout(pos, trials=72, players="neural", seed=3, cubeful=True, jobs=1).cubeful
    assert cube.no_double == pytest.approx(exact.no_double, abs=1e-6)
    assert cube.double_take == pytest.approx(exact.double_take, abs=1e-6)
    assert cube.se["no_double"] == pytest.approx(0.0, abs=1e-9)
    assert cube.action == exact.action
    played = rollout(pos, trials=3000, players="neural", seed=3, cubeful=True, truncate=False,
                     jobs=1).cubeful
    assert abs(played.no_double - exact.no_double) < 4 * played.se["no_double"]
    assert abs(played.double_take - exact.double_take) < 4 * played.se["double_take"]


def test_tavli_bearoff_prints_the_cubeful_equities(capsys):
    import json

    from tavli_fast.cli.bearoff import main

    assert main(["--position", "4QAAQDQAAAAAAA", "--cubeful", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    gnubg_like = cube_decision(Position.from_id("4QAAQDQAAAAAAA"))
    assert report["cubeful"]["centred"] == pytest.approx(gnubg_like.no_double)
    assert report["cubeful"]["double_take"] == pytest.approx(gnubg_like.double_take)
    assert main(["--position", "4QAAQDQAAAAAAA"]) == 0
    assert "cubeful" not in capsys.readouterr().out     # only when asked for


def test_a_note_on_stderr_comes_before_the_long_first_build_of_the_cubeful_database(
        tmp_path, monkeypatch, capsys):
    """The first use builds about 300 MB for 15-60 s: one line says so before (not in
    --json's stdout), as the commands log it (cli.setup_logging: warnings on stderr)."""
    said_before_build = []

    def build(checkers):  # the real build takes 15-60 s: the note must come before it
        said_before_build.append(capsys.readouterr().err)
        return np.zeros((3, 1, 1), dtype=np.float32)

    monkeypatch.setattr(_core, "bearoff_build_two_sided_cubeful", build)
    logger = logging.getLogger("tavli_fast")  # set up as a command does, put back after
    for name in ("handlers", "level", "propagate"):
        monkeypatch.setattr(logger, name, list(logger.handlers) if name == "handlers"
                            else getattr(logger, name))
    setup_logging("tavli-hint")
    bearoff._ensure_cubeful(tmp_path, bearoff.DEFAULT_TWO_SIDED_CHECKERS, build=True)
    out, err = capsys.readouterr()
    note = said_before_build[0].strip().splitlines()
    assert len(note) == 1 and note[0].startswith("tavli-hint: ") and out == ""
    assert "cubeful bear-off database" in note[0] and "300 MB" in note[0] and "s" in note[0]
    bearoff._ensure_cubeful(tmp_path, bearoff.DEFAULT_TWO_SIDED_CHECKERS, build=True)
    assert capsys.readouterr().err == ""  # built: no note the second time
