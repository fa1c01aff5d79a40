"""The public opening statistics: ``openings`` and ``replies`` on any executor; the results as
tables, JSON, CSV and a plot.

Each validates its arguments into an ``OpeningsRequest`` and hands an ``OpeningsJob`` or
``RepliesJob`` (``openings.py``, which holds the units of work) to the driver (``driver.py``)
with an executor (``executors``). All
figures are the first mover's: after the opening play, the opponent is on roll.
"""

from __future__ import annotations

import csv
import json
import math
import os
from ..run.records import TableExport
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .. import _core
from ..game.notation import format_play
from ..play.players import game_resources
from ..run.atomic import atomic_file, save_figure
from ..run.checkpoint import claim_checkpoint
from ..run.control import Cancel, check_cancel
from ..run.driver import run_job
from ..run.executors import check_jobs, make_executor
from .openings import (
    CHECKPOINT_FORMAT,
    DEFAULT_CHUNK_SIZE,
    OPENING_FIGURES,
    OpeningsJob,
    OpeningsRequest,
    RepliesJob,
    CandidateTally,
    make_openings_request,
    opening_rolls,
    read_checkpoint,
    request_from_checkpoint,
    roll_text,
)
from ..play.neural import NetChoice
from ..run.progress import RolloutProgress
from ..rules import get_rules

__all__ = ["PlayStats", "RollStats", "OpeningsResult", "openings", "CHECKPOINT_FORMAT"]

COMMON_DICE_NOTE = (
    "common dice: every play of a roll is rolled out on the same dice (common random numbers), "
    "so each difference to the best play and its SE are measured trial by trial (paired)"
)


VR_NOTE = ("luck-adjusted: each roll's luck by the net is taken off every figure (variance "
           "reduction; the same expectation, smaller SEs)")

# What the text report shows for a play, roll or reply an interrupted run had not reached yet
# (its figures are NaN in memory and null in JSON).
NOT_STARTED = "not started (run interrupted before its first trials)"


def _num(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


@dataclass
class PlayStats:
    """One opening play's rollout, for the first mover."""

    play: str  # notation, e.g. "8/5 6/5"
    position_id: str  # the position rolled out: after the play, the opponent on roll
    trials: int
    value: dict[str, float]  # OPENING_FIGURES
    se: dict[str, float]
    diff: float  # equity minus the best play's, over the trials both played (paired)
    diff_se: float
    screened: bool  # cut by the screening: figures of the short run only

    @property
    def equity(self) -> float:
        return self.value["equity"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "play": self.play,
            "equity": _num(self.value["equity"]),
            "se": _num(self.se["equity"]),
            "win": _num(self.value["win"]),
            "win_gammon": _num(self.value["win_gammon"]),
            "win_backgammon": _num(self.value["win_backgammon"]),
            "lose_gammon": _num(self.value["lose_gammon"]),
            "lose_backgammon": _num(self.value["lose_backgammon"]),
            "trials": self.trials,
            "screened": self.screened,
            "diff": _num(self.diff),
            "diff_se": _num(self.diff_se),
            "win_se": _num(self.se["win"]),
            "position_id": self.position_id,
        }


@dataclass
class RollStats:
    """All plays of one opening roll, best first (plays cut by screening after the others)."""

    roll: tuple[int, int]
    weight: float
    plays: list[PlayStats]

    @property
    def best(self) -> PlayStats:
        return self.plays[0]

    @property
    def started(self) -> bool:
        """Whether any play has trials (an interrupted run may not have reached the roll;
        plays without trials sort last, so the best has trials if any has)."""
        return self.best.trials > 0

    def to_dict(self) -> dict[str, Any]:
        return {"roll": roll_text(self.roll), "probability": self.weight,
                "plays": [p.to_dict() for p in self.plays]}


def _roll_stats(request: OpeningsRequest, index: int, tally: CandidateTally) -> RollStats:
    rp = request.rolls[index]
    survivors = set(range(len(rp.notations)) if tally.survivors is None else tally.survivors)
    figs = [tally.figures(i) for i in range(len(rp.notations))]
    eq = [f[0]["equity"] for f in figs]
    order_key = lambda i: (i not in survivors, -eq[i] if not math.isnan(eq[i]) else math.inf,  # noqa: E731
                           rp.notations[i])
    ranked = sorted(range(len(rp.notations)), key=order_key)
    best = ranked[0]
    plays = []
    for i in ranked:
        d, dse, _ = tally.paired_difference(i, best)
        plays.append(PlayStats(
            play=rp.notations[i], position_id=rp.position_ids[i], trials=int(tally.games[i]),
            value=figs[i][0], se=figs[i][1], diff=d, diff_se=dse,
            screened=i not in survivors,
        ))
    return RollStats(rp.roll, rp.weight, plays)


@dataclass
class OpeningsResult(TableExport):
    """Opening statistics: per roll the ranked plays, and the first mover's advantage."""

    rolls: list[RollStats]
    players: tuple[str, str]
    rules: str  # backgammon or portes; for Plakoto and Fevga, the game played
    seed: int
    trials: int
    chunk_size: int
    screen: float | None
    screen_trials: int
    jobs: int
    elapsed_s: float
    interrupted: bool = False
    all_rolls: bool = True  # every opening roll of the rules was analysed
    notes: tuple[str, ...] = ()
    checkpoint: str | None = None
    first_mover: dict[str, float] = field(default_factory=dict)
    game: str | None = None  # "plakoto" / "fevga"; None: Portes by ``rules``
    net: NetChoice | None = None  # the net the run used (None: it used none)

    def __post_init__(self) -> None:
        if not self.first_mover:
            self.first_mover = self._first_mover()

    def _first_mover(self) -> dict[str, float]:
        """Probability-weighted mean over the rolls of the best play's figures (weights
        renormalised over the rolls analysed). The rolls are rolled out independently, so the
        SEs add in quadrature. (Taking the best play of each roll biases this slightly upwards
        when plays are close; the SEs do not count that.)"""
        total = sum(r.weight for r in self.rolls)
        out: dict[str, float] = {}
        for name in ("equity", "win"):
            out[name] = sum(r.weight * r.best.value[name] for r in self.rolls) / total
            out[name + "_se"] = math.sqrt(sum((r.weight * r.best.se[name]) ** 2 for r in self.rolls)) / total
        return {"equity": out["equity"], "se": out["equity_se"], "win": out["win"], "win_se": out["win_se"]}

    @property
    def trials_played(self) -> int:
        return sum(p.trials for r in self.rolls for p in r.plays)

    # Output ---------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "rolls": [r.to_dict() for r in self.rolls],
            "first_mover": {k: _num(v) for k, v in self.first_mover.items()},
            "players": list(self.players),
            "rules": self.rules,
            **({"game": self.game} if self.game else {}),
            "seed": self.seed,
            "trials": self.trials,
            "chunk_size": self.chunk_size,
            "screen": self.screen,
            "screen_trials": self.screen_trials if self.screen is not None else None,
            "common_dice": True,
            "all_rolls": self.all_rolls,
            "jobs": self.jobs,
            "elapsed_s": self.elapsed_s,
            "trials_played": self.trials_played,
            "interrupted": self.interrupted,
            "checkpoint": self.checkpoint,
            "notes": list(self.notes),
            "net": self.net.to_dict() if self.net is not None else None,
        }

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    CSV_FIELDS = ("roll", "rank", "play", "equity", "se", "diff", "diff_se", "win", "win_gammon",
                  "win_backgammon", "lose_gammon", "lose_backgammon", "trials", "screened", "position_id")

    def write_csv(self, path: str | os.PathLike) -> None:
        """One row per play: roll, rank (1 = best), play, figures, trials, screened."""
        with atomic_file(path, text=True, readable=True) as f:
            w = csv.DictWriter(f, fieldnames=self.CSV_FIELDS)
            w.writeheader()
            for r in self.rolls:
                for rank, p in enumerate(r.plays, 1):
                    d = p.to_dict()
                    w.writerow({"roll": roll_text(r.roll), "rank": rank,
                                **{k: d[k] for k in self.CSV_FIELDS if k in d}})

    def __str__(self) -> str:
        lines = [
            f"Opening statistics: {self.players[0]} (first mover) vs {self.players[1]}, "
            + (f"game {self.game}" if self.game else f"rules {self.rules}")
            + f", {self.trials:,} trials per play, seed {self.seed}",
            ("Figures are the first mover's (points a game; 'W g' / 'L g' are 2-point games, by "
             "bearing off or the mother rule; a draw counts 0); after the opening play the "
             "opponent is on roll." if self.game else
             "Figures are the first mover's (cubeless money equity); after the opening play the "
             "opponent is on roll."),
            "Note: " + COMMON_DICE_NOTE + ".",
        ]
        if self.screen is not None:
            lines.append(
                f"Screening: every play got {self.screen_trials:,} trials; only plays within "
                f"{self.screen:g} of the best got all {self.trials:,} (screened-out plays: '*')."
            )
        lines += [f"Note: {n}" for n in self.notes]
        if self.interrupted:
            lines.append("INTERRUPTED: partial result from the trials completed")
        for r in self.rolls:
            lines += ["", f"Roll {r.roll[0]}-{r.roll[1]} ({len(r.plays)} plays)"]
            if not r.started:
                lines[-1] += f": {NOT_STARTED}"
                continue
            lines.append(f"{'':>3} {'play':<20} {'equity':>8} {'SE':>7} {'diff':>8} {'SE':>7}"
                         f" {'win':>6} {'W g':>6}" + ("" if self.game else f" {'W bg':>6}")
                         + f" {'L g':>6}" + ("" if self.game else f" {'L bg':>6}") + f" {'trials':>8}")
            for rank, p in enumerate(r.plays, 1):
                v = p.value
                diff = "" if rank == 1 else f"{p.diff:+8.4f} {p.diff_se:7.4f}"
                # The variants have no backgammons (P7, F7: a game is worth 1 or 2 points).
                rates = ((v['win'], v['win_gammon'], v['lose_gammon']) if self.game else
                         (v['win'], v['win_gammon'], v['win_backgammon'], v['lose_gammon'],
                          v['lose_backgammon']))
                figures = (f"{v['equity']:+8.4f} {p.se['equity']:7.4f} {diff:>16}"
                           + "".join(f" {x:6.3f}" for x in rates) + f" {p.trials:>8,}"
                           if p.trials else NOT_STARTED)
                lines.append(f"{rank:>3} {p.play:<20} {figures}" + (" *" if p.screened else ""))
        lines += ["", "Summary: the best play of each roll"]
        lines.append(f"{'roll':<5} {'prob':>6} {'best play':<20} {'equity':>8} {'SE':>7} {'win':>6} "
                     f"{'2nd best':<20} {'diff':>8} {'SE':>7}")
        for r in self.rolls:
            b = r.best
            if not r.started:
                lines.append(f"{r.roll[0]}-{r.roll[1]:<3} {r.weight:6.4f} {NOT_STARTED}")
                continue
            second = r.plays[1] if len(r.plays) > 1 and r.plays[1].trials else None
            tail = f"{second.play:<20} {second.diff:+8.4f} {second.diff_se:7.4f}" if second else ""
            lines.append(f"{r.roll[0]}-{r.roll[1]:<3} {r.weight:6.4f} {b.play:<20} {b.equity:+8.4f} "
                         f"{b.se['equity']:7.4f} {b.value['win']:6.3f} {tail}")
        fm = self.first_mover
        scope = ("all opening rolls" if self.all_rolls
                 else f"only the {len(self.rolls)} roll(s) analysed")
        waiting = sum(1 for r in self.rolls if not r.started)
        figures = (f"equity {fm['equity']:+.4f} ± {fm['se']:.4f}, win {fm['win']:.4f} ± {fm['win_se']:.4f}"
                   if not waiting else
                   f"not available: {waiting} of {len(self.rolls)} roll(s) not started")
        lines += [
            "",
            f"First mover (best play of each roll, weighted by the roll's probability, over {scope}): "
            + figures,
            f"{self.trials_played:,} trials in {self.elapsed_s:.1f} s, {self.jobs} job(s)",
        ]
        return "\n".join(lines)

    def to_records(self) -> list[dict[str, Any]]:
        """One flat row a play of each roll: roll, its probability, rank, then the play's
        figures (as in to_dict)."""
        return [{"roll": roll_text(r.roll), "probability": r.weight, "rank": rank, **p.to_dict()}
                for r in self.rolls for rank, p in enumerate(r.plays, 1)]

    def plot(self, path: str | os.PathLike) -> None:
        """One PNG: each roll's best-play equity with its 95% error bar, labelled with the play."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        labels = [f"{r.roll[0]}-{r.roll[1]}" for r in self.rolls]
        # A roll an interrupted run had not started stands at 0, labelled so, without a bar.
        started = [r.started for r in self.rolls]
        eq = [r.best.equity if s else 0.0 for r, s in zip(self.rolls, started)]
        err = [1.96 * r.best.se["equity"] if s else 0.0 for r, s in zip(self.rolls, started)]
        fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(labels) + 2), 5.5))
        x = list(range(len(labels)))
        ax.bar(x, eq, color=["tab:green" if e >= 0 else "tab:red" for e in eq], alpha=0.6)
        ax.errorbar(x, eq, yerr=err, fmt="none", ecolor="black", capsize=3)
        for xi, r, e, s, done in zip(x, self.rolls, eq, err, started):
            ax.annotate(r.best.play if done else "not started", (xi, e + (s if e >= 0 else -s)),
                        rotation=90, fontsize=7, ha="center", va="bottom" if e >= 0 else "top",
                        xytext=(0, 3 if e >= 0 else -3), textcoords="offset points")
        ax.axhline(0, color="black", linewidth=0.8)
        fm = self.first_mover
        if all(started):
            ax.axhline(fm["equity"], color="tab:blue", linestyle="--", linewidth=1,
                       label=f"first mover {fm['equity']:+.3f} ± {fm['se']:.3f}")
        ax.set_xticks(x)
        ax.set_xticklabels(labels)
        ax.set_xlabel("opening roll")
        ax.set_ylabel("first mover's equity after the best play")
        ax.set_title(f"Opening rolls: {self.players[0]} vs {self.players[1]}, {self.rules}, "
                     f"{self.trials:,} trials per play (95% error bars)", fontsize=10)
        if all(started):
            ax.legend(loc="best", fontsize=8)
        lo = min(e - s for e, s in zip(eq, err))
        hi = max(e + s for e, s in zip(eq, err))
        pad = 0.35 * (hi - lo or 0.1)
        ax.set_ylim(min(lo, 0) - pad, max(hi, 0) + pad)
        fig.tight_layout()
        save_figure(fig, path)
        plt.close(fig)


# ---------------------------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------------------------


def openings(
    trials: object = DEFAULT_CHUNK_SIZE,
    players: object = None,
    seed: int | None = None,
    jobs: int | None = None,
    rules: object = "backgammon",
    rolls: object = None,
    screen: float | None = None,
    screen_trials: int | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    stratify: bool = True,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | None = None,
    progress: Callable[[RolloutProgress], Any] | None = None,
    checkpoint: str | os.PathLike | None = None,
    resume: str | os.PathLike | None = None,
    force: bool = False,
    start_method: str | None = None,
    scheduler: str | None = None,
    client: Any = None,
    vr: bool | None = None,
    game: str | None = None,
    game_rules: object = None,
    weights: str | os.PathLike | None = None,
    cancel: Cancel | None = None,
    reply_filter: int | tuple[int, float] | None = None,
    evaluator: str | None = None,
) -> OpeningsResult:
    """Roll out every legal play of every opening roll; rank the plays; the first mover's odds.

    trials: per play. players: first mover, opponent (one name for both; default the strongest
    player available, ``neural`` or else ``pubeval``). rolls: e.g. ``"31,62"`` (default: all
    opening rolls of the rules: 15, or 21 for ``portes``). screen: an equity threshold; every
    play first gets ``screen_trials`` trials (default max(1296, trials/7)) and only the plays
    within ``screen`` of the best get the full ``trials``. All plays of a roll share the same
    dice (common random numbers). The numbers depend on the seed, trials, chunk_size and the
    screening, never on ``jobs``. checkpoint: a JSON file kept up to date (an existing file
    only if it holds this same run, unless force); resume: continue such a file (its
    settings are used; ``jobs`` may differ). progress: called with a ``RolloutProgress``
    (trials over all plays) after each unit of work. scheduler / client:
    run the units on a Dask cluster instead of the local pool, with the same numbers (see
    ``tavli_fast.rollout``). vr: variance reduction, on top of the common dice (every figure
    luck-adjusted, see ``tavli_fast.rollout``); None: on for the neural players. game:
    ``"plakoto"`` or ``"fevga"``: the 21 rolls of T3 (the first play may be a double), the
    variants' players (default ``heuristic``), figures in points; game_rules: the game's
    options (a ``PlakotoRules`` / ``FevgaRules`` or option names). weights: a weights file for
    the net of the neural players and variance reduction instead of the shipped one (kept in
    the checkpoint, named in the result; see ``tavli_fast.rollout``). cancel: as for
    ``tavli_fast.rollout`` (a set ``threading.Event`` stops the run within a second).
    reply_filter: keep, or (keep, margin): the pre-filter of the replies the ``neural-1ply``
    players' look-ahead values with the net, as for ``tavli_fast.rollout``; None: the
    default, keep 8; 0: every reply, the exact 1-ply search. Noted in the result when not the
    default, and kept in the checkpoint whenever a player is ``neural-1ply`` (a checkpoint
    from before the pre-filter became the default has none, and resumes with the exact search
    it played; a resume that asks for another filter is refused). Not for Plakoto / Fevga.
    evaluator: how the net values positions, ``"float32"`` (None: the default; on resume, the
    checkpoint's) or ``"int16"`` (faster, probabilities within about 0.005), as for
    ``tavli_fast.rollout``; kept in the checkpoint (a resume that asks for another is refused)
    and noted in the result. Not for Plakoto / Fevga (their nets are valued by float32).
    """
    check_jobs(jobs)
    check_cancel(cancel)
    previous = 0.0
    if resume is not None:
        doc = read_checkpoint(resume)
        request = request_from_checkpoint(doc, reply_filter, evaluator, resume)
        job = OpeningsJob.from_checkpoint(doc, request, os.fspath(resume))
        previous = float(doc.get("elapsed_s") or 0.0)
        if checkpoint is None:
            checkpoint = resume
    else:
        request = make_openings_request(
            trials, players, seed, rules, rolls, screen, screen_trials, chunk_size, stratify,
            bearoff, truncate, cache_dir, game, game_rules, vr=vr, weights=weights,
            reply_filter=reply_filter, evaluator=evaluator,
        )
        job = OpeningsJob(request)
    path = None if checkpoint is None else claim_checkpoint(
        checkpoint, read_checkpoint,
        lambda saved: OpeningsJob.from_checkpoint(saved, request, os.fspath(checkpoint)),
        resume=resume, force=force)
    with make_executor(jobs, start_method, scheduler=scheduler, client=client) as executor:
        outcome = run_job(job, executor, progress=progress, checkpoint=path,
                          previous_elapsed=previous, cancel=cancel)
    notes = list(request.notes)
    if players is None and resume is None and request.game is None:
        notes.append(f"players: {request.players[0]} for both sides, the strongest player available "
                     "(choose with --player/--players)")
    if request.net is not None:
        notes.append(f"net: {request.net.describe()}")
    if request.vr:
        notes.append(VR_NOTE)
    if outcome.restarts:
        notes.append(f"{outcome.restarts} worker pool restart(s) after a worker died")
    if request.game_rules:
        notes.append(f"{request.game} options: {', '.join(request.game_rules)}")
    all_rolls = len(request.rolls) == (15 if request.rules.first_roll_no_doubles else 21)
    if not all_rolls:
        notes.append("the first mover's figures average only the rolls analysed (weights renormalised)")
    stats = [_roll_stats(request, i, t) for i, t in enumerate(job.tallies)]
    return OpeningsResult(
        rolls=stats, players=request.players, rules=request.game or request.rules.name, seed=request.seed,
        trials=request.trials, chunk_size=request.chunk_size, screen=request.screen,
        screen_trials=request.screen_trials, jobs=executor.workers, elapsed_s=outcome.elapsed_s,
        interrupted=outcome.interrupted, all_rolls=all_rolls, notes=tuple(notes), checkpoint=path,
        game=request.game, net=request.net,
    )

__all__ += ["read_checkpoint", "COMMON_DICE_NOTE", "OPENING_FIGURES"]  # re-exported


# ---------------------------------------------------------------------------------------------
# Reply statistics: one opening play, the opponent's 21 replies
# ---------------------------------------------------------------------------------------------


@dataclass
class ReplyStats:
    """The first mover's figures after one reply roll of the opponent."""

    roll: tuple[int, int]
    weight: float  # 1/36 for a double, 2/36 otherwise
    reply: str | None  # the opponent player's play with that roll (None for a random player)
    trials: int
    value: dict[str, float]
    se: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"roll": roll_text(self.roll), "probability": self.weight, "reply": self.reply,
                "trials": self.trials, **{k: _num(self.value[k]) for k in OPENING_FIGURES},
                "se": _num(self.se["equity"]), "win_se": _num(self.se["win"])}


@dataclass
class RepliesResult(TableExport):
    """One opening play and the 21 replies; the mean over the replies (weighted by their
    probabilities) is the play's equity, estimated with the replies exactly stratified."""

    roll: tuple[int, int]
    play: str
    players: tuple[str, str]
    rules: str
    seed: int
    trials: int  # per reply
    replies: list[ReplyStats]
    jobs: int
    elapsed_s: float
    interrupted: bool = False
    net: NetChoice | None = None  # the net the run used (None: it used none)
    notes: tuple[str, ...] = ()  # what to know about the settings (the reply filter, ...)

    def overall(self) -> dict[str, float]:
        out = {}
        for name in ("equity", "win"):
            out[name] = sum(r.weight * r.value[name] for r in self.replies)
            out[name + "_se"] = math.sqrt(sum((r.weight * r.se[name]) ** 2 for r in self.replies))
        return out

    def to_dict(self) -> dict[str, Any]:
        o = self.overall()
        return {
            "roll": roll_text(self.roll), "play": self.play,
            "replies": [r.to_dict() for r in self.replies],
            "equity": _num(o["equity"]), "se": _num(o["equity_se"]), "win": _num(o["win"]),
            "win_se": _num(o["win_se"]), "players": list(self.players), "rules": self.rules,
            "seed": self.seed, "trials": self.trials, "jobs": self.jobs, "elapsed_s": self.elapsed_s,
            "interrupted": self.interrupted,
            "net": self.net.to_dict() if self.net is not None else None,
            "notes": list(self.notes),
        }

    def to_records(self) -> list[dict[str, Any]]:
        """One flat row a reply roll: the opening roll and play, then the reply's figures."""
        return [{"roll": roll_text(self.roll), "play": self.play,
                 **{f"reply_{k}" if k in ("roll", "probability") else k: v
                    for k, v in r.to_dict().items()}} for r in self.replies]

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def __str__(self) -> str:
        o = self.overall()
        lines = [
            f"Replies to {self.roll[0]}-{self.roll[1]} {self.play}: {self.players[0]} (first mover) vs "
            f"{self.players[1]}, rules {self.rules}, {self.trials:,} trials per reply, seed {self.seed}",
            "Figures are the first mover's after the opponent's reply (best reply for the first "
            "mover first).",
            *([f"Net: {self.net.describe()}"] if self.net is not None else []),
            "",
            f"{'reply':<6} {'prob':>6} {'opponent plays':<22} {'equity':>8} {'SE':>7} {'win':>6} "
            f"{'W g':>6} {'L g':>6}",
        ]
        for r in sorted(self.replies, key=lambda r: (r.trials == 0, -r.value["equity"] if r.trials else 0)):
            v = r.value
            figures = (f"{v['equity']:+8.4f} {r.se['equity']:7.4f} {v['win']:6.3f} "
                       f"{v['win_gammon']:6.3f} {v['lose_gammon']:6.3f}" if r.trials else NOT_STARTED)
            lines.append(f"{r.roll[0]}-{r.roll[1]:<4} {r.weight:6.4f} {(r.reply or '(varies)'):<22} "
                         + figures)
        waiting = sum(1 for r in self.replies if r.trials == 0)
        overall = (f"equity {o['equity']:+.4f} ± {o['equity_se']:.4f}, win {o['win']:.4f} ± {o['win_se']:.4f}"
                   if not waiting else
                   f"not available: {waiting} of {len(self.replies)} reply rolls not started")
        lines += ["", f"Over the 36 rolls: {overall}",
                  f"{sum(r.trials for r in self.replies):,} trials in {self.elapsed_s:.1f} s, {self.jobs} job(s)"]
        lines += [f"Note: {n}" for n in self.notes]
        if self.interrupted:
            lines.append("INTERRUPTED: partial result from the trials completed")
        return "\n".join(lines)


def _reply_play(board: bytes, roll: tuple[int, int], player: int, bearoff_play: bool,
                cache_dir: str | None, net: NetChoice | None) -> str:
    """The notation of the play ``player`` makes with ``roll`` on ``board`` (on roll)."""
    before = np.frombuffer(board, dtype=np.int8).reshape(2, 26).copy()
    after = _core.choose(before, roll[0], roll[1], player, 0, bearoff_play=bearoff_play,
                         **game_resources((player,), bearoff_play, cache_dir=cache_dir,
                                          weights=net))
    return format_play(before, np.asarray(after), roll[0], roll[1])


def replies(
    roll: object,
    play: str,
    trials: object = DEFAULT_CHUNK_SIZE,
    players: object = None,
    seed: int | None = None,
    jobs: int | None = None,
    rules: object = "backgammon",
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    stratify: bool = True,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | None = None,
    progress: Callable[[RolloutProgress], Any] | None = None,
    start_method: str | None = None,
    scheduler: str | None = None,
    client: Any = None,
    vr: bool | None = None,
    weights: str | os.PathLike | None = None,
    cancel: Cancel | None = None,
    reply_filter: int | tuple[int, float] | None = None,
    evaluator: str | None = None,
) -> RepliesResult:
    """Roll out one opening play against each of the opponent's 21 reply rolls.

    roll: ``"31"`` or (3, 1); play: its notation as listed by ``Position.plays`` (e.g.
    ``"8/5 6/5"``). ``trials`` per reply roll; ``vr``, ``weights``, ``reply_filter`` and
    ``evaluator`` (``"int16"``: the int16 evaluator, noted in the result) as for ``openings``.
    cancel: as for ``openings``. Raises ValueError for a play that is not legal.
    """
    check_jobs(jobs)
    check_cancel(cancel)
    request = make_openings_request(trials, players, seed, rules, [roll] if not isinstance(roll, str) else roll,
                                    None, None, chunk_size, stratify, bearoff, truncate, cache_dir,
                                    vr=vr, weights=weights, reply_filter=reply_filter,
                                    evaluator=evaluator)
    if len(request.rolls) != 1:
        raise ValueError("reply statistics are for one opening roll")
    rp = request.rolls[0]
    if play not in rp.notations:
        raise ValueError(f"{play!r} is not a legal {roll_text(rp.roll)} from the start; the plays are: "
                         + ", ".join(rp.notations))
    board = rp.boards[rp.notations.index(play)]
    reply_rolls = opening_rolls(get_rules("portes"))  # the opponent rolls normally: 21 rolls
    job = RepliesJob(request, board, [reply for reply, _ in reply_rolls])
    with make_executor(jobs, start_method, scheduler=scheduler, client=client) as executor:
        outcome = run_job(job, executor, progress=progress, cancel=cancel)
    random_opponent = request.players[1] == "random"
    stats = []
    for (reply, weight), t in zip(reply_rolls, job.tallies):
        value, se = t.figures(0)
        text = None if random_opponent else _reply_play(board, reply, request.player_ids[1],
                                                        request.bearoff_play, request.cache_dir,
                                                        request.net)
        stats.append(ReplyStats(reply, weight, text, int(t.games[0]), value, se))
    return RepliesResult(rp.roll, play, request.players, request.rules.name, request.seed,
                         request.trials, stats, executor.workers, outcome.elapsed_s,
                         outcome.interrupted, request.net, request.notes)

__all__ += ["ReplyStats", "RepliesResult", "replies"]
