"""The cube in play (R21-R25): cubeful rollouts and whole matches.

Expected values come from the rules (a pass scores the cube, a capped cube never moves,
Jacoby), from the match equity table, or from the same games played cubeless, never from
the code's own output.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

import tavli_fast as tf
from tavli_fast.errors import InvalidPositionError
from tavli_fast.api import play_matches, rollout

# Start position with a context: cube log2, owner, turn, dice, scores, flag, length, max cube.
START_XGID = "XGID=-b----E-C---eE---c-e----B-:{}"
# I have 15 checkers on my ace point, the opponent 15 on its 13-point: I bear off in at
# most 8 turns, it cannot bear off a checker in fewer than 9: I cannot lose.
SURE_WIN = "x 1:15; o 13:15"


def xgid(fields: str) -> str:
    return START_XGID.format(fields)


def test_r22_a_position_that_cannot_lose_is_double_pass_or_too_good():
    pos = tf.Position.parse(SURE_WIN)
    assert pos.pip_counts() == (15, 195)
    r = rollout(pos, 400, players="neural", seed=1, jobs=1, cubeful=True)
    assert r.win == 1.0
    assert r.cubeful.action in ("Double, pass", "Too good to double, pass", "Too good to double, take")
    assert r.cubeful.no_double >= 1.0                    # a win is worth at least the cube


def test_r23_a_capped_cube_never_moves_and_each_game_scores_its_points():
    # With max cube 1 nobody can double: the cubeful result is the cubeless one, game by game.
    r = rollout("start", 600, players="pubeval", seed=3, jobs=1, cubeful=True, max_cube=1)
    assert r.cubeful.action == "You cannot double" and r.cubeful.double_take is None
    assert r.cubeful.no_double == pytest.approx(r.equity, abs=1e-12)
    assert r.cubeful.mean_cube == {"no_double": 1.0}


def test_r23_jacoby_a_centred_cube_scores_one_point_whatever_the_game():
    jacoby = xgid("0:0:1:00:0:0:1:0:10")
    r = rollout(jacoby, 600, players="pubeval", seed=3, jobs=1, cubeful=True, max_cube=1)
    assert r.cubeful.no_double == pytest.approx(2 * r.win - 1, abs=1e-12)
    plain = rollout("start", 600, players="pubeval", seed=3, jobs=1, cubeful=True, max_cube=1)
    assert plain.win == r.win                           # same games, only the scoring differs


def test_r23_beaver_in_play_the_favourite_taker_redoubles_at_once_keeping_the_cube():
    # o (pubeval, the pip rule) owns the cube at 2 and leads the race by pips (15 against at
    # least 18 after x's first roll), so it redoubles at its first turn whatever x rolled;
    # but its 15 checkers on the ace, two a turn (four with a double), take longer than x's
    # two from its 21-point: x (neural) is the favourite, so it takes, and beavers where
    # beavers are played (x wins nearly 9 games in 10). Nobody can be
    # gammoned (o bears off at once), so every game scores the cube's final value.
    race = tf.Position.parse("x 21:2; o 1:15")

    def run(beaver: bool, cap: int):
        ctx = tf.GameContext(cube_value=2, cube_owner="opponent", beaver=beaver)
        return rollout(race.with_context(ctx), 600, players=("neural", "pubeval"), seed=5,
                       jobs=1, cubeful=True, max_cube=cap)

    took = run(False, 4)           # the redouble to 4 reaches the cap: the cube is then dead
    beavered = run(True, 8)        # 4 x 2 = 8 is allowed: the beaver, then dead at the cap
    capped = run(True, 4)          # a beaver to 8 would pass the cap: a plain take
    assert took.totals.counts == beavered.totals.counts == capped.totals.counts   # the same games
    assert took.cubeful.mean_cube == capped.cubeful.mean_cube == {"no_double": 4.0}
    assert beavered.cubeful.mean_cube == {"no_double": 8.0}
    # Per unit of the starting cube 2: each game is worth 2 (taken) or 4 (beavered) times
    # its cubeless result.
    assert took.cubeful.no_double == pytest.approx(2 * took.equity, abs=1e-12)
    assert capped.cubeful.no_double == pytest.approx(2 * took.equity, abs=1e-12)
    assert beavered.cubeful.no_double == pytest.approx(4 * took.equity, abs=1e-12)


def test_r24_a_cubeful_match_rollout_at_double_match_point_cannot_double():
    dmp = xgid("0:0:1:00:4:4:0:5:10")
    r = rollout(dmp, 1000, players="neural", seed=2, jobs=1, cubeful=True)
    c = r.cubeful
    assert c.action == "You cannot double" and not c.can_double
    # DMP: MWC = P(win). Games that stop in the bear-off region solved at the score count
    # its MWC and the two-sided database's P(win): two float32 tables, equal within 1e-7.
    assert c.mwc["no_double"] == pytest.approx(r.win, abs=1e-7)
    assert abs(c.no_double - c.cubeless) <= 2 * c.se["no_double"]


def test_cubeful_rollout_reports_both_branches_on_common_dice():
    r = rollout("start", 1200, players="neural", seed=5, jobs=1, cubeful=True)
    c = r.cubeful
    assert c.can_double and c.double_take is not None and c.double_pass == 1.0
    # Paired on the same games: the difference is far more precise than it would be from two
    # independent rollouts of the branches (not always more than each branch: one game with
    # a high cube can dominate the double/take branch and the difference alike).
    assert c.se["difference"] < 0.8 * math.hypot(c.se["no_double"], c.se["double_take"])
    assert c.double_take < c.no_double                   # doubling at the start is a blunder
    assert c.action == "No double, take"
    assert c.mean_cube["double_take"] >= 2.0
    doc = json.loads(r.to_json())["cubeful"]
    assert set(doc) >= {"no_double", "double_take", "double_pass", "action", "se"}
    assert set(doc["se"]) == {"no_double", "double_take", "difference"}
    assert doc["mwc"] is None


def test_cubeful_match_rollout_reports_mwcs_from_the_table():
    r = rollout(xgid("0:0:1:00:1:0:0:5:10"), 600, players="neural", seed=4, jobs=1, cubeful=True)
    mwc = r.cubeful.mwc
    assert mwc["double_pass"] == pytest.approx(tf.match_equity(3, 5))
    assert 0.0 < mwc["no_double"] < 1.0 and 0.0 < mwc["double_take"] < 1.0


def test_cubeful_rollouts_do_not_depend_on_jobs_and_resume_exactly(tmp_path):
    args = dict(players="neural", seed=11, cubeful=True, chunk_size=150)
    one = rollout("start", 450, jobs=1, **args)
    two = rollout("start", 450, jobs=2, **args)
    assert one.totals == two.totals and one.cubeful == two.cubeful
    path = tmp_path / "run.json"
    rollout("start", 150, jobs=1, checkpoint=str(path), **args)
    resumed = rollout("start", 450, jobs=1, resume=str(path), **args)
    assert resumed.totals == one.totals and resumed.resumed_games == 150


@pytest.mark.parametrize("kwargs, error", [
    (dict(position=xgid("7:0:1:00:0:0:0:0:10")), InvalidPositionError),   # cube 128 > 64
    (dict(max_cube=100), ValueError),
    (dict(rules="portes"), ValueError),
])
def test_bad_cubeful_requests_raise(kwargs, error):
    args = dict(position="start", trials=10, jobs=1, cubeful=True) | kwargs
    with pytest.raises(error):
        rollout(**args)


# ------------------------------------------------------------------------ matches


def test_r25_crawford_leader_wins_as_the_table_says():
    # 5-point match at 4-3: the Crawford game, MET 1-away vs 2-away.
    r = play_matches(5, 3000, "neural", score=(4, 3), seed=1, jobs=2)
    expected = tf.match_equity(1, 2)
    assert abs(r.win[0] - expected) <= 4 * r.se[0]
    assert r.mean_cube == 1.0                            # no cube in the Crawford game
    assert r.to_dict()["games_per_match"] > 1.0


def test_r25_post_crawford_the_trailers_free_double_brings_it_near_even():
    r = play_matches(5, 3000, "neural", score=(4, 3), post_crawford=True, seed=2, jobs=2)
    expected = tf.match_equity(1, 2, post_crawford=True)
    assert abs(r.win[0] - expected) <= 4 * r.se[0]
    assert r.mean_cube > 1.0                             # the trailer doubles


def test_matches_are_reproducible_independent_of_jobs_and_resumable(tmp_path):
    args = dict(score=(0, 0), seed=7, chunk_size=50)
    one = play_matches(3, 150, "pubeval,greedy", jobs=1, **args)
    two = play_matches(3, 150, "pubeval,greedy", jobs=2, **args)
    assert one.tallies == two.tallies and one.matches == 150
    path = tmp_path / "m.json"
    play_matches(3, 50, "pubeval,greedy", jobs=1, checkpoint=str(path), **args)
    resumed = play_matches(3, 150, "pubeval,greedy", jobs=1, resume=str(path), **args)
    assert resumed.tallies == one.tallies and resumed.resumed_matches == 50


def test_a_one_point_match_is_one_game_without_a_cube():
    r = play_matches(1, 200, "pubeval", seed=3, jobs=1)
    assert r.games == 200 and r.mean_cube == 1.0


def test_portes_matches_have_no_cube_no_backgammon_and_the_winner_starts():
    r = play_matches(5, 300, "pubeval,random", rules="portes", seed=4, jobs=1)
    d = r.to_dict()
    assert d["mean_cube"] == 1.0
    assert d["per_game"]["backgammon_a"] == 0.0 and d["per_game"]["backgammon_b"] == 0.0
    assert r.win[0] > 0.9                                # pubeval crushes random
    assert set(d) >= {"length", "matches", "players", "score", "win", "se", "games_per_match"}


@pytest.mark.parametrize("kwargs", [
    dict(length=0),
    dict(length=5, score=(5, 1)),                 # already won
    dict(length=5, score=(3, 2), post_crawford=True),   # nobody is 1-away
    dict(length=99),                              # longer than the table
    dict(length=5, matches=0),
    dict(length=5, players="gnubg"),
    dict(length=5, max_cube=3),
])
def test_bad_match_requests_raise_value_error(kwargs):
    with pytest.raises(ValueError):
        play_matches(**({"matches": 10, "jobs": 1} | kwargs))


@pytest.mark.parametrize("argv", [
    ["--length", "0"],
    ["--length", "5", "--score", "5,1"],
    ["--length", "5", "--score", "3,2", "--post-crawford"],
    ["--length", "5", "--matches", "-3"],
    ["--length", "5", "--max-cube", "3"],
    ["--length", "5", "--weights", "/nonexistent/net.npz"],
    ["--length", "5", "--weights", __file__],
    ["--length", "5", "--player", "pubeval", "--weights", __file__],
])
def test_match_cli_bad_input_is_one_line_and_exit_2(argv):
    r = subprocess.run([sys.executable, "-m", "tavli_fast.cli.match", *argv, "--no-progress"],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


@pytest.mark.parametrize("argv", [
    ["--cubeful", "--max-cube", "100"],
    ["--cubeful", "--rules", "portes"],
    ["--cubeful", "--position", xgid("7:0:1:00:0:0:0:0:10")],
    ["--position", xgid("0:0:1:00:0:0:1:5:10")],      # Crawford flag in... a 5-point match at 0-0
])
def test_rollout_cli_bad_cube_input_is_one_line_and_exit_2(argv):
    r = subprocess.run([sys.executable, "-m", "tavli_fast", *argv, "--trials", "10", "--no-progress"],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_match_cli_json_has_the_promised_keys():
    r = subprocess.run([sys.executable, "-m", "tavli_fast.cli.match", "--length", "3", "--players",
                        "pubeval,random", "--matches", "40", "--seed", "1", "--json", "-j", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["length"] == 3 and doc["matches"] == 40 and doc["players"] == ["pubeval", "random"]
    assert doc["score"] == [0, 0] and len(doc["win"]) == 2 and len(doc["se"]) == 2
    assert doc["win"][0] + doc["win"][1] == pytest.approx(1.0)


# ------------------------------------------------------------------------ score-aware play


def test_r24_at_double_match_point_the_neural_player_plays_for_the_win_not_the_gammon():
    # At 1-away/1-away gammons are worth nothing (every price 0): the 0-ply neural player
    # then picks the play with the best chance to win, where in money it weighs gammons.
    import numpy as np

    from helpers import random_positions
    from tavli_fast import _core
    from tavli_fast.play.cube import default_match_table
    from tavli_fast.play.neural import default_net

    net = default_net()
    dmp = np.array(_core.gammon_prices_of(1, 1, 1, default_match_table()))
    assert dmp.tolist() == [0.0, 0.0, 0.0, 0.0]
    neural = int(_core.PlayerKind.PLAYER_NEURAL)
    differ = 0
    for p in random_positions(120, 3):
        if p.is_game_over():
            continue
        for d1, d2 in ((6, 5), (3, 1), (6, 2)):
            plays = [q.position.board for q in p.plays(d1, d2)]
            if len(plays) < 2 or any(b[0, 0] == 15 for b in plays):
                continue

            def mover(board):  # the mover's probabilities after its play
                q = net.evaluate(np.ascontiguousarray(board[::-1]))
                return 1.0 - q[0], q[3], q[4], q[1], q[2]

            money = _core.choose(p.board, d1, d2, neural, 0, bearoff_play=False, net=net)
            at_dmp = _core.choose(p.board, d1, d2, neural, 0, bearoff_play=False, net=net, prices=dmp)
            wins = [mover(b)[0] for b in plays]
            equities = [2 * w - 1 + g - lg + bg - lbg for w, g, bg, lg, lbg in map(mover, plays)]
            chosen = next(i for i, b in enumerate(plays) if np.array_equal(b, at_dmp))
            assert wins[chosen] == pytest.approx(max(wins), abs=1e-5)   # the fast paths differ by < 1e-6
            chosen = next(i for i, b in enumerate(plays) if np.array_equal(b, money))
            assert equities[chosen] == pytest.approx(max(equities), abs=1e-5)
            differ += not np.array_equal(money, at_dmp)
    assert differ >= 3                   # the prices do change plays


# The 1-ply look at the score by brute force: every play and reply evaluated by the net.

def _after(net, boards):
    """Each mover's probabilities (win, win gammon, win bg, lose gammon, lose bg) after its
    play, `boards` seen from the mover (the opponent on roll)."""
    import numpy as np

    q = net.evaluate_many(np.ascontiguousarray(np.stack(boards)[:, ::-1]))
    return np.column_stack((1.0 - q[:, 0], q[:, 3], q[:, 4], q[:, 1], q[:, 2]))


def _priced(p, prices):
    """Cubeless equity with gammons and backgammons at `prices` (money: all 1)."""
    return (2 * p[..., 0] - 1 + prices[0] * p[..., 1] - prices[1] * p[..., 3]
            + prices[2] * p[..., 2] - prices[3] * p[..., 4])


def _look(net, board, mine, theirs):
    """The mover's 1-ply equity of its play `board` at its prices `mine`: the mean over the
    opponent's 21 rolls of the reply the opponent picks at his prices `theirs`."""
    import numpy as np

    opp = tf.Position.from_board(board[::-1])
    mean = np.zeros(5)
    for a in range(1, 7):
        for b in range(a, 7):
            replies = _after(net, [q.position.board for q in opp.plays(a, b)])
            mean += (1 if a == b else 2) / 36 * replies[np.argmax(_priced(replies, theirs))]
    return _priced(np.array([1 - mean[0], mean[3], mean[4], mean[1], mean[2]]), mine)


def test_r24_the_1ply_player_looks_ahead_at_the_score_with_each_side_at_its_own_prices():
    # 2-away/5-away: the side 2 away prizes its gammons (1.83 a gammon against 1 in money),
    # the side 5 away fears its own less than money. The 1-ply player ranks its plays by
    # 0 ply at its prices (the move filter: at most 5 within 0.16 of the best), then values
    # each by the mean over the opponent's 21 rolls of the reply the opponent picks at his
    # prices, at its own prices: as _look does by brute force.
    import numpy as np

    from helpers import random_positions
    from tavli_fast import _core
    from tavli_fast.play.cube import gammon_prices
    from tavli_fast.play.neural import default_net

    net = default_net()
    mine, theirs = gammon_prices(tf.GameContext(score=(3, 0), match_length=5))
    assert mine[0] > 1.8 and theirs[0] < 0.9            # the prices differ by side
    one_ply = int(_core.PlayerKind.PLAYER_NEURAL_1PLY)
    differ = 0
    for p in random_positions(400, 8)[::10]:
        if min(p.pip_counts()) < 40:        # nobody can finish within the look
            continue
        for d1, d2 in ((6, 4), (2, 1)):
            plays = [q.position.board for q in p.plays(d1, d2)]
            if len(plays) < 2:
                continue
            zero = _priced(_after(net, plays), mine)
            top = np.argsort(-zero, kind="stable")[:5]
            values = {i: _look(net, plays[i], mine, theirs) for i in top
                      if zero[i] >= zero[top[0]] - 0.16}
            chosen = _core.choose(p.board, d1, d2, one_ply, 0, bearoff_play=False, net=net,
                                  prices=mine, reply_prices=theirs)
            i = next(i for i, b in enumerate(plays) if np.array_equal(b, chosen))
            assert i in values and values[i] == pytest.approx(max(values.values()), abs=1e-5)
            money = _core.choose(p.board, d1, d2, one_ply, 0, bearoff_play=False, net=net)
            differ += not np.array_equal(money, chosen)
    assert differ >= 2                   # the prices do change 1-ply plays
    with pytest.raises(ValueError):
        _core.choose(p.board, 6, 4, one_ply, 0, net=net, prices=mine)


@pytest.mark.slow
@pytest.mark.parametrize("player", ["neural", "neural-1ply"])
def test_r24_in_a_match_the_neural_players_play_at_the_score(player):
    # Checker play never depends on the cube, so the same dice give the same games in money
    # play and in a match unless the score's gammon prices change the plays. Each cubeful
    # rollout plays its games to the end (passes only end cube histories), so the outcome
    # counts are those of the plays.
    def counts(context: str):
        r = rollout(xgid(context), 40, players=player, seed=2, jobs=1, cubeful=True)
        return r.totals.counts

    money = counts("0:0:1:00:0:0:0:0:10")
    assert counts("0:0:1:00:0:0:0:0:10") == money            # deterministic
    assert counts("0:0:1:00:3:0:0:5:10") != money            # 2-away/5-away: gammons priced
    assert counts("0:0:1:00:4:4:0:5:10") != money            # DMP: gammons worth nothing


def test_r24_hint_at_a_match_score_values_each_play_at_the_prices(capsys):
    import numpy as np

    from tavli_fast.cli.evaluate import hint_main
    from tavli_fast.play.cube import gammon_prices
    from tavli_fast.play.neural import default_net

    # The float32 net, the reference, which the Python look-ahead below uses too.
    net, float32 = default_net(), ["--evaluator", "float32"]
    at_score = xgid("0:0:1:31:3:0:0:5:10")             # 2-away/5-away, 3-1 to play
    assert hint_main(["--position", at_score, "--top", "2", "--json", *float32]) == 0
    report = json.loads(capsys.readouterr().out)
    mine, theirs = gammon_prices(tf.Position.from_id(at_score).context)
    assert report["gammon_prices"]["mover"]["win_gammon"] == pytest.approx(mine[0])
    assert report["gammon_prices"]["opponent"]["lose_backgammon"] == pytest.approx(theirs[3])
    for play in report["plays"]:
        board = tf.Position.from_id(play["position_id"]).sides_switched().board  # the mover's view
        assert play["equity_0ply"] == pytest.approx(_priced(_after(net, [board])[0], mine), abs=1e-5)
        if play["equity_1ply"] is not None:
            assert play["equity_1ply"] == pytest.approx(_look(net, board, mine, theirs), abs=1e-5)
    assert hint_main(["--position", xgid("0:0:1:31:0:0:0:0:10"), "--json", *float32]) == 0
    money = json.loads(capsys.readouterr().out)
    assert money["gammon_prices"] is None
    ones = np.ones(4)
    for play in money["plays"][:3]:
        board = tf.Position.from_id(play["position_id"]).sides_switched().board  # the mover's view
        assert play["equity_0ply"] == pytest.approx(_priced(_after(net, [board])[0], ones), abs=1e-5)
