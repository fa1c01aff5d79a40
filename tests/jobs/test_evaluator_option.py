"""The int16 evaluator as a setting of every run and command that uses the net:
``evaluator="int16"`` in ``rollout``, ``rollout_plays``, ``openings``, ``replies`` and
``play_matches``, ``--evaluator {float32,int16}`` in tavli-rollout, tavli-openings,
tavli-match, tavli-hint and tavli-eval, and ``evaluator`` in tavli-serve's bodies.

Its numbers are the ones the core gives with the net turned int16 by hand
(``NeuralNet.as_quantised``), close to the float32 ones but not equal; a seed gives the same
numbers again, with one worker or two; checkpoints keep it, a resume goes on with it and
refuses another; checkpoints of float32 runs carry no such key and resume as before; the
Plakoto and Fevga nets, which have no int16 evaluator, refuse it. A run that names no
evaluator takes the default one (``neural.default_evaluator``: int16 where its kernels have
AVX2, float32 elsewhere), so the float32 runs here name theirs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.api import play_match_record
from tavli_fast.cli.evaluate import eval_main, hint_main
from tavli_fast.cli.match import main as match_main
from tavli_fast.cli.openings import main as openings_main
from tavli_fast.cli.rollout import main as rollout_main
from tavli_fast.jobs import openings as openings_jobs
from tavli_fast.jobs import plays as plays_jobs
from tavli_fast.jobs.match import read_match_checkpoint
from tavli_fast.jobs.openings import make_openings_request
from tavli_fast.jobs.plays import make_plays_request
from tavli_fast.jobs import rollout as rollout_jobs
from tavli_fast.jobs.rollout_request import make_request
from tavli_fast.play.hint import hint
from tavli_fast.play.neural import EVALUATORS, default_evaluator, default_net
from tavli_fast.play.reports import eval_report

from helpers import pos

# A short race with contact left at the back: short games, several plays a roll.
RACE_POSITION = pos("x 6:4 5:3 4:3 3:2 1:2 23:1; o 6:4 5:3 4:3 3:2 1:2 23:1")
RACE = RACE_POSITION.position_id()
NEURAL = int(_core.PlayerKind.PLAYER_NEURAL)


def rollout(trials: int = 96, **kw):
    kw = {"players": "neural", "seed": 5, "jobs": 1, **kw}
    return tf.rollout(RACE, trials, **kw)


def figures(result) -> tuple:
    """A rollout's numbers: the plain figures, and the luck-adjusted ones when there are."""
    doc = result.to_dict()
    return (doc["counts"], result.equity, result.se["equity"],
            None if doc.get("vr") is None else doc["vr"]["equity"])


def lucky_equity(result) -> float:
    return result.to_dict()["vr"]["equity"]


def int16_noted(notes) -> bool:
    return any("int16" in note and "1e-3" in note for note in notes)


# ------------------------------------------------------------------------ rollouts

def test_an_int16_rollout_plays_the_games_the_core_plays_with_the_int16_net():
    # A plain run (no stratification, truncation or databases) is one call of the core in one
    # chunk: the core's counts with the net made int16 here, by the chunk's own seed
    # (SeedSequence(master seed, spawn_key=(chunk,))), are the run's.
    plain = dict(vr=False, stratify=False, truncate=False, bearoff=False, chunk_size=200)
    int16 = rollout(200, evaluator="int16", **plain)
    float32 = rollout(200, evaluator="float32", **plain)
    seed = int(np.random.SeedSequence(5, spawn_key=(0,)).generate_state(1, np.uint64)[0])
    board = np.ascontiguousarray(RACE_POSITION.board, dtype=np.int8)
    outcomes = ("win_single", "win_gammon", "win_backgammon", "lose_single", "lose_gammon",
                "lose_backgammon")
    for result, net in ((int16, default_net(bearoff=False).as_quantised()),
                        (float32, default_net(bearoff=False))):
        counts = _core.run_games(board.copy(), 200, NEURAL, NEURAL, seed, False, True, None,
                                 bearoff_play=False, truncate=False, net=net)[0]
        assert [result.to_dict()["counts"][k] for k in outcomes] == [int(c) for c in counts[:6]]
    assert int16.to_dict()["counts"] != float32.to_dict()["counts"]


def test_an_int16_rollout_differs_from_float32_but_is_close_and_says_so():
    int16, float32 = rollout(evaluator="int16"), rollout(evaluator="float32")
    assert figures(int16) != figures(float32)
    assert abs(lucky_equity(int16) - lucky_equity(float32)) < 0.05
    assert int16_noted(int16.notes) and not int16_noted(float32.notes)
    assert int16.net.evaluator == "int16" and "int16" in int16.net.describe()
    # None: the default evaluator, int16 where its kernels have AVX2 (float32 without)
    assert figures(rollout()) == figures(int16 if default_evaluator() == "int16" else float32)


def test_the_same_seed_gives_the_same_int16_numbers_again_and_with_two_workers():
    once = figures(rollout(evaluator="int16", chunk_size=48))
    assert figures(rollout(evaluator="int16", chunk_size=48)) == once
    assert figures(rollout(evaluator="int16", chunk_size=48, jobs=2)) == once


def test_the_checkpoint_keeps_int16_and_a_resume_goes_on_with_it_or_refuses_another(tmp_path):
    checkpoint = tmp_path / "c.json"
    straight = rollout(evaluator="int16", chunk_size=48)
    rollout(48, evaluator="int16", chunk_size=48, checkpoint=checkpoint)
    assert checkpoint_evaluators(rollout_jobs, checkpoint) == ("int16", "int16")
    assert figures(rollout(chunk_size=48, resume=checkpoint)) == figures(straight)  # none: kept
    assert figures(rollout(evaluator="int16", chunk_size=48, resume=checkpoint)) == figures(straight)
    assert figures(tf.resume_rollout(checkpoint, trials=96, jobs=1)) == figures(straight)
    with pytest.raises(ValueError, match="int16 evaluator, not float32"):
        rollout(evaluator="float32", chunk_size=48, resume=checkpoint)
    with pytest.raises(ValueError, match="evaluator"):
        rollout_jobs.request_from_checkpoint(rollout_jobs.read_checkpoint(checkpoint),
                                             evaluator="float32")


def checkpoint_evaluators(jobs, checkpoint) -> tuple[str, str]:
    """(the checkpoint request's "evaluator" key, "absent" when it has none; the evaluator a
    resume of it runs with), for a job module's checkpoints (rollout, plays, openings)."""
    doc = jobs.read_checkpoint(checkpoint)
    return doc["request"].get("evaluator", "absent"), jobs.request_from_checkpoint(doc).net.evaluator


def test_a_float32_checkpoint_has_no_evaluator_key_and_resumes_as_before(tmp_path):
    checkpoint = tmp_path / "c.json"
    straight = rollout(chunk_size=48, evaluator="float32")
    rollout(48, chunk_size=48, checkpoint=checkpoint, evaluator="float32")
    # No "evaluator" key, as checkpoints were before int16.
    assert checkpoint_evaluators(rollout_jobs, checkpoint) == ("absent", "float32")
    assert figures(rollout(chunk_size=48, resume=checkpoint)) == figures(straight)
    assert figures(tf.resume_rollout(checkpoint, trials=96, jobs=1)) == figures(straight)
    with pytest.raises(ValueError, match="float32 evaluator, not int16"):
        rollout(evaluator="int16", chunk_size=48, resume=checkpoint)
    # Nor may an int16 run take a float32 run's checkpoint file over as its own.
    with pytest.raises(ValueError, match="evaluator"):
        rollout(evaluator="int16", chunk_size=48, checkpoint=checkpoint)


def test_bad_or_useless_evaluators_are_refused():
    with pytest.raises(ValueError, match="evaluator must be one of float32, int16"):
        make_request(RACE, 10, players="neural", evaluator="int8")
    with pytest.raises(ValueError, match="int16 evaluator is for the net"):
        make_request(RACE, 10, players="pubeval", evaluator="int16")     # no net in the run
    for game in ("plakoto", "fevga"):
        with pytest.raises(ValueError, match=f"backgammon / Portes net, not {game}"):
            make_request("start", 10, players="neural", game=game, evaluator="int16")
        with pytest.raises(ValueError, match=f"not {game}"):
            tf.openings(36, "neural", rules=game, evaluator="int16", jobs=1)
        with pytest.raises(ValueError, match=f"not {game}"):
            eval_report("start", game=game, evaluator="int16")
    # float32 asked of a variant is just its one evaluator.
    assert make_request("start", 10, players="neural", game="plakoto",
                        evaluator="float32").net.evaluator == "float32"


def test_the_default_evaluator_is_int16_with_avx2_and_float32_without():
    # A process kept to the int16 evaluator's lane-by-lane instance (TAVLI_FAST_SIMD=baseline,
    # as on a processor without AVX2), where int16 would be the slower one, takes float32.
    code = ("from tavli_fast.play.reports import eval_report; "
            "print(eval_report('start')['evaluator'])")
    env = {**os.environ, "TAVLI_FAST_SIMD": "baseline"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "float32"
    assert eval_report("start")["evaluator"] == (
        "float32" if _core.INT16_KERNELS == "baseline" else "int16")
    assert make_request(RACE, 10, players="neural").net.evaluator == default_evaluator()


# ------------------------------------------------------------------------ candidate plays

def plays(**kw):
    kw = {"seed": 5, "jobs": 1, "chunk_size": 72, **kw}
    return tf.rollout_plays("start", "31", 144, **kw)


def play_figures(result) -> list:
    return [(p["play"], p["equity"], p["se"], p["trials"]) for p in result.to_dict()["plays"]]


def test_candidate_plays_are_screened_and_rolled_out_by_the_int16_net():
    int16, float32 = plays(evaluator="int16"), plays(evaluator="float32")
    assert play_figures(int16) != play_figures(float32)
    for a, b in zip(play_figures(int16), play_figures(float32)):
        assert a[0] == b[0] and abs(a[1] - b[1]) < 0.05
    assert int16_noted(int16.notes) and not int16_noted(float32.notes)
    assert play_figures(plays(evaluator="int16", jobs=2)) == play_figures(int16)
    # The screening's 1-ply equities are those of the shipped net made int16 by hand.
    by_hand = {r.play: r.equity_1ply for r in hint("start", 3, 1, net=default_net().as_quantised())}
    reference = {r.play: r.equity_1ply for r in hint("start", 3, 1, net=default_net())}
    screened = make_plays_request("start", "31", evaluator="int16").candidates
    assert [c.screen_equity for c in screened] == [by_hand[c.play] for c in screened]
    assert [c.screen_equity for c in screened] != [reference[c.play] for c in screened]


def test_a_candidate_play_checkpoint_keeps_int16(tmp_path):
    checkpoint, old = tmp_path / "c.json", tmp_path / "old.json"
    done = plays(evaluator="int16", checkpoint=checkpoint)
    assert checkpoint_evaluators(plays_jobs, checkpoint) == ("int16", "int16")
    assert play_figures(plays(resume=checkpoint)) == play_figures(done)
    with pytest.raises(ValueError, match="int16 evaluator, not float32"):
        plays(resume=checkpoint, evaluator="float32")
    plays(checkpoint=old, evaluator="float32")
    assert checkpoint_evaluators(plays_jobs, old) == ("absent", "float32")
    with pytest.raises(ValueError, match="float32 evaluator, not int16"):
        plays(resume=old, evaluator="int16")


# ------------------------------------------------------------------------ openings, replies

def openings(**kw):
    kw = {"players": "neural", "seed": 5, "jobs": 1, "rolls": "31", "chunk_size": 36,
          "vr": False, **kw}
    return tf.openings(36, **kw)


def opening_figures(result) -> str:
    doc = result.to_dict()
    return json.dumps([doc[k] for k in doc if k not in ("elapsed_s", "jobs", "notes", "checkpoint")])


def test_openings_take_int16_keep_it_in_the_checkpoint_and_refuse_another_on_resume(tmp_path):
    checkpoint = tmp_path / "o.json"
    int16 = openings(evaluator="int16", checkpoint=checkpoint)
    assert opening_figures(int16) != opening_figures(openings(evaluator="float32"))
    assert int16_noted(int16.notes)
    assert checkpoint_evaluators(openings_jobs, checkpoint) == ("int16", "int16")
    assert opening_figures(openings(resume=checkpoint)) == opening_figures(int16)
    with pytest.raises(ValueError, match="int16 evaluator, not float32"):
        openings(resume=checkpoint, evaluator="float32")
    assert "evaluator" not in make_openings_request(36, "neural", rolls="31",
                                                    evaluator="float32").to_checkpoint()


def test_replies_take_int16_and_say_so():
    kw = dict(players="neural", seed=5, jobs=1, chunk_size=36, vr=False)
    int16 = tf.replies("31", "8/5 6/5", 36, evaluator="int16", **kw)
    float32 = tf.replies("31", "8/5 6/5", 36, evaluator="float32", **kw)
    assert int16.to_dict()["equity"] != float32.to_dict()["equity"]
    assert int16_noted(int16.notes) and int16_noted(str(int16).splitlines())
    assert not int16_noted(float32.notes)


# ------------------------------------------------------------------------ matches

def matches(**kw):
    kw = {"seed": 5, "jobs": 1, "chunk_size": 3, "players": "neural", **kw}
    return tf.play_matches(1, 6, **kw)


def test_matches_take_int16_keep_it_in_the_checkpoint_and_refuse_another_on_resume(tmp_path):
    checkpoint, old = tmp_path / "m.json", tmp_path / "old.json"
    int16 = matches(evaluator="int16", checkpoint=checkpoint)
    assert int16_noted(int16.notes) and int16.request.net.evaluator == "int16"
    assert read_match_checkpoint(checkpoint)["request"]["evaluator"] == "int16"
    resumed = matches(resume=checkpoint)
    assert resumed.request.net.evaluator == "int16" and resumed.tallies == int16.tallies
    with pytest.raises(ValueError, match="int16 evaluator, not float32"):
        matches(resume=checkpoint, evaluator="float32")
    matches(checkpoint=old, evaluator="float32")
    assert "evaluator" not in read_match_checkpoint(old)["request"]
    assert matches(resume=old).request.net.evaluator == "float32"
    with pytest.raises(ValueError, match="float32 evaluator, not int16"):
        matches(resume=old, evaluator="int16")
    # A recorded match too (its options are play_matches'): the int16 net plays other moves.
    assert (play_match_record(3, seed=5, evaluator="int16")
            != play_match_record(3, seed=5, evaluator="float32"))


# ------------------------------------------------------------------------ commands

def command(main, argv) -> int:
    """A command's exit status (argparse's own refusals exit)."""
    try:
        return main(argv)
    except SystemExit as e:
        return int(e.code)


SMALL = {
    "tavli-rollout": (rollout_main, ["--position", RACE, "--trials", "36", "--seed", "5",
                                     "-j", "1", "--no-progress", "--json"]),
    "tavli-rollout --dice": (rollout_main, ["--dice", "31", "--trials", "36", "--seed", "5",
                                            "-j", "1", "--no-progress", "--json"]),
    "tavli-openings": (openings_main, ["--rolls", "31", "--trials", "36", "--chunk-size", "36",
                                       "--player", "neural", "--no-vr", "--seed", "5", "-j", "1",
                                       "--no-progress", "--json"]),
    "tavli-match": (match_main, ["--length", "1", "--matches", "2", "--seed", "5", "-j", "1",
                                 "--no-progress", "--json"]),
    "tavli-hint --rollout": (hint_main, ["--position", "start", "--dice", "31", "--rollout", "36",
                                         "--seed", "5", "-j", "1", "--no-progress", "--json"]),
}


@pytest.mark.parametrize("name", list(SMALL))
def test_each_run_command_takes_evaluator_int16_and_notes_it(name, capsys):
    main, argv = SMALL[name]
    assert command(main, [*argv, "--evaluator", "int16"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert int16_noted(doc["notes"])
    assert (doc.get("net") or doc["request"]["net"])["evaluator"] == "int16"


def test_tavli_eval_and_tavli_hint_value_by_the_int16_net(capsys):
    assert command(eval_main, ["--position", RACE, "--json", "--evaluator", "int16"]) == 0
    doc = json.loads(capsys.readouterr().out)
    by_hand = default_net().as_quantised().evaluate(RACE_POSITION.board)
    assert [doc[k] for k in ("win", "win_gammon", "win_backgammon", "lose_gammon",
                             "lose_backgammon")] == pytest.approx(list(map(float, by_hand)), abs=0)
    assert doc["win"] != pytest.approx(float(default_net().evaluate(RACE_POSITION.board)[0]), abs=0)
    assert command(hint_main, ["--position", "start", "--dice", "31", "--json",
                               "--evaluator", "int16"]) == 0
    doc = json.loads(capsys.readouterr().out)
    ranked = hint("start", 3, 1, net=default_net().as_quantised())
    assert [(p["play"], p["equity_1ply"]) for p in doc["plays"]] == [
        (r.play, r.equity_1ply) for r in ranked]


@pytest.mark.parametrize("main, argv", [
    (eval_main, []),
    (hint_main, []),                                # the cube decision before the roll
    (hint_main, ["--dice", "31"]),                  # the plays of a roll
], ids=["eval", "hint-cube", "hint-plays"])
def test_tavli_eval_and_tavli_hint_name_their_evaluator(main, argv, capsys):
    for kind in EVALUATORS:
        assert command(main, ["--position", "start", *argv, "--json", "--evaluator", kind]) == 0
        assert json.loads(capsys.readouterr().out)["evaluator"] == kind
        assert command(main, ["--position", "start", *argv, "--evaluator", kind]) == 0
        heading = capsys.readouterr().out.splitlines()[0]
        assert ("int16 evaluator" in heading) == (kind == "int16"), heading


ALL = {**SMALL, "tavli-eval": (eval_main, ["--position", "start"]),
       "tavli-hint": (hint_main, ["--position", "start", "--dice", "31"])}


@pytest.mark.parametrize("name", list(ALL))
def test_a_bad_evaluator_is_one_line_and_exit_status_2(name, capsys):
    main, argv = ALL[name]
    assert command(main, [*argv, "--evaluator", "int8"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "--evaluator" in err and "int8" in err
    assert captured.out == ""


@pytest.mark.parametrize("main, argv", [
    (rollout_main, ["--game", "plakoto", "--trials", "10", "-j", "1", "--no-progress"]),
    (openings_main, ["--game", "plakoto", "--trials", "36", "-j", "1", "--no-progress"]),
    (eval_main, ["--game", "plakoto", "--position", "start"]),
    (hint_main, ["--game", "fevga", "--position", "start", "--dice", "31"]),
])
def test_the_variants_refuse_int16_in_one_line(main, argv, capsys):
    assert command(main, [*argv, "--evaluator", "int16"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "int16" in err and "Portes" in err


def test_a_resumed_command_goes_on_with_the_saved_evaluator(tmp_path, capsys):
    checkpoint = tmp_path / "c.json"
    base = ["--position", RACE, "--player", "neural", "--seed", "5", "-j", "1",
            "--no-progress", "--json", "--chunk-size", "36"]
    assert command(rollout_main, [*base, "--trials", "72", "--evaluator", "int16"]) == 0
    straight = json.loads(capsys.readouterr().out)
    assert command(rollout_main, [*base, "--trials", "36", "--evaluator", "int16",
                                  "--checkpoint", str(checkpoint)]) == 0
    capsys.readouterr()
    assert command(rollout_main, ["--resume", str(checkpoint), "--trials", "72", "-j", "1",
                                  "--no-progress", "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["net"]["evaluator"] == "int16" and resumed["vr"] == straight["vr"]
    assert command(rollout_main, ["--resume", str(checkpoint), "--evaluator", "float32",
                                  "-j", "1", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "int16 evaluator, not float32" in err
    assert command(openings_main, ["--resume", str(tmp_path / "o.json"),
                                   "--evaluator", "int16"]) == 2     # settings are the saved ones


# ------------------------------------------------------------------------ tavli-serve

def test_the_served_eval_and_hint_take_an_evaluator():
    pytest.importorskip("fastapi", reason="the [serve] extra is not installed")
    from fastapi.testclient import TestClient
    from tavli_fast.serve.app import ServeConfig, create_app

    with TestClient(create_app(ServeConfig(jobs=1))) as client:
        doc = client.post("/v1/eval", json={"position": RACE, "evaluator": "int16"}).json()
        assert doc["win"] == float(default_net().as_quantised().evaluate(RACE_POSITION.board)[0])
        doc = client.post("/v1/hint", json={"position": "start", "dice": "31", "ply": 0,
                                            "evaluator": "int16"}).json()
        ranked = hint("start", 3, 1, net=default_net().as_quantised(), ply=0)
        assert [p["equity_0ply"] for p in doc["plays"]] == [r.equity_0ply for r in ranked]
        r = client.post("/v1/eval", json={"position": RACE, "evaluator": "int8"})
        assert r.status_code == 400 and "evaluator" in r.json()["error"]
