"""Bear-off databases (issue 4): hand-checked small cases, GNU Backgammon's tables, the files.

The databases are built once per session into a temporary cache directory (the one-sided
database in full, the two-sided one for up to 6 checkers a side), never the user's cache.
"""

from __future__ import annotations

import functools
import itertools
import json
import struct
from fractions import Fraction

import numpy as np
import pytest

from helpers import pos
from tavli_fast import _core
from tavli_fast.play.bearoff import (
    BearoffDatabase,
    BearoffDatabaseError,
    bearoff_best_play,
    bearoff_rolls,
    bearoff_win_probability,
    cache_directory,
)
from tavli_fast.cli.bearoff import main as cli_main

TWO_SIDED = 6
ALL_36 = [(a, b) for a in range(1, 7) for b in range(1, 7)]


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> BearoffDatabase:
    return BearoffDatabase(tmp_path_factory.mktemp("bearoff"), two_sided_checkers=TWO_SIDED)


def side(counts: dict[int, int]) -> list[int]:
    """{point: checkers} as the 6-entry list of the API."""
    return [counts.get(p, 0) for p in range(1, 7)]


# ------------------------------------------------------------- an independent small solver
def bearoff_moves(counts: tuple[int, ...], die: int) -> set[tuple[int, ...]]:
    """One die in a pure bear-off (R15-R17), written from the rules, not from the core."""
    out = set()
    occupied = [p for p in range(1, 7) if counts[p - 1]]
    if not occupied:
        return {counts}
    for p in occupied:
        target = p - die
        if target >= 1 or p == die or (target < 1 and p == max(occupied)):
            new = list(counts)
            new[p - 1] -= 1
            if target >= 1:
                new[target - 1] += 1
            out.add(tuple(new))
    return out


def plays(counts: tuple[int, ...], d1: int, d2: int) -> set[tuple[int, ...]]:
    """Every die is playable in a bear-off without contact, so every order uses all dice."""
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    results = set()
    for order in orders:
        frontier = {counts}
        for die in order:
            frontier = {r for c in frontier for r in bearoff_moves(c, die)}
        results |= frontier
    return results


@functools.lru_cache(maxsize=None)
def exact_rolls(counts: tuple[int, ...]) -> tuple[Fraction, ...]:
    """Exact distribution (as fractions) under the play with the fewest expected rolls."""
    if not any(counts):
        return (Fraction(1),)
    dist: dict[int, Fraction] = {}
    for d1, d2 in ALL_36:
        best = min(plays(counts, d1, d2), key=lambda c: _mean(exact_rolls(c)))
        for k, p in enumerate(exact_rolls(best)):
            dist[k + 1] = dist.get(k + 1, Fraction(0)) + p / 36
    return tuple(dist.get(k, Fraction(0)) for k in range(max(dist) + 1))


def _mean(dist) -> Fraction:
    return sum(k * p for k, p in enumerate(dist))


def one_roll_chance(point: int) -> Fraction:
    """One checker on `point` <= 6 is off in one roll iff the roll's pips reach it."""
    return Fraction(sum((4 * a if a == b else a + b) >= point for a, b in ALL_36), 36)


# ------------------------------------------------------------- one-sided
@pytest.mark.parametrize("point", range(1, 7))
def test_one_checker_on_any_point(db, point):
    s = one_roll_chance(point)
    expected = np.zeros(db.max_rolls + 1)
    expected[1], expected[2] = float(s), float(1 - s)  # a miss leaves <= 3 pips: off next roll
    np.testing.assert_allclose(bearoff_rolls(side({point: 1}), db=db), expected, atol=1e-15)


def test_published_means(db):
    assert db.mean_rolls(side({1: 15})) == pytest.approx(6.9796, abs=5e-5)
    assert db.mean_rolls(side({6: 1})) == 1.25


def test_no_checkers_needs_zero_rolls(db):
    p = bearoff_rolls([0] * 6, db=db)
    assert p[0] == 1 and p[1:].sum() == 0
    assert bearoff_rolls(side({1: 1}), db=db)[0] == 0


def test_every_position_of_up_to_three_checkers_matches_a_solver_written_from_the_rules(db):
    checked = 0
    for counts in itertools.product(range(4), repeat=6):
        if 0 < sum(counts) <= 3:
            exact = [float(p) for p in exact_rolls(counts)]
            got = db.rolls(list(counts))
            np.testing.assert_allclose(got[:len(exact)], exact, atol=1e-14, err_msg=str(counts))
            assert got[len(exact):].sum() == 0
            checked += 1
    assert checked == 83


def test_two_checkers_on_the_six_point_need_a_double_of_threes_or_more_to_go_in_one_roll(db):
    assert db.rolls(side({6: 2}))[1] == pytest.approx(4 / 36, abs=1e-15)


def test_distributions_sum_to_one_and_means_agree(db):
    rolls = db._rolls
    np.testing.assert_allclose(rolls.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(rolls @ np.arange(rolls.shape[1]), db._mean, atol=1e-12)


def test_index_round_trip_is_the_combinatorial_number_system():
    n = _core.bearoff_n_positions(6, 15)
    assert n == 54_264
    for i in range(0, n, 97):
        assert _core.bearoff_index(_core.bearoff_position(i, 6, 15)) == i
    assert _core.bearoff_index(np.zeros(6, dtype=np.int8)) == 0


def test_r16_first_checker_off_fifteen_on_the_six_point(db):
    # With 14 checkers left on the 6-point no die may bear off from a lower point (R16), so
    # one roll suffices iff some of its steps add up to exactly 6: a 6, 5-1, 4-2, 3-3, 2-2.
    exact_six = sum(6 in (a, b) or a + b == 6 and a != b or a == b and 6 % a == 0 and 6 // a <= 4
                    for a, b in ALL_36)
    assert exact_six == 17
    first = db.first_off(side({6: 15}))
    assert first[1] == pytest.approx(exact_six / 36, abs=1e-15)
    assert first.sum() == pytest.approx(1.0, abs=1e-12)
    assert db.first_off(side({1: 15}))[1] == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(ValueError, match="all 15"):
        db.first_off(side({6: 14}))


@pytest.mark.oracle
def test_all_54264_one_sided_positions_against_gnubg(db):
    gnubg_nn = pytest.importorskip("gnubg_nn")
    # Near ties: where two plays' expected rolls differ by < 1e-4, gnubg (which builds from
    # 16-bit rounded tables) may pick the other one; those positions (and the ones that play
    # into them) only need the same mean.  Ours is exact, so it is never worse.
    rolls, mean, _, _, ties = _core.bearoff_build_one_sided(6, 15, db.max_rolls + 1, 1e-4)
    tie_below = functools.lru_cache(maxsize=None)(lambda idx: _tie_upstream(ties, idx, tie_below))
    strict = 0
    for idx in range(1, len(mean)):
        counts = tuple(int(c) for c in _core.bearoff_position(idx, 6, 15))
        theirs = np.array(gnubg_nn.bearoff_probabilities(counts))
        ours = db.rolls(list(counts))
        assert ours[len(theirs) + 1:].sum() < 1e-4, counts
        their_mean = float(np.arange(1, len(theirs) + 1) @ theirs)
        # gnubg's entries are rounded to 1/65535: its mean is off by at most this much.
        rounding = 0.5 / 65535 * len(theirs) * (len(theirs) + 1) / 2
        assert mean[idx] <= their_mean + rounding, counts
        assert abs(mean[idx] - their_mean) <= rounding + 1e-4, counts
        if np.abs(ours[1:len(theirs) + 1] - theirs).max() <= 1e-4:
            strict += 1
        else:
            assert tie_below(idx), f"{counts} differs from gnubg without a near tie"
    assert strict > 54_000


def _tie_upstream(ties, idx, tie_below) -> bool:
    """A near tie at this position or at any position it can play to."""
    if ties[idx]:
        return True
    counts = _core.bearoff_position(idx, 6, 15)
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 1:7] = counts
    board[0, 0] = 15 - int(counts.sum())
    board[1, 0] = 15
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            for r in _core.generate(board, d1, d2):
                j = _core.bearoff_index(np.ascontiguousarray(r[0, 1:7]))
                if j and tie_below(j):
                    return True
    return False


# ------------------------------------------------------------- two-sided
@pytest.mark.parametrize("mine,theirs", list(itertools.product(range(1, 7), repeat=2)))
def test_one_checker_each_exact_win_probability(db, mine, theirs):
    # I win at once, or after missing (then I surely finish next roll) if the opponent misses.
    s_me, s_them = one_roll_chance(mine), one_roll_chance(theirs)
    expected = s_me + (1 - s_me) * (1 - s_them)
    position = pos(f"x {mine}:1; o {theirs}:1")
    assert bearoff_win_probability(position.position_id(), db=db) == pytest.approx(
        float(expected), abs=1e-6)


@pytest.mark.oracle
def test_six_checker_pairs_against_gnubg_two_sided_database(db):
    gnubg_nn = pytest.importorskip("gnubg_nn")
    rng = np.random.default_rng(2024)
    n6 = _core.bearoff_n_positions(6, 6)
    for _ in range(3000):
        a, b = (int(x) for x in rng.integers(1, n6, 2))
        mine, theirs = _core.bearoff_position(a, 6, 6), _core.bearoff_position(b, 6, 6)
        board = np.zeros((2, 26), dtype=np.int8)
        board[0, 1:7], board[1, 1:7] = mine, theirs
        board[:, 0] = 15 - board[:, 1:7].sum(axis=1)
        gnubg_board = [[int(c) for c in board[1, 1:26]], [int(c) for c in board[0, 1:26]]]
        theirs_win = gnubg_nn.probabilities(gnubg_board, gnubg_nn.p_bearoff)[0]
        assert db.tables.win(board) == pytest.approx(theirs_win, abs=1e-4), (mine, theirs)


def test_win_probability_outside_the_database_says_why(db):
    with pytest.raises(ValueError, match="outside its home board"):
        db.win_probability(pos("x 7:1; o 1:1"))
    with pytest.raises(ValueError, match="opponent has 7 checkers left"):
        db.win_probability(pos("x 1:1; o 1:7"))


def test_best_play_maximises_the_exact_win_probability(db):
    position = pos("x 6:2 5:1 4:1 2:1; o 6:1 5:1 3:1")
    for d1, d2 in [(2, 1), (4, 3), (6, 1), (1, 1), (5, 2)]:
        best = bearoff_best_play(position, d1, d2, db=db)
        values = {}
        for play in position.plays(d1, d2):
            after = play.position.sides_switched()
            values[play.position] = 1.0 if play.position.board[0, 0] == 15 else (
                1 - db.win_probability(after))
        assert values[best] == pytest.approx(max(values.values()), abs=1e-7)


def test_best_play_outside_a_bear_off_is_refused(db):
    with pytest.raises(ValueError, match="pure bear-off"):
        db.best_play(pos("x 13:1; o 1:1"), 3, 1)


def test_race_outside_the_two_sided_database_is_flagged_approximate(db):
    # My last checker goes off at once; the opponent has all 15 on the board: a sure gammon.
    race = db.race(pos("x 1:1; o 6:5 5:5 4:5"))
    assert not race.exact
    assert race.win == pytest.approx(1.0) and race.win_gammon == pytest.approx(1.0)
    exact = db.race(pos("x 6:1; o 6:1"))
    assert exact.exact and exact.win == pytest.approx(13 / 16, abs=1e-6)


# ------------------------------------------------------------- files
def _copy_db(db, tmp_path) -> BearoffDatabase:
    for path in db.directory.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    return BearoffDatabase(tmp_path, two_sided_checkers=TWO_SIDED, build=False)


def _one_sided_file(directory):
    return directory / "bearoff1-p6-c15.tfdb"


def test_a_corrupt_payload_is_detected_and_not_rebuilt(db, tmp_path):
    _copy_db(db, tmp_path)
    path = _one_sided_file(tmp_path)
    data = bytearray(path.read_bytes())
    data[-100] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(BearoffDatabaseError, match="checksum") as info:
        BearoffDatabase(tmp_path, two_sided_checkers=TWO_SIDED)
    assert str(path) in str(info.value) and "tavli-bearoff --rebuild" in str(info.value)
    assert path.read_bytes() == bytes(data)


@pytest.mark.parametrize("what,offset,value,message", [
    ("magic", 0, b"NOTADB\0\0", "magic"),
    ("version", 8, struct.pack("<I", 99), "format version 99"),
])
def test_foreign_files_are_rejected(db, tmp_path, what, offset, value, message):
    _copy_db(db, tmp_path)
    path = _one_sided_file(tmp_path)
    data = bytearray(path.read_bytes())
    data[offset:offset + len(value)] = value
    path.write_bytes(bytes(data))
    with pytest.raises(BearoffDatabaseError, match=message):
        BearoffDatabase(tmp_path, two_sided_checkers=TWO_SIDED)


def test_a_truncated_file_is_rejected(db, tmp_path):
    _copy_db(db, tmp_path)
    path = _one_sided_file(tmp_path)
    path.write_bytes(path.read_bytes()[:-64])
    with pytest.raises(BearoffDatabaseError, match="bytes"):
        BearoffDatabase(tmp_path, two_sided_checkers=TWO_SIDED)


def test_header_is_self_describing(db):
    data = _one_sided_file(db.directory).read_bytes()
    magic, version, length = struct.unpack("<8sII", data[:16])
    header = json.loads(data[16:16 + length])
    assert magic == b"TAVLIBO\0" and version == 1
    assert header["kind"] == "one-sided" and header["points"] == 6 and header["checkers"] == 15
    shapes = {a["name"]: a["shape"] for a in header["arrays"]}
    assert shapes["rolls"] == [54_264, db.max_rolls + 1]
    assert len(header["sha256"]) == 64


def test_missing_database_without_build_raises(tmp_path):
    with pytest.raises(FileNotFoundError):
        BearoffDatabase(tmp_path, build=False)


def test_cache_directory_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TAVLI_FAST_CACHE", str(tmp_path))
    assert cache_directory() == tmp_path
    assert cache_directory(tmp_path / "x") == tmp_path / "x"


def test_a_small_database_builds_on_first_use_with_a_log_line(tmp_path, caplog):
    caplog.set_level("INFO", logger="tavli_fast.play.bearoff")
    small = BearoffDatabase(tmp_path, points=6, checkers=3, two_sided_checkers=2)
    assert any("building the one-sided" in r.message for r in caplog.records)
    assert small.mean_rolls(side({6: 1})) == 1.25
    with pytest.raises(ValueError, match="up to 3"):
        small.rolls(side({1: 4}))


def test_larger_database_on_seven_points_agrees_on_home_positions(db, tmp_path):
    seven = BearoffDatabase(tmp_path, points=7, checkers=3, two_sided_checkers=0)
    for counts in ([0, 0, 0, 0, 0, 3], [1, 0, 2, 0, 0, 0], [0, 0, 0, 1, 1, 1]):
        np.testing.assert_allclose(seven.rolls(counts)[:8], db.rolls(counts)[:8], atol=1e-14)
    # One checker on the 7-point: off in one roll iff the roll has >= 7 pips.
    s = sum((4 * a if a == b else a + b) >= 7 for a, b in ALL_36) / 36
    assert seven.rolls([0] * 6 + [1])[1] == pytest.approx(s, abs=1e-15)


def test_bad_checker_counts_are_refused(db):
    with pytest.raises(ValueError):
        db.rolls([1, -1, 0, 0, 0, 0])
    with pytest.raises(ValueError, match="above point 6"):
        db.rolls([0, 0, 0, 0, 0, 0, 1])


# ------------------------------------------------------------- command line
def test_cli_reports_mean_epc_wastage_and_exact_win(db, capsys):
    position = pos("x 6:1; o 6:1")
    assert cli_main(["--position", position.position_id(), "--cache-dir", str(db.directory),
                     "--two-sided", str(TWO_SIDED), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    me = report["sides"]["on_roll"]
    assert me["mean_rolls"] == 1.25 and me["pips"] == 6
    assert me["epc"] == pytest.approx(1.25 * 49 / 6)
    assert me["wastage"] == pytest.approx(1.25 * 49 / 6 - 6)
    assert report["race"] == {"win": pytest.approx(13 / 16, abs=1e-6), "win_gammon": 0.0,
                              "lose_gammon": 0.0, "exact": True}


def test_cli_table_output(db, capsys):
    assert cli_main(["--position", pos("x 1:15; o 1:2").position_id(), "--cache-dir",
                     str(db.directory), "--two-sided", str(TWO_SIDED)]) == 0
    out = capsys.readouterr().out
    assert "mean rolls 6.9796" in out and "approximate" in out


@pytest.mark.parametrize("argv", [["--position", "garbage"], [],
                                  ["--position", "4HPwATDgc/ABMA"]])
def test_cli_bad_input_is_one_line_exit_2(db, capsys, argv):
    assert cli_main(argv + ["--cache-dir", str(db.directory), "--two-sided", str(TWO_SIDED)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_corrupt_database_exit_1_names_the_rebuild(db, tmp_path, capsys):
    _copy_db(db, tmp_path)
    path = _one_sided_file(tmp_path)
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    argv = ["--position", pos("x 6:1; o 6:1").position_id(), "--cache-dir", str(tmp_path),
            "--two-sided", str(TWO_SIDED)]
    assert cli_main(argv) == 1
    assert "--rebuild" in capsys.readouterr().err
    assert cli_main(argv + ["--rebuild"]) == 0
    assert "mean rolls 1.2500" in capsys.readouterr().out
