"""The analysis of a whole match: ``analyse_match`` and its result, ``MatchAnalysis``, with
the players' and games' figures, ``to_dict()`` (the ``--json`` document), ``to_records()``
(the decisions as rows, for ``--csv``) and the text report.

The players' figures (each over the player's decisions; EMG per unit of the cube):

* ``checker_decisions``: rolls with more than one distinct legal play; ``cube_decisions``:
  the cube decisions ``decisions.py`` counts;
* ``error_rate``: checker equity lost per checker decision, in mEMG (thousandths);
  ``cube_error_rate``: cube equity lost per cube decision, in mEMG;
* ``pr``: 500 x (all equity lost) / (all decisions) -- a PR-style figure: 500 times the
  mean equity lost per decision that was not forced;
* ``rating``: the band of (all equity lost) / (all decisions) (``thresholds.py``);
* ``luck``: the sum of the luck of the player's rolls, EMG x the cube's value (points);
  ``luck_adjusted``: the points the player won minus the points he lost, less his luck and
  plus his opponent's (what the result would have been with even dice).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ..matchfile.mat import parse_mat, read_text
from ..matchfile.model import MatchRecord
from ..matchfile.sgf import parse_sgf
from ..matchfile.replay import replay_match
from ..matchfile.variant_replay import replay_variant_match
from ..play.neural import check_evaluator
from ..variants.neural import check_variant_evaluator
from ..run.driver import run_job
from ..run.executors import default_jobs, make_executor
from ..run.progress import RolloutProgress
from .decisions import PLIES, Decision, GameAnalysis, RollLuck
from .job import AnalysisJob
from .rollouts import RolloutSettings, rollout_settings
from .variant_decisions import VARIANT_PLIES
from .thresholds import rating

__all__ = ["MatchAnalysis", "PlayerFigures", "analyse_match", "read_record", "DECISION_FIELDS"]

#: The keys of each decision in ``to_dict()["decisions"]`` and the columns of ``--csv``.
DECISION_FIELDS = ("game", "move", "player", "kind", "dice", "played", "best", "error", "mark",
                   "mwc_error", "position_id", "equity_played", "equity_best", "ply", "error_se",
                   "rollout")


def _div(a: float, b: int) -> float:
    return a / b if b else math.nan


@dataclass(frozen=True)
class PlayerFigures:
    """One player's figures over some decisions (see the module docstring)."""

    name: str
    checker_decisions: int
    cube_decisions: int
    checker_error: float
    cube_error: float
    marks: dict[str, int]
    luck: float
    points_won: int
    points_lost: int
    opponent_luck: float

    @property
    def error_rate(self) -> float:
        return 1000 * _div(self.checker_error, self.checker_decisions)

    @property
    def cube_error_rate(self) -> float:
        return 1000 * _div(self.cube_error, self.cube_decisions)

    @property
    def pr(self) -> float:
        return 500 * _div(self.checker_error + self.cube_error,
                          self.checker_decisions + self.cube_decisions)

    @property
    def rating(self) -> str:
        return rating(_div(self.checker_error + self.cube_error,
                           self.checker_decisions + self.cube_decisions))

    @property
    def luck_adjusted(self) -> float:
        return self.points_won - self.points_lost - self.luck + self.opponent_luck

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else round(x, 6)
        return {"name": self.name, "checker_decisions": self.checker_decisions,
                "cube_decisions": self.cube_decisions, "error_rate": num(self.error_rate),
                "cube_error_rate": num(self.cube_error_rate), "pr": num(self.pr),
                "rating": self.rating, "luck": num(self.luck),
                "luck_adjusted": num(self.luck_adjusted), "marks": dict(self.marks),
                "checker_error": num(self.checker_error), "cube_error": num(self.cube_error)}


def _figures(names: tuple[str, str], decisions: Sequence[Decision], luck: Sequence[RollLuck],
             won: tuple[int, int]) -> list[PlayerFigures]:
    out = []
    lucks = [sum(r.luck * r.cube for r in luck if r.player == p) for p in (0, 1)]
    for p in (0, 1):
        mine = [d for d in decisions if d.player == p]
        checker = [d for d in mine if d.kind == "checker"]
        cube = [d for d in mine if d.kind == "cube"]
        marks = {m: sum(d.mark == m for d in mine) for m in ("doubtful", "bad", "very bad")}
        out.append(PlayerFigures(names[p], len(checker), len(cube),
                                 sum(d.error for d in checker), sum(d.error for d in cube),
                                 marks, lucks[p], won[p], won[1 - p], lucks[1 - p]))
    return out


@dataclass
class MatchAnalysis:
    """The analysis of a match file: the record, its games replayed and analysed."""

    record: MatchRecord
    games: list[Any]   # ReplayedGame, or VariantReplayedGame in Plakoto and Fevga
    analyses: list[GameAnalysis]
    ply: int
    player: str | None = None
    interrupted: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
    rollouts: RolloutSettings | None = None
    evaluator: str = "float32"      # how the backgammon / Portes net valued positions

    @property
    def decisions(self) -> list[Decision]:
        """Every decision, game by game, in the order made (of `player` only, if given)."""
        out = [d for a in self.analyses for d in a.decisions]
        if self.player is not None:
            index = self.record.players.index(self.player)
            out = [d for d in out if d.player == index]
        return out

    def players(self) -> list[PlayerFigures]:
        """Both players' figures over the whole match, left column first."""
        decisions = [d for a in self.analyses for d in a.decisions]
        luck = [r for a in self.analyses for r in a.luck]
        return _figures(self.record.players, decisions, luck, self.record.final_score)

    def game_figures(self) -> list[dict[str, Any]]:
        """Per game: its score, winner, points and each player's short figures."""
        out = []
        for g, a in zip(self.games, self.analyses):
            r = g.record
            won = (r.points if r.winner == 0 else 0, r.points if r.winner == 1 else 0)
            figures = _figures(self.record.players, a.decisions, a.luck, won)
            out.append({
                "game": r.number, "score": list(r.score), "crawford": g.crawford,
                "winner": None if r.winner is None else self.record.players[r.winner],
                "points": r.points, "ending": g.ending,
                "resignation": self._resignation_dict(a.resignation),
                "players": [{k: f.to_dict()[k] for k in
                             ("name", "checker_decisions", "cube_decisions", "error_rate",
                              "cube_error_rate", "pr", "luck")} for f in figures],
            })
        return out

    def _decision_dict(self, d: Decision) -> dict[str, Any]:
        row = d.to_dict()
        row["player"] = self.record.players[d.player]
        for key in ("error", "mwc_error", "equity_played", "equity_best", "error_se"):
            if row[key] is not None:
                row[key] = round(row[key], 6)
        return {k: row[k] for k in DECISION_FIELDS}

    def _resignation_dict(self, r: Any) -> dict[str, Any] | None:
        if r is None:
            return None
        doc = r.to_dict()
        doc["player"] = self.record.players[r.player]
        return doc

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` document: ``match``, ``players``, ``decisions`` (and the settings)."""
        return {
            "match": {"length": self.record.length, "players": list(self.record.players),
                      "final_score": list(self.record.final_score),
                      "games": self.game_figures(), "game": self.record.game,
                      "source": self.record.source},
            "players": [f.to_dict() for f in self.players()],
            "decisions": self.to_records(),
            "resignations": [self._resignation_dict(a.resignation) for a in self.analyses
                             if a.resignation is not None],
            "settings": {"ply": self.ply, "checker_ply": self.ply, "cube_ply": self.ply,
                         "luck_ply": 0, "player": self.player,
                         # how the backgammon / Portes net valued positions (the Plakoto and
                         # Fevga nets: float32 only)
                         "evaluator": self.evaluator,
                         "rollout_close": None if self.rollouts is None else self.rollouts.close,
                         "trials": None if self.rollouts is None else self.rollouts.trials,
                         "seed": None if self.rollouts is None else self.rollouts.seed,
                         "interrupted": self.interrupted, **self.extra},
        }

    def to_records(self) -> list[dict[str, Any]]:
        """The decisions as flat rows (the keys of DECISION_FIELDS), for tables."""
        return [self._decision_dict(d) for d in self.decisions]

    def __str__(self) -> str:
        return format_report(self)


def format_report(analysis: MatchAnalysis) -> str:
    """The text report: each game with its marked errors (with the position's gnubg ID),
    then the player table."""
    r = analysis.record
    names = r.players
    kind = f"{r.length}-point match" if r.length else "money session"
    lines = [f"{names[0]} vs {names[1]}: {kind}, {len(r.games)} games, "
             f"final score {r.final_score[0]}-{r.final_score[1]} (checker plays and cube "
             f"decisions analysed at {analysis.ply} ply, luck at 0 ply, by the "
             f"{analysis.evaluator} evaluator)"]
    if analysis.rollouts is not None:
        rollouts = analysis.rollouts
        rolled = sum(d.rollout is not None for a in analysis.analyses for d in a.decisions)
        lines.append(f"{rolled} decisions closer than {rollouts.close:g} EMG settled by cubeful "
                     f"rollouts of {rollouts.trials} trials (seed {rollouts.seed}); their "
                     "errors carry an SE")
    decisions_of = {a.number: a.decisions for a in analysis.analyses}
    resignation_of = {a.number: a.resignation for a in analysis.analyses}
    for g in analysis.games:
        rec = g.record
        result = ("unfinished" if rec.winner is None else
                  f"{names[rec.winner]} wins {rec.points} ({g.ending})")
        lines.append("")
        kind = f" ({rec.game.capitalize()})" if rec.game else ""   # a tavli record's game
        lines.append(f"Game {rec.number}{kind}: {rec.score[0]}-{rec.score[1]}"
                     f"{' (Crawford)' if g.crawford else ''}, {result}")
        judged = resignation_of.get(rec.number)
        if judged is not None:
            verdict = ("right (unmarked)" if not (judged.mark or judged.accept_mark) else
                       f"resigning cost {names[judged.player]} {judged.error:.3f}"
                       if judged.mark else
                       f"accepting cost {names[1 - judged.player]} {judged.accept_error:.3f}")
            lines.append(f"  resignation by {names[judged.player]} ({judged.value} x the cube, "
                         f"cubeful equity {judged.equity:+.3f}): {verdict} "
                         f"{judged.mark or judged.accept_mark} {judged.position_id}".rstrip())
        for d in decisions_of.get(rec.number, ()):
            if not d.mark or (analysis.player and names[d.player] != analysis.player):
                continue
            what = f"{d.dice}: " if d.dice else ""
            se = "" if d.error_se is None else f" (rollout, SE {d.error_se:.3f})"
            lines.append(f"  {d.move:3d} {names[d.player]:<12} {what}{d.played:<22} best "
                         f"{d.best:<22} -{d.error:.3f} {d.mark:<9} {d.position_id}{se}")
    lines += ["", f"{'player':<16}{'checker':>8}{'cube':>6}{'err/move':>10}{'cube err':>10}"
              f"{'PR':>7}{'luck':>8}{'adj.':>8}  rating",
              f"{'':<16}{'dec.':>8}{'dec.':>6}{'mEMG':>10}{'mEMG':>10}{'':>7}{'pts':>8}{'pts':>8}"]
    for f in analysis.players():
        lines.append(f"{f.name:<16}{f.checker_decisions:>8}{f.cube_decisions:>6}"
                     f"{f.error_rate:>10.1f}{f.cube_error_rate:>10.1f}{f.pr:>7.2f}"
                     f"{f.luck:>+8.2f}{f.luck_adjusted:>+8.2f}  {f.rating}")
    if analysis.interrupted:
        lines.append("(interrupted: the figures cover the games analysed so far)")
    return "\n".join(lines)


def read_record(path_or_text: str | os.PathLike) -> MatchRecord:
    """A match record from a file path (``.sgf``: gnubg's SGF; else ``.mat`` text), or from
    the text itself (a str with a line break; SGF when it starts with ``(;``)."""
    if isinstance(path_or_text, str) and "\n" in path_or_text:
        if path_or_text.lstrip().startswith("(;"):
            return parse_sgf(path_or_text)
        return parse_mat(path_or_text)
    path = Path(path_or_text)
    text = read_text(path)
    if path.suffix.lower() == ".sgf" or text.lstrip().startswith("(;"):
        return parse_sgf(text, source=str(path))
    return parse_mat(text, source=str(path))


def analyse_match(path_or_text: str | os.PathLike, *, ply: int = 0, player: str | None = None,
                  progress: Callable[[int, int], None] | None = None, jobs: int | None = 1,
                  executor: Any = None, rollout_close: float | None = None,
                  trials: int | None = None, seed: int | None = None,
                  evaluator: str | None = None) -> MatchAnalysis:
    """Analyse a played match: a ``.mat`` file's path, or its text. Every game is replayed
    (every move checked legal) and every checker play and cube decision evaluated at `ply`
    (0, 1 or 2). `rollout_close` (EMG) with `trials`: the decisions whose two best options
    are closer than that are settled by cubeful rollouts of `trials` trials
    (``rollouts.py``; backgammon only), seeded from `seed` (None: a random one, reported in
    ``to_dict()["settings"]``). `player`: keep only that player's decisions in ``decisions``
    (the figures cover both). `progress(done, total)` is called after each game. The games
    run as units of the driver: on `executor` (a ``make_executor`` executor, e.g. a Dask
    cluster's) if given, else on `jobs` local processes (1: this process; None: every CPU);
    the numbers do not depend on either. Ctrl-C returns the games analysed so far, flagged
    ``interrupted``. `evaluator`: how the backgammon / Portes net values positions,
    ``"float32"`` (the reference) or ``"int16"`` (faster; None: ``neural.default_evaluator()``),
    every worker alike, its rollouts too (``to_dict()["settings"]["evaluator"]``); the Plakoto
    and Fevga nets have float32 only. Raises MatchFileError (a bad file, naming the place),
    ValueError (a bad ply, player, jobs, evaluator or rollout settings)."""
    if ply not in PLIES:
        raise ValueError(f"ply must be one of {', '.join(map(str, PLIES))}, not {ply!r}")
    kind = check_evaluator(evaluator)
    record = read_record(path_or_text)
    if record.game in ("plakoto", "fevga"):
        check_variant_evaluator(record.game, evaluator)
    if player is not None and player not in record.players:
        raise ValueError(f"no player {player!r} in the match: the players are "
                         f"{record.players[0]!r} and {record.players[1]!r}")
    rollouts = rollout_settings(rollout_close, trials, seed)
    if record.game in ("plakoto", "fevga", "tavli") and ply not in VARIANT_PLIES:
        raise ValueError(f"the {record.game} nets analyse at 0 or 1 ply, not {ply!r}"
                         if record.game == "tavli" else
                         f"the {record.game} net analyses at 0 or 1 ply, not {ply!r}")
    if record.game != "backgammon" and rollouts is not None:
        raise ValueError(f"close decisions are rolled out in backgammon, not {record.game}")
    games: list[Any] = (replay_match(record) if record.game in ("backgammon", "portes")
                        else replay_variant_match(record))
    job = AnalysisJob(games, ply, rollouts, kind)

    def report(p: RolloutProgress) -> None:
        if progress is not None:
            progress(p.trials_done, p.trials_total)

    if executor is not None:
        outcome = run_job(job, executor, progress=report)
    else:
        with make_executor(jobs if jobs is not None else default_jobs()) as local:
            outcome = run_job(job, local, progress=report)
    done = sorted(job.results)
    return MatchAnalysis(record, [games[i] for i in done], job.analyses(), ply, player,
                         outcome.interrupted, rollouts=rollouts, evaluator=kind)
