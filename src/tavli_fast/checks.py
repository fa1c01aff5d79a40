"""Checks of the plain arguments every job shares (counts, seeds, player names), with
precise errors. Positions are resolved by ``game.resolve``, players by ``play.players``."""

from __future__ import annotations

import math
import os
import stat
from numbers import Integral, Real

from .errors import InvalidCountError

__all__ = ["MAX_COUNT", "MAX_COUNT_TEXT", "check_count", "check_seed", "new_seed", "player_names",
           "special_file_kind", "check_regular_file"]

MAX_SEED = 2**64 - 1

#: The largest count of trials, games, matches, ... that any function or command accepts: a
#: run of 1e12 games takes months on a cluster, and a bound keeps a mistyped count (1e30)
#: from starting a run that can never end.
MAX_COUNT = 10**12
MAX_COUNT_TEXT = f"{MAX_COUNT:.0e}".replace("e+", "e")  # 1e12


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


#: What a file that is not a regular file is, by its mode (for messages).
_FILE_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
               (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a pipe (FIFO)"),
               (stat.S_ISSOCK, "a socket"))


def special_file_kind(path: str | os.PathLike) -> str | None:
    """What `path` is (following symbolic links) when it exists and is not a regular file:
    ``"a directory"``, ``"a character device"`` (``/dev/null``), ``"a pipe (FIFO)"``, ...;
    None for a regular file or a name with no file."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")


def check_regular_file(path: str | os.PathLike, what: str = "a file to read") -> str:
    """`path` as a string; ValueError when it is a device, pipe, socket or directory (reading
    a pipe would wait for a writer forever). A missing file is left to the reader's error."""
    kind = special_file_kind(path)
    if kind is not None:
        raise ValueError(f"{os.fspath(path)} is {kind}, not {what}")
    return os.fspath(path)
