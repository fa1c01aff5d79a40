"""A play's ``position_id`` is one thing everywhere (issue 51): the position after the play,
the opponent on roll, as GNU Backgammon writes the position a play leads to. tavli-hint's
JSON, the candidate plays (tavli-rollout --dice --json, ``rollout_plays``), the opening
statistics and ``hint`` agree on it; the move generator (``legal_positions``,
``Position.plays``) gives the mover's side, sides not switched, and says so."""

from __future__ import annotations

import json

import pytest

import tavli_fast as tf
from tavli_fast.cli.evaluate import hint_main
from tavli_fast.cli.rollout import main as rollout_main

#: 3-1 played 8/5 6/5 from the start: gnubg's id of the position after it (the opponent on
#: roll), and the same board seen from the mover (sides not switched).
AFTER_8_5_6_5 = "sGfwATDgc/ABMA"
MOVERS_VIEW = "4HPwATCwZ/ABMA"
FAST = dict(players="pubeval", seed=1, jobs=1, chunk_size=36)


def _by_play(plays) -> dict[str, str]:
    return {p["play"]: p["position_id"] for p in plays}


def test_gnubg_writes_the_position_after_8_5_6_5_with_the_opponent_on_roll():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    board = gnubg_nn.board_from_position_id("4HPwATDgc/ABMA")
    play, key = gnubg_nn.best_move(board, 3, 1, b=1)
    assert play == ((8, 5), (6, 5))
    assert gnubg_nn.position_id([list(r) for r in gnubg_nn.board_from_position_key(key)]) == AFTER_8_5_6_5


def test_the_two_ids_are_the_same_board_seen_from_either_side():
    assert tf.Position.from_id(AFTER_8_5_6_5).sides_switched().position_id() == MOVERS_VIEW
    assert MOVERS_VIEW in tf.legal_positions("4HPwATDgc/ABMA", 3, 1)  # the generator: the mover's view


def test_tavli_hint_json_gives_the_position_after_the_play_opponent_on_roll(capsys):
    assert hint_main(["--position", "start", "--dice", "31", "--top", "0", "--json"]) == 0
    plays = _by_play(json.loads(capsys.readouterr().out)["plays"])
    assert plays["8/5 6/5"] == AFTER_8_5_6_5
    assert {p.play: p.position_id for p in tf.hint("start", 3, 1, top=0)} == plays


def test_candidate_plays_json_gives_the_same_ids_as_tavli_hint(capsys):
    assert rollout_main(["--dice", "31", "--plays", "8/5 6/5,24/23 13/10", "--players",
                         "pubeval,pubeval", "--trials", "36", "--chunk-size", "36", "--jobs", "1",
                         "--seed", "1", "--no-stop", "--json", "--no-progress"]) == 0
    plays = _by_play(json.loads(capsys.readouterr().out)["plays"])
    assert plays["8/5 6/5"] == AFTER_8_5_6_5
    hinted = {p.play: p.position_id for p in tf.hint("start", 3, 1, top=0)}
    assert plays == {k: hinted[k] for k in plays}
    r = tf.rollout_plays("start", "31", 36, plays="8/5 6/5", stop_when_decided=None, **FAST)
    assert r.plays[0].position_id == AFTER_8_5_6_5


def test_opening_statistics_give_the_same_ids_as_tavli_hint():
    r = tf.openings(36, rolls="31", screen=None, **FAST)
    ids = {p.play: p.position_id for p in r.rolls[0].plays}
    assert ids == {p.play: p.position_id for p in tf.hint("start", 3, 1, top=0)}
    assert ids["8/5 6/5"] == AFTER_8_5_6_5
