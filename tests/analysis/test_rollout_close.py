"""``--rollout-close EMG --trials N``: the close decisions (and only they) are settled by
cubeful rollouts, the numbers are those of the public rollouts with the reported seed, the
error is the rolled-out difference with its SE, the same with 1 or 2 workers.

Fixture: tests/data/matches/gnubg-3pt.mat; small trials (the figures are noisy, the
bookkeeping is what is checked)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import tavli_fast
from helpers import replayed_rolls
from tavli_fast.analysis.report import analyse_match
from tavli_fast.cli.analyse import main
from tavli_fast.play.hint import hint
from tavli_fast.play.reports import eval_report

DATA = Path(__file__).resolve().parents[1] / "data" / "matches"
SMALL = DATA / "gnubg-3pt.mat"
CLOSE, TRIALS, SEED = 0.02, 36, 7


@pytest.fixture(scope="module")
def rolled():
    return analyse_match(SMALL, rollout_close=CLOSE, trials=TRIALS, seed=SEED)



def test_the_checker_plays_rolled_out_are_those_whose_two_best_are_close(rolled):
    rolls = replayed_rolls(rolled)
    checker = [d for d in rolled.decisions if d.kind == "checker"]
    for d in checker:
        r = rolls[(d.game, d.move, d.player)]
        first, second = hint(r.before, *r.action.dice, ply=0, top=0)[:2]
        close = first.equity_0ply - second.equity_0ply < CLOSE
        assert (d.rollout is not None) == close, (d.game, d.move)
    assert any(d.rollout for d in checker) and not all(d.rollout for d in checker)


def test_the_cube_decisions_rolled_out_are_the_close_ones(rolled):
    seen = 0
    for d in rolled.decisions:
        if d.kind != "cube" or d.played not in ("Double", "No double"):
            continue
        cube = eval_report(d.position_id, ply=0)["cube"]
        gap = abs(cube["no_double"] - min(cube["double_take"], cube["double_pass"]))
        if gap < CLOSE:
            assert d.rollout is not None and set(d.rollout["options"]) == {
                "No double", "Double, take", "Double, pass"}
            seen += 1
        elif d.rollout is None:
            assert d.error_se is None
    assert seen >= 1


def test_a_rolled_out_error_is_the_rolled_out_difference_with_its_se(rolled):
    for d in rolled.decisions:
        if d.rollout is None:
            assert d.error_se is None
            continue
        options = d.rollout["options"]
        assert d.rollout["trials"] == TRIALS and d.rollout["cubeful"] is True
        if d.kind == "checker":
            assert d.played in options and d.best in options
            assert options[d.best]["equity"] == max(o["equity"] for o in options.values())
            assert d.error == pytest.approx(options[d.best]["equity"] - options[d.played]["equity"],
                                            abs=1e-9)
        assert d.error >= 0 and d.error_se is not None and d.error_se >= 0
        assert (d.error_se > 0) == (d.error > 0)


def test_checker_rollouts_are_the_public_rollout_plays_with_the_reported_seed(rolled):
    rolls = replayed_rolls(rolled)
    d = next(d for d in rolled.decisions if d.kind == "checker" and d.rollout)
    r = rolls[(d.game, d.move, d.player)]
    names = list(d.rollout["options"])
    again = tavli_fast.rollout_plays(r.before, r.action.dice, TRIALS, seed=d.rollout["seed"],
                                     jobs=1, plays=names, stop_when_decided=None, cubeful=True)
    assert {p.play: p.equity for p in again.plays} == pytest.approx(
        {n: o["equity"] for n, o in d.rollout["options"].items()}, abs=1e-12)


def test_cube_rollouts_are_the_public_cubeful_rollout_with_the_reported_seed(rolled):
    d = next(d for d in rolled.decisions
             if d.kind == "cube" and d.rollout and d.played in ("Double", "No double"))
    again = tavli_fast.rollout(d.position_id, TRIALS, players="neural", seed=d.rollout["seed"],
                               jobs=1, cubeful=True)
    options = d.rollout["options"]
    assert again.cubeful.no_double == pytest.approx(options["No double"]["equity"], abs=1e-12)
    assert again.cubeful.double_take == pytest.approx(options["Double, take"]["equity"],
                                                      abs=1e-12)


def test_same_numbers_with_one_and_two_workers_and_other_numbers_with_another_seed(rolled):
    from tavli_fast.run.executors import make_executor

    with make_executor(2, "spawn") as executor:
        two = analyse_match(SMALL, rollout_close=CLOSE, trials=TRIALS, seed=SEED,
                            executor=executor)
    assert two.to_dict()["decisions"] == rolled.to_dict()["decisions"]
    other = analyse_match(SMALL, rollout_close=CLOSE, trials=TRIALS, seed=SEED + 1)
    assert other.to_dict()["decisions"] != rolled.to_dict()["decisions"]


def test_settings_echo_the_rollouts_and_a_random_seed_is_reported(rolled):
    settings = rolled.to_dict()["settings"]
    assert (settings["rollout_close"], settings["trials"], settings["seed"]) == (CLOSE, TRIALS, SEED)
    assert f"settled by cubeful rollouts of {TRIALS} trials (seed {SEED})" in str(rolled)
    drawn = analyse_match(SMALL, rollout_close=1e-6, trials=1)
    assert isinstance(drawn.to_dict()["settings"]["seed"], int)


def test_cli_rolls_out_and_writes_the_rollouts_in_json(capsys):
    assert main([str(SMALL), "--rollout-close", "0.01", "--trials", "18", "--seed", "3",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["seed"] == 3
    assert any(d["rollout"] and d["error_se"] is not None for d in doc["decisions"])


@pytest.mark.parametrize("args, words", [
    (["--rollout-close", "0.02"], "--rollout-close and --trials go together"),
    (["--trials", "100"], "--rollout-close and --trials go together"),
    (["--rollout-close", "0.02", "--trials", "0"], "trials"),
    (["--rollout-close", "-1", "--trials", "10"], "rollout_close must be a number of EMG above 0"),
])
def test_cli_refuses_bad_rollout_options_in_one_line(args, words, capsys):
    assert main([str(SMALL), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err


def test_plakoto_decisions_are_not_rolled_out(capsys):
    with pytest.raises(ValueError, match="rolled out in backgammon, not plakoto"):
        analyse_match(DATA / "plakoto-3pt.mat", rollout_close=0.02, trials=10)
