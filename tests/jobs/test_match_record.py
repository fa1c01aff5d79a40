"""The matches tavli-match plays, saved (``play_matches(record=, save=)``, ``tavli-match
--save``): the core's log of each match turned into .mat records.

The checks are independent of the code that writes the records: the text of every play is
replayed by the move generator (``matchfile/replay.py``, ``variant_replay.py``) and must lead
to the very board the core logged after it; the records' games, points and match wins must be
the run's tallies (counted by the core's own loop); and a run with records gives the same
tallies as one without.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.api import play_match_record
from tavli_fast.cli.match import main
from tavli_fast.jobs import match as match_job
from tavli_fast.jobs.match import TALLIES
from tavli_fast.matchfile.mat import format_mat, read_mat
from tavli_fast.matchfile.replay import replay_match
from tavli_fast.matchfile.variant_replay import replay_variant_match


def tally(result, name):
    return result.tallies[TALLIES.index(name)]


@pytest.fixture
def logged(monkeypatch):
    """The core's log entries of each chunk run in this process (jobs=1), in order."""
    seen: list[np.ndarray] = []
    real = match_job.match_records

    def spy(entries, **kw):
        seen.append(np.array(entries))
        return real(entries, **kw)

    monkeypatch.setattr(match_job, "match_records", spy)
    return seen


def logged_boards(entries: np.ndarray) -> list[list[np.ndarray]]:
    """Per match, the board after each play (the mover's view), from the core's log."""
    out: list[list[np.ndarray]] = []
    for e in entries:
        if e["kind"] == _core.LOG_KINDS["match"]:
            out.append([])
        elif e["kind"] == _core.LOG_KINDS["play"]:
            out[-1].append(np.array(e["board"]))
    return out


def logged_crawford(entries: np.ndarray) -> list[list[bool]]:
    """Per match, whether the core played each game as the Crawford game."""
    out: list[list[bool]] = []
    for e in entries:
        if e["kind"] == _core.LOG_KINDS["match"]:
            out.append([])
        elif e["kind"] == _core.LOG_KINDS["game"]:
            out[-1].append(bool(e["d1"]))
    return out


def replayed_boards(record) -> list[np.ndarray]:
    """The board after each play of a record, as its text replays (the mover's view)."""
    games = replay_match(record) if record.game in ("backgammon", "portes") else replay_variant_match(record)
    boards = []
    for game in games:
        for a in game.actions:
            if a.action.kind != "roll":
                continue
            after = a.after
            if hasattr(after, "board"):
                boards.append(np.array(after.board))
            else:   # a Plakoto / Fevga position: the counts on points 1..24 and off
                b = np.zeros((2, 26), dtype=np.int8)
                b[0, 1:25], b[1, 1:25] = after.me, after.opp
                b[0, 0], b[1, 0] = after.me_off, after.opp_off
                boards.append(b)
    return boards


def check_against_tallies(result) -> None:
    """The records' match wins, games and points are the run's tallies."""
    records = result.records()
    assert len(records) == result.matches
    length = result.request.length
    wins_a = sum(r.final_score[0] + r.games[0].score[0] >= length for r in records)
    assert wins_a == tally(result, "wins_a")
    assert sum(len(r.games) for r in records) == result.games
    assert sum(r.final_score[0] for r in records) == tally(result, "points_a")
    assert sum(r.final_score[1] for r in records) == tally(result, "points_b")
    for r in records:
        start = r.games[0].score
        final = (start[0] + r.final_score[0], start[1] + r.final_score[1])
        assert max(final) >= length > min(final)


RUNS = [
    dict(players=("neural", "pubeval")),
    dict(players=("greedy", "random")),
    dict(players=("neural-1ply", "bearoff")),
    dict(players=("neural", "random"), rules="tavli"),
    dict(players=("greedy", "neural"), rules="tavli",
         game_rules=["pinned_home_counts", "runner_to_quarter", "start_quarter_each_move"]),
]


@pytest.mark.parametrize("kwargs", RUNS)
def test_saved_plays_replay_to_the_boards_the_core_played(kwargs, logged, tmp_path):
    result = tf.play_matches(3, 2, seed=5, jobs=1, save=tmp_path / "m.mat", names="Ann,Bob", **kwargs)
    assert [p.split("-")[-1] for p in result.saved_paths] == ["1.mat", "2.mat"]
    boards = [b for entries in logged for b in logged_boards(entries)]
    crawford = [c for entries in logged for c in logged_crawford(entries)]
    for path, core, core_crawford in zip(result.saved_paths, boards, crawford):
        record = read_mat(path)     # what was written reads back ...
        assert record.players == ("Ann", "Bob")
        replayed = replayed_boards(record)   # ... to every board the core reached
        assert len(replayed) == len(core) > 0
        assert all(np.array_equal(a, b) for a, b in zip(replayed, core))
        if record.game == "backgammon":
            # The reader finds the Crawford game (R24) where the core played it.
            assert [g.crawford for g in replay_match(record)] == core_crawford
        else:   # the options the plays were replayed by are the run's
            options = kwargs.get("game_rules", ())
            assert (f'; [Options "{" ".join(options)}"]' in record.comments) == bool(options)
    check_against_tallies(result)


@pytest.mark.parametrize("kwargs", [
    dict(players=("neural", "pubeval")),
    dict(players=("pubeval", "greedy"), score=(3, 2)),
    dict(players=("neural", "random"), rules="tavli"),
    dict(players=("greedy", "pubeval"), rules="portes"),
])
def test_recording_changes_no_number_of_the_run(kwargs):
    plain = tf.play_matches(4, 6, seed=11, jobs=1, chunk_size=4, **kwargs)
    recorded = tf.play_matches(4, 6, seed=11, jobs=1, chunk_size=4, record=True, **kwargs)
    assert recorded.tallies == plain.tallies and recorded.matches == plain.matches == 6
    check_against_tallies(recorded)


@pytest.mark.parametrize("post_crawford", [False, True])
def test_the_core_and_the_reader_agree_on_the_crawford_game(post_crawford, logged):
    result = tf.play_matches(5, 6, ("pubeval", "neural"), score=(3, 4), seed=9, jobs=1,
                             post_crawford=post_crawford, record=True)
    core = [c for entries in logged for c in logged_crawford(entries)]
    assert [[g.crawford for g in replay_match(r)] for r in result.records()] == core
    assert all(c[0] != post_crawford for c in core)


def test_a_score_start_begins_with_the_crawford_game_and_no_cube_in_it():
    result = tf.play_matches(5, 4, ("pubeval", "pubeval"), score=(4, 2), seed=2, jobs=1, record=True)
    for record in result.records():
        assert record.games[0].score == (4, 2)
        games = replay_match(record)
        assert games[0].crawford and sum(g.crawford for g in games) == 1
        assert not any(a.kind in ("double", "take", "drop") for a in record.games[0].actions)
    check_against_tallies(result)


def test_post_crawford_start_is_in_the_header_and_the_trailer_doubles_at_once():
    # RULES R24 / cube.py: after the Crawford game the pip-count players' trailer doubles at
    # his first turn, and the leader (1-away) takes.
    result = tf.play_matches(5, 3, ("pubeval", "pubeval"), score=(4, 2), post_crawford=True,
                             seed=2, jobs=1, record=True)
    for record in result.records():
        assert '; [Crawford "Played"]' in record.comments
        games = replay_match(record)
        assert not any(g.crawford for g in games)
        first = [a for a in record.games[0].actions if a.kind != "roll"]
        assert [(a.kind, a.player) for a in first[:2]] == [("double", 1), ("take", 0)]
    check_against_tallies(result)


def test_crawford_game_comes_once_in_matches_from_zero():
    result = tf.play_matches(3, 6, ("neural", "neural"), seed=4, jobs=1, record=True)
    for record in result.records():
        games = replay_match(record)
        reached = any(max(g.record.score) == 2 for g in games)
        assert sum(g.crawford for g in games) == (1 if reached else 0)
        for g in games:
            if g.crawford:
                assert all(a.action.kind == "roll" for a in g.actions)


def test_a_tavli_match_names_each_game_and_counts_its_draws():
    result = tf.play_matches(3, 12, ("random", "random"), seed=1, jobs=1, rules="tavli", record=True)
    draws = 0
    for text, record in zip(result.saved, result.records()):
        assert record.game == "tavli" and '; [Variation "Tavli"]' in record.comments
        games = replay_variant_match(record)
        order = [g.record.game for g in games]
        assert order[0] == "portes"
        # T2: Portes, Plakoto, Fevga in turn; a drawn Plakoto game (P6) is replayed.
        expected = "portes"
        for g in games:
            assert g.record.game == expected
            if g.ending == "draw":
                draws += 1
                assert g.record.winner is None
            else:
                expected = {"portes": "plakoto", "plakoto": "fevga", "fevga": "portes"}[expected]
        assert format_mat(record) == text   # written and read back, the same text
    assert draws == tally(result, "draws")
    check_against_tallies(result)


def test_a_portes_match_is_named_and_has_no_backgammon():
    result = tf.play_matches(5, 4, ("greedy", "random"), seed=3, jobs=1, rules="portes", record=True)
    for record in result.records():
        assert record.game == "portes" and '; [Variation "Portes"]' in record.comments
        games = replay_match(record)
        assert {g.ending for g in games} <= {"single", "gammon"}
        assert all(g.record.points in (1, 2) for g in games)
    check_against_tallies(result)


def test_the_same_files_with_one_or_two_workers(tmp_path):
    one = tf.play_matches(3, 4, ("neural", "pubeval"), seed=6, jobs=1, chunk_size=1,
                          save=tmp_path / "one.mat")
    two = tf.play_matches(3, 4, ("neural", "pubeval"), seed=6, jobs=2, chunk_size=1,
                          save=tmp_path / "two.mat")
    assert one.tallies == two.tallies
    texts = [[Path(p).read_text(encoding="utf-8") for p in r.saved_paths] for r in (one, two)]
    assert texts[0] == texts[1] and len(texts[0]) == 4


def test_play_match_record_is_one_match_of_play_matches():
    record = play_match_record(3, seed=11, names=("Ann", "Bob"))
    result = tf.play_matches(3, 1, seed=11, jobs=1, names=("Ann", "Bob"), record=True)
    assert format_mat(record) == result.saved[0]
    assert format_mat(play_match_record(3, seed=11)) != format_mat(play_match_record(3, seed=12))


@pytest.mark.parametrize("kwargs, message", [
    (dict(matches=10_001), "at most 10,000"),
    (dict(names="Ann,Ann"), "two different names"),
    (dict(names="Ann:1,Bob"), "two different names"),
    (dict(checkpoint="c.json"), "checkpoint"),
])
def test_bad_record_arguments_are_refused_before_the_run(kwargs, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = dict(matches=2, seed=1, jobs=1, save="m.mat") | kwargs
    with pytest.raises(ValueError, match=message):
        tf.play_matches(3, **args)
    assert list(tmp_path.iterdir()) == []


def test_cli_save_writes_the_matches_with_utf8_names(tmp_path, capsys):
    out = tmp_path / "m.mat"
    assert main(["--length", "3", "--matches", "3", "--players", "neural,greedy", "--seed", "5",
                 "--names", "Ζήνων,Bob", "--save", str(out), "-j", "1", "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "Saved 3 matches as .mat" in printed
    paths = sorted(tmp_path.iterdir())
    assert [p.name for p in paths] == ["m-1.mat", "m-2.mat", "m-3.mat"]
    for p in paths:
        record = read_mat(p)
        assert record.players == ("Ζήνων", "Bob") and record.length == 3
        replay_match(record)


@pytest.mark.parametrize("extra, message", [
    (["--save", "{tmp}"], "directory"),
    (["--save", "{tmp}/no/such/dir/m.mat"], "--save"),
    (["--save", "{tmp}/m.mat", "--checkpoint", "{tmp}/c.json"], "--checkpoint"),
    (["--save", "{tmp}/m.mat", "--matches", "20000"], "at most 10,000"),
    (["--names", "Ann,Bob"], "--names is for --save"),
])
def test_cli_bad_save_uses_exit_2_with_one_line(extra, message, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    assert main(["--length", "3", "--matches", "2", "--no-progress", "-j", "1", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_cli_save_without_matches_plays_one_match(tmp_path, capsys):
    out = tmp_path / "m.mat"
    assert main(["--length", "3", "--seed", "5", "--save", str(out), "--no-progress", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["matches"] == 1 and doc["saved"] == [str(out)]
    record = read_mat(out)
    assert record.players == ("Player 1", "Player 2")
    assert sum(record.final_score) == sum(doc["points"])


def test_an_interrupted_run_saves_the_matches_it_reports(tmp_path):
    stop = threading.Event()

    def progress(p):
        if p.trials_done >= 2:
            stop.set()

    result = tf.play_matches(3, 8, ("pubeval", "greedy"), seed=2, jobs=1, chunk_size=1,
                             save=tmp_path / "m.mat", cancel=stop, progress=progress)
    assert result.interrupted and 2 <= result.matches < 8
    assert len(result.saved_paths) == result.matches == len(list(tmp_path.iterdir()))
    check_against_tallies(result)
