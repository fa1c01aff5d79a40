"""The plays of a roll ranked by the neural net, as ``tavli-hint`` prints them.

Every play gets its 0-ply equity; the `top` best by 0 ply also their 1-ply equity (the
mean over the opponent's 21 rolls of his best 0-ply reply), and the ranking is by 1 ply
where it was computed, then by 0 ply.  Equities are cubeless, for the mover.  At a match
score (an XGID's or Match ID's) each side's gammons and backgammons count at that side's
prices there (``cube.gammon_prices``), as the neural players weigh them in a match.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .. import _core
from .cube import gammon_prices
from .neural import default_net
from ..errors import check_dice
from ..game.resolve import resolve_position
from ..game.position import Position

__all__ = ["RankedPlay", "hint", "ranked_plays", "prices_report"]

_PRICE_NAMES = ("win_gammon", "lose_gammon", "win_backgammon", "lose_backgammon")


@dataclass(frozen=True)
class RankedPlay:
    """One play of the roll: the Position ID after it (sides not switched, as
    ``legal_positions`` gives them), its notation, and its equities (``equity_1ply`` None
    where the 1-ply look was not made)."""

    position_id: str
    play: str
    equity_0ply: float
    equity_1ply: float | None

    def to_dict(self) -> dict:
        return asdict(self)


def hint(position: str | Position, die1: int, die2: int, *, top: int = 5,
         net: _core.NeuralNet | None = None) -> list[RankedPlay]:
    """The plays of (die1, die2) from `position` ("start", a Position ID, an XGID or a
    Position), best first, by `net` (default the shipped one with the bear-off databases).
    Raises InvalidDiceError, InvalidPositionError (a finished game) or ValueError (top < 0)."""
    return [play for play, _ in ranked_plays(position, die1, die2, top=top, net=net)]


def ranked_plays(position: str | Position, die1: int, die2: int, *, top: int = 5,
                 net: _core.NeuralNet | None = None) -> list[tuple[RankedPlay, np.ndarray]]:
    """``hint``'s plays, each with the board after it (sides not switched)."""
    if top < 0:
        raise ValueError(f"top must be 0 or more, not {top}")
    d1, d2 = check_dice(die1, die2)
    pos, _ = resolve_position(position)
    net = net or default_net()
    prices = gammon_prices(pos.context)
    mine, theirs = prices if prices is not None else (None, None)
    ranked = sorted(((net.move_equity(p.position.board, prices=mine), p)
                     for p in pos.plays(d1, d2)), key=lambda item: -item[0])
    plays = [
        (RankedPlay(p.position.position_id(), p.notation or "(no play)", equity,
                    net.move_equity(p.position.board, ply=1, prices=mine, reply_prices=theirs)
                    if i < top else None), p.position.board)
        for i, (equity, p) in enumerate(ranked)
    ]
    plays.sort(key=lambda item: (item[0].equity_1ply is None, -(item[0].equity_1ply or 0.0),
                                 -item[0].equity_0ply))
    return plays


def prices_report(position: Position) -> dict | None:
    """Both sides' gammon prices at the position's match score by name, for JSON reports
    (``{"mover": {...}, "opponent": {...}}``); None in money play."""
    prices = gammon_prices(position.context)
    if prices is None:
        return None
    return {side: dict(zip(_PRICE_NAMES, map(float, p)))
            for side, p in zip(("mover", "opponent"), prices)}
