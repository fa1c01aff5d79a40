"""The rules of tavli (RULES.md R5..R20), one small hand-built position per case.

Position texts: ``x`` is the player on roll (moving from 24 towards 1), ``o`` the opponent;
each side in its own numbering (my point p is the opponent's point 25 - p); missing checkers
are borne off.  Every expected set was worked out by hand from the rule text; the comment above
each case gives the reasoning, so a failing case can be re-derived without running anything.
Results of a play are positions with sides NOT switched (x has moved, x is still row 0).
"""

import importlib

import numpy as np
import pytest
from helpers import pos

import tavli_fast
from tavli_fast.game.position import Position
from tavli_fast.game.movegen import generate_positions


def board_text(board) -> str:
    """A position text (same syntax as ``pos``) for readable failure messages."""
    board = np.asarray(board)
    sides = []
    for row, name in ((0, "x"), (1, "o")):
        parts = [name]
        if board[row, 25]:
            parts.append(f"bar:{board[row, 25]}")
        parts += [f"{p}:{board[row, p]}" for p in range(24, 0, -1) if board[row, p]]
        sides.append(" ".join(parts))
    return "; ".join(sides)


def id_text(position_id: str) -> str:
    try:
        return board_text(Position.from_id(position_id).board)
    except ValueError:  # e.g. the mover has borne off all 15: not a position to be on roll in
        return position_id


def reachable(start: str, d1: int, d2: int) -> set[str]:
    """Position ids reachable from ``start`` with d1-d2, through both public entry points.

    Also checks that no result is listed twice and that the order of the dice does not matter.
    """
    position = pos(start)
    results = generate_positions(position, d1, d2)
    ids = [p.position_id() for p in results]
    assert len(ids) == len(set(ids)), "the same resulting position is listed twice"
    by_id = tavli_fast.legal_positions(position.position_id(), d1, d2)
    assert len(by_id) == len(set(by_id))
    assert set(by_id) == set(ids), "legal_positions and generate_positions disagree"
    assert set(tavli_fast.legal_positions(position.position_id(), d2, d1)) == set(ids)
    return set(ids)


def assert_plays(start: str, dice: tuple[int, int], *expected: str) -> None:
    got = reachable(start, *dice)
    want = {pos(text).position_id() for text in expected}
    missing = sorted(id_text(i) for i in want - got)
    extra = sorted(id_text(i) for i in got - want)
    assert got == want, f"{start!r} {dice}: missing {missing}, unexpected {extra}"


def assert_pass(start: str, dice: tuple[int, int]) -> None:
    """No die can be played: the only result is the unchanged position (one "pass" play)."""
    position = pos(start)
    assert tavli_fast.legal_positions(position.position_id(), *dice) == [position.position_id()]
    results = generate_positions(position, *dice)
    assert len(results) == 1
    assert np.array_equal(np.asarray(results[0].board), np.asarray(position.board))


# ---------------------------------------------------------------- R7: forwards, to open points

# The opponent's two checkers on o 24 (my point 1) stay out of the way in the R7..R12 cases.


def test_r7_each_die_moves_a_checker_forward_to_an_open_point():
    # Checkers A on 10 and B on 9, 2-1, every point open.  Sequences:
    #   A 10/8/7 -> 9,7    A 10/8 + B 9/8 -> 8,8    B 9/7 + A 10/9 -> 9,7 (same)
    #   B 9/7/6 -> 10,6    (no bear-off: both checkers are outside the home board)
    assert_plays(
        "x 10:1 9:1; o 24:2", (2, 1),
        "x 9:1 7:1; o 24:2",
        "x 8:2; o 24:2",
        "x 10:1 6:1; o 24:2",
    )


def test_r7_closed_point_cannot_be_landed_on():
    # As above, but two opposing checkers on my 8 (o 17): 10/8 and 9/8 are impossible.
    # Left: 10/9 9/7 (= 9,7) and 9/7/6 (= 10,6).
    assert_plays(
        "x 10:1 9:1; o 24:2 17:2", (2, 1),
        "x 9:1 7:1; o 24:2 17:2",
        "x 10:1 6:1; o 24:2 17:2",
    )


def test_r7_no_legal_move_forward_means_the_turn_is_lost():
    # A lone checker on 24; my 19 (o 6) and my 18 (o 7) are closed: neither 6 nor 5 can move,
    # and there is no other checker.  Backwards moves never count.
    assert_pass("x 24:1; o 7:2 6:2", (6, 5))


# ---------------------------------------------------------------- R8: one checker, both dice


def test_r8_intermediate_point_must_be_open():
    # Lone checker on 24, 6-1, my 18 (o 7) closed: 24/18/17 is illegal, 24/23/17 is legal.
    # Playing only the 1 (24/23) is not allowed because both dice can be used (R10).
    assert_plays("x 24:1; o 7:2", (6, 1), "x 17:1; o 7:2")


def test_r8_both_intermediate_points_closed_blocks_the_combined_move():
    # Lone checker on 24, 6-1, my 18 (o 7) and my 23 (o 2) closed: neither die can be played.
    assert_pass("x 24:1; o 7:2 2:2", (6, 1))


def test_r8_blot_on_the_intermediate_point_is_hit_on_the_way():
    # 24/18*/17 hits the blot on my 18 (o 7); 24/23/17 passes it by.  Two different results.
    assert_plays(
        "x 24:1; o 24:2 7:1", (6, 1),
        "x 17:1; o bar:1 24:2",
        "x 17:1; o 24:2 7:1",
    )


# ---------------------------------------------------------------- R9: doubles


def test_r9_doubles_four_moves_of_one_checker():
    # 4-4 with a lone checker on 24: 24/20/16/12/8.
    assert_plays("x 24:1; o 24:2", (4, 4), "x 8:1; o 24:2")


def test_r9_doubles_four_moves_shared_between_checkers():
    # 4-4 with two checkers on 24: the four 4s split 4+0, 3+1 or 2+2.
    assert_plays(
        "x 24:2; o 24:2", (4, 4),
        "x 24:1 8:1; o 24:2",
        "x 20:1 12:1; o 24:2",
        "x 16:2; o 24:2",
    )


# ---------------------------------------------------------------- R10: use as many dice as possible


def test_r10_must_use_both_dice_if_possible():
    # A on 24, B on 2; 6-1; my 17 (o 8) closed, my 18 open.  24/23 first would leave the 6
    # unplayable (23/17 closed, B cannot bear off while A is outside), so it is not a legal
    # play; the only way to use both dice: 24/18 and 2/1.
    assert_plays("x 24:1 2:1; o 8:2", (6, 1), "x 18:1 1:1; o 8:2")


def test_r10_larger_die_when_only_one_playable():
    # Lone checker on 24, 6-1, my 17 (o 8) closed: 24/18 or 24/23 can be played, never both
    # (18/17 and 23/17 are closed).  The larger die must be played: 24/18 only.
    assert_plays("x 24:1; o 8:2", (6, 1), "x 18:1; o 8:2")


def test_r10_smaller_die_when_the_larger_cannot_be_played():
    # As above and my 18 (o 7) closed too: the 6 is unplayable, so the 1 is played: 24/23.
    assert_plays("x 24:1; o 8:2 7:2", (6, 1), "x 23:1; o 8:2 7:2")


def test_r10_doubles_play_as_many_as_possible():
    # 4-4 with a lone checker on 24, my 12 (o 13) closed: 24/20/16 and the last two 4s are lost.
    assert_plays("x 24:1; o 13:2", (4, 4), "x 16:1; o 13:2")


def test_r10_same_final_position_is_one_play():
    # 10,9 with 2-1 has four move sequences but three distinct final positions (see R7):
    # reachable() also fails if any result is listed twice.
    ids = reachable("x 10:1 9:1; o 24:2", 2, 1)
    assert len(ids) == 3


# ---------------------------------------------------------------- R11: hitting


def test_r11_hit_sends_blot_to_bar():
    # 10,9 with 2-1 and an opposing blot on my 8 (o 17).  Without a hit: 10/9 9/7, 9/7/6.
    # With a hit: 10/8* 9/8 (8,8), 10/8*/7 (9,7), 9/8*/6 (10,6).
    assert_plays(
        "x 10:1 9:1; o 24:2 17:1", (2, 1),
        "x 9:1 7:1; o 24:2 17:1",
        "x 10:1 6:1; o 24:2 17:1",
        "x 8:2; o bar:1 24:2",
        "x 9:1 7:1; o bar:1 24:2",
        "x 10:1 6:1; o bar:1 24:2",
    )


def test_r11_checker_hits_every_blot_on_its_path():
    # 2-2 with a lone checker on 13 and opposing blots on my 11 (o 14) and my 9 (o 16):
    # 13/11*/9*/7/5, both blots go to the bar.
    assert_plays("x 13:1; o 24:2 16:1 14:1", (2, 2), "x 5:1; o bar:2 24:2")


def test_r11_entering_checker_hits_a_blot():
    # On the bar, 6-5, opposing blot on my 19 (o 6).  bar/19*/14 hits, bar/20/14 does not.
    assert_plays(
        "x bar:1; o 24:2 6:1", (6, 5),
        "x 14:1; o bar:1 24:2",
        "x 14:1; o 24:2 6:1",
    )


# ---------------------------------------------------------------- R12, R13: the bar


def test_r12_bar_entry_first():
    # bar and 10, 2-1.  The 2 enters on 23, the 1 on 24; 10 may move only after the entry.
    #   bar/23 + 10/9 -> 23,9    bar/23/22 -> 22,10    bar/24 + 10/8 -> 24,8    bar/24/22 -> 22,10
    # 10/8/7 or 10/9/7 (checker left on the bar) are illegal.
    assert_plays(
        "x bar:1 10:1; o 24:2", (2, 1),
        "x 23:1 9:1; o 24:2",
        "x 22:1 10:1; o 24:2",
        "x 24:1 8:1; o 24:2",
    )


def test_r12_two_checkers_on_the_bar_use_both_dice_to_enter():
    # bar:2 and 10, 2-1: both dice are needed to enter; 10 does not move.
    assert_plays("x bar:2 10:1; o 24:2", (2, 1), "x 24:1 23:1 10:1; o 24:2")


def test_r12_partial_entry_loses_the_rest_of_the_turn():
    # bar:2 and 8, 6-5, my 19 (o 6) closed: one checker enters with the 5 (my 20); the 6 cannot
    # enter and 8/2 is not allowed while a checker is still on the bar.
    assert_plays("x bar:2 8:1; o 6:2", (6, 5), "x bar:1 20:1 8:1; o 6:2")


def test_r12_partial_entry_with_doubles():
    # bar:5, 3-3: four checkers enter on my 22, the fifth stays on the bar; 6 never moves.
    assert_plays("x bar:5 6:10; o 24:2", (3, 3), "x bar:1 22:4 6:10; o 24:2")


def test_r12_entered_checker_can_continue():
    # Lone checker on the bar, 6-5: bar/19/14 and bar/20/14 give the same position.
    assert_plays("x bar:1; o 24:2", (6, 5), "x 14:1; o 24:2")


def test_r12_after_entering_doubles_continue_with_any_checker():
    # bar:2 and 8, 5-5: two 5s enter on my 20; the other two 5s: 20/10, 20/15 20/15 or
    # 20/15 8/3 (8/3/off is no bear-off: checkers are outside).
    assert_plays(
        "x bar:2 8:1; o 24:2", (5, 5),
        "x 20:1 10:1 8:1; o 24:2",
        "x 15:2 8:1; o 24:2",
        "x 20:1 15:1 3:1; o 24:2",
    )


def test_r12_three_on_the_bar_enter_then_fourth_die_is_free():
    # bar:3 and 6:12, 4-4: three enter on my 21; the fourth 4: 21/17 or 6/2.
    assert_plays(
        "x bar:3 6:12; o 24:2", (4, 4),
        "x 21:2 17:1 6:12; o 24:2",
        "x 21:3 6:11 2:1; o 24:2",
    )


CLOSED_BOARD = "x bar:1 13:6 8:3 6:5; o 13:2 6:3 5:2 4:2 3:2 2:2 1:2"
ALL_ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


@pytest.mark.parametrize("dice", ALL_ROLLS)
def test_r13_closed_board_dance(dice):
    # Opponent holds all six points of its home board (my 19..24): nothing enters, and with a
    # checker on the bar nothing else may move, for every roll.
    assert_pass(CLOSED_BOARD, dice)


def test_r13_no_entry_for_the_rolled_dice_loses_the_turn():
    # Only my 19 and my 20 (o 6, o 5) are closed; 6-5 cannot enter, and 13/7, 8/3 ... are not
    # allowed with a checker on the bar.
    assert_pass("x bar:1 13:6 8:3 6:5; o 13:11 6:2 5:2", (6, 5))


# ---------------------------------------------------------------- R14..R18: bearing off

# The opponent's two checkers on o 1 (my 24) stay out of the way in these cases.


def test_r14_no_bearoff_with_checker_outside():
    # 13, 2, 1 with 2-1: 2/off and 1/off are illegal while 13 is outside.
    #   13/11/10 -> 10,2,1    13/11 2/1 -> 11,1,1    (13/12 then 2 with 2 or 1: bear-off, illegal)
    assert_plays(
        "x 13:1 2:1 1:1; o 1:2", (2, 1),
        "x 10:1 2:1 1:1; o 1:2",
        "x 11:1 1:2; o 1:2",
    )


def test_r14_hit_during_bearoff():
    # On the bar with two checkers home (6, 5), 6-5, entry points open.
    #   bar/19 then 19/14 or 6/1 (5/off illegal: 19 is outside)
    #   bar/20 then 20/14 (6/off illegal)
    assert_plays(
        "x bar:1 6:1 5:1; o 1:2", (6, 5),
        "x 14:1 6:1 5:1; o 1:2",
        "x 19:1 5:1 1:1; o 1:2",
    )


def test_r15_die_equal_to_point_bears_off_from_it():
    # 6, 5, 2 with 5-2.  5: 6/1 or 5/off.  2: 6/4, 5/3 or 2/off.
    #   6/1 5/3 -> 3,2,1   6/1 2/off -> 5,1   5/off 6/4 -> 4,2   5/off 2/off -> 6
    #   (6/4 then 4 with the 5: illegal, 5 is occupied; 5/3 then 3 with the 5: illegal, 6 occupied)
    assert_plays(
        "x 6:1 5:1 2:1; o 1:2", (5, 2),
        "x 3:1 2:1 1:1; o 1:2",
        "x 5:1 1:1; o 1:2",
        "x 4:1 2:1; o 1:2",
        "x 6:1; o 1:2",
    )


def test_r16_higher_point_must_move():
    # 6, 2, 1 with 5-3.  The 5-point is empty and 6 is occupied, so the 5 must be 6/1 (never 2/off);
    # the 3 is 6/3.  Then the other die bears off from the highest point:
    #   6/1 then 3: 2/off -> 1,1       6/3 then 5: 3/off -> 2,1
    # (A wrong "5 bears off 2" would give 3,1 via 2/off 6/3.)
    assert_plays(
        "x 6:1 2:1 1:1; o 1:2", (5, 3),
        "x 1:2; o 1:2",
        "x 2:1 1:1; o 1:2",
    )


def test_r16_highest_occupied_point_bears_off():
    # 3, 2, 1 with 6-5: both dice exceed the highest point: 3/off then 2/off.
    assert_plays("x 3:1 2:1 1:1; o 1:2", (6, 5), "x 1:1; o 1:2")


def test_r17_smaller_die_never_bears_off_from_higher_point():
    # 5, 4 with 2-1: the 2- and 1-points are empty and higher points are occupied: no bear-off.
    #   5/3 4/3 -> 3,3    5/3/2 = 5/4 4/2 = 4/2 5/4 -> 4,2    4/2/1 = 4/3/1 -> 5,1
    assert_plays(
        "x 5:1 4:1; o 1:2", (2, 1),
        "x 3:2; o 1:2",
        "x 4:1 2:1; o 1:2",
        "x 5:1 1:1; o 1:2",
    )


def test_r18_bearing_off_not_compulsory():
    # 6, 3, 1 with 3-1.  3: 6/3 or 3/off.  1: 6/5, 3/2 or 1/off.
    #   6/3 3/2 (= 6/5/2 = 3/2 6/3) -> 3,2,1   (no checker borne off although that was possible)
    #   6/3 1/off -> 3,3    3/off 6/5 -> 5,1    3/off 1/off -> 6
    assert_plays(
        "x 6:1 3:1 1:1; o 1:2", (3, 1),
        "x 3:1 2:1 1:1; o 1:2",
        "x 3:2; o 1:2",
        "x 5:1 1:1; o 1:2",
        "x 6:1; o 1:2",
    )


def test_r18_checker_comes_home_with_first_die_lets_second_bear_off():
    # 7 and 3 with 4-3: 7/3 then 3/off, or 7/4 then 4/off: either way one checker is left on 3.
    # (3/off first is illegal: 7 is outside.)
    assert_plays("x 7:1 3:1; o 1:2", (4, 3), "x 3:1; o 1:2")


def test_r18_checker_comes_home_then_any_checker_may_bear_off():
    # 8 and 6 with 6-2.  8/2 2/off = 8/6 6/off -> 6 ; 6/4 8/2 = 8/2 6/4 -> 4,2.
    # (6/off before 8 is home is illegal.)
    assert_plays(
        "x 8:1 6:1; o 1:2", (6, 2),
        "x 6:1; o 1:2",
        "x 4:1 2:1; o 1:2",
    )


# ---------------------------------------------------------------- R5, R19, R20: whole games

GAMES = 200


def simulate(start: str, **kwargs):
    kwargs.setdefault("games", GAMES)
    kwargs.setdefault("players", ("random", "random"))
    kwargs.setdefault("seed", 20240611)
    return tavli_fast.simulate(pos(start), **kwargs)


def outcomes(result) -> tuple[int, ...]:
    return (
        result.win_single, result.win_gammon, result.win_backgammon,
        result.lose_single, result.lose_gammon, result.lose_backgammon,
    )


def test_r19_bearing_off_the_last_checker_wins_at_once():
    # Both sides have one checker on their 1-point; x is on roll and bears it off with any roll.
    # o has 14 off: a single game, over after one ply.
    result = simulate("x 1:1; o 1:1")
    assert result.games == GAMES
    assert outcomes(result) == (GAMES, 0, 0, 0, 0, 0)
    assert result.plies_mean == 1


@pytest.mark.parametrize("rules", ["backgammon", "portes"])
def test_r20_single_game_when_loser_has_borne_off(rules):
    # o has borne off one checker (14 on its 6-point).
    result = simulate("x 1:1; o 6:14", rules=rules)
    assert outcomes(result) == (GAMES, 0, 0, 0, 0, 0)


@pytest.mark.parametrize("rules", ["backgammon", "portes"])
def test_r20_gammon_when_loser_has_borne_off_none(rules):
    # o has all 15 in its own home board: a gammon, not a backgammon.
    result = simulate("x 1:1; o 6:15", rules=rules)
    assert outcomes(result) == (0, GAMES, 0, 0, 0, 0)


def test_r20_gammon_with_loser_in_winners_outer_board():
    # o's checker on its 18 is my 7: outside my home board, so only a gammon.
    result = simulate("x 1:1; o 18:1 6:14", rules="backgammon")
    assert outcomes(result) == (0, GAMES, 0, 0, 0, 0)


def test_r20_backgammon_with_loser_on_the_bar():
    # o has all 15 on the board and one of them on the bar.
    result = simulate("x 1:1; o bar:1 6:14", rules="backgammon")
    assert outcomes(result) == (0, 0, GAMES, 0, 0, 0)
    assert result.plies_mean == 1


def test_r20_backgammon_with_loser_in_winners_home_board():
    # o's checker on its 19 is my 6: inside my home board.
    result = simulate("x 1:1; o 19:1 6:14", rules="backgammon")
    assert outcomes(result) == (0, 0, GAMES, 0, 0, 0)


def test_r20_portes_counts_backgammons_as_gammons():
    result = simulate("x 1:1; o bar:1 6:14", rules="portes")
    assert outcomes(result) == (0, GAMES, 0, 0, 0, 0)


def test_r20_bearing_off_with_doubles_also_ends_the_game():
    # Two checkers on my 1: any roll bears both off (a double has four moves, the extra are
    # lost); o all on its 13-point (my 12) -> gammon for x.
    result = simulate("x 1:2; o 13:15", rules="backgammon")
    assert outcomes(result) == (0, GAMES, 0, 0, 0, 0)
    assert result.plies_mean == 1


# x has four checkers on its 1-point, o all 15 far away on its 13-point (my 12), so o cannot
# bear off for many turns.  A double on the first ply bears all four off at once (game over
# after 1 ply); any other roll bears off exactly two, o plays, and x bears off the last two on
# ply 3 with any roll.  So the number of plies shows whether the first roll was a double.
FOUR_ON_THE_ACE = "x 1:4; o 13:15"


def run_from(start: str, first_roll_no_doubles: bool, games: int = 400) -> np.ndarray:
    from tavli_fast import _core

    board = np.ascontiguousarray(pos(start).board, dtype=np.int8)
    return np.asarray(_core.run_games(board, games, 0, 0, 99, first_roll_no_doubles, True)[0])


def test_r5_opening_roll_is_never_a_double():
    games = 400
    totals = run_from(FOUR_ON_THE_ACE, first_roll_no_doubles=True, games=games)
    assert totals[1] == games  # every game a gammon win for x (o has none off, none in my home)
    assert totals[7] == 3 * games, "some game ended on ply 1: the opening roll was a double"
    assert totals[8] == 9 * games


def test_r5_variant_first_player_rolls_both_dice_so_doubles_happen():
    # Without the R5 opening roll about 1/6 of the games end on ply 1 (400 games: 67 expected,
    # sd 7.5; outside 30..110 has probability below 1e-6, and the seed is fixed anyway).
    games = 400
    totals = run_from(FOUR_ON_THE_ACE, first_roll_no_doubles=False, games=games)
    assert totals[1] == games
    one_ply = (3 * games - totals[7]) // 2  # each game lasts 1 or 3 plies
    assert 30 <= one_ply <= 110, one_ply


@pytest.mark.parametrize(
    ("start", "rules", "opening_rule"),
    [
        ("start", "backgammon", True),  # R5: a game from the starting position has an opening roll
        ("start", "portes", False),  # the portes preset uses the seed-003 variant (re-roll)
        (FOUR_ON_THE_ACE, "backgammon", False),  # a game from the middle has no opening roll
    ],
)
def test_r5_simulate_applies_the_opening_roll_only_from_the_start(
    monkeypatch, start, rules, opening_rule
):
    simulate_module = importlib.import_module("tavli_fast.play.simulate")  # the package attribute
    # tavli_fast.simulate is the function of the same name
    seen = []
    real = simulate_module._core.run_games

    def spy(board, n_games, player0, player1, seed, first_roll_no_doubles, *rest, **kwargs):
        seen.append(bool(first_roll_no_doubles))
        return real(board, n_games, player0, player1, seed, first_roll_no_doubles, *rest, **kwargs)

    monkeypatch.setattr(simulate_module._core, "run_games", spy)
    position = "start" if start == "start" else pos(start)
    result = tavli_fast.simulate(position, games=20, seed=5, rules=rules)
    assert result.games == 20
    assert seen == [opening_rule]
