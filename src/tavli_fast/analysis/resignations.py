"""Resignations judged: was giving up the game right, and was accepting it?

A game that ended by a resignation (a ``Resigns`` line, or a ``Wins`` line worth 1, 2 or 3
times the cube that no bear-off or drop explains) is judged on the position where it
happened: the resigner's cubeful equity there (the cube analysis at the analysis' ply,
``decisions.cube_analysis_at``) against the value given up (a single, gammon or backgammon:
-1, -2 or -3 per unit of the cube in money; in a match, the MWC after losing those points,
compared in MWC and given in EMG at the score).

``error``: what the resigner gave away, the equity he kept minus the resigned value, when
positive (resigning a position worth more than the resignation); ``accept_error``: what the
winner gave away by accepting, when the position was worth more to him than the points he
took. Both are in EMG per unit of the cube and marked with the same thresholds as the
decisions. They are reported beside the decisions, not counted in the error rates.

The position: for a ``Resigns`` line, the one the resigner saw (taken as his turn); for a
``Wins`` line alone, the one after the last play, the side to move next on roll.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

from ..game.position import Position
from ..matchfile.replay import ReplayedGame
from .decisions import cube_analysis_at, mwc_after, mwc_per_emg
from .thresholds import mark

__all__ = ["Resignation", "judge_resignation"]


@dataclass(frozen=True)
class Resignation:
    """One resignation judged (see the module docstring): the game, the resigner (0 or 1),
    the points given (``points``) and that per unit of the cube (``value``: 1, 2 or 3), the
    resigner's cubeful equity (per unit of the cube) and, in a match, his cubeful MWC and
    the MWC once resigned, the errors of both sides and their marks, the position's gnubg ID
    (the side on roll there), the ply."""

    game: int
    player: int
    points: int
    value: int
    equity: float
    mwc: float | None
    mwc_resigned: float | None
    error: float
    mark: str
    accept_error: float
    accept_mark: str
    position_id: str
    ply: int

    def to_dict(self) -> dict:
        return asdict(self)


def _where(game: ReplayedGame, resigner: int) -> tuple[Position, bool]:
    """The position the resignation is judged on, before a roll, and whether the resigner
    is the side on roll there."""
    explicit = next((a for a in game.actions if a.action.kind == "resign"), None)
    if explicit is not None:
        return explicit.before.with_context(replace(explicit.before.context, dice=None)), True
    last = next(a for a in reversed(game.actions) if a.after is not None)
    # After the last play the other side is on roll: seen from his side, sides switched.
    return last.after.sides_switched(), last.action.player != resigner


def judge_resignation(game: ReplayedGame, ply: int = 0,
                      evaluator: str | None = None) -> Resignation | None:
    """The judgement of the game's resignation (None when the game did not end by one, or
    ended before any play), on the net's probabilities at `ply` by `evaluator` (None: the
    default one)."""
    rec = game.record
    if game.ending != "resign" or rec.winner is None or not any(
            a.after is not None for a in game.actions):
        return None
    resigner = 1 - rec.winner
    pos, on_roll = _where(game, resigner)
    cube = pos.context.cube_value
    value = rec.points // cube
    analysis = cube_analysis_at(pos, ply, None, evaluator)
    sign = 1 if on_roll else -1
    equity = sign * analysis.cubeful_equity
    scale = mwc_per_emg(pos)
    if scale is None:
        mwc = resigned_mwc = None
        gap = equity + value              # kept minus given up (-value), per unit of the cube
    else:
        mine = pos.context if on_roll else pos.sides_switched().context
        cubeful = analysis.cubeful_mwc
        assert cubeful is not None
        mwc = cubeful if on_roll else 1.0 - cubeful
        resigned_mwc = mwc_after(mine, -rec.points)
        gap = (mwc - resigned_mwc) / scale
    error, accept = max(0.0, gap), max(0.0, -gap)
    return Resignation(rec.number, resigner, rec.points, value, equity, mwc, resigned_mwc,
                       error, mark(error), accept, mark(accept), pos.gnubg_id(), ply)
