"""The analysis of played matches: its figures follow their stated definitions, the marks
and rating bands are gnubg's, bad files and options are refused in one line.

Fixtures: tests/data/matches (two matches GNU Backgammon played against itself, a money
session written by hand)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from oracles.backgammon import reference_positions

import tavli_fast
from tavli_fast.analysis.decisions import _pre_roll_equity
from tavli_fast.analysis.report import analyse_match
from tavli_fast.analysis.thresholds import BAD, DOUBTFUL, VERY_BAD, mark, rating
from tavli_fast.cli.analyse import main
from tavli_fast.game.position import Position
from tavli_fast.matchfile.model import MatchFileError
from tavli_fast.play.neural import default_evaluator, evaluator

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"
GNUBG_7 = DATA / "gnubg-7pt.mat"
MONEY = DATA / "money-by-hand.mat"


@pytest.fixture(scope="module")
def seven():
    return analyse_match(GNUBG_7)


def test_json_document_has_the_promised_keys(seven):
    doc = seven.to_dict()
    assert set(doc["match"]) >= {"length", "players", "final_score", "games"}
    assert doc["match"]["length"] == 7 and doc["match"]["players"] == ["Ann", "Bob"]
    assert doc["match"]["final_score"] == [3, 8] and len(doc["match"]["games"]) == 8
    for p in doc["players"]:
        assert set(p) >= {"name", "checker_decisions", "cube_decisions", "error_rate",
                          "cube_error_rate", "pr", "rating", "luck"}
    for d in doc["decisions"]:
        assert set(d) >= {"game", "move", "player", "kind", "dice", "played", "best", "error", "mark"}
        assert d["kind"] in ("checker", "cube") and d["player"] in ("Ann", "Bob")
    json.dumps(doc)   # JSON-ready


def test_the_analysis_values_by_the_evaluator_named_on_every_worker(seven):
    from dataclasses import replace

    from tavli_fast.analysis.decisions import analyse_game
    from tavli_fast.analysis.job import AnalysisJob, analyse_unit
    from tavli_fast.analysis.report import read_record
    from tavli_fast.matchfile.replay import replay_match

    assert seven.to_dict()["settings"]["evaluator"] == default_evaluator()
    games = replay_match(read_record(MONEY))
    unit = AnalysisJob(games, 0).plan()[0]
    assert unit.evaluator == default_evaluator()
    # A unit carries the driver's choice, and a worker values the game by it whatever its
    # own default: each evaluator's analysis of the game, and the two differ.
    by = {kind: analyse_unit(replace(unit, evaluator=kind))[1] for kind in ("float32", "int16")}
    for kind, analysis in by.items():
        assert analysis.decisions == analyse_game(games[unit.index], 0, None, kind).decisions
    equities = {k: [d.equity_played for d in a.decisions] for k, a in by.items()}
    assert len(equities["int16"]) > 5 and equities["int16"] != equities["float32"]
    assert AnalysisJob(games, 0, evaluator="float32").plan()[0].evaluator == "float32"


@pytest.mark.parametrize("kind", ["float32", "int16"])
def test_the_command_and_the_api_name_the_evaluator_they_were_given(kind, capsys):
    assert main([str(MONEY), "--json", "--evaluator", kind]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["evaluator"] == kind
    api = analyse_match(MONEY, evaluator=kind)
    assert doc["decisions"] == api.to_dict()["decisions"]
    assert f"by the {kind} evaluator" in str(api).splitlines()[0]


def test_r10_checker_decisions_are_the_rolls_with_more_than_one_legal_result(seven):
    # The slow rule-by-rule generator of tests/oracles counts the distinct results.
    expected = [0, 0]
    for g in seven.games:
        for a in g.actions:
            if a.action.kind == "roll":
                if len(reference_positions(np.array(a.before.board), *a.action.dice)) > 1:
                    expected[a.action.player] += 1
    got = [p.checker_decisions for p in seven.players()]
    assert got == expected and min(got) > 50


def test_errors_are_best_minus_played_and_marked_on_gnubgs_scale(seven):
    for d in seven.decisions:
        assert d.error == pytest.approx(max(0.0, d.equity_best - d.equity_played), abs=1e-12)
        assert d.mark == mark(d.error)
        if d.kind == "checker" and d.played == d.best:
            assert d.error == 0.0
    assert mark(DOUBTFUL - 1e-9) == "" and mark(DOUBTFUL) == "doubtful"
    assert mark(BAD) == "bad" and mark(VERY_BAD) == "very bad"


def test_player_figures_follow_their_definitions(seven):
    for i, p in enumerate(seven.players()):
        mine = [d for d in seven.decisions if d.player == i]
        checker = [d.error for d in mine if d.kind == "checker"]
        cube = [d.error for d in mine if d.kind == "cube"]
        assert p.error_rate == pytest.approx(1000 * sum(checker) / len(checker))
        assert p.cube_error_rate == pytest.approx(1000 * sum(cube) / len(cube))
        assert p.pr == pytest.approx(500 * (sum(checker) + sum(cube)) / (len(checker) + len(cube)))
        assert p.rating == rating((sum(checker) + sum(cube)) / (len(checker) + len(cube)))
    a, b = seven.players()
    # The luck-adjusted results of the two sides are opposite.
    assert a.luck_adjusted == pytest.approx(-b.luck_adjusted)


def test_mwc_error_is_given_in_a_match_only(seven):
    assert all(d.mwc_error is not None and d.mwc_error >= 0 for d in seven.decisions)
    money = analyse_match(MONEY)
    assert all(d.mwc_error is None for d in money.decisions)


def test_luck_averages_to_zero_over_the_21_rolls():
    # Luck of a roll = best play's 0-ply equity - the equity before the roll: over the 36
    # rolls, weighted, it is 0 (the equity before the roll is that mean, by definition). The
    # analysis's net is the default evaluator's; by int16 a position valued on its own and
    # the same position reached by the look-ahead's incremental sums differ by about 1e-4.
    net = evaluator()
    tolerance = 1e-3 if net.quantised else 1e-6
    pos = Position.from_id("4HPwATDgc/ABMA")
    pos = Position(pos.board)
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            total += max(net.move_equity(p.position.board) for p in pos.plays(d1, d2))
    assert total / 36 == pytest.approx(_pre_roll_equity(pos, default_evaluator()),
                                       abs=tolerance)


def test_one_ply_analysis_runs_and_three_ply_is_refused():
    one = analyse_match(DATA / "gnubg-3pt.mat", ply=1)
    assert one.ply == 1 and any(d.kind == "checker" for d in one.decisions)
    with pytest.raises(ValueError, match="ply must be one of 0, 1, 2, not 3"):
        analyse_match(DATA / "gnubg-3pt.mat", ply=3)


def test_player_option_keeps_that_players_decisions_only():
    a = analyse_match(MONEY, player="Анна")
    assert a.decisions and all(d.player == 1 for d in a.decisions)
    with pytest.raises(ValueError, match="no player 'Nobody'"):
        analyse_match(MONEY, player="Nobody")


def test_money_cube_answers_are_decisions_of_the_one_doubled():
    a = analyse_match(MONEY)
    answers = [d for d in a.decisions if d.played in ("Take", "Pass", "Beaver")]
    assert [(d.game, d.player, d.played) for d in answers] == [(1, 1, "Beaver"), (1, 0, "Pass"),
                                                              (2, 1, "Pass")]
    # A cube decision belongs to the line of the roll it precedes: Zenon's double in game
    # 1 (line 2) precedes his roll on line 3.
    double = next(d for d in a.decisions if d.played == "Double")
    assert (double.game, double.move) == (1, 3)


def test_text_is_accepted_as_well_as_a_path():
    text = GNUBG_7.read_text()
    assert analyse_match(text).to_dict()["decisions"] == analyse_match(GNUBG_7).to_dict()["decisions"]


def test_analyse_match_is_exported_from_tavli_fast():
    assert tavli_fast.analyse_match is analyse_match


def test_a_bad_file_raises_a_precise_error(tmp_path):
    bad = tmp_path / "bad.mat"
    bad.write_text(GNUBG_7.read_text().replace("  3) 52: 14/9 9/7*", "  3) 52: 14/9 9/8 ", 1))
    with pytest.raises(MatchFileError, match=r"bad.mat: line 9, game 1, move 3: illegal move"):
        analyse_match(bad)


# ----------------------------------------------------------------------------- the command
def test_cli_prints_the_report_and_writes_csv(tmp_path, capsys):
    out = tmp_path / "d.csv"
    assert main([str(GNUBG_7), "--csv", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "Ann vs Bob: 7-point match, 8 games, final score 3-8" in text
    assert "err/move" in text and "very bad" in text
    with out.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows and rows[0]["kind"] in ("checker", "cube")
    assert len(rows) == len(analyse_match(GNUBG_7).decisions)


def test_cli_json_is_one_document(capsys):
    assert main([str(MONEY), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["match"]["players"] == ["Ζήνων", "Анна"]


@pytest.mark.parametrize("args, words", [
    (["--ply", "3"], "--ply 3: the engine analyses at 0, 1, 2 ply"),
    (["--rollout-close", "0.02"], "--rollout-close and --trials go together"),
    (["--player", "Nobody"], "no player 'Nobody'"),
])
def test_cli_refuses_bad_options_in_one_line(args, words, capsys):
    assert main([str(MONEY), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_cli_refuses_bad_files_with_exit_2(tmp_path, capsys):
    junk = tmp_path / "junk.mat"
    junk.write_bytes(b"\x00\x01\x02binary")
    assert main([str(junk)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"tavli-analyse: error: {junk}: line 1: not a text file (a NUL byte)"
    assert main([str(tmp_path / "missing.mat")]) == 2
    assert "cannot read the file" in capsys.readouterr().err


def test_cli_csv_is_not_half_written_on_a_bad_file(tmp_path):
    out = tmp_path / "d.csv"
    junk = tmp_path / "junk.mat"
    junk.write_text("nonsense\n")
    assert main([str(junk), "--csv", str(out)]) == 2
    assert not out.exists()


# ----------------------------------------------------------------------------- on the driver
def test_same_numbers_with_one_and_two_spawned_workers():
    from tavli_fast.run.executors import make_executor

    one = analyse_match(DATA / "gnubg-3pt.mat", jobs=1).to_dict()
    with make_executor(2, "spawn") as executor:
        two = analyse_match(DATA / "gnubg-3pt.mat", executor=executor).to_dict()
    assert one["decisions"] == two["decisions"] and one["players"] == two["players"]


def test_ctrl_c_keeps_the_games_analysed_so_far():
    seen = []

    def progress(done, total):
        seen.append((done, total))
        if done == 2:
            raise KeyboardInterrupt

    part = analyse_match(GNUBG_7, progress=progress)
    assert part.interrupted and [a.number for a in part.analyses] == [1, 2]
    assert seen == [(1, 8), (2, 8)]
    whole = analyse_match(GNUBG_7)
    assert part.decisions == [d for d in whole.decisions if d.game <= 2]
    assert "interrupted" in str(part)


def test_console_script_is_installed_and_refuses_a_bad_file_in_one_line(tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    exe = shutil.which("tavli-analyse", path=os.path.dirname(sys.executable)) or shutil.which(
        "tavli-analyse")
    assert exe is not None, "the tavli-analyse console script is not installed"
    junk = tmp_path / "junk.mat"
    junk.write_text("12 points match\n\n Game 1\n")
    p = subprocess.run([exe, str(junk)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and "no line of players" in p.stderr


def test_cli_refuses_an_unknown_evaluator_in_one_line(capsys):
    with pytest.raises(SystemExit) as e:     # argparse's choices: exit status 2
        main([str(MONEY), "--evaluator", "int8"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "--evaluator: invalid choice: 'int8'" in err and "\n" not in err


def test_a_plakoto_match_refuses_the_int16_evaluator(capsys):
    # Its net has a float32 evaluator only; named, float32 is taken.
    plakoto = DATA / "plakoto-3pt.mat"
    with pytest.raises(ValueError, match="int16 evaluator is for the backgammon / Portes net"):
        analyse_match(plakoto, evaluator="int16")
    assert main([str(plakoto), "--evaluator", "int16"]) == 2
    err = capsys.readouterr().err.strip()
    assert "int16 evaluator is for the backgammon / Portes net" in err and "\n" not in err
    named = analyse_match(plakoto, evaluator="float32")
    assert named.to_dict()["settings"]["evaluator"] == "float32"
