"""The .mat reader and writer, and the replay that checks every move.

The fixtures in tests/data/matches: gnubg-3pt.mat and gnubg-7pt.mat were played and exported
by GNU Backgammon (the PyPI gnubg package, both sides its 0-ply player); money-by-hand.mat was
written by hand (UTF-8 names, a beaver, a redouble, a drop).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tavli_fast.matchfile.mat import format_mat, parse_mat, read_mat, write_mat
from tavli_fast.matchfile.model import MatchFileError
from tavli_fast.matchfile.replay import replay_match

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"
GNUBG_7 = DATA / "gnubg-7pt.mat"
MONEY = DATA / "money-by-hand.mat"


def positions(record):
    """Every action's kind, player, move number and the position it led to (rolls)."""
    return [(a.action.kind, a.action.player, a.action.move, a.action.dice,
             None if a.after is None else a.after.position_id())
            for g in replay_match(record) for a in g.actions]


def test_gnubg_7_point_match_reads_as_gnubg_wrote_it():
    record = read_mat(GNUBG_7)
    assert record.length == 7
    assert record.players == ("Ann", "Bob")
    assert len(record.games) == 8
    # The last game starts at 3-6 and Bob wins it with 2 points (the file's last lines).
    assert record.games[-1].score == (3, 6)
    assert record.final_score == (3, 8)
    games = replay_match(record)
    # Game 1: Bob doubles at move 9 and Ann drops at move 10.
    first = [(a.action.kind, a.action.player, a.action.move) for a in games[0].actions][-2:]
    assert first == [("double", 1, 9), ("drop", 0, 10)]


def test_the_crawford_game_is_the_first_at_match_point():
    games = replay_match(read_mat(GNUBG_7))
    crawford = [g.record.number for g in games if g.crawford]
    scores = [g.record.score for g in games]
    first_at_6 = next(i for i, s in enumerate(scores) if max(s) == 6) + 1
    assert crawford == [first_at_6]


def test_every_gnubg_move_replays_to_a_legal_position():
    for name in ("gnubg-3pt.mat", "gnubg-7pt.mat"):
        games = replay_match(read_mat(DATA / name))
        rolls = [a for g in games for a in g.actions if a.action.kind == "roll"]
        assert len(rolls) > 40
        for a in rolls:
            legal = {p.position.position_id() for p in a.before.plays(*a.action.dice)}
            assert a.after.position_id() in legal


@pytest.mark.parametrize("name", ["gnubg-3pt.mat", "gnubg-7pt.mat", "money-by-hand.mat"])
def test_what_we_write_reads_back_to_the_same_moves(name, tmp_path):
    record = read_mat(DATA / name)
    out = tmp_path / "again.mat"
    write_mat(record, out)
    again = read_mat(out)
    assert again.players == record.players and again.length == record.length
    assert positions(again) == positions(record)
    assert again.final_score == record.final_score


def test_money_session_with_utf8_names_beaver_and_redouble():
    record = read_mat(MONEY)
    assert record.length == 0
    assert record.players == ("Ζήνων", "Анна")
    games = replay_match(record)
    kinds = [(a.action.kind, a.action.player) for a in games[0].actions]
    assert ("beaver", 1) in kinds
    # R25: the beaver makes the cube 4 and Anna keeps it, so her redouble to 8 is legal and
    # Zenon's drop costs him 4 points.
    assert record.games[0].points == 4 and record.games[0].winner == 1
    # Game 2: Zenon doubles, Anna drops: 1 point to Zenon.
    assert record.final_score == (1, 4)


def test_r18_a_roll_with_no_legal_play_is_written_and_read_empty():
    games = replay_match(read_mat(GNUBG_7))
    empty = [a for g in games for a in g.actions if a.action.kind == "roll" and not a.action.play]
    assert empty
    for a in empty:
        assert np.array_equal(a.after.board, a.before.board)


TEXT = GNUBG_7.read_text()


def bad(text: str) -> MatchFileError:
    with pytest.raises(MatchFileError) as info:
        replay_match(parse_mat(text, source="bad.mat"))
    return info.value


def test_an_illegal_move_names_file_line_game_and_move():
    # R7: 24/18 is blocked (Bob's point 7 after his 31) -- play 6/off instead, not legal either.
    text = TEXT.replace("  2) 64: 24/18 18/14", "  2) 64: 6/0 6/2  ", 1)
    err = bad(text)
    assert (err.line, err.game, err.move) == (8, 1, 2)   # line 1 is a header comment
    assert str(err).startswith("bad.mat: line 8, game 1, move 2: illegal move 64")


def test_impossible_dice_are_refused():
    err = bad(TEXT.replace("  3) 52: 14/9 9/7*", "  3) 72: 14/9 9/7*", 1))
    assert (err.line, err.move) == (9, 3) and "impossible dice 72" in str(err)


def test_an_opening_double_is_impossible_dice():
    err = bad(TEXT.replace("  1)                             31: 8/5 6/5",
                           "  1)                             33: 8/5(2) 6/3(2)", 1))
    assert "opening roll" in str(err) and err.move == 1


def test_a_score_that_does_not_add_up_is_refused():
    err = bad(TEXT.replace(" Ann : 0                        Bob : 1", " Ann : 0                        Bob : 2", 1))
    assert "does not add up" in str(err) and err.game == 2


def test_a_wins_line_with_the_wrong_points_is_refused():
    err = bad(TEXT.replace("Wins 1 point", "Wins 2 points", 1))
    assert "worth 1 points (drop)" in str(err) and err.game == 1


def test_r24_a_double_in_the_crawford_game_is_refused():
    games = replay_match(read_mat(GNUBG_7))
    crawford = next(g for g in games if g.crawford)
    lines = TEXT.splitlines()
    roll = next(a.action for a in crawford.actions if a.action.kind == "roll" and a.action.player == 0
                and a.action.move > 1)
    row = lines[roll.line - 1]
    lines[roll.line - 1] = f"{roll.move:3d})  Doubles => 2                Takes"
    lines.insert(roll.line, row.replace(f"{roll.move:3d})", f"{roll.move:3d})", 1))
    err = bad("\n".join(lines))
    assert "Crawford" in str(err) and err.game == crawford.record.number


@pytest.mark.parametrize("text, words, line", [
    ("hello world\n", "not a .mat file", 1),
    ("", "no 'N point match' line", None),
    (TEXT[:TEXT.index("  5) 41: 6/2 8/7") + 11], "cannot read", 11),
    (" 7 point match\n\n Game 1\n", "no line of players", 3),
])
def test_files_that_are_not_mat_or_cut_off_are_refused(text, words, line):
    with pytest.raises(MatchFileError) as info:
        parse_mat(text, source="bad.mat")
    assert words in str(info.value) and info.value.line == line


def test_a_file_cut_at_a_line_end_after_a_game_ended_is_refused():
    cut = TEXT[:TEXT.index(" 10)  Drops") + len(" 10)  Drops")]
    err = bad(cut)
    assert "cut off" in str(err) and err.game == 1


def test_binary_junk_is_refused_with_its_line(tmp_path):
    path = tmp_path / "junk.mat"
    path.write_bytes(b" 7 point match\n\n\xff\xfe\x00\x01junk")
    with pytest.raises(MatchFileError) as info:
        read_mat(path)
    assert str(info.value).startswith(f"{path}: line 3: not a text file")
    path.write_bytes(b" 7 point match\n\xc3\x28\n")
    with pytest.raises(MatchFileError, match="line 2: not UTF-8"):
        read_mat(path)


def test_the_writer_leaves_nothing_half_written_when_it_fails(tmp_path):
    out = tmp_path / "m.mat"
    out.write_text("old")
    record = read_mat(MONEY)
    broken = record.__class__(record.length, record.players, (None,), source="x")  # type: ignore[arg-type]
    with pytest.raises(AttributeError):
        write_mat(broken, out)
    assert out.read_text() == "old" and list(tmp_path.iterdir()) == [out]


def test_format_mat_is_what_gnubg_writes_for_the_same_lines():
    # The first lines of gnubg's own export, written again by us, match gnubg's text.
    ours = format_mat(read_mat(GNUBG_7)).splitlines()
    theirs = [line.rstrip() for line in TEXT.splitlines()]
    start = theirs.index(" Game 1")
    assert ours[ours.index(" Game 1"): ours.index(" Game 1") + 12] == theirs[start:start + 12]
