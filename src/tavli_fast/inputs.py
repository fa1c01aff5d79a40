"""Checks of the arguments that simulate() and rollout() share, with precise errors."""

from __future__ import annotations

import math
import os
from numbers import Integral, Real

import numpy as np

from .errors import InvalidCountError, VariantIdError
from .movegen import require_game_in_progress
from .players import player_id
from .position import Position

__all__ = ["MAX_COUNT", "MAX_COUNT_TEXT", "resolve_position", "check_count", "check_seed", "new_seed",
           "player_names", "player_kinds"]

MAX_SEED = 2**64 - 1

#: The largest count of trials, games, matches, ... that any function or command accepts: a
#: run of 1e12 games takes months on a cluster, and a bound keeps a mistyped count (1e30)
#: from starting a run that can never end.
MAX_COUNT = 10**12
MAX_COUNT_TEXT = f"{MAX_COUNT:.0e}".replace("e+", "e")  # 1e12


def resolve_position(position: str | Position) -> tuple[Position, bool]:
    """(Position, is_start) from "start", a gnubg Position ID, an XGID or a Position.

    `is_start` says whether the opening-roll rule R5 applies: only a game that
    begins at the starting position, with no dice rolled yet, has an opening
    roll.  A finished game raises InvalidPositionError.
    """
    if isinstance(position, Position):
        pos = position
    elif isinstance(position, str) and position.strip().lower() == "start":
        pos = Position.initial()
    elif isinstance(position, str):
        try:
            pos = Position.from_id(position)
        except VariantIdError as e:
            raise e.with_advice(f"pass game={e.game!r}") from None
    else:
        raise TypeError(
            "position must be 'start', a Position ID, an XGID or a Position, "
            f"not {type(position).__name__}"
        )
    require_game_in_progress(pos)
    is_start = bool(np.array_equal(pos.board, Position.initial().board)) and pos.context.dice is None
    return pos, is_start


def check_count(value: object, name: str = "trials", minimum: int = 1) -> int:
    """A whole number from ``minimum`` (1, or 0 where none is allowed) to MAX_COUNT; integral
    floats such as 1e6 are accepted. InvalidCountError (a ValueError) says what is wrong."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise InvalidCountError(f"{name} must be a whole number, got {value!r}")
    if isinstance(value, Integral):
        number = int(value)
    else:
        f = float(value)
        if not math.isfinite(f) or f != int(f):
            raise InvalidCountError(f"{name} must be a whole number, got {value!r}")
        number = int(f)
    if number < minimum:
        raise InvalidCountError(f"{name} must be {'positive' if minimum == 1 else f'at least {minimum}'}, "
                                f"got {number}")
    if number > MAX_COUNT:
        raise InvalidCountError(f"{name} must be at most {MAX_COUNT_TEXT} ({MAX_COUNT:,}), got {value!r}")
    return number


def new_seed() -> int:
    """A fresh random seed in [0, 2**63), reported so that the run can be repeated."""
    return int.from_bytes(os.urandom(8), "little") >> 1


def check_seed(seed: object) -> int:
    """The seed as an int in [0, 2**64); a new random one when `seed` is None."""
    if seed is None:
        return new_seed()
    if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"seed must be a whole number from 0 to 2**64-1, got {seed!r}")
    return int(seed)


def player_names(players: object) -> tuple[str, str]:
    """Two player names from a pair, "A,B", or one name for both sides."""
    if isinstance(players, str):
        parts = [p.strip() for p in players.split(",")]
        if len(parts) == 1:
            parts = parts * 2
    else:
        try:
            parts = [str(p).strip() for p in players]  # type: ignore[union-attr]
        except TypeError:
            raise ValueError(f"players must be two player names, got {players!r}") from None
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"players must be two player names, got {players!r}")
    return parts[0], parts[1]


def player_kinds(players: object) -> tuple[tuple[str, str], tuple[int, int]]:
    """(names, core player numbers) of the two players, the side on roll first."""
    names = player_names(players)
    return names, (player_id(names[0]), player_id(names[1]))
