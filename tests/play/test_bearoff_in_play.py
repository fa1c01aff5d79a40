"""The bear-off databases in play (issue 4): the bearoff player, heuristic players in
bear-offs, and rollouts truncated at the two-sided database."""

import math
import random

import numpy as np
import pytest

from helpers import pos
from tavli_fast import _core
from tavli_fast.play.bearoff import default_database
from tavli_fast.game.movegen import ALL_ROLLS
from tavli_fast.api import rollout
from tavli_fast.play.players import PLAYERS


@pytest.fixture(scope="module")
def db():
    # The session's cache directory (tests/conftest.py): built once per session.
    return default_database()


def random_bearoff(rng: random.Random, mine: int, theirs: int):
    """A pure bear-off: `mine` and `theirs` checkers spread over each side's home board."""
    def home(n):
        counts = {}
        for _ in range(n):
            p = rng.randint(1, 6)
            counts[p] = counts.get(p, 0) + 1
        return " ".join(f"{p}:{c}" for p, c in sorted(counts.items()))
    return pos(f"x {home(mine)}; o {home(theirs)}")


def test_bearoff_player_plays_the_databases_best_play(db):
    rng = random.Random(4)
    for _ in range(150):
        p = random_bearoff(rng, rng.randint(1, 15), rng.randint(1, 15))
        for d1, d2 in ALL_ROLLS:
            best = db.best_play(p, d1, d2)
            for name in ("bearoff", "pubeval", "greedy"):
                chosen = _core.choose(p.board, d1, d2, PLAYERS[name], 1, db.tables, True)
                assert np.array_equal(chosen, best.board), (p.position_id(), d1, d2, name)


def test_heuristic_players_can_be_told_not_to_use_the_databases(db):
    # Somewhere pubeval's own bear-off play differs from the databases' best play.
    rng = random.Random(5)
    differs = 0
    for _ in range(100):
        p = random_bearoff(rng, rng.randint(5, 15), rng.randint(5, 15))
        for d1, d2 in ALL_ROLLS:
            own = _core.choose(p.board, d1, d2, PLAYERS["pubeval"], 1, db.tables, False)
            differs += not np.array_equal(own, db.best_play(p, d1, d2).board)
    assert differs > 0


def test_bearoff_player_needs_the_databases():
    with pytest.raises(ValueError, match="bear-off databases"):
        _core.choose(pos("x 6:2; o 6:2").board, 3, 1, PLAYERS["bearoff"], 1)


def test_race_estimate_equals_the_textbook_formula(db):
    # P(win) = sum_k P(I need k rolls) * P(they need >= k rolls), me on roll; my gammon
    # losses from my first-checker-off distribution; written here with plain loops, O(k^2).
    # The opponent has 10 to 14 checkers: outside the two-sided database, and no gammon
    # for me to win (it has borne off some).
    rng = random.Random(6)
    for _ in range(40):
        mine = [0] * 6
        for _ in range(15):
            mine[rng.randrange(6)] += 1
        theirs = [0] * 6
        for _ in range(rng.randint(10, 14)):
            theirs[rng.randrange(6)] += 1
        text = lambda side: " ".join(f"{q + 1}:{c}" for q, c in enumerate(side) if c)
        p = pos(f"x {text(mine)}; o {text(theirs)}")
        a, b, fa = db.rolls(mine), db.rolls(theirs), db.first_off(mine)
        win = sum(a[k] * b[k:].sum() for k in range(1, len(a)))
        lose_gammon = sum(b[k] * fa[k + 1:].sum() for k in range(1, len(b)))
        race = db.race(p)
        assert not race.exact
        assert race.win == pytest.approx(win, abs=1e-12)
        assert race.lose_gammon == pytest.approx(lose_gammon, abs=1e-12)
        assert race.win_gammon == 0.0


def test_truncation_counts_the_exact_answer_inside_the_database(db):
    p = pos("x 6:2 3:1; o 5:2 1:1")
    exact = db.win_probability(p)
    r = rollout(p, 500, players="random", seed=1, jobs=1)
    assert r.truncated == 500
    assert r.win == pytest.approx(exact, abs=1e-6)
    assert r.se["win"] == pytest.approx(0.0, abs=1e-9)
    assert r.equity == pytest.approx(2 * exact - 1, abs=1e-6)


def test_truncation_agrees_with_full_play_and_shrinks_the_error():
    # 12 checkers a side: outside the two-sided database at first, inside after a few rolls.
    p = pos("x 6:3 5:3 4:2 3:2 2:1 1:1; o 6:2 5:3 4:3 3:2 2:1 1:1")
    full = rollout(p, 30_000, players="pubeval", seed=3, jobs=1, truncate=False)
    cut = rollout(p, 30_000, players="pubeval", seed=3, jobs=1, truncate=True)
    assert full.truncated == 0 and cut.truncated > 0.9 * cut.games
    combined = math.hypot(full.se["win"], cut.se["win"])
    assert abs(full.win - cut.win) < 4 * combined
    assert cut.se["win"] < 0.8 * full.se["win"]
    assert cut.to_dict()["truncate"] is True and "Truncated at the bear-off database" in str(cut)


def test_dice_given_with_the_position_are_played_before_truncating():
    # Inside the database, but 2-1 cannot bear the 6-point checker off: x loses for sure.
    race = pos("x 6:1; o 1:1")
    r = rollout(race.with_context(race.context.__class__(dice=(2, 1))), 100,
                players="random", seed=1, jobs=1)
    assert r.win == 0.0
