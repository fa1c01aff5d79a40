"""bench/strength.py's comparison of two nets on the same dice against gnubg 0-ply
(``--baseline``): the paired difference must be the difference of the two nets' own
results on those dice, and exactly nothing for a net against itself."""

from __future__ import annotations

import importlib.util
import json
import sys

import numpy as np
import pytest
from helpers import ROOT

from tavli_fast.play import neural

BENCH = ROOT / "bench" / "strength.py"
SEQUENCES, SEED = 6, 5


@pytest.fixture(scope="module")
def strength():
    spec = importlib.util.spec_from_file_location("bench_strength", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the worker processes find its functions by this name
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


@pytest.mark.oracle
def test_a_net_against_itself_as_baseline_differs_by_exactly_nothing(strength):
    shipped = str(neural.default_weights_path())
    report = strength.gnubg_match("neural", SEQUENCES, SEED, shipped, jobs=1, baseline=shipped)
    base = report["baseline"]
    assert (base["difference"], base["difference_se"]) == (0.0, 0.0)
    assert (base["ppg"], base["ppg_se"]) == (report["ppg"], report["ppg_se"])


@pytest.mark.oracle
def test_the_baseline_is_played_on_the_same_dice_as_its_own_match(strength):
    shipped = str(neural.default_weights_path())
    older = str(neural.weights_file("neural-v2.npz"))
    report = strength.gnubg_match("neural", SEQUENCES, SEED, shipped, jobs=1, baseline=older)
    alone = strength.gnubg_match("neural", SEQUENCES, SEED, older, jobs=1)
    base = report["baseline"]
    assert base["ppg"] == pytest.approx(alone["ppg"], abs=1e-12)
    assert base["difference"] == pytest.approx(report["ppg"] - alone["ppg"], abs=1e-12)
    assert base["difference_se"] > 0.0  # v2 and the default play differently on 6 sequences


@pytest.mark.oracle
def test_gnubg_can_look_ahead_on_the_same_dice(strength):
    # --gnubg-plies reaches gnubg's player: on the same dice its 1-ply plays other games
    # than its 0-ply (were the option lost on the way, the two matches would be identical).
    # The games' own results are compared: with the seats swapped on each sequence, the
    # mean of a few games can come out the same (0.0) for different games.
    shipped = str(neural.default_weights_path())
    zero = strength.gnubg_match("neural", 2, SEED, shipped, jobs=1)
    one = strength.gnubg_match("neural", 2, SEED, shipped, jobs=1, gnubg_plies=1)
    assert (zero["opponent"], one["opponent"]) == ("gnubg-0ply", "gnubg-1ply")
    games = [strength._gnubg_all("neural", 2, SEED, shipped, 1, False, plies)[0]
             for plies in (0, 1)]
    assert games[0].shape == games[1].shape == (2, 2)
    assert not np.array_equal(games[0], games[1])


@pytest.mark.oracle
def test_gnubg_against_itself_on_common_dice_scores_exactly_nothing(strength):
    # "gnubg-0" (gnubg's own player, the yardstick of look-ahead gains) in both seats:
    # each sequence's second game mirrors its first, so every pair sums to nothing.
    report = strength.gnubg_match("gnubg-0", 3, SEED)
    assert (report["ppg"], report["ppg_se"]) == (0.0, 0.0)
    games = strength._gnubg_all("gnubg-0", 3, SEED, None, 1, False)[0]
    assert np.array_equal(games[:, 0], -games[:, 1]) and np.abs(games).min() >= 1


@pytest.mark.oracle
def test_the_move_filter_reaches_the_one_ply_player(strength):
    # With one candidate the 1-ply player must play the 0-ply player's games; with the
    # default filter it plays others (were the filter lost on the way, both would fail).
    shipped = str(neural.default_weights_path())
    zero = strength._gnubg_all("neural", 2, SEED, shipped, 1, False)[0]
    narrow = strength._gnubg_all("neural-1ply", 2, SEED, shipped, 1, False, 0, (1, 0.0))[0]
    wide = strength._gnubg_all("neural-1ply", 2, SEED, shipped, 1, False)[0]
    assert np.array_equal(zero, narrow)
    assert not np.array_equal(zero, wide)


@pytest.mark.oracle
def test_errors_score_gnubgs_own_plays_by_its_zero_ply_evaluation(strength):
    # --errors with gnubg-N in our seat: gnubg 0-ply's plays are its 0-ply evaluation's best,
    # so they give up nothing by it; its 1-ply's look-ahead overrules that evaluation in some
    # plays (were the plays not scored, neither would have an errors record).
    zero = strength.gnubg_match("gnubg-0", 2, SEED, errors=True)["errors"]
    one = strength.gnubg_match("gnubg-1", 2, SEED, errors=True)["errors"]
    assert sum(e["plays"] for e in zero.values()) > 50
    assert all(abs(e["per_play"]) < 1e-9 for e in zero.values())
    assert sum(e["per_game"] for e in one.values()) > 0.0


@pytest.mark.parametrize("argv", [
    ["--errors"],
    ["--filter-candidates", "8"],
    ["--filter-window", "0.32"],
    ["--player", "gnubg-1", "--games", "0", "--self-play", "0", "--gnubg", "2",
     "--filter-candidates", "8"],
])
def test_settings_that_would_be_ignored_are_usage_errors(strength, argv, capsys):
    with pytest.raises(SystemExit) as e:
        strength.main(argv)
    assert e.value.code == 2
    assert "--filter-" in capsys.readouterr().err


# ------------------------------------------------------------- bench/compare_nets.py


@pytest.fixture(scope="module")
def compare():
    path = BENCH.with_name("compare_nets.py")
    spec = importlib.util.spec_from_file_location("compare_nets", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def _compare_json(compare, capsys, argv):
    assert compare.main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.oracle
def test_compare_nets_takes_each_seeds_difference_on_common_dice(strength, compare, tmp_path,
                                                                  capsys):
    shipped = str(neural.default_weights_path())
    older = str(neural.weights_file("neural-v2.npz"))
    argv = ["--seeds", "5-6", "--baseline", older, shipped, "--gnubg", "3",
            "--record", str(tmp_path / "runs.jsonl")]
    result = _compare_json(compare, capsys, argv)
    # Each seed's difference is what strength.py's --baseline gives on the same dice.
    diffs = [strength.gnubg_match("neural", 3, seed, shipped, jobs=1, baseline=older)
             ["baseline"]["difference"] for seed in (5, 6)]
    cand = result["nets"][shipped]
    assert result["seeds"] == [5, 6]
    assert cand["difference"] == pytest.approx((diffs[0] + diffs[1]) / 2, abs=1e-12)
    # Two seeds: the SE of their mean from their spread is half their distance.
    assert cand["difference_se"] == pytest.approx(abs(diffs[0] - diffs[1]) / 2, abs=1e-12)
    assert "difference" not in result["nets"][older]

    # The record holds both seeds: the same command again plays nothing.
    def no_play(*args, **kwargs):
        raise AssertionError("a recorded seed was played again")

    played = compare.play_seed
    compare.play_seed = no_play
    try:
        assert _compare_json(compare, capsys, argv) == result
        with pytest.raises(AssertionError, match="played again"):  # other settings: not reused
            compare.main([*argv[:-4], "--gnubg", "2", *argv[-2:]])
    finally:
        compare.play_seed = played


@pytest.mark.parametrize("seeds", ["7", "9-3", "a-b", "3,"])
def test_compare_nets_refuses_seed_lists_it_cannot_take_an_se_over(compare, seeds, capsys):
    with pytest.raises(SystemExit) as e:
        compare.main(["--seeds", seeds, "--baseline", "neural-v2.npz", "neural-v3.npz"])
    assert e.value.code == 2
    assert "seed" in capsys.readouterr().err
