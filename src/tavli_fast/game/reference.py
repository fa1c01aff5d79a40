"""Deprecated module path. The plain-Python move generator that lived here is a test oracle now
(``tests/oracles/backgammon.py``, not installed); production code does not use it.

The old names keep working on the production path, each warning (DeprecationWarning) when
used: the results come from the compiled generator (``_core``), the steps of each from
``steps.py``. ``reference_plays`` now gives ONE step sequence per result (it listed every
sequence) and ignores ``all_orders``. Use ``movegen.generate_positions`` and
``steps.steps_of`` instead.
"""

from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from .. import _core
from ..errors import check_dice
from .steps import Step, steps_of


def _plays(
    board: np.ndarray, die1: int, die2: int, all_orders: bool = False
) -> dict[bytes, list[tuple[Step, ...]]]:
    """Each legal result (``int8`` board bytes, sides not switched) -> [one step sequence]."""
    die1, die2 = check_dice(die1, die2)
    start = np.ascontiguousarray(board, dtype=np.int8)
    return {
        result.tobytes(): [tuple(steps_of(start, result, die1, die2))]
        for result in _core.generate(start, die1, die2)
    }


def _positions(board: np.ndarray, die1: int, die2: int) -> set[bytes]:
    """The legal results as ``board.tobytes()`` of (2, 26) int8 boards, sides not switched."""
    die1, die2 = check_dice(die1, die2)
    start = np.ascontiguousarray(board, dtype=np.int8)
    return {result.tobytes() for result in _core.generate(start, die1, die2)}


_DEPRECATED: dict[str, Callable] = {"reference_plays": _plays, "reference_positions": _positions}

__all__ = ["Step", *_DEPRECATED]  # the deprecated names come from __getattr__


def __getattr__(name: str) -> Callable:
    if name in _DEPRECATED:
        warnings.warn(
            f"tavli_fast.game.reference.{name} is deprecated (the oracle moved to the tests): "
            "use tavli_fast.game.movegen.generate_positions and tavli_fast.game.steps.steps_of",
            DeprecationWarning,
            stacklevel=2,
        )
        return _DEPRECATED[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
