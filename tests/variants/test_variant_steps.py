"""The steps of a legal Plakoto or Fevga play (variants/steps.py), which the display text is
made of: hand-checked plays naming their rules (../shared/RULES.md), and the text from these
steps against the text from the oracle's steps (tests/oracles/variants.py)."""

from __future__ import annotations

import pytest
from oracles.variants import fevga_plays, plakoto_plays

from tavli_fast import ALL_ROLLS, FevgaRules, PlakotoRules
from tavli_fast.errors import InvalidPositionError
from tavli_fast.game.notation import format_steps
from tavli_fast.variants import reference
from tavli_fast.variants.games import random_game_positions
from tavli_fast.variants.movegen import variant_play_notation
from tavli_fast.variants.steps import variant_steps_of
from tavli_fast.variants.text import parse_variant_text


def steps(game: str, before: str, after: str, roll: tuple[int, int], rules=None) -> list:
    board = parse_variant_text(game, before).reference_board()
    return variant_steps_of(game, board, parse_variant_text(game, after).reference_board(), *roll, rules)


def texts(game: str, before: str, roll: tuple[int, int], rules=None) -> list[str]:
    plays = variant_play_notation(game, parse_variant_text(game, before), *roll, rules)
    return [p.notation for p in plays]


def test_p2_a_pin_on_the_way_is_released_and_not_marked():
    before = "x 24:14 13:1; o 24:14 18:1"  # his 18 is my 7
    assert steps("plakoto", before, "x 24:14 3:1; o 24:14 18:1", (6, 4)) == [(13, 7), (7, 3)]
    assert texts("plakoto", before, (6, 4)) == [
        "13/3", "24/14", "24/18 13/9", "24/20 13/7*", "24/20 24/18"
    ]


def test_p2_a_pinned_checker_never_moves():
    with pytest.raises(InvalidPositionError, match="no sequence of single plakoto moves"):
        steps("plakoto", "x 24:14 13:1*; o 24:14 12:1", "x 24:14 7:1; o 24:14 12:1", (6, 5))


def test_p4_a_pinned_checker_at_home_stops_bearing_off_unless_it_counts_as_home():
    before = "x 6:2 4:1*; o 24:14 21:1"  # 6/4 is closed (P3: his checker on my pinned one)
    assert texts("plakoto", before, (6, 2)) == [""]
    counts = PlakotoRules(pinned_home_counts=True)
    assert steps("plakoto", before, "x 6:1 4:1*; o 24:14 21:1", (6, 2), counts) == [(6, 0)]
    assert texts("plakoto", before, (6, 2), counts) == ["6/off"]


def test_f3_one_opposing_checker_closes_a_point_on_the_way():
    before = "x 24:14 20:1; o 24:14 5:1"  # his 5 is my 17
    assert steps("fevga", before, "x 24:14 11:1; o 24:14 5:1", (6, 3)) == [(20, 14), (14, 11)]


def test_f4_the_runner_passes_the_mark_before_a_second_checker_leaves():
    before = "x 24:14 20:1; o 24:14 23:1"
    # Highest source first would leave 24 before the runner passed my 11: it must wait.
    assert steps("fevga", before, "x 24:13 19:1 5:1; o 24:14 23:1", (5, 5)) == [
        (20, 15), (15, 10), (24, 19), (10, 5)
    ]
    assert texts("fevga", before, (5, 5)) == ["24/14 20/10", "24/19 20/5", "24/19(2) 20/10"]


def _oracle_texts(position, d1: int, d2: int, rules) -> dict:
    board = position.reference_board()
    oracle = plakoto_plays if position.game == "plakoto" else fevga_plays
    plays = oracle(board, d1, d2, rules)
    out = {}
    for after_board, path in plays.items():
        after = type(position).from_reference_board(after_board)
        marks = {25 - q for q in after.opp_pinned - position.opp_pinned}
        out[after] = format_steps(None, path, marks)
    return out


@pytest.mark.parametrize(("game", "rules"), [
    ("plakoto", PlakotoRules()),
    ("plakoto", PlakotoRules(pinned_home_counts=True)),
    ("fevga", FevgaRules()),
    ("fevga", FevgaRules(runner_to_quarter=True, start_quarter_each_move=True)),
])
def test_the_text_from_the_found_steps_equals_the_text_from_the_oracle(game, rules):
    compared = 0
    for position in random_game_positions(game, 1, seed=31, rules=rules):
        if position.is_game_over():
            continue
        for d1, d2 in ALL_ROLLS:
            got = {p.position: p.notation for p in variant_play_notation(game, position, d1, d2, rules)}
            assert got == _oracle_texts(position, d1, d2, rules), (position.variant_id(), d1, d2)
            compared += len(got)
    assert compared > 10_000


def test_the_old_reference_path_still_answers_with_a_deprecation_warning():
    board = parse_variant_text("fevga", "x 24:14 20:1; o 24:14 23:1").reference_board()
    with pytest.warns(DeprecationWarning, match="fevga_plays is deprecated"):
        plays = reference.fevga_plays(board, 5, 5)
    assert sorted(format_steps(None, path, ()) for path in plays.values()) == [
        "24/14 20/10", "24/19 20/5", "24/19(2) 20/10"
    ]
    with pytest.warns(DeprecationWarning, match="plakoto_game_over is deprecated"):
        start = parse_variant_text("plakoto", "x 24:15; o 24:15").reference_board()
        assert not reference.plakoto_game_over(start)
    assert reference.across(1) == 13 and reference.VariantBoard is type(board)
    with pytest.raises(AttributeError, match="moved with the oracle"):
        reference.fevga_trapped  # noqa: B018
