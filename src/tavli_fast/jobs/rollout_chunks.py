"""The work units of a rollout: ``RolloutChunk`` (plain picklable data in), ``run_chunk``
(plays its games in the compiled core) and ``ChunkResult`` (plain numbers out), and how
results are merged (``Totals``, ``Tally``, ``figures``).

Any executor that can call ``run_chunk`` (a process pool, Dask) can run a rollout. Chunk
``c`` is seeded with ``SeedSequence(master_seed, spawn_key=(c,))`` and the stratified first
rolls depend only on the master seed and the global trial index, so the merged numbers
(merged in chunk order) do not depend on how many processes ran the chunks, nor in which
order they finished. All figures are for the player on roll in the rolled-out position
("player 0"). A Plakoto or Fevga chunk plays the variants' games
(``variants.games.play_variant_trials``) and fills the same counts (a 2-point win counts
as a gammon, no backgammons); ``ChunkResult.variant`` adds the mother-rule wins and losses
(P5) and the draws (P6).
"""

from __future__ import annotations

import logging
import math
import os
import time
from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from .. import _core
from ..play.match_bearoff import solved_region
from ..play.players import game_resources
from .cubeful import branch_met
from ..play.neural import NetChoice
from .stratify import stratified_dice
from ..variants.games import play_variant_trials

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
#: The 1-ply look-ahead's pre-filter of replies by default (the core's: the best 8 of a roll by
#: the pruning net, issue 54), and the exact search (every reply valued by the net).
DEFAULT_REPLY_FILTER: tuple[int, float] = (int(_core.REPLY_FILTER[0]), float(_core.REPLY_FILTER[1]))
EXACT_REPLIES: tuple[int, float] = (0, 0.0)

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
    reply_filter: tuple[int, float] = DEFAULT_REPLY_FILTER  # their replies' pre-filter (keep, margin)
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
                          cubeful=money_branches(chunk.cube_branches))


def money_branches(branches: tuple[tuple, ...] | None) -> bool:
    """Cube branches of a money game (their away counts are 0), where the cubeful bear-off
    database applies."""
    return bool(branches) and branches[0][5] == 0  # type: ignore[index]


def prepare_chunk(chunk: RolloutChunk) -> None:
    """Build the bear-off databases the chunk's games need, if missing, without loading them
    (once per machine, before its workers start)."""
    chunk_resources(chunk, load=False)


def _variant_chunk_result(chunk: RolloutChunk, dice: np.ndarray | None,
                          control: np.ndarray | None) -> ChunkResult:
    """Play a Plakoto / Fevga chunk and fold its seven outcomes into a ChunkResult."""
    board = np.frombuffer(chunk.board, dtype=np.int8).reshape(2, 26).copy()
    c, _ = play_variant_trials(board, chunk.pinned, chunk.game, chunk.variant_options,
                               chunk.n_games, (chunk.player0, chunk.player1), chunk.seed, dice,
                               net=chunk.net, control=control)
    # win single, double, mother, lose single, double, mother, draw (variant_games.OUTCOMES)
    counts = (int(c[0]), int(c[1] + c[2]), 0, int(c[3]), int(c[4] + c[5]), 0)
    return ChunkResult(chunk.index, int(c[:7].sum()), counts, int(c[7]), int(c[8]),
                       variant=(int(c[2]), int(c[5]), int(c[6])))


def run_chunk(chunk: RolloutChunk, control: np.ndarray | None = None) -> ChunkResult:
    """Play the chunk's games with the C game loop (GIL released) and return its counts.

    ``control``: the unit's control words (``run/control.py``): once the run's stop flag is
    up, the games stop and the result holds those played (``games`` < ``n_games``)."""
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
        result = _variant_chunk_result(chunk, first_dice, control)
        log.debug("chunk %d: %d games in %.3f s (pid %d)", chunk.index, chunk.n_games,
                  time.perf_counter() - start, os.getpid())
        return result
    resources = chunk_resources(chunk)
    if chunk.cube_branches:
        resources.update(cube_branches=chunk.cube_branches, met=branch_met(chunk.cube_branches),
                         cubeful_play=(chunk.cubeful_play, chunk.cubeful_play))
        if resources.get("bearoff") is not None and not money_branches(chunk.cube_branches):
            # A match: the bear-off region solved at its score, once per process (the
            # players' cube there, and where games truncate).
            value, owner, cap, _, _, away_me, away_opp, crawford = chunk.cube_branches[0]
            resources["match_region"] = solved_region(value, owner, cap, away_me, away_opp,
                                                      crawford, cache_dir=chunk.cache_dir)
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
        reply_filter=chunk.reply_filter,
        control=control,
        **resources,
    )
    c = [int(v) for v in counts]
    played = sum(c[:7])
    stopped = control is not None and bool(control[0])
    result = ChunkResult(chunk.index, played, tuple(c[:6]), c[7], c[8], c[6],  # type: ignore[arg-type]
                         tuple(float(m) for m in moments),
                         tuple(float(v) for v in cube[0]) if cube else None,
                         tuple(float(v) for v in vr) if vr is not None else None)
    if played != chunk.n_games and not stopped:
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
        self.partial: dict[int, ChunkResult] = {}  # chunks cut short by a stop (reported only)

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

    def add_partial(self, result: ChunkResult) -> None:
        """A chunk cut short by a stop: its games count in the (interrupted) result, but not
        in the stop rule, nor in the checkpoint (``results`` holds whole chunks only)."""
        if result.index in self.results or result.index in self.partial:
            raise RuntimeError(f"chunk {result.index} counted twice")
        if result.games:
            self.partial[result.index] = result
            self._all = self._all.add(result)

    def final(self) -> list[ChunkResult]:
        """The chunks that make up the result: the stop prefix if the stop rule fired, else all
        (those cut short by a stop included)."""
        if self.stop_at is not None:
            return [self.results[i] for i in range(self.stop_at)]
        every = {**self.results, **self.partial}
        return [every[i] for i in sorted(every)]

    def current(self) -> Totals:
        """All completed chunks so far, summed as they arrived: for progress reports only (the
        result is always summed in chunk order). Kept up to date in ``add``, so a report costs
        the same at the 100,000th chunk as at the first."""
        return self._all
