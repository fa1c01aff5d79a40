"""Properties every move-generation result must have, on many positions x dice (hypothesis).

Positions come from two sources: positions of random games (tests/helpers.random_positions, when
gnubg_nn is installed) and boards drawn directly by hypothesis (any legal arrangement: many
checkers on the bar, bear-offs, blots everywhere), which reach corners real games rarely do.

The checks below use only the rules (RULES.md R7-R18): a small single-die step function written
here for the test, never the engine's own code.  Most properties are checked on the boards of the
core kernel (``_core.generate``, which movegen wraps), so that plays that win the game (the mover
has 15 off, not a position anyone is on roll in) are covered too; the public functions are
compared with it in test_results_are_distinct_and_id_round_trips.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import base64

import tavli_fast
from tavli_fast import _core
from tavli_fast.game.movegen import generate_positions
from tavli_fast.game.position import Position

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]  # both orders of each non-double
SETTINGS = settings(
    derandomize=True,
    max_examples=150,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
WEIGHTS = np.arange(26)  # pips per index: off = 0, point p = p, bar = 25


# ------------------------------------------------------------------------- position sources
def _game_positions() -> list[np.ndarray]:
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:
        return []
    from helpers import random_positions

    return [np.array(p.board) for p in random_positions(600, seed=7)]


GAME_BOARDS = _game_positions()


@st.composite
def drawn_boards(draw) -> np.ndarray:
    """Any legal board: 15 checkers a side, no point shared, nobody has borne off all 15
    (the player on roll having won already is not a position)."""
    style = draw(st.sampled_from(["anywhere", "home", "almost home", "bar", "race"]))
    if style == "home":  # bearing off
        mine = draw(st.lists(st.integers(0, 6), min_size=15, max_size=15))
    elif style == "almost home":  # one checker still outside, on the bar or about to come in
        mine = draw(st.lists(st.integers(0, 6), min_size=14, max_size=14))
        mine.append(draw(st.integers(7, 25)))
    else:
        pool = {
            "bar": [25] * 10 + list(range(0, 26)),
            "race": list(range(0, 13)),
            "anywhere": list(range(0, 26)),
        }[style]
        mine = draw(st.lists(st.sampled_from(pool), min_size=15, max_size=15))
    board = np.zeros((2, 26), dtype=np.int8)
    for where in mine:
        board[0, where] += 1
    if board[0, 0] == 15:
        board[0, 0], board[0, 1] = 14, 1
    # The opponent may use its bar, off and every point of its own that I do not hold.
    free = [0, 25] + [q for q in range(1, 25) if board[0, 25 - q] == 0]
    if style == "race":
        free = [0] + [q for q in free if 1 <= q < 25 - max(np.nonzero(board[0, 1:])[0] + 1)]
        free = free or [0]
    theirs = draw(st.lists(st.sampled_from(free), min_size=15, max_size=15))
    for where in theirs:
        board[1, where] += 1
    if board[1, 0] == 15:
        board[1, 0] = 14
        board[1, 25] = 1
    return board


def boards() -> st.SearchStrategy[np.ndarray]:
    if GAME_BOARDS:
        return st.one_of(st.sampled_from(GAME_BOARDS), drawn_boards())
    return drawn_boards()


# ------------------------------------------------------------------------- the rules, one die
def single_die_moves(board: np.ndarray, die: int) -> list[np.ndarray]:
    """Every board after one legal move of ``die`` pips by the player on roll (R7, R11-R17)."""
    me, them = board[0], board[1]

    def is_open(point: int) -> bool:  # my point -> the opponent's 25 - point
        return them[25 - point] <= 1

    def moved(src: int, dst: int) -> np.ndarray:
        after = board.copy()
        after[0, src] -= 1
        after[0, dst] += 1
        if dst and after[1, 25 - dst] == 1:
            after[1, 25 - dst] = 0
            after[1, 25] += 1
        return after

    if me[25]:
        return [moved(25, 25 - die)] if is_open(25 - die) else []
    may_bear_off = me[7:26].sum() == 0
    out = []
    for src in range(1, 25):
        if not me[src]:
            continue
        dst = src - die
        if dst >= 1:
            if is_open(dst):
                out.append(moved(src, dst))
        elif may_bear_off and (dst == 0 or me[src + 1 : 7].sum() == 0):
            out.append(moved(src, 0))
    return out


def maximal_plays(board: np.ndarray, d1: int, d2: int) -> tuple[int, set[bytes]]:
    """(the most dice that can be played, the set of final boards playing that many),
    with the larger-die rule (R10) for a non-double of which only one die can be played."""

    def after(boards: list[np.ndarray], die: int) -> list[np.ndarray]:
        return [b2 for b in boards for b2 in single_die_moves(b, die)]

    if d1 == d2:
        level, used = [board], 0
        for _ in range(4):
            seen: dict[bytes, np.ndarray] = {}
            for b in after(level, d1):
                seen.setdefault(b.tobytes(), b)
            if not seen:
                break
            level, used = list(seen.values()), used + 1
        return used, {b.tobytes() for b in level}
    first1, first2 = after([board], d1), after([board], d2)
    both = after(first1, d2) + after(first2, d1)
    if both:
        return 2, {b.tobytes() for b in both}
    larger = first1 if d1 > d2 else first2
    smaller = first2 if d1 > d2 else first1
    if larger:
        return 1, {b.tobytes() for b in larger}
    if smaller:
        return 1, {b.tobytes() for b in smaller}
    return 0, {board.tobytes()}


def results_of(board: np.ndarray, d1: int, d2: int) -> list[np.ndarray]:
    """The kernel's resulting boards (sides not switched)."""
    out = np.asarray(_core.generate(np.ascontiguousarray(board, dtype=np.int8), d1, d2))
    assert out.ndim == 3 and out.shape[1:] == (2, 26) and out.dtype == np.int8
    return [np.array(b) for b in out]


def position_id(board: np.ndarray) -> str:
    """gnubg Position ID from its definition (RULES.md), written here independently."""
    bits: list[int] = []
    for side in (1, 0):  # the player not on roll first
        for index in range(1, 26):
            bits += [1] * int(board[side, index]) + [0]
    bits += [0] * (80 - len(bits))
    key = bytearray(10)
    for i, bit in enumerate(bits):
        key[i // 8] |= bit << (i % 8)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def pips(row: np.ndarray) -> int:
    return int(row @ WEIGHTS)


def bore_off(before: np.ndarray, after: np.ndarray) -> bool:
    return after[0, 0] > before[0, 0]


# ------------------------------------------------------------------------- properties
@SETTINGS
@given(boards(), st.sampled_from(ROLLS))
def test_checker_conservation(board, dice):
    for after in results_of(board, *dice):
        assert after.shape == (2, 26)
        assert after.dtype == np.int8
        assert (after >= 0).all()
        assert after[0].sum() == 15 and after[1].sum() == 15
        assert after[1, 0] == board[1, 0], "the opponent's borne-off checkers never change"
        for point in range(1, 25):  # no point is held by both sides
            assert not (after[0, point] and after[1, 25 - point])


@SETTINGS
@given(boards(), st.sampled_from(ROLLS))
def test_opponent_only_loses_hit_blots_to_the_bar(board, dice):
    for after in results_of(board, *dice):
        hit = 0
        for q in range(1, 25):
            if after[1, q] != board[1, q]:
                assert board[1, q] == 1 and after[1, q] == 0, f"opponent's point {q} changed"
                hit += 1
                # The blot was hit by a checker of mine landing on (or passing through) it:
                # that point lies between some start and end of my checkers' moves, i.e. I had
                # a checker on it or above it before.
                assert board[0, 25 - q :].sum() > 0
        assert after[1, 25] == board[1, 25] + hit
        assert hit <= (4 if dice[0] == dice[1] else 2)


@SETTINGS
@given(boards(), st.sampled_from(ROLLS))
def test_checkers_move_forward_only(board, dice):
    d1, d2 = dice
    most = 4 * d1 if d1 == d2 else d1 + d2
    for after in results_of(board, *dice):
        # For every threshold t, the number of my checkers at t or higher (bar = 25) never grows.
        before_above = np.cumsum(board[0, ::-1])
        after_above = np.cumsum(after[0, ::-1])
        assert (after_above <= before_above).all(), "a checker of mine moved backwards"
        drop = pips(board[0]) - pips(after[0])
        assert 0 <= drop <= most
        if not bore_off(board, after):
            # Without bear-off each die used moves exactly its pips.
            possible = {0, d1, d2, d1 + d2} if d1 != d2 else {k * d1 for k in range(5)}
            assert drop in possible


@SETTINGS
@given(boards(), st.sampled_from(ROLLS))
def test_bar_checkers_enter_before_any_other_checker_moves(board, dice):
    on_bar = int(board[0, 25])
    if not on_bar:
        return
    d1, d2 = dice
    n_dice = 4 if d1 == d2 else 2
    for after in results_of(board, *dice):
        assert not bore_off(board, after), "no bear-off with a checker on the bar (R14)"
        entered = on_bar - int(after[0, 25])
        assert entered >= 0
        if after[0, 25] or on_bar >= n_dice:
            # Every die went into entering (or was lost): the other checkers did not move,
            # and entered checkers stand on entry points (my 19..24).
            delta = after[0, 1:25].astype(int) - board[0, 1:25]
            assert (delta >= 0).all(), "a checker moved while another was still on the bar"
            assert delta[:18].sum() == 0
            assert delta.sum() == entered
            for point in range(19, 25):
                if delta[point - 1]:
                    assert 25 - point in dice


@SETTINGS
@given(boards(), st.sampled_from(ROLLS))
def test_as_many_dice_as_possible_and_the_larger_die(board, dice):
    # Every result plays the most dice that can be played (R10), the larger die when only one can,
    # and every such play is listed.
    d1, d2 = dice
    results = results_of(board, d1, d2)
    used, expected = maximal_plays(board, d1, d2)
    got = {after.tobytes() for after in results}
    if used == 0:
        assert len(results) == 1 and np.array_equal(results[0], board), "a pass is one result"
    assert got == expected
    no_bear_off = [a for a in results if not bore_off(board, a)]
    drops = {pips(board[0]) - pips(a[0]) for a in no_bear_off}
    assert len(drops) <= 1, f"results use different numbers of pips: {drops}"
    if drops and (d1 == d2 or used != 1):
        # the pips of the most dice that can be played (none, 1..4 moves of a double, both dice)
        assert drops == {used * d1 if d1 == d2 else (d1 + d2 if used == 2 else 0)}
    if used == 1 and d1 != d2 and drops:
        larger_playable = bool(single_die_moves(board, max(d1, d2)))
        assert drops == ({max(d1, d2)} if larger_playable else {min(d1, d2)})


@SETTINGS
@given(boards(), st.sampled_from(ROLLS))
def test_results_are_distinct_and_id_round_trips(board, dice):
    boards = results_of(board, *dice)
    keys = {b.tobytes() for b in boards}
    assert len(keys) == len(boards), "the same resulting board is listed twice"
    ids = [position_id(b) for b in boards]
    assert len(set(ids)) == len(ids)
    start = Position.from_board(board)
    assert start.position_id() == position_id(board)
    assert Position.from_id(start.position_id()) == start
    by_id = tavli_fast.legal_positions(start.position_id(), *dice)
    assert sorted(by_id) == sorted(ids), "legal_positions disagrees with the kernel"
    if len(boards) > 1:
        assert start.position_id() not in ids, "a real play never leaves the board unchanged"
    finished = [b for b in boards if b[0, 0] == 15]
    for b in boards:
        if b[0, 0] < 15:  # a won game is not a position to be on roll in
            assert np.array_equal(np.asarray(Position.from_id(position_id(b)).board), b)
    if not finished:
        public = generate_positions(start, *dice)
        assert all(isinstance(p, Position) for p in public)
        assert sorted(p.position_id() for p in public) == sorted(ids)


@SETTINGS
@given(boards(), st.sampled_from(ROLLS))
def test_dice_order_does_not_matter(board, dice):
    d1, d2 = dice
    one = {a.tobytes() for a in results_of(board, d1, d2)}
    two = {a.tobytes() for a in results_of(board, d2, d1)}
    assert one == two


def test_sources_cover_contact_bar_and_bear_off():
    """The game positions used above include the kinds of position that matter."""
    if not GAME_BOARDS:
        pytest.skip("gnubg_nn not installed: only drawn boards are used")
    positions = [Position.from_board(b) for b in GAME_BOARDS]
    assert sum(not p.is_race() for p in positions) >= 100
    assert sum(p.board[0, 25] > 0 for p in positions) >= 10
    assert sum(p.can_bear_off() for p in positions) >= 30
