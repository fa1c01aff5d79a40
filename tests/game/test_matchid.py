"""gnubg's Match ID and the pasted pair ``PositionID:MatchID`` (matchid.py, Position.from_id),
and pasted XGIDs without their prefix on the command line.

Expected ids were worked out by hand from the GNU Backgammon manual's bit layout (see
``key`` below) and checked against gnubg itself in the oracle tests.
"""

from __future__ import annotations

import base64
import subprocess
import sys

import pytest

from tavli_fast.errors import InvalidPositionError
from tavli_fast.game.matchid import format_match_id, parse_match_id
from tavli_fast.game.position import GameContext, Position

START_ID = "4HPwATDgc/ABMA"
START_XGID_BODY = "-b----E-C---eE---c-e----B-"


def key(cube_log2=0, owner=3, on_roll=1, crawford=0, state=1, turn=None, doubled=0,
        resigned=0, dice=(0, 0), length=0, score0=0, score1=0, jacoby_off=1, extra=0) -> str:
    """A Match ID from its fields, straight from the manual's table (bit 0 first)."""
    turn = on_roll if turn is None else turn
    bits = [(cube_log2, 4), (owner, 2), (on_roll, 1), (crawford, 1), (state, 3), (turn, 1),
            (doubled, 1), (resigned, 2), (dice[0], 3), (dice[1], 3), (length, 15),
            (score0, 15), (score1, 15), (jacoby_off, 1), (extra, 5)]
    value, at = 0, 0
    for field, width in bits:
        value |= field << at
        at += width
    return base64.b64encode(value.to_bytes(9, "little")).decode()


def test_the_key_helper_agrees_with_ids_gnubg_printed():
    # Printed by gnubg for the start position: money, centred cube, Jacoby off / on.
    assert key() == "cAkAAAAAAAAE"
    assert key(jacoby_off=0) == "cAkAAAAAAAAA"
    # gnubg, 7-point match, the side on roll (player 1) has 2 points, the other 4.
    assert key(length=7, score0=4, score1=2) == "cAngAEAAEAAE"


def test_issue_example_pasted_pair_is_the_start_with_jacoby():
    p = Position.from_id("4HPwATDgc/ABMA:cAkAAAAAAAAA")
    assert p.board.tolist() == Position.initial().board.tolist()
    assert p.context == GameContext(jacoby=True)
    assert p.match_id() == "cAkAAAAAAAAA"
    assert p.gnubg_id() == "4HPwATDgc/ABMA:cAkAAAAAAAAA"
    assert Position.initial().gnubg_id() == "4HPwATDgc/ABMA:cAkAAAAAAAAE"


@pytest.mark.parametrize(
    ("match_id", "context", "on_roll"),
    [
        (key(length=7, score0=4, score1=2), GameContext(match_length=7, score=(2, 4)), 1),
        (key(on_roll=0, length=7, score0=4, score1=2),
         GameContext(match_length=7, score=(4, 2)), 0),
        (key(cube_log2=2, owner=0, on_roll=0, length=9, score0=1, score1=3),
         GameContext(cube_value=4, cube_owner="me", match_length=9, score=(1, 3)), 0),
        (key(cube_log2=1, owner=0, on_roll=1),
         GameContext(cube_value=2, cube_owner="opponent"), 1),
        (key(crawford=1, length=5, score0=4, score1=1),
         GameContext(match_length=5, score=(1, 4), crawford=True), 1),
        (key(dice=(5, 2)), GameContext(dice=(5, 2)), 1),
        # Money: gnubg's session tally is dropped; the Jacoby bit is read.
        (key(score0=3, score1=11, jacoby_off=0), GameContext(jacoby=True), 1),
        # Match: the Jacoby bit has no meaning and is ignored.
        (key(length=3, jacoby_off=0), GameContext(match_length=3), 1),
    ],
    ids=["match", "player-0-on-roll", "owned-cube", "money-opponent-owns", "crawford",
         "dice", "money-tally", "match-jacoby-bit"],
)
def test_match_id_fields_map_to_the_context_of_the_side_on_roll(match_id, context, on_roll):
    assert parse_match_id(match_id) == (context, on_roll)
    assert parse_match_id(format_match_id(context, on_roll)) == (context, on_roll)


def test_match_id_writes_the_larger_die_first_like_gnubg():
    assert format_match_id(GameContext(dice=(2, 5))) == key(dice=(5, 2))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cAkAAAAAAAA", "has 12 characters, 'cAkAAAAAAAA' has 11"),
        ("cAkAAAAAAA-E", "non-base64 character '-'"),
        (key(extra=1), "padding bits must be zero"),
        (key(owner=2), "cube owner code 2"),
        (key(state=0), "not a game in play: no game started"),
        (key(state=2), "not a game in play: the game is over"),
        (key(state=3), "not a game in play: the game was resigned"),
        (key(state=4), "not a game in play: the game ended by a dropped cube"),
        (key(state=6), "unknown game state 6"),
        (key(doubled=1, turn=0), "double offered"),
        (key(resigned=2, turn=0), "resignation offered"),
        (key(turn=0), "decision to the player not on roll"),
        (key(dice=(7, 2)), "dice 7 and 2"),
        (key(dice=(3, 0)), "dice 3 and 0"),
        (key(crawford=1), "Crawford rule only exists in match play"),
        (key(length=5, score0=5), "already won a 5-point match"),
        (key(owner=1), "owned cube has been turned"),
        (key(crawford=1, length=5, score0=2, score1=1), "a Crawford game needs a player 1 point"),
        (key(cube_log2=1, crawford=1, length=5, score0=4, owner=1), "cube is not used"),
        (key(cube_log2=11), "above the maximum cube 1024"),
    ],
)
def test_malformed_match_ids_say_what_is_wrong(text, message):
    with pytest.raises(InvalidPositionError, match=message):
        parse_match_id(text)
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_id(f"{START_ID}:{text}")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4HPwATDgc/ABM:cAkAAAAAAAAA", "Position ID has 14 characters"),
        ("4HPwATDgc/ABMA:", "Match ID has 12 characters, '' has 0"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAAA:", "an XGID has 10 fields"),
        ("4HPwATDgc/AB*A:cAkAAAAAAAAA", "non-base64 character '\\*'"),
    ],
)
def test_malformed_pairs_say_which_half_is_wrong(text, message):
    with pytest.raises(InvalidPositionError, match=message):
        Position.from_id(text)


def test_bad_arguments_to_format_match_id():
    with pytest.raises(TypeError, match="GameContext"):
        format_match_id("cAkAAAAAAAAA")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="player_on_roll must be 0 or 1"):
        format_match_id(GameContext(), 2)
    with pytest.raises(InvalidPositionError, match="up to 32768"):
        format_match_id(GameContext(cube_value=1 << 16, max_cube=1 << 16))
    with pytest.raises(InvalidPositionError, match="up to 32767"):
        format_match_id(GameContext(match_length=40000))


CONTEXTS = [
    GameContext(),
    GameContext(jacoby=True),
    GameContext(cube_value=2, cube_owner="me"),
    GameContext(cube_value=8, cube_owner="opponent", jacoby=True),
    GameContext(dice=(6, 3)),
    GameContext(dice=(4, 4), cube_value=2, cube_owner="opponent"),
    GameContext(match_length=7, score=(2, 5)),
    GameContext(match_length=7, score=(6, 3), crawford=True),
    GameContext(match_length=7, score=(3, 6)),  # post-Crawford
    GameContext(match_length=11, score=(9, 10), cube_value=4, cube_owner="me", dice=(2, 1)),
    GameContext(match_length=1),
]


@pytest.fixture(scope="module")
def positions():
    from helpers import random_positions

    return random_positions(60, seed=9)


def test_round_trip_through_the_pasted_pair(positions):
    for p in positions:
        for context in CONTEXTS:
            q = p.with_context(context)
            assert Position.from_id(q.gnubg_id()) == q


@pytest.mark.oracle
def test_gnubg_writes_the_ids_we_write_and_reads_ours(positions):
    gnubg = pytest.importorskip("gnubg")
    for p in positions[::3]:
        for context in CONTEXTS:
            q = p.with_context(context)
            gnubg.set_gnubg_id(q.xgid())  # gnubg reads our XGID ...
            assert gnubg.gnubg_id() == q.gnubg_id(), q.xgid()  # ... and writes our gnubg ID
            gnubg.set_gnubg_id(q.gnubg_id())  # it reads our gnubg ID to the same state
            assert gnubg.gnubg_id() == q.gnubg_id()


@pytest.mark.oracle
@pytest.mark.parametrize(
    "fields",
    ["0:0:-1:00:0:0:0:0", "1:1:-1:00:0:0:1:0", "2:-1:-1:31:0:0:1:0", "0:0:-1:00:2:5:0:7",
     "0:0:-1:00:6:3:1:7", "3:1:-1:54:1:2:0:9", "1:-1:1:00:3:6:0:7"],
)
def test_gnubg_ids_with_either_player_on_roll_read_like_the_xgid(fields):
    # XGID turn -1 makes gnubg's player 0 the side on roll: its ids then describe the game
    # from player 0, and must read to the same Position as the XGID does.
    gnubg = pytest.importorskip("gnubg")
    xgid = f"XGID={START_XGID_BODY}:{fields}:10"
    gnubg.set_gnubg_id(xgid)
    ours = Position.from_id(xgid)
    theirs = Position.from_id(gnubg.gnubg_id())
    assert theirs.board.tolist() == ours.board.tolist()
    dice = ours.context.dice
    expected = ours.context if dice is None else GameContext(
        **{**ours.context.__dict__, "dice": (max(dice), min(dice))})
    assert theirs.context == expected


# ----------------------------------------------------------------- command line
START_XGID_NO_PREFIX = f"{START_XGID_BODY}:0:0:1:00:0:0:0:0:10"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tavli_fast", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_takes_a_pasted_xgid_that_starts_with_a_dash():
    p = cli("--position", START_XGID_NO_PREFIX, "--trials", "72", "-j", "1", "--json",
            "--seed", "1", "--player", "random")
    assert p.returncode == 0, p.stderr
    assert '"position_id": "4HPwATDgc/ABMA"' in p.stdout


def test_cli_takes_the_pasted_pair():
    p = cli("--position", "4HPwATDgc/ABMA:cAkAAAAAAAAE", "--trials", "72", "-j", "1", "--json",
            "--seed", "1", "--player", "random")
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--position", "4HPwATDgc/ABMA:cAkAAAAAAAA"], "Match ID has 12 characters"),
        (["--position", f"{START_ID}:{key(state=2)}"], "not a game in play"),
        (["--position"], "expected one argument (write a value that starts with '-' as "
                         "--position=VALUE)"),
    ],
)
def test_cli_bad_pasted_ids_give_one_line_and_exit_2(args, message):
    p = cli(*args, "--trials", "10")
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "Traceback" not in p.stderr
    assert message in p.stderr
