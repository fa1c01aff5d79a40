"""The plain board of Plakoto and Fevga that the step search works on, and Fevga's geometry.

A :class:`VariantBoard` is seen by the player on roll ("me"): ``me[p]`` is my count on my point
p (1..24), ``me[0]`` my borne-off checkers; ``opp`` likewise in the OPPONENT's own numbering;
the pinned sets (Plakoto, P2) hold each side's own points where its checker is pinned. Neither
game has a bar. ``VariantPosition.reference_board()`` gives one.

Geometry (RULES.md P1, F1, F2): in Plakoto my point p is the opponent's 25 - p, as in Portes; in
Fevga both sides move the same way from diagonally opposite starts, and my point p is his
``across(p)`` (the map is its own inverse).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["VariantBoard", "across"]


class VariantBoard(NamedTuple):
    """Counts seen by the player on roll: index 0 borne off, 1..24 the side's own points."""

    me: tuple[int, ...]
    opp: tuple[int, ...]
    me_pinned: frozenset[int] = frozenset()
    opp_pinned: frozenset[int] = frozenset()


def across(point: int) -> int:
    """Fevga (F1): the opponent's number for my point (and mine for his)."""
    return ((point + 11) % 24) + 1
