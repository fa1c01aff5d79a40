"""The analysis as a job of the driver (``run/driver.py``): each game is a unit, analysed
wherever the executor runs it (this process, the local pool, a Dask cluster), the results
kept by game number, so the numbers are the same with 1 or N workers. Ctrl-C keeps the games
analysed so far."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Sequence

from ..matchfile.replay import ReplayedGame
from ..matchfile.variant_replay import VariantReplayedGame
from ..play.neural import check_evaluator
from ..run.progress import RolloutProgress
from .decisions import GameAnalysis, analyse_game
from .resignations import judge_resignation
from .rollouts import RolloutSettings
from .variant_decisions import analyse_variant_game

__all__ = ["AnalysisUnit", "AnalysisJob", "analyse_unit"]


@dataclass(frozen=True)
class AnalysisUnit:
    """One game to analyse: its index in the match, the replayed game, the ply, the rollout
    settings of its close decisions (None: none), and the evaluator the analysis values
    backgammon / Portes positions by (named by the driver: every worker values the match
    by the same one, whatever its own default)."""

    index: int
    game: ReplayedGame | VariantReplayedGame
    ply: int
    rollouts: RolloutSettings | None = None
    evaluator: str = "float32"


def analyse_unit(unit: AnalysisUnit) -> tuple[int, GameAnalysis]:
    """The worker: (the unit's index, the game's analysis), by the unit's evaluator (the
    int16 one gives the same numbers on a processor without AVX2, only slower)."""
    if isinstance(unit.game, VariantReplayedGame):
        return unit.index, analyse_variant_game(unit.game, unit.ply)
    analysis = analyse_game(unit.game, unit.ply, unit.rollouts, unit.evaluator)
    if unit.game.portes:            # no cube: the resigner's cubeful equity does not apply
        return unit.index, analysis
    return unit.index, replace(analysis, resignation=judge_resignation(unit.game, unit.ply,
                                                                       unit.evaluator))


def _prepare(unit: AnalysisUnit) -> None:
    """Nothing to build before the first unit: the net and the databases load on first use."""


class AnalysisJob:
    """All the games of a match, one unit each."""

    worker = staticmethod(analyse_unit)
    prepare = staticmethod(_prepare)

    def __init__(self, games: Sequence[ReplayedGame | VariantReplayedGame], ply: int,
                 rollouts: RolloutSettings | None = None, evaluator: str | None = None):
        kind = check_evaluator(evaluator)   # None: this driver's default, for every worker
        self.units = [AnalysisUnit(i, g, ply, rollouts, kind) for i, g in enumerate(games)]
        self.results: dict[int, GameAnalysis] = {}
        self._planned = False

    def plan(self) -> Sequence[AnalysisUnit]:
        if self._planned:
            return []
        self._planned = True
        return [u for u in self.units if u.index not in self.results]

    def add(self, result: tuple[int, GameAnalysis]) -> None:
        index, analysis = result
        self.results[index] = analysis

    @property
    def done(self) -> bool:
        return len(self.results) == len(self.units)

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        done, total = len(self.results), len(self.units)
        rate = done / session_s if session_s > 0 else 0.0
        return RolloutProgress(done, total, elapsed_s, rate, math.nan, math.nan,
                               (total - done) / rate if rate > 0 else math.inf)

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        """No checkpoint file is kept (a match analyses in seconds)."""
        return {"games_done": sorted(self.results), "elapsed_s": elapsed_s}

    def analyses(self) -> list[GameAnalysis]:
        """The games analysed so far, in game order."""
        return [self.results[i] for i in sorted(self.results)]
