"""Runs with a weights file of one's own: ``rollout(weights=...)``, ``openings``, ``replies``
and the commands' ``--weights``."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from tavli_fast.game.position import Position
from tavli_fast.play import neural
from tavli_fast.play.neural import (
    NeuralNetError,
    choose_net,
    default_weights_path,
    net_of_choice,
    weights_file,
)
from tavli_fast.api import openings, replies
from tavli_fast.jobs.plays import make_plays_request
from tavli_fast.play.hint import hint
from tavli_fast.api import play_matches, read_checkpoint, resume_rollout, rollout

SHIPPED = default_weights_path()
OLDER = weights_file("neural-v4.npz")  # another net, an earlier one (in tavli_fast_nets)


def _neural(trials: int = 200, **kw):
    """A quick neural rollout: 0-ply, no variance reduction, chunks of 100."""
    return rollout("start", trials, players="neural", seed=11, chunk_size=100, vr=False, **kw)


def test_the_shipped_file_given_by_path_plays_as_the_default():
    default, given = _neural(jobs=1), _neural(jobs=1, weights=SHIPPED)
    assert given.totals == default.totals
    assert default.net.file is None and given.net.file == str(SHIPPED)
    assert given.net.sha256 == default.net.sha256 and given.net.version == default.net.version


def test_another_net_plays_other_games_and_the_same_ones_in_any_number_of_workers():
    default = _neural(jobs=1)
    one, two = _neural(jobs=1, weights=OLDER), _neural(jobs=2, weights=OLDER)
    assert one.totals == two.totals  # the workers loaded the same file
    assert one.totals != default.totals
    assert one.net.version == "v4" and one.to_dict()["net"]["file"] == str(OLDER)
    assert f"Net: v4 from {OLDER}" in str(one)


def test_a_resumed_rollout_keeps_its_weights_and_refuses_others(tmp_path):
    ck = tmp_path / "run.json"
    _neural(jobs=1, weights=OLDER, checkpoint=ck)
    assert read_checkpoint(ck)["request"]["weights"] == str(OLDER)
    resumed = resume_rollout(ck, trials=400, jobs=1)
    assert resumed.resumed_games == 200
    assert resumed.totals == _neural(400, jobs=1, weights=OLDER).totals
    with pytest.raises(ValueError):  # the shipped net cannot continue the v4 run
        _neural(400, jobs=1, resume=ck, checkpoint=tmp_path / "other.json")


def test_a_weights_file_that_changed_since_the_run_began_is_refused():
    choice = choose_net(OLDER)
    with pytest.raises(NeuralNetError, match="changed"):
        net_of_choice(dataclasses.replace(choice, sha256="0" * 64))


@pytest.mark.parametrize("kw, match", [
    ({"players": "pubeval", "vr": False, "weights": OLDER}, "uses none"),
    ({"players": "neural", "weights": "/nonexistent/net.npz"}, "no such weights file"),
    ({"players": "neural", "weights": __file__}, "not an .npz archive"),
    ({"players": "heuristic", "rules": "plakoto", "weights": OLDER}, "weights"),
])
def test_weights_that_cannot_serve_are_a_value_error(kw, match):
    with pytest.raises(ValueError, match=match):
        rollout("start", 100, seed=1, jobs=1, **kw)


def test_an_earlier_net_without_its_package_is_one_line_that_says_how_to_install_it(
        monkeypatch, capsys):
    from tavli_fast.cli.rollout import main

    monkeypatch.setattr(neural, "nets_folder", lambda: None)  # tavli_fast_nets not installed
    for call in (lambda: choose_net("neural-v4.npz"), lambda: neural.load_net("neural-v4.npz"),
                 lambda: rollout("start", 100, players="neural", seed=1, jobs=1,
                                 weights="neural-v4.npz")):
        with pytest.raises(NeuralNetError, match=r"neural-v4.npz: .*tavli_fast_nets.*"
                                                 r"pip install ./nets"):
            call()
    assert main(["--player", "neural", "--trials", "100", "-j", "1",
                 "--weights", "neural-v4.npz"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "tavli_fast_nets" in err[0] and "pip install ./nets" in err[0]
    # The default is in the package; a file of one's own that is missing is only missing.
    assert choose_net(neural.DEFAULT_WEIGHTS).version == "v17-320"
    with pytest.raises(NeuralNetError, match="mine.npz: no such weights file") as e:
        choose_net("mine.npz")
    assert "tavli_fast_nets" not in str(e.value)


def test_command_line_weights_and_the_net_in_the_json():
    p = subprocess.run([sys.executable, "-m", "tavli_fast", "--player", "neural", "--no-vr",
                        "--trials", "200", "--chunk-size", "100", "--seed", "11", "-j", "1",
                        "--json", "--weights", str(OLDER)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    api = _neural(jobs=1, weights=OLDER)
    assert doc["net"] == api.net.to_dict() and doc["net"]["version"] == "v4"
    assert doc["equity"] == api.equity and doc["win"] == api.win


def _openings(**kw):
    """A quick 0-ply neural run of one roll's plays, without variance reduction."""
    return openings(200, players="neural", seed=3, rolls="43", chunk_size=100, vr=False, **kw)


@pytest.mark.slow
def test_openings_with_a_weights_file_rank_by_that_net_in_any_number_of_workers():
    default, shipped = _openings(jobs=1), _openings(jobs=1, weights=SHIPPED)
    assert shipped.to_dict()["rolls"] == default.to_dict()["rolls"]
    one, two = _openings(jobs=1, weights=OLDER), _openings(jobs=2, weights=OLDER)
    assert one.to_dict()["rolls"] == two.to_dict()["rolls"] != default.to_dict()["rolls"]
    assert one.to_dict()["net"]["version"] == "v4" and default.to_dict()["net"]["file"] is None
    assert f"net: v4 from {OLDER}" in str(one)


def test_openings_checkpoint_keeps_the_weights(tmp_path):
    ck = tmp_path / "openings.json"
    first = _openings(jobs=1, weights=OLDER, checkpoint=ck)
    resumed = openings(resume=ck, jobs=1)
    assert resumed.net == first.net and resumed.to_dict()["rolls"] == first.to_dict()["rolls"]


def test_replies_use_the_weights_file_for_the_games_and_the_replies_shown():
    kw = dict(trials=100, players="neural", seed=3, chunk_size=100, vr=False, jobs=1)
    mine, shipped = replies("43", "24/20 13/10", weights=OLDER, **kw), replies("43", "24/20 13/10", **kw)
    assert mine.net.version == "v4" and shipped.net.file is None
    assert [r.value for r in mine.replies] != [r.value for r in shipped.replies]


def test_openings_refuse_weights_without_a_net():
    with pytest.raises(ValueError, match="uses none"):
        openings(100, players="pubeval", rolls="43", vr=False, weights=OLDER, jobs=1)
    with pytest.raises(ValueError, match="not a tavli_fast Plakoto / Fevga weights file"):
        openings(100, rules="plakoto", rolls="43", weights=OLDER, jobs=1)  # a backgammon net


def _matches(**kw):
    return play_matches(3, 40, players="neural", seed=5, chunk_size=20, **kw)


def test_matches_with_a_weights_file_in_any_number_of_workers_and_resumed(tmp_path):
    default = _matches(jobs=1)
    one, two = _matches(jobs=1, weights=OLDER), _matches(jobs=2, weights=OLDER)
    assert one.tallies == two.tallies != default.tallies
    assert one.to_dict()["net"]["version"] == "v4" and f"Net: v4 from {OLDER}" in str(one)
    ck = tmp_path / "matches.json"
    _matches(jobs=1, weights=OLDER, checkpoint=ck)
    p = subprocess.run([sys.executable, "-m", "tavli_fast.cli.match", "--resume", str(ck),
                        "--matches", "60", "-j", "1", "--json", "--no-progress"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["net"] == one.to_dict()["net"] and doc["resumed_matches"] == 40
    assert doc["win"] == list(play_matches(3, 60, players="neural", seed=5, chunk_size=20, jobs=1,
                                           weights=OLDER).win)


def test_matches_refuse_weights_without_a_neural_player():
    with pytest.raises(ValueError, match="uses none"):
        play_matches(3, 10, players="pubeval", seed=1, jobs=1, weights=OLDER)


@pytest.mark.parametrize("kind", neural.EVALUATORS)
def test_an_evaluator_of_a_weights_file_is_kept_by_no_memo(kind):
    # One per call would pile up in a server answering eval and hint requests with a file.
    memos = (neural.with_bearoff, neural.quantised)
    neural.evaluator(SHIPPED, kind=kind)
    before = [m.cache_info().currsize for m in memos]
    nets = [neural.evaluator(SHIPPED, kind=kind) for _ in range(3)]
    assert [m.cache_info().currsize for m in memos] == before
    assert all(n.quantised == (kind == "int16") and n.bearoff is not None for n in nets)
    default = neural.evaluator(kind=kind)
    assert neural.evaluator(kind=kind) is default         # the shipped net's is memoised
    board = Position.initial().board
    assert (nets[0].evaluate(board) == default.evaluate(board)).all()


def test_a_weights_files_candidates_are_screened_with_the_bearoff_databases():
    # Both sides bearing off: the hint values these plays by the databases, not the race net.
    bearing_off = Position.parse("x 6:3 5:3 4:3 3:2 2:2 1:2; o 6:3 5:3 4:3 3:2 2:2 1:2")
    default = make_plays_request(bearing_off, "61").candidates
    given = make_plays_request(bearing_off, "61", weights=SHIPPED).candidates
    assert len(default) >= 2
    assert [(c.play, c.screen_equity) for c in given] == [
        (c.play, c.screen_equity) for c in default]
    race_net = neural.net_of_choice(choose_net(SHIPPED, True))
    by_race_net = hint(bearing_off, 6, 1, net=race_net)
    assert [r.equity_1ply for r in by_race_net[:len(default)]] != [
        c.screen_equity for c in default]
