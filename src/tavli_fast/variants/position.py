"""Positions of Plakoto and Fevga (RULES.md P1-P7, F1-F7): validation, text ids, drawing.

A position is always seen by the player on roll ("me"). ``me[i]`` is my count on my own point
i + 1 and ``opp[i]`` the opponent's count on HIS own point i + 1; neither game has a bar.
Plakoto also records pinned checkers (P2): ``me_pinned`` lists my own point numbers where
one of my checkers is pinned (it is counted in ``me``), ``opp_pinned`` the opponent's, in his
numbering. Geometry: in Plakoto my point p is his 25 - p (opposite directions, as in Portes);
in Fevga my point p is his ``across(p) = ((p + 11) % 24) + 1`` (same direction, F1).

Text id: a game letter (``P`` or ``F``) then base64 of a bit string: for me, then for the
opponent, points 1..24 each as one 1 bit per checker and a 0 bit (borne-off checkers are
implicit, as in gnubg's Position ID); then, Plakoto only, one bit for each of my points
(ascending) where each side has exactly one checker: 1 if mine is the pinned one. Every other
pin follows from the counts (the pinned side is the one with a single checker).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, Mapping

import numpy as np

from ..errors import InvalidPositionError
from ..game.position import _B64_ALPHABET, OTHER_GAME_IDS, _cell
from .board import VariantBoard, across

__all__ = [
    "Game",
    "GAMES",
    "VariantPosition",
    "PlakotoPosition",
    "FevgaPosition",
    "variant_position",
    "from_variant_id",
    "looks_like_variant_text",
    "parse_variant_text",
    "variant_text",
]

Game = Literal["plakoto", "fevga"]
GAMES: tuple[str, ...] = ("plakoto", "fevga")
CHECKERS = 15
_KEYS = ("me", "opp", "me_off", "opp_off", "me_pinned", "opp_pinned", "game_over")


def _counts(value: object, name: str) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise InvalidPositionError(f"{name} must be a list of 24 counts, got {value!r}")
    counts = list(value)  # type: ignore[call-overload]
    if len(counts) != 24:
        raise InvalidPositionError(f"{name} must have 24 counts (points 1..24), got {len(counts)}")
    for i, c in enumerate(counts):
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)) or c < 0:
            raise InvalidPositionError(f"{name}[{i}] (point {i + 1}) must be a count >= 0, got {c!r}")
    return tuple(int(c) for c in counts)


def _count(value: object, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InvalidPositionError(f"{name} must be a count >= 0, got {value!r}")
    return int(value)


def _points(value: object, name: str) -> frozenset[int]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise InvalidPositionError(f"{name} must be a list of point numbers, got {value!r}")
    points = list(value)  # type: ignore[call-overload]
    for p in points:
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)) or not 1 <= p <= 24:
            raise InvalidPositionError(f"{name} must hold point numbers 1..24, got {p!r}")
    if len(set(points)) != len(points):
        raise InvalidPositionError(f"{name} lists a point twice: {points}")
    return frozenset(int(p) for p in points)


@dataclass(frozen=True)
class VariantPosition:
    """A Plakoto or Fevga position, always seen by the player on roll (no bar in either game).

    ``me``/``opp``: 24 counts, index i = that side's OWN point i + 1; ``*_off``: borne off;
    ``*_pinned``: Plakoto only, the side's own points where its checker is pinned.
    Construct through :class:`PlakotoPosition` or :class:`FevgaPosition`, which check the rules.
    """

    me: tuple[int, ...]
    opp: tuple[int, ...]
    me_off: int
    opp_off: int
    me_pinned: frozenset[int] = field(default_factory=frozenset)
    opp_pinned: frozenset[int] = field(default_factory=frozenset)

    game: ClassVar[str] = ""
    letter: ClassVar[str] = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "me", _counts(self.me, "me"))
        object.__setattr__(self, "opp", _counts(self.opp, "opp"))
        object.__setattr__(self, "me_off", _count(self.me_off, "me_off"))
        object.__setattr__(self, "opp_off", _count(self.opp_off, "opp_off"))
        object.__setattr__(self, "me_pinned", _points(self.me_pinned, "me_pinned"))
        object.__setattr__(self, "opp_pinned", _points(self.opp_pinned, "opp_pinned"))
        for name, counts, off in (("me", self.me, self.me_off), ("opp", self.opp, self.opp_off)):
            if sum(counts) + off != CHECKERS:
                raise InvalidPositionError(
                    f"{name} has {sum(counts)} checkers on the board and {off} off: "
                    f"{sum(counts) + off}, not {CHECKERS}"
                )
        self._check_rules()

    def _check_rules(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    # ------------------------------------------------------------ conversions
    @classmethod
    def initial(cls) -> VariantPosition:
        """The starting position (P1, F1): all 15 checkers of each side on its own 24-point."""
        start = (0,) * 23 + (CHECKERS,)
        return cls(start, start, 0, 0)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> VariantPosition:
        """From the dict of the ``variant_plays`` contract (``game_over``, if given, is ignored)."""
        if not isinstance(data, Mapping):
            raise InvalidPositionError(f"a position must be a dict, got {type(data).__name__}")
        unknown = set(data) - set(_KEYS)
        if unknown:
            raise InvalidPositionError(f"unknown position keys: {', '.join(sorted(map(str, unknown)))}")
        missing = [k for k in ("me", "opp", "me_off", "opp_off") if k not in data]
        if missing:
            raise InvalidPositionError(f"the position lacks {', '.join(missing)}")
        return cls(
            data["me"], data["opp"], data["me_off"], data["opp_off"],
            data.get("me_pinned", ()), data.get("opp_pinned", ()),
        )

    def to_dict(self) -> dict[str, Any]:
        """The dict of the ``variant_plays`` contract, ``game_over`` included."""
        return {
            "me": list(self.me),
            "opp": list(self.opp),
            "me_off": self.me_off,
            "opp_off": self.opp_off,
            "me_pinned": sorted(self.me_pinned),
            "opp_pinned": sorted(self.opp_pinned),
            "game_over": self.is_game_over(),
        }

    def reference_board(self) -> VariantBoard:
        """The plain board of ``board.py`` (index 0 = borne off, 1..24 the points) that the
        notation's step search works on (``steps.py``)."""
        return VariantBoard(
            (self.me_off,) + self.me, (self.opp_off,) + self.opp, self.me_pinned, self.opp_pinned
        )

    @classmethod
    def from_reference_board(cls, board: VariantBoard) -> VariantPosition:
        return cls(board.me[1:], board.opp[1:], board.me[0], board.opp[0], board.me_pinned, board.opp_pinned)

    def core_board(self) -> np.ndarray:
        """int8[2, 26] in the core's layout: row 0 me, row 1 the opponent, index 0 off, 25 empty."""
        board = np.zeros((2, 26), dtype=np.int8)
        board[0, 0], board[1, 0] = self.me_off, self.opp_off
        board[0, 1:25], board[1, 1:25] = self.me, self.opp
        return board

    def pinned_mask(self) -> int:
        """Bit p set for each of my points p holding my pinned checker (the core's input)."""
        return sum(1 << p for p in self.me_pinned)

    def sides_switched(self) -> VariantPosition:
        """The same position seen by the opponent (his turn next)."""
        return type(self)(self.opp, self.me, self.opp_off, self.me_off, self.opp_pinned, self.me_pinned)

    def is_game_over(self) -> bool:
        """True when a side has borne off all 15 (P7, F7) or, in Plakoto, the mother rule ended it."""
        return self.me_off == CHECKERS or self.opp_off == CHECKERS

    # ------------------------------------------------------------ text id
    def variant_id(self) -> str:
        """Compact text id (see the module docstring); ``from_variant_id`` reads it back."""
        bits: list[int] = []
        for counts in (self.me, self.opp):
            for c in counts:
                bits += [1] * c + [0]
        bits += self._pin_bits()
        bits += [0] * (-len(bits) % 6)
        return self.letter + "".join(
            _B64_ALPHABET[int("".join(map(str, bits[i : i + 6])), 2)] for i in range(0, len(bits), 6)
        )

    def _pin_bits(self) -> list[int]:
        return []

    @classmethod
    def _from_bits(cls, me: tuple[int, ...], opp: tuple[int, ...], rest: list[int]) -> VariantPosition:
        if any(rest):
            raise InvalidPositionError("the id has bits left over after the checkers")
        return cls(me, opp, CHECKERS - sum(me), CHECKERS - sum(opp))

    def __str__(self) -> str:
        return self.draw()

    def draw(self) -> str:
        """An ASCII board: X is the player on roll (moving 24 -> 1 at the bottom right), O the
        opponent; a pinned checker is drawn in lower case at the foot of its point."""
        lines = [f" {self.game.capitalize()} id: {self.variant_id()}"]
        lines.append(" +13-14-15-16-17-18-+-19-20-21-22-23-24-+")
        for row in range(5):
            lines.append(" |" + "".join(self._cell(p, row) for p in range(13, 19)) + "|"
                         + "".join(self._cell(p, row) for p in range(19, 25)) + "|"
                         + (f"     O: off {self.opp_off}, pips {self.pips()[1]}" if row == 0 else ""))
        lines.append(" |" + " " * 18 + "|" + " " * 18 + "|")
        for row in range(4, -1, -1):
            lines.append(" |" + "".join(self._cell(p, row) for p in range(12, 6, -1)) + "|"
                         + "".join(self._cell(p, row) for p in range(6, 0, -1)) + "|"
                         + (f"     X: off {self.me_off}, pips {self.pips()[0]} (on roll)" if row == 0 else ""))
        lines.append(" +12-11-10--9--8--7-+--6--5--4--3--2--1-+")
        return "\n".join(lines)

    def _cell(self, point: int, row: int) -> str:
        mine, theirs = self.me[point - 1], self.opp[self.their_point(point) - 1]
        if mine and theirs:  # Plakoto only: the pinned checker at the foot, the pinners above
            pinned_mine = point in self.me_pinned
            if row == 0:
                return " x " if pinned_mine else " o "
            return _cell(theirs if pinned_mine else mine, row - 1, "O" if pinned_mine else "X")
        if mine:
            return _cell(mine, row, "X")
        return _cell(theirs, row, "O")

    def their_point(self, point: int) -> int:  # pragma: no cover - overridden
        """The opponent's number for my point."""
        raise NotImplementedError

    def pips(self) -> tuple[int, int]:
        """Pip counts (mine, his), each side's checkers counted in its own numbering."""
        return (
            sum((i + 1) * c for i, c in enumerate(self.me)),
            sum((i + 1) * c for i, c in enumerate(self.opp)),
        )


@dataclass(frozen=True)
class PlakotoPosition(VariantPosition):
    """A Plakoto position seen by the player on roll (my point p is the opponent's 25 - p)."""

    game: ClassVar[str] = "plakoto"
    letter: ClassVar[str] = "P"

    def their_point(self, point: int) -> int:
        return 25 - point

    def _check_rules(self) -> None:
        for name, own, other, pins, other_pins in (
            ("me", self.me, self.opp, self.me_pinned, self.opp_pinned),
            ("opp", self.opp, self.me, self.opp_pinned, self.me_pinned),
        ):
            for p in sorted(pins):
                if own[p - 1] != 1:
                    raise InvalidPositionError(
                        f"{name}_pinned lists point {p}, where {name} has {own[p - 1]} checkers, "
                        "not exactly one (P2: a pinned checker is alone)"
                    )
                if other[24 - p] == 0:
                    raise InvalidPositionError(
                        f"{name}_pinned lists point {p}, but no opposing checker stands there to pin it"
                    )
                if 25 - p in other_pins:
                    raise InvalidPositionError(f"point {p} of {name} has both sides pinned")
        for p in range(1, 25):
            mine, theirs = self.me[p - 1], self.opp[24 - p]
            if mine and theirs and p not in self.me_pinned and 25 - p not in self.opp_pinned:
                raise InvalidPositionError(
                    f"my point {p} holds {mine} of mine and {theirs} of the opponent's, but neither "
                    "side is pinned there (P2: two colours share a point only by a pin)"
                )

    def _pin_bits(self) -> list[int]:
        return [int(p in self.me_pinned) for p in range(1, 25) if self.me[p - 1] == 1 and self.opp[24 - p] == 1]

    @classmethod
    def _from_bits(cls, me: tuple[int, ...], opp: tuple[int, ...], rest: list[int]) -> VariantPosition:
        me_pinned, opp_pinned = set(), set()
        for p in range(1, 25):
            mine, theirs = me[p - 1], opp[24 - p]
            if not (mine and theirs):
                continue
            if mine == 1 and theirs == 1:
                if not rest:
                    raise InvalidPositionError("the id ends before its pin bits")
                if rest.pop(0):
                    me_pinned.add(p)
                else:
                    opp_pinned.add(25 - p)
            elif mine == 1:
                me_pinned.add(p)
            elif theirs == 1:
                opp_pinned.add(25 - p)
            else:
                raise InvalidPositionError(f"my point {p} holds two or more checkers of each side")
        if any(rest):
            raise InvalidPositionError("the id has bits left over after the pins")
        return cls(me, opp, CHECKERS - sum(me), CHECKERS - sum(opp), me_pinned, opp_pinned)

    def mother_pinned(self) -> tuple[bool, bool]:
        """(mine, his): is that side's last checker on its own 24-point pinned there (P5)?"""
        return 24 in self.me_pinned, 24 in self.opp_pinned

    def is_game_over(self) -> bool:
        """Borne off (P7), or a mother rule ended the game at the end of a turn (P5, P6).

        Judged as after the play of either side: both mothers pinned (P6), or one side's
        mother pinned while its pinner has no checker left on his own 24-point (P5).
        """
        if super().is_game_over():
            return True
        mine, his = self.mother_pinned()
        return (mine and his) or (his and self.me[23] == 0) or (mine and self.opp[23] == 0)


@dataclass(frozen=True)
class FevgaPosition(VariantPosition):
    """A Fevga position seen by the player on roll (my point p is the opponent's across(p))."""

    game: ClassVar[str] = "fevga"
    letter: ClassVar[str] = "F"

    def their_point(self, point: int) -> int:
        return across(point)

    def _check_rules(self) -> None:
        if self.me_pinned or self.opp_pinned:
            raise InvalidPositionError("Fevga has no pinned checkers (F3: nothing is hit or pinned)")
        for p in range(1, 25):
            if self.me[p - 1] and self.opp[across(p) - 1]:
                raise InvalidPositionError(
                    f"my point {p} (the opponent's point {across(p)}) holds checkers of both sides "
                    "(F3: a point with an opposing checker is blocked)"
                )


_CLASSES: dict[str, type[VariantPosition]] = {"plakoto": PlakotoPosition, "fevga": FevgaPosition}


def variant_position(game: str, position: VariantPosition | Mapping[str, Any] | str | None = None) -> VariantPosition:
    """The position of ``game`` ("plakoto" or "fevga") from a dict, a text id, the readable
    form of ``variant_text``, a position of that game, or None for the starting position."""
    if game not in _CLASSES:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, not {game!r}")
    cls = _CLASSES[game]
    if position is None:
        return cls.initial()
    if isinstance(position, VariantPosition):
        if not isinstance(position, cls):
            raise InvalidPositionError(f"a {position.game} position is not a {game} position")
        return position
    if isinstance(position, str):
        if looks_like_variant_text(position):  # the readable form, 'x 24:13 13:2; o 24:15'
            return parse_variant_text(game, position)
        parsed = from_variant_id(position)
        if not isinstance(parsed, cls):
            raise InvalidPositionError(f"{position!r} is a {parsed.game} id, not a {game} one")
        return parsed
    return cls.from_dict(position)


def from_variant_id(text: str) -> VariantPosition:
    """Read a text id written by ``VariantPosition.variant_id``."""
    if not isinstance(text, str) or len(text) < 2:
        raise InvalidPositionError(f"not a Plakoto or Fevga id: {text!r}")
    cls = {"P": PlakotoPosition, "F": FevgaPosition}.get(text[0])
    if cls is None:
        raise InvalidPositionError(f"a Plakoto / Fevga id starts with P or F, not {text[0]!r}")
    bits: list[int] = []
    for ch in text[1:]:
        value = _B64_ALPHABET.find(ch)
        if value < 0:
            raise InvalidPositionError(f"{ch!r} is not a base64 character (in {text!r})")
        bits += [int(b) for b in format(value, "06b")]
    sides = []
    for name in ("me", "opp"):
        counts = []
        while len(counts) < 24:
            run = 0
            while bits and bits[0] == 1:
                bits.pop(0)
                run += 1
            if not bits:
                raise InvalidPositionError(f"the id {text!r} ends inside the checkers of {name}")
            bits.pop(0)
            counts.append(run)
        if sum(counts) > CHECKERS:
            raise InvalidPositionError(f"the id {text!r} gives {name} {sum(counts)} checkers (at most 15)")
        sides.append(tuple(counts))
    return cls._from_bits(sides[0], sides[1], bits)


def _game_of_id(text: str) -> str | None:
    """The game of a valid Plakoto or Fevga id, else None (for Position.from_id's errors)."""
    try:
        return from_variant_id(text).game
    except ValueError:
        return None


# ------------------------------------------------------------------ the readable form
# ``x 24:13 13:2; o 24:14 12:1*``: ``x`` is the player on roll, ``o`` the opponent; each lists
# ``point:count`` in that side's OWN numbering (24 = where its checkers start, 1-6 its home
# board), and a ``*`` after a count marks that side's pinned checker on that point (Plakoto,
# P2). Checkers not listed are borne off. ``variant_position`` accepts it wherever it accepts
# a text id (every command with ``--game``); ``variants/text.py`` is its public name.

_ITEM = re.compile(r"^(\d{1,2}):(\d{1,2})(\*?)$")


def looks_like_variant_text(text: str) -> bool:
    """Whether ``text`` is meant as the readable form (rather than a text id)."""
    return ":" in text or text.strip()[:2].lower() in ("x ", "o ")


def _side(part: str, letter: str, text: str) -> tuple[list[int], set[int]]:
    words = part.split()
    if not words or words[0].lower() != letter:
        raise InvalidPositionError(f"{text!r}: expected '{letter} point:count ...' "
                                   f"(e.g. 'x 24:13 13:2; o 24:14 12:1*')")
    counts, pinned = [0] * 24, set()
    for word in words[1:]:
        m = _ITEM.match(word)
        if not m or not 1 <= int(m.group(1)) <= 24:
            raise InvalidPositionError(f"{text!r}: {word!r} is not point:count with a point 1-24")
        point, count = int(m.group(1)), int(m.group(2))
        if counts[point - 1]:
            raise InvalidPositionError(f"{text!r}: point {point} of {letter} is given twice")
        counts[point - 1] = count
        if m.group(3):
            pinned.add(point)
    if sum(counts) > CHECKERS:
        raise InvalidPositionError(f"{text!r}: {letter} has {sum(counts)} checkers (at most 15)")
    return counts, pinned


def parse_variant_text(game: str, text: str) -> VariantPosition:
    """The ``game`` position of the readable form; InvalidPositionError says what is wrong
    (a bad item, or a position the rules forbid)."""
    if game not in _CLASSES:
        raise ValueError(f"game must be plakoto or fevga, not {game!r}")
    parts = [p.strip() for p in text.split(";")]
    if len(parts) != 2:
        raise InvalidPositionError(f"{text!r}: give both sides, 'x ...; o ...'")
    (me, me_pinned), (opp, opp_pinned) = _side(parts[0], "x", text), _side(parts[1], "o", text)
    return _CLASSES[game](tuple(me), tuple(opp), CHECKERS - sum(me), CHECKERS - sum(opp),
                          tuple(me_pinned), tuple(opp_pinned))


def variant_text(position: VariantPosition) -> str:
    """The readable form of ``position`` (points from 24 down, pinned ones starred)."""
    def side(letter: str, counts: tuple[int, ...], pinned: frozenset[int]) -> str:
        items = [f"{p}:{counts[p - 1]}{'*' if p in pinned else ''}"
                 for p in range(24, 0, -1) if counts[p - 1]]
        return " ".join([letter, *items])

    return f"{side('x', position.me, position.me_pinned)}; {side('o', position.opp, position.opp_pinned)}"


OTHER_GAME_IDS.append(_game_of_id)
