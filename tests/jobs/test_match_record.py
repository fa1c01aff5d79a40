"""A match played move by move and recorded (``tavli-match --save``): legal in every move,
the same for the same seed, written as .mat text that reads back and that gnubg imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tavli_fast.cli.match import main
from tavli_fast.jobs.match_record import play_match_record
from tavli_fast.matchfile.mat import format_mat, read_mat
from tavli_fast.matchfile.replay import replay_match


def test_r21_r25_a_recorded_match_replays_legally_and_ends_at_the_length():
    record = play_match_record(5, seed=3, names=("Ann", "Bob"))
    games = replay_match(record)   # raises on any illegal move, cube action or score
    assert max(record.final_score) >= 5 > min(record.final_score)
    assert sum(g.crawford for g in games) <= 1
    assert all(g.ending is not None for g in games)


def test_same_seed_same_match_other_seed_other_match():
    assert format_mat(play_match_record(3, seed=11)) == format_mat(play_match_record(3, seed=11))
    assert format_mat(play_match_record(3, seed=11)) != format_mat(play_match_record(3, seed=12))


def test_bad_lengths_are_refused():
    for length in (0, -1, 65, 2.5, True):
        with pytest.raises(ValueError, match="match length"):
            play_match_record(length, seed=1)   # type: ignore[arg-type]


def test_cli_save_writes_the_match_with_utf8_names(tmp_path, capsys):
    out = tmp_path / "m.mat"
    assert main(["--length", "3", "--seed", "5", "--names", "Ζήνων,Bob", "--save", str(out)]) == 0
    record = read_mat(out)
    assert record.players == ("Ζήνων", "Bob") and record.length == 3
    printed = capsys.readouterr().out
    a, b = record.final_score
    assert f"Ζήνων {a} - {b} Bob" in printed and "seed 5" in printed
    assert record == read_mat(out)   # a second read gives the same record
    replay_match(record)


@pytest.mark.parametrize("extra", [["--matches", "10"], ["--players", "neural,pubeval"]])
def test_cli_save_refuses_options_it_does_not_use(extra, tmp_path, capsys):
    assert main(["--save", str(tmp_path / "m.mat"), *extra]) == 2
    assert "cannot be used with it" in capsys.readouterr().err
    assert not (tmp_path / "m.mat").exists()


@pytest.mark.oracle
def test_gnubg_imports_a_recorded_match_to_the_same_moves(tmp_path):
    pytest.importorskip("gnubg")
    ours, back = tmp_path / "ours.mat", tmp_path / "back.mat"
    main(["--length", "5", "--seed", "8", "--names", "Ann,Bob", "--save", str(ours)])
    script = ("import sys, gnubg\ngnubg.command('set threads 1')\n"
              "gnubg.command('import mat ' + sys.argv[1])\n"
              "gnubg.command('export match mat ' + sys.argv[2])\n")
    subprocess.run([sys.executable, "-c", script, str(ours), str(back)], check=True,
                   capture_output=True, timeout=300)

    def moves(r):
        return [(a.action.kind, a.action.player, a.action.dice,
                 None if a.after is None else a.after.position_id())
                for g in replay_match(r) for a in g.actions]

    assert moves(read_mat(back)) == moves(read_mat(ours))
    assert read_mat(back).final_score == read_mat(ours).final_score
