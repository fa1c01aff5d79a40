"""The pruning net (issue 54): a small net on the raw inputs, distilled from the shipped net,
that ranks the plays of a roll for the replies' pre-filter (``_nn_prefilter.pxi``).

The pre-filter values with the big net only the plays its estimate ranks best. The first-order
estimate (the slope at the base) misses what the big net's hand features see; a small net
trained to copy the big net's values of the positions after the plays ranks them much as the
big net does, evaluated incrementally from the base like the big net (a few rows of a narrow
hidden layer) at a small part of its cost.

The data, all from our own engine and net:

1. ``games`` 0-ply self-play games of the shipped net (``explore``: the share of turns played
   at random, so that poorer positions are seen too); the positions before each roll with
   contact left;
2. for each, ``rolls`` rolls drawn at random and every play of each: the position after the
   play (the opponent on roll), kept if contact remains (a play into a race or a bear-off is
   never estimated: the pre-filter always keeps it);
3. the label of each: the big net's five probabilities of that position (its fast path).

The fit: every weight by Adam on minibatches of whole rolls, minimising the five outputs'
cross-entropy plus ``rank_weight`` times the squared error of each play's equity measured
from the mean of its roll's plays (what the ranking needs: an error common to a roll's plays
changes no choice). A tenth of the rolls (by position) is held out; the epoch whose net picks
the big net's best play most often on them is kept. Same arguments, same weights (numpy's
PCG64 from ``seed`` for the minibatches and the initial weights; the engine's generator from
``seed`` for the games and rolls).

Command (``python -m tavli_fast.training.prune_train --help``)::

    python -m tavli_fast.training.prune_train --out src/tavli_fast/data/prune-v17-32.npz
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from .. import _core
from ..checks import check_count, check_seed
from ..play.neural import DEFAULT_WEIGHTS, load_net, save_net
from .adam import Adam

__all__ = ["PruneData", "sample_plays", "fit_pruning_net", "top1_agreement", "main"]

HELD_OUT = 10           # every 10th position's rolls are held out
MINIBATCH_ROLLS = 256   # rolls (groups of plays) a minibatch
_EQUITY = np.array([2.0, 1.0, 1.0, -1.0, -1.0])   # money equity = _EQUITY . p - 1


@dataclass
class PruneData:
    """The plays of the sampled rolls: ``x`` float32[n, 198] the raw inputs of each position
    after a play (the opponent on roll), ``y`` float64[n, 5] the big net's probabilities of
    it, ``group`` int64[n] the roll each play belongs to (plays of a roll are contiguous),
    ``position`` int64[groups] the position each roll was drawn for."""

    x: np.ndarray
    y: np.ndarray
    group: np.ndarray
    position: np.ndarray


def sample_plays(games: int, seed: int, rolls: int = 2, explore: float = 0.05,
                 net: _core.NeuralNet | None = None) -> PruneData:
    """The training data (see the module's docstring) from `games` self-play games of `net`
    (None: the shipped net as its file holds it, without bear-off databases, as the labels
    need its own values)."""
    check_count(games, "games")
    check_seed(seed)
    net = net if net is not None else load_net(DEFAULT_WEIGHTS)[0]
    state = _core.rng_state(seed)
    boards = net.selfplay_positions(games, state, explore)
    boards = np.ascontiguousarray(boards[~_core.races(boards)])
    rng = np.random.Generator(np.random.PCG64(seed))
    dice = rng.integers(1, 7, size=(len(boards), rolls, 2)).astype(np.int8)
    xs, groups, positions = [], [], []
    g = 0
    for i, board in enumerate(boards):
        for d1, d2 in dice[i]:
            plays = _core.generate(board, int(d1), int(d2))
            after = np.ascontiguousarray(plays[:, ::-1, :])          # the opponent on roll
            after = after[(after[:, 1, 0] < 15) & ~_core.races(after)]
            if len(after) < 2:                                       # nothing to rank
                continue
            xs.append(after)
            groups.append(np.full(len(after), g))
            positions.append(i)
            g += 1
    after = np.concatenate(xs)
    y = net.evaluate_many(after)
    x = _core.neural_inputs_many(after, _core.NEURAL_BASE_INPUTS)
    return PruneData(x, y, np.concatenate(groups), np.array(positions))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def _forward(params: list[np.ndarray], x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    w1, b1, w2, b2 = params
    h = _sigmoid(x @ w1 + b1)
    return h, _sigmoid(h @ w2.T + b2)


def top1_agreement(params: list[np.ndarray], data: PruneData, rows: np.ndarray) -> float:
    """The share of the rolls among `rows` (plays, whole rolls) where the net's best play
    for the mover (the lowest equity of the opponent on roll) is the big net's."""
    _, p = _forward(params, data.x[rows])
    mine = p @ _EQUITY
    theirs = data.y[rows] @ _EQUITY
    grp = data.group[rows]
    starts = np.flatnonzero(np.r_[True, grp[1:] != grp[:-1]])
    hits = 0
    for a, b in zip(starts, np.r_[starts[1:], len(rows)]):
        hits += int(np.argmin(mine[a:b]) == np.argmin(theirs[a:b]))
    return hits / len(starts)


def fit_pruning_net(data: PruneData, hidden: int, seed: int, epochs: int = 20,
                    rate: float = 0.003, rank_weight: float = 4.0,
                    progress: Callable[[str], None] | None = None
                    ) -> tuple[list[np.ndarray], dict]:
    """(w1 (198, hidden), b1, w2 (5, hidden), b2) fitted to `data` (the module's docstring),
    and a summary (held-out agreement per epoch)."""
    check_count(hidden, "hidden")
    rng = np.random.Generator(np.random.PCG64(seed))
    held_group = data.position % HELD_OUT == HELD_OUT - 1
    held_rows = np.flatnonzero(held_group[data.group])
    fit_groups = np.flatnonzero(~held_group)
    bounds = np.searchsorted(data.group, np.arange(len(data.position) + 1))
    n_in = data.x.shape[1]
    params = [rng.normal(0, 1 / np.sqrt(n_in), (n_in, hidden)), np.zeros(hidden),
              rng.normal(0, 1 / np.sqrt(hidden), (5, hidden)), np.zeros(5)]
    adam = Adam(params)
    best, best_score, history = [a.copy() for a in params], -1.0, []
    for epoch in range(epochs):
        order = rng.permutation(fit_groups)
        for lo in range(0, len(order), MINIBATCH_ROLLS):
            chosen = order[lo:lo + MINIBATCH_ROLLS]
            rows = np.concatenate([np.arange(bounds[k], bounds[k + 1]) for k in chosen])
            xb, yb = data.x[rows].astype(np.float64), data.y[rows]
            # Each play's roll, renumbered 0..len(chosen)-1, for the means of a roll.
            local = np.repeat(np.arange(len(chosen)), bounds[chosen + 1] - bounds[chosen])
            counts = np.bincount(local)
            h, p = _forward(params, xb)
            n = len(rows)
            d_logit = (p - yb) / n                           # cross-entropy
            err = (p - yb) @ _EQUITY
            err -= (np.bincount(local, err) / counts)[local]   # measured from the roll's mean
            d_logit += (rank_weight * 2.0 / n) * err[:, None] * _EQUITY * p * (1.0 - p)
            w1, b1, w2, b2 = params
            dh = (d_logit @ w2) * h * (1.0 - h)
            grads = [xb.T @ dh, dh.sum(axis=0), d_logit.T @ h, d_logit.sum(axis=0)]
            adam.update(params, grads, rate)
        score = top1_agreement(params, data, held_rows)
        history.append(round(score, 4))
        if progress:
            progress(f"epoch {epoch + 1}: held-out best-play agreement {score:.4f}")
        if score > best_score:
            best, best_score = [a.copy() for a in params], score
    return best, {"held_out_agreement": history, "best": round(best_score, 4)}


def main(argv: list[str] | None = None) -> int:
    """Sample, fit and save a pruning net (the command of the module's docstring)."""
    ap = argparse.ArgumentParser(description="Train the pruning net of the replies' pre-filter.")
    ap.add_argument("--out", required=True, help="the weights file to write (.npz)")
    ap.add_argument("--games", type=int, default=2000, help="self-play games")
    ap.add_argument("--rolls", type=int, default=2, help="rolls drawn a position")
    ap.add_argument("--hidden", type=int, default=32)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--rank-weight", type=float, default=4.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    start = time.process_time()
    data = sample_plays(args.games, args.seed, args.rolls)
    print(f"{len(data.x):,} plays of {len(data.position):,} rolls "
          f"({time.process_time() - start:.0f} CPU s)", flush=True)
    params, summary = fit_pruning_net(data, args.hidden, args.seed, args.epochs,
                                      rank_weight=args.rank_weight,
                                      progress=lambda s: print(s, flush=True))
    seconds = time.process_time() - start
    net = _core.NeuralNet(*params)
    target = load_net(DEFAULT_WEIGHTS)[1]
    save_net(Path(args.out), net, f"prune-{target.get('version')}-{args.hidden}",
             role="pruning", target_sha256=target["sha256"],
             training={"module": "tavli_fast.training.prune_train", "games": args.games,
                       "rolls": args.rolls, "hidden": args.hidden, "epochs": args.epochs,
                       "rank_weight": args.rank_weight, "seed": args.seed,
                       "plays": int(len(data.x)), "cpu_seconds": round(seconds),
                       **summary})
    print(f"wrote {args.out} ({seconds:.0f} CPU s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
