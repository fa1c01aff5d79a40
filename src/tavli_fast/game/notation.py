"""Plays as text, exactly as GNU Backgammon writes them (``8/5 6/5``, ``bar/22*``, ``6/off``).

Conventions (RULES.md, "Play notation"): points in the mover's numbering, ``bar`` and ``off``;
parts ordered by starting point, highest first; a checker moving on is one part (``13/9``)
unless it hit on the way (``13/7*/3``); chaining is by points; identical parts are counted
(``8/5(2)``); a hit point gets ``*`` once, on the first part that reaches it. A play that
moves nothing is written as the empty string, as gnubg's formatter does.

Which results are legal is the compiled generator's answer (``_core``); the single-die steps of
a result, which the text is made of, come from ``steps.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Collection, Sequence

import numpy as np

from .. import _core
from ..errors import InvalidPositionError, check_dice
from .steps import Step, steps_between, steps_of

if TYPE_CHECKING:  # position.py imports this module (Position.plays writes its plays)
    from .position import Position

__all__ = ["format_play", "format_plays", "format_steps"]


def _point(n: int) -> str:
    return "off" if n == 0 else "bar" if n == 25 else str(n)


def format_steps(
    board: np.ndarray | None,
    steps: Sequence[tuple[int, int] | Step],
    marks: Collection[int] | None = None,
) -> str:
    """Write the single-die steps ``(from, to[, hit])`` of one play from ``board`` (the position
    before the play; 25 = bar, 0 = off). Hits are read from ``board``, not from the steps.

    ``marks``, when given, replaces the hits read from ``board``: the points written with ``*``
    (Plakoto marks the points where the play pinned a checker; Fevga marks none).
    """
    opponent = None if board is None else np.asarray(board)[1]

    def had_blot(point: int) -> bool:
        if marks is not None:
            return point in marks
        # The mover's point p is the opponent's point 25 - p; an opposing checker on a point
        # the mover reached can only have been a blot that was hit.
        return 1 <= point <= 24 and opponent is not None and bool(opponent[25 - point])

    # Highest source first; from the same source the nearer destination first.
    ordered = sorted(((int(s[0]), int(s[1])) for s in steps), key=lambda s: (-s[0], -s[1]))
    paths: list[list[int] | None] = [[source, target] for source, target in ordered]

    # Join steps into one part where a step starts where an earlier part ends (by points, not
    # by checkers). The join point stays written only if a blot was hit there.
    for i, path in enumerate(paths):
        if path is None:
            continue
        for j in range(i + 1, len(paths)):
            other = paths[j]
            if other is not None and path[-1] == other[0]:
                if had_blot(path[-1]):
                    path.append(other[-1])
                else:
                    path[-1] = other[-1]
                paths[j] = None

    # Identical parts (same points all the way) are written once with a count.
    parts: list[list[int]] = []
    counts: list[int] = []
    for path in paths:
        if path is None:
            continue
        if path in parts:
            counts[parts.index(path)] += 1
        else:
            parts.append(path)
            counts.append(1)

    marked: set[int] = set()
    words = []
    for path, count in zip(parts, counts):
        text = _point(path[0])
        for middle in path[1:-1]:  # kept only because a blot was hit there
            text += f"/{_point(middle)}*"
            marked.add(middle)
        last = path[-1]
        text += f"/{_point(last)}"
        if had_blot(last) and last not in marked:
            text += "*"
            marked.add(last)
        if count > 1:
            text += f"({count})"
        words.append(text)
    return " ".join(words)


def _as_board(value: Position | np.ndarray, name: str) -> np.ndarray:
    # A Position gives its board; anything else must be one.
    board = np.asarray(value.board if hasattr(value, "board") else value)
    if board.shape != (2, 26):
        raise InvalidPositionError(f"{name} must be a Position or a (2, 26) board, got {board.shape}")
    return np.ascontiguousarray(board, dtype=np.int8)


def format_play(
    before: Position | np.ndarray,
    after: Position | np.ndarray,
    die1: int,
    die2: int,
) -> str:
    """The gnubg notation of the play from ``before`` to ``after`` with these dice.

    ``after`` is seen from the same player as ``before`` (sides NOT switched), as a Position or
    a (2, 26) board.
    Raises InvalidPositionError if ``after`` is not a legal result of ``before`` and the dice.
    """
    die1, die2 = check_dice(die1, die2)
    start = _as_board(before, "before")
    end = _as_board(after, "after")
    key = np.ascontiguousarray(end, dtype=np.int8).tobytes()
    if not any(result.tobytes() == key for result in _core.generate(start, die1, die2)):
        raise InvalidPositionError(
            f"the position after is not a legal result of the dice {die1}-{die2} "
            "(note: after must be seen from the player who moved, sides not switched)"
        )
    # Every sequence reaching the same result is written the same way (tested), so any will do.
    return format_steps(start, steps_of(start, end, die1, die2))


def format_plays(before: Position | np.ndarray, die1: int, die2: int) -> dict[bytes, str]:
    """The notation of every legal play at once: result board bytes (sides not switched) ->
    text. One move generation instead of one per play as ``format_play`` needs."""
    die1, die2 = check_dice(die1, die2)
    start = _as_board(before, "before")
    rows = tuple(map(tuple, start.tolist()))  # once for all results
    results = _core.generate(start, die1, die2)
    return {
        result.tobytes(): format_steps(start, steps_between(rows, after, die1, die2))
        for result, after in zip(results, results.tolist())
    }
