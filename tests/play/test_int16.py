"""The int16 evaluator (issue 54, ``kernels/_nnquant.h``): its activation against the
sigmoid, its probabilities against the float32 reference on the benchmark positions (the
stated tolerance), its three instances bit for bit, and the nets and choices that carry it."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from helpers import SHARED
from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.play import neural
from tavli_fast.play.players import player_id

#: The stated tolerance (docs/performance.md): every probability of the int16 evaluator
#: within this of the float32 path's on the 2,000 benchmark positions.
PROBABILITY_TOLERANCE = 0.005
#: The pruning net's estimates of a play (an equity) for an int16 net (int16 too,
#: tq_estimate_batch) within this of the float32 ones (docs/performance.md).
ESTIMATE_TOLERANCE = 0.01


def _probe_net(bias: float, quantised: bool) -> _core.NeuralNet:
    """A net whose output 0 is sigmoid(activation(bias)): no input moves its one live
    hidden unit (w1 = 0, b1 = bias), whose weight to output 0 is 1 (the other 31 units,
    padding for the int16 evaluator's blocks of 32, have none)."""
    w1 = np.zeros((_core.NEURAL_BASE_INPUTS, 32))
    b1 = np.zeros(32)
    b1[0] = bias
    w2 = np.zeros((5, 32))
    w2[0, 0] = 1.0
    return _core.NeuralNet(w1, b1, w2, np.zeros(5), quantised=quantised)


def _activation(bias: float, quantised: bool) -> float:
    out = _probe_net(bias, quantised).evaluate(np.ascontiguousarray(Position.initial().board))
    return float(np.log(out[0] / (1.0 - out[0])))      # the output's logit: the activation


def test_the_activation_is_the_sigmoid_to_2e_4_and_odd_about_one_half():
    """16 quadratic segments on [0, 8): within 2e-4 of the sigmoid there (the Q14 rounding
    and the fit); 0 and 1 beyond, within 1 - sigmoid(8) = 3.4e-4; 1/2 at 0; and
    act(-x) = 1 - act(x)."""
    xs = np.concatenate([np.linspace(-12, 12, 193), [-64.0, -8.0, -7.999, 7.999, 8.0, 64.0]])
    got = np.array([_activation(x, True) for x in xs])
    exact = 1 / (1 + np.exp(-xs))
    inside = np.abs(xs) < 7.999
    assert np.abs(got - exact)[inside].max() < 2e-4
    assert np.abs(got - exact)[~inside].max() < 1 - 1 / (1 + np.exp(-8.0)) + 1e-6
    assert got[xs >= 8].min() > 1 - 1e-6 and got[xs <= -8].max() < 1e-6
    assert _activation(0.0, True) == pytest.approx(0.5, abs=1e-6)
    mirrored = np.array([_activation(-x, True) for x in xs])
    np.testing.assert_allclose(got + mirrored, 1.0, atol=1e-6)
    assert np.all(np.diff(got[:193]) >= -1e-6)      # monotone along the working range
    # The float32 path through the same probe is the sigmoid itself (the probe is sound).
    assert abs(_activation(1.5, False) - 1 / (1 + np.exp(-1.5))) < 1e-6


def _benchmark_boards(name: str) -> np.ndarray:
    ids = (SHARED / "data" / "positions" / name).read_text().split()
    assert len(ids) == 1000, name       # fail, never skip: the benchmark's positions
    return np.stack([np.asarray(Position.from_id(i).board) for i in ids]).astype(np.int8)


@pytest.fixture(scope="module")
def nets():
    plain = neural.default_net()
    return plain, neural.with_bearoff(neural.quantised(neural.default_net(bearoff=False)),
                                      plain.bearoff)


@pytest.mark.parametrize("name", ["contact.csv", "race.csv"])
def test_probabilities_are_within_the_stated_tolerance_on_the_benchmark_positions(nets, name):
    plain, int16 = nets
    boards = _benchmark_boards(name)
    diff = np.abs(int16.evaluate_many(boards) - plain.evaluate_many(boards))
    assert diff.max() < PROBABILITY_TOLERANCE
    assert diff.mean() < PROBABILITY_TOLERANCE / 10


def test_the_plays_it_chooses_are_the_float32_ones_but_for_near_ties(nets):
    """At 0 ply, over every roll of 100 contact benchmark positions: the same best play in
    at least 97 % of them, and the play chosen otherwise worth at most 0.01 less by the
    float32 net."""
    plain, int16 = nets
    same = total = 0
    for board in _benchmark_boards("contact.csv")[:100]:
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                plays = _core.generate(board, d1, d2)
                if len(plays) < 2:
                    continue
                exact, fast = plain.play_equities(board, plays), int16.play_equities(board, plays)
                total += 1
                same += int(np.argmax(exact) == np.argmax(fast))
                assert exact.max() - exact[np.argmax(fast)] < 0.01
    assert same >= 0.97 * total


INSTANCES = ("baseline", "avx2", "default")


def _in_each_instance(script: str, *argv: str) -> dict[str, str]:
    """`script` run with `argv` in a process per int16 instance (TAVLI_FAST_SIMD=baseline,
    =avx2, unset: the best this processor has), keyed as INSTANCES, with `{simd}` in an
    argument replaced by that key: each process's stdout, stripped."""
    out = {}
    for simd in INSTANCES:
        env = {k: v for k, v in os.environ.items() if k != "TAVLI_FAST_SIMD"}
        if simd != "default":
            env["TAVLI_FAST_SIMD"] = simd
        r = subprocess.run([sys.executable, "-c", script, *(a.format(simd=simd) for a in argv)],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r.stderr
        out[simd] = r.stdout.strip()
    return out


def test_its_three_instances_give_the_same_numbers_bit_for_bit(tmp_path):
    """TAVLI_FAST_SIMD=baseline takes the scalar instance, =avx2 the AVX2 one, unset the best
    this processor has (AVX-512BW here, when it has it): evaluations, a roll's plays, the
    pruning net's estimates of them, and 0- and 1-ply games by the int16 net must not differ
    by a bit."""
    script = (
        "import numpy as np, sys; from tavli_fast import _core;"
        "from tavli_fast.game.position import Position;"
        "from tavli_fast.play import neural; from tavli_fast.play.players import player_id;"
        "b = np.load(sys.argv[1]); net = neural.evaluator(kind='int16');"
        "start = np.ascontiguousarray(Position.initial().board); eq = np.zeros(12);"
        "[_core.run_games(start, 6, player_id(p), player_id(p), 5, True, True,"
        " bearoff=net.bearoff, truncate=True, net=net, per_game_equity=eq[k * 6:(k + 1) * 6])"
        " for k, p in enumerate(('neural', 'neural-1ply'))];"
        "est = [net.play_estimates(x, _core.generate(x, 4, 2), estimator='prune') for x in b];"
        "out = [net.evaluate_many(b).ravel(), net.play_equities(b[0], b[1:]), eq, *est];"
        "np.save(sys.argv[2], np.concatenate(out)); print(_core.INT16_KERNELS)"
    )
    stack = tmp_path / "boards.npy"
    np.save(stack, _benchmark_boards("contact.csv")[:300])
    used = _in_each_instance(script, str(stack), str(tmp_path / "{simd}"))
    assert used["baseline"] == "baseline" and used["avx2"] in ("avx2", "baseline")
    assert used["default"] in ("avx512", "avx2", "baseline")
    reference = np.load(tmp_path / "baseline.npy")
    for simd in ("avx2", "default"):
        np.testing.assert_array_equal(np.load(tmp_path / f"{simd}.npy"), reference)


def test_the_output_layers_integer_lanes_do_not_overflow(tmp_path):
    """Every hidden unit at 1 (the activation's largest) and every weight to an output the
    same: at the scale that only keeps 32 units' products below 2^31 an AVX2 lane's 40 units
    (of 320) would overflow int32; the lanes' own bound (_quantise_outputs) keeps each
    instance's output at the float32 one's, 320 x 0.001 = 0.32, and the three equal."""
    script = (
        "import numpy as np, sys; from tavli_fast import _core;"
        "from tavli_fast.game.position import Position;"
        "w1 = np.zeros((_core.NEURAL_BASE_INPUTS, 320)); b1 = np.full(320, 20.0);"
        "w2 = np.full((5, 320), 0.001); w2[1:] *= -1;"
        "net = _core.NeuralNet(w1, b1, w2, np.zeros(5), quantised=True);"
        "p = net.evaluate_many(np.ascontiguousarray(Position.initial().board)[None])[0];"
        "print(repr(float(np.log(p[0] / (1 - p[0])))), _core.INT16_KERNELS)"
    )
    logits = {simd: out.split() for simd, out in _in_each_instance(script).items()}
    assert logits["avx2"][1] in ("avx2", "baseline")
    assert logits["baseline"][0] == logits["avx2"][0] == logits["default"][0]
    assert float(logits["baseline"][0]) == pytest.approx(0.32, abs=1e-3)


def test_the_pruning_nets_estimates_for_an_int16_net_are_int16_and_close(nets):
    """An int16 net's pre-filter ranks by the pruning net's int16 estimates: not the float32
    numbers (so the int16 path is the one taken), each within ESTIMATE_TOLERANCE of them, and
    the same plays left unranked (+inf)."""
    plain, int16 = nets
    diffs = []
    for board in _benchmark_boards("contact.csv")[:150]:
        plays = _core.generate(board, 5, 2)
        exact = plain.play_estimates(board, plays, estimator="prune")
        quick = int16.play_estimates(board, plays, estimator="prune")
        ranked = np.isfinite(exact)
        np.testing.assert_array_equal(ranked, np.isfinite(quick))
        diffs.append(np.abs(exact[ranked] - quick[ranked]))
    d = np.concatenate(diffs)
    assert len(d) > 1000
    assert 0.0 < d.max() <= ESTIMATE_TOLERANCE


def test_a_quantised_net_keeps_its_race_net_databases_and_pruning_net(nets):
    plain, int16 = nets
    assert not plain.quantised and int16.quantised
    assert int16.race is not None and int16.race.quantised and not plain.race.quantised
    assert int16.prune is plain.prune and not int16.prune.quantised   # it only ranks plays
    assert int16.bearoff is plain.bearoff
    again = plain.as_quantised()
    assert again.quantised and again is not plain and neural.quantised(int16) is int16
    np.testing.assert_array_equal(again.arrays()[0], plain.arrays()[0])


def test_a_quantised_net_is_not_trained_and_needs_blocks_of_32_units():
    net = _probe_net(0.0, True)
    with pytest.raises(ValueError, match="not trained"):
        net.train(1, np.array([1, 2, 3, 4], dtype=np.uint64), 0.1)
    w1, b1, w2, b2 = (np.zeros((198, 48)), np.zeros(48), np.zeros((5, 48)), np.zeros(5))
    with pytest.raises(ValueError, match="multiple of 32 hidden units"):
        _core.NeuralNet(w1, b1, w2, b2, quantised=True)
    assert not _core.NeuralNet(w1, b1, w2, b2).quantised        # the float32 path takes it


def _paired(players, nets, games=40):
    net = nets[0]
    out = np.zeros(games)
    who = player_id(players)
    _core.run_games(np.ascontiguousarray(Position.initial().board), games, who, who, 9, True,
                    True, bearoff=net.bearoff, truncate=True, net=net, per_game_equity=out,
                    player_nets=nets)
    return out


def test_player_nets_pit_two_evaluators_on_the_same_dice(nets):
    plain, int16 = nets
    alone = np.zeros(40)
    _core.run_games(np.ascontiguousarray(Position.initial().board), 40, player_id("neural"),
                    player_id("neural"), 9, True, True, bearoff=plain.bearoff, truncate=True,
                    net=plain, per_game_equity=alone)
    np.testing.assert_array_equal(_paired("neural", (plain, plain)), alone)   # the same net
    mixed = _paired("neural", (int16, plain))
    assert not np.array_equal(mixed, alone)         # the int16 side plays some rolls apart
    with pytest.raises(ValueError, match="pair of NeuralNets"):
        _paired("neural", (plain,))
    with pytest.raises(ValueError, match="cubeless"):
        _core.run_games(np.ascontiguousarray(Position.initial().board), 2, player_id("neural"),
                        player_id("neural"), 9, True, True, net=plain, player_nets=(plain, int16),
                        cube_branches=[(1, 0, 64, False, False, 0, 0, False)])


def test_the_choice_of_evaluator_is_recorded_and_checked():
    default = neural.default_evaluator()       # int16 with AVX2 kernels, else float32
    assert neural.check_evaluator(None) == default
    with pytest.raises(ValueError, match="evaluator must be one of float32, int16, not 'int8'"):
        neural.check_evaluator("int8")
    choice = neural.choose_net(None, True, "int16")
    assert choice.evaluator == "int16" and "int16 evaluator" in choice.describe()
    assert choice.checkpoint_keys() == ({"evaluator": "int16"}, {})
    float32 = neural.choose_net(None, True, "float32")
    assert float32.checkpoint_keys() == ({}, {})  # as before int16
    assert neural.net_of_choice(choice).quantised
    assert not neural.net_of_choice(float32).quantised
    assert neural.choose_net().evaluator == default
    assert neural.net_of_choice(neural.choose_net()).quantised == (default == "int16")
    with pytest.raises(ValueError, match="int16 evaluator is for the net"):
        neural.choose_net(None, False, "int16")
    assert neural.choose_net(None, False) is None        # no net, no evaluator asked: none
    assert neural.evaluator(kind="int16").quantised
    assert not neural.evaluator(kind="float32").quantised
    assert neural.evaluator().quantised == (default == "int16")
