"""Plakoto and Fevga records (``; [Variation "Plakoto"]``, a tavli_fast extension of .mat):
replayed with those games' generators (P1-P7, F1-F7) and analysed with their nets.

Fixtures plakoto-3pt.mat and fevga-3pt.mat: 3-point matches our engine played (the shipped
nets' best 0-ply plays with a random play now and then, seeded dice), written by format_mat.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from oracles.variants import fevga_plays, plakoto_plays

from tavli_fast.analysis.report import analyse_match
from tavli_fast.matchfile.mat import format_mat, parse_mat, read_mat
from tavli_fast.matchfile.model import MatchFileError
from tavli_fast.matchfile.variant_replay import replay_variant_match

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"
ORACLE = {"plakoto": plakoto_plays, "fevga": fevga_plays}


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_p1_f1_every_move_is_legal_by_the_slow_reference_generator(game):
    record = read_mat(DATA / f"{game}-3pt.mat")
    assert record.game == game and record.length == 3
    replayed = replay_variant_match(record)
    for g in replayed:
        for a in g.actions:
            results = ORACLE[game](a.before.reference_board(), *a.action.dice)
            assert a.after.reference_board() in results
    assert max(record.final_score) >= 3


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_checker_decisions_are_the_rolls_with_more_than_one_result(game):
    analysis = analyse_match(DATA / f"{game}-3pt.mat")
    expected = [0, 0]
    for g in analysis.games:
        for a in g.actions:
            if len(ORACLE[game](a.before.reference_board(), *a.action.dice)) > 1:
                expected[a.action.player] += 1
    players = analysis.players()
    assert [p.checker_decisions for p in players] == expected
    assert all(p.cube_decisions == 0 for p in players)
    for d in analysis.decisions:
        assert d.kind == "checker" and d.mwc_error is None
        assert d.error == pytest.approx(max(0.0, d.equity_best - d.equity_played), abs=1e-12)


def test_the_variation_header_is_written_and_read_back():
    record = read_mat(DATA / "plakoto-3pt.mat")
    text = format_mat(record)
    assert '; [Variation "Plakoto"]' in text
    again = parse_mat(text)
    assert again.game == "plakoto" and again.games == parse_mat(text).games


def test_one_ply_variant_analysis_runs():
    a = analyse_match(DATA / "fevga-3pt.mat", ply=1)
    assert a.ply == 1 and a.decisions


@pytest.mark.parametrize("change, words", [
    (("  1) 43: 24/20 24/21", "  1) 43: 24/20 24/19"), "illegal move 43"),
    (("  2) 22: 24/22 24/22 24/22 22/20", "  2)  Doubles => 2"), "without the cube"),
    (("; [Variation \"Plakoto\"]", "; [Variation \"Tapa\"]"), "unknown game 'Tapa'"),
])
def test_bad_variant_files_are_refused(change, words):
    text = (DATA / "plakoto-3pt.mat").read_text(encoding="utf-8").replace(*change, 1)
    with pytest.raises(MatchFileError, match=words):
        replay_variant_match(parse_mat(text, source="p.mat"))
