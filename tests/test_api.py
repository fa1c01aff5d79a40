"""The public API's two shared knobs: where a job runs (executor= / jobs=) and which game
it plays (rules=), and the older spellings they replace (deprecated aliases)."""

from __future__ import annotations

import inspect

import pytest

import tavli_fast as tf
from tavli_fast import Executor
from tavli_fast.rules import PlakotoRules

PUBLIC = ("rollout", "resume_rollout", "openings", "replies", "play_matches", "make_targets")


@pytest.mark.parametrize("name", PUBLIC)
def test_every_long_run_says_where_it_runs_the_same_way(name):
    parameters = inspect.signature(getattr(tf, name)).parameters
    assert parameters["executor"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "jobs" in parameters


def test_executor_forms_give_the_numbers_of_jobs():
    plain = tf.rollout("start", 300, seed=5, jobs=1)
    for executor in (Executor(jobs=1), 1, Executor(jobs=1, start_method="fork")):
        again = tf.rollout("start", 300, seed=5, executor=executor)
        assert again.equity == plain.equity and again.se == plain.se
    assert tf.rollout("start", 300, seed=5, executor=2).equity == plain.equity


def test_where_it_runs_is_said_once():
    with pytest.raises(ValueError, match="once"):
        tf.rollout("start", 10, seed=1, jobs=1, executor=Executor(jobs=2))
    with pytest.raises(TypeError, match="executor must be"):
        tf.rollout("start", 10, seed=1, executor=[1])
    with pytest.raises(TypeError, match="takes no executor"):
        tf.simulate("start", 10, executor=1)


def test_older_executor_spellings_still_work_and_warn():
    plain = tf.rollout("start", 200, seed=2, jobs=1)
    with pytest.warns(DeprecationWarning, match=r"start_method=\.\.\.\) is an older spelling"):
        old = tf.rollout("start", 200, seed=2, jobs=1, start_method="fork")
    assert old.equity == plain.equity


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_rules_names_the_game_everywhere(game):
    new = tf.rollout("start", 200, seed=3, jobs=1, rules=game)
    with pytest.warns(DeprecationWarning, match="older spelling"):
        old = tf.rollout("start", 200, seed=3, jobs=1, game=game)
    assert new.rules == old.rules == game and new.equity == old.equity
    sim = tf.simulate("start", 50, rules=game, seed=4)
    with pytest.warns(DeprecationWarning):
        sim_old = tf.simulate("start", 50, game=game, seed=4)
    assert sim.rates() == sim_old.rates() and sim.game == game


def test_rules_objects_carry_the_variant_options():
    options = PlakotoRules(draw_scores_point=True)
    new = tf.simulate("start", 50, rules=options, seed=6)
    with pytest.warns(DeprecationWarning):
        old = tf.simulate("start", 50, game="plakoto", rules=options, seed=6)
    assert new.rates() == old.rates() and new.rules["draw_scores_point"]


def test_tavli_matches_by_rules():
    new = tf.play_matches(3, 20, ("random", "random"), rules="tavli", seed=7, jobs=1)
    with pytest.warns(DeprecationWarning, match="rules='tavli'"):
        old = tf.play_matches(3, 20, ("random", "random"), tavli=True, seed=7, jobs=1)
    assert new.to_dict()["win"] == old.to_dict()["win"] and new.to_dict()["tavli"]
    with pytest.raises(ValueError, match="tavli"):
        tf.play_matches(3, 20, ("random", "random"), rules="plakoto", seed=7, jobs=1)
