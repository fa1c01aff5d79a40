"""Supervised refinement of the neural evaluator on targets from our own deeper search.

TD(0) self-play levels off (``train.py``); the next step that is known to work is to teach the
net what a deeper search of its own says. Two steps, each resumable:

1. ``make_targets``: positions from 0-ply self-play games of the current net (a fraction
   ``explore`` of the turns play a random legal play, so that the positions are not only the
   net's own style), each labelled with its *1-ply* probabilities (the mean over the 36 rolls
   of the net's probabilities after its best play; or *2-ply*, that mean with each position
   after the best play valued at 1 ply; or, with ``rollouts=N``, the luck-adjusted mean of N
   games of the net's 0-ply self-play played on from the position to the end, which carry
   what happens later in the game rather than what the net believes of it; with
   ``truncate_plies=K`` too, those games stop after K plies and the net values them there:
   a deeper look than the look-ahead's, cheaper than games to the end), and with the
   game's real outcome for the side on roll (so that a fit can mix some of it into the
   targets, which anchors the gammon estimates to what happens rather than to what the net
   believes). With ``race=True`` only the positions with no contact left are kept: the
   data of a race net (see ``NeuralNet``'s ``race``); with ``contact=True`` only the others,
   the positions the main net evaluates when it has a race net. This runs on the driver as a
   job kind (``TargetsJob``), on the local pool or a Dask cluster; each unit of games
   (``UNIT_GAMES``, fewer with rollouts) is written as its own shard file in the data
   directory, so a stopped run resumes by skipping the shards it has, and the shards depend
   only on (seed, unit index, net), never on the number of workers.
2. ``fit``: minibatch Adam on the cross-entropy of the five sigmoid outputs against the
   targets, from the current weights, in float32 numpy; a held-out part of the positions
   reports the loss and the equity error. ``fit`` checkpoints after every epoch (weights, the
   optimiser's state, the shuffling generator) and resumes bit for bit.

GNU Backgammon is never a target here: the targets are our own net's look-ahead, our own
rollouts and our own games' outcomes.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from .. import _core
from ..run.atomic import atomic_file
from ..run.control import Cancel, check_cancel
from ..run.driver import ProgressCallback, run_job
from ..run.executors import make_executor
from ..checks import check_count, check_regular_file, check_seed
from ..play.neural import attach_bearoff, net_arrays, net_from_arrays, weights_checksum
from ..run.plans import MissingIndices, UnitPlan, part_size, parts
from ..play.players import PLAYERS, game_resources
from ..run.progress import RolloutProgress
from .rollout_chunks import VR_SUMS
from .stratify import ORDERED_ROLLS

__all__ = ["UNIT_GAMES", "TargetsJob", "make_targets", "load_targets", "load_outcomes",
           "blend_outcomes", "FitState", "fit", "equity_of", "widen", "rollout_probs"]

log = logging.getLogger(__name__)

#: Self-play games per unit of work (about 10,000 positions, 3 s of one core).
UNIT_GAMES = 200
GAME_PLIES = 50  # about the plies of a self-play game (gnubg's: 55.6), for sizing rollout units
_SHARD = re.compile(r"targets-(\d{6})\.npz$")


def equity_of(p: np.ndarray) -> np.ndarray:
    """Cubeless money equity of probabilities [..., 5] (gammons include backgammons)."""
    return 2.0 * p[..., 0] - 1.0 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


@dataclass(frozen=True)
class TargetsUnit:
    index: int
    seed: int  # of this unit's dice
    games: int
    explore: float
    weights: tuple[np.ndarray, ...]  # neural.net_arrays of the net that plays and looks ahead
    checksum: str
    plies: int = 1  # of the look-ahead that labels the positions
    rollouts: int = 0  # > 0: label by that many rollout games instead of the look-ahead
    race: bool = False  # keep only the positions with no contact left
    bearoff: bool = False  # the net values bear-offs by the (default) bear-off databases
    truncate_plies: int = 0  # > 0: rollout games stop after that many plies (the net values them)
    contact: bool = False  # keep only the positions with contact (the main net's)
    prune: tuple[np.ndarray, ...] = ()  # the net's pruning net's arrays, if it has one (the
    # luck tables of rollout labels rank plays by it, as in the caller's process)


_NETS: dict[tuple[str, bool, bool], _core.NeuralNet] = {}


def targets_worker(unit: TargetsUnit) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """(index, boards int8[m, 2, 26], look-ahead probabilities float64[m, 5], outcomes
    int8[m]) of one unit (outcomes as ``NeuralNet.selfplay_positions`` gives them)."""
    key = (unit.checksum, unit.bearoff, bool(unit.prune))
    net = _NETS.get(key)
    if net is None:
        _NETS.clear()
        net = net_from_arrays(unit.weights, unit.prune)
        if unit.bearoff:
            net = attach_bearoff(net, game_resources((PLAYERS["neural"],), True)["bearoff"])
        _NETS[key] = net
    state = _core.rng_state(unit.seed)
    boards, outcomes = net.selfplay_positions(unit.games, state, unit.explore, True)
    if unit.race or unit.contact:
        keep = _core.races(boards) if unit.race else ~_core.races(boards)
        boards, outcomes = np.ascontiguousarray(boards[keep]), outcomes[keep]
    if unit.rollouts:
        probs = rollout_probs(net, boards, unit.rollouts, unit.seed, unit.truncate_plies)
    else:
        probs = net.probs_many(boards, unit.plies)
    return unit.index, boards, probs, outcomes


def rollout_probs(net: _core.NeuralNet, boards: np.ndarray, trials: int, seed: int,
                  truncate_plies: int = 0) -> np.ndarray:
    """float64[m, 5]: each position's (win, win gammon, win backgammon, lose gammon, lose
    backgammon) for the side on roll, estimated by `trials` cubeless games of the net's 0-ply
    self-play from it, played to the end (counted exactly once both sides are in the bear-off
    database). The estimate is luck-adjusted (variance reduction by the net, as in the
    rollouts): unbiased, with far less noise than the raw games' results, then clipped to
    [0, 1]. The first rolls cycle through the 36 rolls; position i's games are seeded by
    (`seed`, i) alone. `truncate_plies` > 0 stops each game after that many plies and counts
    the net's 0-ply probabilities there: a look deeper than the look-ahead's, several times
    cheaper than games to the end and with less noise, still biased by the net's values at
    the horizon."""
    trials = check_count(trials, "trials")
    neural = PLAYERS["neural"]
    tables = game_resources((neural,), True, True)["bearoff"]
    rolls = np.asarray(ORDERED_ROLLS, dtype=np.int8)
    first = np.ascontiguousarray(rolls[np.arange(trials) % len(rolls)])
    out = np.empty((len(boards), 5))
    sums = np.zeros(VR_SUMS)
    for i, board in enumerate(boards):
        sums[:] = 0.0
        _core.run_games(np.ascontiguousarray(board), trials, neural, neural,
                        _unit_seed(seed, i), False, True, first, bearoff=tables, truncate=True,
                        net=net, vr_moments=sums, truncate_plies=truncate_plies)
        out[i] = sums[:5] / trials
    return np.clip(out, 0.0, 1.0)


def _prepare(unit: TargetsUnit) -> None:
    """Build the bear-off databases that rollout labels and the net need, once per machine."""
    if unit.rollouts or unit.bearoff:
        game_resources((PLAYERS["neural"],), True, True, load=False)


def _unit_seed(seed: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, index]).generate_state(1, np.uint64)[0])


class TargetsJob:
    """The training-data job: units of `unit_games` games, one shard file each."""

    worker = staticmethod(targets_worker)
    prepare = staticmethod(_prepare)

    def __init__(self, directory: Path, net: _core.NeuralNet, games: int, seed: int,
                 explore: float, unit_games: int = UNIT_GAMES, plies: int = 1,
                 rollouts: int = 0, race: bool = False, truncate_plies: int = 0,
                 contact: bool = False):
        self.directory = directory
        self.plies, self.rollouts, self.race = plies, rollouts, race
        self.truncate_plies, self.contact = truncate_plies, contact
        self.unit_games = unit_games
        self.units = parts(games, unit_games)
        self.games, self.seed, self.explore = games, seed, explore
        self.weights = net_arrays(net)
        self.prune = net.prune.arrays() if net.prune is not None else ()
        self.bearoff = net.bearoff is not None
        self.checksum = weights_checksum(self.weights)
        self.have = set(shard_indices(directory))
        self.resumed = len(self.have)
        self.positions = 0
        self._planned = False

    def plan(self) -> Sequence[TargetsUnit]:
        if self._planned:
            return ()
        self._planned = True
        return UnitPlan(MissingIndices(self.units, self.have), self._unit)

    def _unit(self, i: int) -> TargetsUnit:
        return TargetsUnit(i, _unit_seed(self.seed, i), part_size(self.games, self.unit_games, i),  # type: ignore[arg-type]
                           self.explore, self.weights, self.checksum, self.plies, self.rollouts,
                           self.race, self.bearoff, self.truncate_plies, self.contact, self.prune)

    def add(self, result: tuple[int, np.ndarray, np.ndarray, np.ndarray]) -> None:
        index, boards, probs, outcomes = result
        _save_atomic(self.directory / f"targets-{index:06d}.npz", boards=boards, probs=probs,
                     outcomes=outcomes)
        self.have.add(index)
        self.positions += len(boards)

    @property
    def done(self) -> bool:
        return len(self.have) >= self.units

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        done = min(self.games, len(self.have) * self.unit_games)
        rate = (len(self.have) - self.resumed) * self.unit_games / session_s if session_s > 0 else 0.0
        return RolloutProgress(done, self.games, elapsed_s, rate, float("nan"), float("inf"),
                               (self.games - done) / rate if rate > 0 else float("inf"))

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        return {"kind": "targets", "units_done": len(self.have), "elapsed_s": elapsed_s}


def _save_atomic(path: Path, **arrays: np.ndarray) -> None:
    with atomic_file(path) as f:
        np.savez(f, **arrays)


def shard_indices(directory: str | os.PathLike) -> list[int]:
    """The unit indices of the shard files in `directory`, sorted."""
    return sorted(int(m.group(1)) for m in (_SHARD.match(p.name) for p in Path(directory).iterdir()) if m)


#: The file in a targets directory that records how its targets were made.
TARGETS_RECORD = "targets.json"


def _targets_record(directory: str | os.PathLike) -> dict | None:
    """The record of the targets directory `directory`, None if it has none yet."""
    path = Path(directory) / TARGETS_RECORD
    return json.loads(path.read_text()) if path.exists() else None


def make_targets(directory: str | os.PathLike, net: _core.NeuralNet, games: object,
                 seed: object = None, explore: float = 0.05, *, plies: int = 1,
                 rollouts: object = 0, race: bool = False, truncate_plies: object = 0,
                 contact: bool = False, unit_games: int | None = None,
                 jobs: object = None,
                 start_method: str | None = None, scheduler: str | None = None,
                 client: Any = None, progress: ProgressCallback | None = None,
                 command: str | None = None, cancel: Cancel | None = None) -> dict:
    """Write `plies`-ply targets (1 or 2), or with `rollouts` > 0 targets from that many
    rollout games a position (``rollout_probs``, stopped after `truncate_plies` plies if that
    is given), of the positions of `games` self-play games, and the games' outcomes, into
    `directory`; with `race`, only the positions with no contact left (the data of a race
    net); with `contact`, only the others (the data of the main net, when it has a race net).

    The directory's ``targets.json`` records the seed, the games, ``explore``, the look-ahead
    and the net's checksum, and `command` (the command line that called, if given) is added
    to its ``commands``; running again with the same directory resumes (the same settings
    are required).
    `cancel` (a ``threading.Event``): once set, no further unit starts and the run returns
    with ``interrupted`` (a unit in play is not cut short: with one job it finishes first,
    in a pool it is dropped, and a run with the same directory makes it again).
    Returns that record with the positions written in this call and the elapsed seconds."""
    check_cancel(cancel)
    games = check_count(games, "games")
    if not 0.0 <= float(explore) <= 1.0:
        raise ValueError(f"explore is a probability, not {explore!r}")
    if plies not in (1, 2):
        raise ValueError(f"targets look 1 or 2 plies ahead, not {plies!r}")
    rollouts = check_count(rollouts, "rollouts") if rollouts else 0
    if rollouts and plies != 1:
        raise ValueError("rollout labels replace the look-ahead: give rollouts or plies, not both")
    truncate_plies = check_count(truncate_plies, "truncate_plies") if truncate_plies else 0
    if truncate_plies and not rollouts:
        raise ValueError("truncate_plies stops rollout games: it needs rollouts")
    if race and contact:
        raise ValueError("race keeps the positions without contact, contact the others: not both")
    kind = ((f"rollouts-{rollouts}" + (f"-cut{truncate_plies}" if truncate_plies else ""))
            if rollouts else f"{plies}-ply") + ("-race" if race else "-contact" if contact else "")
    if unit_games is None:  # units of a few seconds to a minute of one core
        # With rollouts, fewer games a unit, in proportion to the plies played per position.
        unit_games = (max(1, UNIT_GAMES * GAME_PLIES // (rollouts * (truncate_plies or GAME_PLIES)))
                      if rollouts else UNIT_GAMES)
    path = Path(directory)
    path.mkdir(parents=True, exist_ok=True)
    meta_path = path / TARGETS_RECORD
    checksum = weights_checksum(net_arrays(net))
    record = _targets_record(path)
    if record is not None:
        if seed is not None and check_seed(seed) != record["seed"]:
            raise ValueError(f"{meta_path}: made with seed {record['seed']}, not {seed}")
        if (record["checksum"], record["explore"], record["unit_games"], record["targets"],
                record.get("bearoff", False)) != (checksum, float(explore), unit_games, kind,
                                                  net.bearoff is not None):
            raise ValueError(f"{meta_path}: made by another net or explore, unit_games, race, "
                             "contact, plies, rollouts or truncate_plies setting, or with(out) "
                             "the bear-off databases")
        record["games"] = max(games, record["games"])
    else:
        record = {"seed": check_seed(seed), "games": games, "explore": float(explore),
                  "checksum": checksum, "unit_games": check_count(unit_games, "unit_games"),
                  "targets": kind, "bearoff": net.bearoff is not None}
    if command is not None:
        record["commands"] = record.get("commands", []) + [command]
    with atomic_file(meta_path, text=True, readable=True) as f:
        f.write(json.dumps(record, indent=1))
    job = TargetsJob(path, net, record["games"], record["seed"], float(explore), unit_games,
                     plies, rollouts, bool(race), truncate_plies, bool(contact))
    with make_executor(jobs, start_method, scheduler=scheduler, client=client) as executor:
        outcome = run_job(job, executor, progress=progress, cancel=cancel)
    return {**record, "positions_written": job.positions, "elapsed_s": outcome.elapsed_s,
            "interrupted": outcome.interrupted}


def _from_shards(directory: str | os.PathLike,
                 read: Callable[[Any], tuple[np.ndarray, ...]]) -> list[np.ndarray]:
    """The arrays `read` takes from each shard file (an open npz), each concatenated over the
    shards in unit order."""
    parts = []
    for i in shard_indices(directory):
        with np.load(Path(directory) / f"targets-{i:06d}.npz") as z:
            parts.append(read(z))
    if not parts:
        raise ValueError(f"{directory}: no target shards")
    return [np.concatenate(column) for column in zip(*parts)]


def load_targets(directory: str | os.PathLike) -> tuple[np.ndarray, np.ndarray]:
    """(boards int8[m, 2, 26], probabilities float64[m, 5]) of all the shards, in unit order."""
    boards, probs = _from_shards(directory, lambda z: (z["boards"], z["probs"]))
    return boards, probs


def targets_commands(directory: str | os.PathLike) -> list[str]:
    """The command lines that wrote the targets in `directory` (none for a directory made
    before they were recorded, or by ``make_targets`` without a `command`)."""
    return list((_targets_record(directory) or {}).get("commands", []))


def load_outcomes(directory: str | os.PathLike) -> np.ndarray:
    """int8[m]: the games' outcomes for the side on roll of each of ``load_targets``' positions
    (0-2 it won single, gammon, backgammon; 3-5 it lost so), -1 where unknown (a random play
    came later in the game, or the shard was made before outcomes were recorded)."""
    (outcomes,) = _from_shards(directory, lambda z: (
        z["outcomes"] if "outcomes" in z.files else np.full(len(z["probs"]), -1, dtype=np.int8),))
    return outcomes


#: The probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon) of each
#: outcome code 0-5.
OUTCOME_PROBS = np.array([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [1, 1, 1, 0, 0],
                          [0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 1]], dtype=np.float64)


def blend_outcomes(probs: np.ndarray, outcomes: np.ndarray, weight: float) -> np.ndarray:
    """The targets (1 - weight) * probs + weight * outcome where the outcome is known (>= 0),
    the look-ahead's probabilities alone elsewhere."""
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"the outcomes' weight is in [0, 1], not {weight!r}")
    known = outcomes >= 0
    out = np.array(probs, dtype=np.float64)
    out[known] = (1.0 - weight) * out[known] + weight * OUTCOME_PROBS[outcomes[known]]
    return out


# ---------------------------------------------------------------- fitting


def widen(net: _core.NeuralNet, inputs: int | None = None, hidden: int | None = None,
          seed: int = 0) -> _core.NeuralNet:
    """The net with `inputs` inputs (198, 203, 209 or 215) and `hidden` hidden units (None: as
    they are), evaluating exactly as before until training moves it: the added inputs'
    weights are zero, and so are the added hidden units' output weights (their input weights
    are drawn uniform in +-0.1 by `seed`, as a new TD net's are, so that they can learn
    different features). Its race net and bear-off databases are kept."""
    w1, b1, w2, b2 = net.arrays()
    inputs = len(w1) if inputs is None else inputs
    hidden = len(b1) if hidden is None else hidden
    if inputs < len(w1):
        raise ValueError(f"the net has {len(w1)} inputs already; it cannot be narrowed to {inputs}")
    if hidden < len(b1):
        raise ValueError(f"the net has {len(b1)} hidden units already; it cannot be narrowed "
                         f"to {hidden}")
    w1 = np.vstack([w1, np.zeros((inputs - len(w1), w1.shape[1]))])
    added = hidden - len(b1)
    w1 = np.hstack([w1, np.random.default_rng(seed).uniform(-0.1, 0.1, (inputs, added))])
    return _core.NeuralNet(w1, np.concatenate([b1, np.zeros(added)]),
                           np.hstack([w2, np.zeros((len(w2), added))]), b2,
                           race=net.race, bearoff=net.bearoff)


@dataclass
class FitState:
    """Weights (float64), Adam's moments, the epoch reached and the shuffling generator; and,
    for the recipe of the net it makes, the weights file it started from (``{"file",
    "sha256"}``, or None) and the command lines that have trained it."""

    params: list[np.ndarray]  # w1 (I, H), b1 (H,), w2 (5, H), b2 (5,)
    m: list[np.ndarray]
    v: list[np.ndarray]
    step: int
    epoch: int
    rng_state: dict
    history: list[dict]
    started_from: dict | None = None
    commands: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, net: _core.NeuralNet, seed: int) -> "FitState":
        params = [a.astype(np.float64) for a in net.arrays()]
        zeros = [np.zeros_like(a) for a in params]
        return cls(params, zeros, [z.copy() for z in zeros], 0, 0,
                   np.random.default_rng(seed).bit_generator.state, [])

    def net(self, race: _core.NeuralNet | None = None) -> _core.NeuralNet:
        """The net of the current weights, with `race` as its race net."""
        return _core.NeuralNet(*self.params, race=race)

    def save(self, path: str | os.PathLike) -> None:
        arrays = {f"p{i}": a for i, a in enumerate(self.params)}
        arrays |= {f"m{i}": a for i, a in enumerate(self.m)}
        arrays |= {f"v{i}": a for i, a in enumerate(self.v)}
        meta = {"step": self.step, "epoch": self.epoch, "rng_state": self.rng_state,
                "history": self.history, "started_from": self.started_from,
                "commands": self.commands}
        _save_atomic(Path(path), meta=np.array(json.dumps(meta)), **arrays)

    @classmethod
    def load(cls, path: str | os.PathLike) -> "FitState":
        check_regular_file(path, "a fit checkpoint")
        with np.load(path) as z:
            meta = json.loads(str(z["meta"]))
            get = lambda p: [np.array(z[f"{p}{i}"]) for i in range(4)]  # noqa: E731
            return cls(get("p"), get("m"), get("v"), meta["step"], meta["epoch"],
                       meta["rng_state"], meta["history"], meta.get("started_from"),
                       meta.get("commands", []))


def _forward(params32: list[np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w1, b1, w2, b2 = params32
    with np.errstate(over="ignore"):  # exp(-z) overflows to inf for z << 0: the sigmoid is 0
        h = 1.0 / (1.0 + np.exp(-(x @ w1 + b1)))
        out = 1.0 / (1.0 + np.exp(-(h @ w2.T + b2)))
    return h, out


def _loss(out: np.ndarray, t: np.ndarray) -> float:
    o = np.clip(out, 1e-7, 1 - 1e-7)
    return float(-np.mean(np.sum(t * np.log(o) + (1 - t) * np.log(1 - o), axis=1)))


def fit(state: FitState, inputs: np.ndarray, targets: np.ndarray, epochs: int, *,
        rate: float = 3e-4, batch: int = 256, holdout: int = 20_000,
        checkpoint: str | None = None, outputs_only: bool = False,
        readouts: Sequence[int] | None = None,
        on_epoch: Callable[[dict], Any] | None = None) -> FitState:
    """Train `state`'s weights to the `targets` (float[m, 5], raw probabilities) of `inputs`
    (float32[m, I], ``_core.neural_inputs_many``) until epoch `epochs`, by Adam with
    learning rate `rate` on the summed cross-entropy of the five sigmoids. The last `holdout`
    rows are held out: after each epoch their loss and mean absolute equity error are added to
    ``state.history`` (and passed to `on_epoch`), and `checkpoint` (if given) is written.
    With `outputs_only` the hidden layer stays as it is and only the output layer learns: a
    recalibration of the five readouts (against outcomes, say) that leaves the features the
    hidden layer has learnt, and so most of the play, alone. `readouts` (with `outputs_only`;
    indices into the five outputs, None for all) narrows that to some of the readouts: (1, 2,
    3, 4) recalibrates the gammon and backgammon estimates and keeps the win estimate, which
    decides most plays, as it is."""
    if inputs.shape[0] != targets.shape[0] or inputs.shape[1] != state.params[0].shape[0]:
        raise ValueError("inputs, targets and the net's inputs do not match")
    if not 0 < holdout < inputs.shape[0]:
        raise ValueError("holdout must leave some rows to train on")
    if readouts is not None:
        if not outputs_only:
            raise ValueError("readouts narrow an outputs-only fit")
        if not readouts or any(k not in range(5) for k in readouts):
            raise ValueError(f"readouts are some of the outputs 0-4, not {list(readouts)}")
        frozen = [k for k in range(5) if k not in readouts]
    n = inputs.shape[0] - holdout
    if not 0 < batch <= n:  # (with no full batch an epoch would learn nothing, silently)
        raise ValueError(f"a batch of {batch} rows, but {n} rows to train on")
    x_hold, t_hold = inputs[n:], targets[n:].astype(np.float32)
    rng = np.random.default_rng()
    rng.bit_generator.state = state.rng_state
    b1_, b2_, eps = 0.9, 0.999, 1e-8
    while state.epoch < epochs:
        started = time.perf_counter()
        order = rng.permutation(n)
        p32 = [a.astype(np.float32) for a in state.params]
        for lo in range(0, n - batch + 1, batch):
            idx = order[lo:lo + batch]
            x, t = inputs[idx], targets[idx].astype(np.float32)
            h, out = _forward(p32, x)
            d2 = (out - t) / batch                          # d loss / d pre-sigmoid output
            grads = [None, None, d2.T @ h, d2.sum(axis=0)]
            if not outputs_only:
                dh = (d2 @ p32[2]) * h * (1.0 - h)
                grads[0], grads[1] = x.T @ dh, dh.sum(axis=0)
            state.step += 1
            corr = rate * np.sqrt(1 - b2_ ** state.step) / (1 - b1_ ** state.step)
            for k, g in enumerate(grads):
                if g is None:
                    continue
                state.m[k] = b1_ * state.m[k] + (1 - b1_) * g
                state.v[k] = b2_ * state.v[k] + (1 - b2_) * (g.astype(np.float64) ** 2)
                delta = corr * state.m[k] / (np.sqrt(state.v[k]) + eps)
                if readouts is not None:  # (k is 2 or 3 here: the output layer's rows)
                    delta[frozen] = 0.0
                state.params[k] -= delta
                p32[k] = state.params[k].astype(np.float32)
        state.epoch += 1
        state.rng_state = rng.bit_generator.state
        _, out = _forward(p32, x_hold)
        record = {"epoch": state.epoch, "holdout_loss": _loss(out, t_hold),
                  "holdout_equity_mae": float(np.mean(np.abs(equity_of(out) - equity_of(t_hold)))),
                  "seconds": time.perf_counter() - started}
        state.history.append(record)
        log.info("epoch %d: held-out loss %.5f, equity error %.4f (%.0f s)", record["epoch"],
                 record["holdout_loss"], record["holdout_equity_mae"], record["seconds"])
        if checkpoint is not None:
            state.save(checkpoint)
        if on_epoch is not None:
            on_epoch(record)
    return state
