"""The single-die steps of a play already known to be legal: what the notation writes.

The compiled generator (``_core``) decides which results a roll can reach; to write one in gnubg
notation (``notation.py``) the single-die steps that lead to it are needed. ``steps_of`` finds
one such sequence: a depth-first search over single-checker moves of the dice, in either order
(four moves for a double), that ends on the result. Each move is one a die can make on its own
(R7 open points, R11 hits, R12 the bar first, R14-R17 bearing off); the search applies no
maximality rule (R10), which the generator has applied already. Every sequence reaching a
result is written the same way (RULES.md, "Play notation"), so any one will do.

``find_steps`` is the search itself, shared with the Plakoto and Fevga notation
(``variants/steps.py``): a game gives it its single moves. Rule ids refer to
../shared/RULES.md. Boards are (2, 26) arrays in the layout of position.py, results with sides
NOT switched. A step is ``(from, to, hit)``: ``from`` 25 is the bar, ``to`` 0 is off.
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, Sequence, TypeVar

import numpy as np

from ..errors import InvalidPositionError, check_dice

__all__ = ["Step", "bears_off", "find_steps", "highest_surplus", "steps_between", "steps_of"]

Step = tuple[int, int, bool]
State = TypeVar("State", bound=Hashable)
AnyStep = TypeVar("AnyStep", bound=tuple)

#: (state, die, highest source allowed) -> each (step, state after): the single moves of one die
#: that may still lead to the goal. ``step[0]`` is the step's source.
Moves = Callable[[State, int, int], Iterable[tuple[AnyStep, State]]]


def find_steps(start: State, goal: State, die1: int, die2: int, moves: Moves) -> list[AnyStep] | None:
    """One sequence of single-die moves from ``start`` to ``goal``, None if there is none.

    The dice are tried in both orders (a double: four times). Of the sequences reaching the
    goal the first using every die is taken, else the one using the most (a play that could
    use only some of its dice). ``moves`` gets the highest source a step may start from: the
    source of the step before it, so that games where the order of sources does not matter
    look at each set of steps once (from the highest source down); a game where it matters
    ignores it.
    """
    dice = (die1,) * 4 if die1 == die2 else (max(die1, die2), min(die1, die2))
    orders = [dice] if die1 == die2 else [dice, dice[::-1]]
    best: list[AnyStep] | None = None
    path: list[AnyStep] = []

    def walk(state: State, order: tuple[int, ...], used: int, highest: int) -> bool:
        nonlocal best
        if state == goal:
            if best is None or used > len(best):
                best = list(path)
            return used == len(order)
        if used == len(order):
            return False
        for step, after in moves(state, order[used], highest):
            path.append(step)
            if walk(after, order, used + 1, step[0]):
                return True
            path.pop()
        return False

    for order in orders:  # the larger die first: a play of one die uses the larger (R10)
        if walk(start, order, 0, 25):
            break
    return best


def bears_off(side: Sequence[int], source: int, die: int) -> bool:
    """Whether ``die`` bears off the checker on ``source`` of a side whose checkers are all
    home (R14): exactly (R15), or with a larger die from the highest occupied point (R16, R17).
    ``side[p]`` is the side's count on its point p."""
    return source == die or (source < die and not any(side[source + 1 : 7]))


def highest_surplus(mine: Sequence[int], goal: Sequence[int], highest: int) -> int:
    """The highest point, ``highest`` or below, where ``mine`` holds more checkers than
    ``goal`` (0: none). A play played from its highest source down moves from there next:
    every such point must still be a source."""
    source = highest
    while source and mine[source] <= goal[source]:
        source -= 1
    return source


# ---------------------------------------------------------------- backgammon

_Side = tuple[int, ...]
_State = tuple[_Side, _Side]  # (mine, theirs), each indexed 0 off, 1..24 points, 25 bar


def _backgammon_moves(goal: _State) -> Moves:
    """The single move of one die (R7, R11-R17) that may lead to ``goal``, if any.

    Any legal play can be played from its highest source down (hits, blocks and bearing off
    do not depend on that order, and the bar comes first as R12 wants). In that order every
    point where I hold more checkers than the goal must still be a source, so the next step
    starts from the highest such point: one candidate per die. A hit must be one the goal
    shows: a blot still there was not hit.
    """
    goal_mine, goal_theirs = goal

    def moves(state: _State, die: int, highest: int) -> list[tuple[Step, _State]]:
        mine, theirs = state
        source = highest_surplus(mine, goal_mine, highest)
        if not source or (mine[25] and source != 25):  # R12: the bar first
            return []
        target = source - die
        hit = False
        if target >= 1:
            opposing = theirs[25 - target]
            if opposing >= 2 or (opposing == 1 and goal_theirs[25 - target]):
                return []  # R7 closed; or a hit (R11) the goal does not show
            hit = opposing == 1
        elif any(mine[7:26]) or not bears_off(mine, source, die):
            return []  # R14 all home first; R15-R17
        else:
            target = 0
        after_mine = list(mine)
        after_mine[source] -= 1
        after_mine[target] += 1
        after_theirs = theirs
        if hit:
            after_theirs = list(theirs)
            after_theirs[25 - target] -= 1
            after_theirs[25] += 1
            after_theirs = tuple(after_theirs)
        return [((source, target, hit), (tuple(after_mine), after_theirs))]

    return moves


def steps_of(before: np.ndarray, after: np.ndarray, die1: int, die2: int) -> list[Step]:
    """The single-die steps of one play from ``before`` to ``after`` (boards, sides not
    switched), in the order played. ``after`` must be a legal result of the dice (the
    generator says which are); a play that moves nothing has no steps.

    Raises InvalidPositionError when no sequence of single moves of these dice leads there.
    """
    die1, die2 = check_dice(die1, die2)
    return steps_between(np.asarray(before).tolist(), np.asarray(after).tolist(), die1, die2)


def steps_between(
    before: Sequence[Sequence[int]], after: Sequence[Sequence[int]], die1: int, die2: int
) -> list[Step]:
    """``steps_of`` on the two rows of each board as sequences of ints (``board.tolist()``), the
    dice not checked: for the many results of one position (``notation.format_plays``)."""
    goal = (tuple(after[0]), tuple(after[1]))
    steps = find_steps((tuple(before[0]), tuple(before[1])), goal, die1, die2, _backgammon_moves(goal))
    if steps is None:
        raise InvalidPositionError(
            f"no sequence of single moves of the dice {die1}-{die2} leads to the position after"
        )
    return steps
