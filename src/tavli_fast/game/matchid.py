"""GNU Backgammon's Match ID: the cube, score, match length, turn and dice in 12 characters.

The Match ID is the standard base64 encoding (no padding) of a 9-byte key; bit ``i`` of the
key is bit ``i % 8`` of byte ``i // 8``. Fields, from bit 0 (GNU Backgammon manual, "A
technical description of the Match ID"):

====== ===== ==========================================================================
bits   width field
====== ===== ==========================================================================
0-3    4     log2 of the cube value
4-5    2     cube owner: 0 player 0, 1 player 1, 3 centred
6      1     player on roll (the dice owner)
7      1     Crawford game
8-10   3     game state: 0 none, 1 playing, 2 over, 3 resigned, 4 ended by a drop
11     1     whose decision it is (differs from bit 6 only while a double is offered)
12     1     a double is being offered
13-14  2     resignation offered (0 none)
15-20  3+3   the dice (0 and 0: not rolled yet); gnubg writes the larger die first
21-35  15    match length (0: money play)
36-50  15    player 0's score
51-65  15    player 1's score
66     1     Jacoby rule *off* (gnubg stores the negation)
====== ===== ==========================================================================

The Position ID beside it (``PositionID:MatchID``) is written for the player on roll, so
the context read here is relative to that player. Only a game in play with no double or
resignation pending is read; beavers and the maximum cube are not part of the Match ID
(they keep GameContext's defaults). In money play gnubg's scores are a session's tally,
which no rule uses: they are dropped when read and written as 0.
"""

from __future__ import annotations

import base64
import binascii
import re

from ..errors import InvalidPositionError
from .context import GameContext

__all__ = ["parse_match_id", "format_match_id", "MATCH_ID_LENGTH"]

MATCH_ID_LENGTH = 12
_KEY_BITS = 67
_CENTRED = 3
_PLAYING = 1
_STATES = {0: "no game started", 2: "the game is over", 3: "the game was resigned",
           4: "the game ended by a dropped cube"}
_BASE64 = re.compile(r"[A-Za-z0-9+/]*")


def _field(key: int, start: int, width: int) -> int:
    return (key >> start) & ((1 << width) - 1)


def parse_match_id(text: str) -> tuple[GameContext, int]:
    """(context seen by the player on roll, gnubg's number 0/1 of that player).

    InvalidPositionError names the Match ID and what is wrong with it.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"a Match ID is a str, got {type(text).__name__}")
    mid = text.strip()
    if len(mid) != MATCH_ID_LENGTH:
        raise InvalidPositionError(
            f"a gnubg Match ID has {MATCH_ID_LENGTH} characters, {mid!r} has {len(mid)}"
        )
    if not _BASE64.fullmatch(mid):
        bad = next(c for c in mid if not _BASE64.fullmatch(c))
        raise InvalidPositionError(f"Match ID {mid!r} has a non-base64 character {bad!r}")
    try:
        key = int.from_bytes(base64.b64decode(mid, validate=True), "little")
    except binascii.Error as exc:  # pragma: no cover - the checks above rule it out
        raise InvalidPositionError(f"Match ID {mid!r} is not base64: {exc}") from None

    def bad(reason: str) -> InvalidPositionError:
        return InvalidPositionError(f"Match ID {mid!r} {reason}")

    if key >> _KEY_BITS:
        raise bad(f"has bits set after its {_KEY_BITS}-bit key: padding bits must be zero")
    owner = _field(key, 4, 2)
    on_roll = _field(key, 6, 1)
    state = _field(key, 8, 3)
    if owner == 2:
        raise bad("has cube owner code 2 (0 and 1 are the players, 3 is centred)")
    if state != _PLAYING:
        reason = _STATES.get(state, f"has an unknown game state {state}")
        raise bad(f"is not a game in play: {reason}")
    if _field(key, 12, 1):
        raise bad("has a double offered: only positions before or after the roll are read")
    if _field(key, 13, 2):
        raise bad("has a resignation offered: only positions before or after the roll are read")
    if _field(key, 11, 1) != on_roll:
        raise bad("gives the decision to the player not on roll without a double offered")
    dice = (_field(key, 15, 3), _field(key, 18, 3))
    if dice != (0, 0) and not all(1 <= d <= 6 for d in dice):
        raise bad(f"has dice {dice[0]} and {dice[1]}: both 0 (not rolled) or both 1-6")
    match_length = _field(key, 21, 15)
    scores = (_field(key, 36, 15), _field(key, 51, 15))
    money = match_length == 0
    try:
        context = GameContext(
            cube_value=1 << _field(key, 0, 4),
            cube_owner=(
                "centre" if owner == _CENTRED else "me" if owner == on_roll else "opponent"
            ),
            dice=None if dice == (0, 0) else dice,
            score=(0, 0) if money else (scores[on_roll], scores[1 - on_roll]),
            match_length=match_length,
            crawford=bool(_field(key, 7, 1)),
            jacoby=money and not _field(key, 66, 1),
        )
    except InvalidPositionError as exc:
        raise bad(f"describes no legal game: {exc}") from None
    return context, on_roll


def format_match_id(context: GameContext, player_on_roll: int = 1) -> str:
    """The Match ID of a game in play with ``context``, the side on roll being gnubg's player
    ``player_on_roll`` (1 by default, as gnubg numbers the side on roll of an XGID with turn 1).
    """
    if not isinstance(context, GameContext):
        raise TypeError(f"context must be a GameContext, got {type(context).__name__}")
    if player_on_roll not in (0, 1) or isinstance(player_on_roll, bool):
        raise ValueError(f"player_on_roll must be 0 or 1, got {player_on_roll!r}")
    log2 = context.cube_value.bit_length() - 1
    if log2 > 15:
        raise InvalidPositionError(
            f"a Match ID holds cube values up to 32768, got {context.cube_value}"
        )
    limit = (1 << 15) - 1
    if context.match_length > limit or max(context.score) > limit:
        raise InvalidPositionError(f"a Match ID holds match lengths and scores up to {limit}")
    owner = {"centre": _CENTRED, "me": player_on_roll, "opponent": 1 - player_on_roll}[
        context.cube_owner
    ]
    dice = (0, 0) if context.dice is None else (max(context.dice), min(context.dice))
    scores = [0, 0]
    scores[player_on_roll], scores[1 - player_on_roll] = context.score
    jacoby_off = not (context.is_money and context.jacoby)
    fields = (
        (0, log2), (4, owner), (6, player_on_roll), (7, int(context.crawford)),
        (8, _PLAYING), (11, player_on_roll), (15, dice[0]), (18, dice[1]),
        (21, context.match_length), (36, scores[0]), (51, scores[1]), (66, int(jacoby_off)),
    )
    key = 0
    for start, value in fields:
        key |= value << start
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")
