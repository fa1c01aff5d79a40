"""A slow, readable move generator: the second oracle for the Cython core (gnubg is the first).

A test oracle, not part of the package: written rule by rule and independently of the core and
of ``tavli_fast.game.steps`` (which finds the steps of a play the core found legal), so that the
differential tests compare two implementations. Tests import it as ``oracles.backgammon``.

Boards are (2, 26) arrays in the layout of position.py: row 0 is the player on roll, row 1
the opponent, each in its own numbering (0 off, 1..24 points, 25 bar). Results are boards with
sides NOT switched. Rule ids (R7..R18) refer to ../shared/RULES.md.

A step is ``(from, to, hit)``: ``from`` 25 is the bar, ``to`` 0 is off.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from tavli_fast.errors import check_dice

__all__ = ["Step", "reference_plays", "reference_positions"]

Step = tuple[int, int, bool]
_Board = list[list[int]]


def _can_bear_off(board: _Board) -> bool:
    """R14: nothing on the bar or on points 7..24."""
    return not any(board[0][7:26])


def _single_steps(board: _Board, die: int, lowest_source: int) -> list[Step]:
    """Every legal use of one die (R7, R11-R17), from sources no higher than ``lowest_source``."""
    mine, theirs = board[0], board[1]
    # R12: with checkers on the bar, entering is the only legal move.
    sources = [25] if mine[25] else [p for p in range(24, 0, -1) if mine[p]]
    steps: list[Step] = []
    for source in sources:
        if source > lowest_source:
            continue
        target = source - die
        if target >= 1:
            opposing = theirs[25 - target]
            if opposing <= 1:  # R7: open unless 2+ opposing checkers
                steps.append((source, target, opposing == 1))
        elif _can_bear_off(board):
            if target == 0:  # R15: exact bear-off
                steps.append((source, 0, False))
            elif not any(mine[source + 1 : 7]):  # R16/R17: only from the highest point
                steps.append((source, 0, False))
    return steps


def _apply(board: _Board, step: Step) -> _Board:
    source, target, hit = step
    after = [board[0][:], board[1][:]]
    after[0][source] -= 1
    after[0][target] += 1  # target 0 is the borne-off count
    if hit:  # R11: the blot goes to the opponent's bar
        after[1][25 - target] -= 1
        after[1][25] += 1
    return after


def _sequences(
    board: _Board, dice: Sequence[int], lowest_source: int, doubles: bool, all_orders: bool
) -> list[tuple[_Board, tuple[Step, ...], tuple[int, ...]]]:
    """Depth-first: every maximal sequence of steps using ``dice`` in this order.

    Returns (final board, steps, dice used). A sequence stops when the next die can't be played.
    """
    if not dice:
        return [(board, (), ())]
    die = dice[0]
    steps = _single_steps(board, die, lowest_source)
    if not steps:
        return [(board, (), ())]
    found = []
    for step in steps:
        # Doubles: playing the steps from the highest source down reaches every position,
        # so later steps start no higher than this one (this only prunes permutations).
        next_lowest = step[0] if doubles and not all_orders else 25
        for final, rest, used in _sequences(_apply(board, step), dice[1:], next_lowest, doubles, all_orders):
            found.append((final, (step,) + rest, (die,) + used))
    return found


def reference_plays(
    board: np.ndarray, die1: int, die2: int, all_orders: bool = False
) -> dict[bytes, list[tuple[Step, ...]]]:
    """Map each distinct legal result (``int8`` board bytes, sides not switched) to the step
    sequences that reach it. With no legal step: ``{board bytes: [()]}``.

    For doubles only non-increasing source orders are listed unless ``all_orders`` is set
    (the set of results is the same; the flag exists to test that claim).
    """
    die1, die2 = check_dice(die1, die2)
    start = np.asarray(board, dtype=np.int8)
    start_lists = [[int(c) for c in start[0]], [int(c) for c in start[1]]]
    if die1 == die2:  # R9: doubles are played four times
        candidates = _sequences(start_lists, [die1] * 4, 25, True, all_orders)
    else:  # R8: either die may be played first
        candidates = _sequences(start_lists, [die1, die2], 25, False, all_orders)
        candidates += _sequences(start_lists, [die2, die1], 25, False, all_orders)

    # R10: use as many dice as possible ...
    most = max(len(used) for _, _, used in candidates)
    candidates = [c for c in candidates if len(c[2]) == most]
    # ... and if only one die of a non-double can be used, the larger one when it can.
    if most == 1 and die1 != die2:
        larger = max(die1, die2)
        if any(used[0] == larger for _, _, used in candidates):
            candidates = [c for c in candidates if c[2][0] == larger]

    plays: dict[bytes, list[tuple[Step, ...]]] = {}
    for final, steps, _ in candidates:
        key = np.array(final, dtype=np.int8).tobytes()
        sequences = plays.setdefault(key, [])
        if steps not in sequences:
            sequences.append(steps)
    return plays


def reference_positions(board: np.ndarray, die1: int, die2: int) -> set[bytes]:
    """The distinct legal results as ``board.tobytes()`` of (2, 26) int8 boards, sides not
    switched."""
    return set(reference_plays(board, die1, die2))
