"""Readouts of a Plakoto or Fevga net refitted to the outcomes of its own games.

TD self-play teaches the hidden layer what to look at, but its five readouts drift from what
really happens: the shipped v1 nets expected more wins and more 2-point games at the start
than their own self-play gave. This is the supervised round that fixed the same fault in the
backgammon net (``tavli-train --fit --outputs-only``), for the variants:

1. play ``games`` self-play games with the net at 0 ply from the start (the first roll may be
   a double, T3) and keep every position with a player on roll, as he sees it;
2. label each with the outcome of its game for that player: won, won 2 points (the loser bore
   off none, P7, F7, or the mother rule P5), won by the mother rule, lost 2 points, lost by
   the mother rule; a Plakoto draw (P6) counts half a win and nothing else;
3. keep the hidden layer as it is and fit each readout (a logistic regression on the hidden
   units' values) to those labels by Newton's method, starting from the net's own readout,
   with a small ridge penalty towards it;
   or, with ``hidden=True`` (``--refit-hidden``), fit every weight, the hidden layer too, by
   minibatch gradient descent (Adam) on the five outputs' cross-entropy, starting from the
   net, and keep the epoch that fits a tenth of the games held out best. A fixed hidden layer
   gets the readouts right on average but can leave positions unlike most (the start among
   them) off; TD taught the hidden layer, this lets the outcomes correct it.

The games' dice come from ``seed`` (numpy's PCG64), so the same net, games and seed give the
same weights (the full fit's minibatch order too). The readout fit changes only ``w2`` and
``b2``; the hidden layer, and so most of what the net knows, stays.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

from .. import _core
from ..checks import check_count, check_seed
from ..variants.movegen import game_name, position_after
from ..variants.neural import load_variant_net, save_variant_net, variant_weights_file
from ..variants.position import PlakotoPosition, VariantPosition, variant_position
from .adam import Adam
from .recipes import with_ancestors

__all__ = ["SelfPlay", "self_play", "outcome_labels", "refit_readouts", "refit_all",
           "readout_calibration", "export_refitted"]

#: Newton steps and the ridge penalty (towards the net's own readout) of each fit.
NEWTON_STEPS = 8
RIDGE = 1e-3
#: The full fit: epochs (the best on the held-out games is kept), minibatch, Adam's step size.
EPOCHS = 3
MINIBATCH = 512
RATE = 1e-4
HELD_OUT = 10  # one game in HELD_OUT is kept out of the fit to choose the epoch
_BATCH = 50_000  # positions whose inputs are encoded at once (memory, not results)


@dataclass(frozen=True)
class SelfPlay:
    """The positions of self-play games and their outcomes for the player on roll."""

    game: str
    boards: np.ndarray  # int8[N, 2, 26], each seen by its player on roll
    pinned: np.ndarray  # uint32[N]
    labels: np.ndarray  # float64[N, 5]: win, win 2 points, win by mother, lose 2, lose by mother
    starts: np.ndarray  # int64[games]: the index of each game's first position

    @property
    def positions(self) -> int:
        return len(self.pinned)


def outcome_labels(final: VariantPosition) -> np.ndarray:
    """The five labels of a finished game for the player who made its last play (``final``
    as he sees it, sides not switched): only he can have ended it, by bearing off his last
    checker or by pinning the opposing mother (P5, P6 judge at the end of the pinner's turn)."""
    if final.me_off == 15:
        return np.array([1.0, float(final.opp_off == 0), 0.0, 0.0, 0.0])
    if isinstance(final, PlakotoPosition):
        mine, his = final.mother_pinned()
        if mine and his:  # P6: a draw
            return np.array([0.5, 0.0, 0.0, 0.0, 0.0])
        if his:  # P5: his mother pinned and none of mine left to catch
            return np.array([1.0, 1.0, 1.0, 0.0, 0.0])
    raise ValueError(f"not a finished game won or drawn by its last mover: {final.variant_id()}")


def _other_side(labels: np.ndarray) -> np.ndarray:
    """The same outcome for the other player."""
    win, win2, win_mother, lose2, lose_mother = labels
    return np.array([1.0 - win, lose2, lose_mother, win2, win_mother])


def self_play(net: _core.VariantNet, games: int, seed: int, max_plies: int = 2000) -> SelfPlay:
    """Every position with a player on roll in ``games`` games of the net at 0 ply against
    itself from the start, and the outcome of its game for that player."""
    games, seed = check_count(games, "games"), check_seed(seed)
    game = game_name(net.game)
    rng = np.random.Generator(np.random.PCG64(seed))
    boards: list[np.ndarray] = []
    pinned: list[int] = []
    labels: list[np.ndarray] = []
    starts = np.zeros(games, dtype=np.int64)
    for g in range(games):
        starts[g] = len(pinned)
        position = variant_position(game, None)
        for ply in range(max_plies):
            board, mask = position.core_board(), position.pinned_mask()
            boards.append(board)
            pinned.append(mask)
            d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            plays = _core.variant_generate(board, net.game, mask, 0, d1, d2)
            best = net.choose(board, mask, plays) if len(plays) > 1 else 0
            after = position_after(position, plays[best])
            if after.is_game_over():
                break
            position = after.sides_switched()
        else:  # pragma: no cover - a game that never ends is a rules bug
            raise RuntimeError(f"a {game} self-play game did not end in {max_plies} plies")
        last = outcome_labels(after)
        other = _other_side(last)
        # The last position's player made the last play; the sides alternate before it.
        labels += [last if (ply - k) % 2 == 0 else other for k in range(ply + 1)]
    return SelfPlay(game, np.array(boards, dtype=np.int8), np.array(pinned, dtype=np.uint32),
                    np.array(labels), starts)


def _inputs(net: _core.VariantNet, boards: np.ndarray, pinned: np.ndarray,
            lo: int, hi: int) -> np.ndarray:
    """float64[hi - lo, inputs]: the net's inputs of positions lo..hi."""
    return np.array([_core.variant_neural_inputs(net.game, boards[i], int(pinned[i]))
                     for i in range(lo, hi)])


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def _hidden(net: _core.VariantNet, boards: np.ndarray, pinned: np.ndarray) -> np.ndarray:
    """float64[N, hidden + 1]: the hidden units' values of each position and a constant 1."""
    w1, b1, _, _ = net.arrays()
    out = np.empty((len(pinned), net.hidden + 1))
    out[:, -1] = 1.0
    for lo in range(0, len(pinned), _BATCH):
        hi = min(lo + _BATCH, len(pinned))
        out[lo:hi, :-1] = _sigmoid(_inputs(net, boards, pinned, lo, hi) @ w1 + b1)
    return out


def _logistic_fit(h: np.ndarray, y: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Weights v of sigmoid(h @ v) fitted to ``y`` by Newton's method from ``start``,
    penalised by RIDGE * n * |v - start|^2 / 2 (it keeps unseen readouts, e.g. Fevga's
    mother outputs, where they were)."""
    n = len(y)
    v = start.copy()
    ridge = RIDGE * n * np.eye(len(v))
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-(h @ v)))
        grad = h.T @ (p - y) + ridge @ (v - start)
        hess = (h * (p * (1.0 - p))[:, None]).T @ h + ridge
        v = v - np.linalg.solve(hess, grad)
    return v


def refit_readouts(net: _core.VariantNet, data: SelfPlay) -> _core.VariantNet:
    """A new net: ``net``'s hidden layer with each readout refitted to ``data``'s outcomes."""
    w1, b1, w2, b2 = net.arrays()
    h = _hidden(net, data.boards, data.pinned)
    new_w2, new_b2 = w2.copy(), b2.copy()
    for k in range(5):
        v = _logistic_fit(h, data.labels[:, k], np.append(w2[k], b2[k]))
        new_w2[k], new_b2[k] = v[:-1], v[-1]
    return _core.VariantNet(net.game, w1, b1, new_w2, new_b2)


def _cross_entropy(params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    w1, b1, w2, b2 = params
    p = np.clip(_sigmoid(_sigmoid(x @ w1 + b1) @ w2.T + b2), 1e-12, 1 - 1e-12)
    return float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).sum(axis=1).mean())


def refit_all(net: _core.VariantNet, data: SelfPlay, seed: int, epochs: int = EPOCHS,
              progress: Callable[[str], None] | None = None) -> _core.VariantNet:
    """A new net: every weight of ``net`` fitted to ``data``'s outcomes (the hidden layer
    too), by Adam on minibatches of MINIBATCH positions in an order drawn from ``seed``; of
    the ``epochs`` epochs the one whose net fits the held-out games best is returned (the
    starting net if none does better)."""
    game_of = np.searchsorted(data.starts, np.arange(data.positions), side="right") - 1
    held = game_of % HELD_OUT == HELD_OUT - 1
    x = _inputs(net, data.boards, data.pinned, 0, data.positions)
    x_fit, y_fit = x[~held], data.labels[~held]
    x_held, y_held = x[held], data.labels[held]
    params = [np.array(a, dtype=np.float64) for a in net.arrays()]  # w1 (I, H), b1, w2 (5, H), b2
    best, best_loss = [a.copy() for a in params], _cross_entropy(params, x_held, y_held)
    if progress:
        progress(f"held-out cross-entropy {best_loss:.5f} (the starting net)")
    adam = Adam(params)
    rng = np.random.Generator(np.random.PCG64(seed))
    for epoch in range(epochs):
        order = rng.permutation(len(x_fit))
        for lo in range(0, len(order), MINIBATCH):
            idx = order[lo:lo + MINIBATCH]
            xb, yb = x_fit[idx], y_fit[idx]
            w1, b1, w2, b2 = params
            h = _sigmoid(xb @ w1 + b1)
            out = _sigmoid(h @ w2.T + b2) - yb           # d(cross-entropy)/d(output's logit)
            out /= len(idx)
            dh = (out @ w2) * h * (1.0 - h)
            grads = [xb.T @ dh, dh.sum(axis=0), out.T @ h, out.sum(axis=0)]
            adam.update(params, grads, RATE)
        loss = _cross_entropy(params, x_held, y_held)
        if progress:
            progress(f"epoch {epoch + 1}: held-out cross-entropy {loss:.5f}")
        if loss < best_loss:
            best, best_loss = [a.copy() for a in params], loss
    return _core.VariantNet(net.game, *best)


def readout_calibration(net: _core.VariantNet, data: SelfPlay) -> dict[str, np.ndarray]:
    """The net's mean estimate of each readout over ``data``'s positions and at the games'
    starts, beside the outcomes' means (``*_outcome``) and their SEs at the start."""
    probs = net.evaluate_many(data.boards, data.pinned, exact=True)
    start = data.starts
    return {
        "mean_estimate": probs.mean(axis=0), "mean_outcome": data.labels.mean(axis=0),
        "start_estimate": probs[start[0]], "start_outcome": data.labels[start].mean(axis=0),
        "start_outcome_se": data.labels[start].std(axis=0, ddof=1) / np.sqrt(len(start)),
    }


def export_refitted(path: str | os.PathLike, net: _core.VariantNet, base: str | os.PathLike,
                    games: int, seed: int, command: str, version: str,
                    hidden: bool = False) -> None:
    """Write ``net`` (refitted from the weights file ``base`` on ``games`` self-play games of
    ``seed``; with ``hidden``, every weight) as a weights file whose ``training`` names its
    start file by SHA-256 and holds the whole chain that made it (``recipes.with_ancestors``),
    so ``tavli-train --recipe`` prints every step from this file alone."""
    base_path = variant_weights_file(base)
    _, base_meta = load_variant_net(base_path)
    fitted = ("every weight of {} (the hidden layer too)" if hidden else
              "the readouts of {}").format(base_meta.get("version"))
    kept = "" if hidden else " (the hidden layer kept)"
    training = {
        "method": (f"{fitted} refitted to the outcomes of {games:,} of its self-play games, "
                   f"seed {seed}{kept}"),
        "recipe": [command],
        "start": {"file": base_path.name, "sha256": base_meta["sha256"]},
        "refit": ({"games": games, "seed": seed, "hidden": True, "epochs": EPOCHS,
                   "minibatch": MINIBATCH, "rate": RATE, "held_out": HELD_OUT} if hidden else
                  {"games": games, "seed": seed, "newton_steps": NEWTON_STEPS, "ridge": RIDGE}),
    }
    before = (base_meta.get("training") or {}).get("reproduce")
    if before:  # the start net's own line (which writes the start file), then this one
        if "--export" not in before.split(" && ")[-1]:  # a TD run's line writes no file
            before += f" --export {base_path.name} --net-version {base_meta.get('version')}"
        training["reproduce"] = f"{before} && {command}"
    save_variant_net(path, net, version, training=with_ancestors(training, base_path))
