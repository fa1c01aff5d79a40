"""The readable form of Plakoto / Fevga positions, and tavli-eval / tavli-hint --game (issue 44)."""

from __future__ import annotations

import json

import pytest

from tavli_fast.cli.evaluate import eval_main, hint_main
from tavli_fast.errors import InvalidPositionError
from tavli_fast.variants.games import random_game_positions
from tavli_fast.variants.position import PlakotoPosition, variant_position
from tavli_fast.variants.text import parse_variant_text, variant_text
from tavli_fast.variants.movegen import variant_play_notation


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_the_readable_form_reads_back_every_position(game):
    for position in random_game_positions(game, 3, seed=5)[::9]:
        text = variant_text(position)
        assert parse_variant_text(game, text) == position
        assert variant_position(game, text) == position


def test_p2_a_star_marks_the_pinned_checker_and_unlisted_checkers_are_off():
    position = variant_position("plakoto", "x 24:13 13:1; o 24:14 12:1*")
    assert position == PlakotoPosition(
        (0,) * 12 + (1,) + (0,) * 10 + (13,), (0,) * 11 + (1,) + (0,) * 11 + (14,), 1, 0, (), (12,))
    assert position.me_off == 1 and position.opp_pinned == {12}


@pytest.mark.parametrize("text, message", [
    ("x 24:15", "both sides"),
    ("x 24:15; o 25:15", "point 1-24"),
    ("x 24:10 24:5; o 24:15", "given twice"),
    ("x 24:16; o 24:15", "at most 15"),
    ("x 12:1 24:14; o 24:15", "both sides"),   # F3: my 12 is his 24 in Fevga
])
def test_bad_readable_positions_say_what_is_wrong(text, message):
    with pytest.raises(InvalidPositionError, match=message):
        variant_position("fevga", text)


def test_tavli_eval_and_hint_take_a_variant_position(capsys):
    assert eval_main(["--game", "fevga", "--position", "x 24:14 20:1; o 24:15", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["position"] == "x 24:14 20:1; o 24:15"
    assert 0 < report["win"] < 1 and report["win_mother"] == pytest.approx(0, abs=0.05)
    start = "x 24:13 13:2; o 24:15"
    assert hint_main(["--game", "plakoto", "--position", start, "--dice", "64", "--top", "3",
                      "--json"]) == 0
    plays = json.loads(capsys.readouterr().out)["plays"]
    assert sorted(p["play"] for p in plays) == sorted(
        p.notation for p in variant_play_notation("plakoto", start, 6, 4))
    ones = [p["equity_1ply"] for p in plays[:3]]
    assert None not in ones and ones == sorted(ones, reverse=True)
    assert all(p["equity_1ply"] is None for p in plays[3:])
    assert hint_main(["--game", "plakoto", "--position", "start"]) == 2
    assert "--dice is needed" in capsys.readouterr().err
