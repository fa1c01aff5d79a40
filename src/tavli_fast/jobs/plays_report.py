"""``rollout_plays``: the candidate plays of a roll rolled out on common dice, on any executor;
the result as a table in gnubg's order, JSON, records and a plot.

It validates its arguments into a ``PlaysRequest`` (``plays.py``), hands a ``PlaysJob`` to the
driver (``run/driver.py``) with an executor, and reads the merged tally into a ``PlaysResult``.
All figures are the mover's: after his play, the opponent is on roll.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Any, Callable

from ..game.position import Position
from ..play.neural import NetChoice
from ..run.records import TableExport
from ..run.atomic import save_figure
from ..run.checkpoint import claim_checkpoint
from ..run.control import Cancel, check_cancel
from ..run.driver import run_job
from ..run.executors import check_jobs, make_executor
from ..run.progress import RolloutProgress
from .candidates import CandidateTally
from .plays import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_STOP,
    DEFAULT_TRIALS,
    DEFAULT_WINDOW,
    PlaysJob,
    PlaysRequest,
    make_plays_request,
    match_scale,
    read_checkpoint,
    request_from_checkpoint,
)
from .rollout import FIGURES

__all__ = ["PlayRollout", "PlaysResult", "rollout_plays"]

#: The five probabilities reported for each play (gammons include backgammons).
PROBABILITIES = FIGURES[:5]
COMMON_DICE_NOTE = ("common dice: every candidate is rolled out on the same dice, so each "
                    "difference to the best play and its SE are measured trial by trial (paired)")


def _num(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


@dataclass
class PlayRollout:
    """One candidate's rollout, for the mover.

    ``equity``: the figure the plays are ranked by, with its SE: cubeless money equity, or with
    the cube the cubeful equity (money: per unit of the cube; match: the normalised equity of
    ``mwc``). ``diff`` / ``diff_se``: its difference to the best play over the trials both
    played (paired). ``dropped``: the stop rule took it out after ``trials`` trials.
    """

    play: str
    position_id: str  # the position rolled out: after the play, the opponent on roll
    trials: int
    equity: float
    se: float
    diff: float
    diff_se: float
    probabilities: dict[str, float]
    probabilities_se: dict[str, float]
    cubeless_equity: float
    cubeless_se: float
    dropped: bool
    screen_equity: float | None  # the net's 1-ply equity that picked it (None: named)
    mwc: float | None = None  # match, cubeful: the mover's match winning chance
    mwc_se: float | None = None
    mean_cube: float | None = None  # cubeful: the mean final cube value

    def to_dict(self) -> dict[str, Any]:
        return {
            "play": self.play,
            "equity": _num(self.equity),
            "se": _num(self.se),
            "diff": _num(self.diff),
            "diff_se": _num(self.diff_se),
            "probabilities": {k: _num(v) for k, v in self.probabilities.items()},
            "probabilities_se": {k: _num(v) for k, v in self.probabilities_se.items()},
            "cubeless_equity": _num(self.cubeless_equity),
            "cubeless_se": _num(self.cubeless_se),
            "trials": self.trials,
            "dropped": self.dropped,
            "position_id": self.position_id,
            "screen_equity": self.screen_equity,
            **({"mwc": _num(self.mwc), "mwc_se": _num(self.mwc_se)} if self.mwc is not None else {}),
            **({"mean_cube": _num(self.mean_cube)} if self.mean_cube is not None else {}),
        }


@dataclass
class PlaysResult(TableExport):
    """The candidate plays of a roll, best first (by ``equity``, the plays not yet started
    last). ``decided``: the best play leads every other by more than ``stop`` paired SEs."""

    position: Position
    xgid: str
    dice: tuple[int, int]
    plays: list[PlayRollout]
    decided: bool
    players: tuple[str, str]
    rules: str
    seed: int
    trials: int  # per play, at most
    chunk_size: int
    stop: float | None
    cubeful: bool
    legal_plays: int
    named: bool
    jobs: int
    elapsed_s: float
    interrupted: bool
    notes: tuple[str, ...] = ()
    checkpoint: str | None = None
    net: NetChoice | None = None

    @property
    def best(self) -> PlayRollout:
        return self.plays[0]

    @property
    def trials_played(self) -> int:
        return sum(p.trials for p in self.plays)

    def to_dict(self) -> dict[str, Any]:
        return {
            "xgid": self.xgid,
            "position_id": self.position.position_id(),
            "dice": list(self.dice),
            "plays": [p.to_dict() for p in self.plays],
            "decided": self.decided,
            "stop_when_decided": self.stop,
            "players": list(self.players),
            "rules": self.rules,
            "seed": self.seed,
            "trials": self.trials,
            "trials_played": self.trials_played,
            "chunk_size": self.chunk_size,
            "cubeful": self.cubeful,
            "equity": "cubeful" if self.cubeful else "cubeless",
            "legal_plays": self.legal_plays,
            "candidates": "named" if self.named else "screened by the net at 1 ply",
            "common_dice": True,
            "jobs": self.jobs,
            "elapsed_s": self.elapsed_s,
            "interrupted": self.interrupted,
            "checkpoint": self.checkpoint,
            "notes": list(self.notes),
            "net": self.net.to_dict() if self.net is not None else None,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def to_records(self) -> list[dict[str, Any]]:
        """One flat row a play, best first: rank, play, equity, se, diff, diff_se, the five
        probabilities, trials, dropped (and mwc, mean_cube with the cube)."""
        rows = []
        for rank, p in enumerate(self.plays, 1):
            d = p.to_dict()
            rows.append({"rank": rank, "dice": f"{self.dice[0]}{self.dice[1]}",
                         **{k: d[k] for k in ("play", "equity", "se", "diff", "diff_se")},
                         **d["probabilities"],
                         **{k: d[k] for k in ("cubeless_equity", "trials", "dropped", "position_id")},
                         **({"mwc": d["mwc"]} if "mwc" in d else {}),
                         **({"mean_cube": d["mean_cube"]} if "mean_cube" in d else {})})
        return rows

    def __str__(self) -> str:
        kind = ("cubeful " + ("match (normalised equity; MWC shown)" if self.position.context.match_length
                              else "money equity, per unit of the cube")
                if self.cubeful else "cubeless money equity")
        lines = [str(self.position), "",
                 f"Candidate plays of {self.dice[0]}{self.dice[1]} ({len(self.plays)} of "
                 f"{self.legal_plays} legal, {'named' if self.named else 'screened by the net'}): "
                 f"{self.players[0]} (mover) vs {self.players[1]}, {kind}, seed {self.seed}"]
        if self.interrupted:
            lines.append("INTERRUPTED: partial result from the trials completed")
        lines.append(f"{'':>3} {'play':<22} {'equity':>8} {'SE':>7} {'diff':>8} {'SE':>7}"
                     f" {'win':>6} {'W g':>6} {'W bg':>6} {'L g':>6} {'L bg':>6} {'trials':>8}")
        for rank, p in enumerate(self.plays, 1):
            if not p.trials:
                lines.append(f"{rank:>3} {p.play:<22} not started")
                continue
            v = p.probabilities
            diff = "" if rank == 1 else f"{p.diff:+8.4f} {p.diff_se:7.4f}"
            lines.append(f"{rank:>3} {p.play:<22} {p.equity:+8.4f} {p.se:7.4f} {diff:>16}"
                         f" {v['win']:6.3f} {v['win_gammon']:6.3f} {v['win_backgammon']:6.3f}"
                         f" {v['lose_gammon']:6.3f} {v['lose_backgammon']:6.3f} {p.trials:>8,}"
                         + ("  stopped: decided" if p.dropped else "")
                         + (f"  MWC {p.mwc:.4f}" if p.mwc is not None else ""))
        k = self.stop if self.stop is not None else DEFAULT_STOP
        lines += ["", (f"Decided: {self.best.play} leads every other play by more than {k:g} "
                       "paired SEs" if self.decided else
                       f"Not decided: a play is within {k:g} paired SEs of {self.best.play}"
                       if len(self.plays) > 1 else "One candidate: nothing to decide"),
                  f"{self.trials_played:,} trials in {self.elapsed_s:.1f} s, {self.jobs} job(s)"]
        lines += [f"note: {n}" for n in (COMMON_DICE_NOTE, *self.notes)]
        return "\n".join(lines)

    def plot(self, path: str | os.PathLike) -> None:
        """One PNG: each candidate's equity with its 95% error bar, the best on top."""
        import matplotlib  # an optional dependency (the plot extra)

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        shown = [p for p in self.plays if p.trials]
        y = list(range(len(shown)))[::-1]
        fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.5 * len(shown)))
        ax.errorbar([p.equity for p in shown], y, xerr=[1.96 * p.se for p in shown], fmt="o",
                    color="tab:blue", ecolor="black", capsize=3)
        ax.set_yticks(y)
        ax.set_yticklabels([f"{p.play}" + (" (stopped)" if p.dropped else "") for p in shown])
        ax.set_xlabel(("cubeful" if self.cubeful else "cubeless") + " equity for the mover (95% error bars)")
        ax.set_title(f"{self.dice[0]}{self.dice[1]} from {self.xgid}\n{self.players[0]} vs "
                     f"{self.players[1]}, common dice, seed {self.seed}", fontsize=9)
        ax.grid(axis="x", alpha=0.3)
        fig.tight_layout()
        save_figure(fig, path)
        plt.close(fig)


def plays_result(request: PlaysRequest, job: PlaysJob, *, jobs: int, elapsed_s: float,
                 interrupted: bool, checkpoint: str | None, notes: tuple[str, ...] = ()) -> PlaysResult:
    """The result of a (possibly interrupted) run from its merged tally."""
    tally = job.tally
    best = job.best()
    scale = match_scale(request.position) if request.cubeful else None
    rows = [_play_rollout(request, tally, i, best, job, scale) for i in range(len(request.candidates))]
    order = sorted(range(len(rows)), key=lambda i: (rows[i].trials == 0, -rows[i].equity
                                                    if rows[i].trials else 0.0))
    k = request.stop if request.stop is not None else DEFAULT_STOP
    others = [rows[i] for i in order if i != best]
    decided = bool(rows[best].trials) and all(
        r.trials and r.diff_se > 0 and -r.diff > k * r.diff_se for r in others)
    return PlaysResult(
        position=request.position, xgid=request.position_text, dice=request.dice,
        plays=[rows[i] for i in order], decided=decided, players=request.players,
        rules=request.rules.name, seed=request.seed, trials=request.trials,
        chunk_size=request.chunk_size, stop=request.stop, cubeful=request.cubeful,
        legal_plays=request.legal_plays, named=request.named, jobs=jobs, elapsed_s=elapsed_s,
        interrupted=interrupted, notes=(*request.notes, *notes), checkpoint=checkpoint,
        net=request.net,
    )


def _play_rollout(request: PlaysRequest, tally: CandidateTally, i: int, best: int, job: PlaysJob,
                  scale: tuple[float, float] | None) -> PlayRollout:
    """Candidate i's figures (the ranking figure in equity units)."""
    fig, se = tally.figures(i)
    score, score_se = tally.mean_score(i)
    diff, diff_se, _ = tally.paired_difference(i, best)
    mwc = mwc_se = None
    if scale is not None:  # match: MWC -> normalised equity, a linear map
        won, lost = scale
        mwc, mwc_se = score, score_se
        score = (2.0 * score - (won + lost)) / (won - lost)
        score_se, diff, diff_se = (2.0 * v / (won - lost) for v in (score_se, diff, diff_se))
    c = request.candidates[i]
    return PlayRollout(
        play=c.play, position_id=c.position_id, trials=int(tally.games[i]), equity=score,
        se=score_se, diff=diff, diff_se=diff_se,
        probabilities={k: fig[k] for k in PROBABILITIES},
        probabilities_se={k: se[k] for k in PROBABILITIES},
        cubeless_equity=fig["equity"], cubeless_se=se["equity"], dropped=i in job.dropped,
        screen_equity=c.screen_equity, mwc=mwc, mwc_se=mwc_se,
        mean_cube=tally.mean_cube(i) if request.cubeful else None,
    )


def rollout_plays(
    position: object,
    dice: object = None,
    trials: object = DEFAULT_TRIALS,
    players: object = None,
    seed: int | None = None,
    jobs: int | None = None,
    rules: object = "backgammon",
    *,
    candidates: int | None = None,
    plays: object = None,
    window: float = DEFAULT_WINDOW,
    stop_when_decided: float | None = DEFAULT_STOP,
    min_trials: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    stratify: bool = True,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | os.PathLike | None = None,
    cubeful: bool = False,
    max_cube: int = 64,
    ply: int | tuple[int, int] | None = None,
    vr: bool | None = None,
    weights: str | os.PathLike | None = None,
    progress: Callable[[RolloutProgress], Any] | None = None,
    checkpoint: str | os.PathLike | None = None,
    resume: str | os.PathLike | None = None,
    force: bool = False,
    start_method: str | None = None,
    scheduler: str | None = None,
    client: Any = None,
    game: str | None = None,
    cancel: Cancel | None = None,
    reply_filter: int | tuple[int, float] | None = None,
    evaluator: str | None = None,
) -> PlaysResult:
    """Roll out the candidate plays of ``dice`` from ``position`` side by side on common dice.

    position: "start", a gnubg Position ID or Match ID pair, an XGID (its dice are the roll
    when ``dice`` is None) or a Position. Candidates: by default the net's best two and the
    others within ``window`` of the best at 1 ply (5 at most); ``candidates=N`` the best N;
    ``plays="8/5 6/5,24/21 13/12"`` (or a list) names them. trials: per play, at most.
    stop_when_decided: drop a play once it trails the best by more than that many paired SEs
    (None: every play gets every trial); no play is dropped before ``min_trials`` (default one
    chunk). cubeful: play the position's cube (money or match) and rank by cubeful equity;
    the neural players then pick their plays by cubeful equity. players, ply, vr, weights,
    bearoff, truncate, cache_dir, max_cube: as for ``rollout`` (default players: the net).
    The numbers depend on the seed, trials, chunk size and settings, never on the executor.
    checkpoint / resume / force / progress / cancel: as for ``rollout`` (a resumed run keeps
    its candidates). reply_filter: keep, or (keep, margin): the pre-filter of the replies the
    ``neural-1ply`` players' look-ahead values with the net, as for ``rollout``; None: the
    default, keep 8; 0: every reply, the exact 1-ply search. Noted in the result when not the
    default, and kept in the checkpoint whenever a player is ``neural-1ply`` (a checkpoint
    from before the pre-filter became the default has none, and resumes with the exact search
    it played; a resume that asks for another filter is refused). evaluator: how the net
    values positions, in the games and in the screening of the candidates: ``"float32"``
    (None: the default; on resume, the checkpoint's) or ``"int16"`` (faster, probabilities
    within about 0.005), as for ``rollout``; kept in the checkpoint (a resume that asks for
    another is refused) and noted in the result.
    """
    check_jobs(jobs)
    check_cancel(cancel)
    if game is not None:
        raise ValueError(f"the candidate plays are rolled out for backgammon and Portes, not {game}")
    previous = 0.0
    if resume is not None:
        doc = read_checkpoint(resume)
        request = request_from_checkpoint(doc, reply_filter, evaluator, resume)
        job = PlaysJob.from_checkpoint(doc, request, os.fspath(resume))
        previous = float(doc.get("elapsed_s") or 0.0)
        if checkpoint is None:
            checkpoint = resume
    else:
        request = make_plays_request(
            position, dice, trials, players, seed, rules, candidates=candidates, plays=plays,
            window=window, stop_when_decided=stop_when_decided, min_trials=min_trials,
            chunk_size=chunk_size, stratify=stratify, bearoff=bearoff, truncate=truncate,
            cache_dir=cache_dir, cubeful=cubeful, max_cube=max_cube, ply=ply, vr=vr,
            weights=weights, reply_filter=reply_filter, evaluator=evaluator,
        )
        job = PlaysJob(request)
    path = None if checkpoint is None else claim_checkpoint(
        checkpoint, read_checkpoint,
        lambda saved: PlaysJob.from_checkpoint(saved, request, os.fspath(checkpoint)),
        resume=resume, force=force)
    with make_executor(jobs, start_method, scheduler=scheduler, client=client) as executor:
        outcome = run_job(job, executor, progress=progress, checkpoint=path,
                          previous_elapsed=previous, cancel=cancel)
    notes = []
    if request.net is not None:
        notes.append(f"net: {request.net.describe()}")
    if request.vr:
        notes.append("luck-adjusted: each roll's luck by the net is taken off the cubeless "
                     "figures (variance reduction, on top of the common dice)")
    if outcome.restarts:
        notes.append(f"{outcome.restarts} worker pool restart(s) after a worker died")
    return plays_result(request, job, jobs=executor.workers, elapsed_s=outcome.elapsed_s,
                        interrupted=outcome.interrupted, checkpoint=path, notes=tuple(notes))
