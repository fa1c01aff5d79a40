"""The compiled Plakoto / Fevga generators against the readable references, and the properties
every result must have (hypothesis).

Parity: positions from seeded random games of each game (every position of each game) x the
21 rolls, for the default rules and for each option; hypothesis also draws arbitrary legal
positions, which reach corners random games seldom do (pins in the home board, primes).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from oracles.variants import fevga_plays, plakoto_plays

from tavli_fast import (
    ALL_ROLLS,
    FevgaPosition,
    FevgaRules,
    PlakotoPosition,
    PlakotoRules,
    generate_variant_positions,
)
from tavli_fast import _core
from tavli_fast.variants.board import across
from tavli_fast.variants.games import random_game_positions
from tavli_fast.variants.movegen import GAME_CODES, core_options

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference(position, d1: int, d2: int, rules) -> set:
    board = position.reference_board()
    plays = plakoto_plays(board, d1, d2, rules) if position.game == "plakoto" else fevga_plays(board, d1, d2, rules)
    return {type(position).from_reference_board(b) for b in plays}


def _raw_reference(position, d1: int, d2: int, rules) -> set:
    """The reference's results as (my counts with off, his pinned points): cheap to compare."""
    board = position.reference_board()
    plays = plakoto_plays(board, d1, d2, rules) if position.game == "plakoto" else fevga_plays(board, d1, d2, rules)
    for b in plays:
        assert b.opp == board.opp and b.me_pinned == board.me_pinned  # nothing of his moves
    return {(b.me, b.opp_pinned) for b in plays}


def assert_parity(positions, rules) -> None:
    """Core == reference on every position x the 21 rolls (raw boards, no Python objects)."""
    game = positions[0].game
    options = core_options(game, rules)
    for position in positions:
        board, pinned = position.core_board(), position.pinned_mask()
        for d1, d2 in ALL_ROLLS:
            core = _core.variant_generate(board, GAME_CODES[game], pinned, options, d1, d2)
            got = set()
            for result in core:
                me = tuple(int(c) for c in result[0, :25])
                # His lone checker is pinned where I stand, unless mine is the pinned one.
                his_pins = frozenset(
                    25 - p for p in range(1, 25)
                    if game == "plakoto" and result[1, 25 - p] == 1 and me[p] and p not in position.me_pinned
                )
                got.add((me, his_pins))
            assert len(got) == len(core), f"duplicate results for {position.variant_id()} {d1}-{d2}"
            assert got == _raw_reference(position, d1, d2, rules), f"{position.variant_id()} {d1}-{d2}"


@pytest.mark.parametrize(
    "game, games, rules",
    [
        ("plakoto", 14, PlakotoRules()),
        ("fevga", 12, FevgaRules()),
    ],
)
def test_core_equals_reference_on_random_game_positions(game, games, rules):
    positions = random_game_positions(game, games, seed=12, rules=rules)
    assert len(positions) >= 1000
    assert_parity(positions, rules)


@pytest.mark.parametrize(
    "game, rules",
    [
        ("plakoto", PlakotoRules(pinned_home_counts=True)),
        ("fevga", FevgaRules(runner_to_quarter=True)),
        ("fevga", FevgaRules(start_quarter_each_move=True)),
        ("fevga", FevgaRules(prime_never_built=True)),
    ],
)
def test_core_equals_reference_with_each_option(game, rules):
    positions = random_game_positions(game, 3, seed=7, rules=rules)
    assert_parity(positions[::2], rules)


# ---------------------------------------------------------------- drawn positions

def _spread(draw, points: list[int], n: int) -> dict[int, int]:
    counts: dict[int, int] = {}
    for _ in range(n):
        p = draw(st.sampled_from(points))
        counts[p] = counts.get(p, 0) + 1
    return counts


@st.composite
def plakoto_positions(draw) -> PlakotoPosition:
    """Any legal Plakoto position: checkers anywhere, pins wherever two colours meet."""
    me_on = draw(st.integers(1, 15))
    opp_on = draw(st.integers(1, 15))
    me = _spread(draw, draw(st.lists(st.integers(1, 24), min_size=1, max_size=8, unique=True)), me_on)
    opp = _spread(draw, draw(st.lists(st.integers(1, 24), min_size=1, max_size=8, unique=True)), opp_on)
    me_pinned, opp_pinned = [], []
    for p in list(me):
        q = 25 - p
        if q not in opp:
            continue
        if me[p] >= 2 and opp[q] >= 2:
            del opp[q]  # two made points cannot share a point: drop his
        elif me[p] == 1 and (opp[q] >= 2 or draw(st.booleans())):
            me_pinned.append(p)
        else:  # his lone checker under mine
            opp_pinned.append(q)
    me_counts = [me.get(p, 0) for p in range(1, 25)]
    opp_counts = [opp.get(p, 0) for p in range(1, 25)]
    position = PlakotoPosition(
        me_counts, opp_counts, 15 - sum(me_counts), 15 - sum(opp_counts), me_pinned, opp_pinned
    )
    assume(not position.is_game_over())
    return position


@st.composite
def fevga_positions(draw) -> FevgaPosition:
    """Any legal Fevga position: the two sides never on the same point."""
    points = draw(st.permutations(list(range(1, 25))))
    cut = draw(st.integers(1, 23))
    mine_points, their_points = points[:cut], [across(p) for p in points[cut:]]
    me = _spread(draw, mine_points[: draw(st.integers(1, min(8, cut)))], draw(st.integers(1, 15)))
    opp = _spread(draw, their_points[: draw(st.integers(1, min(8, 24 - cut)))], draw(st.integers(1, 15)))
    me_counts = [me.get(p, 0) for p in range(1, 25)]
    opp_counts = [opp.get(p, 0) for p in range(1, 25)]
    return FevgaPosition(me_counts, opp_counts, 15 - sum(me_counts), 15 - sum(opp_counts))


def positions():
    return st.one_of(plakoto_positions(), fevga_positions())


def _check_properties(before, after) -> None:
    # Checker conservation: 15 a side, and the opponent's checkers never change.
    assert sum(after.me) + after.me_off == 15
    assert after.opp == before.opp and after.opp_off == before.opp_off
    # No checker moves backwards: for every point, no more of my checkers at or above it.
    for p in range(1, 25):
        assert sum(after.me[p - 1 :]) <= sum(before.me[p - 1 :])
    # A pinned checker never moves, and stays pinned.
    for p in before.me_pinned:
        assert after.me[p - 1] == 1 and p in after.me_pinned
    if after.game == "fevga":  # F3: points are never shared
        assert not any(after.me[p - 1] and after.opp[across(p) - 1] for p in range(1, 25))


@SETTINGS
@given(positions(), st.sampled_from(ALL_ROLLS))
def test_results_conserve_checkers_move_forwards_keep_pins_and_points_unshared(position, roll):
    results = generate_variant_positions(position.game, position, *roll)
    assert results
    for after in results:
        _check_properties(position, after)


@SETTINGS
@given(positions(), st.sampled_from(ALL_ROLLS), st.integers(0, 15))
def test_core_equals_reference_on_drawn_positions(position, roll, option_bits):
    if position.game == "plakoto":
        rules = PlakotoRules(pinned_home_counts=bool(option_bits & 1))
    else:
        rules = FevgaRules(
            runner_to_quarter=bool(option_bits & 2),
            start_quarter_each_move=bool(option_bits & 4),
            prime_never_built=bool(option_bits & 8),
        )
    core = generate_variant_positions(position.game, position, *roll, rules)
    assert len(set(core)) == len(core)
    assert set(core) == reference(position, *roll, rules)


def test_random_games_are_repeatable():
    a = random_game_positions("fevga", 2, seed=3)
    b = random_game_positions("fevga", 2, seed=3)
    assert a == b and a != random_game_positions("fevga", 2, seed=4)


def test_random_plakoto_games_pin_checkers():
    # The parity workload must exercise pins, or it would not test P2-P3.
    positions = random_game_positions("plakoto", 5, seed=1)
    assert sum(bool(p.me_pinned or p.opp_pinned) for p in positions) > 20
