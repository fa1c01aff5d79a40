"""Candidate plays on common dice: the unit of work and the merged state of the jobs that
compare plays (the openings, ``openings.py``; the plays of any roll, ``plays.py``).

A unit is one chunk of trials for some candidate plays of one roll. Each candidate is the
position after its play, sides switched: the opponent of the mover is on roll (player 0 of
the core's games) and the mover is player 1. Every figure is turned back to the mover's view
(his win is the opponent's loss, gammons swap, equity negated).

Common random numbers: every candidate of a unit is played on the same dice. Trial ``t`` of
each uses the same chunk seed, the same stratified first two rolls of the opponent and the
same forced dice for its first ``FORCED_ROLLS`` turns (so in practice every game is played
on identical dice). The per-trial results of the candidates are then strongly correlated,
and the difference between two plays computed trial by trial (a paired difference) has a far
smaller standard error than either play's result.

With the cube (``CandidateUnit.cube``) each candidate's games follow that cube from the
opponent's first turn on (he may double before his first roll), the neural players pick
their plays by cubeful equity (``cubeful_play``), and the score compared is each trial's
cubeful result for the mover (money: points per unit of the cube; match: his match winning
chance), not luck-adjusted. Without it the score is the cubeless equity (luck-adjusted with
``vr``).
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .. import _core
from ..play.neural import NetChoice
from ..play.match_bearoff import solved_region
from ..play.players import game_resources
from ..variants.games import play_variant_trials
from .cubeful import branch_met
from .rollout_chunks import DEFAULT_REPLY_FILTER, FIGURES, chunk_seed, figures_from_moments
from .rollout_request import saved_identity
from .stratify import stratified_dice

__all__ = [
    "FORCED_ROLLS",
    "CandidateUnit",
    "UnitResult",
    "CandidateTally",
    "check_same_run",
    "common_dice",
    "run_unit",
    "prepare_unit",
    "unit_resources",
]

log = logging.getLogger(__name__)

_K = len(FIGURES)
_EQ = FIGURES.index("equity")

#: Turns whose dice are fixed per trial (identical for every candidate play): the common dice.
#: Games from the start last about 61 +- 18 turns, so 200 covers practically every game.
FORCED_ROLLS = 200


@dataclass(frozen=True)
class CandidateUnit:
    """One roll x one chunk of trials, for some of the roll's candidate plays: plain data."""

    roll_index: int  # index of the roll in the request
    chunk: int
    first_trial: int
    n_games: int
    candidates: tuple[int, ...]  # indices of the plays in the roll's list
    boards: tuple[bytes, ...]  # their positions after the play, sides switched
    roll_seed: int
    player_on_roll: int  # the opponent of the mover: on roll in the rolled-out positions
    first_mover: int  # the mover (named for the openings, where he moved first)
    backgammons: bool
    stratify: bool
    bearoff_play: bool
    truncate: bool
    cache_dir: str | None
    reply: tuple[int, int] | None = None  # the opponent's first roll, forced (reply statistics)
    vr: bool = False  # luck-adjusted figures
    game: int = -1  # Portes (-1), or the core's Plakoto / Fevga number
    pinned: tuple[int, ...] = ()  # Plakoto: the pinned mask of the side on roll, per board
    variant_options: int = 0  # Plakoto / Fevga: the core's option bits
    net: NetChoice | None = None  # the net of the neural players and vr (None: the shipped one)
    cube: tuple | None = None  # with the cube: the kernels' cube tuple seen by the side on roll
    cubeful_play: bool = True  # with the cube: the 0-ply neural players play by cubeful equity
    # Portes: the 1-ply players' pre-filter of replies (keep, margin); the variants have none.
    reply_filter: tuple[int, float] = DEFAULT_REPLY_FILTER


@dataclass(frozen=True)
class UnitResult:
    """What one unit produced, for the mover: plain numbers.

    ``moments[i]``: the sums, then the sums of squares, of candidate i's FIGURES;
    ``scores[i]``: the sum and the sum of squares of the score compared (the cubeful result
    with the cube, else the equity, luck-adjusted with vr); ``cross[i][j]``: the sum over the
    trials of score_i * score_j; ``cubes[i]``: with the cube, the sum of the final cube values.
    """

    roll_index: int
    chunk: int
    games: int
    candidates: tuple[int, ...]
    moments: tuple[tuple[float, ...], ...]
    cross: tuple[tuple[float, ...], ...]
    truncated: tuple[int, ...]
    plies: tuple[int, ...]
    scores: tuple[tuple[float, float], ...] = ()
    cubes: tuple[float, ...] = ()


def check_same_run(saved: dict[str, Any], identity: dict[str, Any], path: str) -> None:
    """ValueError naming the settings of a request's ``identity`` that differ from those of
    checkpoint ``path``'s saved request ``saved`` (an older one read as it played:
    ``saved_identity``)."""
    saved = saved_identity(saved)
    differ = [k for k, v in identity.items() if saved.get(k) != v]
    # Saved only when not the default (float32): a run of the default must not take it on.
    differ += [k for k in ("evaluator",) if k in saved and k not in identity]
    if differ:
        raise ValueError(f"checkpoint {path}: {', '.join(differ)} differ from the run's")


def common_dice(unit: CandidateUnit) -> np.ndarray:
    """The forced dice (int8 [n_games, 2*FORCED_ROLLS]) shared by every candidate of the unit:
    the opponent's first two rolls stratified, the later ones drawn from the chunk's seed."""
    n = unit.n_games
    rng = np.random.default_rng(np.random.SeedSequence(unit.roll_seed, spawn_key=(unit.chunk, 1)))
    later = rng.integers(1, 7, size=(n, 2 * FORCED_ROLLS), dtype=np.int8)
    if unit.stratify:
        later[:, :4] = stratified_dice(unit.roll_seed, unit.first_trial, n)
    if unit.reply is not None:  # the reply is forced; the next two rolls are stratified
        later[:, 2:] = later[:, :-2].copy()
        later[:, :2] = unit.reply
    return np.ascontiguousarray(later)


def _mover_moments(opp: np.ndarray, n: int) -> tuple[float, ...]:
    """Sums and sums of squares of the figures for the mover, from the opponent's."""
    s, q = opp[:_K], opp[_K:]
    # opponent's order: win, wg, wbg, lg, lbg, equity
    sums = [n - s[0], s[3], s[4], s[1], s[2], -s[5]]
    sq = [n - 2 * s[0] + q[0], q[3], q[4], q[1], q[2], q[5]]
    return tuple(float(v) for v in (*sums, *sq))


# Each Plakoto / Fevga outcome of the side on roll (variant_games.OUTCOMES: his win single,
# double, mother, loss single, double, mother, draw) as the six figures of the MOVER, his
# opponent: win, 2-point win, -, 2-point loss, -, points. A draw (P6) is 0 in all, so
# win + loss is not 1 and the Portes conversion (_mover_moments) does not apply.
_VARIANT_FIGURES = np.array(
    [[0, 0, 0, 0, 0, -1], [0, 0, 0, 1, 0, -2], [0, 0, 0, 1, 0, -2],
     [1, 0, 0, 0, 0, 1], [1, 1, 0, 0, 0, 2], [1, 1, 0, 0, 0, 2], [0, 0, 0, 0, 0, 0]],
    dtype=np.float64,
)


def _money_cube(cube: tuple | None) -> bool:
    """A cube of a money game (its away counts are 0): the cubeful bear-off database applies."""
    return cube is not None and cube[5] == 0


def unit_resources(unit: CandidateUnit, load: bool = True) -> dict:
    """The bear-off tables and net the unit's games need (see players.game_resources)."""
    if unit.game >= 0:
        return {}  # the Plakoto / Fevga players need neither
    return game_resources((unit.player_on_roll, unit.first_mover), unit.bearoff_play,
                          unit.truncate, unit.cache_dir, load=load, net=unit.vr,
                          weights=unit.net, cubeful=_money_cube(unit.cube))


def prepare_unit(unit: CandidateUnit) -> None:
    """Build the bear-off databases the unit's games need, if missing, without loading them
    (once per machine, before its workers start)."""
    unit_resources(unit, load=False)


def _cube_arguments(unit: CandidateUnit, cubeful: np.ndarray,
                    resources: dict[str, Any]) -> dict[str, Any]:
    """run_games' cube arguments for a unit with the cube (the opponent decides before his
    first roll; the mover's neural player, player 1, and the opponent's play by cubeful
    equity when ``cubeful_play``). In a match, with the bear-off databases loaded, the
    bear-off region solved at the score (the players' cube there, and where games stop)."""
    arguments = {"cube_branches": (unit.cube,), "met": branch_met((unit.cube,)),
                 "per_game_cubeful": cubeful, "cube_first_turn": True,
                 "cubeful_play": (unit.cubeful_play, unit.cubeful_play)}
    if resources.get("bearoff") is not None and not _money_cube(unit.cube):
        value, owner, cap, _, _, away_me, away_opp, crawford = unit.cube  # type: ignore[misc]
        arguments["match_region"] = solved_region(value, owner, cap, away_me, away_opp,
                                                  crawford, cache_dir=unit.cache_dir)
    return arguments


#: Seconds a block of trials takes at most, about (every candidate of the unit playing the
#: block's trials): a unit cut short by a stop ends at a block's end, where every candidate
#: has played the same trials, so the block is the time a stop may throw away.
BLOCK_S = 0.25


class _Sums:
    """The running sums of a unit's candidates, carried from block to block (with the dice
    generator's state, so that a unit played in blocks gives the numbers of one call)."""

    def __init__(self, k: int, vr: bool):
        self.rng = np.zeros((k, 4), dtype=np.uint64)  # zeros: each starts from the chunk seed
        self.moments = np.zeros((k, 2 * _K), dtype=np.float64)
        self.vr = np.zeros((k, 2 * _K), dtype=np.float64) if vr else None
        self.counts = np.zeros((k, 9), dtype=np.int64)
        self.cubes = np.zeros(k, dtype=np.float64)

    def copy(self) -> "_Sums":
        other = _Sums.__new__(_Sums)
        other.__dict__ = {name: None if v is None else v.copy()
                          for name, v in self.__dict__.items()}
        return other


def _play_block(unit: CandidateUnit, sums: _Sums, first: int, size: int, dice: np.ndarray,
                seed: int, resources: dict, scores: np.ndarray, luck: np.ndarray,
                cubeful: np.ndarray, control: np.ndarray | None) -> bool:
    """Trials first .. first+size-1 of every candidate of a Portes unit, added to ``sums``;
    False if the run's stop cut them short (``sums`` then holds a part of the block)."""
    block = slice(first, first + size)
    players = (unit.player_on_roll, unit.first_mover)
    for i, raw in enumerate(unit.boards):
        board = np.frombuffer(raw, dtype=np.int8).reshape(2, 26).copy()
        counts, _, *cube = _core.run_games(
            board, size, players[0], players[1], seed, False, unit.backgammons, dice[block],
            bearoff_play=unit.bearoff_play, truncate=unit.truncate,
            given_plies=0 if unit.reply is None else 1, per_game_equity=scores[i, block],
            vr_moments=None if sums.vr is None else sums.vr[i],
            per_game_luck=luck[i, block] if unit.vr else None,
            **(_cube_arguments(unit, cubeful[i, block], resources) if unit.cube else {}), **resources,
            control=control, rng_state=sums.rng[i], moments_into=sums.moments[i],
            reply_filter=unit.reply_filter,
        )
        sums.counts[i] += counts
        if cube:
            sums.cubes[i] += float(cube[0][6])
        if not _whole(unit, counts, size, control):
            return False
    return True


def _play_variant_block(unit: CandidateUnit, sums: _Sums, first: int, size: int,
                        dice: np.ndarray, seed: int, outcomes: np.ndarray,
                        control: np.ndarray | None) -> bool:
    """The same for a Plakoto / Fevga unit: each game's outcome goes into ``outcomes``."""
    block = slice(first, first + size)
    players = (unit.player_on_roll, unit.first_mover)
    for i, raw in enumerate(unit.boards):
        board = np.frombuffer(raw, dtype=np.int8).reshape(2, 26).copy()
        counts, _ = play_variant_trials(board, unit.pinned[i], unit.game, unit.variant_options,
                                        size, players, seed, dice[block], net=unit.net,
                                        control=control, rng_state=sums.rng[i],
                                        outcomes=outcomes[i, block])
        sums.counts[i] += counts
        if not _whole(unit, counts, size, control):
            return False
    return True


def _whole(unit: CandidateUnit, counts: np.ndarray, size: int, control: np.ndarray | None) -> bool:
    """Whether the core played all ``size`` games (else the run's stop must have cut them)."""
    if int(counts[:7].sum()) == size:
        return True
    if control is None or not control[0]:
        raise RuntimeError(f"roll {unit.roll_index} chunk {unit.chunk}: wrong number of games")
    return False


def _play_blocks(unit: CandidateUnit, play: Callable[[_Sums, int, int], bool],
                 control: np.ndarray | None) -> tuple[_Sums, int]:
    """The unit's games, ``play(sums, first, size)`` a block at a time: (the sums, the trials
    every candidate played). Without control words, one block of every trial; with them,
    blocks of about BLOCK_S seconds, and a stop ends the unit at the last whole block."""
    sums = _Sums(len(unit.boards), unit.vr and unit.game < 0)
    if control is None:
        play(sums, 0, unit.n_games)
        return sums, unit.n_games
    done, size = 0, 1
    while done < unit.n_games and not control[0]:
        size = min(size, unit.n_games - done)
        before = sums.copy()
        start = time.perf_counter()
        if not play(sums, done, size):
            return before, done
        done += size
        took = time.perf_counter() - start
        size = size * 2 if took < BLOCK_S / 2 else max(1, size // 2) if took > BLOCK_S else size
    return sums, done


def run_unit(unit: CandidateUnit, control: np.ndarray | None = None) -> UnitResult:
    """Play the unit's trials for each candidate on the same dice (C game loop, GIL released).
    With ``unit.vr`` every cubeless figure, and without the cube the per-trial scores of the
    paired differences, are luck-adjusted.

    ``control``: the unit's control words (``run/control.py``). The trials are then played in
    short blocks, every candidate in turn, and once the run's stop flag is up the result
    holds the whole blocks played (``games`` < ``n_games``): every candidate has played the
    same trials, so its paired differences stand. The numbers of a whole unit are those of
    one block, bit for bit."""
    start = time.perf_counter()
    dice = common_dice(unit)
    seed = chunk_seed(unit.roll_seed, unit.chunk)
    k = len(unit.candidates)
    scores = np.empty((k, unit.n_games), dtype=np.float64)
    luck = np.zeros((k, unit.n_games), dtype=np.float64)
    cubeful = np.empty((k, unit.n_games), dtype=np.float64)
    moments, truncated, plies, cubes = [], [], [], []
    if unit.game >= 0:
        outcomes = np.empty((k, unit.n_games), dtype=np.int8)
        sums, played = _play_blocks(unit, lambda s, first, size: _play_variant_block(
            unit, s, first, size, dice, seed, outcomes, control), control)
        for i in range(k):
            figs = _VARIANT_FIGURES[outcomes[i, :played]]
            scores[i, :played] = -figs[:, _EQ]  # the side on roll's, as run_games gives them
            moments.append(tuple(float(v) for v in (*figs.sum(axis=0), *(figs**2).sum(axis=0))))
            truncated.append(0)
            plies.append(int(sums.counts[i, 7]))
    else:
        resources = unit_resources(unit)
        sums, played = _play_blocks(unit, lambda s, first, size: _play_block(
            unit, s, first, size, dice, seed, resources, scores, luck, cubeful, control), control)
        for i in range(k):
            m = sums.moments[i] if sums.vr is None else sums.vr[i]
            moments.append(_mover_moments(m, played))
            truncated.append(int(sums.counts[i, 6]))
            plies.append(int(sums.counts[i, 7]))
            if unit.cube is not None:
                cubes.append(float(sums.cubes[i]))
    scores, luck, cubeful = scores[:, :played], luck[:, :played], cubeful[:, :played]
    if unit.cube is not None:
        # The opponent's cubeful result: money points (negated), or his MWC (1 - it).
        scores = (1.0 - cubeful) if unit.cube[5] else -cubeful
    else:
        scores -= luck
        scores *= -1.0  # the mover's equity
    cross = scores @ scores.T
    log.debug("roll %d chunk %d: %d x %d games in %.3f s", unit.roll_index, unit.chunk, k,
              played, time.perf_counter() - start)
    return UnitResult(
        roll_index=unit.roll_index, chunk=unit.chunk, games=played,
        candidates=unit.candidates, moments=tuple(moments),
        cross=tuple(tuple(float(v) for v in row) for row in cross),
        truncated=tuple(truncated), plies=tuple(plies),
        # The squares from the products' diagonal: a play against itself differs by exactly 0.
        scores=tuple((float(s.sum()), float(cross[i, i])) for i, s in enumerate(scores)),
        cubes=tuple(cubes),
    )


# ---------------------------------------------------------------------------------------------
# Merging: per roll, in chunk order (fixed-size state)
# ---------------------------------------------------------------------------------------------


class CandidateTally:
    """The merged state of one roll's candidates: per play sums, and per pair of plays the
    sums over the trials both played (so a play dropped early still gets a paired difference
    to the best).

    Units are applied in chunk order (out-of-order results wait in a small buffer), so the sums
    do not depend on the order in which workers finish.
    """

    def __init__(self, n_plays: int):
        k = n_plays
        self.n_plays = k
        self.games = np.zeros(k, dtype=np.int64)
        self.moments = np.zeros((k, 2 * _K), dtype=np.float64)
        self.truncated = np.zeros(k, dtype=np.int64)
        self.plies = np.zeros(k, dtype=np.int64)
        self.score = np.zeros((k, 2), dtype=np.float64)  # sum and sum of squares of the score
        self.cubes = np.zeros(k, dtype=np.float64)  # sum of the final cubes (with the cube)
        self.pair_n = np.zeros((k, k), dtype=np.int64)  # trials played by both i and j
        self.pair_sum = np.zeros((k, k), dtype=np.float64)  # sum of score_i over those trials
        self.pair_sq = np.zeros((k, k), dtype=np.float64)  # sum of score_i**2 over those trials
        self.cross = np.zeros((k, k), dtype=np.float64)  # sum of score_i * score_j
        self.next_chunk = 0
        self.buffer: dict[int, UnitResult] = {}
        self.survivors: list[int] | None = None

    def add(self, result: UnitResult) -> None:
        if result.chunk < self.next_chunk or result.chunk in self.buffer:
            raise RuntimeError(f"chunk {result.chunk} counted twice")
        self.buffer[result.chunk] = result
        while self.next_chunk in self.buffer:
            self._apply(self.buffer.pop(self.next_chunk))
            self.next_chunk += 1

    def add_partial(self, result: UnitResult) -> None:
        """A unit cut short by a stop, and the whole units still waiting for an earlier chunk:
        merged for the interrupted result only (out of chunk order; ``next_chunk`` stays)."""
        for waiting in sorted(self.buffer):
            self._apply(self.buffer.pop(waiting))
        if result.games:
            self._apply(result)

    def _apply(self, r: UnitResult) -> None:
        c = np.asarray(r.candidates, dtype=np.intp)
        m = np.asarray(r.moments, dtype=np.float64)
        s = np.asarray(r.scores, dtype=np.float64)
        ix = np.ix_(c, c)
        self.games[c] += r.games
        self.moments[c] += m
        self.truncated[c] += np.asarray(r.truncated, dtype=np.int64)
        self.plies[c] += np.asarray(r.plies, dtype=np.int64)
        self.score[c] += s
        if r.cubes:
            self.cubes[c] += np.asarray(r.cubes, dtype=np.float64)
        self.pair_n[ix] += r.games
        self.pair_sum[ix] += s[:, 0][:, None]
        self.pair_sq[ix] += s[:, 1][:, None]
        self.cross[ix] += np.asarray(r.cross, dtype=np.float64)

    def figures(self, i: int) -> tuple[dict[str, float], dict[str, float]]:
        """Play i's figures and their standard errors (trials independent)."""
        n = int(self.games[i])
        if n == 0:
            nan = {k: math.nan for k in FIGURES}
            return nan, dict(nan)
        return figures_from_moments(self.moments[i], n)

    def mean_score(self, i: int) -> tuple[float, float]:
        """Play i's mean score (the figure the plays are ranked by) and its standard error."""
        n = int(self.games[i])
        if n == 0:
            return math.nan, math.nan
        mean = self.score[i, 0] / n
        return float(mean), math.sqrt(max(self.score[i, 1] / n - mean * mean, 0.0) / n)

    def mean_cube(self, i: int) -> float:
        """Play i's mean final cube value (with the cube)."""
        return float(self.cubes[i] / self.games[i]) if self.games[i] else math.nan

    def paired_difference(self, i: int, best: int) -> tuple[float, float, int]:
        """Mean of score_i - score_best over the trials both played, its SE, and those trials."""
        n = int(self.pair_n[i, best])
        if n == 0:
            return math.nan, math.nan, 0
        if i == best:
            return 0.0, 0.0, n
        d = (self.pair_sum[i, best] - self.pair_sum[best, i]) / n
        sq = (self.pair_sq[i, best] + self.pair_sq[best, i] - 2.0 * self.cross[i, best]) / n
        return float(d), math.sqrt(max(sq - d * d, 0.0) / n), n

    def choose_survivors(self, threshold: float) -> list[int]:
        """The plays within ``threshold`` of the best mean score of the short run."""
        mean = self.score[:, 0] / np.maximum(self.games, 1)
        best = float(mean.max())
        self.survivors = [i for i in range(self.n_plays) if mean[i] >= best - threshold]
        return self.survivors

    # Checkpoints ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "next_chunk": self.next_chunk,
            "survivors": self.survivors,
            **{name: getattr(self, name).tolist() for name in _ARRAYS},
        }

    @classmethod
    def from_dict(cls, n_plays: int, doc: dict[str, Any]) -> "CandidateTally":
        t = cls(n_plays)
        t.next_chunk = int(doc["next_chunk"])
        t.survivors = None if doc.get("survivors") is None else [int(i) for i in doc["survivors"]]
        for name in _ARRAYS:
            if name not in doc and name in _LATER:
                continue  # a checkpoint from before it: filled in below
            old = getattr(t, name)
            new = np.asarray(doc[name], dtype=old.dtype)
            if new.shape != old.shape:
                raise ValueError(f"checkpoint: {name} has shape {new.shape}, expected {old.shape}")
            setattr(t, name, new)
        if "score" not in doc:  # cubeless openings: the score was the equity column
            t.score = t.moments[:, [_EQ, _K + _EQ]].copy()
        return t


_ARRAYS = ("games", "moments", "truncated", "plies", "score", "cubes", "pair_n", "pair_sum",
           "pair_sq", "cross")
#: Arrays that older openings checkpoints do not have.
_LATER = ("score", "cubes")
