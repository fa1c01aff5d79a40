"""Cubeful match rollouts that stop in the bear-off region solved at their score.

From a position inside the region every game stops at once and counts the exact solve;
from outside it, games stop on the way, and the result agrees with games played to the
end (--no-truncate) within their standard errors.
"""

from __future__ import annotations

import pytest

from tavli_fast import rollout
from tavli_fast.game.position import GameContext
from tavli_fast.play.cube import cube_decision

from helpers import pos


def _at(text: str, length: int, score: tuple[int, int]):
    return pos(text).with_context(GameContext(match_length=length, score=score, max_cube=64))


def test_rollout_inside_the_region_counts_the_exact_solve():
    # R22-R25: 7-point match, 0-0, the example of issue 51 (4 checkers a side).
    p = _at("x 6:1 3:1 2:1 1:1; o 4:2 3:1 2:1", 7, (0, 0))
    exact = cube_decision(p, exact=True)
    r = rollout(p, trials=72, players="neural", seed=4, jobs=1, cubeful=True)
    assert r.truncated == 72
    assert r.cubeful.mwc["no_double"] == pytest.approx(exact.mwc["no_double"], abs=1e-6)
    assert r.cubeful.mwc["double_take"] == pytest.approx(exact.mwc["double_take"], abs=1e-6)
    assert r.cubeful.action == exact.action == "Double, take"
    # The cubeless figures stay possible: no gammon in a bear-off of 4 checkers.
    assert r.win == pytest.approx(exact.probabilities[0], abs=1e-6)


def test_truncated_match_rollout_agrees_with_games_played_to_the_end():
    p = _at("x 6:2 5:2 4:1 3:1 2:1; o 6:2 5:1 4:2 3:1 1:1", 7, (3, 2))
    cut = rollout(p, trials=1296, players="neural", seed=2, jobs=1, cubeful=True)
    full = rollout(p, trials=1296, players="neural", seed=2, jobs=1, cubeful=True,
                   truncate=False)
    assert cut.truncated > 1000 and full.truncated == 0
    for key in ("no_double", "double_take"):
        se = (cut.cubeful.mwc["se"][key] ** 2 + full.cubeful.mwc["se"][key] ** 2) ** 0.5
        assert abs(cut.cubeful.mwc[key] - full.cubeful.mwc[key]) < 3 * se
    for r in (cut, full):
        assert r.win >= r.win_gammon >= r.win_backgammon


def test_cubeful_candidate_plays_in_a_match_bear_off_count_the_exact_solve():
    # Each play of 31 leaves both sides inside the region: every game stops before the
    # opponent's cube action (R22) and counts 1 - his exact MWC after his proper action.
    from tavli_fast import rollout_plays
    from tavli_fast.game.position import Position

    r = rollout_plays("XGID=-AAA--A--------------baa--:0:0:1:31:0:0:0:7:10", trials=36,
                      players="neural", seed=1, jobs=1, cubeful=True).to_dict()
    assert len(r["plays"]) >= 2
    for play in r["plays"]:
        after = Position.from_id(play["position_id"]).with_context(
            GameContext(match_length=7, score=(0, 0), max_cube=1024))
        assert play["mwc"] == pytest.approx(1.0 - cube_decision(after, exact=True).cubeful_mwc,
                                            abs=1e-6)


def test_whole_matches_solve_each_score_once_and_keep_their_numbers():
    # R24-R25: the neural players' cube in short bear-offs comes from the game solved at
    # each score; a second run reuses the solved scores and plays the same matches.
    from tavli_fast import _core, play_matches
    from tavli_fast.play import match_bearoff
    from tavli_fast.play.met import load_met

    from tavli_fast.jobs.match import make_match_chunk, make_match_request, run_match_chunk

    first = play_matches(3, 60, "neural", seed=7, jobs=1)
    # The regions are kept per thread (the C loop fills them without the GIL); a run's units
    # play on a thread of their own, so the chunk is played here to look at this thread's set.
    chunk = make_match_chunk(make_match_request(3, 60, ("neural", "neural"), seed=7), 0)
    played = run_match_chunk(chunk)
    regions = match_bearoff.match_regions(3, 64)
    solved = regions.solved
    assert solved > 0
    assert run_match_chunk(chunk) == played     # the solved scores reused: the same matches
    assert regions.solved == solved
    again = play_matches(3, 60, "neural", seed=7, jobs=1)
    assert again.tallies == first.tallies
    with pytest.raises(ValueError, match="regions must be of this match"):
        _core.run_matches(pos("x 6:1; o 1:1").board, 1, 5, 0, 0, False, 0, 0, 1, True, True,
                          64, False, load_met().kernel, regions=regions)


def test_games_played_out_inside_the_region_agree_with_the_solve():
    # --no-truncate: the neural players play checkers and cube by the solve inside the
    # region, so the games played to the end estimate the exact figures.
    p = _at("x 6:1 5:1 3:1 2:1; o 6:1 4:2 1:1", 5, (1, 2))
    exact = cube_decision(p, exact=True)
    r = rollout(p, trials=3000, players="neural", seed=6, jobs=1, cubeful=True, truncate=False)
    assert r.truncated == 0
    for key in ("no_double", "double_take"):
        assert abs(r.cubeful.mwc[key] - exact.mwc[key]) < 3 * r.cubeful.mwc["se"][key]
