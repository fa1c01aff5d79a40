"""Match runs from a score (R25): the Crawford rule at the score given, and a report that says
whose score is whose (issue 41)."""

from __future__ import annotations

import re

import pytest

from tavli_fast.jobs.match import make_match_request
from tavli_fast.api import play_matches


@pytest.mark.parametrize("length", [3, 5, 7])
def test_r25_when_both_are_1_away_the_crawford_game_has_been_played(length):
    # The first to reach match point had the Crawford game next; the other won a game since.
    assert make_match_request(length, 10, "pubeval", score=(length - 1, length - 1), seed=1).post_crawford


@pytest.mark.parametrize("length,score", [(5, (4, 3)), (5, (2, 4)), (1, (0, 0))])
def test_r25_one_player_1_away_starts_with_the_crawford_game(length, score):
    assert not make_match_request(length, 10, "pubeval", score=score, seed=1).post_crawford


def test_a_run_at_double_match_point_is_reported_post_crawford_with_the_same_numbers():
    asked = play_matches(5, 40, "pubeval", score=(4, 4), seed=2, jobs=1)
    post = play_matches(5, 40, "pubeval", score=(4, 4), post_crawford=True, seed=2, jobs=1)
    assert asked.tallies == post.tallies  # (the cube is dead there either way)
    header = str(asked).splitlines()[0]
    assert "Crawford game" not in header and "post-Crawford" in header


def test_the_report_says_which_score_is_whose():
    result = play_matches(5, 10, ("pubeval", "random"), score=(3, 4), seed=3, jobs=1)
    header = str(result).splitlines()[0]
    assert re.search(r"\bA 3\b", header) and re.search(r"\bB 4\b", header), header
    assert "3-4" not in header  # a bare score, with no word of whose it is
    assert "pubeval (A)" in str(result) and "random (B)" in str(result)
