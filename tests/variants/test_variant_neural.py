"""The Plakoto and Fevga nets (issue 44): their inputs on hand-built positions (named by rule),
outputs equal to a numpy forward pass, the players' choice, and TD training that learns and
repeats itself from its seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.play.neural import NeuralNetError
from tavli_fast.variants.games import random_game_positions
from tavli_fast.variants.neural import (
    VariantProbabilities,
    evaluate_variant,
    load_variant_net,
    save_variant_net,
    variant_net_from_seed,
)
from tavli_fast.variants.position import FevgaPosition, PlakotoPosition
from tavli_fast.training.variant_train import (
    export_variant_net,
    load_variant_checkpoint,
    new_run,
    save_variant_checkpoint,
    train_variant,
)
from tavli_fast.variants.movegen import GAME_CODES, generate_variant_positions

PLAKOTO, FEVGA = _core.VARIANT_INPUT_UNITS


def counts(points: dict[int, int]) -> list[int]:
    """24 counts from {point: checkers}."""
    return [points.get(p, 0) for p in range(1, 25)]


def inputs(position) -> np.ndarray:
    return _core.variant_neural_inputs(GAME_CODES[position.game], position.core_board(),
                                       position.pinned_mask())


def numpy_probs(net, x: np.ndarray) -> np.ndarray:
    """The net's forward pass in numpy, made consistent as the core does."""
    w1, b1, w2, b2 = net.arrays()
    hidden = 1 / (1 + np.exp(-(x @ w1 + b1)))
    p = 1 / (1 + np.exp(-(w2 @ hidden + b2)))
    p[1] = min(p[1], p[0])
    p[2] = min(p[2], p[1])
    p[3] = min(p[3], 1 - p[0])
    p[4] = min(p[4], p[3])
    return p


# ---------------------------------------------------------------- inputs

def test_p2_p5_plakoto_inputs_of_a_hand_built_position():
    # Me: my mother alone on 24 (P5), a blot on 8 that his checkers on my 5 (his 20) can pin
    # with a 3; my two on 13 pin his lone checker there (his 12, P2).
    position = PlakotoPosition(
        counts({24: 1, 13: 2, 8: 1, 6: 5, 4: 3, 2: 3}),
        counts({24: 10, 20: 3, 12: 1, 10: 1}), 0, 0, (), (12,))
    x = inputs(position)
    assert x[4 * 7] == 1 and x[4 * 7 + 1] == 0                   # one checker on my 8
    assert x[4 * 5: 4 * 6].tolist() == [1, 1, 1, 1.0]            # five on my 6: (5 - 3) / 2
    assert x[PLAKOTO["mother"]] == 1                             # P5: my mother can be caught
    assert x[PLAKOTO["exposed"]] == pytest.approx(1 / 3)         # only the blot on 8 is in reach
    assert x[PLAKOTO["pinned"]: PLAKOTO["pinned"] + 24].sum() == 0
    assert x[PLAKOTO["bear_off"]] == 0
    assert x[PLAKOTO["pips"]] == pytest.approx((24 + 26 + 8 + 30 + 12 + 6) / 360)
    his = x[PLAKOTO["side"]:]
    assert his[PLAKOTO["pinned"] + 11] == 1                      # P2: his checker on his 12
    assert his[PLAKOTO["pinned"]: PLAKOTO["pinned"] + 24].sum() == 1
    assert his[PLAKOTO["mother"]] == 0                           # ten still on his 24
    assert len(x) == 2 * PLAKOTO["side"]


def test_p4_p5_a_pinned_mother_and_bear_off_inputs():
    # His checker sits on my mother (my 24 = his 1): P5 pinned, so no longer "alone to catch";
    # all his others are home, none pinned: he may bear off (P4); I may not (a checker on 24).
    position = PlakotoPosition(
        counts({24: 1, 6: 14}), counts({1: 1, 2: 4, 3: 5, 4: 5}), 0, 0, (24,), ())
    x = inputs(position)
    assert x[PLAKOTO["pinned"] + 23] == 1 and x[PLAKOTO["mother"]] == 0
    assert x[PLAKOTO["bear_off"]] == 0
    his = x[PLAKOTO["side"]:]
    assert his[PLAKOTO["bear_off"]] == 1 and his[PLAKOTO["pinned"]: PLAKOTO["pinned"] + 24].sum() == 0


@pytest.mark.parametrize("mine, runner", [
    ({24: 15}, 1), ({24: 14, 20: 1}, 1), ({24: 14, 13: 1}, 1), ({24: 14, 11: 1}, 0),
])
def test_f4_runner_input(mine, runner):
    position = FevgaPosition(counts(mine), counts({24: 15}), 0, 0)
    assert inputs(position)[FEVGA["runner"]] == runner


def test_f6_a_six_point_prime_with_every_opposing_checker_behind_it_is_a_trap():
    # My points 6..11 are his 18..23, right in front of his 15 checkers on his 24; my 24 is
    # his 12, further on his path.
    me = counts({24: 3, 11: 2, 10: 2, 9: 2, 8: 2, 7: 2, 6: 2})
    x = inputs(FevgaPosition(me, counts({24: 15}), 0, 0))
    assert x[FEVGA["trap"]] == 1 and x[FEVGA["prime"]] == 1 and x[FEVGA["held"]] == 7 / 12
    assert x[FEVGA["runner"]] == 0
    # One of his checkers already past the prime: no trap, the prime still blocks the rest.
    x = inputs(FevgaPosition(me, counts({24: 14, 13: 1}), 0, 0))
    assert x[FEVGA["trap"]] == 0 and x[FEVGA["prime"]] == 1
    assert x[FEVGA["side"] + FEVGA["trap"]] == 0


# ---------------------------------------------------------------- outputs

@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_outputs_equal_a_numpy_forward_pass_on_random_positions(game):
    net = variant_net_from_seed(game, 5, hidden=40)
    positions = random_game_positions(game, 4, seed=2)[::5]
    boards = np.stack([p.core_board() for p in positions]).astype(np.int8)
    pinned = np.array([p.pinned_mask() for p in positions], dtype=np.uint32)
    exact = net.evaluate_many(boards, pinned, exact=True)
    fast = net.evaluate_many(boards, pinned)
    expected = np.stack([numpy_probs(net, inputs(p)) for p in positions])
    np.testing.assert_allclose(exact, expected, atol=1e-12)
    np.testing.assert_allclose(fast, expected, atol=1e-4)
    got = evaluate_variant(game, positions[3], net, exact=True)
    assert isinstance(got, VariantProbabilities)
    np.testing.assert_allclose(list(vars(got).values()), expected[3], atol=1e-12)


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_the_players_pick_the_play_with_the_best_evaluation(game):
    """0-ply: the result whose full evaluation, from the opponent's side, is worst for him;
    1-ply: the play whose mean over his 21 best replies is best, among the 0-ply few."""
    net = variant_net_from_seed(game, 9, hidden=32)
    rng = np.random.default_rng(4)
    positions = random_game_positions(game, 3, seed=6)[10::7]
    for position in positions:
        d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
        after = generate_variant_positions(game, position, d1, d2)
        plays = np.stack([a.core_board() for a in after]).astype(np.int8)
        values = []
        for a in after:
            if a.is_game_over():
                values.append(3.0)                                 # a win beats any play
                continue
            p = evaluate_variant(game, a.sides_switched(), net)
            values.append(-p.equity)
        board, pinned = position.core_board(), position.pinned_mask()
        chosen = net.choose(board, pinned, plays, ply=0)
        assert values[chosen] == pytest.approx(max(values), abs=1e-5)
        zero = net.play_probs(board, pinned, plays)
        equity0 = 2 * zero[:, 0] - 1 + zero[:, 1] - zero[:, 3]
        one = net.play_1ply_equities(board, pinned, plays)
        assert one.shape == (len(after),)
        top = np.argsort(-equity0, kind="stable")[:5]
        top = [i for i in top if equity0[i] >= equity0[top[0]] - 0.16]
        best = net.choose(board, pinned, plays, ply=1)
        assert best in top and one[best] == pytest.approx(max(one[top]))


def test_one_ply_equity_is_the_mean_of_the_best_replies():
    game = "fevga"
    net = variant_net_from_seed(game, 2, hidden=24)
    position = random_game_positions(game, 1, seed=3)[12]
    after = generate_variant_positions(game, position, 6, 2)[0]
    reply_from = after.sides_switched()
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            replies = generate_variant_positions(game, reply_from, d1, d2)
            probs = net.play_probs(reply_from.core_board(), reply_from.pinned_mask(),
                                   np.stack([r.core_board() for r in replies]).astype(np.int8))
            total += (1 if d1 == d2 else 2) * max(2 * p[0] - 1 + p[1] - p[3] for p in probs)
    one = net.play_1ply_equities(position.core_board(), position.pinned_mask(),
                                 after.core_board()[None].astype(np.int8))
    assert one[0] == pytest.approx(-total / 36, abs=1e-9)


# ---------------------------------------------------------------- training

def points_against(net, game: str, opponent: int, games: int) -> float:
    """The net's 0-ply player's points a game against `opponent`, seats swapped."""
    board = PlakotoPosition.initial().core_board() if game == "plakoto" else \
        FevgaPosition.initial().core_board()
    total = 0.0
    for seats, sign in (((2, opponent), 1), ((opponent, 2), -1)):
        c = _core.run_variant_games(board, 0, GAME_CODES[game], 0, games, *seats, 17, net=net)
        total += sign * float(c[0] + 2 * c[1] + 2 * c[2] - c[3] - 2 * c[4] - 2 * c[5])
    return total / (2 * games)


def test_td_training_learns_to_beat_the_random_player():
    state = new_run("plakoto", seed=3, hidden=16, alpha=0.1)
    before = points_against(state.net, "plakoto", 0, 300)
    train_variant(state, 200)
    after = points_against(state.net, "plakoto", 0, 300)
    assert after > before + 0.6 and after > 1.2


def test_same_seed_same_weights_and_a_resumed_run_continues_exactly(tmp_path):
    a = train_variant(new_run("fevga", seed=7, hidden=16), 40)
    b = new_run("fevga", seed=7, hidden=16)
    train_variant(b, 25)
    save_variant_checkpoint(tmp_path / "run.npz", b)
    b = train_variant(load_variant_checkpoint(tmp_path / "run.npz"), 40)
    c = train_variant(new_run("fevga", seed=8, hidden=16), 40)
    for x, y, z in zip(a.net.arrays(), b.net.arrays(), c.net.arrays()):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(a.net.arrays()[0], c.net.arrays()[0])
    assert a.outcomes == b.outcomes and a.plies == b.plies


def test_weights_file_records_its_recipe_and_refuses_damage(tmp_path):
    state = train_variant(new_run("plakoto", seed=1, hidden=16), 10)
    state.commands.append("tavli-train --game plakoto --games 10 --seed 1 --hidden 16")
    export_variant_net(tmp_path / "p.npz", state, "test")
    net, meta = load_variant_net(tmp_path / "p.npz", "plakoto")
    assert meta["training"]["recipe"] == state.commands and meta["training"]["seed"] == 1
    assert meta["training"]["reproduce"] == (
        "tavli-train --game plakoto --games 10 --seed 1 --hidden 16 --alpha 0.05 "
        "--decay-games 200000 --lambda 0.7")
    for x, y in zip(net.arrays(), state.net.arrays()):
        np.testing.assert_array_equal(x, y)
    with pytest.raises(NeuralNetError, match="not for 'fevga'"):
        load_variant_net(tmp_path / "p.npz", "fevga")
    w1, b1, w2, b2 = net.arrays()
    w1[0, 0] += 1.0
    damaged = _core.VariantNet(0, w1, b1, w2, b2)
    save_variant_net(tmp_path / "d.npz", damaged, "d")
    with np.load(tmp_path / "d.npz") as z:
        parts = {k: z[k] for k in z.files}
    meta = json.loads(str(parts["meta"]))
    meta["sha256"] = "0" * 64
    np.savez(tmp_path / "d.npz", **{**parts, "meta": np.array(json.dumps(meta))})
    with pytest.raises(NeuralNetError, match="checksum"):
        load_variant_net(tmp_path / "d.npz")


def test_a_net_of_the_other_game_or_none_is_refused_by_the_game_loop():
    board = FevgaPosition.initial().core_board()
    with pytest.raises(ValueError, match="needs the game's VariantNet"):
        _core.run_variant_games(board, 0, 1, 0, 1, 2, 1, 1)
    with pytest.raises(ValueError, match="that game's net"):
        _core.run_variant_games(board, 0, 1, 0, 1, 2, 1, 1,
                                net=variant_net_from_seed("plakoto", 1, 8))


def test_tavli_train_game_checkpoints_resumes_and_exports_its_recipe(tmp_path, monkeypatch, capsys):
    from tavli_fast.cli.train import main

    monkeypatch.chdir(tmp_path)
    first = ["--game", "fevga", "--games", "30", "--seed", "2", "--hidden", "16",
             "--checkpoint", "run.npz"]
    assert main(first) == 0
    second = ["--game", "fevga", "--games", "50", "--resume", "run.npz", "--export", "f.npz"]
    assert main(second) == 0
    net, meta = load_variant_net(tmp_path / "f.npz", "fevga")
    assert meta["training"]["games_done"] == 50
    assert meta["training"]["recipe"] == ["tavli-train " + " ".join(first),
                                          "tavli-train " + " ".join(second)]
    again = train_variant(new_run("fevga", seed=2, hidden=16), 50)
    for x, y in zip(net.arrays(), again.net.arrays()):
        np.testing.assert_array_equal(x, y)
    assert main(["--game", "fevga", "--games", "60", "--resume", "f.npz"]) == 2
    capsys.readouterr()
    assert main(["--game", "fevga", "--recipe", "f.npz"]) == 0
    assert meta["training"]["reproduce"] in capsys.readouterr().out


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_the_shipped_net_beats_the_heuristic_player_and_is_the_default(game):
    from tavli_fast import simulate
    from tavli_fast.variants.neural import SHIPPED, default_variant_net

    net = default_variant_net(game)
    _, meta = load_variant_net(SHIPPED[game], game)
    assert meta["training"]["reproduce"].startswith(f"tavli-train --game {game} ")
    assert points_against(net, game, 1, 400) > 0.3       # bench: about +0.7 over 10,000 games
    result = simulate(rules=game, games=200, players=("neural", "heuristic"), seed=1)
    assert result.rates()["points"][0] > 0
