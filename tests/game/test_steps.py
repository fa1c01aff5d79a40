"""The steps of a legal play (game/steps.py), which the notation writes: hand-checked plays
naming their rules (../shared/RULES.md), and the notation from these steps against the
notation from every step sequence of the oracle (tests/oracles/backgammon.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers import SHARED, pos
from oracles.backgammon import reference_plays

import tavli_fast
from tavli_fast import _core
from tavli_fast.errors import InvalidPositionError
from tavli_fast.game import reference
from tavli_fast.game.movegen import ALL_ROLLS
from tavli_fast.game.notation import format_play, format_plays, format_steps
from tavli_fast.game.position import Position
from tavli_fast.game.steps import steps_of

START = "x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5"


def steps(before: str, after: str, roll: tuple[int, int]) -> list[tuple[int, int, bool]]:
    return steps_of(pos(before).board, pos(after).board, *roll)


def test_r8_r11_a_hit_on_the_way_is_a_step_of_its_own():
    before, after = "x 13:1 6:14; o 18:1 6:13 off:1", "x 3:1 6:14; o bar:1 6:13 off:1"
    assert steps(before, after, (6, 4)) == [(13, 7, True), (7, 3, False)]
    assert format_play(pos(before), pos(after), 6, 4) == "13/7*/3"


def test_r11_a_blot_the_result_still_shows_was_not_hit_on_the_way():
    # 13/5 with 5-3: the larger die first would hit on my 8; the result keeps that blot.
    before = "x 13:1 6:14; o 17:1 6:13 off:1"
    assert steps(before, "x 5:1 6:14; o 17:1 6:13 off:1", (5, 3)) == [(13, 10, False), (10, 5, False)]
    assert steps(before, "x 5:1 6:14; o bar:1 6:13 off:1", (5, 3)) == [(13, 8, True), (8, 5, False)]


def test_r12_the_bar_enters_first():
    before, after = "x bar:1 6:14; o 3:1 6:14", "x 22:1 6:13 5:1; o bar:1 6:14"
    assert steps(before, after, (3, 1)) == [(25, 22, True), (6, 5, False)]
    assert format_play(pos(before), pos(after), 3, 1) == "bar/22* 6/5"


def test_r12_only_some_bar_checkers_enter_and_the_turn_ends():
    before = "x bar:2 6:13; o 1:2 2:2 3:2 4:2 5:2 7:5"  # only my 19 is open: the 6 enters, the 5 not
    after = "x bar:1 19:1 6:13; o 1:2 2:2 3:2 4:2 5:2 7:5"
    assert [r.tobytes() for r in _core.generate(pos(before).board, 6, 5)] == [pos(after).board.tobytes()]
    assert steps(before, after, (6, 5)) == [(25, 19, False)]
    assert format_play(pos(before), pos(after), 6, 5) == "bar/19"


def test_r14_r18_a_checker_comes_home_then_the_other_die_bears_off():
    before, after = "x 7:1 2:1 off:13; o 13:2", "x 6:1 off:14; o 13:2"
    assert steps(before, after, (2, 1)) == [(7, 6, False), (2, 0, False)]


def test_r16_a_larger_die_bears_off_from_the_highest_point():
    before, after = "x 5:1 3:1 off:13; o 13:2", "x off:15; o 13:2"
    assert steps(before, after, (6, 4)) == [(5, 0, False), (3, 0, False)]
    assert format_play(pos(before), pos(after), 6, 4) == "5/off 3/off"


def test_r17_a_smaller_die_never_bears_off_from_a_higher_point():
    with pytest.raises(InvalidPositionError, match="no sequence of single moves"):
        steps("x 5:1 4:1 off:13; o 13:2", "x 4:1 off:14; o 13:2", (2, 1))


def test_r9_doubles_are_four_steps():
    after = "x 24:2 13:5 8:1 6:3 5:2 3:2; o 24:2 13:5 8:3 6:5"
    assert sorted(steps(START, after, (3, 3)), reverse=True) == [
        (8, 5, False), (8, 5, False), (6, 3, False), (6, 3, False)
    ]
    assert format_play(pos(START), pos(after), 3, 3) == "8/5(2) 6/3(2)"


def test_r13_a_play_that_moves_nothing_has_no_steps():
    closed = pos("x bar:1 6:14; o 1:2 2:2 3:2 4:2 5:2 6:2 7:3")
    assert steps_of(closed.board, closed.board, 6, 6) == []


def _positions() -> list[Position]:
    ids = []
    for name in ("contact.csv", "race.csv"):
        ids += (SHARED / "data" / "positions" / name).read_text().split()[:100]
    return [Position.from_id(i) for i in ids]


def test_the_notation_from_the_found_steps_equals_the_notation_from_every_oracle_sequence():
    """200 benchmark positions x 21 rolls: the same plays, and each written the same way from
    the found steps as from every step sequence of the oracle reaching it."""
    compared = 0
    for p in _positions():
        for d1, d2 in ALL_ROLLS:
            texts = format_plays(p, d1, d2)
            plays = reference_plays(p.board, d1, d2, all_orders=d1 == d2)
            assert texts.keys() == plays.keys(), (p.position_id(), d1, d2)
            for key, sequences in plays.items():
                written = {format_steps(p.board, seq) for seq in sequences}
                assert written == {texts[key]}, (p.position_id(), d1, d2, written, texts[key])
                compared += 1
    assert compared > 30_000


def test_format_play_refuses_a_result_the_generator_does_not_list():
    start = pos(START)
    after = pos("x 24:2 13:5 8:2 6:4 4:1 3:1; o 24:2 13:5 8:3 6:5")  # 8/4 6/3: not a 3-1
    with pytest.raises(InvalidPositionError, match="not a legal result of the dice 3-1"):
        format_play(start, after, 3, 1)


def test_the_old_reference_path_still_answers_with_a_deprecation_warning():
    board = pos(START).board
    with pytest.warns(DeprecationWarning, match="reference_plays is deprecated"):
        plays = reference.reference_plays(board, 3, 1)
    with pytest.warns(DeprecationWarning, match="reference_positions is deprecated"):
        assert reference.reference_positions(board, 3, 1) == set(plays)
    assert set(plays) == {r.tobytes() for r in _core.generate(board, 3, 1)}
    after = pos("x 24:2 13:5 8:2 6:4 5:2; o 24:2 13:5 8:3 6:5").board
    assert [format_steps(board, seq) for seq in plays[after.tobytes()]] == ["8/5 6/5"]


def test_no_production_module_imports_an_oracle():
    """The oracles live in tests/; the deprecated modules at their old paths are for users."""
    package = Path(tavli_fast.__file__).parent
    bad = []
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and (
                node.module.split(".")[-1] == "reference" or node.module.startswith("oracles")
            ):
                bad.append(f"{path.relative_to(package)}:{node.lineno}")
    assert not bad, bad
