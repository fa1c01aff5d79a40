"""The 2-ply search (issue 54): its values against a plain recursive Python search over the
net's public 0-ply evaluations, the cache (the same numbers with it and without, hits on a
second search), the move filters of the ranking and of the ``neural-2ply`` player, and the
checks of ply and filters."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.jobs.rollout_request import apply_ply
from tavli_fast.play import neural
from tavli_fast.play.hint import FILTER_2PLY
from tavli_fast.play.players import choose
from helpers import pos

FAST_TOLERANCE = 1e-4   # the players' incremental float32 values against fresh evaluations
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
# Small trees (few checkers) in the three position classes, and one from the opening.
RACE = pos("x 8:2 6:1 3:2; o 9:1 5:2 2:2").board
CONTACT = pos("x 20:1 7:2 4:1; o 22:1 15:1 6:2").board
BEAROFF = pos("x 6:2 4:1 2:2; o 5:2 3:1 1:1").board
OPENING = Position.initial().board


@pytest.fixture(scope="module")
def net() -> _core.NeuralNet:
    return neural.default_net()


# ------------------------------------------------------------------ the plain Python search


def equity(p) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def swapped(p) -> np.ndarray:
    """Probabilities seen by the other side."""
    return np.array([1 - p[0], p[3], p[4], p[1], p[2]])


def turned(board: np.ndarray) -> np.ndarray:
    """The board with the other side on roll."""
    return np.ascontiguousarray(board[::-1])


def won(after: np.ndarray) -> np.ndarray:
    """R20 by hand: the mover (row 0) has borne off all; a gammon if the loser has borne off
    none, a backgammon if he also has a checker on the bar or in the winner's home board."""
    gammon = after[1, 0] == 0
    backgammon = gammon and after[1, 19:26].any()
    return np.array([1.0, gammon, backgammon, 0.0, 0.0])


def after_probs(net, plays: np.ndarray) -> list[np.ndarray]:
    """The mover's probabilities after each play, by the net's public evaluation of the
    position the opponent then rolls from."""
    return [won(a) if a[0, 0] == 15 else swapped(net.evaluate(turned(a))) for a in plays]


def python_probs(net, board: np.ndarray, plies: int) -> np.ndarray:
    """The plies-ply probabilities of `board` for its side on roll, searched in plain Python:
    for each roll the best play by 0-ply equity, valued plies - 1 deep from the other side."""
    if plies == 0:
        return net.evaluate(board)
    total = np.zeros(5)
    for d1, d2 in ROLLS:
        plays = _core.generate(board, d1, d2)
        probs = after_probs(net, plays)
        best = int(np.argmax([equity(p) for p in probs]))
        q = probs[best]
        if plies > 1 and plays[best][0, 0] != 15:
            q = swapped(python_probs(net, turned(plays[best]), plies - 1))
        total += q * (1 if d1 == d2 else 2) / 36
    return total


# ------------------------------------------------------------------ values


@pytest.mark.parametrize("board", [RACE, CONTACT], ids=["race", "contact"])
def test_two_ply_probabilities_equal_a_plain_python_search(net, board):
    want = python_probs(net, board, 2)
    np.testing.assert_allclose(net.probabilities(board, 2), want, atol=FAST_TOLERANCE)
    np.testing.assert_allclose(net.probabilities(board, 1), python_probs(net, board, 1),
                               atol=FAST_TOLERANCE)
    # The 2-ply value differs from the 1-ply one: the look really went a roll deeper.
    assert not np.allclose(want, python_probs(net, board, 1), atol=1e-3)


def test_in_the_bearoff_database_every_depth_gives_its_exact_value(net):
    """The databases' values are those of perfect play, so looking deeper changes nothing
    (but the float sums of the means)."""
    exact = net.evaluate(BEAROFF)
    assert exact[0] not in (0.0, 1.0)
    for plies in (1, 2):
        np.testing.assert_allclose(net.probabilities(BEAROFF, plies), exact, atol=1e-12)
    np.testing.assert_allclose(python_probs(net, BEAROFF, 2), exact, atol=1e-12)


def test_two_ply_move_equity_is_the_opponents_two_ply_value_seen_from_the_mover(net):
    after = _core.generate(CONTACT, 3, 1)[0]
    want = -equity(python_probs(net, turned(after), 2))
    assert net.move_equity(after, ply=2) == pytest.approx(want, abs=FAST_TOLERANCE)


def test_a_won_game_is_worth_its_value_at_two_ply(net):
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 0] = 15
    board[1, 3] = 15                         # the loser has borne off none: a gammon
    assert net.move_equity(board, ply=2) == 2.0


# ------------------------------------------------------------------ the cache


@pytest.mark.parametrize("board", [OPENING, CONTACT])
def test_the_cache_changes_no_number(net, board):
    plays = np.ascontiguousarray(_core.generate(board, 6, 4))
    bare = net.rank_plays(board, plays, 2, cache=None)
    tiny = _core.SearchCache(entries=2)      # nearly every position evicts another
    big = _core.SearchCache()
    for cache in (tiny, big, big):           # the second search with `big` answers from it
        eq, order = net.rank_plays(board, plays, 2, cache=cache)
        np.testing.assert_array_equal(eq, bare[0])
        np.testing.assert_array_equal(order, bare[1])
    assert big.hits > 0 and big.misses > 0
    uncached = net.probabilities(board, 2)
    np.testing.assert_array_equal(net.probabilities(board, 2, cache=big), uncached)
    np.testing.assert_array_equal(net.probabilities(board, 2, cache=tiny), uncached)


def test_a_cache_handed_another_net_forgets_the_first_nets_values(net):
    other = neural.load_net(neural.weights_file("neural-v15-320.npz"))[0]
    cache = _core.SearchCache()
    net.probabilities(CONTACT, 2, cache=cache)
    np.testing.assert_array_equal(other.probabilities(CONTACT, 2, cache=cache),
                                  other.probabilities(CONTACT, 2))
    assert not np.array_equal(other.probabilities(CONTACT, 2), net.probabilities(CONTACT, 2))


def test_the_cache_keys_both_sides_gammon_prices(net):
    board = pos("x 24:1 22:1 13:4 8:3 6:4 5:2; o 24:2 13:4 10:1 8:2 6:4 4:2").board
    none, high = np.zeros(4), np.array([2.0, 0.2, 1.0, 0.1])
    cache = _core.SearchCache()
    values = []
    # One cache through five pricings: each must get its own value, as without a cache.
    for prices, reply in ((none, high), (none, none), (high, high), (high, none), (None, None)):
        got = net.probabilities(board, 2, cache=cache, prices=prices, reply_prices=reply)
        np.testing.assert_array_equal(
            got, net.probabilities(board, 2, prices=prices, reply_prices=reply))
        values.append(tuple(got))
    assert len(set(values)) == 5


# ------------------------------------------------------------------ move filters


def _filtered_by_hand(net, board, plays, first, second):
    """The 2-ply ranking re-done from the public values: 0 ply for all (as changes to the
    board's sums), 1 ply for the `first` filter's plays, 2 ply for the `second`'s."""
    zero = net.play_equities(board, plays)
    by_zero = sorted(range(len(plays)), key=lambda i: -zero[i])
    ones = [i for i in by_zero[:first[0]] if zero[i] >= zero[by_zero[0]] - first[1]]
    one = {i: net.move_equity(plays[i], ply=1) for i in ones}
    by_one = sorted(ones, key=lambda i: -one[i])
    twos = [i for i in by_one[:second[0]] if one[i] >= one[by_one[0]] - second[1]]
    two = {i: net.move_equity(plays[i], ply=2) for i in twos}
    return zero, one, two


@pytest.mark.parametrize("dice", [(6, 4), (2, 1), (5, 5)])
def test_rank_plays_follows_the_stated_move_filters(net, dice):
    board = OPENING
    plays = np.ascontiguousarray(_core.generate(board, *dice))
    first, second = (5, 0.16), FILTER_2PLY
    eq, order = net.rank_plays(board, plays, 2, filters=(first, second), incremental=True)
    zero, one, two = _filtered_by_hand(net, board, plays, first, second)
    np.testing.assert_allclose(eq[0], zero, atol=1e-12)
    assert {i for i in range(len(plays)) if not math.isnan(eq[1, i])} == set(one)
    assert {i for i in range(len(plays)) if not math.isnan(eq[2, i])} == set(two)
    for i, v in two.items():
        assert eq[2, i] == pytest.approx(v, abs=1e-12)
    assert int(order[0]) == max(two, key=two.get)


def test_the_2ply_player_picks_the_best_2ply_play_of_the_filtered_ones(net):
    board = pos("x 24:2 13:4 8:3 6:4 5:2; o 24:1 23:1 13:5 8:3 6:5").board
    pid = Position.from_board(board).position_id()
    plays = np.ascontiguousarray(_core.generate(board, 4, 2))
    _, _, two = _filtered_by_hand(net, board, plays, (5, 0.16), FILTER_2PLY)
    best = plays[max(two, key=two.get)]
    assert choose(pid, 4, 2, "neural-2ply") == Position.from_board(best).position_id()


def test_a_hint_at_two_ply_ranks_by_two_ply_and_keeps_the_one_ply_figures():
    plays = tf.hint("start", 4, 3, ply=2)
    deep = [p for p in plays if p.equity_2ply is not None]
    assert 1 <= len(deep) <= FILTER_2PLY[0]
    assert plays[:len(deep)] == sorted(deep, key=lambda p: -p.equity_2ply)
    assert all(p.equity_1ply is not None for p in deep)
    one = tf.hint("start", 4, 3, ply=1)
    assert {p.play: p.equity_1ply for p in one} == {p.play: p.equity_1ply for p in plays}
    assert all(p.equity_2ply is None for p in one)


# ------------------------------------------------------------------ checks


def test_plies_beyond_two_and_bad_filters_are_refused(net):
    after = _core.generate(OPENING, 3, 1)[0]
    for call in (lambda: net.move_equity(after, ply=3), lambda: net.probabilities(OPENING, 3),
                 lambda: tf.hint("start", 3, 1, ply=3), lambda: tf.hint("start", 3, 1, ply=True),
                 lambda: net.rank_plays(OPENING, _core.generate(OPENING, 3, 1), -1)):
        with pytest.raises(ValueError, match="ply must be 0, 1 or 2"):
            call()
    plays = _core.generate(OPENING, 3, 1)
    with pytest.raises(ValueError, match="two move filters"):
        net.rank_plays(OPENING, plays, 2, filters=((5, 0.1),))
    with pytest.raises(ValueError, match="window"):
        net.rank_plays(OPENING, plays, 2, filters=((5, 0.1), (3, -1.0)))
    with pytest.raises(ValueError, match="power of two"):
        _core.SearchCache(entries=3)
    finished = np.zeros((2, 26), dtype=np.int8)
    finished[0, 0] = finished[1, 6] = 15
    with pytest.raises(ValueError, match="game is over"):
        net.probabilities(finished, 2)


def test_ply_two_names_the_2ply_player_for_portes_only():
    assert apply_ply(("neural", "pubeval"), (2, 0)) == ("neural-2ply", "pubeval")
    assert apply_ply(("neural-2ply", "neural"), 1) == ("neural-1ply", "neural-1ply")
    with pytest.raises(ValueError, match="ply must be 0 or 1"):
        apply_ply(("neural", "neural"), 2, deepest=1)
    with pytest.raises(ValueError, match="ply 2 is for the neural players"):
        apply_ply(("pubeval", "neural"), 2)


# ------------------------------------------------------------------ the commands


def test_tavli_hint_at_two_ply_prints_the_apis_ranking(capsys):
    from tavli_fast.cli.evaluate import hint_main

    assert hint_main(["--position", "start", "--dice", "43", "--ply", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ply"] == 2
    ranked = [p.to_dict() for p in tf.hint("start", 4, 3, ply=2)]
    assert [{k: play[k] for k in ranked[0]} for play in report["plays"]] == ranked
    assert hint_main(["--position", "start", "--dice", "43", "--ply", "2"]) == 0
    header = capsys.readouterr().out.splitlines()[1].split()
    assert header[-3:] == ["0-ply", "1-ply", "2-ply"]


def test_tavli_eval_and_the_cube_decision_use_the_probabilities_at_the_ply(capsys):
    from tavli_fast.cli.evaluate import eval_main, hint_main

    net = neural.evaluator()                # the commands' default evaluator
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"     # money, before the roll
    board = Position.from_id(xgid).board
    want = net.probabilities(board, 2)
    assert eval_main(["--position", xgid, "--ply", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [report[k] for k in ("win", "win_gammon", "win_backgammon", "lose_gammon",
                                "lose_backgammon")] == pytest.approx(want, abs=1e-12)
    assert report["cube"]["probabilities"] == pytest.approx(want, abs=1e-12)
    assert hint_main(["--position", xgid, "--ply", "2", "--json"]) == 0
    cube = json.loads(capsys.readouterr().out)["cube"]
    assert cube["probabilities"] == pytest.approx(want, abs=1e-12)
    assert hint_main(["--position", xgid, "--json"]) == 0         # 0 ply there by default
    zero = json.loads(capsys.readouterr().out)["cube"]["probabilities"]
    assert zero == pytest.approx(net.evaluate(board), abs=1e-12)
    assert zero != pytest.approx(want, abs=1e-4)


def test_a_2ply_rollout_repeats_its_numbers_with_its_seed():
    position = Position.from_board(CONTACT).position_id()
    runs = [tf.rollout(position, 6, players="neural", ply=2, seed=3, jobs=1) for _ in range(2)]
    assert runs[0].players == ("neural-2ply", "neural-2ply")
    assert runs[0].equity == runs[1].equity and runs[0].vr == runs[1].vr
    other = tf.rollout(position, 6, players="neural", ply=1, seed=3, jobs=1)
    assert other.players == ("neural-1ply", "neural-1ply")
