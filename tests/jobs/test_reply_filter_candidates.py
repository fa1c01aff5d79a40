"""The 1-ply look-ahead's pre-filter of replies in the jobs that compare plays (issue 54):
``rollout_plays(..., reply_filter=)`` / ``tavli-rollout --dice .. --reply-filter KEEP`` and
``openings(..., reply_filter=)`` / ``tavli-openings --reply-filter KEEP``.

Their neural-1ply players play with the filter asked for (the exact search, keep 0, gives
other numbers than the default, and the default is the core's); their checkpoints keep it
whenever a player looks ahead, and one written before the pre-filter became the default
resumes with the exact search it played.
"""

from __future__ import annotations

import json

import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.cli.openings import main as openings_main
from tavli_fast.cli.rollout import main as rollout_main
from tavli_fast.jobs import openings as openings_job
from tavli_fast.jobs import plays as plays_job
from tavli_fast.jobs.openings import make_openings_request
from tavli_fast.jobs.plays import make_plays_request
from tavli_fast.run.checkpoint import write_checkpoint

# 43 from the start: two plays whose 1-ply games the filter changes, a dozen trials a chunk.
PLAYS = "24/20 13/10,13/10 13/9"
# The opening roll with the fewest plays (7), for short openings runs: 2 chunks of 6 trials.
ROLL = "65"
FAST = dict(players="neural-1ply", seed=3, jobs=1, vr=False)


def plays(**kw):
    return tf.rollout_plays("start", "43", **{"trials": 24, "chunk_size": 12, "plays": PLAYS,
                                               "stop_when_decided": None, **FAST, **kw})


def openings(**kw):
    return tf.openings(**{"trials": 12, "chunk_size": 6, "rolls": ROLL, **FAST, **kw})


def play_figures(result) -> dict[str, tuple[float, float, int]]:
    return {p.play: (p.equity, p.diff, p.trials) for p in result.plays}


def opening_figures(result) -> dict[str, tuple[float, float, int]]:
    return {p.play: (p.equity, p.diff, p.trials) for p in result.rolls[0].plays}


#: Each job kind: how to run it, its figures, its module, the games of its first chunk (of
#: the 2 plays named, of the roll's 7 plays).
KINDS = {"plays": (plays, play_figures, plays_job, 2 * 12),
         "openings": (openings, opening_figures, openings_job, 7 * 6)}


@pytest.fixture(scope="module")
def exact():
    """Each kind's run of the exact search (keep 0), made once."""
    return {kind: run(reply_filter=0) for kind, (run, *_) in KINDS.items()}


# ------------------------------------------------------------------ the filter is played


@pytest.mark.parametrize("kind", KINDS)
def test_the_filter_asked_for_is_played_and_noted(kind, exact):
    run, figures, *_ = KINDS[kind]
    default = run()
    assert figures(exact[kind]) != figures(default)
    assert figures(run(reply_filter=_core.REPLY_FILTER)) == figures(default)
    assert any("every reply" in note for note in exact[kind].notes)
    assert not any("every reply" in note or "pre-filtered" in note for note in default.notes)


def test_a_filter_of_a_few_replies_is_noted():
    crude = [make_plays_request("start", "43", 10, "neural-1ply", plays=PLAYS, reply_filter=2),
             make_openings_request(10, "neural-1ply", rolls=ROLL, reply_filter=2)]
    assert all(any("pre-filtered" in note for note in r.notes) for r in crude)


# ------------------------------------------------------------------ identities


def test_the_plays_identity_carries_the_filter_wherever_a_player_looks_ahead():
    def identity(players, **kw):
        return make_plays_request("start", "43", 10, players, plays=PLAYS, **kw).identity()

    assert identity("neural-1ply")["reply_filter"] == list(_core.REPLY_FILTER)
    assert identity(("pubeval", "neural-1ply"), reply_filter=0)["reply_filter"] == [0, 0.0]
    assert "reply_filter" not in identity("pubeval")
    assert "reply_filter" not in identity("neural-2ply")


def test_the_openings_identity_carries_the_filter_wherever_a_player_looks_ahead():
    def identity(players, **kw):
        return make_openings_request(10, players, rolls=ROLL, **kw).identity()

    assert identity("neural-1ply")["reply_filter"] == list(_core.REPLY_FILTER)
    assert identity("neural-1ply", reply_filter=(4, 0.02))["reply_filter"] == [4, 0.02]
    assert "reply_filter" not in identity("pubeval")
    assert "reply_filter" not in identity("neural")
    # Plakoto's neural-1ply has no such look-ahead: no entry, and no setting.
    assert "reply_filter" not in identity("neural-1ply", game="plakoto")
    with pytest.raises(ValueError, match="reply_filter"):
        make_openings_request(10, "neural-1ply", game="plakoto", reply_filter=0)


@pytest.mark.parametrize("bad", [-1, 17, 2.5, True, "x", (4, -0.1), (1, 2, 3)])
def test_bad_filters_are_refused_precisely(bad):
    with pytest.raises(ValueError, match="reply filter|reply_filter"):
        make_plays_request("start", "43", 10, "neural-1ply", plays=PLAYS, reply_filter=bad)
    with pytest.raises(ValueError, match="reply filter|reply_filter"):
        make_openings_request(10, "neural-1ply", rolls=ROLL, reply_filter=bad)


# ------------------------------------------------------------------ older checkpoints


def _stop_after(games: int):
    """A progress callback that stops the run once ``games`` trials are done (in all)."""
    def stop(progress) -> None:
        if progress.trials_done >= games:
            raise KeyboardInterrupt
    return stop


def _as_older(path) -> None:
    """Make the checkpoint one written before the pre-filter became the default: no
    reply_filter in its request (sealed again with its checksum, as it was written)."""
    doc = json.loads(path.read_text())
    del doc["request"]["reply_filter"]
    write_checkpoint(path, doc)


def _games(doc, kind: str) -> int:
    tallies = [doc["tally"]] if kind == "plays" else doc["rolls"]
    return sum(sum(t["games"]) for t in tallies)


@pytest.mark.parametrize("kind", KINDS)
def test_an_older_checkpoint_resumes_with_the_exact_search_it_played(kind, exact, tmp_path):
    run, figures, job, chunk = KINDS[kind]
    straight = exact[kind]
    path = tmp_path / "c.json"
    part = run(reply_filter=0, checkpoint=path, progress=_stop_after(chunk))
    assert part.interrupted
    _as_older(path)
    doc = job.read_checkpoint(path)
    assert 0 < _games(doc, kind) < sum(trials for _, _, trials in figures(straight).values())
    assert job.request_from_checkpoint(doc).reply_filter == (0, 0.0)
    for other in (_core.REPLY_FILTER, (2, 0.1)):   # not the exact search: refused
        with pytest.raises(ValueError, match="reply_filter differ from the run's"):
            run(resume=path, reply_filter=other)
    with pytest.raises(ValueError, match="not a checkpoint of this run"):
        run(checkpoint=path)                            # a new run of the default filter
    resumed = run(resume=path)
    assert not resumed.interrupted
    assert figures(resumed) == figures(straight)
    assert any("every reply" in note for note in resumed.notes)


# ------------------------------------------------------------------ the commands


def test_tavli_rollout_dice_takes_the_filter(exact, capsys):
    argv = ["--dice", "43", "--plays", PLAYS, "--player", "neural-1ply", "--trials", "24",
            "--chunk-size", "12", "--seed", "3", "-j", "1", "--no-vr", "--no-stop",
            "--no-progress", "--json"]
    assert rollout_main([*argv, "--reply-filter", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {p["play"]: p["equity"] for p in doc["plays"]} == {
        p.play: p.equity for p in exact["plays"].plays}
    assert any("every reply" in note for note in doc["notes"])


def test_tavli_openings_takes_the_filter(exact, capsys):
    argv = ["--rolls", ROLL, "--player", "neural-1ply", "--trials", "12", "--chunk-size", "6",
            "--seed", "3", "-j", "1", "--no-vr", "--no-screen", "--no-progress", "--json"]
    assert openings_main([*argv, "--reply-filter", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {p["play"]: p["equity"] for p in doc["rolls"][0]["plays"]} == {
        p.play: p.equity for p in exact["openings"].rolls[0].plays}


@pytest.mark.parametrize("main, argv", [
    (rollout_main, ["--dice", "43", "--player", "neural-1ply", "--trials", "36"]),
    (openings_main, ["--rolls", ROLL, "--player", "neural-1ply", "--trials", "36"]),
])
@pytest.mark.parametrize("bad, message", [("-1", "reply filter"), ("x", "--reply-filter")])
def test_a_bad_filter_is_one_line_and_status_2(main, argv, bad, message, capsys):
    try:
        status = main([*argv, "-j", "1", "--no-progress", "--reply-filter", bad])
    except SystemExit as e:  # argparse's own check of a whole number
        status = e.code
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert message in err and len(err.splitlines()) == 1


def test_tavli_openings_resume_takes_the_filter_from_the_checkpoint(tmp_path, capsys):
    path = tmp_path / "c.json"
    assert openings_main(["--resume", str(path), "--reply-filter", "0", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--reply-filter" in err and len(err.splitlines()) == 1
