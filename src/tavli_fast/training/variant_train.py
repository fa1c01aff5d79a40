"""TD(lambda) self-play training of the Plakoto and Fevga nets, with checkpoints that resume
exactly.

The games and the weight updates run in the compiled core (``VariantNet.train``, GIL
released, ``vn_train_game``); this module schedules the learning rate and checkpoints, as
``train.py`` does for backgammon: the initial weights and the dice come from the seed, the
rate of game ``g`` is ``alpha / (1 + g0 / decay_games)`` with ``g0`` = ``g`` rounded down to
a multiple of ``RATE_STEP``, and work is cut at those multiples, so a run resumed from any
checkpoint learns exactly as the unbroken run would have: the same seed gives the same
weights.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from .. import _core
from ..run.atomic import atomic_file
from ..checks import check_count, check_regular_file, check_seed
from .train import RATE_STEP, learning_rate
from ..variants.games import OUTCOMES
from ..variants.neural import save_variant_net, variant_net_from_seed
from ..variants.movegen import GAME_CODES

__all__ = ["VariantTrainingState", "new_run", "train_variant", "save_variant_checkpoint",
           "load_variant_checkpoint", "export_variant_net", "reproduce_command"]

log = logging.getLogger(__name__)
CHECKPOINT_MAGIC = "tavli_fast-variant-training"


@dataclass
class VariantTrainingState:
    """A training run: the net, the dice generator's state and what has been done."""

    game: str
    net: _core.VariantNet
    rng_state: np.ndarray  # uint64[4]
    seed: int
    alpha: float
    decay_games: int
    lam: float
    games_done: int = 0
    plies: int = 0
    outcomes: list[int] = field(default_factory=lambda: [0] * len(OUTCOMES))
    elapsed_s: float = 0.0
    commands: list[str] = field(default_factory=list)  # the command lines that ran it

    def meta(self) -> dict:
        return {"magic": CHECKPOINT_MAGIC, "game": self.game, "seed": self.seed,
                "hidden": self.net.hidden, "inputs": self.net.n_inputs, "alpha": self.alpha,
                "decay_games": self.decay_games, "lambda": self.lam,
                "games_done": self.games_done, "plies": self.plies,
                "outcomes": dict(zip(OUTCOMES, self.outcomes)), "elapsed_s": self.elapsed_s,
                "recipe": list(self.commands)}


def new_run(game: str, seed: int, hidden: int = 96, alpha: float = 0.05,
            decay_games: int = 200_000, lam: float = 0.7) -> VariantTrainingState:
    """A run from small random weights; weights and dice both drawn from ``seed``."""
    if game not in GAME_CODES:
        raise ValueError(f"no net for {game!r}: choose plakoto or fevga")
    seed = check_seed(seed)
    weights_seq, dice_seq = np.random.SeedSequence(seed).spawn(2)
    net = variant_net_from_seed(game, int(weights_seq.generate_state(1, np.uint64)[0]),
                                check_count(hidden, "hidden"))
    dice = int(dice_seq.generate_state(1, np.uint64)[0])
    if not 0 < alpha < 10:
        raise ValueError(f"alpha must be in (0, 10), got {alpha!r}")
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lambda must be in [0, 1], got {lam!r}")
    return VariantTrainingState(game, net, _core.rng_state(dice), seed, float(alpha),
                                check_count(decay_games, "decay_games"), float(lam))


def train_variant(state: VariantTrainingState, games: int,
                  on_chunk: Callable[[VariantTrainingState], None] | None = None) -> VariantTrainingState:
    """Train until ``state.games_done`` reaches ``games``, a RATE_STEP chunk at a time;
    ``on_chunk`` is called after each chunk (logging, checkpoints, a stop request)."""
    while state.games_done < games:
        step_end = state.games_done - state.games_done % RATE_STEP + RATE_STEP
        n = min(step_end, games) - state.games_done
        rate = learning_rate(state.alpha, state.decay_games, state.games_done)
        t0 = time.perf_counter()
        counts = state.net.train(n, state.rng_state, rate, state.lam)
        state.elapsed_s += time.perf_counter() - t0
        state.games_done += n
        state.plies += int(counts[len(OUTCOMES) + 1])
        state.outcomes = [a + int(b) for a, b in zip(state.outcomes, counts[:len(OUTCOMES)])]
        if on_chunk is not None:
            on_chunk(state)
    return state


def save_variant_checkpoint(path: str | Path, state: VariantTrainingState) -> None:
    """Write the whole run (weights, generator, progress) atomically to an .npz file."""
    w1, b1, w2, b2 = state.net.arrays()
    with atomic_file(Path(path)) as f:
        np.savez(f, w1=w1, b1=b1, w2=w2, b2=b2, rng_state=state.rng_state,
                 meta=np.array(json.dumps(state.meta())))


def load_variant_checkpoint(path: str | Path) -> VariantTrainingState:
    """The run saved by ``save_variant_checkpoint``; ValueError for another kind of file."""
    check_regular_file(path, "a training checkpoint")
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        if meta.get("magic") != CHECKPOINT_MAGIC:
            raise ValueError(f"{path}: not a Plakoto / Fevga training checkpoint")
        net = _core.VariantNet(GAME_CODES[meta["game"]], z["w1"], z["b1"], z["w2"], z["b2"])
        rng_state = np.array(z["rng_state"], dtype=np.uint64)
    return VariantTrainingState(
        meta["game"], net, rng_state, int(meta["seed"]), float(meta["alpha"]),
        int(meta["decay_games"]), float(meta["lambda"]), int(meta["games_done"]),
        int(meta["plies"]), [int(meta["outcomes"][k]) for k in OUTCOMES],
        float(meta["elapsed_s"]), list(meta.get("recipe", [])))


def reproduce_command(state: VariantTrainingState) -> str:
    """One command that trains the same weights from scratch: a run stopped or resumed at any
    point learns exactly as an unbroken run of its length (see the module docstring)."""
    return (f"tavli-train --game {state.game} --games {state.games_done} --seed {state.seed} "
            f"--hidden {state.net.hidden} --alpha {state.alpha:g} --decay-games "
            f"{state.decay_games} --lambda {state.lam:g}")


def export_variant_net(path: str | Path, state: VariantTrainingState, version: str) -> None:
    """The run's net as a weights file whose ``training`` records the run, the commands that
    ran it (``recipe``) and one command that repeats it (``reproduce``)."""
    training = {k: v for k, v in state.meta().items() if k not in ("magic", "hidden", "inputs")}
    training["method"] = (f"TD({state.lam:g}) self-play from random weights: "
                          f"{state.games_done:,} games, seed {state.seed}")
    training["reproduce"] = reproduce_command(state)
    save_variant_net(path, state.net, version, training=training)
