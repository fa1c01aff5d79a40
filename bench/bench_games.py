"""Whole games per second in one process: random, pubeval and greedy self-play.

Run with ``python -m pytest bench --benchmark-only`` from the repository root.

``tavli_fast.simulate`` plays the games in the compiled core from the starting position
(opening roll R5: no doubles), the same seed every round, so every round plays exactly
the same games.  For context, a baseline plays uniformly random games in Python over
GNU Backgammon's move generator (``gnubg_nn.moves``, test-only dependency, imported
only here): the same definition of "random" (uniform over the distinct resulting
positions), but with a Python loop around the C generator, so it is a lower bound for
what a C loop over GNU Backgammon's generator does.

Each benchmark first asserts its workload (all games finished, outcomes add up, the
same seed gives the same games), then times it.
"""

from __future__ import annotations

import random

import pytest

from tavli_fast import simulate

SEED = 20240602
# Games per round: enough for a round of about 0.1-0.3 s.
GAMES = {"random": 2_000, "pubeval": 1_000, "greedy": 1_000}
GNUBG_GAMES = 100
# Fewest plies in a game: the winner needs at least 8 turns (167 pips, at most 24 a
# turn) and the loser has a turn between any two of them.
MIN_PLIES = 15


def play(kind: str, games: int, seed: int = SEED):
    """`games` games of `kind` against itself from the starting position."""
    return simulate("start", games=games, players=(kind, kind), seed=seed)


def check_games(result, games: int) -> None:
    outcomes = (
        result.win_single + result.win_gammon + result.win_backgammon
        + result.lose_single + result.lose_gammon + result.lose_backgammon
    )
    assert result.games == games
    assert outcomes == games
    assert result.plies_mean >= MIN_PLIES


def same_games(a, b) -> bool:
    da, db = a.to_dict(), b.to_dict()
    da.pop("elapsed_s")
    db.pop("elapsed_s")
    return da == db


def gnubg_random_games(games: int, seed: int = SEED) -> int:
    """Uniformly random self-play over gnubg_nn.moves in Python; returns the plies played.

    From the starting position, first roll not a double (R5, as ``simulate``); a roll
    with no legal play is a ply that changes nothing.
    """
    import gnubg_nn

    moves, boardfromkey = gnubg_nn.moves, gnubg_nn.boardfromkey
    start = gnubg_nn.board_from_position_id("4HPwATDgc/ABMA")
    rng = random.Random(seed)
    randint, choice = rng.randint, rng.choice
    plies = 0
    for _ in range(games):
        board = start
        d1 = d2 = 0
        while d1 == d2:
            d1, d2 = randint(1, 6), randint(1, 6)
        while True:
            keys = moves(board, d1, d2)
            after = boardfromkey(choice(keys)) if keys else board
            plies += 1
            if sum(after[1]) == 0:  # the mover bore off its last checker
                break
            board = (after[1], after[0])  # the opponent is on roll next
            d1, d2 = randint(1, 6), randint(1, 6)
    return plies


@pytest.mark.parametrize("kind", list(GAMES))
def test_games(benchmark, report_rate, kind):
    games = GAMES[kind]
    first = play(kind, games)
    check_games(first, games)
    benchmark.group = "games in one process (simulate, from the start)"
    benchmark.extra_info["games"] = games
    benchmark.extra_info["plies_mean"] = first.plies_mean
    result = benchmark(play, kind, games)
    check_games(result, games)
    assert same_games(result, first)
    report_rate(games, "games")
    report_rate(round(games * first.plies_mean), "plies")


def test_gnubg_random_games_in_python(benchmark, report_rate):
    pytest.importorskip("gnubg_nn")
    plies = gnubg_random_games(GNUBG_GAMES)
    assert plies >= GNUBG_GAMES * MIN_PLIES
    benchmark.group = "games in one process (simulate, from the start)"
    benchmark.extra_info["games"] = GNUBG_GAMES
    assert benchmark(gnubg_random_games, GNUBG_GAMES) == plies
    report_rate(GNUBG_GAMES, "games")
    report_rate(plies, "plies")
