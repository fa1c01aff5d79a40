"""Train the neural evaluator by TD(0) or TD(lambda) self-play, with checkpoints that resume
exactly.

The games and the weight updates run in the compiled core (``NeuralNet.train``, GIL
released); this module schedules the learning rate, checkpoints and logs.

Reproducibility: everything a run depends on is a function of its arguments and of the
number of games already played: the initial weights come from the seed, the dice from the
core's generator (its state is saved in the checkpoint), and the learning rate of game ``g``
is ``alpha / (1 + g0 / decay_games)`` with ``g0`` = ``g`` rounded down to a multiple of
``RATE_STEP``. Work is cut at those multiples, so a run resumed from any checkpoint plays
and learns exactly as the uninterrupted run would have.

TD(0) targets the next position's value only. TD(lambda) (`lam` > 0) targets the
lambda-return, a mix of all later positions' values and the result. It is learnt in the
forward view at the end of each game (the game played with fixed weights), which keeps the
sparse update of TD(0) (only the ~40 active inputs' weights change) where eligibility traces
would need a dense update of all weights per move.
"""

from __future__ import annotations

import json
import logging
import os
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .. import _core
from ..run.atomic import atomic_file
from ..checks import check_count, check_regular_file, check_seed
from ..play.neural import load_net

__all__ = ["TrainingState", "train", "initial_state", "add_features", "set_rate",
           "average_checkpoints", "save_checkpoint", "load_checkpoint", "learning_rate",
           "RATE_STEP", "CHECKPOINT_FORMAT"]

log = logging.getLogger(__name__)

#: The learning rate changes only at multiples of this many games (and work is cut there).
RATE_STEP = 1000
CHECKPOINT_FORMAT = 1
_OUTCOMES = ("win_single", "win_gammon", "win_backgammon", "lose_single", "lose_gammon",
             "lose_backgammon")


@dataclass
class TrainingState:
    """A training run: the net, the dice generator's state and what has been done."""

    net: _core.NeuralNet
    rng_state: np.ndarray  # uint64[4], the core generator's state
    seed: int
    alpha: float
    decay_games: int
    backgammons: bool = True
    lam: float = 0.0  # TD(lambda)'s lambda; 0 is TD(0)
    games_done: int = 0
    plies: int = 0
    outcomes: list[int] = field(default_factory=lambda: [0] * 6)  # for the first mover
    elapsed_s: float = 0.0
    features_from: int | None = None  # games done when the hand features were added, if later
    rate_changes: list[list[float]] = field(default_factory=list)  # [games done, new rate]
    init_from: dict | None = None  # the weights file a run started from, instead of random weights
    commands: list[str] = field(default_factory=list)  # the command lines that ran it, in order

    @property
    def hidden(self) -> int:
        return self.net.hidden

    def meta(self) -> dict:
        return {
            "format": CHECKPOINT_FORMAT,
            "seed": self.seed,
            "hidden": self.hidden,
            "inputs": self.net.n_inputs,
            "features_from": self.features_from,
            "rate_changes": self.rate_changes,
            "init_from": self.init_from,
            "alpha": self.alpha,
            "decay_games": self.decay_games,
            "backgammons": self.backgammons,
            "lambda": self.lam,
            "games_done": self.games_done,
            "plies": self.plies,
            "outcomes": dict(zip(_OUTCOMES, self.outcomes)),
            "elapsed_s": self.elapsed_s,
        }

    def recipe(self) -> dict:
        """What a weights file exported from this run records for ``tavli-train --recipe``:
        the commands that ran it and the file it started from (none from random weights)."""
        start = ({"start": {"file": self.init_from["file"], "sha256": self.init_from.get("sha256")}}
                 if self.init_from else {})
        return {**start, "recipe": list(self.commands)}


def learning_rate(alpha: float, decay_games: int, games_done: int) -> float:
    """The rate for the games from ``games_done`` to the next multiple of RATE_STEP."""
    step_start = games_done - games_done % RATE_STEP
    return alpha / (1.0 + step_start / decay_games)


def initial_state(seed: int, hidden: int = 128, alpha: float = 0.05,
                  decay_games: int = 500_000, backgammons: bool = True,
                  features: bool = True) -> TrainingState:
    """Small random weights from `seed`, the core generator seeded from it too; the net has
    the hand features unless `features` is false."""
    seed = check_seed(seed)
    hidden = check_count(hidden, "hidden")
    decay_games = check_count(decay_games, "decay_games")
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 10):
        raise ValueError(f"alpha must be a number in (0, 10), got {alpha!r}")
    seq = np.random.SeedSequence(seed)
    weights_seq, dice_seq = seq.spawn(2)
    rng = np.random.default_rng(weights_seq)
    # Uniform in +-0.1: with ~40 active inputs the hidden units start in their linear range.
    inputs = _core.NEURAL_INPUTS if features else _core.NEURAL_BASE_INPUTS
    w1 = rng.uniform(-0.1, 0.1, (inputs, hidden))
    b1 = np.zeros(hidden)
    w2 = rng.uniform(-0.1, 0.1, (5, hidden))
    b2 = np.zeros(5)
    net = _core.NeuralNet(w1, b1, w2, b2)
    dice_seed = int(dice_seq.generate_state(1, np.uint64)[0])
    return TrainingState(net, _core.rng_state(dice_seed), seed, float(alpha), decay_games,
                         bool(backgammons))


def add_features(state: TrainingState) -> TrainingState:
    """The run continued with the hand features added to its net: their weights start at
    zero, so the net's values are unchanged until training finds a use for them."""
    if state.net.n_inputs != _core.NEURAL_BASE_INPUTS:
        raise ValueError("the net already has the hand features")
    w1, b1, w2, b2 = state.net.arrays()
    extra = np.zeros((_core.NEURAL_INPUTS - len(w1), w1.shape[1]))
    state.net = _core.NeuralNet(np.vstack([w1, extra]), b1, w2, b2)
    state.features_from = state.games_done
    return state


def set_rate(state: TrainingState, rate: float) -> TrainingState:
    """The run continued at learning rate `rate` from its current game count, decaying from
    there on the same schedule (`alpha` is rescaled; the change is recorded)."""
    if not (isinstance(rate, (int, float)) and 0 < rate < 10):
        raise ValueError(f"the learning rate must be a number in (0, 10), got {rate!r}")
    step_start = state.games_done - state.games_done % RATE_STEP
    state.alpha = float(rate) * (1.0 + step_start / state.decay_games)
    state.rate_changes.append([state.games_done, float(rate)])
    return state


def average_checkpoints(paths: list[str | os.PathLike]) -> tuple[_core.NeuralNet, dict]:
    """A net whose weights are the mean of the checkpoints' nets, and a record of them.

    Meant for the last checkpoints of one run at a low learning rate: the mean smooths out
    the noise of the latest updates (a small, measured gain in strength).
    """
    if not paths:
        raise ValueError("average needs at least one checkpoint")
    states = [load_checkpoint(p) for p in paths]
    arrays = [s.net.arrays() for s in states]
    shapes = {tuple(a.shape for a in arr) for arr in arrays}
    if len(shapes) != 1:
        raise ValueError("the checkpoints' nets have different shapes and cannot be averaged")
    mean = [np.mean([arr[i] for arr in arrays], axis=0) for i in range(4)]
    record = {"averaged": [{"file": Path(p).name, **s.meta()} for p, s in zip(paths, states)]}
    # The recipe: each run's commands once, in order; a start file if the runs share one.
    recipes = [s.recipe() for s in states]
    start = recipes[0].get("start")
    if start and all(r.get("start") == start for r in recipes):
        record["start"] = start
    record["recipe"] = list(dict.fromkeys(c for r in recipes for c in r["recipe"]))
    return _core.NeuralNet(*mean), record


def _start_from_weights(state: TrainingState, path: str | os.PathLike,
                        features: bool) -> TrainingState:
    """The new run `state` with its random net replaced by the net of a weights file."""
    net, meta = load_net(path)
    if net.race is not None:
        log.warning("%s: TD training trains one net for every position; its race net is "
                    "left out", path)
        net = _core.NeuralNet(*net.arrays())
    state.net = net
    state.init_from = {"file": Path(path).name, "version": meta.get("version"),
                       "sha256": meta.get("sha256")}
    if features and net.n_inputs == _core.NEURAL_BASE_INPUTS:
        state = add_features(state)
    return state


def save_checkpoint(path: str | os.PathLike, state: TrainingState) -> None:
    """Write the whole state (weights, generator, progress) atomically to an .npz file."""
    path = Path(path)
    w1, b1, w2, b2 = state.net.arrays()
    with atomic_file(path) as f:
        np.savez(f, w1=w1, b1=b1, w2=w2, b2=b2, rng_state=state.rng_state,
                 meta=np.array(json.dumps({**state.meta(), "commands": state.commands})))


def load_checkpoint(path: str | os.PathLike) -> TrainingState:
    """The state saved by save_checkpoint (ValueError if the file is not one)."""
    check_regular_file(path, "a training checkpoint")
    try:
        with open(path, "rb") as f, np.load(f, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            arrays = [z[k] for k in ("w1", "b1", "w2", "b2")]
            rng_state = np.array(z["rng_state"], dtype=np.uint64)
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{path}: not a training checkpoint ({exc})") from None
    if meta.get("format") != CHECKPOINT_FORMAT or rng_state.shape != (4,):
        raise ValueError(f"{path}: not a training checkpoint of format {CHECKPOINT_FORMAT}")
    return TrainingState(
        net=_core.NeuralNet(*arrays),
        rng_state=rng_state,
        seed=int(meta["seed"]),
        alpha=float(meta["alpha"]),
        decay_games=int(meta["decay_games"]),
        backgammons=bool(meta["backgammons"]),
        lam=float(meta.get("lambda", 0.0)),  # checkpoints from before TD(lambda) are TD(0)
        games_done=int(meta["games_done"]),
        plies=int(meta["plies"]),
        outcomes=[int(meta["outcomes"][k]) for k in _OUTCOMES],
        elapsed_s=float(meta["elapsed_s"]),
        features_from=meta.get("features_from"),
        rate_changes=list(meta.get("rate_changes", [])),
        init_from=meta.get("init_from"),
        commands=list(meta.get("commands", [])),
    )


def train(
    games: int,
    seed: int = 0,
    hidden: int = 128,
    alpha: float = 0.05,
    decay_games: int = 500_000,
    *,
    backgammons: bool = True,
    features: bool = True,
    lam: float = 0.0,
    rate: float | None = None,
    init_from: str | os.PathLike | None = None,
    checkpoint: str | os.PathLike | None = None,
    checkpoint_every: int = 50_000,
    resume: str | os.PathLike | None = None,
    log_every: int = 10_000,
    on_progress: Callable[[TrainingState], None] | None = None,
    stop: Callable[[], bool] | None = None,
    command: str | None = None,
) -> TrainingState:
    """Train until `games` self-play games have been played in total.

    A new run starts from weights drawn from `seed` (`hidden` units, with the hand features
    unless `features` is false); with `resume` it continues the saved run (whose seed, size
    and rates then apply; `features` adds the hand features if its net lacks them, and `rate`
    sets the learning rate from there on, see set_rate, unless the run's last change already
    set that rate). `lam` in (0, 1] learns by TD(lambda) instead of TD(0) (a new run's
    choice; a resumed run keeps its own). `init_from` starts a new run from a weights file's
    net (the shipped one, say) instead of random weights; the seed then draws the dice only.
    The state is saved to `checkpoint` every `checkpoint_every` games and at the end. When
    `stop` (asked after every stretch of games, at most RATE_STEP) returns true, the run
    saves its checkpoint and returns early: a stopped run loses nothing. `command`, the
    command line that asked for this stretch, is added to the run's recipe (its ``commands``).
    """
    games = check_count(games, "games")
    if not (isinstance(lam, (int, float)) and 0 <= lam <= 1):
        raise ValueError(f"lambda must be a number in [0, 1], got {lam!r}")
    if resume is not None:
        state = load_checkpoint(resume)
        if features and state.net.n_inputs == _core.NEURAL_BASE_INPUTS:
            state = add_features(state)
        # Resuming again with the same `rate` keeps the schedule it started (so the command
        # that was interrupted can simply be run again).
        if rate is not None and not (state.rate_changes and state.rate_changes[-1][1] == rate):
            state = set_rate(state, rate)
    else:
        if rate is not None:
            raise ValueError("rate changes the rate of a resumed run; a new run takes alpha")
        state = initial_state(seed, hidden, alpha, decay_games, backgammons, features)
        state.lam = float(lam)
        if init_from is not None:
            state = _start_from_weights(state, init_from, features)
    if command is not None:
        state.commands.append(command)
    checkpoint_every = check_count(checkpoint_every, "checkpoint_every")
    next_save = state.games_done + checkpoint_every
    next_log = state.games_done + log_every
    while state.games_done < games:
        # Stop at the next rate step, so the rates do not depend on where runs were cut.
        step_end = state.games_done - state.games_done % RATE_STEP + RATE_STEP
        n = min(games, step_end) - state.games_done
        rate = learning_rate(state.alpha, state.decay_games, state.games_done)
        t0 = time.perf_counter()
        counts = state.net.train(n, state.rng_state, rate, state.backgammons, state.lam)
        state.elapsed_s += time.perf_counter() - t0
        state.games_done += n
        state.plies += int(counts[7])
        state.outcomes = [a + int(b) for a, b in zip(state.outcomes, counts[:6])]
        if state.games_done >= next_log or state.games_done >= games:
            next_log = state.games_done + log_every
            _log_progress(state, rate)
        if on_progress is not None:
            on_progress(state)
        stopping = stop is not None and stop()
        if checkpoint is not None and (state.games_done >= next_save or state.games_done >= games
                                       or stopping):
            next_save = state.games_done + checkpoint_every
            save_checkpoint(checkpoint, state)
        if stopping:
            break
    return state


def _log_progress(state: TrainingState, rate: float) -> None:
    n = max(state.games_done, 1)
    o = state.outcomes
    log.info(
        "%d games, %.0f s (%.0f games/s), lambda %g, alpha %.4f, mean %.1f plies, gammons %.1f%%",
        state.games_done, state.elapsed_s, state.games_done / max(state.elapsed_s, 1e-9), state.lam, rate,
        state.plies / n, 100.0 * (o[1] + o[2] + o[4] + o[5]) / n,
    )
