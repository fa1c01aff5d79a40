"""A readable text form of Plakoto and Fevga positions (issue 44), as users type them.

    x 24:13 13:2; o 24:14 12:1*

``x`` is the player on roll, ``o`` the opponent; each lists ``point:count`` in that side's
OWN numbering (24 = where its checkers start, 1-6 its home board), and a ``*`` after a
count marks that side's pinned checker on that point (Plakoto, P2: the side has one
checker there, under the other side's). Checkers not listed are borne off. ``variant_text``
writes the form, ``parse_variant_text`` reads it; ``variant_position`` accepts it wherever
it accepts a text id (every command with ``--game``).
"""

from __future__ import annotations

import re

from ..errors import InvalidPositionError
from .position import CHECKERS, VariantPosition, _CLASSES

__all__ = ["looks_like_variant_text", "parse_variant_text", "variant_text"]

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
