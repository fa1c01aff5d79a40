"""The players the engine knows, by name.

- ``random``: picks uniformly among the distinct resulting positions of the
  roll (each distinct position once, however many move orders reach it).
- ``pubeval``: Tesauro's public evaluation function (1993), the field's
  standard benchmark player: the play whose resulting position scores highest
  with the race or contact weights.
- ``greedy``: our own hand-written heuristic (see ``_greedy.pxi``): hit, make
  points and primes, avoid exposed blots, and run and bear off efficiently once
  contact is broken.
- ``bearoff``: pubeval, except that in a pure bear-off it always plays the
  play that is best by the exact bear-off databases (``bearoff.py``).

pubeval and greedy also play pure bear-offs by the databases unless that is
turned off (``bearoff=False`` in simulate and rollout, ``--no-bearoff``).

Every player is deterministic given the dice except ``random``, which draws
from the game's random number generator.
"""

from __future__ import annotations

from . import _core

__all__ = ["PLAYERS", "player_id", "needs_bearoff"]

PLAYERS: dict[str, int] = {
    "random": int(_core.PlayerKind.PLAYER_RANDOM),
    "pubeval": int(_core.PlayerKind.PLAYER_PUBEVAL),
    "greedy": int(_core.PlayerKind.PLAYER_GREEDY),
    "bearoff": int(_core.PlayerKind.PLAYER_BEAROFF),
}


def player_id(name: str) -> int:
    """The core's number for the player called `name`."""
    try:
        return PLAYERS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown player {name!r}: choose one of {', '.join(PLAYERS)}"
        ) from None


def needs_bearoff(kinds: tuple[int, int], bearoff_play: bool) -> bool:
    """Whether games between these players use the bear-off databases."""
    if int(_core.PlayerKind.PLAYER_BEAROFF) in kinds:
        return True
    return bearoff_play and any(k != int(_core.PlayerKind.PLAYER_RANDOM) for k in kinds)
