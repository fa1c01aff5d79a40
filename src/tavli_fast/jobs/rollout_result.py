"""The result of a rollout: figures with standard errors, as a table or JSON."""

from __future__ import annotations

import json
import math
from ..run.records import TableExport
from dataclasses import dataclass, field
from typing import Any, Iterable

from .cubeful import CubefulFigures, cubeful_figures
from ..play.neural import NetChoice
from .rollout_chunks import (
    DEFAULT_CHUNK_SIZE,
    FIGURES,
    OUTCOMES,
    ChunkResult,
    Totals,
    figures,
    figures_from_moments,
    merge,
)
from .rollout_request import RolloutRequest

__all__ = ["RolloutResult", "build_result"]


_LABELS = {
    "win": "win",
    "win_gammon": "win gammon",
    "win_backgammon": "win backgammon",
    "lose_gammon": "lose gammon",
    "lose_backgammon": "lose backgammon",
    "equity": "equity (cubeless)",
}

# Plakoto and Fevga: no backgammons; a "gammon" is any 2-point game (P5, P7, F7).
_VARIANT_LABELS = {
    "win": "win",
    "win_gammon": "win 2 points",
    "lose_gammon": "lose 2 points",
    "equity": "points a game",
}


@dataclass
class RolloutResult(TableExport):
    """Outcome of a rollout, for the player on roll; gammon figures include backgammons.

    Standard errors are the plug-in estimates from the per-game figures, treating trials as
    independent; with stratified first rolls the true error is a little smaller (conservative).
    A game truncated at the bear-off database counts its exact win probability.

    With variance reduction, ``vr`` holds a second set of the same figures, each game's luck
    taken off (see ``parallel.rollout``): ``vr["equity"]``, ``vr["se"]["equity"]``, ... The plain
    figures stay as they were measured.
    """

    position: Any
    position_id: str
    players: tuple[str, str]
    rules: str  # backgammon or portes; for Plakoto and Fevga, the game played
    trials_requested: int
    totals: Totals
    seed: int
    jobs: int
    elapsed_s: float
    stratified: bool
    strata: tuple[int, ...] = ()
    chunk_size: int = DEFAULT_CHUNK_SIZE
    target_se: float | None = None
    target_reached: bool = False
    interrupted: bool = False
    worker_restarts: int = 0
    resumed_games: int = 0
    xgid: str | None = None
    first_roll: tuple[int, int] | None = None
    notes: tuple[str, ...] = ()
    checkpoint: str | None = None
    bearoff: bool = False
    truncate: bool = False
    cubeful: CubefulFigures | None = None  # cubeful rollouts: ND, DT, DP, the action (cubeful.py)
    truncate_plies: int = 0  # > 0: games stopped after that many plies (the net's estimate counted)
    game: str | None = None  # "plakoto" / "fevga"; None: Portes / backgammon
    net: NetChoice | None = None  # the net the rollout used (None: it used none)
    _figures: tuple[dict[str, float], dict[str, float]] | None = field(
        default=None, repr=False, compare=False
    )

    def _fig(self) -> tuple[dict[str, float], dict[str, float]]:
        if self.games == 0:
            nan = {k: math.nan for k in FIGURES}
            return nan, dict(nan)
        if self._figures is None:
            self._figures = figures(self.totals)
        return self._figures

    # Counts ---------------------------------------------------------------------------------
    @property
    def games(self) -> int:
        return self.totals.games

    @property
    def counts(self) -> tuple[int, ...]:
        """Exclusive outcomes of the games played to the end (see OUTCOMES)."""
        return self.totals.counts

    @property
    def truncated(self) -> int:
        """Games stopped inside the two-sided bear-off database (exact result counted)."""
        return self.totals.truncated

    @property
    def plies_sum(self) -> int:
        return self.totals.plies_sum

    @property
    def plies_sumsq(self) -> int:
        return self.totals.plies_sumsq

    # Figures --------------------------------------------------------------------------------
    @property
    def win(self) -> float:
        return self._fig()[0]["win"]

    @property
    def lose(self) -> float:
        draws = self.totals.variant[2] if self.totals.variant and self.games else 0
        return 1.0 - self.win - draws / max(self.games, 1)

    @property
    def variant(self) -> dict[str, tuple[float, float]]:
        """Plakoto: the rates of mother-rule wins and losses (P5) and of draws (P6, no
        points), each with its standard error (empty for Portes and Fevga, which have
        neither). A 2-point win, by bearing off or by the mother rule, is in ``win_gammon``."""
        if self.game != "plakoto" or not self.games or self.totals.variant is None:
            return {}
        n = self.games
        out = {}
        for name, k in zip(("mother_win", "mother_loss", "draw"), self.totals.variant):
            p = k / n
            out[name] = (p, math.sqrt(p * (1 - p) / n))
        return out

    @property
    def win_gammon(self) -> float:
        return self._fig()[0]["win_gammon"]

    @property
    def win_backgammon(self) -> float:
        return self._fig()[0]["win_backgammon"]

    @property
    def lose_gammon(self) -> float:
        return self._fig()[0]["lose_gammon"]

    @property
    def lose_backgammon(self) -> float:
        return self._fig()[0]["lose_backgammon"]

    @property
    def equity(self) -> float:
        return self._fig()[0]["equity"]

    @property
    def se(self) -> dict[str, float]:
        """Standard error of each figure (keys as in ``FIGURES``)."""
        return dict(self._fig()[1])

    @property
    def vr(self) -> dict[str, Any] | None:
        """The luck-adjusted figures (keys as in ``FIGURES``) and their standard errors
        (``"se"``), or None without variance reduction."""
        if self.totals.vr is None or self.games == 0:
            return None
        value, se = figures_from_moments(self.totals.vr, self.games)
        return {**value, "se": se}

    @property
    def trials(self) -> int:
        """Trials (games) actually played."""
        return self.games

    @property
    def mean_plies(self) -> float:
        return self.plies_sum / self.games if self.games else math.nan

    @property
    def std_plies(self) -> float:
        if not self.games:
            return math.nan
        m = self.mean_plies
        return math.sqrt(max(self.plies_sumsq / self.games - m * m, 0.0))

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed_s if self.elapsed_s > 0 else math.nan

    def confidence_interval(self, figure: str, z: float = 1.959963984540054) -> tuple[float, float]:
        value, se = self._fig()[0][figure], self._fig()[1][figure]
        return value - z * se, value + z * se

    # Output ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        fig, se = self._fig()
        return {
            "position_id": self.position_id,
            "xgid": self.xgid,
            "players": list(self.players),
            "rules": self.rules,
            "trials": self.games,
            "trials_requested": self.trials_requested,
            "seed": self.seed,
            "jobs": self.jobs,
            **{k: num(fig[k]) for k in FIGURES},
            "se": {k: num(se[k]) for k in FIGURES},
            "counts": dict(zip(OUTCOMES, self.counts)),
            "truncated": self.truncated,
            "bearoff": self.bearoff,
            "truncate": self.truncate,
            "mean_plies": num(self.mean_plies),
            "std_plies": num(self.std_plies),
            "elapsed_s": self.elapsed_s,
            "games_per_second": num(self.games_per_second),
            "stratified": self.stratified,
            "strata": list(self.strata),
            "first_roll": list(self.first_roll) if self.first_roll else None,
            "chunk_size": self.chunk_size,
            "target_se": self.target_se,
            "target_reached": self.target_reached,
            "interrupted": self.interrupted,
            "worker_restarts": self.worker_restarts,
            "resumed_trials": self.resumed_games,
            "checkpoint": self.checkpoint,
            "notes": list(self.notes),
            "truncate_plies": self.truncate_plies,
            "net": self.net.to_dict() if self.net is not None else None,
            **({"cubeful": self.cubeful.to_dict()} if self.cubeful is not None else {}),
            **({"vr": self.vr} if self.vr is not None else {}),
            **({"game": self.game, **{k: num(v) for k, (v, _) in self.variant.items()},
                "variant_se": {k: num(se) for k, (_, se) in self.variant.items()}}
               if self.game else {}),
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def __str__(self) -> str:
        lines = []
        if self.position is not None:
            lines += [str(self.position), ""]
        else:
            lines.append(f"Position ID {self.position_id}" + (f"   {self.xgid}" if self.xgid else ""))
        lines.append(
            f"Rollout: {self.games:,} trials"
            + (f" of {self.trials_requested:,}" if self.games != self.trials_requested else "")
            + f", {self.players[0]} (on roll) vs {self.players[1]}, "
            + (f"game {self.game}" if self.game else f"rules {self.rules}") + f", seed {self.seed}"
        )
        if self.net is not None:
            lines.append(f"Net: {self.net.describe()}")
        if self.stratified:
            lines.append("Stratified dice for the first rolls (" + " x ".join(map(str, self.strata)) + " strata)")
        if self.truncate:
            lines.append(
                f"Truncated at the bear-off database: {self.truncated:,} games counted their exact "
                "win probability once both sides were inside it"
            )
        for note in self.notes:
            lines.append(f"Note: {note}")
        if self.interrupted:
            lines.append("INTERRUPTED: partial result from the trials completed")
        if self.target_reached:
            lines.append(f"Stopped early: equity SE below the target {self.target_se}")
        lines.append("")
        if self.games == 0:
            lines.append("No trial was completed.")
            return "\n".join(lines)
        fig, se = self._fig()
        labels = _VARIANT_LABELS if self.game else _LABELS
        vr = self.vr
        if vr is not None:
            lines.append("Luck-adjusted (variance reduction: each roll's luck by the net taken off; "
                         "the same expectation, smaller SEs):")
            lines += _figure_table(vr, vr["se"], labels)
            lines += ["", "Plain (each game's result as played):"]
        lines += _figure_table(fig, se, labels)
        for name, (value, err) in self.variant.items():
            lines.append(_figure_line(name.replace("_", " "), value, err, ""))
        if self.cubeful is not None:
            lines += ["", *_cubeful_lines(self.cubeful)]
        lines.append("")
        lines.append(
            f"Game length: {self.mean_plies:.2f} plies on average (sd {self.std_plies:.2f})"
            + (", truncated games counted to the truncation" if self.truncated else "")
        )
        lines.append(
            f"{self.elapsed_s:.2f} s, {self.games_per_second:,.0f} games/s, {self.jobs} job(s)"
            + (f", {self.worker_restarts} worker restart(s)" if self.worker_restarts else "")
        )
        return "\n".join(lines)


def _figure_line(label: str, value: float, se: float, sign: str, z: float = 1.959963984540054) -> str:
    """One figure with its SE and 95 % confidence interval."""
    lo, hi = value - z * se, value + z * se
    return f"{label:<18} {value:{sign}8.4f} {se:8.4f}   [{lo:{sign}.4f}, {hi:{sign}.4f}]"


def _figure_table(fig: dict[str, float], se: dict[str, float], labels: dict[str, str]) -> list[str]:
    """The figures that have a label, with their SEs and 95 % confidence intervals."""
    lines = [f"{'':<18} {'value':>8} {'SE':>8}   95% CI"]
    for k in (k for k in FIGURES if k in labels):
        lines.append(_figure_line(labels[k], fig[k], se[k], "+" if k == "equity" else ""))
    return lines


def _cubeful_lines(c: CubefulFigures) -> list[str]:
    """The cube section of the text report, in gnubg's layout."""
    match = c.mwc is not None

    def row(label: str, key: str, eq: float | None, se: float | None) -> str:
        if eq is None:
            return f"{label:<18} {'':>8}"
        text = f"{label:<18} {eq:+8.4f} {se:8.4f}" if se is not None else f"{label:<18} {eq:+8.4f} {'':>8}"
        if match:
            text += f"   MWC {c.mwc[key]:.4f}"  # type: ignore[index]
        return text

    lines = [f"Cubeful equities{' (match: MWC mapped to the current cube)' if match else ''}:",
             f"{'':<18} {'value':>8} {'SE':>8}",
             row("No double", "no_double", c.no_double, c.se["no_double"])]
    if c.double_take is not None:
        lines.append(row("Double, take", "double_take", c.double_take, c.se["double_take"]))
    lines.append(row("Double, pass", "double_pass", c.double_pass, None))
    if c.double_take is not None:
        lines.append(f"DT - ND: {c.double_take - c.no_double:+.4f} (SE {c.se['difference']:.4f}, paired)")
    lines.append(f"Proper cube action: {c.action}")
    return lines


def build_result(
    request: RolloutRequest,
    results: Iterable[ChunkResult],
    *,
    jobs: int,
    elapsed_s: float,
    interrupted: bool = False,
    target_reached: bool = False,
    worker_restarts: int = 0,
    resumed_games: int = 0,
    checkpoint: str | None = None,
    cut_games: int = 0,
) -> RolloutResult:
    """The result of the chunk results ``results``; ``cut_games``: how many of their games
    come from chunks cut short by a stop (a note says that a checkpoint does not hold them)."""
    t = merge(results)
    notes = request.notes
    if cut_games:
        notes += (f"{cut_games:,} of the games are from chunks cut short by the stop: they count "
                  "here, but a checkpoint holds whole chunks only (a resume plays those chunks "
                  "again from their start, so that it gives the uninterrupted run's numbers)",)
    cube = None
    if request.cube_branches is not None and t.games and t.cube is not None:
        fig = figures(t)[0]
        cube = cubeful_figures(request.position, request.cube_branches, t.cube, t.games,
                               fig["win"], fig["win_gammon"])
    return RolloutResult(
        position=request.position,
        position_id=request.position_text if request.game else request.position.position_id(),
        xgid=request.position_text if request.forced_dice else None,
        players=request.players,
        rules=request.game or request.rules.name,  # a Plakoto / Fevga game's own name
        trials_requested=request.trials,
        totals=t,
        seed=request.seed,
        jobs=jobs,
        elapsed_s=elapsed_s,
        stratified=request.stratify,
        strata=request.strata,
        chunk_size=request.chunk_size,
        target_se=request.target_se,
        target_reached=target_reached,
        interrupted=interrupted,
        worker_restarts=worker_restarts,
        resumed_games=resumed_games,
        first_roll=request.forced_dice,
        notes=notes,
        checkpoint=checkpoint,
        bearoff=request.bearoff_play,
        truncate=request.truncate,
        cubeful=cube,
        truncate_plies=request.truncate_plies,
        game=request.game,
        net=request.net,
    )
