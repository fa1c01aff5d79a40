"""The single-die steps of a Plakoto or Fevga play already known to be legal: the display text.

The compiled generator decides which results a roll can reach (``movegen.py``); to write one
as text its single moves are needed. ``variant_steps_of`` finds one sequence of them with the
search of ``game/steps.py``, each move one a die can make on its own: open points (R7; Plakoto
P3, Fevga F3), pins (P2), bearing off (R14-R17, P4), the runner rule (F4) and, as an option,
no move completing the start quarter (F5). Maximality (R10) and the judgements at the end of a
play (F5, F6) are the generator's. Rule ids refer to ../shared/RULES.md.

Boards are :class:`~tavli_fast.variants.board.VariantBoard`; a step is ``(from, to)`` in the
mover's numbering, ``to`` 0 meaning borne off.
"""

from __future__ import annotations

from itertools import accumulate

from ..errors import InvalidPositionError, check_dice
from ..game.steps import Moves, bears_off, find_steps, highest_surplus
from ..rules import FevgaRules, PlakotoRules
from .board import VariantBoard, across

__all__ = ["VariantStep", "variant_steps_of"]

VariantStep = tuple[int, int]
START = 24  # each side's starting point, in its own numbering
_Move = tuple[VariantStep, VariantBoard]  # a step and the board after it


def _moved(counts: tuple[int, ...], source: int, target: int) -> tuple[int, ...]:
    out = list(counts)
    out[source] -= 1
    out[target] += 1
    return tuple(out)


def _plakoto_moves(goal: VariantBoard, rules: PlakotoRules) -> Moves:
    """The single Plakoto move of one die that may lead to ``goal``, if any. As in backgammon
    (``game/steps.py``) a play can be played from its highest source down, as blocks and pins
    never depend on the order of my moves, so the next step starts from the highest point
    where I hold more checkers than the goal."""

    def moves(board: VariantBoard, die: int, highest: int) -> list[_Move]:
        me = board.me
        source = highest_surplus(me, goal.me, min(highest, 24))  # no bar: 24 at most
        if not source or source in board.me_pinned:  # P2: a pinned checker stays
            return []
        target = source - die
        opp_pinned = board.opp_pinned
        if target >= 1:
            theirs = board.opp[25 - target]
            if theirs >= 2 or (theirs and target in board.me_pinned):
                return []  # P3: closed, or theirs on top of my pinned checker
            if theirs:
                opp_pinned = opp_pinned | {25 - target}  # P2: landing on a lone one pins it
        # R14, P4: all home (no bar), and a pinned checker at home stops it unless it counts.
        elif any(me[7:25]) or (board.me_pinned and not rules.pinned_home_counts):
            return []
        elif not bears_off(me, source, die):
            return []
        else:
            target = 0
        after = _moved(me, source, target)
        if not after[source]:
            opp_pinned = opp_pinned - {25 - source}  # my last checker left: his is free
        return [((source, target), VariantBoard(after, board.opp, board.me_pinned, opp_pinned))]

    return moves


def _fevga_move(board: VariantBoard, source: int, die: int, rules: FevgaRules) -> _Move | None:
    """The move of a checker from ``source`` by ``die``, if Fevga allows it, and the board after."""
    me = board.me
    if source == START and not (
        # F4: a second checker leaves my 24 only once one has passed the mark (or is off).
        me[START] == 15 or me[0] or any(me[1 : (12 if rules.runner_to_quarter else 11) + 1])
    ):
        return None
    target = source - die
    if target >= 1:
        if board.opp[across(target)]:
            return None  # F3: one opposing checker closes a point
    elif any(me[7:25]) or not bears_off(me, source, die):
        return None  # R14 all home first (no bar in Fevga); R15-R17
    else:
        target = 0
    after = _moved(me, source, target)
    if rules.start_quarter_each_move and all(after[19:25]):
        return None  # F5 option: no single move may complete the start quarter
    return (source, target), VariantBoard(after, board.opp, board.me_pinned, board.opp_pinned)


def _fevga_moves(goal: VariantBoard, rules: FevgaRules, any_order: bool) -> Moves:
    """Single Fevga moves that may lead to ``goal``.

    Most plays can be played from their highest source down, as in Plakoto: then the next
    step starts from the highest point where I hold more checkers than the goal. The runner
    rule (F4) and the F5 option make the order matter in some plays, which ``any_order`` finds:
    every source is tried, pruned only when a move leaves fewer of my checkers at or behind
    some point than the goal has there (checkers only move forward).
    """
    if not any_order:

        def highest_first(board: VariantBoard, die: int, highest: int) -> list[_Move]:
            source = highest_surplus(board.me, goal.me, min(highest, 24))
            move = _fevga_move(board, source, die, rules) if source else None
            return [move] if move else []

        return highest_first

    goal_behind = list(accumulate(reversed(goal.me[1:25])))  # [i]: on points >= 24 - i

    def every_order(board: VariantBoard, die: int, highest: int) -> list[_Move]:
        spare = [n - g for n, g in zip(accumulate(reversed(board.me[1:25])), goal_behind)][::-1]
        found = []
        for source in range(24, 0, -1):
            # The checker leaves points max(target, 0) + 1 .. source: spare[p - 1] for those p.
            if board.me[source] and min(spare[max(source - die, 0) : source]) >= 1:
                move = _fevga_move(board, source, die, rules)
                if move:
                    found.append(move)
        return found

    return every_order


def variant_steps_of(
    game: str,
    before: VariantBoard,
    after: VariantBoard,
    die1: int,
    die2: int,
    rules: PlakotoRules | FevgaRules | None = None,
) -> list[VariantStep]:
    """The single-die steps of one ``game`` play ("plakoto" or "fevga") from ``before`` to
    ``after`` (sides not switched), in the order played. ``after`` must be a legal result of
    the dice (the generator says which are). Raises InvalidPositionError when no sequence of
    single moves of these dice leads there."""
    die1, die2 = check_dice(die1, die2)
    if game == "plakoto":
        plakoto: PlakotoRules = PlakotoRules() if rules is None else rules  # type: ignore[assignment]
        searches = [_plakoto_moves(after, plakoto)]
    else:
        # Highest source first, as in Plakoto; F4 and the F5 option need another order in a few.
        fevga: FevgaRules = FevgaRules() if rules is None else rules  # type: ignore[assignment]
        searches = [_fevga_moves(after, fevga, False), _fevga_moves(after, fevga, True)]
    for moves in searches:
        steps = find_steps(before, after, die1, die2, moves)
        if steps is not None and len(steps) == (4 if die1 == die2 else 2):
            break  # every die used; else the last search's deepest sequence
    if steps is None:
        raise InvalidPositionError(
            f"no sequence of single {game} moves of the dice {die1}-{die2} leads to the position after"
        )
    return steps
