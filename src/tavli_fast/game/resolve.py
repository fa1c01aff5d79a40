"""The position a job starts from: "start", a gnubg Position ID, an XGID or a Position."""

from __future__ import annotations

import numpy as np

from ..errors import VariantIdError
from .movegen import require_game_in_progress
from .position import Position

__all__ = ["resolve_position"]


def resolve_position(position: str | Position) -> tuple[Position, bool]:
    """(Position, is_start) from "start", a gnubg Position ID, an XGID or a Position.

    `is_start` says whether the opening-roll rule R5 applies: only a game that
    begins at the starting position, with no dice rolled yet, has an opening
    roll.  A finished game raises InvalidPositionError.
    """
    if isinstance(position, Position):
        pos = position
    elif isinstance(position, str) and position.strip().lower() == "start":
        pos = Position.initial()
    elif isinstance(position, str):
        try:
            pos = Position.from_id(position)
        except VariantIdError as e:
            raise e.with_advice(f"pass game={e.game!r}") from None
    else:
        raise TypeError(
            "position must be 'start', a Position ID, an XGID or a Position, "
            f"not {type(position).__name__}"
        )
    require_game_in_progress(pos)
    is_start = bool(np.array_equal(pos.board, Position.initial().board)) and pos.context.dice is None
    return pos, is_start
