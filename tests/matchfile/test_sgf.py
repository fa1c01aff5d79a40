"""gnubg's .sgf match files: the same match as its .mat gives the same moves. The fixtures
gnubg-7pt.sgf and money-by-hand.sgf were written by GNU Backgammon (PyPI gnubg) after
importing the .mat files of the same names; gnubg writes the beaver as a double back."""

from __future__ import annotations

from pathlib import Path

import pytest

from tavli_fast.analysis.report import analyse_match
from tavli_fast.matchfile.mat import read_mat
from tavli_fast.matchfile.model import MatchFileError
from tavli_fast.matchfile.replay import replay_match
from tavli_fast.matchfile.sgf import parse_sgf, read_sgf

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"


def moves(record):
    return [(a.action.move, a.action.kind, a.action.player, a.action.dice, a.action.cube,
             None if a.after is None else a.after.position_id())
            for g in replay_match(record) for a in g.actions]


@pytest.mark.parametrize("name", ["gnubg-7pt", "money-by-hand"])
def test_sgf_and_mat_of_one_match_give_the_same_moves_and_move_numbers(name):
    sgf, mat = read_sgf(DATA / f"{name}.sgf"), read_mat(DATA / f"{name}.mat")
    assert sgf.players == mat.players and sgf.length == mat.length
    assert moves(sgf) == moves(mat)
    assert sgf.final_score == mat.final_score
    assert [g.score for g in sgf.games] == [g.score for g in mat.games]


def test_r25_gnubgs_double_back_is_read_as_a_beaver():
    record = read_sgf(DATA / "money-by-hand.sgf")
    kinds = [(a.kind, a.player, a.cube) for a in record.games[0].actions if a.kind != "roll"]
    assert kinds[:2] == [("double", 0, 2), ("beaver", 1, 4)]


def test_analyse_match_reads_sgf_files():
    a, b = analyse_match(DATA / "gnubg-7pt.sgf"), analyse_match(DATA / "gnubg-7pt.mat")
    assert [d.to_dict() for d in a.decisions] == [d.to_dict() for d in b.decisions]


@pytest.mark.parametrize("text, words", [
    ("", "no game tree"),
    ("(;FF[4]GM[6]MI[length:3]PW[A]PB[B];W[31hefe]", "cut off"),
    ("(;FF[4]GM[1]PW[A]PB[B];W[31hefe])", "GM[1] is not backgammon"),
    ("(;FF[4]GM[6]MI[length:3]PW[A]PB[B];W[71hefe])", "cannot read the move W[71hefe]"),
    ("(;FF[4]GM[6]MI[length:3]PW[A]PB[B]RE[X+1];W[31hefe])", "cannot read the result"),
])
def test_bad_sgf_is_refused_naming_the_place(text, words):
    with pytest.raises(MatchFileError) as info:
        parse_sgf(text, source="bad.sgf")
    assert words in str(info.value) and str(info.value).startswith("bad.sgf")


def test_an_illegal_sgf_move_names_game_and_move():
    text = (DATA / "gnubg-7pt.sgf").read_text(encoding="utf-8").replace("W[64xrrn]", "W[64xrrm]", 1)
    with pytest.raises(MatchFileError, match=r"game 1, move 2: illegal move 64"):
        replay_match(parse_sgf(text, source="bad.sgf"))
