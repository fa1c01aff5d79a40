"""The public Plakoto / Fevga API: the variant_plays contract of issue 12, precise errors,
text ids that round-trip, the ASCII board and the play notation."""

from __future__ import annotations

import pytest

import tavli_fast as tf
from tavli_fast import (
    FevgaPosition,
    InvalidDiceError,
    InvalidPositionError,
    PlakotoPosition,
    from_variant_id,
    variant_play_notation,
    variant_plays,
)
from tavli_fast.variants.games import random_game_positions

KEYS = {"me", "opp", "me_off", "opp_off", "me_pinned", "opp_pinned", "game_over"}


def start_dict() -> dict:
    return {"me": [0] * 23 + [15], "opp": [0] * 23 + [15], "me_off": 0, "opp_off": 0,
            "me_pinned": [], "opp_pinned": []}


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_results_are_dicts_with_the_contract_keys_and_types(game):
    results = variant_plays(game, start_dict(), 6, 5)
    assert results
    for r in results:
        assert set(r) == KEYS
        assert len(r["me"]) == 24 and len(r["opp"]) == 24
        assert all(type(c) is int for c in r["me"] + r["opp"])
        assert type(r["me_off"]) is int and type(r["game_over"]) is bool
        assert isinstance(r["me_pinned"], list) and isinstance(r["opp_pinned"], list)


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_results_are_not_swapped(game):
    # The mover moved: his own side changed, the opponent's did not (nothing is hit).
    for r in variant_plays(game, start_dict(), 3, 1):
        assert r["opp"] == start_dict()["opp"]
        assert r["me"] != start_dict()["me"]


def test_unchanged_position_once_when_nothing_can_be_played():
    # Fevga: my runner on 14 has his checkers on my 13, 12, 11 and 10 in front of it (his 1,
    # 24, 23, 22), and no other checker may leave my 24 (F4): 1-1 to 4-4 cannot be played.
    start = start_dict()
    start["me"] = [0] * 13 + [1] + [0] * 9 + [14]
    start["opp"] = [1] + [0] * 20 + [1, 1, 12]
    for d in range(1, 5):
        results = variant_plays("fevga", start, d, d)
        assert len(results) == 1
        assert results[0]["me"] == start["me"] and results[0]["opp"] == start["opp"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda p: p.update(me=[0] * 23 + [14]), "not 15"),
        (lambda p: p.update(me=[0] * 23), "24 counts"),
        (lambda p: p.update(me_off=-1), "count >= 0"),
        (lambda p: p.update(me_pinned=[5]), "not exactly one"),
        (lambda p: p.update(me=[0] * 9 + [1] + [0] * 13 + [14], me_pinned=[10]), "no opposing checker"),
        (lambda p: p.update(me_pinned=[25]), "1..24"),
        (lambda p: p.update(colour="white"), "unknown position keys"),
    ],
)
def test_plakoto_bad_positions_raise_precise_errors(change, message):
    position = start_dict()
    change(position)
    with pytest.raises(InvalidPositionError, match=message):
        variant_plays("plakoto", position, 6, 5)


def test_plakoto_two_colours_on_a_point_need_a_pin():
    position = start_dict()
    position["me"] = [1] + [0] * 22 + [14]  # my 1 is his 24, where his 15 stand
    with pytest.raises(InvalidPositionError, match="neither side is pinned"):
        variant_plays("plakoto", position, 6, 5)


def test_fevga_overlapping_checkers_raise():
    position = start_dict()
    position["me"] = [0] * 11 + [1] + [0] * 11 + [14]  # my 12 is his 24
    with pytest.raises(InvalidPositionError, match="both sides"):
        variant_plays("fevga", position, 6, 5)


def test_fevga_has_no_pins():
    position = start_dict()
    position["me_pinned"] = [24]
    with pytest.raises(InvalidPositionError, match="no pinned"):
        variant_plays("fevga", position, 6, 5)


def test_bad_game_and_dice_raise():
    with pytest.raises(ValueError, match="plakoto, fevga"):
        variant_plays("portes", start_dict(), 6, 5)
    with pytest.raises(InvalidDiceError):
        variant_plays("fevga", start_dict(), 7, 5)


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_text_ids_round_trip_on_random_game_positions(game):
    for position in random_game_positions(game, 3, seed=5):
        text = position.variant_id()
        assert text[0] == game[0].upper()
        assert from_variant_id(text) == position


def test_text_id_keeps_which_lone_checker_is_pinned():
    # Both sides have one checker on my 7 (his 18): the id must say whose is pinned.
    mine = PlakotoPosition([0] * 6 + [1] + [0] * 16 + [14], [0] * 17 + [1] + [0] * 5 + [14], 0, 0, [7], [])
    his = PlakotoPosition([0] * 6 + [1] + [0] * 16 + [14], [0] * 17 + [1] + [0] * 5 + [14], 0, 0, [], [18])
    assert mine.variant_id() != his.variant_id()
    assert from_variant_id(mine.variant_id()) == mine and from_variant_id(his.variant_id()) == his


def test_bad_text_ids_raise():
    for text in ["", "X123", "P!!!", "PAAAB"]:
        with pytest.raises(InvalidPositionError):
            from_variant_id(text)


def test_ascii_board_shows_points_checkers_and_pins():
    position = PlakotoPosition([0] * 6 + [1] + [0] * 16 + [14], [0] * 17 + [1] + [0] * 5 + [14], 0, 0, [7], [])
    text = str(position)
    assert "13-14-15-16-17-18" in text and "12-11-10--9--8--7" in text
    assert " x " in text  # my pinned checker, lower case at the foot of my 7-point
    assert position.variant_id() in text
    assert "fevga" in str(FevgaPosition.initial()).lower()


def test_notation_in_the_style_of_portes():
    assert [p.notation for p in variant_play_notation("plakoto", None, 6, 5)] == ["24/13", "24/19 24/18"]
    assert [p.notation for p in variant_play_notation("fevga", None, 6, 5)] == ["24/13"]
    # A pin is marked like a hit: 13/7* (his lone checker on his 18 = my 7).
    before = PlakotoPosition([0] * 12 + [1] + [0] * 10 + [14], [0] * 17 + [1] + [0] * 5 + [14], 0, 0)
    texts = [p.notation for p in variant_play_notation("plakoto", before, 6, 6)]
    assert "24/18(3) 13/7*" in texts


def test_notation_lists_the_same_positions_as_the_generator():
    before = random_game_positions("plakoto", 1, seed=9)[30]
    with_text = {p.position for p in variant_play_notation("plakoto", before, 4, 2)}
    assert with_text == set(tf.generate_variant_positions("plakoto", before, 4, 2))


def test_sides_switched_twice_is_the_same_position():
    for position in random_game_positions("plakoto", 1, seed=2):
        assert position.sides_switched().sides_switched() == position
