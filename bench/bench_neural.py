"""Speed of the neural evaluator: 0-ply evaluations per second, and neural games per second.

Run with ``python -m pytest bench/bench_neural.py --benchmark-only``.  The positions are those
met in random games (contact, hits and bear-offs); each benchmark asserts its workload first.
Boards one at a time by the fast path and by the exact float64 path, and the plays of a roll
as the players evaluate them (``play_equities``); ``perf_neural.py`` prints them as a table.
"""

from __future__ import annotations

import numpy as np
import pytest

from tavli_fast import _core, simulate
from tavli_fast.play.neural import default_net
from tavli_fast.game.position import Position

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


def test_evaluations_0ply_exact(benchmark, boards):
    """The float64 reference path: the evaluator as it was before issue 10."""
    net = default_net()
    out = net.evaluate_many(boards, exact=True)
    assert np.abs(out - net.evaluate_many(boards)).max() < 1e-4
    benchmark.extra_info["positions"] = N_POSITIONS
    benchmark(net.evaluate_many, boards, exact=True)


def test_evaluations_of_the_plays_of_a_roll(benchmark, boards):
    """The plays of one roll of 2,000 positions, as changes to the position before the move."""
    net = default_net()
    rng = np.random.default_rng(7)
    items = [(b, _core.generate(b, *rng.integers(1, 7, 2))) for b in boards[:2_200]
             if b[0, 0] < 15 and b[1, 0] < 15][:2_000]
    plays = sum(len(p) for _, p in items)
    assert len(items) == 2_000 and plays > 20_000
    benchmark.extra_info["plays"] = plays
    benchmark(lambda: [net.play_equities(b, p) for b, p in items])


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
