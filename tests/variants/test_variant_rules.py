"""Plakoto and Fevga rules (RULES.md P1-P7, F1-F7) on hand-worked positions, one test per rule
or option. Expected results are worked out by hand from the rule text, never from the code.

``side({13: 1, 24: 14})`` gives the 24 counts of a side from {own point: count}; ``me`` and
``opp`` are in their own numbering (Plakoto: my p is his 25 - p; Fevga: my p is his
((p + 11) % 24) + 1).
"""

from __future__ import annotations

import pytest

from tavli_fast import FevgaRules, InvalidPositionError, PlakotoRules, variant_plays


def side(points: dict[int, int]) -> list[int]:
    counts = [0] * 24
    for point, n in points.items():
        counts[point - 1] = n
    return counts


def position(me: dict[int, int], opp: dict[int, int], me_pinned=(), opp_pinned=()) -> dict:
    return {
        "me": side(me),
        "opp": side(opp),
        "me_off": 15 - sum(me.values()),
        "opp_off": 15 - sum(opp.values()),
        "me_pinned": list(me_pinned),
        "opp_pinned": list(opp_pinned),
    }


def mine(results: list[dict]) -> list[dict[int, int]]:
    """My side of each result as {point: count}, off as point 0."""
    return [
        {**{i + 1: n for i, n in enumerate(r["me"]) if n}, **({0: r["me_off"]} if r["me_off"] else {})}
        for r in results
    ]


def same(results: list[dict], expected: list[dict[int, int]]) -> bool:
    got = mine(results)
    return len(got) == len(expected) and all(e in got for e in expected)


START = {24: 15}


# ---------------------------------------------------------------- Plakoto

def test_p1_start_all_fifteen_on_own_24_and_opposite_directions():
    # From the start, 6-5: one checker 24/13, or two checkers 24/18 24/19. The opponent's
    # checkers sit on my point 1 (his 24), far from both.
    results = variant_plays("plakoto", position(START, START), 6, 5)
    assert same(results, [{24: 14, 13: 1}, {24: 13, 18: 1, 19: 1}])
    assert all(r["opp"] == side(START) for r in results)


def test_p2_landing_on_a_lone_checker_pins_it_without_hitting():
    # His lone checker on his 18 is on my 7; my 13 lands there with the 6.
    start = position({24: 14, 13: 1}, {24: 14, 18: 1})
    pinned = [r for r in variant_plays("plakoto", start, 6, 1) if r["me"][6] == 1]
    assert pinned, "13/7 must be playable"
    for r in pinned:
        assert r["opp_pinned"] == [18]
        assert r["opp"] == side({24: 14, 18: 1}) and r["opp_off"] == 0  # nothing is hit


def test_p2_a_pinned_checker_never_moves():
    # My checker on 7 is pinned by his checker on his 18: with 6-5 only my 24s move.
    start = position({24: 14, 7: 1}, {24: 14, 18: 1}, me_pinned=[7])
    results = variant_plays("plakoto", start, 6, 5)
    assert same(results, [{24: 12, 18: 1, 19: 1, 7: 1}, {24: 13, 13: 1, 7: 1}])
    assert all(r["me_pinned"] == [7] for r in results)


def test_p2_the_pinner_may_join_his_pinning_checker():
    # I pin his checker on my 7 (his 18) with one checker; my 13 joins it with a 6.
    start = position({24: 13, 13: 1, 7: 1}, {24: 14, 18: 1}, opp_pinned=[18])
    results = variant_plays("plakoto", start, 6, 6)
    assert any(r["me"][6] >= 2 and r["opp_pinned"] == [18] for r in results)


def test_p2_leaving_a_pinned_checker_frees_it():
    # My only checker on my 7 pins his; moving it away (7/1 is blocked: his 24 holds 14, so
    # 7/2 with a 5) sets his checker free.
    start = position({24: 14, 7: 1}, {24: 14, 18: 1}, opp_pinned=[18])
    results = variant_plays("plakoto", start, 5, 5)
    freed = [r for r in results if r["me"][6] == 0]
    assert freed and all(r["opp_pinned"] == [] for r in freed)


def test_p3_point_with_opposing_checkers_on_my_pinned_checker_is_blocked():
    # My checker on 7 is pinned (his checker on top). My 13 may not land there with a 6,
    # and no other 6 is open except 24/18, so 6-6 plays only 24/18s, 18/12s and 12/6s.
    start = position({24: 13, 13: 1, 7: 1}, {24: 14, 18: 1}, me_pinned=[7])
    results = variant_plays("plakoto", start, 6, 6)
    assert results and all(r["me"][6] == 1 for r in results)


def test_p3_two_opposing_checkers_block_a_point():
    # His two checkers on his 18 (my 7) block 13/7: with 6-6 no checker ever lands on my 7.
    start = position({24: 14, 13: 1}, {24: 13, 18: 2})
    results = variant_plays("plakoto", start, 6, 6)
    assert all(r["me"][6] == 0 for r in results)


def test_p4_a_pinned_checker_in_the_home_board_stops_bearing_off():
    # 14 on my 6, one pinned on my 3 under his checker on his 22. His 14 on his 24 (my 1)
    # block 6/1, so with 6-5 nothing can be played.
    start = position({6: 14, 3: 1}, {24: 14, 22: 1}, me_pinned=[3])
    results = variant_plays("plakoto", start, 6, 5)
    assert len(results) == 1 and results[0]["me"] == start["me"] and results[0]["me_off"] == 0


def test_p4_option_pinned_checker_at_home_counts_as_home():
    # Same position; the 6 bears off from the 6-point, the 5 cannot be played (6/1 blocked,
    # and a checker on the higher 6-point forbids bearing off from below: R16-R17).
    start = position({6: 14, 3: 1}, {24: 14, 22: 1}, me_pinned=[3])
    results = variant_plays("plakoto", start, 6, 5, PlakotoRules(pinned_home_counts=True))
    assert same(results, [{6: 13, 3: 1, 0: 1}])


def test_p5_pinning_the_mother_wins_when_my_own_24_is_empty():
    # His last checker on his 24 (my 1) is alone; 7/1 pins it; I have nothing on my 24.
    start = position({7: 1, 5: 14}, {24: 1, 6: 14})
    results = variant_plays("plakoto", start, 6, 1)
    over = [r for r in results if r["me"][0] == 1]
    assert over and all(r["game_over"] and r["opp_pinned"] == [24] for r in over)
    assert all(not r["game_over"] for r in results if r["me"][0] == 0)


def test_p5_no_win_while_my_own_mother_can_still_be_caught():
    # As above but with one checker of mine still on my 24: the pin wins only if the other
    # die moves that checker off my 24 (24/23), not with 5/4.
    start = position({24: 1, 7: 1, 5: 13}, {24: 1, 6: 14})
    results = variant_plays("plakoto", start, 6, 1)
    pinned = [r for r in results if r["me"][0] == 1]
    assert any(r["me"][23] == 0 and r["game_over"] for r in pinned)
    assert any(r["me"][23] == 1 and not r["game_over"] for r in pinned)


def test_p5_a_mother_pinned_on_an_earlier_turn_wins_when_my_24_empties():
    # His mother is already pinned under my checker on my 1; my last checker leaves my 24.
    start = position({24: 1, 1: 1, 5: 13}, {24: 1, 6: 14}, opp_pinned=[24])
    results = variant_plays("plakoto", start, 2, 1)
    assert any(r["me"][23] == 0 and r["game_over"] for r in results)
    assert all(r["game_over"] == (r["me"][23] == 0) for r in results)


def test_p6_both_mothers_pinned_end_the_game():
    # My mother is pinned on my 24 by his checker on his 1; I pin his mother with 7/1.
    start = position({24: 1, 7: 1, 5: 13}, {24: 1, 1: 1, 6: 13}, me_pinned=[24])
    results = variant_plays("plakoto", start, 6, 1)
    both = [r for r in results if r["me"][0] == 1]
    assert both and all(r["game_over"] and r["opp_pinned"] == [24] and r["me_pinned"] == [24] for r in both)


def test_p6_a_position_with_both_mothers_pinned_is_over():
    over = position({24: 1, 1: 1, 5: 13}, {24: 1, 1: 1, 6: 13}, me_pinned=[24], opp_pinned=[24])
    with pytest.raises(InvalidPositionError, match="over"):
        variant_plays("plakoto", over, 6, 1)


def test_p7_bearing_off_the_last_checker_ends_the_game():
    start = position({2: 1}, {24: 15})
    results = variant_plays("plakoto", start, 6, 5)
    assert len(results) == 1 and results[0]["me_off"] == 15 and results[0]["game_over"]


# ---------------------------------------------------------------- Fevga

def test_f1_the_opponents_start_faces_my_12_point():
    # His 15 checkers on his 24 stand on my 12: from the start 6-6 plays 24/18 once, since
    # 18/12 is blocked and no second checker may leave (F4).
    results = variant_plays("fevga", position(START, START), 6, 6)
    assert same(results, [{24: 14, 18: 1}])


def test_f2_both_sides_move_the_same_way_and_bear_off_at_home():
    # His checker on his 1 stands on my 13, blocking 14/13; my last two checkers bear off.
    start = position({3: 1, 14: 1}, {1: 1, 20: 14})
    results = variant_plays("fevga", start, 1, 1)
    assert all(r["me"][12] == 0 for r in results)
    # Home: 3/off 2/off, or 3/1 with the 2 and then the 3 bears off the highest (2/off, R16).
    home = position({3: 1, 2: 1}, {1: 1, 20: 14})
    assert same(variant_plays("fevga", home, 3, 2), [{0: 15}, {1: 1, 0: 14}])


def test_f3_a_single_opposing_checker_blocks():
    # His lone checker on his 6 stands on my 18: 24/18 is impossible, so 6-5 from the start
    # can only play 24/19 and then 19/13 (F4 keeps the others at home).
    start = position(START, {24: 14, 6: 1})
    assert same(variant_plays("fevga", start, 6, 5), [{24: 14, 13: 1}])


def test_f4_no_second_checker_leaves_before_the_runner_passes():
    # My runner on 14 has not passed his start (my 12): with 2-1 it must take both dice
    # (14/11); 14/12 24/23 is not allowed. His 15 sit on his 20 (my 8).
    start = position({24: 14, 14: 1}, {20: 15})
    assert same(variant_plays("fevga", start, 2, 1), [{24: 14, 11: 1}])


def test_f4_option_runner_need_only_reach_the_start_quarter():
    start = position({24: 14, 14: 1}, {20: 15})
    results = variant_plays("fevga", start, 2, 1, FevgaRules(runner_to_quarter=True))
    assert same(results, [{24: 14, 11: 1}, {24: 13, 23: 1, 12: 1}])


def _quarter_position() -> dict:
    # Mine: 24:2, 23, 22, 21, 20 one each, 9 on my 6. His single checkers on his 2..6 and 13
    # stand on my 14..18 and my 1; his other 9 on his 14 (my 2). With 6-5 the only 5 is
    # 24/19 (which holds all of 19-24) and the only 6 after it is 19/13.
    return position(
        {24: 2, 23: 1, 22: 1, 21: 1, 20: 1, 6: 9}, {2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 13: 1, 14: 9}
    )


def test_f5_a_play_may_not_end_holding_all_of_19_to_24():
    start = position({24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 5: 1}, {20: 15})
    results = variant_plays("fevga", start, 5, 4)
    assert all(not all(r["me"][18:24]) for r in results)
    assert {24: 9, 23: 1, 22: 1, 21: 1, 20: 1, 19: 1, 1: 1} not in mine(results)  # 24/19 5/1
    assert {24: 9, 22: 1, 21: 1, 20: 1, 19: 2, 5: 1} in mine(results)  # 24/19 23/19


def test_f5_holding_the_quarter_in_the_middle_of_a_play_is_allowed():
    assert same(variant_plays("fevga", _quarter_position(), 6, 5), [{24: 1, 23: 1, 22: 1, 21: 1, 20: 1, 13: 1, 6: 9}])


def test_f5_option_judged_after_every_move():
    start = _quarter_position()
    results = variant_plays("fevga", start, 6, 5, FevgaRules(start_quarter_each_move=True))
    assert len(results) == 1 and results[0]["me"] == start["me"]


def _prime_position(me: dict[int, int]) -> dict:
    # His 15 checkers on his 10 (my 22): my points 13..18 are his 1..6, in front of him.
    return position(me, {10: 15})


def test_f6_a_prime_with_every_opposing_checker_behind_it_must_be_opened():
    start = _prime_position({13: 1, 14: 1, 15: 1, 16: 1, 17: 1, 18: 1, 5: 9})
    results = variant_plays("fevga", start, 2, 1)
    assert results and all(not all(r["me"][12:18]) for r in results)
    # Without the rule 5/3 5/4 would be a play.
    assert {13: 1, 14: 1, 15: 1, 16: 1, 17: 1, 18: 1, 5: 7, 4: 1, 3: 1} not in mine(results)


def test_f6_option_a_prime_may_not_be_built_with_every_opposing_checker_behind():
    start = _prime_position({13: 1, 14: 1, 15: 1, 16: 1, 17: 1, 19: 1, 5: 9})
    built = {13: 1, 14: 1, 15: 1, 16: 1, 17: 1, 18: 1, 5: 8, 3: 1}  # 19/18 5/3
    assert built in mine(variant_plays("fevga", start, 2, 1))
    never = mine(variant_plays("fevga", start, 2, 1, FevgaRules(prime_never_built=True)))
    assert never and built not in never and all(not all(m.get(p) for p in range(13, 19)) for m in never)


def test_f7_bearing_off_the_last_checker_ends_the_game():
    results = variant_plays("fevga", position({1: 1}, {20: 15}), 2, 1)
    assert len(results) == 1 and results[0]["me_off"] == 15 and results[0]["game_over"]
