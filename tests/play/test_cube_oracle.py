"""Differential tests of ``tavli_fast.cube_decision`` against GNU Backgammon at 0 ply (issue 9).

For a few hundred pre-roll positions from random games, times a list of cube contexts (money:
centred, owned by either side, Jacoby, beaver; matches: ordinary scores, 1-away, Crawford,
post-Crawford, 2-away/2-away, automatic-redouble scores such as 4-away/2-away), gnubg's own
0-ply probabilities are given to ``cube_decision``. The issue's acceptance: ND, DT and DP
within 0.003, MWCs within 0.0005, and gnubg's action sentence wherever gnubg's margin between
the three is above 0.005. Where gnubg says "You cannot double", so must we, with the same
cubeful no-double equity.

The first tests check the oracle itself (tests/gnubg_cube.py) over the same sample: gnubg's
sentence follows from its own three equities by the rules in ../shared/CUBE.md.
"""

from __future__ import annotations

import pytest

import tavli_fast
from tavli_fast.game.position import GameContext

pytest.importorskip("gnubg")

from gnubg_cube import (CANNOT_DOUBLE, GnubgCubeAnalysis, gnubg_cube_analyses,  # noqa: E402
                        gnubg_cube_analysis)

pytestmark = pytest.mark.oracle

EQUITY_TOLERANCE = 0.003
MWC_TOLERANCE = 0.0005
ACTION_MARGIN = 0.005
N_POSITIONS = 300
POSITIONS_PER_CONTEXT = 100

CONTEXTS: dict[str, GameContext] = {
    "money-centred": GameContext(),
    "money-jacoby": GameContext(jacoby=True),
    "money-beaver": GameContext(beaver=True),
    "money-jacoby-beaver": GameContext(jacoby=True, beaver=True),
    "money-owned-by-me": GameContext(cube_value=2, cube_owner="me"),
    "money-owned-by-me-beaver": GameContext(cube_value=4, cube_owner="me", beaver=True),
    "money-owned-by-opponent": GameContext(cube_value=2, cube_owner="opponent"),
    "7pt-7away-7away": GameContext(match_length=7),
    "7pt-5away-3away": GameContext(match_length=7, score=(2, 4)),
    "7pt-3away-5away-cube-me": GameContext(match_length=7, score=(4, 2), cube_value=2,
                                           cube_owner="me"),
    "7pt-4away-2away": GameContext(match_length=7, score=(3, 5)),  # automatic redouble
    "7pt-2away-4away": GameContext(match_length=7, score=(5, 3)),
    "7pt-4away-2away-cube-me": GameContext(match_length=7, score=(3, 5), cube_value=2,
                                           cube_owner="me"),
    "7pt-3away-3away-cube-me": GameContext(match_length=7, score=(4, 4), cube_value=2,
                                           cube_owner="me"),
    "7pt-2away-2away": GameContext(match_length=7, score=(5, 5)),  # the cube is dead
    "7pt-crawford-trailer": GameContext(match_length=7, score=(3, 6), crawford=True),
    "7pt-crawford-leader": GameContext(match_length=7, score=(6, 3), crawford=True),
    "7pt-post-crawford-trailer": GameContext(match_length=7, score=(3, 6)),
    "7pt-post-crawford-trailer-2away": GameContext(match_length=7, score=(5, 6)),
    "7pt-post-crawford-leader": GameContext(match_length=7, score=(6, 3)),
    "1pt-dmp": GameContext(match_length=1),
    "11pt-9away-2away-cube-opponent": GameContext(match_length=11, score=(2, 9), cube_value=2,
                                                  cube_owner="opponent"),
}


@pytest.fixture(scope="module")
def cases() -> list[tuple[str, object, GnubgCubeAnalysis]]:
    """(context name, position, gnubg's analysis): each context gets its own slice of
    POSITIONS_PER_CONTEXT positions from a pool of N_POSITIONS (gnubg takes ~10 ms of wall
    clock, mostly waiting, per analysis, so not every position meets every context)."""
    from helpers import random_positions

    pool = [p for p in random_positions(N_POSITIONS, seed=20261130) if not p.is_game_over()]
    named = []
    for k, (name, context) in enumerate(CONTEXTS.items()):
        start = k * len(pool) // len(CONTEXTS)
        for i in range(POSITIONS_PER_CONTEXT):
            named.append((name, pool[(start + i) % len(pool)].with_context(context)))
    analyses = gnubg_cube_analyses([q for _, q in named])
    return [(name, q, a) for (name, q), a in zip(named, analyses)]


# ----------------------------------------------------------------- the oracle itself
def _expected_sentence(a: GnubgCubeAnalysis) -> str:
    """gnubg's "Proper cube action" from its three equities, by the rules of CUBE.md."""
    nd, dt, dp = a.no_double, a.double_take, a.double_pass
    ctx = a.context
    re = "re" if ctx.cube_owner == "me" else ""
    beaver = ctx.is_money and ctx.beaver and -2 <= dt <= 0
    win = a.probabilities[0]
    if dt >= nd and dp >= nd:
        if dp > dt:
            if win == 0:
                return f"No {re}double, take"
            if beaver:
                if 2 * dt < nd:
                    return f"No {re}double, beaver"
                return f"{re}double, beaver".capitalize()
            return f"{re}double, take".capitalize()
        return f"{re}double, pass".capitalize()
    if nd > dt:
        if dt > dp:
            return f"Too good to {re}double, pass"
        if nd > dp:
            return f"Too good to {re}double, take"
        return f"No {re}double, beaver" if beaver else f"No {re}double, take"
    return f"Too good to {re}double, pass"


@pytest.mark.slow
def test_oracle_sentences_follow_from_its_equities(cases):
    checked = 0
    for name, q, a in cases:
        if not a.can_double or a.margin() < 1e-4:  # printed to 6 decimals: skip near-ties
            continue
        assert a.action == _expected_sentence(a), (name, q.xgid(), a.hint_text)
        checked += 1
    assert checked > len(cases) // 2


def test_oracle_values_are_on_the_scale_gnubg_prints(cases):
    for name, q, a in cases:
        assert (a.mwc is None) == q.context.is_money
        if a.can_double:
            assert a.double_pass == 1.0, name
            if a.mwc is not None:  # MWC -> equity is linear at the current cube
                # Predict the point between the two furthest apart (printed to 1e-7 / 1e-6).
                points = sorted((a.mwc[k], getattr(a, k)) for k in a.mwc)
                (m0, e0), (m1, e1), (m2, e2) = points
                predicted = e0 + (e2 - e0) * (m1 - m0) / (m2 - m0)
                assert predicted == pytest.approx(e1, abs=1e-4), name


def test_oracle_knows_who_may_double(cases):
    for name, q, a in cases:
        ctx = q.context
        cannot = (
            ctx.cube_owner == "opponent"
            or ctx.crawford
            or name in ("7pt-post-crawford-leader", "1pt-dmp")
        )
        if cannot:
            assert a.action == CANNOT_DOUBLE, (name, a.action)
        elif a.action == CANNOT_DOUBLE:
            # gnubg also refuses a double that cannot change anything (dead cube).
            assert name in ("7pt-2away-2away",), (name, q.xgid())


def test_oracle_covers_every_kind_of_answer(cases):
    actions = {a.action for _, _, a in cases}
    for sentence in ("No double, take", "Double, take", "Double, pass", "Too good to double, pass",
                     "No redouble, take", "Redouble, take", "No double, beaver", CANNOT_DOUBLE):
        assert sentence in actions, sentence


# ----------------------------------------------------------------- tavli_fast against gnubg
def _cube_decision():
    decide = getattr(tavli_fast, "cube_decision", None)
    assert decide is not None, "tavli_fast.cube_decision is not there yet (issue 9, lead's part)"
    return decide


def _take(action: str) -> bool:
    return action.endswith(("take", "beaver"))


def _double(action: str) -> bool:
    return action.startswith(("Double", "Redouble", "Optional double", "Optional redouble"))


@pytest.mark.slow
@pytest.mark.parametrize("context_name", list(CONTEXTS))
def test_cube_decision_reproduces_gnubg_given_its_probabilities(cases, context_name):
    decide = _cube_decision()
    failures = []
    for name, q, a in cases:
        if name != context_name:
            continue
        ours = decide(q, probabilities=a.probabilities)
        problems = []
        if abs(ours.no_double - a.no_double) > EQUITY_TOLERANCE:
            problems.append(f"ND {ours.no_double:+.4f} vs {a.no_double:+.4f}")
        if a.can_double:
            for key in ("double_take", "double_pass"):
                mine, theirs = getattr(ours, key), getattr(a, key)
                if mine is None or abs(mine - theirs) > EQUITY_TOLERANCE:
                    problems.append(f"{key} {mine} vs {theirs:+.4f}")
            if a.margin() > ACTION_MARGIN and ours.action != a.action:
                problems.append(f"action {ours.action!r} vs {a.action!r}")
            if a.margin() > ACTION_MARGIN and (
                ours.double != _double(a.action) or ours.take != _take(a.action)
                or ours.too_good != a.action.startswith("Too good")
            ):
                problems.append(f"booleans double={ours.double} take={ours.take} "
                                f"too_good={ours.too_good} for {a.action!r}")
        elif ours.action != CANNOT_DOUBLE or ours.can_double:
            problems.append(f"action {ours.action!r} (can_double={ours.can_double}) "
                            f"vs {CANNOT_DOUBLE!r}")
        if ours.can_double != a.can_double:
            problems.append(f"can_double {ours.can_double} vs {a.can_double}")
        if a.mwc is None:
            if ours.mwc is not None:
                problems.append(f"mwc {ours.mwc} in money play")
        else:
            for key, theirs in a.mwc.items():
                if theirs is None:
                    continue
                mine = None if ours.mwc is None else ours.mwc.get(key)
                if mine is None or abs(mine - theirs) > MWC_TOLERANCE:
                    problems.append(f"mwc[{key}] {mine} vs {theirs:.5f}")
        if problems:
            failures.append(f"{q.xgid()} p={a.probabilities}: " + "; ".join(problems))
    assert not failures, f"{len(failures)} disagreements, first ones:\n" + "\n".join(failures[:5])


def test_cube_decision_refuses_a_position_with_dice_rolled():
    decide = _cube_decision()
    with pytest.raises(tavli_fast.InvalidPositionError):
        decide("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
               probabilities=(0.5, 0.1, 0.0, 0.1, 0.0))


def test_cube_decision_reads_an_xgid_and_a_pasted_gnubg_id_alike():
    decide = _cube_decision()
    a = gnubg_cube_analysis("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:7:10")
    by_xgid = decide("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:1:0:7:10",
                     probabilities=a.probabilities)
    by_gnubg_id = decide(a.gnubg_id, probabilities=a.probabilities)
    assert by_xgid.no_double == by_gnubg_id.no_double
    assert by_xgid.mwc == by_gnubg_id.mwc
    assert abs(by_xgid.no_double - a.no_double) <= EQUITY_TOLERANCE
