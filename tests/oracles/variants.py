"""Slow, readable move generators for Plakoto and Fevga: the oracles for the Cython core.

Written for clarity, rule by rule (ids refer to ../shared/RULES.md: dice rules R7-R10,
bear-off rules R14-R17, Plakoto P1-P7, Fevga F1-F7). Nothing here is fast; the parity tests
run it against ``_core`` on thousands of positions. A test oracle, not part of the package
(tests import it as ``oracles.variants``); of the package it uses only the plain board and
its geometry (``tavli_fast.variants.board``), not the production step search.

A board is a :class:`VariantBoard`, always seen by the player on roll ("me"): ``me[p]`` is
my count on my point p (1..24), ``me[0]`` my borne-off checkers; ``opp`` likewise in the
OPPONENT's own numbering. Neither game has a bar. Results have sides NOT switched.

Geometry:

* Plakoto (P1): opposite directions, as in Portes: my point p is the opponent's 25 - p.
* Fevga (F1, F2): same direction, starting points diagonally opposite: my point p is the
  opponent's point ``across(p) = ((p + 11) % 24) + 1`` (and the map is its own inverse).

A step is ``(from, to)`` in my numbering, ``to`` 0 meaning borne off.
"""

from __future__ import annotations

from typing import Callable, Iterable

from tavli_fast.errors import check_dice
from tavli_fast.rules import FevgaRules, PlakotoRules
from tavli_fast.variants.board import VariantBoard, across

__all__ = [
    "VariantBoard",
    "Step",
    "across",
    "plakoto_plays",
    "fevga_plays",
    "plakoto_game_over",
    "fevga_trapped",
]

Step = tuple[int, int]
HOME = range(1, 7)
START = 24


def _moved(counts: tuple[int, ...], source: int, target: int) -> tuple[int, ...]:
    out = list(counts)
    out[source] -= 1
    out[max(target, 0)] += 1
    return tuple(out)


def _bear_off_allowed(me: tuple[int, ...], source: int, die: int) -> bool:
    """R15-R17 for a checker on ``source`` (home board, bear-off permitted) and this die."""
    if source - die == 0:
        return True  # R15: exact
    # R16/R17: a larger die bears off only from the highest occupied point.
    return not any(me[source + 1 : 7])


# ---------------------------------------------------------------- Plakoto

def _plakoto_steps(board: VariantBoard, die: int, rules: PlakotoRules) -> list[tuple[Step, VariantBoard]]:
    """Every legal single move of ``die`` (R7, R14-R17, P2-P4) and the board after it."""
    me, opp = board.me, board.opp
    # P4: all checkers home (no bar in Plakoto), and a pinned one in the home board stops
    # bearing off unless the option says it counts as home.
    may_bear_off = not any(me[7:25]) and (rules.pinned_home_counts or not board.me_pinned)
    found = []
    for source in range(24, 0, -1):
        if not me[source] or source in board.me_pinned:  # P2: a pinned checker never moves
            continue
        target = source - die
        opp_pinned = set(board.opp_pinned)
        if target >= 1:
            theirs = opp[25 - target]
            # P3: blocked by two or more of theirs, or by theirs on top of my pinned checker.
            if theirs >= 2 or (theirs >= 1 and target in board.me_pinned):
                continue
            if theirs == 1:
                opp_pinned.add(25 - target)  # P2: landing on a lone checker pins it (or joins)
        elif not (may_bear_off and _bear_off_allowed(me, source, die)):
            continue
        after = _moved(me, source, target)
        if after[source] == 0:
            opp_pinned.discard(25 - source)  # my last checker left: theirs is free again
        found.append(((source, max(target, 0)), board._replace(me=after, opp_pinned=frozenset(opp_pinned))))
    return found


def plakoto_game_over(board: VariantBoard) -> bool:
    """After the mover's play: all borne off (P7), or the mother rule P5-P6.

    P5: the opponent's mother (his last checker on his 24 = my point 1) is pinned and I have
    no checker left on my own 24. P6: both mothers are pinned (a draw).
    """
    if board.me[0] == 15:
        return True
    if START in board.opp_pinned:
        return board.me[START] == 0 or START in board.me_pinned
    return False


def plakoto_plays(
    board: VariantBoard, die1: int, die2: int, rules: PlakotoRules = PlakotoRules()
) -> dict[VariantBoard, tuple[Step, ...]]:
    """Every distinct legal result of the roll, mapped to one step sequence reaching it.

    When nothing can be played: ``{board: ()}``.
    """
    return _select(board, die1, die2, lambda b, d: _plakoto_steps(b, d, rules), None, None)


# ---------------------------------------------------------------- Fevga

def _holds_start_quarter(me: tuple[int, ...]) -> bool:
    """F5: a checker on every one of my points 19-24."""
    return all(me[p] for p in range(19, 25))


def _runner_may_leave(me: tuple[int, ...], rules: FevgaRules) -> bool:
    """F4: a checker may leave my 24 if none has left yet, or one has passed the mark."""
    mark = 12 if rules.runner_to_quarter else 11
    return me[START] == 15 or me[0] > 0 or any(me[1 : mark + 1])


def _fevga_steps(board: VariantBoard, die: int, rules: FevgaRules) -> list[tuple[Step, VariantBoard]]:
    """Every legal single move of ``die`` (R7, R14-R17, F3-F5) and the board after it."""
    me, opp = board.me, board.opp
    may_bear_off = not any(me[7:25])  # R14: no bar in Fevga
    found = []
    for source in range(24, 0, -1):
        if not me[source]:
            continue
        if source == START and not _runner_may_leave(me, rules):
            continue
        target = source - die
        if target >= 1:
            if opp[across(target)]:  # F3: even one opposing checker blocks
                continue
        elif not (may_bear_off and _bear_off_allowed(me, source, die)):
            continue
        after = _moved(me, source, target)
        if rules.start_quarter_each_move and _holds_start_quarter(after):
            continue
        found.append(((source, max(target, 0)), board._replace(me=after)))
    return found


def fevga_trapped(board: VariantBoard) -> bool:
    """F6: every opposing checker on the board is behind six consecutive points of mine.

    "Behind" is along the opponent's path: in his numbering he holds no checker on the six
    points or below them, and at least one above.
    """
    on_board = [q for q in range(1, 25) if board.opp[q]]
    if not on_board:
        return False
    lowest = min(on_board)
    for low in range(1, 20):  # his points low..low+5
        if low + 5 < lowest and all(board.me[across(q)] for q in range(low, low + 6)):
            return True
    return False


def fevga_plays(
    board: VariantBoard, die1: int, die2: int, rules: FevgaRules = FevgaRules()
) -> dict[VariantBoard, tuple[Step, ...]]:
    """Every distinct legal result of the roll, mapped to one step sequence reaching it.

    When nothing can be played: ``{board: ()}``.
    """
    trapped_at_start = fevga_trapped(board)

    def legal_end(after: VariantBoard) -> bool:
        if _holds_start_quarter(after.me):  # F5: judged at the end of the play
            return False
        if rules.prime_never_built and not trapped_at_start and fevga_trapped(after):
            return False  # F6 option: no prime built with all of theirs behind it
        return True

    # F6: when trapped at the start, a play that frees the opponent is preferred among
    # those using the most dice.
    prefer = (lambda after: not fevga_trapped(after)) if trapped_at_start else None
    return _select(board, die1, die2, lambda b, d: _fevga_steps(b, d, rules), legal_end, prefer)


# ---------------------------------------------------------------- R8-R10, shared

StepFn = Callable[[VariantBoard, int], list[tuple[Step, VariantBoard]]]


def _layers(
    board: VariantBoard, dice: Iterable[int], steps: StepFn
) -> list[dict[VariantBoard, tuple[Step, ...]]]:
    """Boards reachable after 0, 1, 2, ... of these dice in this order, each with one path."""
    layers = [{board: ()}]
    for die in dice:
        nxt: dict[VariantBoard, tuple[Step, ...]] = {}
        for before, path in layers[-1].items():
            for step, after in steps(before, die):
                nxt.setdefault(after, path + (step,))
        layers.append(nxt)
    return layers


def _select(
    board: VariantBoard,
    die1: int,
    die2: int,
    steps: StepFn,
    legal_end: Callable[[VariantBoard], bool] | None,
    prefer: Callable[[VariantBoard], bool] | None,
) -> dict[VariantBoard, tuple[Step, ...]]:
    """R8-R10: the plays using the most dice (larger die if only one), then ``prefer``.

    A play whose end fails ``legal_end`` is not a play at all (F5): it is dropped before the
    dice are counted, so a shorter play may become the one that uses the most dice.
    """
    die1, die2 = check_dice(die1, die2)

    def kept(layer: dict[VariantBoard, tuple[Step, ...]]) -> dict[VariantBoard, tuple[Step, ...]]:
        return {b: p for b, p in layer.items() if legal_end is None or legal_end(b)}

    if die1 == die2:  # R9: four moves, any checkers
        layers = _layers(board, [die1] * 4, steps)
        candidates_by_use = [kept(layer) for layer in reversed(layers)]
    else:  # R8: either order
        first = _layers(board, [die1, die2], steps)
        second = _layers(board, [die2, die1], steps)
        both = kept({**second[2], **first[2]})
        large, small = (first, second) if die1 > die2 else (second, first)
        # R10: both dice if possible, else the larger die if it alone can be played.
        candidates_by_use = [both, kept(large[1]), kept(small[1]), kept(first[0])]
    chosen = next((c for c in candidates_by_use if c), {board: ()})
    if prefer is not None and any(prefer(b) for b in chosen):
        chosen = {b: p for b, p in chosen.items() if prefer(b)}
    return chosen
