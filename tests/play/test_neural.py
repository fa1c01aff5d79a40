"""The neural evaluator: encoding and forward pass against an independent numpy reference,
the fast float32 path against it and against the exact float64 path (within 1e-4), the fast
sigmoid's error, the SIMD kernels' agreement, consistency, the weights file (format,
checksum, shipped copy), training reproducibility and resume, the neural players, choose(),
and a cheap strength smoke test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.play import neural
from tavli_fast.training import train
from tavli_fast.game.position import Position
from helpers import pos

START = Position.initial().board
FAST_TOLERANCE = 1e-4   # issue 10: the fast path's outputs within 1e-4 of the exact ones
NEURAL = int(_core.PlayerKind.PLAYER_NEURAL)
NEURAL_1PLY = int(_core.PlayerKind.PLAYER_NEURAL_1PLY)
RANDOM = int(_core.PlayerKind.PLAYER_RANDOM)


# ------------------------------------------------------------------ numpy reference


def reference_hits(mine: np.ndarray, theirs: np.ndarray, d1: int, d2: int) -> set[int]:
    """The points of `mine`'s blots that one of `theirs` can hit with the roll (d1, d2), moving
    die by die and stopping only on points `mine` has not made (the bar rule ignored)."""
    starts = [25 - q for q in range(1, 26) if theirs[q] > 0]  # their point q in my numbering
    hit = set()
    for m in starts:
        for path in ([[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]):
            at = m
            for d in path:
                at += d
                if at > 24 or mine[at] >= 2:
                    break
                if mine[at] == 1:
                    hit.add(at)
    return hit


def reference_shots(mine: np.ndarray, theirs: np.ndarray) -> int:
    """How many of the 36 rolls let one of `theirs` hit a blot of `mine`."""
    return sum(bool(reference_hits(mine, theirs, d1, d2)) for d1 in range(1, 7) for d2 in range(1, 7))


def reference_features(board: np.ndarray) -> list[float]:
    """The 5 hand features, from the description in _neural.pxi."""
    out = []
    rear = {}
    for side in range(2):
        mine, theirs = board[side].astype(int), board[1 - side].astype(int)
        rear[side] = 25 if mine[25] else max([p for p in range(1, 25) if mine[p]], default=0)
        run = longest = 0
        for p in range(1, rear[side]):
            run = run + 1 if theirs[25 - p] >= 2 else 0
            longest = max(longest, run)
        out += [reference_shots(mine, theirs) / 36, longest / 6]
    # Contact: my rearmost checker is behind (higher than) their rearmost, seen in my numbering.
    theirs_rear_in_mine = 25 - rear[1] if rear[1] else None
    out.append(float(rear[0] > 0 and theirs_rear_in_mine is not None
                     and theirs_rear_in_mine < rear[0]))
    return out


def reference_inputs(board: np.ndarray, features: bool = True, inputs: int | None = None) -> np.ndarray:
    """The 198 (+5, +11 with inputs=209, +17 with 215) inputs, written from the description in
    _neural.pxi (not from its code)."""
    n = inputs if inputs is not None else (203 if features else 198)
    x = np.zeros(n)
    if n > 198:
        x[198:203] = reference_features(board)
    if n > 203:
        x[203:209] = reference_extra_features(board)
    if n > 209:
        x[209:] = reference_timing_features(board)
    for side in range(2):
        row = board[side].astype(int)
        base = 99 * side
        for point in range(1, 25):
            n = row[point]
            unit = base + 4 * (point - 1)
            x[unit] = n >= 1
            x[unit + 1] = n >= 2
            x[unit + 2] = n >= 3
            x[unit + 3] = (n - 3) / 2 if n > 3 else 0.0
        x[base + 96] = row[25] / 2
        x[base + 97] = row[0] / 15
        x[base + 98] = (np.arange(1, 26) @ row[1:26]) / 167
    return x


def sigmoid(z):
    return 1 / (1 + np.exp(-z))


def reference_probs(arrays, board: np.ndarray) -> np.ndarray:
    w1, b1, w2, b2 = arrays
    hidden = sigmoid(reference_inputs(board, inputs=len(w1)) @ w1 + b1)
    p = sigmoid(w2 @ hidden + b2)
    win, wg, wbg, lg, lbg = p
    wg = min(wg, win)
    wbg = min(wbg, wg)
    lg = min(lg, 1 - win)
    lbg = min(lbg, lg)
    return np.array([win, wg, wbg, lg, lbg])


def equity(p) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def random_boards(n: int, seed: int) -> list[np.ndarray]:
    """Boards met in random games (row 0 on roll): contact, hits and bear-offs all appear."""
    rng = np.random.default_rng(seed)
    boards = []
    board = START.copy()
    while len(boards) < n:
        boards.append(board)
        plays = _core.generate(board, *rng.integers(1, 7, 2))
        after = plays[rng.integers(len(plays))]
        board = START.copy() if after[0, 0] == 15 else np.ascontiguousarray(after[::-1])
    return boards


def random_net(hidden: int, seed: int, scale: float = 0.3, out_bias=None,
               inputs: int = 203) -> _core.NeuralNet:
    rng = np.random.default_rng(seed)
    b2 = rng.normal(0, 1, 5) if out_bias is None else np.asarray(out_bias, dtype=float)
    return _core.NeuralNet(rng.normal(0, scale, (inputs, hidden)), rng.normal(0, scale, hidden),
                           rng.normal(0, scale, (5, hidden)), b2)


@pytest.fixture(scope="module")
def boards():
    return random_boards(600, seed=3)


# ------------------------------------------------------------------ encoding and forward pass


def test_inputs_of_the_starting_position_by_hand():
    x = _core.neural_inputs(START, features=False)
    assert x.shape == (198,)
    # 24-point: 2 checkers -> units 1, 1, 0, 0; 6-point: 5 checkers -> 1, 1, 1, 1.0.
    assert list(x[4 * 23: 4 * 24]) == [1, 1, 0, 0]
    assert list(x[4 * 5: 4 * 6]) == [1, 1, 1, 1.0]
    assert x[98] == pytest.approx(1.0) and x[99 + 98] == pytest.approx(1.0)  # 167 pips each
    assert x[96] == 0 and x[97] == 0
    assert np.count_nonzero(x) == 2 * (4 + 3 + 4 + 2 + 1)


def test_features_of_the_starting_position_by_hand():
    x = _core.neural_inputs(START)
    assert x.shape == (203,)
    np.testing.assert_array_equal(x[:198], _core.neural_inputs(START, features=False))
    # No blots: no shots. In front of each side's back checkers (its 24-point) the opponent
    # has made its 6 and 8 points (our 19 and 17): runs of one. The sides are in contact.
    assert list(x[198:]) == [0, 1 / 6, 0, 1 / 6, 1]


@pytest.mark.parametrize("text, shots_at_me, prime, contact", [
    # A blot on my 5-point, their checker on their 24 (my 1): 4 away. Rolls with a 4 (11),
    # 3-1 and 1-3 (2), 2-2 and 1-1 (2): 15 of 36.
    ("x 5:1 6:14; o 24:1 1:14", 15, 0, 1),
    # The same with my 3-point made: 1-1 and 2-2 must stop on it; 3-1 and 1-3 still hit,
    # through my 4 or my 2.  4s (11) + 3-1 and 1-3 (2): 13.
    ("x 5:1 3:2 6:12; o 24:1 1:14", 13, 0, 1),
    # A six-prime (their 2..7 = my 23..18) in front of my blot on my 24-point, their spares
    # on my 16 (a gap on 17 ends the run there); every die hits it directly from 18..23.
    ("x 24:1 6:14; o 2:2 3:2 4:2 5:2 6:2 7:2 9:3", 36, 6, 1),
    # A pure race: no contact, no shots even at a blot.
    ("x 1:1 2:14; o 1:1 3:14", 0, 0, 0),
])
def test_features_of_hand_checked_positions(text, shots_at_me, prime, contact):
    x = _core.neural_inputs(pos(text).board)
    assert x[198] * 36 == pytest.approx(shots_at_me)
    assert x[199] * 6 == pytest.approx(prime)
    assert x[202] == contact


def test_inputs_equal_the_numpy_reference(boards):
    for b in boards:
        np.testing.assert_array_equal(_core.neural_inputs(b), reference_inputs(b))
        np.testing.assert_array_equal(_core.neural_inputs(b, features=False),
                                      reference_inputs(b, features=False))
        np.testing.assert_allclose(_core.neural_inputs(b, inputs=215),
                                   reference_inputs(b, inputs=215), rtol=0, atol=1e-12)


@pytest.mark.parametrize("inputs", [198, 203, 209, 215])
@pytest.mark.parametrize("hidden", [1, 7, 40])
def test_forward_pass_equals_the_numpy_reference(boards, hidden, inputs):
    net = random_net(hidden, seed=hidden, inputs=inputs)
    arrays = net.arrays()
    exact = net.evaluate_many(np.stack(boards), exact=True)
    fast = net.evaluate_many(np.stack(boards))
    for b, p, q in zip(boards, exact, fast):
        expected = reference_probs(arrays, b)
        np.testing.assert_allclose(p, expected, rtol=1e-12, atol=1e-14)
        np.testing.assert_array_equal(p, net.evaluate(b, exact=True))
        np.testing.assert_allclose(q, expected, rtol=0, atol=FAST_TOLERANCE)
        np.testing.assert_array_equal(q, net.evaluate(b))


def _test_positions() -> list[np.ndarray]:
    """Every position the tests use: random-game boards and the hand-written ones."""
    texts = ["x 5:1 6:14; o 24:1 1:14", "x 5:1 3:2 6:12; o 24:1 1:14", "x 1:1 2:14; o 1:1 3:14",
             "x 24:1 6:14; o 2:2 3:2 4:2 5:2 6:2 7:2 9:3", "x 6:3 5:2 1:4; o 6:3 5:4 4:4"]
    boards = random_boards(1500, seed=3) + [START] + [pos(t).board for t in texts]
    return [b for b in boards if b[0, 0] < 15 and b[1, 0] < 15]


def test_fast_path_is_within_1e4_of_the_exact_path_for_the_shipped_net():
    """Single boards (evaluate) and the plays of a roll as changes to one base
    (play_equities, what the players use), against the float64 path and numpy (the race
    net's weights for the races)."""
    net = neural.default_net(bearoff=False)
    boards = _test_positions()
    stack = np.stack(boards)
    fast, exact = net.evaluate_many(stack), net.evaluate_many(stack, exact=True)
    assert np.abs(fast - exact).max() < FAST_TOLERANCE
    for b in boards[::25]:
        arrays = (net.race if reference_no_contact(b) else net).arrays()
        np.testing.assert_allclose(exact[[i for i, c in enumerate(boards) if c is b][0]],
                                   reference_probs(arrays, b), rtol=1e-12, atol=1e-14)
    worst = 0.0
    for i, b in enumerate(boards):
        for d1, d2 in [(1 + i % 6, 1 + (i // 6) % 6), (6, 5), (2, 2)]:
            plays = _core.generate(b, d1, d2)
            got = net.play_equities(b, plays)
            want = [net.move_equity(p, exact=True) for p in plays]
            worst = max(worst, float(np.abs(got - want).max()))
    assert worst < FAST_TOLERANCE


@pytest.mark.parametrize("inputs", [203, 215])
def test_play_equities_of_any_boards_equal_their_single_evaluations(boards, inputs):
    """The base-and-changes arithmetic holds for any pair of boards, not only legal plays."""
    net = random_net(24, seed=31, inputs=inputs)
    plays = np.stack([np.ascontiguousarray(b) for b in boards[:200] if b[0, 0] < 15])
    got = net.play_equities(START, plays)
    want = [net.move_equity(p, exact=True) for p in plays]
    np.testing.assert_allclose(got, want, rtol=0, atol=FAST_TOLERANCE)
    with pytest.raises(ValueError, match="plays"):
        net.play_equities(START, np.zeros((3, 2, 25), dtype=np.int8))


@pytest.mark.parametrize("kind", ["float32", "int16"])
def test_a_plays_value_does_not_depend_on_the_batch_it_is_valued_in(kind):
    """The plays of a roll are valued 32 at a time (the int16 evaluator takes a batch's
    output sigmoids together): every one of 153 plays (5 batches, the last one short) gets
    the value it gets alone; any int8 buffer gives a numpy array's numbers, and bad arrays
    still get their errors."""
    net = neural.evaluator(kind=kind)
    board = pos("x 24:1 22:1 13:4 8:3 6:4 5:2; o 24:2 13:4 10:1 8:2 6:4 4:2").board
    plays = np.ascontiguousarray(_core.generate(board, 2, 2))
    assert len(plays) == 153
    together = net.play_equities(board, plays)
    alone = [net.play_equities(board, plays[i:i + 1])[0] for i in range(len(plays))]
    assert together.tolist() == alone
    assert len(set(alone)) > 100        # a mix-up of plays would show
    assert net.play_equities(memoryview(board), memoryview(plays)).tolist() == alone
    with pytest.raises(ValueError, match="dtype"):
        net.play_equities(board, plays.astype(np.int16))
    with pytest.raises(ValueError, match="a board has shape"):
        net.play_equities(np.ascontiguousarray(board[:, :25]), plays)


def test_pip_inputs_are_the_exact_fractions_beyond_real_positions():
    """The pips and borne-off inputs are looked up in tables of k / 167 and k / 15; boards
    beyond them (evaluate_many takes any array: here 35 checkers, 719 pips) are divided, and
    a play's change of pips of either sign is the same number as the difference of divisions
    would give to the evaluation."""
    big = START.copy()
    big[0, 24] = 25                                 # 25 checkers on my 24-point
    pips = 25 * 24 + 5 * 13 + 3 * 8 + 5 * 6
    x = _core.neural_inputs(big, inputs=215)
    assert x[98] == pips / 167 and x[99 + 98] == 1.0
    some_off = pos("x 1:4 2:4; o 13:5 8:5 6:5").board.copy()
    some_off[0, 0] = 7
    assert _core.neural_inputs(some_off)[97] == 7 / 15
    net = random_net(16, seed=5, inputs=215)
    got = net.play_equities(START, np.stack([big, START]))
    want = [net.move_equity(b, exact=True) for b in (big, START)]
    np.testing.assert_allclose(got, want, rtol=0, atol=FAST_TOLERANCE)
    back = net.play_equities(big, np.stack([START]))        # 552 pips fewer: divided
    np.testing.assert_allclose(back, [net.move_equity(START, exact=True)], rtol=0,
                               atol=FAST_TOLERANCE)


def test_fast_sigmoid_error_is_below_2e7():
    x = np.concatenate([np.linspace(-30, 30, 2_000_001), np.linspace(-200, 200, 4001),
                        [-1e30, -88.5, 0.0, 88.5, 1e30]]).astype(np.float32)
    got = _core.fast_sigmoid(x).astype(np.float64)
    exact = 0.5 * (1 + np.tanh(x.astype(np.float64) / 2))
    assert np.abs(got - exact).max() < 2e-7
    assert got[-5] < 1e-30 and got[-3] == pytest.approx(0.5, abs=1e-7) and got[-1] == 1.0
    assert np.all(np.diff(got[:2_000_001]) >= 0)    # monotone on the working range
    assert _core.fast_sigmoid(np.arange(5, dtype=np.float32)).shape == (5,)   # a ragged tail


def test_baseline_and_avx2_kernels_give_bit_identical_numbers(boards, tmp_path):
    """TAVLI_FAST_SIMD=baseline forces the SSE2 kernels; the AVX2 ones (when this machine
    has AVX2) must compute exactly the same numbers, so a seed means the same everywhere."""
    script = (
        "import numpy as np, sys; from tavli_fast import _core; from tavli_fast import simulate;"
        "from tavli_fast.play.neural import default_net;"
        "b = np.load(sys.argv[1]); net = default_net();"
        "r = simulate('start', games=20, players=('neural-1ply', 'neural'), seed=4,"
        "             evaluator='float32');"
        "out = [net.evaluate_many(b).ravel(), net.play_equities(b[0], b[1:]),"
        "       net.play_estimates(b[0], b[1:], estimator='prune'),"
        "       net.roll_table(b[0], (8, 0.0)).ravel(),"
        "       _core.neural_inputs_many(b, 215).ravel(),"
        "       _core.fast_sigmoid(np.linspace(-120, 120, 1001)), [r.wins, r.plies_mean]];"
        "np.save(sys.argv[2], np.concatenate(out)); print(_core.SIMD_KERNELS)"
    )
    stack = tmp_path / "boards.npy"
    np.save(stack, np.stack(boards[:300]))
    kernels = {}
    for simd in ("baseline", "default"):
        env = dict(os.environ)
        env.pop("TAVLI_FAST_SIMD", None)
        if simd == "baseline":
            env["TAVLI_FAST_SIMD"] = "baseline"
        r = subprocess.run([sys.executable, "-c", script, str(stack), str(tmp_path / simd)],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        kernels[simd] = r.stdout.strip()
    assert kernels["baseline"] == "baseline" and kernels["default"] in ("avx2", "baseline")
    np.testing.assert_array_equal(np.load(tmp_path / "baseline.npy"),
                                  np.load(tmp_path / "default.npy"))


def test_outputs_are_made_consistent():
    # Biases that make the raw gammon outputs exceed the win outputs.
    net = random_net(10, seed=5, scale=0.05, out_bias=[-1.0, 3.0, 4.0, 3.0, 4.0])
    for b in random_boards(200, seed=8):
        p = net.evaluate(b)
        assert 0 <= p[2] <= p[1] <= p[0] <= 1
        assert 0 <= p[4] <= p[3] <= 1 - p[0] + 1e-15
    raw_wg = sigmoid(3.0 + net.arrays()[2][1] @ sigmoid(reference_inputs(START) @ net.arrays()[0]
                                                        + net.arrays()[1]))
    assert raw_wg > net.evaluate(START)[0]  # the clamp was really needed


def test_move_equity_is_the_switched_evaluation_seen_from_the_mover(boards):
    net = random_net(16, seed=9)
    arrays = net.arrays()
    for b in boards[:100]:
        if b[0, 0] == 15 or b[1, 0] == 15:
            continue
        p = reference_probs(arrays, np.ascontiguousarray(b[::-1]))
        mover = [1 - p[0], p[3], p[4], p[1], p[2]]
        assert net.move_equity(b, exact=True) == pytest.approx(equity(mover), abs=1e-12)
        assert net.move_equity(b) == pytest.approx(equity(mover), abs=FAST_TOLERANCE)


@pytest.mark.parametrize("text, value", [
    ("x 0:15; o 1:15", 2.0),        # all 15 off against none off: a gammon
    ("x 0:15; o 0:1 1:14", 1.0),    # the loser has borne off one: a single game
    ("x 0:15; o 19:1 1:14", 3.0),   # a loser's checker in the winner's home board: backgammon
    ("x 0:15; o 25:1 1:14", 3.0),   # ... or on the bar
])
def test_move_equity_of_a_won_game_is_its_value(text, value):
    net = random_net(4, seed=1)
    board = _won_board(text)
    assert net.move_equity(board) == value
    assert net.move_equity(board, exact=True) == value
    assert net.move_equity(board, ply=1) == value
    assert net.play_equities(START, board[None]) == [value]


def _won_board(text: str) -> np.ndarray:
    """A finished board (row 0 has borne off all 15) from 'x 0:15; o point:count ...'."""
    board = np.zeros((2, 26), dtype=np.int8)
    for row, part in enumerate(text.split(";")):
        for item in part.split()[1:]:
            point, count = item.split(":")
            board[row, int(point)] = int(count)
    assert board.sum(axis=1).tolist() == [15, 15]
    return board


def test_one_ply_equity_is_the_mean_of_the_opponents_best_replies():
    net = random_net(8, seed=11, scale=0.2)
    arrays = net.arrays()
    after = _core.generate(START, 3, 1)[0]
    opponent = np.ascontiguousarray(after[::-1])
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            replies = _core.generate(opponent, d1, d2)
            best = max(equity(_mover_probs(arrays, r)) for r in replies)
            total += best * (1 if d1 == d2 else 2)
    assert net.move_equity(after, ply=1) == pytest.approx(-total / 36, abs=FAST_TOLERANCE)
    with pytest.raises(ValueError, match="0 ply"):
        net.move_equity(after, ply=1, exact=True)


def _other_side(p):
    """Probabilities (win, wg, wbg, lg, lbg) as the other player sees them."""
    return [1 - p[0], p[3], p[4], p[1], p[2]]


def _mover_probs(arrays, after):
    return _other_side(reference_probs(arrays, np.ascontiguousarray(after[::-1])))


def test_bad_weights_are_refused():
    with pytest.raises(ValueError, match="w1"):
        _core.NeuralNet(np.zeros((10, 4)), np.zeros(4), np.zeros((5, 4)), np.zeros(5))
    with pytest.raises(ValueError, match="shapes"):
        _core.NeuralNet(np.zeros((198, 4)), np.zeros(3), np.zeros((5, 4)), np.zeros(5))
    with pytest.raises(ValueError, match="finite"):
        _core.NeuralNet(np.full((198, 4), np.nan), np.zeros(4), np.zeros((5, 4)), np.zeros(5))


# ------------------------------------------------------------------ weights files


def test_weights_file_round_trip_and_checksum(tmp_path):
    net = random_net(6, seed=2)
    path = tmp_path / "w.npz"
    neural.save_net(path, net, "test-1", note="hello")
    loaded, meta = neural.load_net(path)
    assert meta["version"] == "test-1" and meta["note"] == "hello" and meta["hidden"] == 6
    for a, b in zip(net.arrays(), loaded.arrays()):
        np.testing.assert_array_equal(a, b)
    # Change one weight but keep the recorded checksum: the load must fail.
    bad = _rewritten(path, tmp_path / "bad.npz", lambda parts: _nudge(parts["w1"], (3, 2)))
    with pytest.raises(neural.NeuralNetError, match="checksum"):
        neural.load_net(bad)


def _nudge(array: np.ndarray, where: tuple[int, int]) -> None:
    array[where] += 1e-9


def _rewritten(path, out, edit):
    """A copy of the weights file `path` at `out`, its arrays changed by `edit(parts)`."""
    with np.load(path) as z:
        parts = {k: np.array(z[k]) for k in z.files}
    edit(parts)
    with open(out, "wb") as f:
        np.savez(f, **parts)
    return out


def test_damaged_or_foreign_weights_files_give_clear_errors(tmp_path):
    path = tmp_path / "w.npz"
    neural.save_net(path, random_net(3, seed=2), "x")
    data = bytearray(path.read_bytes())
    (tmp_path / "cut.npz").write_bytes(bytes(data[: len(data) // 2]))
    with pytest.raises(neural.NeuralNetError, match="cut.npz"):
        neural.load_net(tmp_path / "cut.npz")
    with open(tmp_path / "foreign.npz", "wb") as f:
        np.savez(f, w1=np.zeros(3), meta=np.array(json.dumps({"magic": "other"})))
    with pytest.raises(neural.NeuralNetError, match="foreign.npz"):
        neural.load_net(tmp_path / "foreign.npz")
    with pytest.raises(neural.NeuralNetError, match="no such"):
        neural.load_net(tmp_path / "missing.npz")
    # Bad input, caught as ValueError like every other; callers that caught RuntimeError still do.
    with pytest.raises(ValueError):
        neural.load_net(tmp_path / "missing.npz")
    with pytest.raises(RuntimeError):
        neural.load_net(tmp_path / "missing.npz")
    (tmp_path / "notes.txt").write_text("not weights")
    with pytest.raises(neural.NeuralNetError, match="notes.txt: not a weights file"):
        neural.load_net(tmp_path / "notes.txt")


def test_the_shipped_weights_load_from_the_installed_package_and_verify():
    path = neural.default_weights_path()
    assert path.is_file() and path.parent.parent == __import__("pathlib").Path(tf.__file__).parent
    net, meta = neural.load_net(path)
    assert meta["version"] == "v17-320" and meta["inputs"] == 209 == net.n_inputs
    assert meta["sha256"] == neural.weights_checksum(neural.net_arrays(net))
    assert net.race is not None and meta["race"]["inputs"] == net.race.n_inputs
    assert neural.default_net().hidden == meta["hidden"]
    # Issue 13: small, and it says how it was made (the commands that repeat it).
    assert path.stat().st_size < 5 * 2**20
    recipe = meta["training"]["recipe"]
    assert recipe and all(step.startswith("tavli-train ") for step in recipe)
    # The earlier nets are kept (in tavli_fast_nets), so that results made with them can be
    # redone; the package holds the default alone.
    earlier = ("v2", "v3", "v4", "v5", "v6", "v7-256", "v8-320", "v10-320", "v12-320", "v13-320",
               "v15-320", "v16-320")
    assert sorted(p.name for p in path.parent.glob("neural-*.npz")) == [neural.DEFAULT_WEIGHTS]
    assert neural.history_nets() == tuple(f"neural-{older}.npz" for older in earlier)
    for older in earlier:
        found = neural.weights_file(f"neural-{older}.npz")
        assert found.parent == neural.nets_folder()
        assert neural.load_net(found)[1]["version"].startswith(older)


@pytest.mark.parametrize("name, version, hidden, default", [
    ("neural-v17-320.npz", "v17-320", 320, True), ("neural-v16-320.npz", "v16-320", 320, False),
    ("neural-v15-320.npz", "v15-320", 320, False), ("neural-v13-320.npz", "v13-320", 320, False),
    ("neural-v12-320.npz", "v12-320", 320, False),
    ("neural-v10-320.npz", "v10-320", 320, False),
    ("neural-v8-320.npz", "v8-320", 320, False), ("neural-v7-256.npz", "v7-256", 256, False)])
def test_the_shipped_wide_nets_load_by_their_bare_names(tmp_path, monkeypatch, name, version,
                                                        hidden, default):
    # Net v7-256 (issue 13) was the default once the evaluator carried 256 units above issue
    # 10's speed; net v8-320 (320 units, gammon readouts recalibrated) after it; net v10-320
    # (v8-320 fitted to its own look-ahead, readouts recalibrated again) after that; net
    # v12-320 (v10-320 fitted to its own 2-ply look-ahead) next; net v13-320 (a second such
    # round) then; net v15-320 (a third, fitted longer and harder) next; net v17-320 (a
    # fifth, from v16-320, the net between them, shipped too) is the default since.
    # A shipped net may be named by its bare file name.
    monkeypatch.chdir(tmp_path)
    path = neural.weights_file(name)
    assert (path == neural.default_weights_path()) == default
    # The default in the package's data, the earlier nets in tavli_fast_nets.
    assert path.parent == (neural.default_weights_path().parent if default
                           else neural.nets_folder())
    assert neural.weights_file("neural-v6.npz") == neural.nets_folder() / "neural-v6.npz"
    net, meta = neural.load_net(name)
    assert meta["version"] == version and meta["hidden"] == hidden == net.hidden
    assert net.n_inputs == 209 and net.race is not None
    assert path.stat().st_size < 5 * 2**20
    assert all(step.startswith("tavli-train ") for step in meta["training"]["recipe"])
    # Its width comes from its own recipe's --hidden, or from the shipped net it started from
    # (named with its checksum, so the start is the very file kept among the earlier nets).
    training = meta["training"]
    if not any(f"--hidden {hidden}" in step for step in training["recipe"]):
        start = neural.load_net(training["start"]["file"])[1]
        assert start["hidden"] == hidden and start["sha256"] == training["start"]["sha256"]
    choice = neural.choose_net(name)
    assert choice.file == str(path) and choice.version == version
    # The fast float32 path agrees with the exact float64 one at this width too.
    sample = np.stack(random_boards(200, seed=11))
    np.testing.assert_allclose(net.evaluate_many(sample), net.evaluate_many(sample, exact=True),
                               atol=FAST_TOLERANCE)
    # A file of that name in the working directory comes first; a path is taken as it is.
    (tmp_path / name).write_bytes(b"mine")
    assert neural.weights_file(name) == __import__("pathlib").Path(name)
    with pytest.raises(neural.NeuralNetError, match="no such weights file"):
        neural.load_net(tmp_path / "sub" / "neural-v6.npz")


# ------------------------------------------------------------------ training


def _weights(state):
    return [a.copy() for a in state.net.arrays()]


def test_training_is_reproducible_from_a_seed():
    a = train.train(200, seed=7, hidden=12, log_every=10**9)
    b = train.train(200, seed=7, hidden=12, log_every=10**9)
    c = train.train(200, seed=8, hidden=12, log_every=10**9)
    for x, y in zip(_weights(a), _weights(b)):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(_weights(a)[0], _weights(c)[0])
    # The fast path's float32 copy, refreshed step by step, equals one made afresh.
    sample = np.stack(random_boards(300, seed=4))
    np.testing.assert_array_equal(a.net.evaluate_many(sample),
                                  _core.NeuralNet(*a.net.arrays()).evaluate_many(sample))
    assert a.games_done == 200 and sum(a.outcomes) == 200 and a.plies > 200 * 10
    assert not np.array_equal(_weights(a)[2], train.initial_state(7, 12).net.arrays()[2])  # it learnt


def _reference_td_lambda_game(arrays, seed: int, alpha: float, lam: float):
    """One TD(lambda) self-play game in numpy, written from nn_train_game's description: the
    game played by the fixed net's 0-ply choices on the core generator's dice, then each
    position, first to last, moved by one cross-entropy gradient step towards its
    lambda-return.  Returns the new arrays and the number of plies."""
    w1, b1, w2, b2 = (a.copy() for a in arrays)
    net = _core.NeuralNet(*arrays)
    stream = iter(_core.rng_outputs(seed, 100_000))
    limit = 2**64 - 1 - ((2**64 - 1) % 36 + 1) % 36   # rng_below(36) rejects above this

    def roll():
        x = int(next(stream))
        while x > limit:
            x = int(next(stream))
        return x % 36 // 6 + 1, x % 6 + 1

    board, boards, targets = START.copy(), [], []
    while True:
        d1, d2 = roll()
        while not boards and d1 == d2:          # R5
            d1, d2 = roll()
        after = _core.choose(board, d1, d2, NEURAL, 0, None, False, net)
        boards.append(board)
        if after[0, 0] == 15:                   # the mover has won: the result is the target
            gammon = after[1, 0] == 0
            backgammon = gammon and after[1, 19:26].sum() > 0   # on the bar or in our home
            targets.append(np.array([1.0, gammon, backgammon, 0.0, 0.0]))
            break
        targets.append(np.array(_mover_probs(arrays, after)))
        board = np.ascontiguousarray(after[::-1])
    returns = [targets[-1]]
    for t in targets[-2::-1]:
        returns.append((1 - lam) * t + lam * np.array(_other_side(returns[-1])))
    for b, g in zip(boards, returns[::-1]):
        x = reference_inputs(b, inputs=len(w1))
        h = sigmoid(x @ w1 + b1)
        delta = alpha * (g - sigmoid(w2 @ h + b2))
        dh = (delta @ w2) * h * (1 - h)
        w2 += np.outer(delta, h)
        b2 += delta
        b1 += dh
        w1 += np.outer(x, dh)
    return (w1, b1, w2, b2), len(boards)


def test_full_evaluations_follow_training(boards):
    """A full fast evaluation adds one precomputed row per occupied point (the point rows);
    training changes the raw rows, and the point rows must follow: after `train`, the fast
    path still agrees with the exact one, and with a fresh net of the trained weights."""
    boards = np.array(boards)
    net = random_net(24, seed=17, scale=0.2, inputs=209)
    before = net.evaluate_many(boards)
    net.train(3, _core.rng_state(5), 0.5, True, 0.0)
    after = net.evaluate_many(boards)
    assert np.abs(after - before).max() > 100 * FAST_TOLERANCE    # it learnt
    np.testing.assert_allclose(after, net.evaluate_many(boards, exact=True), rtol=0,
                               atol=FAST_TOLERANCE)
    np.testing.assert_array_equal(after, _core.NeuralNet(*net.arrays()).evaluate_many(boards))


def test_point_rows_take_any_count_evaluate_many_is_given():
    # evaluate_many takes any array; a point row stands for 1..15 checkers, and more on a
    # point (no real position) must still be read as the raw inputs say, not past the rows.
    net = random_net(24, seed=18, scale=0.2, inputs=209)
    boards = np.zeros((3, 2, 26), dtype=np.int8)
    boards[:, 0, 6], boards[:, 1, 24] = 15, 15
    boards[1, 0, 24] = 16                      # side 0's last point row
    boards[2, 1, 24] = 127                     # side 1's, the largest count an int8 holds
    np.testing.assert_allclose(net.evaluate_many(boards), net.evaluate_many(boards, exact=True),
                               rtol=0, atol=FAST_TOLERANCE)


@pytest.mark.parametrize("lam", [1.0, 0.6])
def test_td_lambda_moves_each_position_towards_its_lambda_return(lam):
    arrays = random_net(8, seed=31, scale=0.2).arrays()
    expected, plies = _reference_td_lambda_game(arrays, 11, 0.1, lam)
    net = _core.NeuralNet(*arrays)
    counts = net.train(1, _core.rng_state(11), 0.1, True, lam)
    assert counts[6] == 1 and counts[7] == plies
    # Exact for lambda 1 (the targets are the result); otherwise the core's targets come from
    # the fast float32 path, within FAST_TOLERANCE of the reference's.
    tol = 1e-12 if lam == 1.0 else 0.1 * FAST_TOLERANCE
    for got, want, start in zip(net.arrays(), expected, arrays):
        np.testing.assert_allclose(got, want, rtol=0, atol=tol)
        assert np.abs(want - start).max() > 100 * tol   # it learnt, far beyond the tolerance
    td0 = _core.NeuralNet(*arrays)
    td0.train(1, _core.rng_state(11), 0.1, True, 0.0)
    assert np.abs(td0.arrays()[0] - net.arrays()[0]).max() > 100 * tol  # lambda matters
    with pytest.raises(ValueError, match="lambda"):
        net.train(1, _core.rng_state(11), 0.1, True, 1.5)


@pytest.mark.parametrize("lam", [0.0, 0.7])
def test_resume_from_a_checkpoint_equals_an_uninterrupted_run(tmp_path, lam):
    ck = tmp_path / "run.npz"
    whole = train.train(1300, seed=4, hidden=10, lam=lam, log_every=10**9)   # crosses a rate step
    first = train.train(700, seed=4, hidden=10, lam=lam, checkpoint=ck, log_every=10**9)
    assert first.games_done == 700 and train.load_checkpoint(ck).lam == lam
    resumed = train.train(1300, resume=ck, checkpoint=ck, log_every=10**9)  # keeps its lambda
    for x, y in zip(_weights(whole), _weights(resumed)):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(whole.rng_state, resumed.rng_state)
    assert resumed.outcomes == whole.outcomes and resumed.plies == whole.plies
    assert train.load_checkpoint(ck).games_done == 1300


def test_adding_the_hand_features_to_a_raw_net_keeps_its_values_then_trains_them(tmp_path, boards):
    ck = tmp_path / "raw.npz"
    raw = train.train(300, seed=5, hidden=8, features=False, checkpoint=ck, log_every=10**9)
    assert raw.net.n_inputs == 198
    widened = train.add_features(train.load_checkpoint(ck))
    assert widened.net.n_inputs == 203 and widened.features_from == 300
    sample = np.stack(boards[:100])
    np.testing.assert_array_equal(widened.net.evaluate_many(sample), raw.net.evaluate_many(sample))
    with pytest.raises(ValueError, match="already has"):
        train.add_features(widened)
    more = train.train(600, resume=ck, checkpoint=ck, log_every=10**9)  # features by default
    assert more.net.n_inputs == 203 and train.load_checkpoint(ck).features_from == 300
    assert np.any(more.net.arrays()[0][198:] != 0)  # the new inputs' weights have learnt


def test_a_rate_change_on_resume_is_recorded_and_resumes_exactly(tmp_path):
    ck, ck2 = tmp_path / "run.npz", tmp_path / "run2.npz"
    train.train(1000, seed=6, hidden=6, checkpoint=ck, log_every=10**9)
    whole = train.train(2500, resume=ck, rate=0.004, log_every=10**9)
    assert whole.rate_changes == [[1000, 0.004]]
    assert train.learning_rate(whole.alpha, whole.decay_games, 1000) == pytest.approx(0.004)
    assert train.learning_rate(whole.alpha, whole.decay_games, 2000) < 0.004  # decays on
    # Cut in two, the same command twice: the second resume keeps the changed schedule.
    train.train(1700, resume=ck, rate=0.004, checkpoint=ck2, log_every=10**9)
    cut = train.train(2500, resume=ck2, rate=0.004, log_every=10**9)
    assert cut.rate_changes == [[1000, 0.004]]
    for x, y in zip(_weights(whole), _weights(cut)):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match="resumed run"):
        train.train(10, seed=1, rate=0.004)


def test_average_of_checkpoints_is_the_mean_net_and_the_cli_exports_it(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    train.train(100, seed=2, hidden=6, checkpoint=a, log_every=10**9)
    train.train(300, resume=a, checkpoint=b, log_every=10**9)
    net, record = train.average_checkpoints([a, b])
    wa, wb = _weights(train.load_checkpoint(a)), _weights(train.load_checkpoint(b))
    for got, x, y in zip(net.arrays(), wa, wb):
        np.testing.assert_allclose(got, (x + y) / 2, rtol=0, atol=1e-15)
    assert [r["games_done"] for r in record["averaged"]] == [100, 300]
    out = tmp_path / "avg.npz"
    cmd = [sys.executable, "-m", "tavli_fast.cli.train"]
    r = subprocess.run(cmd + ["--average", str(a), str(b), "--export", str(out), "--net-version", "t"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    loaded, meta = neural.load_net(out)
    np.testing.assert_array_equal(loaded.arrays()[0], net.arrays()[0])
    assert meta["version"] == "t" and len(meta["training"]["averaged"]) == 2
    small = tmp_path / "small.npz"
    train.train(10, seed=2, hidden=3, checkpoint=small, log_every=10**9)
    with pytest.raises(ValueError, match="different shapes"):
        train.average_checkpoints([a, small])
    for bad in (["--average", str(a)], ["--average", str(a), "--export", str(out), "--games", "5"], []):
        r = subprocess.run(cmd + bad, capture_output=True, text=True)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (bad, r.stderr)


def test_a_run_can_start_from_the_shipped_weights(tmp_path):
    ck = tmp_path / "run.npz"
    path = neural.default_weights_path()
    start = train.train(1, seed=3, alpha=0.001, init_from=path, checkpoint=ck, log_every=10**9)
    assert start.init_from["sha256"] == neural.default_net_info()["sha256"]
    # One game at a small rate moves the shipped weights only a little, and only a little.
    shipped = neural.default_net().arrays()[0]
    moved = np.abs(start.net.arrays()[0] - shipped).max()
    assert 0 < moved < 0.01
    assert train.load_checkpoint(ck).init_from == start.init_from
    cmd = [sys.executable, "-m", "tavli_fast.cli.train"]
    r = subprocess.run(cmd + ["--games", "5", "--init-from", str(path), "--resume", str(ck)],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--init-from" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run(cmd + ["--games", "5", "--init-from", str(tmp_path / "none.npz")],
                       capture_output=True, text=True)
    # As every command's --weights: a weights file that cannot be used is bad input (status 2).
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "no such weights file" in r.stderr


def test_td_training_and_average_export_a_race_net_from_race_from(tmp_path):
    # TD training trains one net; --race-from puts a weights file's race net beside it.
    shipped = neural.default_weights_path()
    ck, out, avg = tmp_path / "run.npz", tmp_path / "td.npz", tmp_path / "avg.npz"
    cmd = [sys.executable, "-m", "tavli_fast.cli.train"]
    r = subprocess.run(cmd + ["--games", "20", "--init-from", str(shipped), "--alpha", "0.001",
                              "--seed", "1", "--checkpoint", str(ck), "--export", str(out),
                              "--race-from", str(shipped), "-q"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(cmd + ["--average", str(ck), str(ck), "--export", str(avg),
                              "--race-from", str(shipped)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    race = neural.default_net().race.arrays()
    trained = train.load_checkpoint(ck).net.arrays()
    for path in (out, avg):
        net, meta = neural.load_net(path)
        assert meta["training"]["race_from"] == shipped.name
        for got, want in zip(net.race.arrays() + net.arrays(), race + trained):
            np.testing.assert_array_equal(got, want)
    no_race = tmp_path / "v2.npz"
    neural.save_net(no_race, neural.load_net("neural-v2.npz")[0], "v2")
    damaged = tmp_path / "damaged.npz"
    damaged.write_bytes(b"not a zip file")
    for bad in (["--games", "5", "--race-from", str(shipped)],            # no --export
                ["--games", "5", "--export", str(out), "--race-from", str(no_race)],
                ["--games", "5", "--export", str(out), "--race-from", str(damaged)],
                ["--fit", str(tmp_path), "--init-from", str(damaged)],
                ["--fit", str(tmp_path), "--race-from", str(shipped)]):
        r = subprocess.run(cmd + bad, capture_output=True, text=True)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (bad, r.stderr)


def test_learning_rate_changes_only_at_rate_steps():
    assert train.learning_rate(0.1, 1000, 0) == 0.1
    assert train.learning_rate(0.1, 1000, 999) == 0.1
    assert train.learning_rate(0.1, 1000, 1000) == pytest.approx(0.05)


@pytest.mark.slow
def test_train_cli_runs_exports_and_rejects_bad_input(tmp_path):
    out = tmp_path / "w.npz"
    ck = tmp_path / "ck.npz"
    cmd = [sys.executable, "-m", "tavli_fast.cli.train"]
    r = subprocess.run(cmd + ["--games", "50", "--seed", "3", "--hidden", "5", "--checkpoint", str(ck),
                              "--export", str(out), "--net-version", "t1", "-q"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    net, meta = neural.load_net(out)
    assert net.hidden == 5 and meta["version"] == "t1" and meta["training"]["games_done"] == 50
    assert net.n_inputs == 203 and meta["inputs"] == 203  # the hand features by default
    assert meta["training"]["lambda"] == 0.0
    r = subprocess.run(cmd + ["--games", "20", "--seed", "3", "--hidden", "5", "--lambda", "0.7",
                              "--export", str(out), "-q"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert neural.load_net(out)[1]["training"]["lambda"] == 0.7
    for bad in (["--games", "-3"], ["--games", "10", "--alpha", "x"],
                ["--games", "10", "--resume", str(tmp_path / "none.npz")],
                ["--games", "10", "--rate", "0.01"], ["--games", "60", "--resume", str(ck), "--rate", "0"],
                ["--games", "10", "--lambda", "1.5"], ["--games", "10", "--lambda", "x"],
                ["--games", "60", "--resume", str(ck), "--lambda", "0.5"]):
        r = subprocess.run(cmd + bad, capture_output=True, text=True)
        assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1, (bad, r.stderr)
        assert "Traceback" not in r.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_training_run_saves_where_it_stopped(tmp_path, sig):
    # "Long runs lose nothing on Ctrl-C": the run stops after its current stretch of games
    # and checkpoints it, whatever --checkpoint-every says.
    ck = tmp_path / "run.npz"
    cmd = [sys.executable, "-m", "tavli_fast.cli.train", "--games", "1e7", "--seed", "3",
           "--hidden", "5", "--checkpoint", str(ck), "--checkpoint-every", "1e7", "--log-every", "1000"]
    with subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True) as proc:
        for line in proc.stderr:                   # wait until it is training
            if "games," in line:
                break
        proc.send_signal(sig)
        rest = proc.stderr.read()
        assert proc.wait(timeout=60) == 130, rest
    stopped = [line for line in rest.splitlines() if "stopped after" in line]
    assert len(stopped) == 1 and "Traceback" not in rest, rest
    done = train.load_checkpoint(ck).games_done
    assert done >= 1000 and f"stopped after {done} games; saved to {ck}" in stopped[0]


# ------------------------------------------------------------------ players


def test_neural_players_need_a_net():
    with pytest.raises(ValueError, match="NeuralNet"):
        _core.run_games(START, 1, NEURAL, RANDOM, 1, True, True)
    with pytest.raises(ValueError, match="NeuralNet"):
        _core.choose(START, 3, 1, NEURAL_1PLY, 1)


def test_neural_player_picks_the_play_with_the_best_0ply_equity(boards):
    net = random_net(10, seed=21)
    rng = np.random.default_rng(2)
    for b in boards[:60]:
        if b[0, 0] == 15 or b[1, 0] == 15:
            continue
        d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
        plays = _core.generate(b, d1, d2)
        if any(p[0, 0] == 15 for p in plays):
            continue
        values = [equity(_mover_probs(net.arrays(), p)) for p in plays]
        chosen = _core.choose(b, d1, d2, NEURAL, 0, None, False, net)
        np.testing.assert_array_equal(chosen, plays[int(np.argmax(values))])


def test_neural_1ply_player_picks_the_best_1ply_play_among_the_top_0ply_plays():
    net = random_net(10, seed=23, scale=0.2)
    plays = _core.generate(START, 6, 4)
    zero = np.array([net.move_equity(p) for p in plays])
    top = [i for i in np.argsort(-zero, kind="stable")[:5] if zero[i] >= zero.max() - 0.16]
    one = {i: net.move_equity(plays[i], ply=1) for i in top}
    chosen = _core.choose(START, 6, 4, NEURAL_1PLY, 0, None, False, net)
    np.testing.assert_array_equal(chosen, plays[max(one, key=one.get)])


def test_choose_returns_a_legal_play_for_every_player():
    start_id = Position.initial().position_id()
    legal = set(tf.legal_positions(start_id, 6, 2))
    from tavli_fast.play.players import PLAYERS

    assert {"random", "pubeval", "greedy", "bearoff", "neural", "neural-1ply"} <= set(PLAYERS)
    for name in PLAYERS:
        assert tf.choose(start_id, 6, 2, player=name) in legal
    with pytest.raises(ValueError, match="unknown player"):
        tf.choose(start_id, 6, 2, player="nobody")
    with pytest.raises(tf.InvalidDiceError):
        tf.choose(start_id, 7, 2)


def test_choose_neural_matches_the_shipped_nets_best_play():
    start_id = Position.initial().position_id()
    net = neural.default_net()
    plays = tf.legal_positions(start_id, 4, 2)
    values = [net.move_equity(Position.from_id(p).board) for p in plays]
    assert tf.choose(start_id, 4, 2, player="neural") == plays[int(np.argmax(values))]


def test_neural_player_bears_off_by_the_databases():
    from tavli_fast.play.bearoff import default_database

    tables = default_database().tables
    board = pos("x 6:3 5:2 1:4; o 6:3 5:4 4:4").board
    for d1, d2 in [(6, 5), (2, 1), (4, 4), (3, 1)]:
        expected = tables.choose(board, d1, d2)
        got = _core.choose(board, d1, d2, NEURAL, 0, tables, True, neural.default_net())
        np.testing.assert_array_equal(got, expected)


def test_simulate_accepts_the_neural_players():
    r = tf.simulate("start", games=20, players=("neural", "neural-1ply"), seed=5)
    assert r.games == 20 and r.wins + r.lose_single + r.lose_gammon + r.lose_backgammon == 20


def test_the_shipped_net_beats_random_play_in_nearly_every_game():
    r = tf.simulate("start", games=200, players=("neural", "random"), seed=12)
    assert r.wins >= 190, r
    r = tf.simulate("start", games=200, players=("random", "neural"), seed=13)
    assert r.wins <= 10, r


# ------------------------------------------------------------------ tavli-eval, tavli-hint


def test_eval_cli_prints_the_nets_probabilities(capsys):
    from tavli_fast.cli.evaluate import eval_main

    assert eval_main(["--position", "4HPwATDgc/ABMA", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    expected = neural.evaluator().evaluate(START)   # the default evaluator, as the command
    assert [report[k] for k in ("win", "win_gammon", "win_backgammon", "lose_gammon",
                                "lose_backgammon")] == pytest.approx(list(expected))
    assert report["equity"] == pytest.approx(equity(expected))
    assert tf.evaluate("4HPwATDgc/ABMA").equity == pytest.approx(equity(expected))
    with pytest.raises(ValueError, match="over"):
        tf.evaluate(Position.from_board(_won_board("x 0:15; o 1:15")))


def test_hint_cli_ranks_every_play(capsys):
    from tavli_fast.cli.evaluate import hint_main

    assert hint_main(["--position", "start", "--dice", "31", "--top", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    plays = report["plays"]
    assert len(plays) == 16                                  # the golden count for 3-1
    assert sum(p["equity_1ply"] is not None for p in plays) == 3
    one = [p["equity_1ply"] for p in plays[:3]]
    assert one == sorted(one, reverse=True)
    zero = [p["equity_0ply"] for p in plays[3:]]
    assert zero == sorted(zero, reverse=True)
    assert min(p["equity_0ply"] for p in plays[:3]) >= max(zero)     # the 3 best by 0 ply
    # each play's position after it, the opponent on roll (as gnubg writes it, issue 51)
    after = {tf.Position.from_id(i).sides_switched().position_id()
             for i in tf.legal_positions("4HPwATDgc/ABMA", 3, 1)}
    assert set(p["position_id"] for p in plays) == after


def test_hint_api_gives_the_clis_ranking_and_rejects_bad_input(capsys):
    from tavli_fast.cli.evaluate import hint_main
    from tavli_fast.errors import InvalidDiceError

    assert hint_main(["--position", "start", "--dice", "64", "--top", "4", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["plays"]
    ranked = [p.to_dict() for p in tf.hint("start", 6, 4, top=4)]
    assert ranked == [{k: p[k] for k in ranked[0]} for p in printed]
    with pytest.raises(InvalidDiceError):
        tf.hint("start", 7, 1)
    with pytest.raises(ValueError, match="top"):
        tf.hint("start", 3, 1, top=-1)
    with pytest.raises(tf.InvalidPositionError):
        tf.hint(Position.from_board(_won_board("x 0:15; o 1:15")), 3, 1)


@pytest.mark.parametrize("argv", [
    ["--position", "start", "--dice", "71"],
    ["--position", "nonsense", "--dice", "31"],
    ["--dice", "31"],                               # no position
])
def test_hint_cli_bad_input_is_one_line_and_exit_2(argv):
    r = subprocess.run([sys.executable, "-c", "import sys; from tavli_fast.cli.evaluate import hint_main;"
                        " sys.exit(hint_main(sys.argv[1:]))", *argv], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_eval_cli_reports_a_damaged_weights_file(tmp_path, capsys):
    from tavli_fast.cli.evaluate import eval_main

    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    assert eval_main(["--position", "start", "--weights", str(bad)]) == 2
    assert "bad.npz" in capsys.readouterr().err


def test_a_rollout_chunk_loads_the_shipped_net_for_the_neural_players():
    from tavli_fast.jobs.rollout import RolloutChunk, run_chunk

    chunk = RolloutChunk(index=0, first_trial=0, n_games=40, board=START.tobytes(), player0=NEURAL,
                         player1=int(_core.PlayerKind.PLAYER_PUBEVAL), seed=9, master_seed=9,
                         first_roll_no_doubles=True, backgammons=True, stratify=True)
    r = run_chunk(chunk)
    assert r.games == 40 and sum(r.counts) == 40
    again = run_chunk(chunk)
    assert again.counts == r.counts            # the neural player is deterministic given the dice


# ------------------------------------------------------------ issue 13's extra features


def reference_extra_features(board: np.ndarray) -> list[float]:
    """Escapes, pip loss and dance of each side, from the description in _neural.pxi."""
    out: list[float] = []
    rolls = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, 7)]
    for side in range(2):
        mine, theirs = board[side].astype(int), board[1 - side].astype(int)
        blocks = {25 - q for q in range(1, 25) if theirs[q] >= 2}  # their points, my numbering
        rear = 25 if mine[25] else max([p for p in range(1, 25) if mine[p]], default=0)
        front = [p for p in blocks if p < rear]
        if rear == 0:
            escapes = 0.0
        elif not front:
            escapes = 1.0
        else:
            low = min(front)

            def escape(path):
                at = rear
                for d in path:
                    at -= d
                    if at < 1 or at in blocks:
                        return False
                    if at < low:
                        return True
                return False

            escapes = sum(any(escape(p) for p in ([[a] * 4] if a == b else [[a, b], [b, a]]))
                          for a, b in rolls) / 36
        lost = 0
        for a, b in rolls:
            hit = reference_hits(mine, theirs, a, b)
            lost += 25 - min(hit) if hit else 0
        closed = sum(theirs[q] >= 2 for q in range(1, 7))
        out += [escapes, lost / (36 * 24), closed ** 2 / 36 if mine[25] else 0.0]
    return out


def test_extra_features_by_hand():
    """Escapes, pip loss and dance counted by hand on one position."""
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 24] = 1      # my rearmost checker, alone on 24
    board[0, 6] = 14      # the rest made at home: no blot of mine in reach
    board[1, 6] = 11      # their 6, 7 and 8 points made: my 19, 18 and 17
    board[1, 7] = 2
    board[1, 8] = 2
    x = _core.neural_inputs(board, inputs=209)
    np.testing.assert_allclose(x[203:], reference_extra_features(board), atol=1e-12)
    # Escaping from 24 means reaching 16 or lower without landing on 19, 18 or 17:
    # 6-2 (22, 16), 5-3 (21, 16), 6-3 (21, 15), 5-4 (20, 15), 6-4 (20, 14), twice each;
    # 4-4 (20, 16). Not 6-5 (18 or 19 first), 5-5 (19), 6-6 (18), 3-3 (21, 18), 2-2 (.., 18).
    assert x[203] == pytest.approx(11 / 36)
    # My only blot is on 24 (their ace point), in reach of their 6, 7 and 8 points; a hit there
    # costs me 1 pip, so the pip loss is the shots feature (rolls that hit / 36) / 24.
    assert x[198] > 0 and x[204] == pytest.approx(x[198] / 24)
    assert x[205] == 0.0  # nobody on the bar
    # Their side: my home board has one point made (my 6 = their 19), their rearmost checker is
    # on their 8 behind it... their 6/7/8 are below my 6 point in their numbering, so no block
    # is in front of them: escapes 1.
    assert x[206] == 1.0
    board[0, 25], board[0, 6] = 1, 13      # one of mine on the bar: their home board has one
    x = _core.neural_inputs(board, inputs=209)  # point made (their 6), so I dance on 1-1 only
    assert x[205] == pytest.approx(1 / 36)
    assert x[207] == 0.0  # they have no blot: no pip loss


def reference_timing_features(board: np.ndarray) -> list[float]:
    """Containment, break contact and free pips of each side, from the description in
    _neural.pxi (issue 13's second set)."""
    out: list[float] = []
    for side in range(2):
        mine, theirs = board[side].astype(int), board[1 - side].astype(int)
        blocks = {25 - q for q in range(1, 25) if theirs[q] >= 2}  # their points, my numbering

        def escaping_rolls(start: int) -> int:
            near = [p for p in blocks if start - 6 <= p < start]
            if not near:
                return 36
            low = min(near)

            def escape(path):
                at = start
                for d in path:
                    at -= d
                    if at in blocks:
                        return False
                    if at < low:
                        return True
                return False

            return sum(any(escape(p) for p in ([[a] * 4] if a == b else [[a, b], [b, a]]))
                       for a in range(1, 7) for b in range(1, 7))

        contain = min(escaping_rolls(i) for i in range(15, 26))
        their_points = [q for q in range(1, 26) if theirs[q]]
        rear = 25 - max(their_points) if their_points else 26  # their rearmost, my numbering
        broken = sum(mine[p] * (p - rear + 1) for p in range(1, 26) if p >= rear)
        past = sum(mine[p] * p for p in range(1, 26) if p < rear)
        out += [contain / 36, broken / 167, past / 167]
    return out


@pytest.mark.parametrize("inputs, reference, seed", [(209, reference_extra_features, 9),
                                                     (215, reference_timing_features, 10)])
def test_issue13_features_match_the_reference_on_random_games(inputs, reference, seed):
    """Each of issue 13's sets of six features (the last rows of a net of `inputs`), and
    the inputs before them as the smaller reference has them."""
    net = _core.NeuralNet(*[np.zeros(s) for s in ((inputs, 16), (16,), (5, 16), (5,))])
    boards = net.selfplay_positions(4, _core.rng_state(seed), 1.0)  # random plays: varied, hits
    assert any(b[:, 25].any() for b in boards)  # some checkers on the bar
    seen = set()
    for b in boards:
        x = _core.neural_inputs(np.ascontiguousarray(b), inputs=inputs)
        np.testing.assert_allclose(x[inputs - 6:], reference(b), atol=1e-12)
        np.testing.assert_allclose(x[:inputs - 6], reference_inputs(b, inputs=inputs - 6),
                                   rtol=0, atol=1e-12)
        seen.add(tuple(x[inputs - 6:]))
    assert len(seen) > len(boards) // 4   # the features vary


def test_timing_features_by_hand():
    """Containment, break contact and free pips counted by hand on one position."""
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 24], board[0, 13], board[0, 6] = 2, 3, 10
    board[1, 6], board[1, 20] = 13, 2   # their 6 point (my 19), their anchor on 20 (my 5)
    x = _core.neural_inputs(board, inputs=215)
    # Mine: their rearmost is on my 5, so 24 -> 2 x 20 pips, 13 -> 3 x 9, 6 -> 10 x 2 to pass
    # it: 87; nothing is past it.
    assert x[210] == pytest.approx(87 / 167) and x[211] == 0.0
    # Containment: from the bar, past their point on my 19 means landing on 18 or lower with
    # no stop on 19: the 9 non-doubles of 7 pips or more (one order never stops on 19) and
    # 4-4, 5-5: 20 rolls. From 24 (26 rolls), 23 (29), 22 (32), 21 (34), 20 (35) it is
    # easier, and from 15..19 no made point is within 6 pips (36).
    assert x[209] == pytest.approx(20 / 36)
    # Theirs: my rearmost is on 24 (their 1): 6 -> 13 x 6, 20 -> 2 x 20 pips: 118. My 6 point
    # (their 19) holds them from the bar just as theirs holds me; my 13 (their 12) is 6 pips
    # in front of their 18, where 7-pip non-doubles pass it (18) and 4-4, 5-5 do: 20 again.
    assert x[213] == pytest.approx(118 / 167) and x[214] == 0.0
    assert x[212] == pytest.approx(20 / 36)
    # Three of mine come down to my 4, past their anchor: 12 free pips.
    board[0, 6], board[0, 4] = 7, 3
    x = _core.neural_inputs(board, inputs=215)
    assert x[211] == pytest.approx(12 / 167) and x[210] == pytest.approx((40 + 27 + 14) / 167)
    # Their home board closed (my 19..24) with one of mine on the bar: contained completely.
    closed = np.zeros((2, 26), dtype=np.int8)
    closed[0, 25], closed[0, 6] = 1, 14
    closed[1, 1:7], closed[1, 8] = 2, 3
    x = _core.neural_inputs(closed, inputs=215)
    assert x[209] == 0.0
    assert x[212] == pytest.approx(20 / 36)  # my 6 point (their 19) alone holds them as above


# ------------------------------------------------------------------ the race net (issue 13)


def reference_no_contact(board: np.ndarray) -> bool:
    """No contact: no checker of row 0 still has one of row 1's in front of it. Row 0's
    checker on its point p (bar 25) faces row 1's on row 1's point q when 25 - q < p."""
    mine = [p for p in range(1, 26) if board[0, p] > 0]
    theirs = [q for q in range(1, 26) if board[1, q] > 0]
    return not any(25 - q < p for p in mine for q in theirs)


@pytest.fixture(scope="module")
def race_pair():
    """A 209-input net with a smaller, 198-input race net, both random."""
    main, race = random_net(16, seed=5, inputs=209), random_net(8, seed=6, inputs=198)
    return main, race, _core.NeuralNet(*main.arrays(), race=race)


def test_a_race_net_evaluates_exactly_the_positions_without_contact(race_pair):
    main, race, combined = race_pair
    boards = _test_positions()
    stack = np.stack(boards)
    no_contact = np.array([reference_no_contact(b) for b in boards])
    assert 100 < no_contact.sum() < len(boards) - 100  # both classes are well represented
    np.testing.assert_array_equal(_core.races(stack), no_contact)
    exact = combined.evaluate_many(stack, exact=True)
    for i in range(0, len(boards), 7):
        arrays = race.arrays() if no_contact[i] else main.arrays()
        np.testing.assert_allclose(exact[i], reference_probs(arrays, boards[i]), rtol=1e-12,
                                   atol=1e-14)
    assert np.abs(combined.evaluate_many(stack) - exact).max() < FAST_TOLERANCE
    np.testing.assert_array_equal(combined.evaluate_many(stack[~no_contact]),
                                  main.evaluate_many(stack[~no_contact]))
    np.testing.assert_array_equal(combined.evaluate_many(stack[no_contact]),
                                  race.evaluate_many(stack[no_contact]))
    assert combined.race is race and main.race is None


def test_plays_that_break_contact_are_valued_by_the_race_net(race_pair):
    """The players' path (one base per roll, each play as changes to it) switches to the race
    net for a play that leaves no contact, and agrees with fresh evaluations of every play."""
    _, _, combined = race_pair
    worst, mixed = 0.0, 0
    for b in _test_positions()[::3]:
        for d1, d2 in [(6, 5), (6, 6), (4, 2)]:
            plays = _core.generate(b, d1, d2)
            kinds = _core.races(np.ascontiguousarray(plays))
            mixed += bool(kinds.any() and not kinds.all())
            got = combined.play_equities(b, plays)
            want = [combined.move_equity(p, exact=True) for p in plays]
            worst = max(worst, float(np.abs(got - want).max()))
    assert mixed >= 3  # rolls where some plays break contact and others do not
    assert worst < FAST_TOLERANCE


def test_a_race_net_has_none_of_its_own_and_td_training_refuses_a_pair(race_pair):
    main, race, combined = race_pair
    with pytest.raises(ValueError, match="race net"):
        _core.NeuralNet(*main.arrays(), race=combined)
    with pytest.raises(ValueError, match="race net"):
        combined.train(1, _core.rng_state(1), 0.01)


def test_weights_file_with_a_race_net_round_trips_and_checks_the_race_weights(tmp_path, race_pair):
    _, race, combined = race_pair
    path = tmp_path / "pair.npz"
    neural.save_net(path, combined, "pair")
    loaded, meta = neural.load_net(path)
    assert meta["format"] == 2 and meta["race"] == {"hidden": 8, "inputs": 198}
    for a, b in zip(neural.net_arrays(combined), neural.net_arrays(loaded)):
        np.testing.assert_array_equal(a, b)
    assert loaded.race is not None and loaded.race.hidden == 8
    bad = _rewritten(path, tmp_path / "bad.npz", lambda parts: _nudge(parts["race_w2"], (1, 3)))
    with pytest.raises(neural.NeuralNetError, match="checksum"):
        neural.load_net(bad)
    cut = _rewritten(path, tmp_path / "cut.npz", lambda parts: parts.pop("race_w1"))
    with pytest.raises(neural.NeuralNetError, match="cut.npz"):
        neural.load_net(cut)


def _bearoff_board(mine, theirs, mine_off, theirs_off) -> np.ndarray:
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 1:7], board[1, 1:7] = mine, theirs
    board[0, 0], board[1, 0] = mine_off, theirs_off
    assert board[0].sum() == board[1].sum() == 15
    return board


def test_bear_offs_are_valued_by_the_databases_and_other_positions_by_the_net(race_pair):
    """With the databases, a bear-off (both sides on their home boards) gets their values:
    exact inside the two-sided database; beyond it, the race of the one-sided distributions,
    computed here from them in numpy (I win if I finish on my k-th roll before the other
    side's k-th; gammons from the other side's rolls to its first checker off)."""
    from tavli_fast.play.bearoff import default_database

    db = default_database()
    main, _, combined = race_pair
    evaluator = neural.with_bearoff(combined, db.tables)
    assert evaluator.bearoff is db.tables and evaluator.race is combined.race
    inside = _bearoff_board((2, 1, 0, 1, 0, 1), (0, 1, 1, 1, 0, 0), 10, 12)
    np.testing.assert_array_equal(evaluator.evaluate(inside),
                                  [db.win_probability(Position.from_board(inside)), 0, 0, 0, 0])
    # Beyond the two-sided database: a close one, and one where the opponent has all 15 on
    # the board and a gammon is possible.
    close = _bearoff_board((3, 3, 3, 2, 1, 1), (2, 2, 2, 3, 2, 2), 2, 2)
    gammonish = _bearoff_board((0, 0, 1, 1, 1, 1), (0, 0, 0, 3, 6, 6), 11, 0)
    at_least = lambda p: p[::-1].cumsum()[::-1]  # noqa: E731: P(>= k rolls)
    for board in (close, gammonish):
        a, b = db.rolls(board[0, 1:7]), db.rolls(board[1, 1:7])
        first_b = db.first_off(board[1, 1:7]) if board[1, 0] == 0 else np.zeros(1)
        n = max(len(a), len(b), len(first_b)) + 1
        a, b, first_b = (np.pad(x, (0, n - len(x))) for x in (a, b, first_b))
        win = float(np.sum(a[1:] * at_least(b)[1:]))
        gammon = float(np.sum(a[1:] * at_least(first_b)[1:]))
        for exact in (False, True):
            got = evaluator.evaluate(board, exact=exact)
            np.testing.assert_allclose(got, [win, gammon, 0, 0, 0], atol=1e-12)
        if board is close:
            assert 0.1 < win < 0.9
        else:
            assert gammon > 0.01
    # Contact and races with a checker outside the home board: the nets, as before.
    for b in _test_positions()[::5]:
        in_home = not b[:, 7:26].any()
        want = db.tables.win(b) if in_home and b[0, 0] >= 6 and b[1, 0] >= 6 else None
        if not in_home:
            np.testing.assert_array_equal(evaluator.evaluate(b), combined.evaluate(b))
        elif want is not None:
            assert evaluator.evaluate(b)[0] == pytest.approx(want, abs=1e-7)


def test_plays_into_a_bear_off_are_valued_by_the_databases(race_pair):
    """The players' path agrees with fresh evaluations when plays enter the bear-off."""
    from tavli_fast.play.bearoff import default_database

    evaluator = neural.with_bearoff(race_pair[2], default_database().tables)
    worst, entering = 0.0, 0
    for b in _test_positions():
        if b[:, 13:26].any() or not _core.races(b[None])[0]:
            continue
        for d1, d2 in [(6, 5), (3, 3), (2, 1)]:
            plays = _core.generate(b, d1, d2)
            entering += int(b[0, 7:26].any() and not plays[:, 0, 7:26].any(axis=1).all())
            got = evaluator.play_equities(b, plays)
            want = [evaluator.move_equity(p, exact=True) for p in plays]
            worst = max(worst, float(np.abs(got - want).max()))
    assert entering >= 3 and worst < FAST_TOLERANCE


def test_the_games_evaluator_has_the_databases_unless_bear_offs_are_played_without_them():
    from tavli_fast.play.players import game_resources

    neural_id = int(_core.PlayerKind.PLAYER_NEURAL)
    with_db = game_resources((neural_id,), True)
    assert with_db["net"].bearoff is with_db["bearoff"] is not None
    without = game_resources((neural_id,), False)
    assert without["bearoff"] is None and without["net"].bearoff is None
    assert neural.default_net().bearoff is not None and neural.default_net(bearoff=False).bearoff is None
