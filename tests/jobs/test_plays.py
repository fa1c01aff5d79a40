"""The candidate plays of a roll rolled out on common dice (``rollout_plays``, ``tavli-rollout
--dice``, ``tavli-hint --rollout``): reading plays, screening, the stop rule, reproducibility,
checkpoints, the cube, and bad input."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tavli_fast import InvalidDiceError, InvalidPlayError, Position, cube_decision, hint, rollout_plays
from tavli_fast.cli.evaluate import hint_main
from tavli_fast.cli.rollout import main as rollout_main
from tavli_fast.game.position import GameContext
from tavli_fast.jobs.plays import make_plays_request, named_plays, parse_play

FAST = dict(players="pubeval", chunk_size=324, jobs=1)


# ------------------------------------------------------------------------ plays as written


@pytest.mark.parametrize("text, moves", [
    ("8/5 6/5", [(8, 5), (6, 5)]),
    ("8/5(2) 6/5(2)", [(8, 5), (8, 5), (6, 5), (6, 5)]),
    ("bar/22* 13/9", [(25, 22), (13, 9)]),
    ("24/18/13", [(24, 18), (18, 13)]),
    ("6/off 5/off", [(6, 0), (5, 0)]),
])
def test_plays_are_read_in_gnubg_notation(text, moves):
    assert parse_play(text) == moves


@pytest.mark.parametrize("text", ["", "8-5", "8/", "26/20", "off/5", "8/5(7)", "x/y"])
def test_unreadable_plays_are_refused(text):
    with pytest.raises(InvalidPlayError):
        parse_play(text)


def test_named_plays_are_matched_by_the_position_they_reach():
    """R7-R18 by hand at the start with 31: 8/5 6/5 and 24/23 13/10 are legal; the same play
    written as a chain (13/10/9 is 13/9 by one checker) is recognised; 8/3 is not a 31."""
    start = Position.initial()
    plays = named_plays(start, (3, 1), "8/5 6/5, 24/23 13/10")
    assert [p.notation for p in plays] == ["8/5 6/5", "24/23 13/10"]
    assert [p.notation for p in named_plays(start, (3, 1), ["13/10/9"])] == ["13/9"]
    with pytest.raises(InvalidPlayError, match="not a legal play of 31"):
        named_plays(start, (3, 1), "8/3")
    with pytest.raises(InvalidPlayError, match="named twice"):
        named_plays(start, (3, 1), "13/9, 13/10/9")
    with pytest.raises(InvalidPlayError, match="point 17 is held by the opponent"):
        named_plays(start, (6, 1), "24/17")  # his 8-point


def test_the_dice_must_be_a_roll_and_agree_with_the_position():
    with pytest.raises(InvalidDiceError):
        make_plays_request("start", "71")
    with pytest.raises(InvalidDiceError, match="need a roll"):
        make_plays_request("start")
    rolled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    with pytest.raises(InvalidDiceError, match="rolled, not 31"):
        make_plays_request(rolled, "31")
    assert make_plays_request(rolled, "25").dice == (5, 2)


def test_a_roll_that_cannot_be_played_is_refused():
    """R12: a checker on the bar that cannot enter forfeits the whole roll: nothing to compare."""
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 25], board[0, 6] = 1, 14
    board[1, 1:7] = 2  # the opponent holds all of his home board (our 19-24)
    board[1, 8] = 3
    with pytest.raises(InvalidPlayError, match="cannot be played"):
        make_plays_request(Position(board), "64")


# ------------------------------------------------------------------------ screening


def test_the_default_candidates_are_the_nets_best_two_and_close_ones():
    ranked = hint("start", 4, 3, top=5)
    request = make_plays_request("start", "43", players="pubeval")
    names = [c.play for c in request.candidates]
    assert 2 <= len(names) <= 5
    assert names == [p.play for p in ranked[: len(names)]]
    best = ranked[0].equity_1ply
    assert all(c.screen_equity >= best - 0.16 for c in request.candidates[2:])
    assert [c.play for c in make_plays_request("start", "43", candidates=4).candidates] == [
        p.play for p in ranked[:4]]


# ------------------------------------------------------------------------ the rollout


@pytest.fixture(scope="module")
def bad_and_good():
    """8/5 6/5 against 6/3 6/5 (breaking the 6-point for two blots) with 31: decided fast."""
    return rollout_plays("start", "31", trials=1296, seed=4, plays="6/5 6/3,8/5 6/5", **FAST)


def test_the_best_play_comes_first_and_a_decided_play_stops_early(bad_and_good):
    best, other = bad_and_good.plays
    assert best.play == "8/5 6/5"
    assert bad_and_good.decided
    assert other.dropped and other.trials < 1296 and best.trials == other.trials
    assert -other.diff > 2.33 * other.diff_se > 0
    # Equal trials: the paired mean difference is the difference of the means.
    assert other.diff == pytest.approx(other.equity - best.equity, abs=1e-12)


def test_without_the_stop_rule_every_play_gets_every_trial():
    r = rollout_plays("start", "31", trials=648, seed=4, plays="6/5 6/3,8/5 6/5",
                      stop_when_decided=None, **FAST)
    assert [p.trials for p in r.plays] == [648, 648]
    assert not any(p.dropped for p in r.plays)


def test_same_seed_same_numbers_whatever_the_number_of_workers():
    kwargs = dict(trials=648, seed=11, plays="24/18 13/11,13/5,24/16", **{**FAST, "jobs": None})
    one = rollout_plays("start", "62", **{**kwargs, "jobs": 1})
    two = rollout_plays("start", "62", **{**kwargs, "jobs": 2})
    strip = lambda d: {k: v for k, v in d.items() if k not in ("jobs", "elapsed_s")}  # noqa: E731
    assert strip(one.to_dict()) == strip(two.to_dict())
    other = rollout_plays("start", "62", **{**kwargs, "jobs": 1, "seed": 12})
    assert other.plays[0].equity != one.plays[0].equity


def test_an_interrupted_run_resumes_to_the_uninterrupted_numbers(tmp_path):
    kwargs = dict(trials=1296, seed=5, plays="24/18 13/11,13/5,24/16", **FAST)
    whole = rollout_plays("start", "62", **kwargs)
    calls = []

    def stop_after_three(p):
        calls.append(p.trials_done)
        if len(calls) == 3:
            raise KeyboardInterrupt

    path = tmp_path / "plays.json"
    part = rollout_plays("start", "62", progress=stop_after_three, checkpoint=path, **kwargs)
    assert part.interrupted and part.trials_played < whole.trials_played
    resumed = rollout_plays(None, resume=path, jobs=1)
    strip = lambda d: {k: v for k, v in d.items() if k not in ("elapsed_s", "checkpoint")}  # noqa: E731
    assert strip(resumed.to_dict()) == {**strip(whole.to_dict()), "interrupted": False}


def test_records_are_a_row_a_play():
    r = rollout_plays("start", "62", trials=324, seed=2, plays="24/18 13/11,13/5", **FAST)
    rows = r.to_records()
    assert [row["play"] for row in rows] == [p.play for p in r.plays]
    assert {"rank", "equity", "se", "diff", "diff_se", "win", "win_gammon", "trials"} <= set(rows[0])


# ------------------------------------------------------------------------ the cube


def _bearoff_position(dice):
    """Money, centred cube, both sides bearing off (inside the cubeful database)."""
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 6], board[0, 5], board[0, 4], board[0, 2], board[0, 0] = 2, 1, 1, 1, 10
    board[1, 3], board[1, 2], board[1, 1], board[1, 0] = 1, 2, 1, 11
    return Position(board, GameContext(dice=dice))


def test_cubeful_candidates_in_the_bearoff_are_the_exact_cubeful_values():
    """Every candidate's games stop at once in the cubeful bear-off database, after the
    opponent's cube action on his first turn: each play's cubeful equity is exactly minus
    what the opponent has there (his better of doubling and not), as cube_decision reads it
    from the database, and the best play is the one that leaves him least."""
    position = _bearoff_position((6, 5))
    r = rollout_plays(position, trials=324, seed=1, cubeful=True, **FAST)
    assert r.cubeful and len(r.plays) >= 2
    for p in r.plays:
        after = Position.from_id(p.position_id)
        d = cube_decision(after, exact=True)
        assert d.exact
        theirs = min(d.double_take, d.double_pass) if d.double else d.no_double
        assert p.se == 0.0 and p.equity == pytest.approx(-theirs, abs=1e-9)
    values = [p.equity for p in r.plays]
    assert values == sorted(values, reverse=True)


def test_cubeful_candidates_in_a_match_report_match_winning_chances():
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:62:0:0:0:5:10"  # 5-point match, 0-0
    r = rollout_plays(xgid, trials=324, seed=3, cubeful=True, plays="24/18 13/11,13/5", **FAST)
    for p in r.plays:
        assert 0.0 < p.mwc < 1.0 and p.mwc_se > 0 and p.mean_cube >= 1.0
    d = r.to_dict()["plays"][0]
    assert {"mwc", "mwc_se", "mean_cube"} <= set(d)


# ------------------------------------------------------------------------ the commands


def test_rollout_json_has_plays_and_decided(capsys):
    status = rollout_main(["--dice", "31", "--players", "pubeval,pubeval", "--trials", "648",
                           "--chunk-size", "324", "--jobs", "1", "--seed", "3", "--json",
                           "--plays", "8/5 6/5,13/10 24/23"])
    assert status == 0
    doc = json.loads(capsys.readouterr().out)
    assert isinstance(doc["decided"], bool)
    for p in doc["plays"]:
        assert {"play", "equity", "se", "diff", "diff_se", "probabilities"} <= set(p)
        assert set(p["probabilities"]) == {"win", "win_gammon", "win_backgammon", "lose_gammon",
                                           "lose_backgammon"}
    assert doc["plays"][0]["diff"] == 0.0 and doc["plays"][1]["diff_se"] > 0


def test_an_xgid_with_its_dice_rolls_out_the_candidates(capsys):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    assert rollout_main(["--position", xgid, "--players", "pubeval,pubeval", "--trials", "324",
                         "--chunk-size", "324", "--jobs", "1", "--candidates", "2"]) == 0
    out = capsys.readouterr().out
    assert "Candidate plays of 52" in out and "common dice" in out


def test_hint_rollout_prints_the_hint_first_then_the_rollout(capsys):
    """usage.md's promise (issue 51): `tavli-hint --rollout` is the hint, then the candidates
    rolled out; --json stays one document, the rollout's."""
    assert hint_main(["--position", "start", "--dice", "62"]) == 0
    hint_alone = capsys.readouterr().out
    argv = ["--position", "start", "--dice", "62", "--rollout", "36", "--jobs", "1", "--seed", "1",
            "--plays", "24/18 13/11,13/5", "--no-progress"]
    assert hint_main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith(hint_alone) and "Candidate plays of 62" in out[len(hint_alone):]
    assert hint_main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["plays"][0]["trials"] == 36


@pytest.mark.slow
def test_hint_rollout_and_plot(tmp_path, capsys):
    png = tmp_path / "plays.png"
    assert hint_main(["--position", "start", "--dice", "62", "--rollout", "72", "--jobs", "1",
                      "--plays", "24/18 13/11,13/5", "--plot", str(png), "--no-progress"]) == 0
    assert "Candidate plays of 62" in capsys.readouterr().out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("argv, message", [
    (["--dice", "31", "--plays", "8/3"], "not a legal play"),
    (["--dice", "31", "--candidates", "0"], "at least 1"),
    (["--dice", "31", "--plays", "8/5 6/5", "--candidates", "2"], "not both"),
    (["--dice", "31", "--target-se", "0.01"], "not for the candidate plays"),
    (["--dice", "91"], "from 1 to 6"),
    (["--position", "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10", "--dice", "31"],
     "rolled, not 31"),
    (["--dice", "31", "--stop-when-decided", "-1"], "standard errors"),
])
def test_bad_candidate_input_is_one_line_and_status_2(argv, message, capsys):
    try:
        status = rollout_main([*argv, "--jobs", "1", "--no-progress"])
    except SystemExit as e:  # argparse's own checks
        status = e.code
    err = capsys.readouterr().err
    assert status == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_hint_rollout_options_need_rollout(capsys):
    assert hint_main(["--position", "start", "--dice", "31", "--plays", "8/5 6/5"]) == 2
    assert "goes with --rollout" in capsys.readouterr().err


def test_hint_rollout_takes_the_reply_filter(tmp_path, capsys):
    """--reply-filter goes to the rollout tavli-hint runs: noted in its result, checked (one
    line, status 2), and a resumed checkpoint of 1-ply players refuses another filter."""
    argv = ["--position", "start", "--dice", "62", "--rollout", "36", "--jobs", "1", "--seed", "1",
            "--plays", "24/18 13/11,13/5", "--no-progress", "--json"]
    assert hint_main([*argv, "--reply-filter", "0"]) == 0
    assert any("every reply" in note for note in json.loads(capsys.readouterr().out)["notes"])
    assert hint_main(argv) == 0
    assert not any("every reply" in note for note in json.loads(capsys.readouterr().out)["notes"])
    assert hint_main([*argv, "--reply-filter", "-1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "reply filter" in err and len(err.splitlines()) == 1
    assert hint_main(["--position", "start", "--dice", "31", "--reply-filter", "0"]) == 2
    assert "--reply-filter goes with --rollout" in capsys.readouterr().err
    path = tmp_path / "plays.json"
    rollout_plays("start", "62", 12, "neural-1ply", 1, plays="24/18 13/11,13/5", chunk_size=12,
                  stop_when_decided=None, vr=False, jobs=1, checkpoint=path)
    resume = ["--position", "start", "--resume", str(path), "--jobs", "1", "--no-progress",
              "--json"]
    assert hint_main([*resume, "--reply-filter", "0"]) == 2        # it played the default
    err = capsys.readouterr().err.strip()
    assert "reply_filter" in err and len(err.splitlines()) == 1
    assert hint_main([*resume, "--reply-filter", "8"]) == 0


def test_the_api_refuses_the_variants():
    with pytest.raises(ValueError, match="backgammon and Portes"):
        rollout_plays("start", "31", rules="plakoto", trials=324)


def test_stop_setting_is_checked():
    for bad in (0, -1.0, math.inf, "2"):
        with pytest.raises(ValueError):
            make_plays_request("start", "31", stop_when_decided=bad, players="pubeval")


def test_the_cubeful_player_takes_the_exact_cubeful_best_play_in_the_bearoff():
    """Cubeful checker play: with the cube, the neural player's play inside the cubeful bear-off
    database is the one that leaves the opponent the least after his cube action, as the
    database says (cube_decision on every play's position, an independent path). One game:
    the mover plays his given roll, then the game stops in the database at the opponent's
    turn, counting the exact cubeful equity after the opponent's proper cube action."""
    from tavli_fast import _core
    from tavli_fast.jobs.cubeful import cube_of
    from tavli_fast.play.players import game_resources, player_kinds

    _, ids = player_kinds(("neural", "neural"))
    resources = game_resources(ids, True, True, None, net=True, cubeful=True)
    # Two of 400 random bear-offs where the cubeless choice (the one-sided database's, fewest
    # rolls) is not the cubeful best; a centred cube, money.
    for position_id, dice in (("nA4AAFYCAAAAAA", (3, 1)), ("RwMAAK0AAAAAAA", (6, 1))):
        position = Position.from_id(position_id)
        values = []
        for play in position.plays(*dice):
            d = cube_decision(play.position.sides_switched(), exact=True)
            values.append(-(min(d.double_take, d.double_pass) if d.double else d.no_double))
        got = []
        for cubeful in (True, False):
            out = np.zeros(1)
            _core.run_games(np.ascontiguousarray(position.board), 1, ids[0], ids[1], 1, False,
                            True, np.array([dice], dtype=np.int8), truncate=True, given_plies=1,
                            cube_branches=(cube_of(position),), per_game_cubeful=out,
                            cubeful_play=(cubeful, cubeful), **resources)
            got.append(out[0])
        assert got[0] == pytest.approx(max(values), abs=1e-6), position_id
        assert got[1] < max(values) - 1e-3, position_id  # cubeless play gives some away


def test_every_result_type_gives_records():
    import tavli_fast as tf

    r = tf.rollout("start", 200, players="pubeval", seed=1, jobs=1)
    (row,) = r.to_records()
    assert row["trials"] == 200 and row["equity"] == r.equity and row["se_equity"] == r.se["equity"]
    o = tf.openings(trials=100, players="pubeval", seed=1, jobs=1, rolls="31,21", chunk_size=100)
    rows = o.to_records()
    assert len(rows) == sum(len(roll.plays) for roll in o.rolls)
    assert {row["roll"] for row in rows} == {"31", "21"} and rows[0]["rank"] == 1
    m = tf.play_matches(3, 20, ("pubeval", "pubeval"), seed=1, jobs=1)
    (row,) = m.to_records()
    assert row["matches"] == 20
    s = tf.simulate("start", 50, seed=1)
    assert s.to_records()[0]["games"] == 50
    try:
        import pandas
    except ImportError:  # an optional dependency: without it the method says how to get it
        with pytest.raises(ImportError, match="pip install pandas"):
            o.to_dataframe()
    else:
        assert len(o.to_dataframe()) == len(rows)
