"""simulate(): whole games in the core, with results for the side on roll (R19-R20)."""

import pytest

from helpers import pos
from tavli_fast import InvalidPositionError, simulate

# x bears off its last checker with any roll; o has borne off nothing.
X_WINS_GAMMON = "x 2:1; o 6:15"
# The same, but o still has a checker in x's home board (o's 20 = x's 5).
X_WINS_BACKGAMMON = "x 2:1; o 6:14 20:1"
# o has borne off one checker.
X_WINS_SINGLE = "x 2:1; o 6:14"
# x has all 15 on the bar; o bears off its last two checkers (o's ace point,
# which x cannot enter on) at its first turn, whatever x rolls.
X_LOSES_BACKGAMMON = "x bar:15; o 1:2"


def run(text, **kwargs):
    kwargs.setdefault("games", 200)
    kwargs.setdefault("seed", 1)
    return simulate(pos(text), **kwargs)


def test_r19_r20_certain_gammon_win():
    r = run(X_WINS_GAMMON)
    assert (r.win_gammon, r.games) == (200, 200)
    assert r.plies_mean == 1 and r.plies_std == 0


def test_r20_backgammon_when_loser_has_a_checker_in_winners_home():
    assert run(X_WINS_BACKGAMMON).win_backgammon == 200


def test_r20_no_backgammons_option_scores_it_as_a_gammon():
    r = run(X_WINS_BACKGAMMON, rules="portes")
    assert r.win_gammon == 200 and r.win_backgammon == 0


def test_r20_single_game_when_loser_has_borne_off():
    assert run(X_WINS_SINGLE).win_single == 200


def test_r20_loser_on_the_bar_is_backgammoned_and_game_lasts_two_plies():
    r = run(X_LOSES_BACKGAMMON)
    assert r.lose_backgammon == 200
    assert r.plies_mean == 2


def test_counts_are_exclusive_and_add_up():
    r = simulate("start", games=3000, seed=5)
    parts = (r.win_single, r.win_gammon, r.win_backgammon,
             r.lose_single, r.lose_gammon, r.lose_backgammon)
    assert sum(parts) == r.games == 3000
    assert all(p > 0 for p in parts)  # random play produces every outcome


def test_same_seed_same_games_and_different_seed_different_games():
    a = simulate("start", games=500, seed=123, players=("random", "pubeval"))
    b = simulate("start", games=500, seed=123, players=("random", "pubeval"))
    c = simulate("start", games=500, seed=124, players=("random", "pubeval"))
    strip = lambda r: {k: v for k, v in r.to_dict().items() if k != "elapsed_s"}
    assert strip(a) == strip(b)
    assert strip(a) != strip(c)


def test_result_reports_its_seed_also_when_none_was_given():
    r = simulate("start", games=10)
    assert isinstance(r.seed, int) and 0 <= r.seed < 2**64
    again = simulate("start", games=10, seed=r.seed)
    assert again.plies_mean == r.plies_mean


def test_to_dict_has_the_promised_keys():
    d = simulate("start", games=10, seed=1).to_dict()
    for key in ("games", "win_single", "win_gammon", "win_backgammon", "lose_single",
                "lose_gammon", "lose_backgammon", "plies_mean", "plies_std", "seed",
                "elapsed_s"):
        assert key in d


def test_pubeval_beats_random_and_greedy_beats_random():
    for strong in ("pubeval", "greedy"):
        r = simulate("start", games=400, seed=3, players=(strong, "random"))
        wins = r.win_single + r.win_gammon + r.win_backgammon
        assert wins / r.games > 0.85, (strong, wins)


# x (bottom, on roll) has its last checker on its 6 point; o bears off its
# last two checkers at its next turn whatever it rolls.
LAST_ONE = "XGID=------A-----------------b-:0:0:1:{dice}:0:0:0:0:10"


def test_xgid_dice_are_played_first():
    # With 2-1 already rolled x cannot get off, and loses every game.
    r = simulate(LAST_ONE.format(dice="21"), games=300, seed=1)
    assert r.lose_single == 300
    # Not yet rolled: x gets off when the dice move it 6 pips or more: 27 of the
    # 36 rolls (all but 1-1 and the non-doubles 2-1, 3-1, 4-1, 3-2 both ways).
    r = simulate(LAST_ONE.format(dice="00"), games=3600, seed=1)
    assert abs(r.win_single / r.games - 27 / 36) < 0.03
    assert r.lose_single == r.games - r.win_single


@pytest.mark.parametrize("games", [0, -5, 2.5, "10", True])
def test_bad_number_of_games_is_refused(games):
    with pytest.raises(ValueError, match="games"):
        simulate("start", games=games)


def test_unknown_player_rules_and_seed_are_refused():
    with pytest.raises(ValueError, match="unknown player"):
        simulate("start", games=1, players=("random", "nobody"))
    with pytest.raises(ValueError, match="unknown rules"):
        simulate("start", games=1, rules="plakoto-ish")
    with pytest.raises(ValueError, match="seed"):
        simulate("start", games=1, seed=-1)


def test_bad_position_is_refused():
    with pytest.raises(InvalidPositionError):
        simulate("not-an-id", games=1)


def test_core_reports_each_games_equity_consistently_with_its_sums():
    import numpy as np

    from tavli_fast import Position, _core

    equities = np.full(2000, np.nan)
    counts, moments = _core.run_games(Position.initial().board, 2000, 1, 0, 5, True, True,
                                      per_game_equity=equities)
    assert set(np.unique(equities)) <= {-3.0, -2.0, -1.0, 1.0, 2.0, 3.0}
    assert equities.sum() == moments[5] and (equities**2).sum() == moments[11]
    # The outcome counts say how many games ended with each value.
    for value, count in zip((1, 2, 3, -1, -2, -3), counts[:6]):
        assert (equities == value).sum() == count
