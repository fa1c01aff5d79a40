"""Whole Plakoto / Fevga games in the core: reproducible, complete, and the heuristic player
beats the random one by a wide margin in each game."""

from __future__ import annotations

import pytest

import tavli_fast as tf
from tavli_fast import InvalidPositionError, simulate, simulate_variant

OUTCOMES = ("win_single", "win_double", "win_mother", "lose_single", "lose_double", "lose_mother", "draw")


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_same_seed_same_games_and_every_game_counted(game):
    a = simulate_variant(game, None, 500, "random", seed=3)
    b = simulate_variant(game, None, 500, "random", seed=3)
    c = simulate_variant(game, None, 500, "random", seed=4)
    assert a.to_dict() | {"elapsed_s": 0} == b.to_dict() | {"elapsed_s": 0}
    assert [getattr(a, k) for k in OUTCOMES] != [getattr(c, k) for k in OUTCOMES]
    assert sum(getattr(a, k) for k in OUTCOMES) == 500
    assert a.plies_mean > 20


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_heuristic_beats_random_by_a_wide_margin(game):
    for players, sign in ((("heuristic", "random"), 1), (("random", "heuristic"), -1)):
        result = simulate_variant(game, None, 1000, players, seed=11)
        win, se = result.rates()["win"]
        assert se > 0
        assert (win if sign > 0 else 1 - win) > 0.85


def test_p5_p6_mother_wins_and_draws_happen_only_in_plakoto():
    plakoto = simulate_variant("plakoto", None, 2000, "random", seed=1)
    fevga = simulate_variant("fevga", None, 2000, "random", seed=1)
    assert plakoto.win_mother > 0 and plakoto.lose_mother > 0 and plakoto.draw > 0
    assert fevga.win_mother == fevga.lose_mother == fevga.draw == 0


def test_points_a_game_match_the_counts():
    r = simulate_variant("plakoto", None, 300, "heuristic,random", seed=2)
    points, se = r.rates()["points"]
    expected = (r.win_single + 2 * r.win_double + 2 * r.win_mother
                - r.lose_single - 2 * r.lose_double - 2 * r.lose_mother) / r.games
    assert points == pytest.approx(expected) and se >= 0


def test_a_game_from_a_given_position_ends_at_once_when_it_must():
    # Fevga: my last checker on my 1 is borne off by any roll: player 0 wins every game,
    # 2 points since the opponent has borne off none.
    position = {"me": [1] + [0] * 23, "opp": [0] * 19 + [15] + [0] * 4, "me_off": 14, "opp_off": 0}
    r = simulate_variant("fevga", position, 50, "random", seed=1)
    assert r.win_double == 50 and r.plies_mean == 1


def test_simulate_dispatches_on_game():
    r = simulate(rules="fevga", games=100, players="heuristic", seed=1)
    assert isinstance(r, tf.VariantSimulationResult) and r.game == "fevga"
    with pytest.raises(ValueError, match="unknown rules 'tavla'"):
        simulate(rules="tavla", games=10)


def test_bad_players_and_finished_positions_raise():
    with pytest.raises(ValueError, match="random, heuristic"):
        simulate_variant("plakoto", None, 10, "pubeval")
    over = {"me": [0] * 24, "opp": [0] * 23 + [15], "me_off": 15, "opp_off": 0}
    with pytest.raises(InvalidPositionError, match="over"):
        simulate_variant("fevga", over, 10)
