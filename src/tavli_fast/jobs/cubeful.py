"""Cubeful rollouts: the cube branches a rollout follows and the figures it reports.

A cubeful rollout plays each trial once and follows up to two cube histories on it (checker
play never depends on the cube, so both see the same dice and the same plays: common random
numbers by construction): **no double** (the side on roll does not double now) and, when it
may double, **double/take** (the cube at twice its value on the opponent's side). From the
next roll on, both players make their own cube decisions (``cube.py``'s model for the neural
players, a pip-count rule for the others). A pass ends that branch at the cube's value;
a finished game scores the cube times 1, 2 or 3.

Money results are points per unit of the position's cube. In a match, each trial's result
is the side on roll's match winning chance after the game (Kazaross-XG2 table); the
equities shown are those MWCs mapped to the current cube's scale, as gnubg does, so that
double/pass is +1 in both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from .. import _core
from ..play.cube import DOUBLING, OWNER_CODES, action_words, cube_state_args, default_match_table
from ..errors import InvalidPositionError
from ..game.position import Position

__all__ = ["DEFAULT_MAX_CUBE", "cube_of", "cube_branches", "CubefulFigures", "cubeful_figures", "check_max_cube"]

#: R23: cube values stop at 64.
DEFAULT_MAX_CUBE = 64


def check_max_cube(max_cube: object) -> int:
    """A maximum cube value: a power of two from 1 (no doubling) up."""
    if isinstance(max_cube, bool) or not isinstance(max_cube, int) or max_cube < 1 or max_cube & (max_cube - 1):
        raise ValueError(f"max_cube must be a power of two (1, 2, 4, ..., 64), got {max_cube!r}")
    return max_cube


def _state(position: Position, max_cube: int) -> tuple:
    """The kernels' cube tuple (value, owner, max, jacoby, beaver, away_me, away_opp, crawford):
    ``cube.cube_state_args`` without the table, in the kernels' order."""
    args = cube_state_args(position.context, max_cube=max_cube)
    return tuple(args[k] for k in ("value", "owner", "max_value", "jacoby", "beaver", "away_me",
                                   "away_opp", "crawford"))


def cube_of(position: Position, max_cube: int = DEFAULT_MAX_CUBE) -> tuple:
    """The position's cube as the kernels' tuple, seen by the side on roll (checked against
    the maximum cube and the match equity table's length)."""
    max_cube = check_max_cube(max_cube)
    ctx = position.context
    if ctx.cube_value > max_cube:
        raise InvalidPositionError(f"cube value {ctx.cube_value} is above the maximum cube {max_cube}")
    if ctx.match_length and ctx.match_length > default_match_table().size:
        raise InvalidPositionError(
            f"a {ctx.match_length}-point match is longer than the match equity table "
            f"({default_match_table().size} points)"
        )
    return _state(position, max_cube)


def cube_branches(position: Position, max_cube: int = DEFAULT_MAX_CUBE) -> tuple[tuple, ...]:
    """The starting cube of each branch, seen by the side on roll: no double, and double/take
    when the side on roll may double now (before its roll: an XGID with dice has rolled)."""
    nd = cube_of(position, max_cube)
    if position.context.dice is None and _core.cube_allows_double(*nd, met=_met(position)):
        value, _, cap, jacoby, beaver, a, b, crawford = nd
        return nd, (2 * value, OWNER_CODES["opponent"], cap, jacoby, beaver, a, b, crawford)
    return (nd,)


def _met(position: Position) -> _core.MatchTableC | None:
    return default_match_table() if position.context.match_length else None


def branch_met(branches: Sequence[tuple]) -> _core.MatchTableC | None:
    """The match table the kernels need for these branches (None in money play)."""
    return default_match_table() if branches and branches[0][5] else None


@dataclass(frozen=True)
class CubefulFigures:
    """What a cubeful rollout reports (for the side on roll, per unit of the current cube).

    ``double_take`` is None when the side on roll could not double (one branch only).
    ``se`` holds the standard errors of ``no_double``, ``double_take`` and of their paired
    ``difference`` (DT - ND). ``mwc``: in a match, the three as match winning chances (with
    ``se``), else None. ``cubeless``: in a match, the rollout's cubeless result as a
    normalised equity (a dead cube at the current value); in money, the cubeless equity.
    """

    no_double: float
    double_take: float | None
    double_pass: float
    action: str
    can_double: bool
    double: bool
    take: bool | None
    se: dict[str, float | None]
    mwc: dict[str, Any] | None
    cubeless: float
    mean_cube: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {
            "no_double": self.no_double,
            "double_take": self.double_take,
            "double_pass": self.double_pass,
            "action": self.action,
            "can_double": self.can_double,
            "double": self.double,
            "take": self.take,
            "se": dict(self.se),
            "mwc": self.mwc,
            "cubeless": self.cubeless,
            "mean_cube": dict(self.mean_cube),
        }


def _mean_se(total: float, sumsq: float, n: int) -> tuple[float, float]:
    mean = total / n
    return mean, math.sqrt(max(sumsq / n - mean * mean, 0.0) / n)


def cubeful_figures(position: Position, branches: Sequence[tuple], sums: Sequence[float], games: int,
                    win: float, win_gammon: float) -> CubefulFigures:
    """The cubeful figures from the summed cube moments of the core (see _core.run_games):
    [sum_0, sum_1, sumsq_0, sumsq_1, sum_d, sumsq_d, cube_0, cube_1, sum_cl, sumsq_cl]."""
    ctx = position.context
    two = len(branches) == 2
    nd, nd_se = _mean_se(sums[0], sums[2], games)
    dt, dt_se = _mean_se(sums[1], sums[3], games) if two else (math.nan, math.nan)
    diff_se = _mean_se(sums[4], sums[5], games)[1] if two else math.nan
    cubeless, _ = _mean_se(sums[8], sums[9], games)
    mwc = None
    if ctx.match_length:
        met = default_match_table()
        a, b, c = branches[0][5], branches[0][6], ctx.cube_value
        post = a == 1 or b == 1
        won, lost = _core.match_mwc(met, a - c, b, post), _core.match_mwc(met, a, b - c, post)
        span = won - lost

        def eq(m: float) -> float:
            return (2.0 * m - (won + lost)) / span

        mwc = {"no_double": nd, "double_take": dt if two else None, "double_pass": won,
               "se": {"no_double": nd_se, "double_take": dt_se if two else None,
                      "difference": diff_se if two else None}}
        nd, dt, cubeless = eq(nd), eq(dt) if two else math.nan, eq(cubeless)
        nd_se, dt_se, diff_se = (2.0 * s / span for s in (nd_se, dt_se, diff_se))
    can_double = two
    money = not ctx.match_length
    code = _core.cube_action_code(
        nd, dt if two else nd, 1.0, win, win_gammon, can_double,
        money and ctx.beaver, money and ctx.jacoby and ctx.cube_owner == "centre")
    return CubefulFigures(
        no_double=nd,
        double_take=dt if two else None,
        double_pass=1.0,
        action=action_words(code, ctx.cube_owner),
        can_double=can_double,
        double=code in DOUBLING,
        take=(dt <= 1.0) if two else None,
        se={"no_double": nd_se, "double_take": dt_se if two else None,
            "difference": diff_se if two else None},
        mwc=mwc,
        cubeless=cubeless,
        mean_cube={"no_double": sums[6] / games, **({"double_take": sums[7] / games} if two else {})},
    )
