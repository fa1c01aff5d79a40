"""Rollout settings: variance reduction (luck adjustment), --ply, the 1-ply move
filter and truncation after N plies.

The statistical checks that variance reduction does not move the expectation are in
test_vr_statistics.py; here, its settings, reports, checkpoints and reproducibility.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.play.neural import default_net, evaluator
from tavli_fast.api import rollout
from tavli_fast.play.players import player_id
from tavli_fast.game.position import Position
from helpers import varied_positions
from tavli_fast.jobs.rollout import (
    DEFAULT_MOVE_FILTER,
    ChunkResult,
    make_request,
    request_from_checkpoint,
)


def test_vr_is_on_by_default_for_the_neural_players_only():
    assert make_request("start", 10, players="neural").vr
    assert not make_request("start", 10, players="pubeval").vr
    assert not make_request("start", 10, players="neural", vr=False).vr
    assert not make_request("cNvmAAC2rUIAAA:cAkAAAAAAAAA", 10, players="neural", cubeful=True).vr


def test_vr_report_names_the_luck_adjusted_figures():
    r = rollout("start", 40, players="neural", seed=1, jobs=1, truncate_plies=6)
    doc = json.loads(r.to_json())
    assert set(doc["vr"]) == {"win", "win_gammon", "win_backgammon", "lose_gammon",
                              "lose_backgammon", "equity", "se"}
    assert doc["vr"]["se"]["equity"] > 0
    assert "Luck-adjusted" in str(r)
    plain = rollout("start", 40, players="pubeval", seed=1, jobs=1)
    assert plain.vr is None and "vr" not in plain.to_dict()


def test_same_seed_gives_the_same_luck_adjusted_numbers():
    a = rollout("start", 30, players="neural", seed=4, jobs=1, truncate_plies=8)
    b = rollout("start", 30, players="neural", seed=4, jobs=1, truncate_plies=8)
    assert a.vr == b.vr


def test_chunk_results_with_luck_sums_round_trip():
    plain = 10 + 12
    for extra in (0, 10, 12, 22):
        values = [4, 1, 1, 0, 1, 1, 0, 200, 10000, 0] + [0.5] * (plain - 10 + extra)
        r = ChunkResult.from_list(0, values)
        assert r.to_list() == values
        assert (r.vr is not None) == (extra in (12, 22))
        assert (r.cube is not None) == (extra in (10, 22))
    with pytest.raises(ValueError):
        ChunkResult.from_list(0, [4, 1, 1, 0, 1, 1, 0, 200, 10000, 0] + [0.5] * 13)


def test_checkpoint_from_before_vr_resumes_without_vr():
    """A checkpoint written before these settings has no 'vr', 'truncate_plies' or
    'move_filter': it must be read back as the rollout it was (plain, played out)."""
    req = make_request("start", 100, players="neural", seed=1, vr=False)
    doc = {"request": req.to_dict()}
    assert "vr" not in doc["request"] and "move_filter" not in doc["request"]
    again = request_from_checkpoint(doc)
    assert again.identity() == req.identity()
    assert not again.vr and again.truncate_plies == 0 and again.move_filter == DEFAULT_MOVE_FILTER


def test_ply_maps_the_neural_players_per_side():
    assert make_request("start", 10, players="neural", ply=1).players == ("neural-1ply", "neural-1ply")
    assert make_request("start", 10, players="neural", ply=(1, 0)).players == ("neural-1ply", "neural")
    assert make_request("start", 10, players="neural-1ply", ply=0).players == ("neural", "neural")
    assert make_request("start", 10, players="pubeval,neural", ply=(0, 1)).players == (
        "pubeval", "neural-1ply")
    assert make_request("start", 10, players="neural", ply=(2, 1)).players == ("neural-2ply", "neural-1ply")
    for bad in (3, -1, (1, 1, 1), True):
        with pytest.raises(ValueError, match="ply"):
            make_request("start", 10, players="neural", ply=bad)
    with pytest.raises(ValueError, match="pubeval"):
        make_request("start", 10, players="pubeval", ply=1)


def test_move_filter_is_checked_and_kept_in_the_identity_only_when_changed():
    assert "move_filter" not in make_request("start", 10, players="neural").identity()
    req = make_request("start", 10, players="neural-1ply", move_filter=(3, 0.08))
    assert req.identity()["move_filter"] == [3, 0.08]
    for bad in ((0, 0.1), (17, 0.1), (5, -0.1), (5, float("nan")), 5, "x"):
        with pytest.raises(ValueError, match="filter"):
            make_request("start", 10, players="neural-1ply", move_filter=bad)


def test_a_one_candidate_filter_makes_the_1ply_player_play_as_0ply():
    """With one candidate nothing is looked at deeper: the 1-ply player's play is the
    0-ply player's, on every roll of a few positions."""
    net = default_net()
    for p in varied_positions(5, seed=13):
        board = np.ascontiguousarray(p.board, dtype=np.int8)
        for d1, d2 in ((3, 1), (6, 5), (4, 4), (2, 1)):
            zero = _core.choose(board, d1, d2, player_id("neural"), 0, net=net)
            one = _core.choose(board, d1, d2, player_id("neural-1ply"), 0, net=net,
                               filter_candidates=1)
            assert np.array_equal(zero, one)


def test_truncate_plies_counts_the_nets_estimate_where_it_stops():
    """Cut after 1 ply from a position with dice given: every game plays that roll, then
    counts the net's probabilities of the position reached, seen by the first player."""
    p = Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    r = rollout(p, 20, players="neural", seed=1, jobs=1, truncate_plies=1, vr=False)
    after = Position.from_id(tf.choose(p.position_id(), 3, 1, "neural")).sides_switched()
    q = evaluator().evaluate(np.ascontiguousarray(after.board, dtype=np.int8))
    # The opponent is on roll there: his win is our loss, his gammons our lost gammons.
    assert r.truncated == 20 and r.mean_plies == 1
    assert r.win == pytest.approx(1 - q[0], abs=1e-12)
    assert r.lose_gammon == pytest.approx(q[1], abs=1e-12)
    assert r.se["equity"] == pytest.approx(0, abs=1e-9)
    assert any("biased" in n for n in r.notes)


def test_truncate_plies_is_refused_with_the_cube_and_checked():
    with pytest.raises(ValueError, match="cubeful"):
        make_request("cNvmAAC2rUIAAA:cAkAAAAAAAAA", 10, players="neural", cubeful=True,
                     truncate_plies=10)
    with pytest.raises(ValueError):
        make_request("start", 10, players="neural", truncate_plies=-3)
