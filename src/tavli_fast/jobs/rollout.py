"""Rollouts as chunks of trials: plan, run one chunk, merge, report with standard errors.

The job kind "rollout" of the driver (``driver.py``): ``RolloutJob`` plans the chunks, merges
their results and writes and reads checkpoints. This module knows nothing of processes or
clusters (``executors`` run the chunks). The unit of work is the ``RolloutChunk``: plain
picklable data in, a ``ChunkResult`` of plain numbers out, so any executor that can call
``run_chunk`` (a process pool, Dask) can run a rollout.

Reproducibility: a rollout of ``trials`` games is cut into chunks of ``chunk_size`` trials
(chunk ``c`` holds the global trials ``c*chunk_size ...``). Chunk ``c`` is seeded with
``SeedSequence(master_seed, spawn_key=(c,))`` and the stratified first rolls depend only on the
master seed and the global trial index, so the merged numbers (merged in chunk order) do not
depend on how many processes ran the chunks, nor in which order they finished.

All figures are for the player on roll in the rolled-out position ("player 0").

Plakoto and Fevga (``game="plakoto"|"fevga"``, RULES.md P1-P7, F1-F7) are rolled out by the
same job: a chunk then plays the variants' games (``variant_games.play_variant_trials``), its
first two rolls stratified over the 36 rolls (any first roll may be a double, T3). Their
outcomes fill the same counts (a 2-point win, bearing off or by the mother rule, is counted
as a gammon, no backgammons), and ``ChunkResult.variant`` adds the mother-rule wins and
losses (P5) and the draws (P6, no points) that the counts do not hold.
"""

from __future__ import annotations

import logging
import math
import os
import time
from dataclasses import dataclass, replace
from functools import partial
from numbers import Integral, Real
from typing import Any, Iterable, Sequence

import numpy as np

from .. import _core
from ..run.checkpoint import completed_units, read_checkpoint as _read_checkpoint
from ..checks import check_count, check_seed, player_names
from ..play.players import player_kinds
from ..game.resolve import resolve_position
from ..run.plans import MissingIndices, UnitPlan, part_size, parts
from ..play.players import game_resources, needs_net
from .cubeful import DEFAULT_MAX_CUBE, branch_met, check_max_cube, cube_branches
from ..play.neural import NetChoice, choose_net
from ..game.position import GameContext, Position
from ..run.progress import RolloutProgress
from ..rules import Rules, get_rules
from .stratify import stratified_dice

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_MOVE_FILTER",
    "FIGURES",
    "RolloutChunk",
    "ChunkResult",
    "RolloutRequest",
    "Totals",
    "Tally",
    "make_request",
    "plan_chunks",
    "make_chunk",
    "chunk_games",
    "run_chunk",
    "merge",
    "figures",
    "figures_from_moments",
    "chunk_seed",
    "RolloutJob",
    "CHECKPOINT_FORMAT",
    "read_checkpoint",
    "request_from_checkpoint",
]

log = logging.getLogger(__name__)

#: Trials per chunk; fixed independently of the number of jobs (so results do not depend on it).
DEFAULT_CHUNK_SIZE = 10_000

# The exclusive outcomes of finished games, for player 0, in _core.run_games' order.
OUTCOMES = ("win_single", "win_gammon", "win_backgammon", "lose_single", "lose_gammon", "lose_backgammon")

#: Numbers a cubeful chunk adds: the core's cube sums (see _core.run_games).
CUBE_SUMS = 10

#: Numbers a luck-adjusted chunk adds: sums, then sums of squares, of the six figures less
#: each game's luck (see _core.run_games' vr_moments).
VR_SUMS = 12

#: The 1-ply move filter's defaults (like gnubg's): at most this many candidates, and only
#: those whose 0-ply equity is within this window of the best play's.
DEFAULT_MOVE_FILTER: tuple[int, float] = (int(_core.FILTER_CANDIDATES), float(_core.FILTER_WINDOW))

#: The reported figures (gammons include backgammons), in _core.run_games' moment order.
FIGURES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon", "equity")

# Each figure's value for each exclusive outcome: the moments of games that were played out.
_FIGURE_OF_OUTCOME = np.array(
    [  # win  wg  wbg  lg  lbg  equity
        [1, 0, 0, 0, 0, 1],
        [1, 1, 0, 0, 0, 2],
        [1, 1, 1, 0, 0, 3],
        [0, 0, 0, 0, 0, -1],
        [0, 0, 0, 1, 0, -2],
        [0, 0, 0, 1, 1, -3],
    ],
    dtype=np.float64,
)


def chunk_seed(master_seed: int, index: int) -> int:
    """The 64-bit seed of chunk ``index`` of a rollout with ``master_seed``."""
    ss = np.random.SeedSequence(master_seed, spawn_key=(index,))
    return int(ss.generate_state(1, np.uint64)[0])


# ---------------------------------------------------------------------------------------------
# The unit of work
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RolloutChunk:
    """One chunk of trials: plain picklable data, everything a worker needs."""

    index: int
    first_trial: int  # global index of this chunk's first trial (for stratification)
    n_games: int
    board: bytes  # the (2, 26) int8 board, C order, row 0 on roll
    player0: int  # plays row 0 (on roll)
    player1: int
    seed: int  # the chunk's 64-bit seed
    master_seed: int  # fixes the stratification permutations
    first_roll_no_doubles: bool  # R5 opening (only ever set for the starting position)
    backgammons: bool
    stratify: bool
    forced_dice: tuple[int, int] | None = None  # dice already rolled in the position
    bearoff_play: bool = True  # pubeval/greedy play pure bear-offs by the databases
    truncate: bool = False  # count the exact result once inside the two-sided database
    cache_dir: str | None = None  # where the bear-off databases are (None: the default)
    cube_branches: tuple[tuple, ...] | None = None  # cubeful: each branch's starting cube (cubeful.py)
    vr: bool = False  # luck-adjusted figures too (variance reduction by the net)
    truncate_plies: int = 0  # > 0: stop after that many plies, count the net's estimate
    move_filter: tuple[int, float] = DEFAULT_MOVE_FILTER  # the 1-ply players' filter
    game: int = -1  # Portes (-1), or the core's Plakoto / Fevga number (variants.GAME_CODES)
    pinned: int = 0  # Plakoto: the pinned mask of the side on roll
    variant_options: int = 0  # Plakoto / Fevga: the core's option bits
    net: NetChoice | None = None  # the net of the neural players and vr (None: the shipped one)
    cubeful_play: bool = True  # cubeful: the 0-ply neural players play by cubeful equity


#: Numbers a Plakoto / Fevga chunk adds: mother-rule wins, mother-rule losses, draws.
VARIANT_SUMS = 3


@dataclass(frozen=True)
class ChunkResult:
    """What one chunk produced, as plain numbers (for the player on roll).

    `counts` are the exclusive outcomes of the games played to the end;
    `truncated` games stopped inside the two-sided bear-off database and count
    their exact win probability.  `moments` holds the sums, then the sums of
    squares, of the per-game FIGURES; when absent (no truncation) they follow
    from the counts. `cube`: in a cubeful rollout, the core's ten cube sums
    (see ``_core.run_games``), else None. `vr`: with variance reduction, the sums and
    sums of squares of the luck-adjusted figures, else None.
    """

    index: int
    games: int
    counts: tuple[int, int, int, int, int, int]  # win s/g/bg, lose s/g/bg (exclusive)
    plies_sum: int
    plies_sumsq: int
    truncated: int = 0
    moments: tuple[float, ...] | None = None
    cube: tuple[float, ...] | None = None
    vr: tuple[float, ...] | None = None
    variant: tuple[int, int, int] | None = None  # Plakoto / Fevga: mother wins, losses, draws

    def __post_init__(self) -> None:
        if self.moments is None:
            c = np.asarray(self.counts, dtype=np.float64)
            sums = c @ _FIGURE_OF_OUTCOME
            sumsq = c @ (_FIGURE_OF_OUTCOME**2)
            object.__setattr__(self, "moments", tuple(float(v) for v in (*sums, *sumsq)))

    def to_list(self) -> list[float]:
        return [self.games, *self.counts, self.plies_sum, self.plies_sumsq, self.truncated,
                *self.moments, *(self.cube or ()), *(self.vr or ()), *(self.variant or ())]

    @classmethod
    def from_list(cls, index: int, values: Sequence[float]) -> "ChunkResult":
        """The inverse of ``to_list``: the plain numbers, then the cube sums, the luck-adjusted
        sums or the Plakoto / Fevga sums when present (their counts tell them apart: 22, 25,
        32, 34 or 44 numbers)."""
        plain = 10 + 2 * len(FIGURES)
        sizes = {plain: (0, 0, 0), plain + CUBE_SUMS: (CUBE_SUMS, 0, 0),
                 plain + VR_SUMS: (0, VR_SUMS, 0), plain + CUBE_SUMS + VR_SUMS: (CUBE_SUMS, VR_SUMS, 0),
                 plain + VARIANT_SUMS: (0, 0, VARIANT_SUMS)}
        if len(values) not in sizes:
            raise ValueError(f"chunk {index}: expected one of {sorted(sizes)} numbers, got {len(values)}")
        n_cube, n_vr, n_variant = sizes[len(values)]
        games, *counts, plies_sum, plies_sumsq, truncated = (int(v) for v in values[:10])
        moments = tuple(float(v) for v in values[10:plain])
        cube = tuple(float(v) for v in values[plain:plain + n_cube]) or None
        vr = tuple(float(v) for v in values[plain + n_cube:plain + n_cube + n_vr]) or None
        variant = tuple(int(v) for v in values[len(values) - n_variant:]) if n_variant else None
        draws = variant[2] if variant else 0
        if sum(counts) + truncated + draws != games or min(
            games, plies_sum, plies_sumsq, truncated, *counts, *(variant or ())
        ) < 0:
            raise ValueError(f"chunk {index}: counts do not add up to its games")
        return cls(index, games, tuple(counts), plies_sum, plies_sumsq, truncated, moments, cube,  # type: ignore[arg-type]
                   vr, variant)  # type: ignore[arg-type]


def chunk_resources(chunk: RolloutChunk, load: bool = True) -> dict:
    """The bear-off tables and net the chunk's games need (see players.game_resources)."""
    if chunk.game >= 0:
        return {}  # the Plakoto / Fevga players need neither
    return game_resources((chunk.player0, chunk.player1), chunk.bearoff_play, chunk.truncate,
                          chunk.cache_dir, load=load,
                          net=chunk.vr or chunk.truncate_plies > 0, weights=chunk.net,
                          cubeful=_money_branches(chunk.cube_branches))


def _money_branches(branches: tuple[tuple, ...] | None) -> bool:
    """Cube branches of a money game (their away counts are 0), where the cubeful bear-off
    database applies."""
    return bool(branches) and branches[0][5] == 0  # type: ignore[index]


def prepare_chunk(chunk: RolloutChunk) -> None:
    """Build the bear-off databases the chunk's games need, if missing, without loading them
    (once per machine, before its workers start)."""
    chunk_resources(chunk, load=False)


def _variant_chunk_result(chunk: RolloutChunk, dice: np.ndarray | None) -> ChunkResult:
    """Play a Plakoto / Fevga chunk and fold its seven outcomes into a ChunkResult."""
    from ..variants.games import play_variant_trials

    board = np.frombuffer(chunk.board, dtype=np.int8).reshape(2, 26).copy()
    c, _ = play_variant_trials(board, chunk.pinned, chunk.game, chunk.variant_options,
                               chunk.n_games, (chunk.player0, chunk.player1), chunk.seed, dice)
    # win single, double, mother, lose single, double, mother, draw (variant_games.OUTCOMES)
    counts = (int(c[0]), int(c[1] + c[2]), 0, int(c[3]), int(c[4] + c[5]), 0)
    return ChunkResult(chunk.index, chunk.n_games, counts, int(c[7]), int(c[8]),
                       variant=(int(c[2]), int(c[5]), int(c[6])))


def run_chunk(chunk: RolloutChunk) -> ChunkResult:
    """Play the chunk's games with the C game loop (GIL released) and return its counts."""
    start = time.perf_counter()
    board = np.frombuffer(chunk.board, dtype=np.int8).reshape(2, 26).copy()
    first_dice = None
    if chunk.stratify:
        first_dice = stratified_dice(
            chunk.master_seed,
            chunk.first_trial,
            chunk.n_games,
            opening=chunk.first_roll_no_doubles and chunk.forced_dice is None,
            forced=chunk.forced_dice,
        )
    elif chunk.forced_dice is not None:
        first_dice = np.tile(np.asarray(chunk.forced_dice, dtype=np.int8), (chunk.n_games, 1))
    if chunk.game >= 0:
        result = _variant_chunk_result(chunk, first_dice)
        log.debug("chunk %d: %d games in %.3f s (pid %d)", chunk.index, chunk.n_games,
                  time.perf_counter() - start, os.getpid())
        return result
    resources = chunk_resources(chunk)
    if chunk.cube_branches:
        resources.update(cube_branches=chunk.cube_branches, met=branch_met(chunk.cube_branches),
                         cubeful_play=(chunk.cubeful_play, chunk.cubeful_play))
    vr = np.zeros(VR_SUMS) if chunk.vr else None
    counts, moments, *cube = _core.run_games(
        board,
        chunk.n_games,
        chunk.player0,
        chunk.player1,
        chunk.seed,
        chunk.first_roll_no_doubles,
        chunk.backgammons,
        first_dice,
        bearoff_play=chunk.bearoff_play,
        truncate=chunk.truncate,
        given_plies=1 if chunk.forced_dice is not None else 0,
        truncate_plies=chunk.truncate_plies,
        vr_moments=vr,
        filter_candidates=chunk.move_filter[0],
        filter_window=chunk.move_filter[1],
        **resources,
    )
    c = [int(v) for v in counts]
    result = ChunkResult(chunk.index, chunk.n_games, tuple(c[:6]), c[7], c[8], c[6],  # type: ignore[arg-type]
                         tuple(float(m) for m in moments),
                         tuple(float(v) for v in cube[0]) if cube else None,
                         tuple(float(v) for v in vr) if vr is not None else None)
    if sum(result.counts) + result.truncated != chunk.n_games:
        raise RuntimeError(f"chunk {chunk.index}: the core returned the wrong number of games")
    log.debug(
        "chunk %d: %d games in %.3f s (pid %d)",
        chunk.index, chunk.n_games, time.perf_counter() - start, os.getpid(),
    )
    return result


@dataclass(frozen=True)
class Totals:
    """Summed results of some chunks."""

    games: int = 0
    counts: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
    plies_sum: int = 0
    plies_sumsq: int = 0
    truncated: int = 0
    moments: tuple[float, ...] = (0.0,) * (2 * len(FIGURES))
    cube: tuple[float, ...] | None = None  # cubeful rollouts: the summed cube sums
    vr: tuple[float, ...] | None = None  # variance reduction: the summed luck-adjusted sums
    variant: tuple[int, ...] | None = None  # Plakoto / Fevga: mother wins, losses, draws

    def add(self, r: ChunkResult | "Totals") -> "Totals":
        if (self.cube is None) != (r.cube is None) and self.games and r.games:
            raise ValueError("cannot add cubeful and cubeless results")
        if (self.vr is None) != (r.vr is None) and self.games and r.games:
            raise ValueError("cannot add luck-adjusted and plain results")
        return Totals(
            self.games + r.games,
            tuple(a + b for a, b in zip(self.counts, r.counts)),
            self.plies_sum + r.plies_sum,
            self.plies_sumsq + r.plies_sumsq,
            self.truncated + r.truncated,
            tuple(a + b for a, b in zip(self.moments, r.moments)),  # type: ignore[arg-type]
            _add_sums(self.cube, r.cube),
            _add_sums(self.vr, r.vr),
            _add_sums(self.variant, r.variant),  # type: ignore[arg-type]
        )

    @property
    def best_moments(self) -> tuple[float, ...]:
        """The moments the stop rule and progress use: the luck-adjusted ones when present."""
        return self.vr if self.vr is not None else self.moments

    @property
    def equity(self) -> float:
        """The equity (luck-adjusted with variance reduction), for progress and the stop rule."""
        return figures_from_moments(self.best_moments, self.games)[0]["equity"] if self.games else math.nan

    def equity_se(self) -> float:
        return figures_from_moments(self.best_moments, self.games)[1]["equity"] if self.games else math.inf


def _add_sums(a: tuple[float, ...] | None, b: tuple[float, ...] | None) -> tuple[float, ...] | None:
    """Element-wise sum of two optional tuples of sums (None counts as absent)."""
    if a is None or b is None:
        return b if a is None else a
    return tuple(x + y for x, y in zip(a, b))


def merge(results: Iterable[ChunkResult]) -> Totals:
    """Sum chunk results in chunk order (the order is fixed so sums are reproducible)."""
    total = Totals()
    for r in sorted(results, key=lambda r: r.index):
        total = total.add(r)
    return total


def figures(t: Totals) -> tuple[dict[str, float], dict[str, float]]:
    """Each figure's mean over the games and its standard error (plug-in, games independent)."""
    return figures_from_moments(t.moments, t.games)


def figures_from_moments(moments: Sequence[float], n: int) -> tuple[dict[str, float], dict[str, float]]:
    """Means and standard errors of the FIGURES from their sums and sums of squares over n games."""
    k = len(FIGURES)
    value, se = {}, {}
    for i, name in enumerate(FIGURES):
        mean = float(moments[i]) / n
        value[name] = mean
        se[name] = math.sqrt(max(float(moments[k + i]) / n - mean * mean, 0.0) / n)
    return value, se


class Tally:
    """Chunk results by index, the contiguous prefix, and the deterministic ``target_se`` stop.

    The stop rule is checked only at chunk-order prefixes (chunks 0..k-1), in increasing k, so
    the rollout stops after the same chunks whatever order workers finish them in.
    """

    def __init__(self, n_chunks: int, target_se: float | None = None, min_trials: int = 0):
        self.n_chunks = n_chunks
        self.target_se = target_se
        self.min_trials = min_trials
        self.results: dict[int, ChunkResult] = {}
        self.prefix = 0  # chunks 0..prefix-1 are all done
        self.prefix_totals = Totals()
        self.stop_at: int | None = None  # the prefix length at which target_se was reached
        self._all = Totals()  # every completed chunk, in the order they arrived (progress only)

    def add(self, result: ChunkResult) -> None:
        if result.index in self.results:
            raise RuntimeError(f"chunk {result.index} counted twice")
        self.results[result.index] = result
        self._all = self._all.add(result)
        prefix, totals = self.prefix, self.prefix_totals
        while self.stop_at is None and prefix in self.results:
            totals = totals.add(self.results[prefix])
            prefix += 1
            if (
                self.target_se is not None
                and totals.games >= self.min_trials
                and totals.equity_se() < self.target_se
            ):
                self.stop_at = prefix
        self.prefix, self.prefix_totals = prefix, totals

    @property
    def done(self) -> bool:
        return self.stop_at is not None or self.prefix >= self.n_chunks

    def final(self) -> list[ChunkResult]:
        """The chunks that make up the result: the stop prefix if the stop rule fired, else all."""
        if self.stop_at is not None:
            return [self.results[i] for i in range(self.stop_at)]
        return [self.results[i] for i in sorted(self.results)]

    def current(self) -> Totals:
        """All completed chunks so far, summed as they arrived: for progress reports only (the
        result is always summed in chunk order). Kept up to date in ``add``, so a report costs
        the same at the 100,000th chunk as at the first."""
        return self._all


# ---------------------------------------------------------------------------------------------
# The request (validated arguments) and the plan
# ---------------------------------------------------------------------------------------------


def _context_notes(position: Position, cubeful: bool) -> list[str]:
    """What the position's context holds that a cubeless money rollout does not use."""
    notes = []
    context = position.context
    if cubeful:
        if context.match_length:
            notes.append(
                f"match to {context.match_length} at {context.score[0]}-{context.score[1]}"
                + (" (Crawford game)" if context.crawford else "")
                + ": the cubeful figures are match winning chances; the cubeless ones are money"
            )
        return notes
    if context.cube_value != 1:
        notes.append(f"cube value {context.cube_value} ignored: the rollout is cubeless (--cubeful uses it)")
    if context.match_length:
        notes.append(
            f"match to {context.match_length} ignored: equities are cubeless money (--cubeful gives "
            "match winning chances)"
        )
    return notes


@dataclass(frozen=True)
class RolloutRequest:
    """Everything that fixes a rollout's numbers (validated); jobs and progress are not here."""

    position: Position
    position_text: str  # how to rebuild it: its XGID when dice are rolled, else its Position ID
    board: bytes
    players: tuple[str, str]
    player_ids: tuple[int, int]
    rules: Rules
    seed: int
    trials: int
    chunk_size: int
    stratify: bool
    first_roll_no_doubles: bool
    forced_dice: tuple[int, int] | None
    target_se: float | None = None
    min_trials: int = 0
    notes: tuple[str, ...] = ()
    bearoff_play: bool = True
    truncate: bool = False
    cache_dir: str | None = None
    cube_branches: tuple[tuple, ...] | None = None  # cubeful: the branches' starting cubes
    max_cube: int = DEFAULT_MAX_CUBE
    vr: bool = False
    truncate_plies: int = 0
    move_filter: tuple[int, float] = DEFAULT_MOVE_FILTER
    game: str | None = None  # "plakoto" / "fevga"; None: Portes by ``rules``
    pinned: int = 0  # Plakoto: the pinned mask of the side on roll
    game_rules: tuple[str, ...] = ()  # Plakoto / Fevga: the options set (rules.game_rules)
    variant_options: int = 0  # ... as the core's option bits
    net: NetChoice | None = None  # the net the rollout uses (None: it uses none)

    @property
    def cubeful(self) -> bool:
        return self.cube_branches is not None

    @property
    def n_chunks(self) -> int:
        return parts(self.trials, self.chunk_size)

    @property
    def strata(self) -> tuple[int, ...]:
        """Numbers of strata of the stratified rolls (e.g. (15, 36) for the R5 opening)."""
        if not self.stratify:
            return ()
        opening = self.first_roll_no_doubles and self.forced_dice is None
        return (15 if opening else 36, 36)

    def identity(self) -> dict[str, Any]:
        """The parameters that must match for a checkpoint to be resumed."""
        return {
            "board": list(self.board),
            "forced_dice": list(self.forced_dice) if self.forced_dice else None,
            "players": list(self.players),
            "rules": self.rules.name,
            "seed": self.seed,
            "chunk_size": self.chunk_size,
            "stratify": self.stratify,
            "bearoff": self.bearoff_play,
            "truncate": self.truncate,
            # Only requests that use these carry them, so that older checkpoints still match.
            **({"cubeful": True, "max_cube": self.max_cube, "checker_play": "cubeful"}
               if self.cubeful else {}),
            **({"vr": True} if self.vr else {}),
            **({"truncate_plies": self.truncate_plies} if self.truncate_plies else {}),
            **({"move_filter": list(self.move_filter)}
               if tuple(self.move_filter) != DEFAULT_MOVE_FILTER else {}),
            **({"game": self.game} if self.game else {}),
            **({"game_rules": list(self.game_rules)} if self.game_rules else {}),
            **(self.net.checkpoint_keys()[0] if self.net else {}),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position_text,
            **self.identity(),
            "trials": self.trials,
            "target_se": self.target_se,
            "min_trials": self.min_trials,
            "cache_dir": self.cache_dir,
            **(self.net.checkpoint_keys()[1] if self.net else {}),
        }


def make_request(
    position: object = "start",
    trials: object = 10_000,
    players: object = None,
    seed: object = None,
    rules: object = "backgammon",
    stratify: bool = True,
    chunk_size: object = DEFAULT_CHUNK_SIZE,
    target_se: object = None,
    min_trials: object = None,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | os.PathLike | None = None,
    cubeful: bool = False,
    max_cube: object = DEFAULT_MAX_CUBE,
    game: object = None,
    game_rules: object = None,
    *,
    ply: object = None,
    vr: bool | None = None,
    truncate_plies: object = None,
    move_filter: object = None,
    weights: str | os.PathLike | None = None,
) -> RolloutRequest:
    """Validate the arguments of a rollout; raise ValueError / InvalidPositionError precisely.

    ``players``: None means pubeval for Portes and heuristic for Plakoto / Fevga.
    ``cubeful``: follow the doubling cube too (``cubeful.py``); games are then played to the
    end (no truncation), and ``max_cube`` caps the cube (R23: 64). ``game``: "plakoto" or
    "fevga" rolls out that game (``position``: "start", a text id or a position of it), by
    ``game_rules`` (a PlakotoRules / FevgaRules, or option names; None: the defaults).
    ``ply``, ``vr``, ``truncate_plies`` and ``move_filter`` are the expert settings of the
    neural players described in ``parallel.rollout`` (Plakoto and Fevga take ``ply`` only); ``weights``, a weights file for their
    net instead of the shipped one (ValueError if the rollout uses no net).
    """
    if game is None and game_rules is not None:
        raise ValueError("game_rules are the options of Plakoto or Fevga: give game too")
    if game is not None:
        given = [k for k, v in (("vr", vr), ("truncate_plies", truncate_plies),
                                ("move_filter", move_filter), ("weights", weights)) if v]
        if given:
            raise ValueError(f"{', '.join(given)}: settings of the Portes neural players, not "
                             f"of {game}'s")
        if ply is not None:  # the variants' neural players have the same two depths
            players = apply_ply(player_names(players if players is not None else "heuristic"), ply)
        return _variant_request(game, position, players, cubeful, game_rules,
                                make_request("start", trials, "pubeval", seed, rules, stratify,
                                             chunk_size, target_se, min_trials, False, False))
    if players is None:
        players = ("pubeval", "pubeval")
    pos, is_start = resolve_position(position)
    n = check_count(trials)
    names, ids = player_kinds(apply_ply(player_names(players), ply))
    rule_set = get_rules(rules)
    seed_value = check_seed(seed)
    size = check_count(chunk_size, "chunk_size")
    target = None
    if target_se is not None:
        if isinstance(target_se, bool) or not isinstance(target_se, Real):
            raise ValueError(f"target_se must be a positive number, got {target_se!r}")
        target = float(target_se)
        if not (target > 0 and math.isfinite(target)):
            raise ValueError(f"target_se must be a positive number, got {target_se!r}")
    minimum = min(n, 1296) if min_trials is None else check_count(min_trials, "min_trials", minimum=0)
    forced = pos.context.dice
    cap = check_max_cube(max_cube)
    if cubeful and not rule_set.cube:
        raise ValueError(f"the {rule_set.name} rules are played without the doubling cube: "
                         "a cubeful rollout needs the backgammon rules")
    branches = cube_branches(pos, cap) if cubeful else None
    notes = list(_context_notes(pos, bool(cubeful)))
    neural = needs_net(ids)
    use_vr = (neural and not cubeful) if vr is None else bool(vr)
    if use_vr and cubeful:
        notes.append("cubeful: only the cubeless figures are luck-adjusted, the cube figures are not")
    cut = check_truncate_plies(truncate_plies)
    if cut and cubeful:
        raise ValueError("truncate_plies cannot be combined with a cubeful rollout (the cube is "
                         "played to the end of the game)")
    if cut:
        notes.append(f"truncated after {cut} plies: the net's cubeless estimate is counted there "
                     "(fast but biased by the net's errors)")
    filt = check_move_filter(move_filter)
    net = choose_net(weights, needed=neural or use_vr or bool(cut))
    if branches is not None and truncate and not _money_branches(branches):
        truncate = False
        notes.append("cubeful in a match: games are played to the end (the cubeful bear-off "
                     "database is for money play)")
    elif branches is not None and truncate:
        notes.append("cubeful: games stop in the cubeful bear-off database and count its exact "
                     "equity there (perfect checker and cube play from then on)")
    if forced is not None:
        notes.insert(0, f"every trial's first roll is {forced[0]}-{forced[1]} (the dice in the position)")
    # The XGID keeps what the Position ID cannot: dice, cube and score.
    text = pos.xgid() if forced is not None or pos.context != GameContext() else pos.position_id()
    return RolloutRequest(
        position=pos,
        position_text=text,
        board=np.ascontiguousarray(pos.board, dtype=np.int8).tobytes(),
        players=names,
        player_ids=ids,
        rules=rule_set,
        seed=seed_value,
        trials=n,
        chunk_size=size,
        stratify=bool(stratify),
        first_roll_no_doubles=bool(rule_set.first_roll_no_doubles and is_start),
        forced_dice=forced,
        target_se=target,
        min_trials=minimum,
        notes=tuple(notes),
        bearoff_play=bool(bearoff),
        truncate=bool(truncate),
        cache_dir=None if cache_dir is None else os.fspath(cache_dir),
        cube_branches=branches,
        max_cube=cap,
        vr=use_vr,
        truncate_plies=cut,
        move_filter=filt,
        net=net,
    )


def _variant_request(game: object, position: object, players: object, cubeful: bool,
                     options: object, checked: RolloutRequest) -> RolloutRequest:
    """A Plakoto / Fevga request: ``checked`` holds the validated settings the games share
    with Portes (trials, seed, chunks, stratification, the stop rule)."""
    from ..variants.games import variant_player_ids
    from ..variants.position import GAMES, variant_position
    from ..rules import game_rules, option_names
    from ..variants.movegen import GAME_CODES, core_options, require_variant_in_progress

    if game not in GAME_CODES:
        raise ValueError(f"game must be one of {', '.join(GAMES)}, not {game!r}")
    if cubeful:
        raise ValueError(f"{game} is played without the doubling cube (T1): no cubeful rollout")
    if isinstance(position, str) and position.strip().lower() == "start":
        position = None
    pos = variant_position(str(game), position)  # type: ignore[arg-type]
    require_variant_in_progress(pos)
    chosen = game_rules(str(game), options)
    names, ids = variant_player_ids(str(game), players if players is not None else "heuristic")
    notes = ("the first roll may be a double (T3: the starter rolls both dice again)",) if (
        pos == type(pos).initial()) else ()
    if option_names(chosen):
        notes += (f"{game} options: {', '.join(option_names(chosen))}",)
    return replace(
        checked, position=pos, position_text=pos.variant_id(),  # type: ignore[arg-type]
        board=np.ascontiguousarray(pos.core_board(), dtype=np.int8).tobytes(),
        players=names, player_ids=ids, first_roll_no_doubles=False, forced_dice=None,
        notes=notes, bearoff_play=False, truncate=False, game=str(game), pinned=pos.pinned_mask(),
        game_rules=option_names(chosen), variant_options=core_options(str(game), chosen),
    )


def apply_ply(names: tuple[str, str], ply: object) -> tuple[str, str]:
    """The players' names with the neural players set to the search depth `ply`: None (as
    named), 0 or 1 for both sides, or a pair (the side on roll first).  A depth for a player
    that has no search (pubeval, ...) must be 0."""
    if ply is None:
        return names
    pair = (ply, ply) if not isinstance(ply, (tuple, list)) else tuple(ply)
    if len(pair) != 2:
        raise ValueError(f"ply must be 0, 1 or a pair of them, got {ply!r}")
    out = []
    for name, depth in zip(names, pair):
        if isinstance(depth, bool) or depth not in (0, 1):
            raise ValueError(f"ply must be 0 or 1, got {depth!r}")
        if name in ("neural", "neural-1ply"):
            out.append("neural-1ply" if depth == 1 else "neural")
        elif depth:
            raise ValueError(f"ply 1 is for the neural players; {name!r} has no search depth")
        else:
            out.append(name)
    return out[0], out[1]


def check_truncate_plies(value: object) -> int:
    """Plies after which each game stops (0 or None: played out)."""
    if value is None or value == 0:
        return 0
    return check_count(value, "truncate_plies")


def check_move_filter(value: object) -> tuple[int, float]:
    """The 1-ply move filter (candidates, window): at most `candidates` plays, 1 to
    MAX_FILTER_CANDIDATES, whose 0-ply equity is within `window` (>= 0) of the best play's.
    None gives DEFAULT_MOVE_FILTER."""
    if value is None:
        return DEFAULT_MOVE_FILTER
    try:
        count, window = value  # type: ignore[misc]
    except (TypeError, ValueError):
        raise ValueError(f"move_filter must be (candidates, window), got {value!r}") from None
    top = int(_core.MAX_FILTER_CANDIDATES)
    if isinstance(count, bool) or not isinstance(count, Integral) or not 1 <= int(count) <= top:
        raise ValueError(f"the move filter keeps 1 to {top} candidates, got {count!r}")
    if isinstance(window, bool) or not isinstance(window, Real) or not (
            float(window) >= 0 and math.isfinite(float(window))):
        raise ValueError(f"the move filter's window must be an equity >= 0, got {window!r}")
    return int(count), float(window)


def plan_chunks(request: RolloutRequest, done: Iterable[int] = ()) -> UnitPlan:
    """The chunks of the request not in ``done`` (their indices), in index order: made one
    at a time when asked for, so a plan of any size costs no memory."""
    return UnitPlan(MissingIndices(request.n_chunks, done), partial(make_chunk, request))


def make_chunk(request: RolloutRequest, c: int) -> RolloutChunk:
    """Chunk ``c`` of the request."""
    first = c * request.chunk_size
    return RolloutChunk(
        index=c,
        first_trial=first,
        n_games=chunk_games(request, c),
        board=request.board,
        player0=request.player_ids[0],
        player1=request.player_ids[1],
        seed=chunk_seed(request.seed, c),
        master_seed=request.seed,
        first_roll_no_doubles=request.first_roll_no_doubles,
        backgammons=bool(request.rules.backgammons),
        stratify=request.stratify,
        forced_dice=request.forced_dice,
        bearoff_play=request.bearoff_play,
        truncate=request.truncate,
        cache_dir=request.cache_dir,
        cube_branches=request.cube_branches,
        vr=request.vr,
        truncate_plies=request.truncate_plies,
        move_filter=request.move_filter,
        game=_game_code(request.game),
        pinned=request.pinned,
        variant_options=request.variant_options,
        net=request.net,
    )


def chunk_games(request: RolloutRequest, c: int) -> int | None:
    """The trials of chunk ``c`` of the request (None: the request has no such chunk)."""
    return part_size(request.trials, request.chunk_size, c)


def _game_code(game: str | None) -> int:
    """The core's number of a Plakoto / Fevga game; -1 for Portes."""
    from ..variants.movegen import GAME_CODES

    return -1 if game is None else GAME_CODES[game]


# ---------------------------------------------------------------------------------------------
# The job kind: plan, merge, progress and checkpoints (the driver runs it; see driver.Job)
# ---------------------------------------------------------------------------------------------

CHECKPOINT_FORMAT = "tavli_fast rollout checkpoint"
CHECKPOINT_VERSION = 1


#: The settings a checkpoint's request must hold to be resumed.
_REQUEST_KEYS = ("position", "trials", "players", "seed", "rules", "stratify", "chunk_size")


def read_checkpoint(path: str | os.PathLike) -> dict[str, Any]:
    """Load and check a rollout checkpoint; ValueError if it is not one."""
    return _read_checkpoint(path, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, "rollout",
                            {"request": dict, "chunks": dict}, _REQUEST_KEYS)


def request_from_checkpoint(doc: dict[str, Any], **overrides: Any) -> RolloutRequest:
    """The request saved in a checkpoint document, with the given settings replaced (None: kept)."""
    req = doc["request"]
    args = dict(
        position=req["position"],
        trials=req["trials"],
        players=tuple(req["players"]),
        seed=req["seed"],
        rules=req["rules"],
        stratify=req["stratify"],
        bearoff=req.get("bearoff", True),
        truncate=req.get("truncate", True),
        cache_dir=req.get("cache_dir"),
        chunk_size=req["chunk_size"],
        target_se=req.get("target_se"),
        min_trials=req.get("min_trials"),
        cubeful=req.get("cubeful", False),
        max_cube=req.get("max_cube", DEFAULT_MAX_CUBE),
        vr=req.get("vr", False),  # checkpoints from before variance reduction have none
        truncate_plies=req.get("truncate_plies", 0),
        move_filter=req.get("move_filter"),
        game=req.get("game"),
        game_rules=req.get("game_rules"),
        weights=req.get("weights"),
    )
    args.update({k: v for k, v in overrides.items() if v is not None})
    return make_request(**args)


def _completed_from_checkpoint(
    doc: dict[str, Any], request: RolloutRequest, path: str
) -> list[ChunkResult]:
    """Chunk results of the checkpoint that belong to ``request``'s plan (by index and size)."""
    if doc["request"].get("board") != request.identity()["board"]:
        raise ValueError(f"checkpoint {path} is for another position")
    mine = request.identity()
    # Keys that only some requests carry must match when either side has them.
    mine.update({k: None for k in _OPTIONAL_KEYS if k in doc["request"] and k not in mine})
    return completed_units(doc, mine, partial(chunk_games, request), ChunkResult.from_list,
                           lambda r: r.games, path)


#: Identity keys that only some requests carry (so that older checkpoints still match).
_OPTIONAL_KEYS = ("cubeful", "max_cube", "vr", "truncate_plies", "move_filter", "game", "game_rules",
                  "weights_sha256")


class RolloutJob:
    """A rollout as a job of the driver: one round of chunks, merged by ``Tally``.

    ``completed``: chunk results already done (from a checkpoint); their chunks are not planned.
    """

    worker = staticmethod(run_chunk)

    def __init__(self, request: RolloutRequest, completed: Iterable[ChunkResult] = ()):
        self.request = request
        self.tally = Tally(request.n_chunks, request.target_se, request.min_trials)
        for r in sorted(completed, key=lambda r: r.index):
            self.tally.add(r)
        self.resumed_games = sum(r.games for r in self.tally.results.values())
        self._planned = False

    @classmethod
    def from_checkpoint(cls, doc: dict[str, Any], request: RolloutRequest, path: str) -> "RolloutJob":
        """The job of ``request`` with the matching chunks of checkpoint ``doc`` done already;
        ValueError if the checkpoint is for another rollout."""
        return cls(request, _completed_from_checkpoint(doc, request, path))

    def plan(self) -> Sequence[RolloutChunk]:
        if self._planned:
            return ()
        self._planned = True
        return plan_chunks(self.request, done=self.tally.results)

    def add(self, result: ChunkResult) -> None:
        self.tally.add(result)

    @property
    def done(self) -> bool:
        return self.tally.done

    prepare = staticmethod(prepare_chunk)

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        current = self.tally.current()
        rate = (current.games - self.resumed_games) / session_s if session_s > 0 else 0.0
        left = 0 if self.tally.stop_at is not None else self.request.trials - current.games
        return RolloutProgress(
            trials_done=current.games,
            trials_total=self.request.trials,
            elapsed_s=elapsed_s,
            games_per_second=rate,
            equity=current.equity if current.games else float("nan"),
            equity_se=current.equity_se(),
            eta_s=left / rate if rate > 0 else float("inf"),
        )

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        results = self.tally.results
        return {
            "format": CHECKPOINT_FORMAT,
            "version": CHECKPOINT_VERSION,
            "request": self.request.to_dict(),
            "elapsed_s": elapsed_s,
            "chunks": {str(i): results[i].to_list() for i in sorted(results)},
        }
