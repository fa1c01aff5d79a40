"""The Plakoto and Fevga nets' numbers, checked two ways (issue 44's speed-up of the full
evaluation had to leave every bit as it was).

- The inputs equal those of a plain, point-by-point encoder written here from the layout at
  the top of kernels/_variant_inputs.pxi, and the outputs a numpy forward pass of them.
- The outputs of the nets shipped then (evaluate_many fast and exact, play_probs), the players'
  games and a few TD training games equal, bit for bit, figures recorded in
  tests/data/variant_net_numbers.json by the code before that change (commit 24eed52):
  the order of the float sums fixes the results, and the shipped nets' recipes repeat
  their training only if the numbers do.  ``python tests/variants/test_variant_net_numbers.py``
  writes the figures again (only for a deliberate change of the numbers).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.variants.games import random_game_positions
from tavli_fast.variants.movegen import GAME_CODES, generate_variant_positions
from tavli_fast.variants.neural import load_variant_net, variant_net_from_seed

DATA = Path(__file__).resolve().parents[1] / "data" / "variant_net_numbers.json"
GAMES = ("plakoto", "fevga")
#: The nets the figures were recorded with (the shipped ones then; Plakoto's v2 is among the
#: earlier nets now, ``pip install ./nets``).
RECORDED_NETS = {"plakoto": "plakoto-v2.npz", "fevga": "fevga-v2.npz"}


# ---------------------------------------------------------------- the plain encoder

def _pins_of_row1(board: np.ndarray, pinned: int) -> int:
    """Row 1's pinned checkers (its numbering): its lone checker under row 0's checkers,
    where row 0's is not the pinned one (Plakoto)."""
    pins = 0
    for t in range(1, 25):
        if board[1][25 - t] == 1 and board[0][t] > 0 and not (pinned >> t) & 1:
            pins |= 1 << (25 - t)
    return pins


def _points(x: np.ndarray, base: int, me) -> None:
    for p in range(1, 25):
        n = int(me[p])
        u = base + 4 * (p - 1)
        x[u] = n >= 1
        x[u + 1] = n >= 2
        x[u + 2] = n >= 3
        x[u + 3] = (n - 3) / 2 if n > 3 else 0.0


def _pips(me) -> float:
    return sum(p * max(int(me[p]), 0) for p in range(1, 25)) / 360


def _plakoto_side(x, base, me, him, my_pins, his_pins) -> None:
    _points(x, base, me)
    for p in range(1, 25):
        x[base + 96 + p - 1] = (my_pins >> p) & 1
    x[base + 120] = me[24] == 1 and not (my_pins >> 24) & 1

    def his_movable(p: int) -> bool:          # his checker, not pinned, on my point p
        return him[25 - p] > 0 and not (his_pins >> (25 - p)) & 1

    exposed = 0
    for p in range(1, 25):
        lone = me[p] == 1 and not (my_pins >> p) & 1 and him[25 - p] == 0
        if lone and any(his_movable(p - d) for d in range(1, 7) if p - d >= 1):
            exposed += 1
    x[base + 121] = exposed / 3
    x[base + 122] = all(me[p] <= 0 for p in range(7, 25)) and my_pins == 0
    x[base + 123] = me[0] / 15
    x[base + 124] = _pips(me)


def _longest_run(flags: list[bool]) -> int:
    best = run = 0
    for f in flags:
        run = run + 1 if f else 0
        best = max(best, run)
    return best


def _fevga_side(x, base, me, him) -> None:
    _points(x, base, me)
    x[base + 96] = me[24] > 0 and me[0] == 0 and all(me[p] <= 0 for p in range(1, 12))
    his = [q for q in range(1, 25) if him[q] > 0]
    if his:
        across = lambda q: (q + 11) % 24 + 1            # his point q is my point across(q)
        behind = [me[across(q)] > 0 for q in range(max(his) - 1, 0, -1)]
        x[base + 97] = _longest_run(behind) / 6
        x[base + 98] = sum(behind) / 12
        x[base + 99] = _longest_run([me[across(q)] > 0 for q in range(min(his) - 1, 0, -1)]) >= 6
    x[base + 100] = all(me[p] <= 0 for p in range(7, 25))
    x[base + 101] = me[0] / 15
    x[base + 102] = _pips(me)


def plain_inputs(game: str, board: np.ndarray, pinned: int) -> np.ndarray:
    board = board.astype(int)
    x = np.zeros(_core.VARIANT_NET_INPUTS[GAME_CODES[game]])
    if game == "plakoto":
        other = _pins_of_row1(board, pinned)
        _plakoto_side(x, 0, board[0], board[1], pinned, other)
        _plakoto_side(x, 125, board[1], board[0], other, pinned)
    else:
        _fevga_side(x, 0, board[0], board[1])
        _fevga_side(x, 103, board[1], board[0])
    return x


def _boards(game: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions from random games, then random boards (any counts 0-15, any pins)."""
    positions = random_game_positions(game, 2, seed=seed)[::3]
    boards = [p.core_board() for p in positions]
    pinned = [p.pinned_mask() for p in positions]
    rng = np.random.default_rng(seed)
    for _ in range(60):
        b = rng.integers(0, 16, size=(2, 26)) * (rng.random((2, 26)) < rng.uniform(0.1, 0.6))
        b[:, 25] = 0
        boards.append(b)
        pinned.append(int(rng.integers(0, 1 << 25)) & 0x1FFFFFE if game == "plakoto" else 0)
    return np.stack(boards).astype(np.int8), np.array(pinned, dtype=np.uint32)


@pytest.mark.parametrize("game", GAMES)
def test_inputs_equal_the_plain_encoder_of_the_documented_layout(game):
    boards, pinned = _boards(game, 3)
    for board, mask in zip(boards, pinned):
        got = _core.variant_neural_inputs(GAME_CODES[game], board, int(mask))
        expected = plain_inputs(game, board, int(mask))
        assert np.array_equal(got, expected), np.flatnonzero(got != expected)


@pytest.mark.parametrize("game", GAMES)
def test_outputs_equal_a_numpy_forward_pass_of_the_plain_inputs(game):
    net = variant_net_from_seed(game, 11, hidden=48)
    boards, pinned = _boards(game, 5)
    w1, b1, w2, b2 = net.arrays()
    x = np.stack([plain_inputs(game, b, int(m)) for b, m in zip(boards, pinned)])
    p = 1 / (1 + np.exp(-(w2 @ (1 / (1 + np.exp(-(x @ w1 + b1)))).T + b2[:, None]))).T
    p[:, 1] = np.minimum(p[:, 1], p[:, 0])
    p[:, 2] = np.minimum(p[:, 2], p[:, 1])
    p[:, 3] = np.minimum(p[:, 3], 1 - p[:, 0])
    p[:, 4] = np.minimum(p[:, 4], p[:, 3])
    np.testing.assert_allclose(net.evaluate_many(boards, pinned, exact=True), p, atol=1e-12)
    np.testing.assert_allclose(net.evaluate_many(boards, pinned), p, atol=1e-4)


# ---------------------------------------------------------------- the recorded figures

def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(a).astype("<f8").tobytes()).hexdigest()


def figures(game: str) -> dict:
    """The numbers of the variant nets that must not change, for `game`."""
    code = GAME_CODES[game]
    net = load_variant_net(RECORDED_NETS[game], game)[0]
    positions = random_game_positions(game, 6, seed=21)
    boards = np.stack([p.core_board() for p in positions]).astype(np.int8)
    pinned = np.array([p.pinned_mask() for p in positions], dtype=np.uint32)
    fast = net.evaluate_many(boards, pinned)
    rng = np.random.default_rng(22)
    plays, chosen = [], []
    for position in positions[::4]:
        d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
        after = generate_variant_positions(game, position, d1, d2)
        if after:
            board, mask = position.core_board(), position.pinned_mask()
            stack = np.stack([a.core_board() for a in after]).astype(np.int8)
            plays.append(net.play_probs(board, mask, stack))
            chosen.append(net.choose(board, mask, stack))
    start = np.zeros((2, 26), dtype=np.int8)
    start[:, 24] = 15
    outcomes = np.zeros(60, dtype=np.int8)
    games = _core.run_variant_games(start, 0, code, 0, 60, 2, 1, 23, outcomes=outcomes, net=net)
    learner = variant_net_from_seed(game, 24, hidden=16)
    state = np.array([25, 26, 27, 28], dtype=np.uint64)
    counts = learner.train(8, state, 0.1, 0.7)
    return {
        "positions": len(positions),
        "evaluate_many": _digest(fast),
        "evaluate_many_first": [float(v).hex() for v in fast[0]],
        "evaluate_many_exact": _digest(net.evaluate_many(boards, pinned, exact=True)),
        "play_probs": _digest(np.concatenate(plays)),
        "plays": sum(len(p) for p in plays),
        "choices": chosen,
        "games": games.tolist(),
        "outcomes": _digest(outcomes),
        "training": counts.tolist(),
        "trained_weights": [_digest(a) for a in learner.arrays()],
        "rng_state": [int(s) for s in state],
    }


@pytest.mark.parametrize("game", GAMES)
def test_the_nets_numbers_are_those_recorded(game):
    expected = json.loads(DATA.read_text())["games"][game]
    got = figures(game)
    assert got.keys() == expected.keys()
    assert [k for k in got if got[k] != expected[k]] == []


if __name__ == "__main__":
    DATA.write_text(json.dumps({"games": {g: figures(g) for g in GAMES}}, indent=1) + "\n")
    print(f"wrote {DATA}")
