"""Deprecated module path. The plain-Python Plakoto and Fevga generators that lived here are
test oracles now (``tests/oracles/variants.py``, not installed); production code does not use
them. ``VariantBoard`` and ``across`` live in ``board.py``.

The old names keep working on the production path, each warning (DeprecationWarning) when
used: ``plakoto_plays`` / ``fevga_plays`` give the compiled generator's results, each with one
step sequence from ``steps.py``; ``plakoto_game_over`` is ``PlakotoPosition.is_game_over``.
The oracle's own helper ``fevga_trapped`` (F6) has no production twin and is gone. Use
``movegen.generate_variant_positions`` and ``steps.variant_steps_of`` instead.
"""

from __future__ import annotations

import warnings
from typing import Callable

from ..rules import FevgaRules, PlakotoRules
from .board import VariantBoard, across
from .movegen import generate_variant_positions
from .position import FevgaPosition, PlakotoPosition
from .steps import VariantStep as Step
from .steps import variant_steps_of


def _plays(
    game: str, board: VariantBoard, die1: int, die2: int, rules: PlakotoRules | FevgaRules
) -> dict[VariantBoard, tuple[Step, ...]]:
    """Each legal result -> one step sequence reaching it (``{board: ()}`` when nothing moves)."""
    before = (PlakotoPosition if game == "plakoto" else FevgaPosition).from_reference_board(board)
    plays = {}
    for after in generate_variant_positions(game, before, die1, die2, rules):
        result = after.reference_board()
        plays[result] = tuple(variant_steps_of(game, board, result, die1, die2, rules))
    return plays


def _plakoto_plays(
    board: VariantBoard, die1: int, die2: int, rules: PlakotoRules = PlakotoRules()
) -> dict[VariantBoard, tuple[Step, ...]]:
    return _plays("plakoto", board, die1, die2, rules)


def _fevga_plays(
    board: VariantBoard, die1: int, die2: int, rules: FevgaRules = FevgaRules()
) -> dict[VariantBoard, tuple[Step, ...]]:
    return _plays("fevga", board, die1, die2, rules)


def _plakoto_game_over(board: VariantBoard) -> bool:
    return PlakotoPosition.from_reference_board(board).is_game_over()


_DEPRECATED: dict[str, Callable] = {
    "plakoto_plays": _plakoto_plays,
    "fevga_plays": _fevga_plays,
    "plakoto_game_over": _plakoto_game_over,
}

__all__ = ["VariantBoard", "Step", "across", *_DEPRECATED]  # the deprecated names come from __getattr__


def __getattr__(name: str) -> Callable:
    if name in _DEPRECATED:
        warnings.warn(
            f"tavli_fast.variants.reference.{name} is deprecated (the oracles moved to the tests): "
            "use tavli_fast.variants.movegen.generate_variant_positions and "
            "tavli_fast.variants.steps.variant_steps_of",
            DeprecationWarning,
            stacklevel=2,
        )
        return _DEPRECATED[name]
    if name == "fevga_trapped":
        raise AttributeError(
            "tavli_fast.variants.reference.fevga_trapped was the test oracle's own F6 check; it "
            "moved with the oracle to tests/oracles/variants.py and has no production twin"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
