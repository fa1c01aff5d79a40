"""The analysis at 2 ply: checker plays ranked as ``hint(ply=2)`` ranks them, cube decisions
on the net's 2-ply probabilities (as ``tavli-eval --ply 2`` gives them), the ply said in the
JSON and the text.

Fixture: tests/data/matches/gnubg-3pt.mat (a 3-point match GNU Backgammon played)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import replayed_rolls
from tavli_fast.analysis.report import analyse_match
from tavli_fast.cli.analyse import main
from tavli_fast.play.hint import hint
from tavli_fast.play.reports import eval_report

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"
SMALL = DATA / "gnubg-3pt.mat"


@pytest.fixture(scope="module")
def zero():
    return analyse_match(SMALL, ply=0)


@pytest.fixture(scope="module")
def two():
    return analyse_match(SMALL, ply=2)



def test_every_decision_says_it_was_found_at_two_ply(two):
    doc = two.to_dict()
    assert doc["settings"]["ply"] == 2 and doc["settings"]["cube_ply"] == 2
    assert doc["settings"]["checker_ply"] == 2 and doc["settings"]["luck_ply"] == 0
    assert doc["decisions"] and {d["ply"] for d in doc["decisions"]} == {2}
    assert {d["kind"] for d in doc["decisions"]} == {"checker", "cube"}
    assert "cube decisions analysed at 2 ply" in str(two)


def test_two_ply_keeps_the_same_decisions_and_changes_their_values(zero, two):
    key = [(d.game, d.move, d.player, d.kind, d.played) for d in zero.decisions if d.kind == "checker"]
    assert key == [(d.game, d.move, d.player, d.kind, d.played)
                   for d in two.decisions if d.kind == "checker"]
    pairs = list(zip([d for d in zero.decisions if d.kind == "checker"],
                     [d for d in two.decisions if d.kind == "checker"]))
    # The deeper look values the plays differently, and now and then picks another best.
    assert sum(abs(a.equity_best - b.equity_best) > 1e-3 for a, b in pairs) > len(pairs) / 2
    assert any(a.best != b.best for a, b in pairs)


def test_best_play_at_two_ply_is_hints_best(two):
    rolls = replayed_rolls(two)
    checked = 0
    for d in two.decisions:
        if d.kind != "checker":
            continue
        r = rolls[(d.game, d.move, d.player)]
        top = hint(r.before, *r.action.dice, ply=2)[0]
        # The best is hint's best, unless the play made (valued at 2 ply beside hint's
        # candidates) was worth more: then it is the best and cost nothing.
        assert d.equity_best >= top.equity_2ply - 1e-9
        if d.error > 0:
            assert d.best == top.play
            assert d.equity_best == pytest.approx(top.equity_2ply, abs=1e-9)
            checked += 1
        else:
            assert d.best == d.played
    assert checked >= 5


def test_cube_decisions_at_two_ply_are_tavli_evals_at_two_ply(zero, two):
    cube = [d for d in two.decisions if d.kind == "cube" and d.played in ("Double", "No double")]
    assert cube
    moved = 0
    for d in cube:
        doc = eval_report(d.position_id, ply=2)["cube"]
        nd, dt, dp = doc["no_double"], doc["double_take"], doc["double_pass"]
        chosen = min(dt, dp) if d.played == "Double" else nd
        assert d.equity_played == pytest.approx(chosen, abs=1e-9)
        assert d.equity_best == pytest.approx(max(nd, min(dt, dp)), abs=1e-9)
        at_zero = eval_report(d.position_id, ply=0)["cube"]["no_double"]
        moved += abs(at_zero - nd) > 1e-3
    assert moved > 0


def test_cli_analyses_at_two_ply_and_refuses_other_plies(capsys):
    assert main([str(SMALL), "--ply", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["cube_ply"] == 2
    assert main([str(SMALL), "--ply", "3"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--ply 3" in err and "\n" not in err


def test_plakoto_and_fevga_refuse_two_ply_in_one_line(capsys):
    with pytest.raises(ValueError, match="the fevga net analyses at 0 or 1 ply"):
        analyse_match(DATA / "fevga-3pt.mat", ply=2)
    assert main([str(DATA / "plakoto-3pt.mat"), "--ply", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert "net analyses at 0 or 1 ply" in err and "\n" not in err
