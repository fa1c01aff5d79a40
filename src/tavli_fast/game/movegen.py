"""Move generation, public API: which positions can the player on roll reach?

Every function returns *distinct resulting positions*: different move orders
that reach the same position are one play (R10).  Results are seen from the
mover, sides NOT switched.  When no die can be played (R10, R13) the one
result is the unchanged position: a "pass" play.  (GNU Backgammon lists no
move at all there; counting the pass as one play is what a game loop needs.)

The work happens in the compiled core (``_core.pyx``); this module checks the
arguments and converts between Position IDs, ``Position`` and board arrays.
``generate_positions`` and ``require_game_in_progress`` are defined in ``position`` (for
``Position.plays``) and given here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from .. import _core
from ..errors import InvalidPositionError, check_dice
from .position import Position, generate_positions, require_game_in_progress

__all__ = [
    "ALL_ROLLS",
    "legal_positions",
    "generate_positions",
    "require_game_in_progress",
    "play_notation",
    "boards_of",
    "count_plays_batch",
    "generate_plays_batch",
]

# The 21 distinct rolls: 6 doubles then 15 non-doubles (larger die first).
ALL_ROLLS: tuple[tuple[int, int], ...] = tuple((d, d) for d in range(1, 7)) + tuple(
    (a, b) for a in range(2, 7) for b in range(1, a)
)


# The public function lives in the core (no Python frame on the hot path); it
# hands every case but the plain one to legal_positions_checked below.
legal_positions = _core.legal_positions


def legal_positions_checked(position_id: str, die1: int, die2: int) -> list[str]:
    """legal_positions for everything but the plain case: checks the dice and
    the id with precise errors, and reads XGIDs."""
    d1, d2 = check_dice(die1, die2)
    position = Position.from_id(position_id)
    return [p.position_id() for p in generate_positions(position, d1, d2)]


# The core answers the plain case of legal_positions itself and hands us the rest.
_core.set_legal_positions_checked(legal_positions_checked)


def play_notation(position_id: str, die1: int, die2: int) -> dict[str, str]:
    """For each resulting Position ID (as `legal_positions` gives them), the play in
    GNU Backgammon's notation (``8/5 6/5``, ``bar/22*``, ``6/off``...)."""
    d1, d2 = check_dice(die1, die2)
    # Position.plays writes every play from one move generation (not one per result).
    return {play.position.position_id(): play.notation
            for play in Position.from_id(position_id).plays(d1, d2)}


def boards_of(positions: Iterable[str | Position] | np.ndarray) -> np.ndarray:
    """An int8[m, 2, 26] array of boards from Position IDs, Positions or boards.

    Arrays are checked the way ``Position`` checks a board (counts, 15 a side,
    one colour a point), all at once.
    """
    if isinstance(positions, np.ndarray):
        return _checked_boards(positions)
    boards = [
        (p if isinstance(p, Position) else Position.from_id(p)).board for p in positions
    ]
    if not boards:
        return np.zeros((0, 2, 26), dtype=np.int8)
    return np.ascontiguousarray(np.stack(boards), dtype=np.int8)


def _checked_boards(boards: np.ndarray) -> np.ndarray:
    if boards.ndim != 3 or boards.shape[1:] != (2, 26):
        raise InvalidPositionError(f"boards must have shape (m, 2, 26), not {boards.shape}")
    if not np.issubdtype(boards.dtype, np.integer):
        raise InvalidPositionError(f"boards must hold integers, not {boards.dtype}")
    b = boards.astype(np.int64)
    problems = {
        "a negative checker count": (b < 0).any(axis=(1, 2)),
        "a side without exactly 15 checkers": (b.sum(axis=2) != 15).any(axis=1),
        "both colours on one point": (
            (b[:, 0, 1:25] > 0) & (b[:, 1, 24:0:-1] > 0)
        ).any(axis=1),
        "a side with all 15 borne off (the game is over)": (b[:, :, 0] == 15).any(axis=1),
    }
    for what, bad in problems.items():
        if bad.any():
            raise InvalidPositionError(f"board {int(np.argmax(bad))} has {what}")
    return np.ascontiguousarray(boards, dtype=np.int8)


def _dice_array(dice: Sequence[tuple[int, int]]) -> np.ndarray:
    checked = [check_dice(d1, d2) for d1, d2 in dice]
    return np.array(checked, dtype=np.int8).reshape(-1, 2)


def count_plays_batch(
    positions: Iterable[str | Position] | np.ndarray,
    dice: Sequence[tuple[int, int]] = ALL_ROLLS,
) -> np.ndarray:
    """Numbers of distinct plays, int64[m, k], for every position x roll.

    The throughput entry point: the whole batch runs in C without the GIL.
    """
    return _core.count_batch(boards_of(positions), _dice_array(dice))


def generate_plays_batch(
    positions: Iterable[str | Position] | np.ndarray,
    dice: Sequence[tuple[int, int]] = ALL_ROLLS,
) -> tuple[np.ndarray, np.ndarray]:
    """Every play of every position x roll in one call.

    Returns ``(results, offsets)``: results is int8[T, 2, 26] (boards, sides not
    switched); the plays of position i with roll j are
    ``results[offsets[i*k + j] : offsets[i*k + j + 1]]`` for k rolls.
    """
    return _core.generate_batch(boards_of(positions), _dice_array(dice))
