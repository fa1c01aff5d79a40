"""The 1-ply look-ahead's pre-filter of replies in whole matches (issue 54):
``play_matches(..., reply_filter=)`` and ``tavli-match --reply-filter KEEP``.

The match's neural-1ply players play with the filter asked for: with keep 0 every play of a
recorded match is the one the exact 1-ply search (``_core.choose``, outside the match loop)
makes from the replayed position, and the default plays otherwise; the checkpoints keep it
whenever a player looks ahead, and one written before the pre-filter became the default
resumes with the exact search it played.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.api import play_match_record
from tavli_fast.cli.match import main as match_main
from tavli_fast.game.position import Position
from tavli_fast.jobs.match import make_match_request, read_match_checkpoint
from tavli_fast.matchfile.replay import replay_match
from tavli_fast.play.cube import default_match_table
from tavli_fast.play.neural import default_net
from tavli_fast.play.players import player_id
from tavli_fast.run.checkpoint import write_checkpoint

# Short cubeless matches between 1-ply players: about 3.5 games a match, 20 ms a game.
# (Seed 2: the two filters' tallies differ in the first chunk and in the later ones. The
# seeds here were chosen with the float32 evaluator, which these matches name.)
FAST = dict(length=3, players="neural-1ply", seed=2, jobs=1, cube=False, chunk_size=2,
            evaluator="float32")
EXACT = [0, 0.0]


def matches(n: int = 8, **kw):
    return tf.play_matches(matches=n, **{**FAST, **kw})


def numbers(result) -> tuple:
    return result.matches, result.tallies


@pytest.fixture(scope="module")
def exact():
    """Eight matches of the exact search (keep 0), played once."""
    return matches(reply_filter=0)


@pytest.fixture(scope="module")
def default():
    return matches()


# ------------------------------------------------------------------ the filter is played


def test_the_filter_asked_for_is_played_and_noted(exact, default):
    assert numbers(exact) != numbers(default)
    records = [matches(2, record=True, reply_filter=f).saved for f in (0, None, 8)]
    assert records[0] != records[1] == records[2]           # every play of the matches
    assert numbers(matches(reply_filter=_core.REPLY_FILTER)) == numbers(default)
    assert numbers(matches(reply_filter=(16, 100.0))) == numbers(exact)  # every reply kept
    assert any("every reply" in note for note in exact.notes)
    assert any("every reply" in note for note in exact.to_dict()["notes"])
    assert "Note: the 1-ply players value every reply" in str(exact)
    assert not default.notes and default.to_dict()["notes"] == []
    assert any("pre-filtered" in note for note in matches(2, reply_filter=2).notes)


def test_play_match_record_passes_it_on():
    # One match as play_matches plays it, with its options: the filter among them.
    # (Seed 4: a match whose plays the two filters make differently.)
    one = play_match_record(3, seed=4, players="neural-1ply", cube=False, reply_filter=0,
                            evaluator="float32")
    assert one.games == matches(1, seed=4, record=True, reply_filter=0).records()[0].games
    assert one.games != matches(1, seed=4, record=True).records()[0].games


def _played(record):
    """(board before, dice, board after) of every play of a recorded match."""
    for game in replay_match(record):
        for step in game.actions:
            if step.action.kind == "roll":
                before = np.ascontiguousarray(step.before.board, dtype=np.int8)
                yield before, step.action.dice, step.after.board


def test_keep_0_plays_what_the_exact_search_chooses_outside_the_match():
    # Without the cube a match's players play for money (no gammon prices) and, without the
    # bear-off databases, by the net alone: each play is _core.choose's from its position,
    # or one of the same exact 1-ply equity (a game the opponent wins next roll whatever the
    # play: every play ties, and which is taken is an accident of rounding).
    result = tf.play_matches(3, 4, "neural-1ply", seed=2, jobs=1, cube=False, bearoff=False,
                             record=True, reply_filter=0, evaluator="float32")
    net, one_ply = default_net(bearoff=False), player_id("neural-1ply")

    def exact_equity(after) -> float:  # every reply valued (no pre-filter)
        return net.move_equity(np.ascontiguousarray(after, dtype=np.int8), ply=1)

    plays = differ = 0
    for record in result.records():
        for before, (d1, d2), after in _played(record):
            exact = _core.choose(before, d1, d2, one_ply, 0, bearoff_play=False, net=net,
                                 reply_filter=(0, 0.0))
            best = exact_equity(exact)
            assert (np.array_equal(exact, after)
                    or exact_equity(after) == pytest.approx(best, abs=1e-12))
            filtered = _core.choose(before, d1, d2, one_ply, 0, bearoff_play=False, net=net)
            differ += exact_equity(filtered) < best - 1e-9
            plays += 1
    assert plays > 400
    assert differ > 0         # the default filter would have played worse somewhere


def test_the_core_default_is_the_filter_of_old():
    # run_matches without a reply_filter plays as before it took one: the default filter.
    # The records compare every play and cube action of the matches, not only their tallies.
    def run(**kw):
        tallies, entries = _core.run_matches(
            Position.initial().board, 2, 3, 0, 0, False, player_id("neural-1ply"),
            player_id("pubeval"), 5, True, True, 1, False, default_match_table(),
            net=default_net(bearoff=False), record=True, **kw)
        return tallies.tobytes() + entries.tobytes()

    plain = run()
    assert run(reply_filter=_core.REPLY_FILTER) == plain
    assert run(reply_filter=(0, 0.0)) != plain
    with pytest.raises(ValueError, match="reply_filter keeps"):
        run(reply_filter=(17, 0.0))


# ------------------------------------------------------------------ requests and identities


def test_the_identity_carries_the_filter_wherever_a_player_looks_ahead():
    def identity(players, **kw):
        return make_match_request(3, 10, players, **kw).identity()

    assert identity("neural-1ply")["reply_filter"] == list(_core.REPLY_FILTER)
    assert identity(("pubeval", "neural-1ply"), reply_filter=0)["reply_filter"] == EXACT
    assert identity("neural-1ply", reply_filter=(4, 0.02))["reply_filter"] == [4, 0.02]
    assert "reply_filter" not in identity("pubeval")
    assert "reply_filter" not in identity("neural")
    assert "reply_filter" not in identity("neural-2ply")
    assert identity("pubeval", reply_filter=3)["reply_filter"] == [3, 0.0]   # not the default


def test_a_tavli_match_takes_it_for_its_portes_games():
    # The Portes games of a tavli match are played by the Portes players, look-ahead and all;
    # the Plakoto and Fevga players have none, and the note says so.
    request = make_match_request(3, 10, "neural-1ply", tavli=True, reply_filter=0)
    assert request.identity()["reply_filter"] == EXACT
    assert request.reply_filter == (0, 0.0)
    assert any("Portes games only" in note for note in request.notes)
    default = make_match_request(3, 10, "neural-1ply", tavli=True, evaluator="float32")
    assert default.identity()["reply_filter"] == [8, 0.0] and not default.notes


@pytest.mark.parametrize("bad", [-1, 17, 2.5, True, "x", (4, -0.1), (4, float("inf")), (1, 2, 3)])
def test_bad_filters_are_refused_precisely(bad):
    with pytest.raises(ValueError, match="reply filter|reply_filter"):
        make_match_request(3, 10, "neural-1ply", reply_filter=bad)
    with pytest.raises(ValueError, match="reply filter|reply_filter"):
        tf.play_matches(3, 10, "neural-1ply", jobs=1, reply_filter=bad)


# ------------------------------------------------------------------ checkpoints


def _as_older(path) -> None:
    """Make the checkpoint one written before the pre-filter became the default: no
    reply_filter in its request (sealed again with its checksum, as it was written)."""
    doc = json.loads(path.read_text())
    del doc["request"]["reply_filter"]
    write_checkpoint(path, doc)


def test_a_checkpoint_keeps_the_filter_and_refuses_another(tmp_path):
    path = tmp_path / "m.json"
    part = matches(4, reply_filter=3, checkpoint=path)
    assert read_match_checkpoint(path)["request"]["reply_filter"] == [3, 0.0]
    for other in (0, 8, (3, 0.5)):
        with pytest.raises(ValueError, match="reply_filter"):
            matches(resume=path, reply_filter=other)
    resumed = matches(resume=path)                      # not given: the checkpoint's
    assert resumed.resumed_matches == part.matches == 4
    assert numbers(resumed) == numbers(matches(reply_filter=3))
    assert any("pre-filtered" in note for note in resumed.notes)


def test_an_older_checkpoint_resumes_with_the_exact_search_it_played(exact, default, tmp_path):
    path = tmp_path / "m.json"
    first = matches(2, reply_filter=0, checkpoint=path)      # chunk 0 of the eight
    _as_older(path)
    assert "reply_filter" not in read_match_checkpoint(path)["request"]
    for other in (_core.REPLY_FILTER, 8, 2):                  # not the exact search: refused
        with pytest.raises(ValueError, match="reply_filter"):
            matches(resume=path, reply_filter=other)
    with pytest.raises(ValueError, match="not a checkpoint of this run"):
        matches(checkpoint=path)                                # a new run of the default filter
    resumed = matches(resume=path)
    assert resumed.resumed_matches == 2
    assert numbers(resumed) == numbers(exact)
    assert any("every reply" in note for note in resumed.notes)
    # The chunks played on resume are ones the default filter plays otherwise.
    later = np.subtract(exact.tallies, first.tallies)
    assert not np.array_equal(np.subtract(default.tallies, matches(2).tallies), later)
    # Asked for explicitly, the exact search resumes it too; the rewritten checkpoint says so.
    again = matches(resume=path, reply_filter=0)
    assert numbers(again) == numbers(exact)
    assert read_match_checkpoint(path)["request"]["reply_filter"] == EXACT


# ------------------------------------------------------------------ the command


ARGV = ["--length", "3", "--player", "neural-1ply", "--seed", "2", "-j", "1", "--no-cube",
        "--chunk-size", "2", "--no-progress", "--json", "--evaluator", "float32"]


def test_tavli_match_takes_the_filter(exact, capsys):
    assert match_main([*ARGV, "--matches", "8", "--reply-filter", "0"]) == 0
    doc = json.loads(capsys.readouterr().out)
    mine = exact.to_dict()
    assert {k: doc[k] for k in ("win", "points", "games", "per_game")} == {
        k: mine[k] for k in ("win", "points", "games", "per_game")}
    assert any("every reply" in note for note in doc["notes"])


@pytest.mark.parametrize("bad, message", [("-1", "reply filter"), ("17", "reply filter"),
                                          ("x", "--reply-filter")])
def test_a_bad_filter_is_one_line_and_status_2(bad, message, capsys):
    try:
        status = match_main([*ARGV, "--matches", "2", "--reply-filter", bad])
    except SystemExit as e:  # argparse's own check of a whole number
        status = e.code
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert message in err and len(err.splitlines()) == 1


def test_tavli_match_resumes_an_older_checkpoint_with_the_exact_search(exact, tmp_path, capsys):
    path = tmp_path / "m.json"
    assert match_main([*ARGV, "--matches", "2", "--reply-filter", "0",
                       "--checkpoint", str(path)]) == 0
    capsys.readouterr()
    _as_older(path)
    resume = ["--resume", str(path), "--matches", "8", "-j", "1", "--no-progress", "--json"]
    assert match_main([*resume, "--reply-filter", "8"]) == 2       # another filter: refused
    err = capsys.readouterr().err.strip()
    assert "reply_filter" in err and len(err.splitlines()) == 1
    assert match_main(resume) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["resumed_matches"] == 2
    assert (doc["win"], doc["points"], doc["games"]) == (
        list(exact.win), list(exact.to_dict()["points"]), exact.games)
    assert any("every reply" in note for note in doc["notes"])
