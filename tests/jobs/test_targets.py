"""Supervised refinement (issue 13): self-play positions, 1-ply targets, the fit."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.jobs import targets as supervise
from tavli_fast.play.neural import default_net
from tavli_fast.jobs.rollout import FIGURES


def _reference_1ply(net: _core.NeuralNet, board: np.ndarray) -> np.ndarray:
    """The 1-ply probabilities by another path: every roll's plays from the generator, the
    best by ``play_equities``, its probabilities by a fresh ``evaluate`` of the board the
    opponent then rolls from, turned to the mover's view; the 36-roll mean."""
    total = np.zeros(5)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            plays = np.ascontiguousarray(_core.generate(board, d1, d2))
            best = plays[int(np.argmax(net.play_equities(board, plays)))]
            if best[0, 0] == 15:  # the mover has borne off its last checker
                gammon = best[1, 0] == 0
                p = np.array([1.0, gammon, gammon and best[1, 19:26].any(), 0.0, 0.0])
            else:
                q = net.evaluate(np.ascontiguousarray(best[::-1]))
                p = np.array([1 - q[0], q[3], q[4], q[1], q[2]])
            total += p * (1 if d1 == d2 else 2) / 36
    return total


@pytest.fixture(scope="module")
def positions() -> np.ndarray:
    return default_net().selfplay_positions(6, _core.rng_state(11), 0.1)


def test_selfplay_positions_are_legal_games_in_progress(positions):
    counts = positions[:, :, :].sum(axis=2)  # off + points + bar
    assert positions.shape[1:] == (2, 26) and len(positions) > 100
    assert (counts == 15).all() and (positions >= 0).all()
    assert (positions[:, :, 0] < 15).all()  # no finished game
    # The side on roll alternates: consecutive positions of a game are mirror-related, so the
    # player to move changes (its borne-off count never exceeds what it had as row 1).
    assert not (positions[1:] == positions[:-1]).all(axis=(1, 2)).any()


def test_selfplay_is_reproducible_and_advances_the_generator():
    net = default_net()
    s1, s2 = _core.rng_state(3), _core.rng_state(3)
    a = net.selfplay_positions(3, s1, 0.0)
    b = net.selfplay_positions(3, s2, 0.0)
    assert np.array_equal(a, b) and np.array_equal(s1, s2)
    assert not np.array_equal(s1, _core.rng_state(3))
    c = net.selfplay_positions(3, _core.rng_state(3), 1.0)  # every turn a random play
    assert not np.array_equal(a[: len(c)], c[: len(a)])
    with pytest.raises(ValueError):
        net.selfplay_positions(1, _core.rng_state(3), 1.5)


def test_1ply_probabilities_match_an_independent_computation(positions):
    net = default_net()
    sample = positions[:: max(1, len(positions) // 25)]
    got = net.probs_1ply_many(np.ascontiguousarray(sample))
    for board, p in zip(sample, got):
        assert np.allclose(p, _reference_1ply(net, board), atol=1e-6)


def test_1ply_refuses_a_finished_game():
    board = np.zeros((1, 2, 26), dtype=np.int8)
    board[0, 0, 0] = 15
    board[0, 1, 6] = 15
    with pytest.raises(ValueError, match="over"):
        default_net().probs_1ply_many(board)


def _swap(q: np.ndarray) -> np.ndarray:
    """Probabilities of the side on roll seen by its opponent."""
    return np.array([1 - q[0], q[3], q[4], q[1], q[2]])


def test_2ply_probabilities_match_the_1ply_ones_one_roll_deeper(positions):
    """2-ply = for each roll the best 0-ply play, then the opponent's 1-ply look (by the
    Python reference) from the board after it, in the mover's view; the 36-roll mean."""
    net = default_net()
    late = positions[np.argsort(positions[:, :, 0].sum(axis=1))[-2:]]   # near the end too
    sample = np.ascontiguousarray(np.concatenate([positions[5:6], late]))
    got = net.probs_many(sample, 2)
    for board, p in zip(sample, got):
        total = np.zeros(5)
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                plays = np.ascontiguousarray(_core.generate(board, d1, d2))
                best = plays[int(np.argmax(net.play_equities(board, plays)))]
                if best[0, 0] == 15:
                    gammon = best[1, 0] == 0
                    q = np.array([1.0, gammon, gammon and best[1, 19:26].any(), 0.0, 0.0])
                else:
                    q = _swap(_reference_1ply(net, np.ascontiguousarray(best[::-1])))
                total += q * (1 if d1 == d2 else 2) / 36
        assert np.allclose(p, total, atol=1e-6)
    assert np.array_equal(net.probs_many(sample, 1), net.probs_1ply_many(sample))
    with pytest.raises(ValueError, match="1 or 2"):
        net.probs_many(sample, 3)


def _game_value(loser: np.ndarray) -> int:
    """0, 1 or 2 (single, gammon, backgammon) by the loser's row when the winner is off (R20)."""
    if loser[0] > 0:
        return 0
    return 2 if loser[19:26].any() else 1


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_selfplay_outcomes_follow_the_games_end(seed):
    """One game per call: the side on roll alternates, so the outcomes alternate between
    win and loss at the same value; the last position's side on roll makes the last play,
    so it wins, with the value of the loser's row after one of its plays that bear off its
    last checker (not always the row before it: a double can hit a blot on its way home,
    16/12*/8/4/off, and put the loser on the bar, a backgammon)."""
    net = default_net()
    a, b = _core.rng_state(seed), _core.rng_state(seed)
    boards, outcomes = net.selfplay_positions(1, a, 0.0, True)
    assert np.array_equal(boards, net.selfplay_positions(1, b, 0.0)) and np.array_equal(a, b)
    assert outcomes.dtype == np.int8 and len(outcomes) == len(boards)
    k = int(outcomes[-1])
    last = boards[-1]
    endings = {_game_value(after[1]) for d1 in range(1, 7) for d2 in range(d1, 7)
               for after in _core.generate(last, d1, d2) if after[0, 0] == 15}
    assert k in endings and k >= _game_value(last[1])
    wins = outcomes < 3
    assert (wins[1:] != wins[:-1]).all() and (outcomes % 3 == k).all()


def test_selfplay_outcomes_are_unknown_before_a_random_play():
    net = default_net()
    assert (net.selfplay_positions(3, _core.rng_state(2), 1.0, True)[1] == -1).all()
    seen_partial = False
    for seed in range(6):
        outcomes = net.selfplay_positions(1, _core.rng_state(seed), 0.05, True)[1]
        unknown = outcomes == -1
        cut = int(unknown.sum())
        assert unknown[:cut].all() and not unknown[cut:].any()   # a prefix of the game
        seen_partial |= 0 < cut < len(outcomes)
    assert seen_partial


def test_blend_outcomes_mixes_only_the_known_ones():
    probs = np.array([[0.6, 0.2, 0.01, 0.1, 0.005]] * 3)
    got = supervise.blend_outcomes(probs, np.array([-1, 1, 5], dtype=np.int8), 0.25)
    assert np.allclose(got[0], probs[0])
    assert np.allclose(got[1], [0.7, 0.4, 0.0075, 0.075, 0.00375])   # won a gammon
    assert np.allclose(got[2], [0.45, 0.15, 0.0075, 0.325, 0.25375])  # lost a backgammon
    with pytest.raises(ValueError, match="weight"):
        supervise.blend_outcomes(probs, np.zeros(3, dtype=np.int8), 1.5)


def test_dense_inputs_match_the_single_board_encoder(positions):
    x = _core.neural_inputs_many(positions[:50])
    assert x.dtype == np.float32 and x.shape == (50, _core.NEURAL_INPUTS)
    for board, row in zip(positions[:50], x):
        assert np.allclose(row, _core.neural_inputs(np.ascontiguousarray(board)), atol=1e-6)


def test_targets_resume_and_do_not_depend_on_the_workers(tmp_path):
    net = default_net()
    one = supervise.make_targets(tmp_path / "a", net, 5, seed=4, unit_games=2, jobs=1)
    assert one["positions_written"] > 0 and not one["interrupted"]
    two = supervise.make_targets(tmp_path / "b", net, 5, seed=4, unit_games=2, jobs=2)
    ba, pa = supervise.load_targets(tmp_path / "a")
    bb, pb = supervise.load_targets(tmp_path / "b")
    assert np.array_equal(ba, bb) and np.array_equal(pa, pb) and two["positions_written"] == len(ba)
    assert supervise.shard_indices(tmp_path / "a") == [0, 1, 2]  # 2 + 2 + 1 games
    # A second call finds every shard done; a larger count adds only the missing units.
    again = supervise.make_targets(tmp_path / "a", net, 5, seed=4, unit_games=2, jobs=1)
    assert again["positions_written"] == 0
    (tmp_path / "a" / "targets-000001.npz").unlink()
    redo = supervise.make_targets(tmp_path / "a", net, 5, seed=4, unit_games=2, jobs=1)
    assert np.array_equal(supervise.load_targets(tmp_path / "a")[0], ba) and redo["positions_written"] > 0
    with pytest.raises(ValueError, match="another net or"):
        supervise.make_targets(tmp_path / "a", net, 5, seed=4, explore=0.5, unit_games=2, jobs=1)
    assert json.loads((tmp_path / "a" / "targets.json").read_text())["targets"] == "1-ply"
    assert np.allclose(pa[:3], net.probs_1ply_many(np.ascontiguousarray(ba[:3])))
    outcomes = supervise.load_outcomes(tmp_path / "a")
    assert len(outcomes) == len(ba) and (outcomes >= -1).all() and (outcomes <= 5).all()
    assert np.array_equal(outcomes, supervise.load_outcomes(tmp_path / "b"))
    with pytest.raises(ValueError, match="plies"):
        supervise.make_targets(tmp_path / "a", net, 5, seed=4, plies=2, unit_games=2, jobs=1)


def test_2ply_targets_and_shards_without_outcomes(tmp_path):
    net = default_net()
    record = supervise.make_targets(tmp_path / "d", net, 1, seed=8, plies=2, jobs=1)
    boards, probs = supervise.load_targets(tmp_path / "d")
    assert record["targets"] == "2-ply" and len(boards) == record["positions_written"]
    assert np.allclose(probs[:2], net.probs_many(np.ascontiguousarray(boards[:2]), 2))
    # A shard written before outcomes were recorded reads as unknown outcomes.
    np.savez(tmp_path / "d" / "targets-000001.npz", boards=boards[:4], probs=probs[:4])
    outcomes = supervise.load_outcomes(tmp_path / "d")
    assert len(outcomes) == len(boards) + 4 and (outcomes[-4:] == -1).all()


def _teacher_data(n: int = 3000):
    """Inputs of self-play positions and a different net's outputs on them as targets."""
    boards = default_net().selfplay_positions(60, _core.rng_state(5), 0.2)[:n]
    w1, b1, w2, b2 = default_net().arrays()
    rng = np.random.default_rng(1)
    teacher = _core.NeuralNet(w1 + rng.normal(0, 0.05, w1.shape), b1, w2, b2)
    return _core.neural_inputs_many(boards, teacher.n_inputs), teacher.evaluate_many(boards)


def test_fit_learns_and_resumes_bit_for_bit(tmp_path):
    x, t = _teacher_data()
    whole = supervise.fit(supervise.FitState.start(default_net(), 3), x, t, 2, rate=1e-3,
                          holdout=500)
    assert whole.history[-1]["holdout_loss"] < whole.history[0]["holdout_loss"] or \
        whole.history[-1]["holdout_equity_mae"] < whole.history[0]["holdout_equity_mae"]
    ck = tmp_path / "fit.npz"
    first = supervise.fit(supervise.FitState.start(default_net(), 3), x, t, 1, rate=1e-3,
                          holdout=500, checkpoint=str(ck))
    assert first.epoch == 1
    resumed = supervise.fit(supervise.FitState.load(ck), x, t, 2, rate=1e-3, holdout=500)
    for a, b in zip(whole.params, resumed.params):
        assert np.array_equal(a, b)
    strip = lambda h: [{k: v for k, v in r.items() if k != "seconds"} for r in h]  # noqa: E731
    assert strip(resumed.history) == strip(whole.history) and len(resumed.history) == 2


def test_fit_refuses_a_batch_larger_than_its_training_rows():
    """With fewer training rows than a batch an epoch would take no step: an error, not a
    silent no-op that exports the starting net as if it had been fitted."""
    x, t = _teacher_data()
    with pytest.raises(ValueError, match="a batch of 600 rows, but 500 rows"):
        supervise.fit(supervise.FitState.start(default_net(), 3), x[:1000], t[:1000], 1,
                      batch=600, holdout=500)
    with pytest.raises(ValueError, match="a batch of 0"):
        supervise.fit(supervise.FitState.start(default_net(), 3), x, t, 1, batch=0, holdout=500)


def test_fit_of_the_outputs_only_keeps_the_hidden_layer():
    x, t = _teacher_data()
    start = default_net().arrays()
    state = supervise.fit(supervise.FitState.start(default_net(), 3), x, t, 2, rate=1e-3,
                          holdout=500, outputs_only=True)
    assert np.array_equal(state.params[0], start[0]) and np.array_equal(state.params[1], start[1])
    assert not np.array_equal(state.params[2], start[2])
    assert state.history[-1]["holdout_loss"] < supervise._loss(
        supervise._forward([a.astype(np.float32) for a in start], x[-500:])[1],
        t[-500:].astype(np.float32))


def test_fit_of_some_readouts_moves_only_their_rows():
    """readouts=(1, 2, 3, 4) recalibrates the gammon estimates and leaves the win output's
    weights, and the hidden layer, bit for bit as they were; the rows that learn move exactly
    as in a fit of all five outputs (each output's loss and Adam's steps are its own)."""
    x, t = _teacher_data()
    start = default_net().arrays()
    def fit(**kw):
        return supervise.fit(supervise.FitState.start(default_net(), 3), x, t, 2, rate=1e-3,
                             holdout=500, outputs_only=True, **kw)

    gammons, every = fit(readouts=(1, 2, 3, 4)), fit()
    for k in (0, 1):
        assert np.array_equal(gammons.params[k], start[k])
    for k in (2, 3):  # w2 (5, H), b2 (5,)
        assert np.array_equal(gammons.params[k][0], start[k][0])
        assert np.array_equal(gammons.params[k][1:], every.params[k][1:])
        assert not np.array_equal(gammons.params[k][1:], start[k][1:])
    with pytest.raises(ValueError, match="outputs-only"):
        supervise.fit(supervise.FitState.start(default_net(), 3), x, t, 1, holdout=500,
                      readouts=(1,))
    with pytest.raises(ValueError, match="outputs 0-4"):
        fit(readouts=(5,))


def test_fit_moves_the_net_towards_the_targets():
    x, t = _teacher_data()
    state = supervise.fit(supervise.FitState.start(default_net(), 3), x, t, 4, rate=1e-3,
                          holdout=500)
    errors = [h["holdout_equity_mae"] for h in state.history]
    start = supervise._forward([a.astype(np.float32) for a in default_net().arrays()], x[-500:])[1]
    start_error = float(np.mean(np.abs(supervise.equity_of(start) - supervise.equity_of(t[-500:]))))
    assert errors[-1] < 0.8 * start_error


def test_widen_keeps_the_evaluations_and_refuses_to_narrow(positions):
    wide = supervise.widen(default_net(), _core.NEURAL_TIMING_INPUTS)
    assert wide.n_inputs == 215 > default_net().n_inputs
    sample = np.ascontiguousarray(positions[:100])
    assert np.array_equal(wide.evaluate_many(sample), default_net().evaluate_many(sample))
    with pytest.raises(ValueError, match="narrowed"):
        supervise.widen(wide, 209)


def test_widen_adds_hidden_units_that_change_nothing_until_trained(positions):
    net = default_net()
    h, wider = net.hidden, net.hidden + 32
    wide = supervise.widen(net, hidden=wider, seed=4)
    w1, b1, w2, _ = wide.arrays()
    assert w1.shape == (209, wider) and b1.shape == (wider,) and w2.shape == (5, wider)
    assert wide.race is net.race or np.array_equal(wide.race.arrays()[0], net.race.arrays()[0])
    # The new units have input weights (to learn from) but no say in the outputs yet.
    assert np.all(w2[:, h:] == 0) and np.abs(w1[:, h:]).max() > 0.05
    sample = np.ascontiguousarray(positions[:100])
    assert np.array_equal(wide.evaluate_many(sample), net.evaluate_many(sample))
    assert np.array_equal(supervise.widen(net, hidden=wider, seed=4).arrays()[0], w1)  # seeded
    # A gradient step reaches the new units' output weights at once.
    x, t = _teacher_data()
    state = supervise.fit(supervise.FitState.start(wide, 0), x, t, 1, rate=1e-3, holdout=500)
    assert np.abs(state.params[2][:, h:]).max() > 0
    with pytest.raises(ValueError, match="hidden units already"):
        supervise.widen(wide, hidden=h)


def test_cli_fit_and_targets_write_a_loadable_net(tmp_path, capsys):
    from tavli_fast.cli.train import main
    from tavli_fast.play.neural import load_net

    data = tmp_path / "data"
    assert main(["--targets", str(data), "--games", "3", "--seed", "1", "-j", "1", "-q"]) == 0
    assert "positions written" in capsys.readouterr().out
    out = tmp_path / "net.npz"
    assert main(["--fit", str(data), "--epochs", "1", "--inputs", "209", "--batch", "500",
                 "-q"]) == 2  # 3 games hold fewer positions than a batch of 500
    assert "a batch of 500 rows" in capsys.readouterr().err
    assert main(["--fit", str(data), "--epochs", "1", "--inputs", "209", "--export", str(out),
                 "--net-version", "test", "--batch", "32", "-q"]) == 0
    net, meta = load_net(out)
    assert net.n_inputs == 209 and meta["version"] == "test"
    assert meta["training"]["supervised"]["epochs"] == 1
    wider, h = tmp_path / "wider.npz", default_net().hidden + 8   # --fit starts from the shipped net
    assert main(["--fit", str(data), "--epochs", "1", "--hidden", str(h), "--export", str(wider),
                 "--batch", "32", "-q"]) == 0
    assert load_net(wider)[0].arrays()[1].shape == (h,)
    assert main(["--fit", str(data), "--hidden", "64", "-q"]) == 2  # no narrowing
    assert main(["--targets", str(data), "--hidden", "160", "--games", "3", "-q"]) == 2
    assert "widen the net that --fit starts from" in capsys.readouterr().err
    assert main(["--targets", str(data), "--fit", str(data), "-q"]) == 2  # one at a time
    assert main(["--fit", str(data), "--outcome-weight", "1.5", "-q"]) == 2
    assert "outcome-weight" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad_plies:  # argparse's one-line error
        main(["--targets", str(data), "--plies", "3", "--games", "3", "-q"])
    assert bad_plies.value.code == 2 and "--plies" in capsys.readouterr().err
    blended = tmp_path / "blended.npz"
    assert main(["--fit", str(data), "--epochs", "1", "--outcome-weight", "0.3", "--batch", "32",
                 "--outputs-only", "--export", str(blended), "-q"]) == 0
    assert "outcomes known for" in capsys.readouterr().err
    record = load_net(blended)[1]["training"]["supervised"]
    assert record["outcome_weight"] == 0.3 and record["outputs_only"] is True
    assert np.array_equal(load_net(blended)[0].arrays()[0], default_net().arrays()[0])
    assert not np.array_equal(load_net(blended)[0].arrays()[2], default_net().arrays()[2])
    gammons = tmp_path / "gammons.npz"
    assert main(["--fit", str(data), "--epochs", "1", "--outcome-weight", "1", "--batch", "32",
                 "--outputs-only", "--readouts", "gammons,win_gammon", "--export", str(gammons),
                 "-q"]) == 0
    net, meta = load_net(gammons)
    assert meta["training"]["supervised"]["readouts"] == ["win_gammon", "win_backgammon",
                                                          "lose_gammon", "lose_backgammon"]
    assert np.array_equal(net.arrays()[2][0], default_net().arrays()[2][0])
    assert not np.array_equal(net.arrays()[2][1], default_net().arrays()[2][1])
    assert main(["--fit", str(data), "--readouts", "gammons", "-q"]) == 2  # not --outputs-only
    assert "--readouts narrows --outputs-only" in capsys.readouterr().err
    with pytest.raises(SystemExit) as bad_readout:
        main(["--fit", str(data), "--outputs-only", "--readouts", "win,cube", "-q"])
    assert bad_readout.value.code == 2 and "not an output: 'cube'" in capsys.readouterr().err


def test_cli_targets_of_a_named_net_value_bear_offs_as_the_default_does(tmp_path):
    """--targets --init-from FILE makes the same targets as the shipped default when FILE is
    the default's file: the named net gets the bear-off databases too (it once played and
    looked ahead without them, so its targets valued bear-offs by the net)."""
    from tavli_fast.cli.train import main
    from tavli_fast.play.neural import default_weights_path

    shipped, named = tmp_path / "shipped", tmp_path / "named"
    assert main(["--targets", str(shipped), "--games", "3", "--seed", "4", "-j", "1", "-q"]) == 0
    assert main(["--targets", str(named), "--init-from", str(default_weights_path()),
                 "--games", "3", "--seed", "4", "-j", "1", "-q"]) == 0
    (b1, p1), (b2, p2) = supervise.load_targets(shipped), supervise.load_targets(named)
    assert np.array_equal(b1, b2) and np.array_equal(p1, p2)


OUTPUTS = FIGURES[:5]  # the rollout figures in the order of the net's outputs (not the equity)


@pytest.mark.slow
def test_rollout_labels_agree_with_the_public_rollout(positions):
    """Rollout labels (luck-adjusted, 0-ply self-play to the end) are estimates of the same
    figures as a neural rollout of the position by ``parallel.rollout``: they agree within 4
    combined standard errors, on two positions of different stages."""
    from tavli_fast.api import rollout
    from tavli_fast.game.position import Position

    net = default_net()
    picks = np.ascontiguousarray(positions[[3, 60]])
    labels = supervise.rollout_probs(net, picks, 216, seed=9)
    assert labels.shape == (2, 5) and (labels >= 0).all() and (labels <= 1).all()
    for board, label in zip(picks, labels):
        r = rollout(Position.from_board(board), trials=432, players=("neural", "neural"),
                    seed=3, jobs=1)
        for k, name in enumerate(OUTPUTS):
            se = r.vr["se"][name]
            combined = np.hypot(r.se[name], np.sqrt(2) * se) + 1e-3  # 216 trials against 432
            assert abs(label[k] - getattr(r, name)) < 4 * combined, (name, label[k], getattr(r, name))
    few = supervise.rollout_probs(net, picks, 36, seed=9)
    assert np.array_equal(few, supervise.rollout_probs(net, picks, 36, seed=9))  # same seed
    assert not np.array_equal(few, supervise.rollout_probs(net, picks, 36, seed=10))


def test_rollout_labels_of_a_database_race_are_exact():
    """Both sides in the two-sided bear-off database: the games are counted exactly at once,
    so the label is the database's win probability, with no gammons."""
    from tavli_fast.play.bearoff import default_database
    from tavli_fast.game.position import Position

    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 1:7] = (2, 1, 0, 1, 0, 1)  # 5 checkers left, 10 off
    board[1, 1:7] = (0, 1, 1, 1, 0, 0)
    board[0, 0], board[1, 0] = 10, 12
    label = supervise.rollout_probs(default_net(), board[None], 36, seed=1)[0]
    exact = default_database().win_probability(Position.from_board(board))
    assert 0.05 < exact < 0.95
    assert label[0] == pytest.approx(exact, abs=1e-9) and not label[1:].any()


@pytest.mark.slow
def test_rollout_targets_job_writes_resumable_labelled_shards(tmp_path, capsys):
    net = default_net()
    record = supervise.make_targets(tmp_path / "r", net, 1, seed=6, rollouts=6, jobs=1)
    assert record["targets"] == "rollouts-6" and record["unit_games"] == supervise.UNIT_GAMES // 6
    boards, probs = supervise.load_targets(tmp_path / "r")
    assert len(boards) == record["positions_written"] > 0
    assert np.array_equal(probs, supervise.rollout_probs(
        net, np.ascontiguousarray(boards), 6, supervise._unit_seed(6, 0)))
    with pytest.raises(ValueError, match="another net or"):  # the same directory, 1-ply labels
        supervise.make_targets(tmp_path / "r", net, 2, seed=6, jobs=1)
    with pytest.raises(ValueError, match="rollouts"):
        supervise.make_targets(tmp_path / "x", net, 2, seed=6, rollouts=0.5, jobs=1)
    with pytest.raises(ValueError, match="rollouts or plies"):
        supervise.make_targets(tmp_path / "z", net, 2, seed=6, rollouts=12, plies=2, jobs=1)
    with pytest.raises(ValueError, match="trials"):
        supervise.rollout_probs(net, boards[:1], 0, seed=1)
    from tavli_fast.cli.train import main

    assert main(["--targets", str(tmp_path / "y"), "--rollouts", "12", "--plies", "2",
                 "--games", "1", "-q"]) == 2
    assert "--rollouts" in capsys.readouterr().err


def test_race_targets_and_the_race_net_fit(tmp_path, capsys):
    """--race keeps only the positions with no contact left, and --fit --race trains the race
    net alone: the exported pair plays contact positions exactly as the net it started from."""
    from tavli_fast.cli.train import main
    from tavli_fast.play.neural import load_net, net_arrays

    net = default_net()
    record = supervise.make_targets(tmp_path / "r", net, 6, seed=4, race=True, jobs=1)
    assert record["targets"] == "1-ply-race"
    boards, probs = supervise.load_targets(tmp_path / "r")
    assert len(boards) > 20 and _core.races(boards).all()
    assert np.array_equal(probs, net.probs_many(np.ascontiguousarray(boards)))
    # The same games without --race: the race positions are among their positions.
    supervise.make_targets(tmp_path / "all", net, 6, seed=4, jobs=1)
    every = supervise.load_targets(tmp_path / "all")[0]
    assert 0 < len(boards) < len(every) and np.array_equal(every[_core.races(every)], boards)
    out = tmp_path / "pair.npz"
    assert main(["--fit", str(tmp_path / "all"), "--race", "--epochs", "2", "--batch", "16",
                 "--export", str(out), "-q"]) == 0
    pair, meta = load_net(out)
    assert meta["training"]["supervised"]["race"] is True
    assert meta["training"]["supervised"]["positions"] == len(boards)
    for a, b in zip(pair.arrays(), net.arrays()):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(pair.race.arrays()[0], net.arrays()[0])  # the race net learnt
    contact = np.ascontiguousarray(every[~_core.races(every)])
    np.testing.assert_array_equal(pair.evaluate_many(contact), net.evaluate_many(contact))
    # Fitting the main net of a pair keeps its race net.
    kept = tmp_path / "kept.npz"
    assert main(["--fit", str(tmp_path / "all"), "--init-from", str(out), "--epochs", "1",
                 "--export", str(kept), "-q"]) == 0
    assert all(np.array_equal(a, b) for a, b in
               zip(net_arrays(load_net(kept)[0])[4:], net_arrays(pair)[4:]))
    assert main(["--race", "--games", "3", "-q"]) == 2
    assert "--race" in capsys.readouterr().err


def test_truncated_rollout_labels_are_the_look_ahead_at_one_and_two_plies(positions):
    """A luck-adjusted rollout stopped after k plies, over the 36 first rolls, is the k-ply
    look-ahead: the luck of each roll is measured by the same 0-ply values the look-ahead
    averages, so what is left is the mean over the rolls, with no noise. At k = 1 and 2 the
    truncated labels equal ``probs_many``'s 1- and 2-ply targets (to the float32 path's
    rounding), whatever the seed; deeper, they are neither."""
    net = default_net()
    picks = np.ascontiguousarray(positions[[3, 30, 60, 100]])
    for k in (1, 2):
        label = supervise.rollout_probs(net, picks, 36, seed=k, truncate_plies=k)
        np.testing.assert_allclose(label, net.probs_many(picks, k), atol=1e-4)
    deeper = supervise.rollout_probs(net, picks, 36, seed=1, truncate_plies=6)
    assert not np.allclose(deeper, net.probs_many(picks, 2), atol=1e-3)
    assert not np.array_equal(deeper, supervise.rollout_probs(net, picks, 36, seed=2,
                                                              truncate_plies=6))


def test_contact_targets_with_truncated_rollouts(tmp_path, capsys):
    """--contact keeps exactly the positions --race drops; truncated rollout labels are recorded
    in the directory's kind and need --rollouts."""
    from tavli_fast.cli.train import main

    net = default_net()
    record = supervise.make_targets(tmp_path / "c", net, 6, seed=4, contact=True, jobs=1)
    assert record["targets"] == "1-ply-contact"
    boards = supervise.load_targets(tmp_path / "c")[0]
    supervise.make_targets(tmp_path / "all", net, 6, seed=4, jobs=1)
    every = supervise.load_targets(tmp_path / "all")[0]
    assert np.array_equal(every[~_core.races(every)], boards) and len(boards) < len(every)
    record = supervise.make_targets(tmp_path / "t", net, 1, seed=4, rollouts=4, truncate_plies=3,
                                    contact=True, jobs=1)
    assert record["targets"] == "rollouts-4-cut3-contact"
    boards, probs = supervise.load_targets(tmp_path / "t")
    assert np.array_equal(probs, supervise.rollout_probs(
        net, np.ascontiguousarray(boards), 4, supervise._unit_seed(4, 0), truncate_plies=3))
    with pytest.raises(ValueError, match="needs rollouts"):
        supervise.make_targets(tmp_path / "x", net, 1, seed=4, truncate_plies=3, jobs=1)
    with pytest.raises(ValueError, match="not both"):
        supervise.make_targets(tmp_path / "x", net, 1, seed=4, race=True, contact=True, jobs=1)
    assert main(["--targets", str(tmp_path / "y"), "--truncate-plies", "3", "--games", "1",
                 "-q"]) == 2
    assert "--truncate-plies" in capsys.readouterr().err
    assert main(["--contact", "--games", "3", "-q"]) == 2
    assert "--contact" in capsys.readouterr().err
