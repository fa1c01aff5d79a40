"""The 1-ply look-ahead's pre-filter of replies as a rollout setting (issue 54):
``rollout(..., reply_filter=)`` and ``tavli-rollout --reply-filter KEEP``.

A filter that keeps every reply is the exact search (keep 0), so their numbers agree; the
default (the best 8 by the pruning net) is keep 8; a filter that keeps one reply a roll
changes the play; the numbers do not depend on the workers and survive a resume; bad
settings are refused.
"""

from __future__ import annotations

import json

import pytest

import tavli_fast as tf
from tavli_fast.cli.rollout import main as rollout_main
from tavli_fast.jobs.rollout import read_checkpoint, request_from_checkpoint
from tavli_fast.jobs.rollout_request import make_request
from tavli_fast.run.checkpoint import write_checkpoint

from helpers import pos

# A short race with contact left at the back: 1-ply games of a few plies, several plays a roll.
RACE = pos("x 6:4 5:3 4:3 3:2 1:2 23:1; o 6:4 5:3 4:3 3:2 1:2 23:1").position_id()


def run(trials: int = 48, jobs: int = 1, **kw):
    return tf.rollout(RACE, trials, players="neural-1ply", seed=5, jobs=jobs, vr=False, **kw)


def figures(result) -> tuple[float, ...]:
    return (result.equity, result.win, result.win_gammon, result.se["equity"])


def test_a_filter_that_keeps_every_reply_is_the_exact_search():
    exact = figures(run(reply_filter=0))                  # 0: no filter
    assert figures(run(reply_filter=(16, 100.0))) == exact   # every play within 100 of the 16th


def test_the_default_is_keep_8():
    assert figures(run()) == figures(run(reply_filter=8))


def test_a_one_reply_filter_changes_the_play_and_says_so():
    exact, crude, default = run(reply_filter=0), run(reply_filter=(1, 0.0)), run()
    assert figures(crude) != figures(exact)
    assert any("pre-filtered" in note for note in crude.notes)
    assert any("every reply" in note for note in exact.notes)
    assert not any("pre-filtered" in note or "every reply" in note for note in default.notes)


def test_the_same_numbers_with_one_or_two_workers():
    assert figures(run(reply_filter=12, jobs=1)) == figures(run(reply_filter=12, jobs=2))


def test_a_resumed_run_gives_the_uninterrupted_numbers_and_refuses_another_filter(tmp_path):
    checkpoint = tmp_path / "c.json"
    straight = run(96, reply_filter=2, chunk_size=48)
    run(48, reply_filter=2, chunk_size=48, checkpoint=checkpoint)
    resumed = run(96, reply_filter=2, chunk_size=48, resume=checkpoint)
    assert figures(resumed) == figures(straight)
    for other in (3, None, 0):
        with pytest.raises(ValueError, match="reply_filter"):
            run(96, reply_filter=other, chunk_size=48, resume=checkpoint)


def test_the_filter_is_in_the_identity_wherever_a_player_looks_ahead():
    # Always for neural-1ply, default included: a checkpoint without it is an older one.
    assert make_request("start", 10, players="neural-1ply").identity()["reply_filter"] == [8, 0.0]
    req = make_request("start", 10, players="neural-1ply", reply_filter=(8, 0.02))
    assert req.identity()["reply_filter"] == [8, 0.02]
    req = make_request("start", 10, players="neural-1ply", reply_filter=0)
    assert req.identity()["reply_filter"] == [0, 0.0]
    assert "reply_filter" not in make_request("start", 10, players="pubeval").identity()
    assert "reply_filter" not in make_request("start", 10, players="neural-2ply").identity()


def test_an_older_checkpoint_resumes_with_the_exact_search_it_played(tmp_path):
    # Checkpoints written before the pre-filter became the default carry no reply_filter and
    # played every reply: resumed, they go on with the exact search, never the new default.
    checkpoint = tmp_path / "c.json"
    straight = run(96, reply_filter=0, chunk_size=48)
    run(48, reply_filter=0, chunk_size=48, checkpoint=checkpoint)
    doc = json.loads(checkpoint.read_text())
    del doc["request"]["reply_filter"]
    write_checkpoint(checkpoint, doc)            # sealed with its checksum, as it was written
    resumed = tf.resume_rollout(checkpoint, trials=96, jobs=1)
    assert figures(resumed) == figures(straight)
    assert request_from_checkpoint(read_checkpoint(checkpoint)).reply_filter == (0, 0.0)
    assert any("every reply" in note for note in resumed.notes)
    with pytest.raises(ValueError, match="reply_filter"):
        run(96, chunk_size=48, resume=checkpoint)               # asked for the default: refused


@pytest.mark.parametrize("bad", [-1, 17, True, "x", (4, -0.1), (4, float("inf")), (1, 2, 3)])
def test_bad_filters_are_refused(bad):
    with pytest.raises(ValueError, match="reply filter|reply_filter"):
        make_request("start", 10, players="neural-1ply", reply_filter=bad)


def test_cubeful_rollouts_take_it_and_the_variants_refuse_it():
    # A cubeful rollout's 1-ply players look ahead through the same pre-filter.
    exact = make_request("start", 10, players="neural-1ply", cubeful=True, reply_filter=0)
    assert exact.reply_filter == (0, 0.0) and exact.identity()["reply_filter"] == [0, 0.0]
    assert any("every reply" in note for note in exact.notes)
    for keep in (8, 0):  # 0 too: asked for, the exact search is a setting like any other
        with pytest.raises(ValueError, match="reply_filter"):
            make_request("start", 10, players="neural", game="plakoto", reply_filter=keep)


def test_cli_takes_it_and_refuses_a_bad_one_in_one_line(capsys):
    assert rollout_main(["--position", RACE, "--player", "neural-1ply", "--trials", "36",
                         "--seed", "5", "-j", "1", "--no-progress", "--no-vr",
                         "--reply-filter", "12"]) == 0
    assert "pre-filtered" in capsys.readouterr().out
    assert rollout_main(["--position", RACE, "--player", "neural-1ply", "--trials", "36",
                         "-j", "1", "--no-progress", "--reply-filter", "-3"]) == 2
    err = capsys.readouterr().err.strip()
    assert "reply filter" in err and len(err.splitlines()) == 1
