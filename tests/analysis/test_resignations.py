"""Resignations judged: the resigner's cubeful equity against the value he gave up.

Fixtures: gnubg-7pt.mat (gnubg resigned three lost games: right), and a money session
written here in which Bob resigns a single after two rolls of the opening (very bad)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tavli_fast.analysis.report import analyse_match
from tavli_fast.analysis.thresholds import VERY_BAD
from tavli_fast.play.reports import eval_report

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"

EARLY = """ 0 point match

 Game 1
 Ann : 0                      Bob : 0
  1) 31: 8/5 6/5                 61: 13/7 8/7
  2) 42: 8/4 6/4                  Resigns
      Wins 1 point
"""


def test_resigning_a_single_early_in_the_game_is_very_bad():
    a = analyse_match(EARLY)
    (r,) = a.to_dict()["resignations"]
    assert (r["game"], r["player"], r["points"], r["value"]) == (1, "Bob", 1, 1)
    # Bob on roll: his cubeful equity is tavli-eval's, and he gave up -1 for it.
    assert r["equity"] == pytest.approx(eval_report(r["position_id"])["cubeful_equity"], abs=1e-9)
    assert -0.6 < r["equity"] < 0.2
    assert r["error"] == pytest.approx(r["equity"] + 1, abs=1e-9) and r["error"] >= VERY_BAD
    assert r["mark"] == "very bad" and r["accept_error"] == 0 and r["accept_mark"] == ""
    assert a.to_dict()["match"]["games"][0]["resignation"]["error"] == r["error"]
    assert "resigning cost Bob" in str(a)


def test_gnubgs_resignations_of_lost_games_are_right():
    a = analyse_match(DATA / "gnubg-7pt.mat")
    judged = a.to_dict()["resignations"]
    assert [r["game"] for r in judged] == [g.record.number for g in a.games if g.ending == "resign"]
    assert len(judged) == 3
    for r in judged:
        assert r["error"] < 0.01 and r["accept_error"] < 0.01 and not r["mark"]
        assert r["mwc"] is not None and r["mwc"] == pytest.approx(r["mwc_resigned"], abs=0.01)
    games = {g["game"]: g for g in a.to_dict()["match"]["games"]}
    assert all(games[n]["resignation"] is None for n in games if n not in {3, 5, 8})


def test_a_game_ended_otherwise_has_no_resignation():
    a = analyse_match(DATA / "money-by-hand.mat")
    assert a.to_dict()["resignations"] == []
    assert all(a.resignation is None for a in a.analyses)
