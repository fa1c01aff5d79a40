"""Close decisions settled by rollouts (``tavli-analyse --rollout-close EMG --trials N``).

A checker decision whose two best plays the evaluation puts closer than `close` EMG is
rolled out: those two plays and the play made (``jobs/plays_report.rollout_plays``, side by
side on common dice, every play `trials` trials). A cube decision whose two best actions are
that close (no double against double, or take against pass) is settled by a cubeful rollout
of the position (``jobs/rollout``: no double and double/take on the same dice, double/pass
exact). Both rollouts are cubeful, since the game was played with a cube (in a match they
score by the match equity table, which a cubeless rollout ignores): the equities are per
unit of the cube (money) or the MWC on the cube's scale (a match), the analysis' scale. The
engine luck-adjusts only cubeless figures, so the cubeful ones pay for their SE in trials.

Each rollout runs in the process analysing the game (one worker), with a seed drawn from
the analysis' seed and the decision's place (game, move, player, kind), so the numbers are
the same with 1 or N workers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ..checks import check_count, check_seed
from ..game.position import Position
from ..jobs.cubeful import CubefulFigures
from ..jobs.plays_report import rollout_plays
from ..jobs.rollout import RolloutJob, make_request, run_rollout
from ..run.executors import make_executor

__all__ = ["RolloutSettings", "rollout_settings", "PlaysRolledOut", "roll_out_plays",
           "roll_out_cube"]


@dataclass(frozen=True)
class RolloutSettings:
    """Which decisions are rolled out (closer than `close` EMG between the two best), with how
    many trials (per play, or per cube rollout), from which master seed."""

    close: float
    trials: int
    seed: int

    def seed_for(self, *place: int) -> int:
        """The seed of the rollout of the decision at `place` (game, move, player, kind)."""
        return int(np.random.SeedSequence([self.seed, *place]).generate_state(2, np.uint64)[0])

    def to_dict(self) -> dict[str, Any]:
        return {"rollout_close": self.close, "trials": self.trials, "seed": self.seed}


def rollout_settings(close: object, trials: object, seed: object = None) -> RolloutSettings | None:
    """The settings of ``--rollout-close`` / ``--trials`` / ``--seed`` (None when `close` and
    `trials` are both None: no rollouts). ValueError: one given without the other, a
    negative or non-finite `close`, `trials` not a whole number >= 1, a bad seed."""
    if close is None and trials is None:
        return None
    if close is None or trials is None:
        raise ValueError("rollout_close and trials go together: give both")
    if isinstance(close, bool) or not isinstance(close, (int, float)) or not (
            math.isfinite(close) and close > 0):
        raise ValueError(f"rollout_close must be a number of EMG above 0, not {close!r}")
    return RolloutSettings(float(close), check_count(trials, "trials"), check_seed(seed))


@dataclass(frozen=True)
class PlaysRolledOut:
    """The plays of a roll rolled out: each play's equity and SE (for the mover, cubeful),
    and each play's paired difference to the best one with its SE."""

    equity: dict[str, float]
    se: dict[str, float]
    behind: dict[str, float]
    behind_se: dict[str, float]
    trials: int
    seed: int

    @property
    def best(self) -> str:
        return min(self.behind, key=lambda p: (self.behind[p], -self.equity[p]))


def roll_out_plays(position: Position, dice: tuple[int, int], plays: Sequence[str],
                   settings: RolloutSettings, place: Sequence[int],
                   evaluator: str | None = None) -> PlaysRolledOut:
    """Roll out `plays` (gnubg notation; "(no play)" is not one) of `dice` from `position`
    (the mover on roll), cubeful, `settings.trials` each, in this process, the net valuing
    positions by `evaluator` (None: the default one)."""
    seed = settings.seed_for(*place)
    result = rollout_plays(position, dice, settings.trials, seed=seed, jobs=1,
                           plays=list(plays), stop_when_decided=None, cubeful=True,
                           evaluator=evaluator)
    if result.interrupted:
        raise KeyboardInterrupt
    return PlaysRolledOut({p.play: p.equity for p in result.plays},
                          {p.play: p.se for p in result.plays},
                          {p.play: max(0.0, -p.diff) for p in result.plays},
                          {p.play: p.diff_se for p in result.plays}, settings.trials, seed)


def roll_out_cube(position: Position, settings: RolloutSettings, place: Sequence[int],
                  evaluator: str | None = None) -> tuple[CubefulFigures, int]:
    """A cubeful rollout of `position` (the side on roll before rolling, who may double) by
    the net's players, as the checker plays' (``rollout``'s own default players are
    pubeval's), `settings.trials` trials, in this process, the net valuing positions by
    `evaluator` (None: the default one): its no double / double-take / double-pass figures
    (with SEs) and the seed used."""
    seed = settings.seed_for(*place)
    request = make_request(position, settings.trials, "neural", seed, cubeful=True,
                           evaluator=evaluator)
    with make_executor(1) as executor:
        result = run_rollout(RolloutJob(request), executor)
    if result.interrupted:
        raise KeyboardInterrupt
    assert result.cubeful is not None
    return result.cubeful, seed
