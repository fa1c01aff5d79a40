"""Whole matches (rules R21-R25): the match job kind and its result.

A match to N points is played game after game in the C game loop (``_match.pxi``) with the
doubling cube, from a given score: the players' cube decisions are those of the cubeful
rollouts (``cube.py``'s model for the neural players, a pip-count rule for the others).
The first game in which a player is 1-away is the Crawford game, played without the cube;
later games (post-Crawford) have the cube again. Gammons and backgammons score 2 and 3
times the cube. Under the Portes rules there is no cube, no backgammon, and the previous
game's winner starts the next game.

The tavli match (``tavli=True``, RULES.md T1-T3) is played by the same loop: the games rotate
Portes, Plakoto, Fevga, without the cube, each worth 1 or 2 points (P7, F7, Portes without
backgammons), and the previous game's winner starts the next one and rolls both dice (so
any first roll, doubles included, may be played; the first game's starter is a fair coin).
A Plakoto game drawn by two pinned mothers (P6) is replayed with the same starter. The two
players play Portes as named; in Plakoto and Fevga ``random`` plays as the variants'
``random`` player, ``neural`` and ``neural-1ply`` as the variants' players of those names
(each game's shipped net), and every other player as the variants' ``heuristic``
player (``variant_player``). The ``neural-1ply`` players' pre-filter of replies
(``reply_filter``, ``rollout_request.check_reply_filter``) is that of their backgammon and
Portes games: the Plakoto and Fevga players have no such look-ahead.

The unit of work is a chunk of matches (``MatchChunk``), seeded like rollout chunks, so the
numbers depend on the seed and the chunk size, never on the number of workers. The driver
(``driver.py``) runs the ``MatchJob`` on any executor, with progress and checkpoints.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import partial
from typing import Any, Iterable, Sequence

import numpy as np

from .. import _core
from ..game.position import Position
from ..matchfile.mat import format_mat, parse_mat
from ..matchfile.model import MatchRecord
from ..play.cube import default_match_table
from ..play.match_bearoff import match_regions
from ..play.neural import NetChoice
from ..play.players import game_resources
from ..run.checkpoint import completed_units, read_checkpoint as _read_checkpoint
from ..run.plans import MissingIndices, UnitPlan, part_size
from ..run.progress import RolloutProgress
from ..run.records import TableExport
from ..variants.games import variant_net_for
from ..variants.movegen import core_options
from .match_record import DEFAULT_NAMES, match_records, record_kind
from .match_request import (  # the request's names, re-exported where they always were
    DEFAULT_MATCH_CHUNK,
    MAX_RECORDED_MATCHES,
    MatchRequest,
    check_names,
    make_match_request,
    tavli_rules,
    variant_player,
    variant_player_name,
)
from .rollout_chunks import DEFAULT_REPLY_FILTER, chunk_seed
from .rollout_request import saved_identity

__all__ = [
    "DEFAULT_MATCH_CHUNK",
    "MatchRequest",
    "MatchChunk",
    "MatchChunkResult",
    "MatchJob",
    "MatchResult",
    "make_match_request",
    "check_names",
    "tavli_rules",
    "variant_player",
    "variant_player_name",
    "MAX_RECORDED_MATCHES",
    "run_match_chunk",
    "match_result",
    "read_match_checkpoint",
]

#: The core's per-chunk tallies, in _core.run_matches' order (all integers).
TALLIES = (
    "wins_a", "games", "games_sq", "cube_sum",
    "single_a", "gammon_a", "backgammon_a", "single_b", "gammon_b", "backgammon_b",  # exclusive
    "passes", "points_a", "points_b",
    # Per game type: games decided, each player's points, the sums of their squares.
    *(f"{game}_{name}" for game in ("portes", "plakoto", "fevga")
      for name in ("games", "points_a", "points_b", "sq_a", "sq_b")),
    "mother_a", "mother_b",  # Plakoto games won by the mother rule (P5)
    "draws",  # Plakoto games drawn (P6) and replayed; counted in "games"
)

#: The tallies of checkpoints written before the tavli match (the rest were zero then).
_OLD_TALLIES = 13

#: The games of a tavli match, in the order they rotate (T2).
GAME_TYPES = ("portes", "plakoto", "fevga")

CHECKPOINT_FORMAT = "tavli_fast match checkpoint"
CHECKPOINT_VERSION = 1


def _variant_nets(chunk: MatchChunk) -> dict:
    """The run_matches arguments of the variant nets a tavli chunk's players need."""
    if not chunk.tavli:
        return {}
    return {"plakoto_net": variant_net_for("plakoto", chunk.variant_ids),
            "fevga_net": variant_net_for("fevga", chunk.variant_ids)}


@dataclass(frozen=True)
class MatchChunk:
    """One chunk of matches: plain picklable data, everything a worker needs."""

    index: int
    n_matches: int
    seed: int
    length: int
    score: tuple[int, int]
    post_crawford: bool
    player_a: int
    player_b: int
    first_roll_no_doubles: bool
    backgammons: bool
    winner_starts: bool
    max_cube: int  # 1: no cube
    bearoff_play: bool = True
    cache_dir: str | None = None
    tavli: bool = False
    variant_ids: tuple[int, int] = (1, 1)
    plakoto_options: int = 0  # the core's option bits (variants.core_options)
    fevga_options: int = 0
    draw_ends_game: bool = False  # P6 option (PlakotoRules.draw_scores_point)
    net: NetChoice | None = None  # the neural players' net (None: the shipped one)
    cubeful_play: bool = True  # with the cube, the 0-ply neural players play by cubeful equity
    record: bool = False  # keep each match's record (its .mat text)
    names: tuple[str, str] = DEFAULT_NAMES
    rules: str = "backgammon"  # the rules' name (for the records' kind)
    game_rules: tuple[str, ...] = ()  # tavli: the Plakoto and Fevga options, by name
    reply_filter: tuple[int, float] = DEFAULT_REPLY_FILTER  # the 1-ply look's replies (Portes)


@dataclass(frozen=True)
class MatchChunkResult:
    """A chunk's tallies (``TALLIES``), for player A; with ``record``, the .mat text of each
    match played, in order (never in checkpoints)."""

    index: int
    matches: int
    tallies: tuple[int, ...]
    records: tuple[str, ...] = ()

    def to_list(self) -> list[int]:
        return [self.matches, *self.tallies]

    @classmethod
    def from_list(cls, index: int, values: Sequence[int]) -> "MatchChunkResult":
        if len(values) not in (1 + _OLD_TALLIES, 1 + len(TALLIES)) or any(
            int(v) != v or v < 0 for v in values
        ):
            raise ValueError(f"match chunk {index}: expected {1 + len(TALLIES)} whole numbers")
        tallies = [int(v) for v in values[1:]]
        if len(tallies) == _OLD_TALLIES:
            # A checkpoint of a Portes / backgammon match from before the tavli match: the
            # per-type tallies are reported for tavli matches only, so zeros do no harm.
            tallies += [0] * (len(TALLIES) - _OLD_TALLIES)
        return cls(index, int(values[0]), tuple(tallies))


def _resources(chunk: MatchChunk, load: bool = True) -> dict:
    return game_resources((chunk.player_a, chunk.player_b), chunk.bearoff_play, False,
                          chunk.cache_dir, load=load, weights=chunk.net)


def run_match_chunk(chunk: MatchChunk, control: np.ndarray | None = None) -> MatchChunkResult:
    """Play the chunk's matches in the C game loop (GIL released) and return its tallies.

    ``control``: the unit's control words (``run/control.py``): once the run's stop flag is
    up, no further match starts, and the result holds the matches played."""
    before = int(control[1]) if control is not None else 0
    resources = _resources(chunk)
    out = _core.run_matches(
        Position.initial().board, chunk.n_matches, chunk.length, chunk.score[0], chunk.score[1],
        chunk.post_crawford, chunk.player_a, chunk.player_b, chunk.seed,
        chunk.first_roll_no_doubles, chunk.backgammons, chunk.max_cube, chunk.winner_starts,
        default_match_table(), **resources, tavli=chunk.tavli,
        variant_player_a=chunk.variant_ids[0], variant_player_b=chunk.variant_ids[1],
        plakoto_options=chunk.plakoto_options, fevga_options=chunk.fevga_options,
        plakoto_draw_ends_game=chunk.draw_ends_game, **_variant_nets(chunk),
        cubeful_play=(chunk.cubeful_play, chunk.cubeful_play), control=control,
        regions=(match_regions(chunk.length, chunk.max_cube)
                 if resources.get("bearoff") is not None and chunk.max_cube > 1 else None),
        record=chunk.record, reply_filter=chunk.reply_filter,
    )
    tallies, texts = out, ()
    if chunk.record:
        tallies, entries = out
        texts = tuple(format_mat(r) for r in match_records(
            entries, length=chunk.length, names=chunk.names,
            kind=record_kind(chunk.rules, chunk.tavli), game_options=chunk.game_rules))
    played = chunk.n_matches if control is None else int(control[1]) - before
    return MatchChunkResult(chunk.index, played, tuple(int(v) for v in tallies), texts)


def plan_match_chunks(request: MatchRequest, done: Iterable[int] = ()) -> UnitPlan:
    """The chunks of the request not in ``done`` (their indices), in index order: made one at
    a time when asked for, so a plan of any size costs no memory."""
    return UnitPlan(MissingIndices(request.n_chunks, done), partial(make_match_chunk, request))


def make_match_chunk(request: MatchRequest, c: int) -> MatchChunk:
    """Chunk ``c`` of the request."""
    plakoto, fevga = tavli_rules(request.game_rules)
    return MatchChunk(
        index=c,
        n_matches=match_chunk_size(request, c),
        seed=chunk_seed(request.seed, c),
        length=request.length,
        score=request.score,
        post_crawford=request.post_crawford,
        player_a=request.player_ids[0],
        player_b=request.player_ids[1],
        first_roll_no_doubles=request.rules.first_roll_no_doubles,
        backgammons=request.rules.backgammons,
        winner_starts=request.rules.winner_starts,
        max_cube=request.max_cube if request.cube else 1,
        bearoff_play=request.bearoff_play,
        cache_dir=request.cache_dir,
        tavli=request.tavli,
        variant_ids=request.variant_ids,
        plakoto_options=core_options("plakoto", plakoto),
        fevga_options=core_options("fevga", fevga),
        draw_ends_game=plakoto.draw_scores_point,
        net=request.net,
        # Without a cube the neural players play cubeless at the score, as they always did.
        cubeful_play=request.cube and request.max_cube > 1,
        record=request.record,
        names=request.names,
        rules=request.rules.name,
        game_rules=request.game_rules,
        reply_filter=request.reply_filter,
    )


def match_chunk_size(request: MatchRequest, c: int) -> int | None:
    """The matches of chunk ``c`` of the request (None: the request has no such chunk)."""
    return part_size(request.matches, request.chunk_size, c)


@dataclass(frozen=True)
class MatchResult(TableExport):
    """The outcome of a match run. ``win``: the match winning chances of players A and B;
    ``se``: their standard error (the same for both). Rates are per game."""

    request: MatchRequest
    matches: int
    tallies: tuple[int, ...]
    elapsed_s: float
    jobs: int
    interrupted: bool = False
    worker_restarts: int = 0
    resumed_matches: int = 0
    checkpoint: str | None = None
    saved: tuple[str, ...] = ()  # with record: each match's .mat text, in the run's order
    saved_paths: tuple[str, ...] = ()  # with save: the files written

    def records(self) -> list[MatchRecord]:
        """The matches played, as records (``record=True`` / ``save``; else empty)."""
        return [parse_mat(text, source=f"<match {i}>") for i, text in enumerate(self.saved, 1)]

    @property
    def notes(self) -> tuple[str, ...]:
        """What the reader should know about the run's settings (a replies' pre-filter other
        than the default)."""
        return self.request.notes

    def _t(self, name: str) -> int:
        return self.tallies[TALLIES.index(name)]

    @property
    def win(self) -> tuple[float, float]:
        if not self.matches:
            return (math.nan, math.nan)
        a = self._t("wins_a") / self.matches
        return (a, 1.0 - a)

    @property
    def se(self) -> tuple[float, float]:
        if not self.matches:
            return (math.nan, math.nan)
        a = self.win[0]
        s = math.sqrt(a * (1.0 - a) / self.matches)
        return (s, s)

    @property
    def games(self) -> int:
        return self._t("games")

    @property
    def games_per_match(self) -> float:
        return self.games / self.matches if self.matches else math.nan

    @property
    def games_per_match_se(self) -> float:
        if not self.matches:
            return math.nan
        m = self.games_per_match
        return math.sqrt(max(self._t("games_sq") / self.matches - m * m, 0.0) / self.matches)

    @property
    def mean_cube(self) -> float:
        """The mean final cube value of a game (1 when no game was doubled)."""
        return self._t("cube_sum") / self.games if self.games else math.nan

    def rates(self) -> dict[str, float]:
        """Per game: each player's wins by a single game, gammon and backgammon, and passes."""
        g = self.games or 1
        return {name: self._t(name) / g for name in TALLIES[4:11]}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent)

    def game_types(self) -> dict[str, dict[str, float]]:
        """Per game type (Portes, Plakoto, Fevga): the games decided, each player's points, and
        A's share of the points won in that type with its standard error.

        The share is the ratio of A's points to all points of that type's games; its SE is
        the delta-method estimate over those games, taken as independent (games of one
        match are nearly so: only the starter depends on the previous game).
        """
        out = {}
        for game in GAME_TYPES:
            n, a, b, sq_a, sq_b = (self._t(f"{game}_{k}") for k in
                                   ("games", "points_a", "points_b", "sq_a", "sq_b"))
            share = se = math.nan
            if a + b:
                share = a / (a + b)
                # sum (x - R y)^2 with y = x + z and x z = 0 in every game (one side scores).
                resid = (1 - share) ** 2 * sq_a + share**2 * sq_b
                mean_y = (a + b) / n
                se = math.sqrt(resid / n / n) / mean_y if n > 1 else math.nan
            out[game] = {"games": n, "points_a": a, "points_b": b, "share_a": share, "share_a_se": se}
        return out

    @property
    def gammon_rates(self) -> tuple[float, float]:
        """The share of games A and B won by a gammon or backgammon."""
        r = self.rates()
        return (r["gammon_a"] + r["backgammon_a"], r["gammon_b"] + r["backgammon_b"])

    def to_dict(self) -> dict[str, Any]:
        def num(x: float) -> float | None:
            return None if math.isnan(x) else x

        r = self.request
        return {
            "length": r.length,
            "matches": self.matches,
            "matches_requested": r.matches,
            "players": list(r.players),
            "score": list(r.score),
            "post_crawford": r.post_crawford,
            "rules": r.rules.name,
            "cube": r.cube,
            "max_cube": r.max_cube,
            "seed": r.seed,
            "win": [num(w) for w in self.win],
            "se": [num(s) for s in self.se],
            "games_per_match": num(self.games_per_match),
            "games_per_match_se": num(self.games_per_match_se),
            "games": self.games,
            "mean_cube": num(self.mean_cube),
            "gammon_rate": list(self.gammon_rates),
            "per_game": self.rates(),
            "points": [self._t("points_a"), self._t("points_b")],
            **({"tavli": True, "game_types": {k: {n: num(v) for n, v in d.items()}
                                              for k, d in self.game_types().items()},
                "mother_wins": [self._t("mother_a"), self._t("mother_b")],
                "draws": self._t("draws")} if r.tavli else {}),
            "elapsed_s": self.elapsed_s,
            "jobs": self.jobs,
            "chunk_size": r.chunk_size,
            "interrupted": self.interrupted,
            "worker_restarts": self.worker_restarts,
            "resumed_matches": self.resumed_matches,
            "checkpoint": self.checkpoint,
            "net": r.net.to_dict() if r.net is not None else None,
            "notes": list(self.notes),
            **({"saved": list(self.saved_paths)} if self.saved_paths else {}),
        }

    def __str__(self) -> str:
        text = self._text()
        if self.saved_paths:
            n = len(self.saved_paths)
            where = (self.saved_paths[0] if n == 1 else
                     f"{self.saved_paths[0]} ... {self.saved_paths[-1]}")
            text += f"\nSaved {n:,} match{'es' if n != 1 else ''} as .mat: {where}"
        return text

    def _text(self) -> str:
        r = self.request
        crawford = ""
        if r.length - 1 in r.score:
            crawford = ", post-Crawford" if r.post_crawford else ", starting with the Crawford game"
        lines = [
            f"Matches to {r.length} points: {self.matches:,}"
            + (f" of {r.matches:,}" if self.matches != r.matches else "")
            + f", from the score A {r.score[0]}, B {r.score[1]}{crawford}, rules {r.rules.name}, "
            + ("cube up to " + str(r.max_cube) if r.cube else "no cube") + f", seed {r.seed}",
        ]
        if r.net is not None:
            lines.append(f"Net: {r.net.describe()}")
        lines += [f"Note: {note}" for note in self.notes]
        if self.interrupted:
            lines.append("INTERRUPTED: partial result from the matches completed")
        if not self.matches:
            lines.append("No match was completed.")
            return "\n".join(lines)
        if r.tavli:
            lines[0] = (f"Tavli matches to {r.length} points (Portes, Plakoto, Fevga in turn, no cube): "
                        f"{self.matches:,}" + (f" of {r.matches:,}" if self.matches != r.matches else "")
                        + f", seed {r.seed}")
            lines += ["", *self._tavli_lines()]
            return "\n".join(lines)
        lines.append("")
        lines.append(f"{'player':<22} {'MWC':>8} {'SE':>8}   gammons/game  backgammons/game")
        rates = self.rates()
        for i, who in enumerate("ab"):
            lines.append(
                f"{r.players[i] + (' (A)' if i == 0 else ' (B)'):<22} {self.win[i]:8.4f} {self.se[i]:8.4f}"
                f"   {self.gammon_rates[i]:12.4f}  {rates['backgammon_' + who]:16.4f}"
            )
        lines.append("")
        lines.append(
            f"Games per match {self.games_per_match:.3f} (SE {self.games_per_match_se:.3f}), "
            f"mean final cube {self.mean_cube:.3f}, passes {rates['passes']:.3f} per game"
        )
        lines.append(
            f"{self.elapsed_s:.2f} s, {self.matches / self.elapsed_s if self.elapsed_s > 0 else math.nan:,.1f} "
            f"matches/s, {self.jobs} job(s)"
            + (f", {self.worker_restarts} worker restart(s)" if self.worker_restarts else "")
        )
        return "\n".join(lines)

    def _tavli_lines(self) -> list[str]:
        r = self.request
        names = [f"{r.players[0]} (A)", f"{r.players[1]} (B)"]
        lines = [f"{'player':<22} {'MWC':>8} {'SE':>8}   2-point wins/game  mother wins/game"]
        g = self.games or 1
        for i, who in enumerate("ab"):
            lines.append(f"{names[i]:<22} {self.win[i]:8.4f} {self.se[i]:8.4f}   "
                         f"{self._t('gammon_' + who) / g:17.4f}  {self._t('mother_' + who) / g:16.4f}")
        lines += ["", f"{'game':<8} {'games':>9} {'points A':>9} {'points B':>9}   share of points won by A"]
        for game, d in self.game_types().items():
            lines.append(f"{game:<8} {d['games']:9,} {d['points_a']:9,} {d['points_b']:9,}   "
                         f"{d['share_a']:.4f} (SE {d['share_a_se']:.4f})")
        lines += [
            "",
            f"Games per match {self.games_per_match:.3f} (SE {self.games_per_match_se:.3f}), "
            f"Plakoto draws {'(no points, not replayed)' if 'draw_scores_point' in r.game_rules else 'replayed'} "
            f"{self._t('draws'):,}",
            *([f"Options: {', '.join(r.game_rules)}"] if r.game_rules else []),
            "Players in Plakoto and Fevga: "
            + ", ".join(f"{name} plays {variant_player_name(name)}"
                        for name in dict.fromkeys(r.players)),
            f"{self.elapsed_s:.2f} s, {self.matches / self.elapsed_s if self.elapsed_s > 0 else math.nan:,.1f} "
            f"matches/s, {self.jobs} job(s)"
            + (f", {self.worker_restarts} worker restart(s)" if self.worker_restarts else ""),
        ]
        return lines


#: The settings a checkpoint's request must hold to be resumed.
_REQUEST_KEYS = ("length", "matches", "players", "score", "post_crawford", "rules", "cube",
                 "max_cube", "seed", "chunk_size")


def read_match_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Load and check a match checkpoint; ValueError if it is not one."""
    return _read_checkpoint(path, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, "match",
                            {"request": dict, "chunks": dict}, _REQUEST_KEYS)


class MatchJob:
    """Matches as a job of the driver (``driver.Job``): one round of chunks, summed in index
    order. ``completed``: chunk results already done (from a checkpoint)."""

    worker = staticmethod(run_match_chunk)

    def __init__(self, request: MatchRequest, completed: Iterable[MatchChunkResult] = ()):
        self.request = request
        self.results: dict[int, MatchChunkResult] = {}
        self.partial: dict[int, MatchChunkResult] = {}  # cut short by a stop: reported only
        self._matches = 0
        self._wins = 0
        self._planned = False
        for r in completed:
            self.add(r)
        self.resumed_matches = self._matches

    @classmethod
    def from_checkpoint(cls, doc: dict[str, Any], request: MatchRequest, path: str) -> "MatchJob":
        """The job of ``request`` with the matching chunks of checkpoint ``doc`` done already
        (an older checkpoint of a look-ahead player matches only the exact search it played:
        ``saved_identity``)."""
        doc = {**doc, "request": saved_identity(doc["request"])}
        mine = request.identity()
        # Keys that only some requests carry must match when either side has them.
        mine.update({k: None for k in ("tavli", "game_rules", "weights_sha256", "reply_filter",
                                       "evaluator")
                     if k in doc["request"] and k not in mine})
        return cls(request, completed_units(doc, mine, partial(match_chunk_size, request),
                                            MatchChunkResult.from_list, lambda r: r.matches, path))

    def plan(self) -> Sequence[MatchChunk]:
        if self._planned:
            return ()
        self._planned = True
        return plan_match_chunks(self.request, done=self.results)

    def add(self, result: MatchChunkResult) -> None:
        if result.index in self.results or result.index in self.partial:
            raise RuntimeError(f"match chunk {result.index} counted twice")
        self.results[result.index] = result
        self._matches += result.matches
        self._wins += result.tallies[0]

    def add_partial(self, result: MatchChunkResult) -> None:
        """A chunk cut short by a stop (``run/driver.py``): its matches count in the
        interrupted result, never in the checkpoint (``results`` holds whole chunks)."""
        if result.index in self.results or result.index in self.partial:
            raise RuntimeError(f"match chunk {result.index} counted twice")
        if result.matches:
            self.partial[result.index] = result
            self._matches += result.matches
            self._wins += result.tallies[0]

    @property
    def done(self) -> bool:
        return len(self.results) >= self.request.n_chunks

    def prepare(self, chunk: MatchChunk) -> None:
        _resources(chunk, load=False)

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        n = self._matches
        rate = (n - self.resumed_matches) / session_s if session_s > 0 else 0.0
        p = self._wins / n if n else math.nan
        return RolloutProgress(
            trials_done=n,
            trials_total=self.request.matches,
            elapsed_s=elapsed_s,
            games_per_second=rate,
            equity=p,  # player A's match winning chance so far
            equity_se=math.sqrt(p * (1 - p) / n) if n else math.inf,
            eta_s=(self.request.matches - n) / rate if rate > 0 else math.inf,
        )

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        return {
            "format": CHECKPOINT_FORMAT,
            "version": CHECKPOINT_VERSION,
            "request": self.request.to_dict(),
            "elapsed_s": elapsed_s,
            "chunks": {str(i): self.results[i].to_list() for i in sorted(self.results)},
        }

    def totals(self) -> tuple[int, tuple[int, ...]]:
        """(matches, summed tallies) in chunk index order."""
        sums = np.zeros(len(TALLIES), dtype=np.int64)
        matches = 0
        every = {**self.results, **self.partial}
        for i in sorted(every):
            sums += np.asarray(every[i].tallies, dtype=np.int64)
            matches += every[i].matches
        return matches, tuple(int(v) for v in sums)

    def records(self) -> tuple[str, ...]:
        """The .mat texts of the matches played, in chunk index order."""
        every = {**self.results, **self.partial}
        return tuple(text for i in sorted(every) for text in every[i].records)


def match_result(job: MatchJob, *, elapsed_s: float, jobs: int, interrupted: bool = False,
                 worker_restarts: int = 0, checkpoint: str | None = None) -> MatchResult:
    matches, tallies = job.totals()
    return MatchResult(job.request, matches, tallies, elapsed_s, jobs, interrupted,
                       worker_restarts, job.resumed_matches, checkpoint, job.records())
