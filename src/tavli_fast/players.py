"""The players the engine knows, by name.

- ``random``: picks uniformly among the distinct resulting positions of the
  roll (each distinct position once, however many move orders reach it).
- ``pubeval``: Tesauro's public evaluation function (1993), the field's
  standard benchmark player: the play whose resulting position scores highest
  with the race or contact weights.
- ``greedy``: our own hand-written heuristic (see ``_greedy.pxi``): hit, make
  points and primes, avoid exposed blots, and run and bear off efficiently once
  contact is broken.

Every player is deterministic given the dice except ``random``, which draws
from the game's random number generator.
"""

from __future__ import annotations

from . import _core

__all__ = ["PLAYERS", "player_id", "player_ids"]

PLAYERS: dict[str, int] = {
    "random": int(_core.PlayerKind.PLAYER_RANDOM),
    "pubeval": int(_core.PlayerKind.PLAYER_PUBEVAL),
    "greedy": int(_core.PlayerKind.PLAYER_GREEDY),
}


def player_id(name: str) -> int:
    """The core's number for the player called `name`."""
    try:
        return PLAYERS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown player {name!r}: choose one of {', '.join(PLAYERS)}"
        ) from None


def player_ids(players: tuple[str, str] | list[str]) -> tuple[int, int]:
    """Core numbers of a pair of players (the side on roll first)."""
    if isinstance(players, str) or len(players) != 2:
        raise ValueError(f"players must be a pair of names, got {players!r}")
    return player_id(players[0]), player_id(players[1])
