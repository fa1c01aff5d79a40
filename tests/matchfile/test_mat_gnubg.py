"""GNU Backgammon (the PyPI gnubg package, test-only oracle) opens the .mat files we write and
exports the same moves again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tavli_fast.api import play_match_record
from tavli_fast.matchfile.mat import read_mat, write_mat
from tavli_fast.matchfile.replay import replay_match

pytest.importorskip("gnubg")

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"

# gnubg's evaluation threads hang its Python module: one thread; its own process, so that its
# global match state stays out of ours.
_ROUND_TRIP = """
import sys, gnubg
gnubg.command("set threads 1")
gnubg.command("import mat " + sys.argv[1])
gnubg.command("export match mat " + sys.argv[2])
"""


def round_trip(record, tmp_path) -> None:
    """gnubg imports the record as we write it and exports the same moves and final score."""
    ours, back = tmp_path / "ours.mat", tmp_path / "back.mat"
    write_mat(record, ours)
    subprocess.run([sys.executable, "-c", _ROUND_TRIP, str(ours), str(back)], check=True,
                   capture_output=True, timeout=300)
    again = read_mat(back)

    def moves(r):
        return [(a.action.kind, a.action.player, a.action.dice,
                 None if a.after is None else a.after.position_id())
                for g in replay_match(r) for a in g.actions]

    assert moves(again) == moves(record)
    assert again.final_score == record.final_score
    assert again.games[0].score == record.games[0].score


@pytest.mark.oracle
@pytest.mark.parametrize("name", ["gnubg-7pt.mat", "money-by-hand.mat"])
def test_gnubg_imports_what_we_write_and_gives_back_the_same_moves(name, tmp_path):
    round_trip(read_mat(DATA / name), tmp_path)


@pytest.mark.oracle
@pytest.mark.parametrize("kwargs, actions", [
    (dict(length=5, players=("neural", "pubeval"), seed=8), {"double", "take"}),
    (dict(length=5, players=("neural", "neural"), seed=21), {"double", "take", "drop"}),
    (dict(length=5, players=("neural", "greedy"), seed=3, score=(4, 2)), set()),
])
def test_gnubg_imports_a_match_tavli_match_saved(kwargs, actions, tmp_path):
    # The last starts at a score, with the Crawford game (R24).
    record = play_match_record(names=("Ann", "Bob"), **kwargs)
    assert {a.kind for g in record.games for a in g.actions} - {"roll"} == actions
    round_trip(record, tmp_path)
