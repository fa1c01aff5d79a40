"""Speed of the neural evaluator: 0-ply evaluations per second, and neural games per second.

Run with ``python -m pytest bench/bench_neural.py --benchmark-only``.  The positions are those
met in random games (contact, hits and bear-offs); each benchmark asserts its workload first.
"""

from __future__ import annotations

import numpy as np
import pytest

from tavli_fast import _core, simulate
from tavli_fast.neural import default_net
from tavli_fast.position import Position

N_POSITIONS = 20_000


def positions(n: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    start = Position.initial().board
    out = np.empty((n, 2, 26), dtype=np.int8)
    board = start.copy()
    for i in range(n):
        out[i] = board
        plays = _core.generate(board, *rng.integers(1, 7, 2))
        after = plays[rng.integers(len(plays))]
        board = start.copy() if after[0, 0] == 15 else np.ascontiguousarray(after[::-1])
    return out


@pytest.fixture(scope="module")
def boards() -> np.ndarray:
    return positions(N_POSITIONS)


def test_evaluations_0ply(benchmark, boards):
    net = default_net()
    out = net.evaluate_many(boards)
    assert out.shape == (N_POSITIONS, 5) and np.all(out[:, 1] <= out[:, 0])
    benchmark.extra_info["positions"] = N_POSITIONS
    benchmark(net.evaluate_many, boards)


def test_evaluations_0ply_without_the_hand_features(benchmark, boards):
    """The shipped net cut to its 198 raw inputs: what the hand features cost."""
    w1, b1, w2, b2 = default_net().arrays()
    net = _core.NeuralNet(w1[:_core.NEURAL_BASE_INPUTS], b1, w2, b2)
    assert net.n_inputs == 198
    benchmark.extra_info["positions"] = N_POSITIONS
    benchmark(net.evaluate_many, boards)


def test_neural_games(benchmark):
    games = 200
    r = simulate("start", games=games, players=("neural", "neural"), seed=3)
    assert r.games == games and r.plies_mean > 15
    benchmark.extra_info["games"] = games
    benchmark(simulate, "start", games=games, players=("neural", "neural"), seed=3)
