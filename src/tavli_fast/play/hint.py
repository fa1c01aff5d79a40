"""The plays of a roll ranked by the neural net, as ``tavli-hint`` prints them.

Every play gets its 0-ply equity; the `top` best by 0 ply also their 1-ply equity (the
mean over the opponent's 21 rolls of his best 0-ply reply); at ``ply=2`` the best of those
by 1 ply (``FILTER_2PLY``: at most 3, within 0.10 of the best) also their 2-ply equity
(the mean over his 21 rolls of the position after his best 0-ply reply valued at 1 ply:
two rolls ahead, gnubg's 2-ply).  The ranking is by the deepest ply computed, then the
ply above.  Equities are cubeless, for the mover.  At a match score (an XGID's or Match
ID's) each side's gammons and backgammons count at that side's prices there
(``cube.gammon_prices``), as the neural players weigh them in a match.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import _core
from .cube import gammon_prices
from .neural import evaluator
from ..errors import check_dice
from ..game.resolve import resolve_position
from ..game.position import Position

__all__ = ["RankedPlay", "hint", "prices_report", "ranked_plays", "check_ply", "FILTER_2PLY"]

#: The 2-ply look's filter: of the plays looked at 1 ply, at most this many, those within
#: this equity of the best by 1 ply, are looked at 2 ply (the players' second filter).
FILTER_2PLY: tuple[int, float] = (int(_core.FILTER_2PLY_CANDIDATES), float(_core.FILTER_2PLY_WINDOW))

_PRICE_NAMES = ("win_gammon", "lose_gammon", "win_backgammon", "lose_backgammon")


@dataclass(frozen=True)
class RankedPlay:
    """One play of the roll: the Position ID after it, the opponent on roll (sides
    switched, as gnubg writes a play's position and as every result of the package gives a
    play's ``position_id``), its notation, and its equities (``equity_1ply`` None where the
    1-ply look was not made, ``equity_2ply`` where the 2-ply one was not)."""

    position_id: str
    play: str
    equity_0ply: float
    equity_1ply: float | None
    equity_2ply: float | None = None

    def to_dict(self) -> dict:
        # Its fields are plain values: a shallow copy is asdict's answer at a fifth of its time
        # (a hint makes one a play; tavli-serve answers hints by the thousand).
        return dict(self.__dict__)


def check_ply(ply: object) -> int:
    """The search depth of a hint or an evaluation: 0, 1 or 2 (ValueError otherwise)."""
    if isinstance(ply, bool) or ply not in (0, 1, 2):
        raise ValueError(f"ply must be 0, 1 or 2, not {ply!r}")
    return int(ply)  # type: ignore[call-overload]


def hint(position: str | Position, die1: int, die2: int, *, top: int = 5,
         net: _core.NeuralNet | None = None, ply: int = 1,
         filter_2ply: tuple[int, float] = FILTER_2PLY,
         cache: _core.SearchCache | None = None) -> list[RankedPlay]:
    """The plays of (die1, die2) from `position` ("start", a Position ID, an XGID or a
    Position), best first, by `net` (default: the shipped one with the bear-off databases, by
    the default evaluator, ``neural.default_evaluator``), looked at `ply` deep (0, 1 or 2): the
    `top` best by 0 ply at 1 ply, and at 2 ply the best of those that `filter_2ply`
    (candidates, window) keeps.  `cache`: a SearchCache to keep (and reuse) the 2-ply
    search's positions in, e.g. across the hints of one game (None: a fresh one).  Raises
    InvalidDiceError, InvalidPositionError (a finished game) or ValueError (top < 0, a bad
    ply or filter)."""
    return [play for play, _ in ranked_plays(position, die1, die2, top=top, net=net, ply=ply,
                                             filter_2ply=filter_2ply, cache=cache)]


def ranked_plays(position: str | Position, die1: int, die2: int, *, top: int = 5,
                 net: _core.NeuralNet | None = None, ply: int = 1,
                 filter_2ply: tuple[int, float] = FILTER_2PLY,
                 cache: _core.SearchCache | None = None,
                 backgammons: bool = True) -> list[tuple[RankedPlay, np.ndarray]]:
    """``hint``'s plays, each with the board after it (sides not switched); without
    `backgammons` (the Portes option of R20) a backgammon is valued as a gammon."""
    if top < 0:
        raise ValueError(f"top must be 0 or more, not {top}")
    depth = check_ply(ply)
    d1, d2 = check_dice(die1, die2)
    pos, _ = resolve_position(position)
    net = net or evaluator()
    prices = gammon_prices(pos.context, backgammons=backgammons)
    mine, theirs = prices if prices is not None else (None, None)
    plays = pos.plays(d1, d2)
    boards = np.ascontiguousarray(np.array([p.position.board for p in plays], dtype=np.int8))
    if cache is None and depth == 2:
        cache = _core.SearchCache()
    eq, order = net.rank_plays(pos.board, boards, depth, ((top, math.inf), filter_2ply),
                               cache=cache, prices=mine, reply_prices=theirs)

    def deeper(k: int, i: int) -> float | None:
        return float(eq[k, i]) if k <= depth and not math.isnan(eq[k, i]) else None

    # Each play's Position ID with the opponent on roll: its board turned round, encoded
    # (Position.sides_switched().position_id() without building a Position a play).
    switched = np.ascontiguousarray(boards[:, ::-1])
    return [(RankedPlay(_core.encode_position_id(switched[i]),
                        plays[i].notation or "(no play)", float(eq[0, i]), deeper(1, i),
                        deeper(2, i)), plays[i].position.board)
            for i in map(int, order)]


def prices_report(position: Position) -> dict | None:
    """Both sides' gammon prices at the position's match score by name, for JSON reports
    (``{"mover": {...}, "opponent": {...}}``); None in money play."""
    prices = gammon_prices(position.context)
    if prices is None:
        return None
    return {side: dict(zip(_PRICE_NAMES, map(float, p)))
            for side, p in zip(("mover", "opponent"), prices)}
