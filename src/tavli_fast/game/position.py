"""The immutable Position (seen from the player on roll), its GameContext (``context.py``),
and the text ids.

Formats read and written here:

* gnubg Position ID: 14 characters, base64 (no padding) of an 80-bit key. The key holds the
  player NOT on roll first, then the player on roll; for each side, from its ace point up to
  its bar, one 1 bit per checker then a 0 bit. Bit i of the key is bit ``i % 8`` of byte
  ``i // 8``. (GNU Backgammon manual, "A technical description of the Position ID".)
* XGID (eXtreme Gammon): ``XGID=<26 chars>:<cube log2>:<cube owner>:<turn>:<dice>:<score
  bottom>:<score top>:<flag>:<match length>:<max cube log2>``; see ../shared/RULES.md.
* gnubg ID ``PositionID:MatchID`` (14 + 1 + 12 characters), as gnubg shows and pastes it; the
  Match ID (cube, score, turn, dice) is read and written by ``matchid.py``.
* ``Position.parse``: a readable fixture format, ``"x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

from .. import _core
from ..errors import InvalidPositionError, VariantIdError, check_dice
from .context import GameContext
from .matchid import format_match_id, parse_match_id
from .notation import format_plays

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

__all__ = ["GameContext", "Play", "Position", "OFF", "BAR", "CHECKERS"]

OFF = 0  #: board index of the borne-off checkers
BAR = 25  #: board index of the bar
CHECKERS = 15  #: checkers per side

_B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_CHARS = re.compile(r"[A-Za-z0-9+/]*")


@dataclass(frozen=True)
class Play:
    """One legal play: the position it leads to and its GNU Backgammon notation."""

    position: Position
    notation: str


class Position:
    """A backgammon position seen by the player on roll: ``board[0]`` is mine and ``board[1]``
    the opponent's, each in its own numbering (index 0 borne off, 1..24 points, 25 bar).

    Immutable and hashable; equality compares the board and the GameContext. My point ``p``
    is the opponent's point ``25 - p``.
    """

    __slots__ = ("_board", "_context", "_hash")

    _board: np.ndarray
    _context: GameContext

    # ----------------------------------------------------------------- constructors
    def __init__(self, board: ArrayLike, context: GameContext | None = None) -> None:
        array = _validated_board(board)
        if context is None:
            context = GameContext()
        elif not isinstance(context, GameContext):
            raise TypeError(f"context must be a GameContext, got {type(context).__name__}")
        array.flags.writeable = False
        object.__setattr__(self, "_board", array)
        object.__setattr__(self, "_context", context)
        object.__setattr__(self, "_hash", hash((array.tobytes(), context)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Position is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Position is immutable")

    def __reduce__(self):  # pickling works although __setattr__ is blocked
        return (Position, (np.array(self._board), self._context))

    @classmethod
    def initial(cls, context: GameContext | None = None) -> Position:
        """The starting position (R3): 2 on 24, 5 on 13, 3 on 8, 5 on 6 for both sides."""
        return cls.parse("x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5", context)

    @classmethod
    def from_board(cls, board: ArrayLike, context: GameContext | None = None) -> Position:
        """A position from a (2, 26) board in the layout above (validated; copied)."""
        return cls(board, context)

    @classmethod
    def from_id(cls, text: str) -> Position:
        """Read a gnubg Position ID (14 chars), a gnubg ID ``PositionID:MatchID`` or an XGID
        (``XGID=`` prefix optional, so a pasted XGID may start with ``-``)."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"a position id is a str, got {type(text).__name__}")
        stripped = text.strip()
        try:
            if stripped.count(":") == 1:  # an XGID has 9
                return cls.from_gnubg_id(stripped)
            if stripped.upper().startswith("XGID=") or ":" in stripped:
                return cls.from_xgid(stripped)
            if len(stripped) == 14:
                return cls.from_position_id(stripped)
            raise InvalidPositionError(
                f"{text!r} is neither a gnubg Position ID (14 base64 characters) nor an XGID "
                f"(10 fields separated by ':')"
            )
        except InvalidPositionError:
            game = _variant_game(stripped)
            if game is None:
                raise
            raise VariantIdError(stripped, game) from None

    @classmethod
    def from_position_id(cls, text: str, context: GameContext | None = None) -> Position:
        """Read a gnubg Position ID; the context is the default (money, no dice) unless given."""
        return cls(_board_from_position_id(text), context)

    @classmethod
    def from_gnubg_id(cls, text: str) -> Position:
        """Read gnubg's ``PositionID:MatchID``; the player on roll in the Match ID is on roll."""
        if not isinstance(text, str):
            raise InvalidPositionError(f"a gnubg ID is a str, got {type(text).__name__}")
        parts = text.strip().split(":")
        if len(parts) != 2:
            raise InvalidPositionError(
                f"a gnubg ID is 'PositionID:MatchID' (14 + 12 characters), got {text.strip()!r}"
            )
        context, _ = parse_match_id(parts[1])
        return cls(_board_from_position_id(parts[0]), context)

    @classmethod
    def from_xgid(cls, text: str) -> Position:
        """Read an XGID; the player whose turn it is becomes the player on roll."""
        board, context = _parse_xgid(text)
        return cls(board, context)

    @classmethod
    def parse(cls, text: str, context: GameContext | None = None) -> Position:
        """Read ``"x 24:2 13:5 bar:1; o 6:5 off:10"``: x is on roll, o the opponent, each
        side ``point:count`` pairs in its own numbering (``bar``, ``off`` allowed). Checkers
        not listed are borne off, so ``off:`` is optional; if given the side must total 15.
        """
        return cls(_parse_fixture(text), context)

    # ----------------------------------------------------------------- accessors
    @property
    def board(self) -> np.ndarray:
        """The read-only (2, 26) int8 board."""
        return self._board

    @property
    def context(self) -> GameContext:
        return self._context

    def with_context(self, context: GameContext) -> Position:
        return Position(self._board, context)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return self._context == other._context and np.array_equal(self._board, other._board)

    def __hash__(self) -> int:
        return self._hash

    # ----------------------------------------------------------------- game facts
    def pip_counts(self) -> tuple[int, int]:
        """(my pip count, the opponent's); a checker on the bar counts 25."""
        weights = np.arange(26)
        return int(self._board[0] @ weights), int(self._board[1] @ weights)

    def sides_switched(self) -> Position:
        """The same position seen by the opponent (now on roll); context swapped, dice cleared."""
        return Position(self._board[::-1], self._context.sides_switched())

    def _back_point(self, side: int) -> int:
        """The highest point (25 = bar) where ``side`` has a checker in play, 0 if none."""
        occupied = np.nonzero(self._board[side, 1:])[0]
        return int(occupied[-1]) + 1 if occupied.size else 0

    def is_race(self) -> bool:
        """True when no contact is left: every checker of mine is past every opposing one
        (the engine's own test, the one the players and the race net use)."""
        return bool(_core.races(self._board[None])[0])   # _board: C-contiguous int8

    def is_bearoff(self) -> bool:
        """True when both sides have all their checkers in play in their home boards."""
        return self._back_point(0) <= 6 and self._back_point(1) <= 6

    def is_game_over(self) -> bool:
        """True when a side has borne off all 15 checkers (R19): nobody moves any more."""
        return bool(self._board[0, OFF] == CHECKERS or self._board[1, OFF] == CHECKERS)

    def can_bear_off(self) -> bool:
        """True when the player on roll may bear off (R14): nothing on the bar or on 7-24."""
        return self._back_point(0) <= 6

    # ----------------------------------------------------------------- plays
    def plays(self, die1: int, die2: int) -> list[Play]:
        """Every distinct legal play with these dice; each ``Play.position`` is the result with
        sides NOT switched (as ``movegen.generate_positions`` returns it)."""
        results = generate_positions(self, die1, die2)
        texts = format_plays(self, die1, die2)  # one pass instead of format_play per result
        return [Play(after, texts[after.board.tobytes()]) for after in results]

    # ----------------------------------------------------------------- text ids
    def position_id(self) -> str:
        """The gnubg Position ID (14 characters)."""
        return _position_id(self._board)

    def match_id(self) -> str:
        """gnubg's Match ID (12 characters) of the context; the side on roll is player 1."""
        return format_match_id(self._context)

    def gnubg_id(self) -> str:
        """``PositionID:MatchID`` as gnubg shows it (and reads it with ``set gnubgid``)."""
        return f"{self.position_id()}:{self.match_id()}"

    def xgid(self) -> str:
        """The full XGID. The player on roll is written as the bottom player, turn 1."""
        return _format_xgid(self._board, self._context)

    def __repr__(self) -> str:
        return f"Position.from_id({self.xgid()!r})" if self._context != GameContext() else (
            f"Position.from_id({self.position_id()!r})"
        )

    def __str__(self) -> str:
        return _draw(self)


# --------------------------------------------------------------------- move generation
# movegen's generate_positions and require_game_in_progress live here, beside the Position
# whose plays() needs them (movegen imports this module); movegen gives them under its name.
def require_game_in_progress(position: Position) -> None:
    """Raise InvalidPositionError for a finished game (a side has borne off all 15)."""
    if position.is_game_over():
        raise InvalidPositionError(
            f"the game is over in {position.position_id()}: a side has borne off all 15 checkers"
        )


def generate_positions(position: Position, die1: int, die2: int) -> list[Position]:
    """The distinct ``Position``s reachable with (die1, die2), sides not switched.

    A play that bears off the last checker gives a finished position (the
    mover with 15 off); a finished position itself has no plays.
    """
    d1, d2 = check_dice(die1, die2)
    require_game_in_progress(position)
    boards = _core.generate(position.board, d1, d2)
    return [Position.from_board(board) for board in boards]


# --------------------------------------------------------------------- validation
def _validated_board(board: ArrayLike) -> np.ndarray:
    """A C-contiguous int8 copy of ``board`` after every rule of a legal position is checked."""
    try:
        raw = np.array(board)
    except Exception as exc:  # ragged lists and the like
        raise InvalidPositionError(f"board is not a (2, 26) array of counts: {exc}") from None
    if raw.shape != (2, 26):
        raise InvalidPositionError(f"board must have shape (2, 26), got {raw.shape}")
    if raw.dtype.kind not in "iu":
        raise InvalidPositionError(f"board must hold integers, got dtype {raw.dtype}")
    counts = raw.astype(np.int64)
    names = ("player on roll", "opponent")
    for side in (0, 1):
        negative = np.nonzero(counts[side] < 0)[0]
        if negative.size:
            raise InvalidPositionError(
                f"{names[side]} has a negative count at index {int(negative[0])}"
            )
        total = int(counts[side].sum())
        if total != CHECKERS:
            raise InvalidPositionError(
                f"{names[side]} has {total} checkers (board, bar and off), must have 15"
            )
    for point in range(1, 25):
        if counts[0, point] and counts[1, 25 - point]:
            raise InvalidPositionError(
                f"both sides have checkers on point {point} of the player on roll "
                f"(the opponent's {25 - point})"
            )
    if counts[0, OFF] == CHECKERS and counts[1, OFF] == CHECKERS:
        raise InvalidPositionError("both sides have borne off all 15 checkers")
    # One side with all 15 off is a finished game: the result of a winning play
    # (sides not switched) or the final position after it.  Position holds it;
    # move generation, simulation and rollouts refuse it (see is_game_over).
    return np.ascontiguousarray(counts, dtype=np.int8)


#: Readers of the other games' text ids: each takes a text and returns the name of its game
#: ("plakoto", "fevga") when the text is a valid id of it, else None. The variants register
#: theirs (variants/position.py): this layer does not import the one above it.
OTHER_GAME_IDS: list[Callable[[str], str | None]] = []


def _variant_game(text: str) -> str | None:
    """The game of which `text` is a valid text id, else None: a user who pastes one where a
    backgammon id belongs is told so rather than why it is not one."""
    for reader in OTHER_GAME_IDS:
        game = reader(text)
        if game is not None:
            return game
    return None


# --------------------------------------------------------------------- gnubg Position ID
def _position_id(board: np.ndarray) -> str:
    return _core.encode_position_id(board)


# Error codes of the core's decoder (_posid.pxi), worded for users.
_DECODE_ERRORS = {
    2: "runs out of bits: more than 30 checkers are encoded",
    3: "gives the opponent more than 15 checkers",
    7: "gives the player on roll more than 15 checkers",
    4: "puts both colours on one point",
    5: "has its last character's 4 padding bits set: padding bits must be zero",
    8: "has bits set after the end of the key (after both sides' 25 points)",
    6: "says both sides have borne off all 15 checkers",
}


def _board_from_position_id(text: str) -> np.ndarray:
    if not isinstance(text, str):
        raise InvalidPositionError(f"a Position ID is a str, got {type(text).__name__}")
    pid = text.strip()
    if len(pid) != 14:
        raise InvalidPositionError(
            f"a gnubg Position ID has 14 characters, {pid!r} has {len(pid)}"
        )
    if not _B64_CHARS.fullmatch(pid):
        bad = next(c for c in pid if not _B64_CHARS.fullmatch(c))
        raise InvalidPositionError(f"Position ID {pid!r} has a non-base64 character {bad!r}")
    board, error = _core.decode_position_id(pid)
    if error:
        reason = _DECODE_ERRORS.get(error, f"is not a legal position (code {error})")
        raise InvalidPositionError(f"Position ID {pid!r} {reason}")
    return board


# --------------------------------------------------------------------- XGID
_XGID_FIELDS = (
    "position", "cube", "cube owner", "turn", "dice", "score bottom", "score top",
    "flag", "match length", "max cube",
)


def _xgid_char(count: int, upper: bool) -> str:
    if count == 0:
        return "-"
    return chr((ord("A") if upper else ord("a")) + count - 1)


def _format_xgid(board: np.ndarray, context: GameContext) -> str:
    chars = [_xgid_char(int(board[1, BAR]), upper=False)]
    for c in range(1, 25):
        if board[0, c]:
            chars.append(_xgid_char(int(board[0, c]), upper=True))
        else:
            chars.append(_xgid_char(int(board[1, 25 - c]), upper=False))
    chars.append(_xgid_char(int(board[0, BAR]), upper=True))
    owner = {"centre": 0, "me": 1, "opponent": -1}[context.cube_owner]
    dice = "00" if context.dice is None else f"{context.dice[0]}{context.dice[1]}"
    if context.is_money:
        flag = int(context.jacoby) + 2 * int(context.beaver)
    else:
        flag = int(context.crawford)
    fields = [
        "".join(chars),
        str(context.cube_value.bit_length() - 1),
        str(owner),
        "1",
        dice,
        str(context.score[0]),
        str(context.score[1]),
        str(flag),
        str(context.match_length),
        str(context.max_cube.bit_length() - 1),
    ]
    return "XGID=" + ":".join(fields)


def _xgid_int(fields: list[str], index: int, allowed: range | None = None) -> int:
    text = fields[index]
    name = _XGID_FIELDS[index]
    if not re.fullmatch(r"-?[0-9]+", text):
        raise InvalidPositionError(f"XGID field {index + 1} ({name}) must be an integer, got {text!r}")
    value = int(text)
    if allowed is not None and value not in allowed:
        raise InvalidPositionError(
            f"XGID field {index + 1} ({name}) must be from {allowed.start} to "
            f"{allowed.stop - 1}, got {value}"
        )
    return value


def _parse_xgid(text: str) -> tuple[np.ndarray, GameContext]:
    if not isinstance(text, str):
        raise InvalidPositionError(f"an XGID is a str, got {type(text).__name__}")
    body = text.strip()
    if body.upper().startswith("XGID="):
        body = body[5:]
    fields = body.split(":")
    if len(fields) != 10:
        raise InvalidPositionError(
            f"an XGID has 10 fields separated by ':', {text.strip()!r} has {len(fields)}"
        )
    chars = fields[0]
    if len(chars) != 26:
        raise InvalidPositionError(
            f"the XGID position field has 26 characters, {chars!r} has {len(chars)}"
        )
    bad = [c for c in chars if not re.fullmatch(r"[-A-Oa-o]", c)]
    if bad:
        raise InvalidPositionError(
            f"bad character {bad[0]!r} in the XGID position field "
            f"(allowed: '-', 'A'..'O', 'a'..'o')"
        )
    cube_log2 = _xgid_int(fields, 1, range(0, 31))
    owner = _xgid_int(fields, 2, range(-1, 2))
    turn = _xgid_int(fields, 3)
    if turn not in (-1, 1):
        raise InvalidPositionError(f"XGID field 4 (turn) must be 1 or -1, got {turn}")
    dice_text = fields[4]
    if dice_text == "00":
        dice = None
    elif re.fullmatch(r"[1-6][1-6]", dice_text):
        dice = (int(dice_text[0]), int(dice_text[1]))
    else:
        raise InvalidPositionError(
            f"XGID field 5 (dice) must be '00' or two digits 1-6, got {dice_text!r}"
            + (" (doubled/beavered/resigned states are not supported)"
               if dice_text in ("D", "B", "R") else "")
        )
    score_bottom = _xgid_int(fields, 5, range(0, 1 << 15))
    score_top = _xgid_int(fields, 6, range(0, 1 << 15))
    flag = _xgid_int(fields, 7)
    match_length = _xgid_int(fields, 8, range(0, 1 << 15))
    max_cube_log2 = _xgid_int(fields, 9, range(0, 31))
    if match_length == 0 and flag not in range(4):
        raise InvalidPositionError(
            f"XGID field 8 (flag) in money play is Jacoby (bit 0) + beavers (bit 1), got {flag}"
        )
    if match_length > 0 and flag not in (0, 1):
        raise InvalidPositionError(
            f"XGID field 8 (flag) in a match is 0 or 1 (Crawford game), got {flag}"
        )

    # Counts in the bottom player's view: bottom row = uppercase, top row = lowercase.
    bottom = np.zeros(26, dtype=np.int64)
    top = np.zeros(26, dtype=np.int64)
    for c, ch in enumerate(chars):
        if ch == "-":
            continue
        count = ord(ch.upper()) - ord("A") + 1
        if ch.isupper():
            if c == 0:
                raise InvalidPositionError(
                    "XGID character 0 is the top player's bar: it must be lowercase or '-'"
                )
            bottom[c] = count  # c == 25 is the bottom bar
        else:
            if c == 25:
                raise InvalidPositionError(
                    "XGID character 25 is the bottom player's bar: it must be uppercase or '-'"
                )
            top[25 - c] = count  # c == 0 -> top's bar (index 25)
    for name, row in (("bottom", bottom), ("top", top)):
        total = int(row.sum())
        if total > CHECKERS:
            raise InvalidPositionError(f"XGID gives the {name} player {total} checkers (at most 15)")
        row[OFF] = CHECKERS - total

    mine, theirs = (bottom, top) if turn == 1 else (top, bottom)
    relative_owner = {0: "centre", turn: "me", -turn: "opponent"}[owner]
    score = (score_bottom, score_top) if turn == 1 else (score_top, score_bottom)
    context = GameContext(
        cube_value=1 << cube_log2,
        cube_owner=relative_owner,  # type: ignore[arg-type]
        dice=dice,
        score=score,
        match_length=match_length,
        crawford=bool(flag) if match_length else False,
        jacoby=bool(flag & 1) if not match_length else False,
        beaver=bool(flag & 2) if not match_length else False,
        max_cube=1 << max_cube_log2,
    )
    return np.stack([mine, theirs]), context


# --------------------------------------------------------------------- fixture text
_TOKEN = re.compile(r"(bar|off|[0-9]+):([0-9]+)")


def _parse_fixture(text: str) -> np.ndarray:
    if not isinstance(text, str):
        raise InvalidPositionError(f"position text must be a str, got {type(text).__name__}")
    parts = [part.split() for part in text.split(";")]
    if len(parts) != 2:
        raise InvalidPositionError(
            f"expected two sides separated by ';' ('x ...; o ...'), got {text!r}"
        )
    board = np.zeros((2, 26), dtype=np.int64)
    seen: set[str] = set()
    for tokens in parts:
        if not tokens or tokens[0] not in ("x", "o"):
            raise InvalidPositionError(
                f"each side starts with 'x' (on roll) or 'o' (opponent), got {' '.join(tokens)!r}"
            )
        name = tokens[0]
        if name in seen:
            raise InvalidPositionError(f"side {name!r} is given twice in {text!r}")
        seen.add(name)
        row = board[0 if name == "x" else 1]
        given_off = None
        for token in tokens[1:]:
            match = _TOKEN.fullmatch(token)
            if not match:
                raise InvalidPositionError(
                    f"bad token {token!r} for side {name!r}: use point:count, bar:count, off:count"
                )
            where, count = match.group(1), int(match.group(2))
            index = {"bar": BAR, "off": OFF}.get(where)
            if index is None:
                index = int(where)
                if not 1 <= index <= 24:
                    raise InvalidPositionError(f"point {index} of side {name!r} is not in 1..24")
            if row[index] or (index == OFF and given_off is not None):
                raise InvalidPositionError(f"{where} of side {name!r} is given twice")
            if index == OFF:
                given_off = count
            row[index] = count
        in_play = int(row[1:].sum())
        if in_play > CHECKERS:
            raise InvalidPositionError(f"side {name!r} has {in_play} checkers in play (at most 15)")
        if given_off is not None and given_off + in_play != CHECKERS:
            raise InvalidPositionError(
                f"side {name!r}: off:{given_off} plus {in_play} in play is not 15"
            )
        row[OFF] = CHECKERS - in_play
    return board


# --------------------------------------------------------------------- drawing
def _cell(count: int, row: int, mark: str) -> str:
    """One 3-character point cell, row 0 nearest the board edge (stack of up to 5 shown)."""
    if count > 5 and row == 4:
        return f"{count:>2} " if count > 9 else f" {count} "
    return f" {mark} " if count > row else "   "


def _draw(position: Position) -> str:
    """An ASCII board in the layout of gnubg's ``show board`` (X = on roll, at the bottom)."""
    board = position.board
    ctx = position.context

    def point_cell(point: int, row: int) -> str:
        if board[0, point]:
            return _cell(int(board[0, point]), row, "X")
        return _cell(int(board[1, 25 - point]), row, "O")

    top_points = list(range(13, 19)), list(range(19, 25))
    bottom_points = list(range(12, 6, -1)), list(range(6, 0, -1))
    pips = position.pip_counts()
    right_top = [
        f"O: opponent   pips {pips[1]}   off {int(board[1, OFF])}",
        "", "", "", "",
    ]
    right_bottom = [
        "", "", "",
        f"Rolled {ctx.dice[0]}{ctx.dice[1]}" if ctx.dice else "On roll",
        f"X: on roll    pips {pips[0]}   off {int(board[0, OFF])}",
    ]
    cube = f"Cube: {ctx.cube_value}" + (
        "" if ctx.cube_owner == "centre" else f" (owned by {'X' if ctx.cube_owner == 'me' else 'O'})"
    )
    if ctx.match_length:
        cube += f"   {ctx.match_length}-point match, X {ctx.score[0]} - O {ctx.score[1]}"
        cube += "   Crawford" if ctx.crawford else ""

    lines = [f" Position ID: {position.position_id()}", f" XGID: {position.xgid()}"]
    lines.append(" +13-14-15-16-17-18------19-20-21-22-23-24-+")
    for row in range(5):
        left = "".join(point_cell(p, row) for p in top_points[0])
        right = "".join(point_cell(p, row) for p in top_points[1])
        bar = _cell(int(board[1, BAR]), row, "O")
        lines.append(f" |{left}|{bar}|{right}|     {right_top[row]}".rstrip())
    lines.append(f"v|                  |BAR|                  |     {cube}")
    for row in range(4, -1, -1):
        left = "".join(point_cell(p, row) for p in bottom_points[0])
        right = "".join(point_cell(p, row) for p in bottom_points[1])
        bar = _cell(int(board[0, BAR]), row, "X")
        lines.append(f" |{left}|{bar}|{right}|     {right_bottom[4 - row]}".rstrip())
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")
    return "\n".join(lines)
