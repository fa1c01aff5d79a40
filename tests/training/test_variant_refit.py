"""The readouts of a Plakoto or Fevga net refitted to its own games' outcomes
(``training/variant_refit.py``, ``tavli-train --game G --refit GAMES``)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tavli_fast.training.recipes import training_chain
from tavli_fast.training.variant_refit import (
    outcome_labels,
    readout_calibration,
    refit_all,
    refit_readouts,
    self_play,
)
from tavli_fast.variants.neural import default_variant_net, load_variant_net, variant_net_from_seed
from tavli_fast.variants.position import FevgaPosition, PlakotoPosition


def counts(**points: int) -> tuple[int, ...]:
    """24 counts from keyword arguments p1=..., p24=... (a side's own points)."""
    return tuple(points.get(f"p{p}", 0) for p in range(1, 25))


def test_f7_p7_bearing_off_the_last_checker_wins_two_points_when_the_loser_has_none_off():
    gammon = FevgaPosition(counts(), counts(p24=15), 15, 0)
    single = FevgaPosition(counts(), counts(p3=12), 15, 3)
    assert outcome_labels(gammon).tolist() == [1, 1, 0, 0, 0]
    assert outcome_labels(single).tolist() == [1, 0, 0, 0, 0]


def test_p5_pinning_the_last_mother_with_none_of_mine_at_home_wins_two_points_by_the_mother():
    # My checker on my 1-point pins his last checker on his 24-point; my own 24-point is empty.
    won = PlakotoPosition(counts(p1=1, p6=14), counts(p24=1, p6=14), 0, 0, (), (24,))
    assert outcome_labels(won).tolist() == [1, 1, 1, 0, 0]


def test_p6_both_mothers_pinned_is_a_draw_counted_half_a_win():
    both = PlakotoPosition(counts(p1=1, p24=1, p6=13), counts(p1=1, p24=1, p6=13), 0, 0,
                           (24,), (24,))
    assert outcome_labels(both).tolist() == [0.5, 0, 0, 0, 0]


def test_a_game_in_progress_has_no_outcome():
    with pytest.raises(ValueError, match="not a finished game"):
        outcome_labels(PlakotoPosition.initial())


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_self_play_labels_each_position_for_its_player_on_roll(game):
    net = variant_net_from_seed(game, 3, hidden=8)
    data = self_play(net, 12, seed=5)
    again = self_play(net, 12, seed=5)
    np.testing.assert_array_equal(data.boards, again.boards)
    assert len(data.starts) == 12 and data.starts[0] == 0
    # Every game starts from the start position; within a game the player on roll alternates,
    # so consecutive labels are one outcome from the two sides (a win for one is a loss for
    # the other, his 2-point wins the other's 2-point losses).
    initial = (PlakotoPosition if game == "plakoto" else FevgaPosition).initial().core_board()
    ends = list(data.starts[1:]) + [data.positions]
    for start, end in zip(data.starts, ends):
        np.testing.assert_array_equal(data.boards[start], initial)
        a, b = data.labels[start:end - 1], data.labels[start + 1:end]
        np.testing.assert_allclose(a[:, 0] + b[:, 0], 1.0)
        np.testing.assert_array_equal(a[:, [1, 2, 3, 4]], b[:, [3, 4, 1, 2]])
    assert set(np.unique(data.labels[:, 0])) <= {0.0, 0.5, 1.0}
    assert (data.labels[:, 1] <= data.labels[:, 0]).all() and (data.labels[:, 2] <= data.labels[:, 1]).all()


def _log_likelihood(net, data) -> float:
    p = np.clip(net.evaluate_many(data.boards, data.pinned, exact=True), 1e-12, 1 - 1e-12)
    y = data.labels
    return float(np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_refit_keeps_the_hidden_layer_and_fits_the_outcomes_better(game):
    net = variant_net_from_seed(game, 2, hidden=16)  # random weights: badly calibrated
    data = self_play(net, 40, seed=1)
    refitted = refit_readouts(net, data)
    for kept, was in zip(refitted.arrays()[:2], net.arrays()[:2]):
        np.testing.assert_array_equal(kept, was)
    assert not np.array_equal(refitted.arrays()[2], net.arrays()[2])
    assert _log_likelihood(refitted, data) > _log_likelihood(net, data) + 0.01
    # A logistic fit with a constant term matches the mean outcome (up to the small ridge).
    after = readout_calibration(refitted, data)
    assert abs(after["mean_estimate"][0] - after["mean_outcome"][0]) < 0.01


def run_train(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tavli_fast.cli.train", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def test_tavli_train_refit_writes_a_net_whose_recipe_chain_starts_from_the_first_net(tmp_path):
    done = run_train("--game", "fevga", "--refit", "20", "--weights", "fevga-v1.npz", "--seed", "2",
                     "--export", "f2.npz", "--net-version", "v2-test", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    net, meta = load_variant_net(tmp_path / "f2.npz", "fevga")
    _, start = load_variant_net("fevga-v1.npz", "fevga")
    assert meta["training"]["start"] == {"file": "fevga-v1.npz", "sha256": start["sha256"]}
    chain = training_chain(tmp_path / "f2.npz")
    assert [s.file for s in chain] == ["fevga-v1.npz", "f2.npz"]
    assert chain[-1].commands == ("tavli-train --game fevga --refit 20 --weights fevga-v1.npz "
                                  "--seed 2 --export f2.npz --net-version v2-test",)
    shown = run_train("--game", "fevga", "--recipe", "f2.npz", cwd=tmp_path)
    assert shown.returncode == 0 and "# v1 (fevga-v1.npz)" in shown.stdout
    assert "--refit 20" in shown.stdout and meta["training"]["reproduce"] in shown.stdout


def test_the_full_refit_changes_the_hidden_layer_fits_held_out_games_and_repeats(tmp_path):
    """--refit-hidden fits every weight: the hidden layer moves, the net kept fits the held-out
    games no worse than the start (an epoch that does worse is not kept), and the same games
    and seed give the same weights; the file says what was fitted."""
    net = default_variant_net("fevga")
    data = self_play(net, 400, seed=3)
    lines: list[str] = []
    fitted = refit_all(net, data, seed=4, epochs=2, progress=lines.append)
    losses = [float(line.split()[-1 if "epoch" in line else -4]) for line in lines]
    assert len(losses) == 3 and "the starting net" in lines[0]
    changed = not np.array_equal(fitted.arrays()[0], net.arrays()[0])
    assert changed == (min(losses[1:]) < losses[0])  # kept only where it fits better
    again = refit_all(net, data, seed=4, epochs=2)
    assert all(np.array_equal(a, b) for a, b in zip(fitted.arrays(), again.arrays()))
    done = run_train("--game", "fevga", "--refit", "30", "--refit-hidden", "--seed", "2",
                     "--export", "f3.npz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "held-out cross-entropy" in done.stderr and "every weight" in done.stdout
    _, meta = load_variant_net(tmp_path / "f3.npz", "fevga")
    assert meta["training"]["refit"]["hidden"] is True
    assert "the hidden layer too" in meta["training"]["method"]
    # The chain from the shipped net (itself a refit): each step writes its file once.
    steps = meta["training"]["reproduce"].split(" && ")
    assert [step.count("--export") for step in steps] == [1] * len(steps)
    assert steps[-1].endswith("--refit 30 --refit-hidden --seed 2 --export f3.npz")


@pytest.mark.parametrize("args, message", [
    (["--refit", "10", "--seed", "1"], "--refit needs --export"),
    (["--weights", "fevga-v1.npz", "--export", "x.npz"], "--weights goes with --refit"),
    (["--refit-hidden", "--export", "x.npz"], "--refit-hidden goes with --refit"),
    (["--refit", "10", "--games", "5", "--export", "x.npz"], "do not give --games"),
    (["--refit", "0", "--export", "x.npz"], "--refit: must be a whole number"),
    (["--refit", "10", "--weights", "nope.npz", "--export", "x.npz"], "no such weights file"),
])
def test_tavli_train_refit_bad_input_is_one_line_and_exit_status_2(tmp_path, args, message):
    done = run_train("--game", "fevga", *args, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "x.npz").exists()
