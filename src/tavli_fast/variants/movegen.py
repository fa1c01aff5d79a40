"""Plakoto and Fevga plays, public API (RULES.md P1-P7, F1-F7 with R7-R10 and R14-R17).

``variant_plays(game, position, d1, d2)`` answers "which positions can the player on roll
reach?" with dicts (the contract of issue 12); ``generate_variant_positions`` does the same
with position objects and ``variant_play_notation`` writes the plays as text. Results are seen
from the mover, sides NOT switched; distinct move orders reaching the same position are one
play; when nothing can be played the one result is the unchanged position. The work is done by
the compiled core (``_plakoto.pxi``, ``_fevga.pxi``); this module checks the arguments and
derives the pins of the results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .. import _core
from ..errors import InvalidPositionError, check_dice
from ..game.notation import format_steps
from ..rules import FevgaRules, PlakotoRules
from .position import FevgaPosition, PlakotoPosition, VariantPosition, variant_position
from .steps import variant_steps_of

__all__ = [
    "notated_play",
    "GAME_CODES",
    "VariantPlay",
    "position_after",
    "require_variant_in_progress",
    "variant_plays",
    "generate_variant_positions",
    "variant_play_notation",
    "core_options",
]

GAME_CODES: dict[str, int] = {"plakoto": 0, "fevga": 1}  #: the core's game numbers


def game_name(code: int) -> str:
    """The game of the core's game number ``code`` ("plakoto" or "fevga")."""
    return next(name for name, c in GAME_CODES.items() if c == code)


@dataclass(frozen=True)
class VariantPlay:
    """One distinct play: the position after it (sides not switched) and its notation."""

    position: VariantPosition
    notation: str


def core_options(game: str, rules: PlakotoRules | FevgaRules | None) -> int:
    """The option bits of the core (``_variants.pxi``) for these rules (None = defaults)."""
    if game == "plakoto":
        rules = PlakotoRules() if rules is None else rules
        if not isinstance(rules, PlakotoRules):
            raise ValueError(f"Plakoto takes PlakotoRules, not {type(rules).__name__}")
        return 1 if rules.pinned_home_counts else 0
    rules = FevgaRules() if rules is None else rules
    if not isinstance(rules, FevgaRules):
        raise ValueError(f"Fevga takes FevgaRules, not {type(rules).__name__}")
    return (2 if rules.runner_to_quarter else 0) | (4 if rules.start_quarter_each_move else 0) | (
        8 if rules.prime_never_built else 0
    )


def require_variant_in_progress(position: VariantPosition) -> None:
    """Raise InvalidPositionError for a finished game."""
    if position.is_game_over():
        raise InvalidPositionError(
            f"the {position.game} game is over in this position (all borne off, or a mother rule)"
        )


def position_after(before: VariantPosition, board: np.ndarray) -> VariantPosition:
    """The position object of a core result board of ``before`` (sides not switched)."""
    me = tuple(board[0, 1:25].tolist())
    opp = tuple(board[1, 1:25].tolist())
    if isinstance(before, PlakotoPosition):
        # The opponent's lone checker is pinned where I now stand, unless mine is the pinned one.
        opp_pinned = [
            25 - p for p, mine, theirs in zip(range(1, 25), me, reversed(opp))
            if theirs == 1 and mine and p not in before.me_pinned
        ]
        return PlakotoPosition(me, opp, int(board[0, 0]), int(board[1, 0]), before.me_pinned, opp_pinned)
    return FevgaPosition(me, opp, int(board[0, 0]), int(board[1, 0]))


def generate_variant_positions(
    game: str,
    position: VariantPosition | Mapping[str, Any] | str | None,
    die1: int,
    die2: int,
    rules: PlakotoRules | FevgaRules | None = None,
) -> list[VariantPosition]:
    """The distinct positions reachable with (die1, die2), sides not switched.

    ``position``: a position object, a dict, a text id, or None for the start. Raises
    InvalidPositionError for a bad or finished position, InvalidDiceError for bad dice.
    """
    d1, d2 = check_dice(die1, die2)
    before = variant_position(game, position)
    require_variant_in_progress(before)
    boards = _core.variant_generate(
        before.core_board(), GAME_CODES[game], before.pinned_mask(), core_options(game, rules), d1, d2
    )
    return [position_after(before, board) for board in boards]


def variant_plays(
    game: str,
    position: Mapping[str, Any] | VariantPosition | str,
    d1: int,
    d2: int,
    rules: PlakotoRules | FevgaRules | None = None,
) -> list[dict[str, Any]]:
    """Every distinct result of rolling (d1, d2) in Plakoto or Fevga, as dicts.

    ``game`` is "plakoto" or "fevga"; ``position`` and every result are dicts
    ``{"me": [24 counts], "opp": [24 counts], "me_off": n, "opp_off": n, "me_pinned": [points],
    "opp_pinned": [points], "game_over": bool}``: index i of ``me``/``opp`` is that side's own
    point i + 1, pinned checkers are counted in the counts, ``*_pinned`` lists the side's own
    points holding its pinned checker (Plakoto), ``game_over`` marks results that end the game
    (the last checker borne off, or the mother rule P5-P6, a draw of two pinned mothers
    included). Results are not swapped; when nothing can be played the unchanged position is
    the one result. Bad positions raise InvalidPositionError saying what is wrong.
    """
    return [p.to_dict() for p in generate_variant_positions(game, position, d1, d2, rules)]


def variant_play_notation(
    game: str,
    position: VariantPosition | Mapping[str, Any] | str | None,
    die1: int,
    die2: int,
    rules: PlakotoRules | FevgaRules | None = None,
) -> list[VariantPlay]:
    """Every play with its notation, in the style of ``notation.py`` (``24/18 24/13``).

    Plakoto writes ``*`` where a play pins a checker (``13/7*``), as Portes does for a hit;
    Fevga has nothing to mark. The plays are the generator's; their single-die steps come from
    ``steps.py``.
    """
    d1, d2 = check_dice(die1, die2)
    before = variant_position(game, position)
    out = [notated_play(game, before, after, d1, d2, rules)
           for after in generate_variant_positions(game, before, d1, d2, rules)]
    return sorted(out, key=lambda play: play.notation)


def notated_play(game: str, before: VariantPosition, after: VariantPosition, die1: int,
                 die2: int, rules: PlakotoRules | FevgaRules | None = None) -> VariantPlay:
    """The play from `before` to `after` (one of the generator's results for the dice, sides
    not switched) with its notation."""
    steps = variant_steps_of(game, before.reference_board(), after.reference_board(), die1, die2, rules)
    marks = {25 - q for q in after.opp_pinned - before.opp_pinned}
    return VariantPlay(after, format_steps(None, steps, marks))
