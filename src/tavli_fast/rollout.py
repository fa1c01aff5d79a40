"""Rollouts as chunks of trials: plan, run one chunk, merge, report with standard errors.

This module knows nothing of processes (see ``parallel.py`` for the pool). The unit of work is
the ``RolloutChunk``: plain picklable data in, a ``ChunkResult`` of plain ints out, so any
backend that can call ``run_chunk`` (a process pool, Dask, Ray) can run a rollout.

Reproducibility: a rollout of ``trials`` games is cut into chunks of ``chunk_size`` trials
(chunk ``c`` holds the global trials ``c*chunk_size ...``). Chunk ``c`` is seeded with
``SeedSequence(master_seed, spawn_key=(c,))`` and the stratified first rolls depend only on the
master seed and the global trial index, so the merged numbers (merged in chunk order) do not
depend on how many processes ran the chunks, nor in which order they finished.

All figures are for the player on roll in the rolled-out position ("player 0").
"""

from __future__ import annotations

import json
import logging
import math
import os
import time
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, Iterable, Sequence

import numpy as np

from . import _core

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "OPENING_ROLLS",
    "ALL_ROLLS",
    "RolloutChunk",
    "ChunkResult",
    "RolloutRequest",
    "RolloutResult",
    "Tally",
    "make_request",
    "plan_chunks",
    "run_chunk",
    "merge",
    "stratified_dice",
    "chunk_seed",
]

log = logging.getLogger(__name__)

#: Trials per chunk; fixed independently of the number of jobs (so results do not depend on it).
DEFAULT_CHUNK_SIZE = 10_000

#: The 15 opening rolls of R5 (no doubles), each with probability 1/15. Order does not matter.
OPENING_ROLLS: tuple[tuple[int, int], ...] = tuple(
    (high, low) for high in range(6, 0, -1) for low in range(high - 1, 0, -1)
)
#: The 36 equally likely ordered rolls of two dice.
ALL_ROLLS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, 7))

#: How many rolls after the forced ones (if any) are stratified: the first two, as in GNU Backgammon.
STRATIFIED_ROLLS = 2

# Entropy word that separates the stratification permutations from the chunk seeds.
_STRATA_DOMAIN = 0x5354524154  # "STRAT"

# Outcome indices of _core.run_games' result (exclusive outcomes for player 0).
WIN_SINGLE, WIN_GAMMON, WIN_BACKGAMMON, LOSE_SINGLE, LOSE_GAMMON, LOSE_BACKGAMMON = range(6)
_OUTCOME_VALUES = (1, 2, 3, -1, -2, -3)

FIGURES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon", "equity")


def chunk_seed(master_seed: int, index: int) -> int:
    """The 64-bit seed of chunk ``index`` of a rollout with ``master_seed``."""
    ss = np.random.SeedSequence(master_seed, spawn_key=(index,))
    return int(ss.generate_state(1, np.uint64)[0])


def new_master_seed() -> int:
    """A fresh random 63-bit master seed (reported with the result, so the run can be repeated)."""
    return int.from_bytes(os.urandom(8), "little") >> 1


# ---------------------------------------------------------------------------------------------
# Stratified (quasi-random) first rolls
# ---------------------------------------------------------------------------------------------


def _strata_tables(master_seed: int, first_strata: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Random permutations (fixed by the master seed) that map trial indices to strata.

    Returns (perm1 over the first roll's strata, offsets of the second roll per first stratum,
    perm2 over the 36 second-roll strata).
    """
    rng = np.random.default_rng(np.random.SeedSequence([master_seed, _STRATA_DOMAIN]))
    perm1 = rng.permutation(first_strata)
    offsets = rng.permutation(36)[:first_strata]
    perm2 = rng.permutation(36)
    return perm1, offsets, perm2


def stratified_dice(
    master_seed: int,
    first_trial: int,
    n: int,
    *,
    opening: bool = False,
    forced: tuple[int, int] | None = None,
) -> np.ndarray:
    """The forced dice (int8 ``[n, 2*k]``) of global trials ``first_trial ... first_trial+n-1``.

    The first stratified roll of trial ``t`` comes from stratum ``t mod S1`` (S1 = 15 opening
    rolls when ``opening``, else the 36 ordered rolls), the second from stratum
    ``(t // S1 + offset[t mod S1]) mod 36``, both through permutations fixed by the master seed.
    So every aligned block of S1 trials plays each first roll exactly once, and every aligned
    block of S1 x 36 trials plays each (first, second) pair exactly once. Each single trial's
    dice are still uniformly distributed over the master seed, so the estimate is unbiased for
    any number of trials. ``forced`` (dice already rolled in the position) fills the first
    column pair of every row; the two rolls after it are stratified.
    """
    first_rolls = OPENING_ROLLS if opening else ALL_ROLLS
    s1 = len(first_rolls)
    perm1, offsets, perm2 = _strata_tables(master_seed, s1)
    t = np.arange(first_trial, first_trial + n, dtype=np.int64)
    a = t % s1
    first = np.asarray(first_rolls, dtype=np.int8)[perm1[a]]
    second = np.asarray(ALL_ROLLS, dtype=np.int8)[perm2[(t // s1 + offsets[a]) % 36]]
    parts = [first, second]
    if forced is not None:
        parts.insert(0, np.tile(np.asarray(forced, dtype=np.int8), (n, 1)))
    return np.ascontiguousarray(np.concatenate(parts, axis=1), dtype=np.int8)


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


@dataclass(frozen=True)
class ChunkResult:
    """Counts of one chunk, as plain ints (outcomes for the player on roll)."""

    index: int
    games: int
    counts: tuple[int, int, int, int, int, int]  # win s/g/bg, lose s/g/bg (exclusive)
    plies_sum: int
    plies_sumsq: int

    def to_list(self) -> list[int]:
        return [self.games, *self.counts, self.plies_sum, self.plies_sumsq]

    @classmethod
    def from_list(cls, index: int, values: Sequence[int]) -> "ChunkResult":
        values = [int(v) for v in values]
        if len(values) != 9:
            raise ValueError(f"chunk {index}: expected 9 numbers, got {len(values)}")
        games, *counts, plies_sum, plies_sumsq = values
        if sum(counts) != games or min(values) < 0:
            raise ValueError(f"chunk {index}: counts do not add up to its games")
        return cls(index, games, tuple(counts), plies_sum, plies_sumsq)  # type: ignore[arg-type]


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
    totals = _core.run_games(
        board,
        chunk.n_games,
        chunk.player0,
        chunk.player1,
        chunk.seed,
        chunk.first_roll_no_doubles,
        chunk.backgammons,
        first_dice,
    )
    values = [int(v) for v in totals]
    result = ChunkResult(chunk.index, chunk.n_games, tuple(values[:6]), values[6], values[7])  # type: ignore[arg-type]
    if sum(result.counts) != chunk.n_games:
        raise RuntimeError(f"chunk {chunk.index}: the core returned {sum(result.counts)} games")
    log.debug(
        "chunk %d: %d games in %.3f s (pid %d)",
        chunk.index, chunk.n_games, time.perf_counter() - start, os.getpid(),
    )
    return result


@dataclass(frozen=True)
class Totals:
    """Summed counts of some chunks."""

    games: int = 0
    counts: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
    plies_sum: int = 0
    plies_sumsq: int = 0

    def add(self, r: ChunkResult | "Totals") -> "Totals":
        return Totals(
            self.games + r.games,
            tuple(a + b for a, b in zip(self.counts, r.counts)),
            self.plies_sum + r.plies_sum,
            self.plies_sumsq + r.plies_sumsq,
        )

    @property
    def equity(self) -> float:
        return _figures(self)[0]["equity"] if self.games else math.nan

    def equity_se(self) -> float:
        return _figures(self)[1]["equity"] if self.games else math.inf


def merge(results: Iterable[ChunkResult]) -> Totals:
    """Sum chunk results in chunk order (the order is fixed so sums are reproducible)."""
    total = Totals()
    for r in sorted(results, key=lambda r: r.index):
        total = total.add(r)
    return total


def _figures(t: Totals) -> tuple[dict[str, float], dict[str, float]]:
    """Figures and their standard errors from multinomial counts (plug-in estimates)."""
    n = t.games
    c = t.counts
    p = {
        "win": (c[WIN_SINGLE] + c[WIN_GAMMON] + c[WIN_BACKGAMMON]) / n,
        "win_gammon": (c[WIN_GAMMON] + c[WIN_BACKGAMMON]) / n,
        "win_backgammon": c[WIN_BACKGAMMON] / n,
        "lose_gammon": (c[LOSE_GAMMON] + c[LOSE_BACKGAMMON]) / n,
        "lose_backgammon": c[LOSE_BACKGAMMON] / n,
    }
    se = {k: math.sqrt(max(v * (1.0 - v), 0.0) / n) for k, v in p.items()}
    mean = sum(v * k for v, k in zip(_OUTCOME_VALUES, c)) / n
    mean_sq = sum(v * v * k for v, k in zip(_OUTCOME_VALUES, c)) / n
    p["equity"] = mean
    se["equity"] = math.sqrt(max(mean_sq - mean * mean, 0.0) / n)
    return p, se


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

    def add(self, result: ChunkResult) -> None:
        if result.index in self.results:
            raise RuntimeError(f"chunk {result.index} counted twice")
        self.results[result.index] = result
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
        """All completed chunks so far (for progress reports)."""
        return merge(self.results.values())


# ---------------------------------------------------------------------------------------------
# The request (validated arguments) and the plan
# ---------------------------------------------------------------------------------------------


def _as_trials(trials: object, name: str = "trials") -> int:
    if isinstance(trials, bool) or not isinstance(trials, Real):
        raise ValueError(f"{name} must be a positive whole number, got {trials!r}")
    if isinstance(trials, Integral):
        value = int(trials)
    else:
        f = float(trials)
        if not math.isfinite(f) or f != int(f):
            raise ValueError(f"{name} must be a positive whole number, got {trials!r}")
        value = int(f)
    if value <= 0:
        raise ValueError(f"{name} must be positive, got {value}")
    return value


def _player_names(players: object) -> tuple[str, str]:
    if isinstance(players, str):
        parts = [p.strip() for p in players.split(",")]
        if len(parts) == 1:
            parts = parts * 2
    else:
        try:
            parts = [str(p).strip() for p in players]  # type: ignore[union-attr]
        except TypeError:
            raise ValueError(f"players must be two player names, got {players!r}") from None
    if len(parts) != 2 or not all(parts):
        raise ValueError(f"players must be two player names, got {players!r}")
    return parts[0], parts[1]


def _context_dice(position: Any) -> tuple[int, int] | None:
    """Dice already rolled in the position (from an XGID), or None."""
    context = getattr(position, "context", None)
    dice = getattr(context, "dice", None) if context is not None else None
    if not dice:
        return None
    d1, d2 = (int(d) for d in dice)
    if d1 == 0 and d2 == 0:
        return None
    return d1, d2


def _context_notes(position: Any) -> list[str]:
    """What the position's context holds that a cubeless money rollout does not use."""
    notes = []
    context = getattr(position, "context", None)
    if context is None:
        return notes
    cube = getattr(context, "cube_value", 1)
    if cube not in (None, 1):
        notes.append(f"cube value {cube} ignored: the rollout is cubeless (money, 1 point)")
    match_length = getattr(context, "match_length", 0)
    if match_length:
        notes.append(
            f"match to {match_length} ignored: equities are cubeless money, not match equities"
        )
    return notes


@dataclass(frozen=True)
class RolloutRequest:
    """Everything that fixes a rollout's numbers (validated); jobs and progress are not here."""

    position: Any  # a tavli_fast.position.Position
    position_text: str  # how to rebuild it: its XGID when dice are rolled, else its Position ID
    board: bytes
    players: tuple[str, str]
    player_ids: tuple[int, int]
    rules: Any  # a tavli_fast.rules.Rules
    seed: int
    trials: int
    chunk_size: int
    stratify: bool
    first_roll_no_doubles: bool
    forced_dice: tuple[int, int] | None
    target_se: float | None = None
    min_trials: int = 0
    notes: tuple[str, ...] = ()

    @property
    def n_chunks(self) -> int:
        return -(-self.trials // self.chunk_size)

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
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position_text,
            **self.identity(),
            "trials": self.trials,
            "target_se": self.target_se,
            "min_trials": self.min_trials,
        }


def _load_position(position: object) -> Any:
    from .position import Position

    if isinstance(position, Position):
        return position
    if isinstance(position, str):
        text = position.strip()
        if text.lower() == "start":
            return Position.initial()
        return Position.from_id(text)
    raise TypeError(
        f"position must be 'start', a Position ID, an XGID or a Position, got {type(position).__name__}"
    )


def make_request(
    position: object = "start",
    trials: object = 10_000,
    players: object = ("pubeval", "pubeval"),
    seed: object = None,
    rules: object = "backgammon",
    stratify: bool = True,
    chunk_size: object = DEFAULT_CHUNK_SIZE,
    target_se: object = None,
    min_trials: object = None,
) -> RolloutRequest:
    """Validate the arguments of a rollout; raise ValueError / InvalidPositionError precisely."""
    from .errors import InvalidPositionError
    from .players import player_id
    from .position import Position
    from .rules import Rules, get_rules

    pos = _load_position(position)
    board = np.ascontiguousarray(pos.board, dtype=np.int8)
    if board[0, 0] == 15 or board[1, 0] == 15:
        raise InvalidPositionError("the game is already over in this position (15 checkers off)")
    n = _as_trials(trials)
    names = _player_names(players)
    ids = (player_id(names[0]), player_id(names[1]))
    rule_set = rules if isinstance(rules, Rules) else get_rules(str(rules))
    if seed is None:
        seed_value = new_master_seed()
    else:
        if isinstance(seed, bool) or not isinstance(seed, Integral) or not 0 <= int(seed) < 2**64:
            raise ValueError(f"seed must be a whole number from 0 to 2**64-1, got {seed!r}")
        seed_value = int(seed)
    size = _as_trials(chunk_size, "chunk_size")
    target = None
    if target_se is not None:
        if isinstance(target_se, bool) or not isinstance(target_se, Real):
            raise ValueError(f"target_se must be a positive number, got {target_se!r}")
        target = float(target_se)
        if not (target > 0 and math.isfinite(target)):
            raise ValueError(f"target_se must be a positive number, got {target_se!r}")
    if min_trials is None:
        minimum = min(n, 1296)
    else:
        minimum = int(min_trials) if isinstance(min_trials, Integral) else _as_trials(min_trials, "min_trials")
        if minimum < 0:
            raise ValueError(f"min_trials must be >= 0, got {min_trials!r}")
    forced = _context_dice(pos)
    is_start = bool(np.array_equal(board, Position.initial().board))
    notes = list(_context_notes(pos))
    if forced is not None:
        notes.insert(0, f"every trial's first roll is {forced[0]}-{forced[1]} (the dice in the position)")
        text = pos.xgid()
    else:
        text = pos.position_id()
    return RolloutRequest(
        position=pos,
        position_text=text,
        board=board.tobytes(),
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
    )


def plan_chunks(request: RolloutRequest) -> list[RolloutChunk]:
    """All chunks of the request, in index order."""
    chunks = []
    for c in range(request.n_chunks):
        first = c * request.chunk_size
        chunks.append(
            RolloutChunk(
                index=c,
                first_trial=first,
                n_games=min(request.chunk_size, request.trials - first),
                board=request.board,
                player0=request.player_ids[0],
                player1=request.player_ids[1],
                seed=chunk_seed(request.seed, c),
                master_seed=request.seed,
                first_roll_no_doubles=request.first_roll_no_doubles,
                backgammons=bool(request.rules.backgammons),
                stratify=request.stratify,
                forced_dice=request.forced_dice,
            )
        )
    return chunks


# ---------------------------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------------------------

_LABELS = {
    "win": "win",
    "win_gammon": "win gammon",
    "win_backgammon": "win backgammon",
    "lose_gammon": "lose gammon",
    "lose_backgammon": "lose backgammon",
    "equity": "equity (cubeless)",
}


@dataclass
class RolloutResult:
    """Outcome of a rollout, for the player on roll; gammon figures include backgammons.

    Standard errors are the plug-in estimates from the multinomial counts, treating trials as
    independent; with stratified first rolls the true error is a little smaller (conservative).
    """

    position: Any
    position_id: str
    players: tuple[str, str]
    rules: str
    trials_requested: int
    games: int
    counts: tuple[int, ...]
    plies_sum: int
    plies_sumsq: int
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
    _figures: tuple[dict[str, float], dict[str, float]] | None = field(
        default=None, repr=False, compare=False
    )

    def _fig(self) -> tuple[dict[str, float], dict[str, float]]:
        if self.games == 0:
            nan = {k: math.nan for k in FIGURES}
            return nan, dict(nan)
        if self._figures is None:
            self._figures = _figures(Totals(self.games, self.counts, self.plies_sum, self.plies_sumsq))
        return self._figures

    # Figures --------------------------------------------------------------------------------
    @property
    def win(self) -> float:
        return self._fig()[0]["win"]

    @property
    def lose(self) -> float:
        return 1.0 - self.win

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
            "counts": dict(
                zip(
                    ("win_single", "win_gammon", "win_backgammon",
                     "lose_single", "lose_gammon", "lose_backgammon"),
                    self.counts,
                )
            ),
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
            + f", {self.players[0]} (on roll) vs {self.players[1]}, rules {self.rules}, seed {self.seed}"
        )
        if self.stratified:
            lines.append("Stratified dice for the first rolls (" + " x ".join(map(str, self.strata)) + " strata)")
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
        lines.append(f"{'':<18} {'value':>8} {'SE':>8}   95% CI")
        for k in FIGURES:
            lo, hi = self.confidence_interval(k)
            sign = "+" if k == "equity" else ""
            lines.append(
                f"{_LABELS[k]:<18} {fig[k]:{sign}8.4f} {se[k]:8.4f}   [{lo:{sign}.4f}, {hi:{sign}.4f}]"
            )
        lines.append("")
        lines.append(f"Game length: {self.mean_plies:.2f} plies on average (sd {self.std_plies:.2f})")
        lines.append(
            f"{self.elapsed_s:.2f} s, {self.games_per_second:,.0f} games/s, {self.jobs} job(s)"
            + (f", {self.worker_restarts} worker restart(s)" if self.worker_restarts else "")
        )
        return "\n".join(lines)


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
) -> RolloutResult:
    t = merge(results)
    return RolloutResult(
        position=request.position,
        position_id=request.position.position_id(),
        xgid=request.position_text if request.forced_dice else None,
        players=request.players,
        rules=request.rules.name,
        trials_requested=request.trials,
        games=t.games,
        counts=tuple(t.counts),
        plies_sum=t.plies_sum,
        plies_sumsq=t.plies_sumsq,
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
        notes=request.notes,
        checkpoint=checkpoint,
    )
