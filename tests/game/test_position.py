"""Position, GameContext, gnubg Position ID and XGID: round trips, oracle checks, every error."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import from_gnubg_board, gnubg_board, pos, random_positions
from hypothesis import given, settings
from hypothesis import strategies as st

from tavli_fast import legal_positions
from tavli_fast.errors import InvalidDiceError, InvalidPositionError, check_dice
from tavli_fast.game.position import GameContext, Position

START_ID = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


# ------------------------------------------------------------------ the start position (R3)
def test_r3_initial_position_id_and_xgid():
    start = Position.initial()
    assert start.position_id() == START_ID
    assert start.xgid() == START_XGID
    assert Position.from_id(START_ID) == start
    assert Position.from_id(START_XGID) == start
    assert Position.from_id("  -b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10\n") == start


def test_r3_initial_board_layout_and_pips():
    start = Position.initial()
    expected = np.zeros(26, dtype=np.int8)
    expected[[24, 13, 8, 6]] = [2, 5, 3, 5]
    assert start.board.dtype == np.int8 and start.board.shape == (2, 26)
    assert (start.board[0] == expected).all() and (start.board[1] == expected).all()
    assert start.pip_counts() == (167, 167)
    assert not start.is_race() and not start.is_bearoff()


@pytest.mark.parametrize("mine, theirs, race", [
    (12, 12, True),    # my last checker on my 12, theirs on my 13: passed each other
    (14, 12, False),   # mine on 14 still has theirs on my 13 to pass
    (1, 23, True),     # all mine on my 1; theirs on their 23 = my 2, already past them
    (3, 23, False),    # mine on my 3 still has theirs on my 2 to pass
    (6, 6, True),      # a bear-off is a race
    (25, 1, False),    # a checker on the bar is behind everything
])
def test_is_race_by_the_back_checkers(mine, theirs, race):
    # Each side: 14 checkers on its 1-point and one on its back point (R1-R3 geometry: my
    # point p is the opponent's 25 - p).
    board = np.zeros((2, 26), dtype=np.int8)
    board[:, 1] = 14
    board[0, mine] += 1
    board[1, theirs] += 1
    assert Position(board).is_race() is race


def test_board_is_read_only_and_position_immutable():
    start = Position.initial()
    with pytest.raises(ValueError):
        start.board[0, 6] = 4
    with pytest.raises(AttributeError):
        start.context = GameContext()  # type: ignore[misc]


def test_str_draws_the_board_with_the_id():
    text = str(Position.initial())
    assert START_ID in text
    lines = text.splitlines()
    assert " +13-14-15-16-17-18------19-20-21-22-23-24-+" in lines
    assert " +12-11-10--9--8--7-------6--5--4--3--2--1-+" in lines
    # Top row: my 13 (X, 5 checkers) on the left, the opponent's 24 = my 1... see gnubg layout.
    assert " | X           O    |   | O              X |" in text
    assert "167" in text
    assert repr(Position.initial()) == f"Position.from_id('{START_ID}')"


def test_str_shows_tall_stacks_as_numbers_and_the_bar():
    p = pos("x 6:12 bar:2 13:1; o 1:2 6:9 bar:1")
    lines = str(p).splitlines()
    # My 6-point is the first cell right of the bar: its 5th checker row shows the count.
    assert any(line[25:28] == "12 " for line in lines)
    bar_rows = [line[21:24] for line in lines if line.startswith((" |", "v|"))]
    assert bar_rows.count(" O ") == 1 and bar_rows.count(" X ") == 2


def test_equality_and_hash_cover_board_and_context():
    a = Position.initial()
    b = Position.initial(GameContext(dice=(3, 1)))
    assert a != b and a == Position.initial() and hash(a) == hash(Position.initial())
    assert len({a, b, Position.initial()}) == 2


# ------------------------------------------------------------------ parse (fixtures)
def test_parse_fills_borne_off_and_accepts_explicit_off():
    p = pos("x 6:2 bar:1 off:12; o 1:3")
    assert p.board[0, 0] == 12 and p.board[0, 25] == 1 and p.board[1, 0] == 12
    assert p.pip_counts() == (2 * 6 + 25, 3)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x 6:5", "two sides separated by ';'"),
        ("x 6:5; x 6:5", "given twice"),
        ("y 6:5; o 6:5", "starts with 'x'"),
        ("x 6:5 7; o 6:5", "bad token '7'"),
        ("x 25:1; o 6:5", "point 25 of side 'x' is not in 1..24"),
        ("x 6:5 6:1; o 6:5", "6 of side 'x' is given twice"),
        ("x 6:16; o 6:5", "16 checkers in play"),
        ("x 6:5 off:9; o 6:5", "off:9 plus 5 in play is not 15"),
        ("x 6:5; o 19:1", "both sides have checkers on point 6"),
    ],
)
def test_parse_rejects_bad_text(text, message):
    with pytest.raises(InvalidPositionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Position.parse(text)


def test_opponent_with_all_checkers_off_is_the_final_position_and_allowed():
    final = pos("x 6:3; o off:15")
    assert final.pip_counts() == (18, 0)


# ------------------------------------------------------------------ from_board validation
def _start_board() -> np.ndarray:
    return np.array(Position.initial().board)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b.__setitem__((0, 6), 6), "player on roll has 16 checkers"),
        (lambda b: (b.__setitem__((1, 6), -1), b.__setitem__((1, 0), 6)), "negative count"),
        (lambda b: (b.__setitem__((0, 19), 1), b.__setitem__((0, 6), 4)), "both sides have checkers on point 19"),
        (lambda b: (b.__setitem__(0, 0), b.__setitem__((0, 0), 15), b.__setitem__(1, 0), b.__setitem__((1, 0), 15)), "both sides have borne off all 15"),
    ],
)
def test_from_board_rejects_illegal_boards(change, message):
    board = _start_board().astype(np.int64)
    change(board)
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_board(board)


def test_from_board_rejects_wrong_shape_and_dtype():
    with pytest.raises(InvalidPositionError, match=r"shape \(2, 26\)"):
        Position.from_board(np.zeros((2, 25), dtype=np.int8))
    with pytest.raises(InvalidPositionError, match="integers"):
        Position.from_board(_start_board().astype(float))


# ------------------------------------------------------------------ Position ID errors
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4HPwATDgc/ABM", "neither a gnubg Position ID"),
        ("4HPwATDgc/AB!A", "non-base64 character '!'"),
        ("4HPwATDgc/ABMB", "padding bits must be zero"),
        ("/////////////w", "gives the opponent more than 15 checkers"),
        ("//8AAAAAAAA+AA", "gives the opponent more than 15 checkers"),
        ("HwAAwP8/AAAAAA", "gives the player on roll more than 15 checkers"),
        # 30 zero bits then ones: both sides end early, but bits follow the key.
        ("AAAAAAAAAPAAAA", "bits set after the end of the key"),
        ("AAAAAAAAAAAAAA", "both sides have borne off all 15"),
    ],
)
def test_position_id_errors_say_what_is_wrong(text, message):
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_id(text)


def test_position_id_of_wrong_length_via_from_position_id():
    with pytest.raises(InvalidPositionError, match="has 13"):
        Position.from_position_id("4HPwATDgc/ABM")


# ------------------------------------------------------------------ XGID errors
BASE = "-b----E-C---eE---c-e----B-"


@pytest.mark.parametrize(
    ("xgid", "message"),
    [
        (f"{BASE}:0:0:1:00:0:0:0:0", "has 9"),
        (f"{BASE[:-1]}:0:0:1:00:0:0:0:0:10", "26 characters"),
        (f"{BASE[:-1]}x:0:0:1:00:0:0:0:0:10", "bad character 'x'"),
        (f"B{BASE[1:]}:0:0:1:00:0:0:0:0:10", "top player's bar"),
        (f"{BASE[:-1]}b:0:0:1:00:0:0:0:0:10", "bottom player's bar"),
        (f"{BASE[:-2]}AB:0:0:1:00:0:0:0:0:10", "bottom player 16 checkers"),
        (f"{BASE}:x:0:1:00:0:0:0:0:10", r"field 2 \(cube\) must be an integer"),
        (f"{BASE}:0:2:1:00:0:0:0:0:10", r"field 3 \(cube owner\) must be from -1 to 1"),
        (f"{BASE}:0:0:0:00:0:0:0:0:10", r"turn\) must be 1 or -1"),
        (f"{BASE}:0:0:1:70:0:0:0:0:10", r"dice\) must be '00' or two digits"),
        (f"{BASE}:0:0:1:D:0:0:0:0:10", "doubled/beavered"),
        (f"{BASE}:0:0:1:00:5:0:0:5:10", "has already won a 5-point match"),
        (f"{BASE}:0:0:1:00:1:0:0:0:10", "money play .* has no score"),
        (f"{BASE}:0:0:1:00:0:0:4:0:10", "Jacoby .* beavers"),
        (f"{BASE}:0:0:1:00:0:0:2:5:10", r"0 or 1 \(Crawford game\)"),
        (f"{BASE}:0:0:1:00:1:2:1:5:10", "Crawford game needs a player 1 point"),
        (f"{BASE}:1:0:1:00:4:2:1:5:10", "cube is not used in the Crawford game"),
        (f"{BASE}:0:1:1:00:0:0:0:0:10", "owned cube .* cannot be 1"),
        (f"{BASE}:4:1:1:00:0:0:0:0:3", "above the maximum cube 8"),
        (f"{BASE}:0:0:1:00:0:0:0:0:", r"max cube\) must be an integer"),
    ],
)
def test_xgid_errors_say_what_is_wrong(xgid, message):
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_xgid(xgid)


def test_r19_finished_game_is_a_position_but_has_no_plays():
    # The result of a winning play, sides not switched: the mover has all 15 off.
    won = Position.from_xgid("--------------------a-----:0:0:1:00:0:0:0:0:10")
    assert won.is_game_over() and won.pip_counts() == (0, 5)
    with pytest.raises(InvalidPositionError, match="game is over"):
        won.plays(3, 1)
    with pytest.raises(InvalidPositionError, match="game is over"):
        legal_positions(won.position_id(), 3, 1)
    assert not Position.initial().is_game_over()


# ------------------------------------------------------------------ XGID context
def test_xgid_context_fields_turn_bottom():
    p = Position.from_xgid(f"XGID={BASE}:2:1:1:52:3:1:0:7:8")
    assert p.context == GameContext(
        cube_value=4, cube_owner="me", dice=(5, 2), score=(3, 1), match_length=7, max_cube=256
    )
    assert p.xgid() == f"XGID={BASE}:2:1:1:52:3:1:0:7:8"


def test_xgid_turn_top_makes_the_top_player_on_roll():
    # The top player (lowercase) on roll: owner 1 (bottom) is then the opponent, scores swap.
    text = "XGID=-a----E-C---eE---c-e----B-:1:1:-1:31:2:4:1:5:10"
    with pytest.raises(InvalidPositionError, match="Crawford"):
        Position.from_xgid(text)  # Crawford with a cube of 2 is refused ...
    p = Position.from_xgid(text.replace(":1:1:-1:31:2:4:1:5:", ":1:1:-1:31:2:4:0:5:"))
    assert p.context.cube_owner == "opponent" and p.context.score == (4, 2)
    assert p.context.dice == (3, 1) and p.context.cube_value == 2
    # The on-roll player is the top player: 1 checker on its 24 (char 1), 5 on its 13 etc.
    assert p.board[0, 24] == 1 and p.board[0, 0] == 1
    assert p.board[1, 24] == 2 and p.pip_counts() == (167 - 24, 167)
    # Written back with the on-roll player at the bottom, turn 1.
    again = Position.from_xgid(p.xgid())
    assert again == p and p.xgid().split(":")[3] == "1"


def test_money_flags_jacoby_and_beaver_round_trip():
    p = Position.from_xgid(f"{BASE}:0:0:1:00:0:0:3:0:10")
    assert p.context.jacoby and p.context.beaver
    assert p.xgid().endswith(":0:0:3:0:10")


def test_sides_switched_swaps_context_and_clears_dice():
    p = Position.from_xgid(f"{BASE}:1:1:1:64:2:0:0:5:10")
    s = p.sides_switched()
    assert s.context.cube_owner == "opponent" and s.context.score == (0, 2)
    assert s.context.dice is None
    assert (s.board[0] == p.board[1]).all() and (s.board[1] == p.board[0]).all()


# ------------------------------------------------------------------ dice
@pytest.mark.parametrize("bad", [0, 7, -1, True, 3.0, "3", None])
def test_check_dice_rejects_non_dice(bad):
    with pytest.raises(InvalidDiceError, match="die2"):
        check_dice(3, bad)


def test_check_dice_accepts_numpy_ints():
    assert check_dice(np.int8(6), 1) == (6, 1)


# ------------------------------------------------------------------ random positions
@pytest.fixture(scope="module")
def positions():
    pytest.importorskip("gnubg_nn")
    return random_positions(1500, seed=20240601)


@pytest.mark.oracle
def test_random_positions_cover_bar_bearoff_and_race(positions):
    assert sum(p.board[0, 25] > 0 for p in positions) > 100
    assert sum(p.can_bear_off() for p in positions) > 50
    assert sum(p.is_race() for p in positions) > 50


@pytest.mark.oracle
def test_position_id_matches_gnubg_both_ways(positions):
    gnubg_nn = pytest.importorskip("gnubg_nn")
    for p in positions:
        assert p.position_id() == gnubg_nn.position_id(gnubg_board(p))
        decoded = from_gnubg_board(gnubg_nn.board_from_position_id(p.position_id()))
        assert Position.from_position_id(p.position_id()) == Position.from_board(decoded)


@pytest.mark.oracle
def test_pip_counts_match_a_direct_count(positions):
    for p in positions[:300]:
        gb = gnubg_board(p)
        expected = tuple(sum((i + 1) * n for i, n in enumerate(gb[side])) for side in (1, 0))
        assert p.pip_counts() == expected


@pytest.mark.oracle
def test_xgid_round_trips_and_gnubg_reads_it(positions):
    gnubg = pytest.importorskip("gnubg")
    for i, p in enumerate(positions):
        assert Position.from_id(p.xgid()) == p
        assert Position.from_id(p.position_id()) == p
        assert p.sides_switched().sides_switched() == p
        if i % 25 == 0:  # gnubg's own XGID reader agrees
            gnubg.set_gnubg_id(p.xgid())
            assert gnubg.gnubg_id().split(":")[0] == p.position_id()
            # The same position with the top player on roll (turn -1).
            fields = p.sides_switched().xgid().split(":")
            fields[3] = "-1"
            top = ":".join(fields)
            assert Position.from_xgid(top) == p
            gnubg.set_gnubg_id(top)
            assert gnubg.gnubg_id().split(":")[0] == p.position_id()


# ------------------------------------------------------------------ property tests
@st.composite
def boards(draw):
    """Random legal boards: checkers dropped on free points, the rest on the bar or off."""
    board = np.zeros((2, 26), dtype=np.int64)
    for side in (0, 1):
        in_play = draw(st.integers(1 if side == 0 else 0, 15))
        for _ in range(in_play):
            spot = draw(st.integers(1, 25))
            if spot == 25 or board[1 - side, 25 - spot] == 0:
                board[side, spot] += 1
        board[side, 0] = 15 - board[side, 1:].sum()
    return board


contexts = st.builds(
    GameContext,
    cube_value=st.just(1),
    dice=st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    jacoby=st.booleans(),
    beaver=st.booleans(),
    max_cube=st.sampled_from([64, 1024]),
)


@settings(max_examples=300, deadline=None)
@given(boards(), contexts)
def test_property_ids_round_trip(board, context):
    p = Position.from_board(board, context)
    assert Position.from_xgid(p.xgid()) == p
    assert Position.from_position_id(p.position_id(), context) == p
    if board[1, 0] < 15:  # else the switched position has its player on roll already won
        assert p.sides_switched().sides_switched() == p.with_context(
            GameContext(**{**context.__dict__, "dice": None})
        )
    mine, theirs = p.pip_counts()
    assert (mine, theirs) == (
        sum(i * int(board[0, i]) for i in range(26)),
        sum(i * int(board[1, i]) for i in range(26)),
    )
