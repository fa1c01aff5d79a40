"""Rollouts without processes (jobs=1 / run_chunk): figures, standard errors, stratification.

Expected values are computed here by hand (dice arithmetic), never copied from the code's output.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from fractions import Fraction
from functools import lru_cache

import numpy as np
import pytest

from helpers import pos
from tavli_fast.errors import InvalidPositionError
from tavli_fast.api import rollout
from tavli_fast.game.position import GameContext, Position
from tavli_fast.jobs.rollout import (
    ChunkResult,
    Tally,
    chunk_seed,
    make_request,
    plan_chunks,
    run_chunk,
)
from tavli_fast.jobs.stratify import OPENING_ROLLS, ORDERED_ROLLS as ALL_ROLLS, stratified_dice

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]


@lru_cache(maxsize=None)
def one_checker_race(me: int, them: int) -> Fraction:
    """P(the side on roll wins) when each side has one checker left, ``me``/``them`` pips away.

    No contact, so a roll moves the checker d1+d2 pips (4 x d for doubles) or bears it off.
    """
    total = Fraction(0)
    for a, b in ROLLS:
        moved = 4 * a if a == b else a + b
        if moved >= me:
            total += Fraction(1, 36)
        else:
            total += Fraction(1, 36) * (1 - one_checker_race(them, me - moved))
    return total


# A race: my last checker on my 6-point, the opponent's last on its 8-point.
RACE_6_8 = "x 6:1; o 8:1"


def test_one_checker_race_by_hand():
    # On roll from 6 with the opponent certain to finish: 27 of 36 rolls bear off
    # (every double but 1-1, and the 22 non-doubles with a sum >= 6).
    assert one_checker_race(6, 1) == Fraction(27, 36)
    assert one_checker_race(1, 24) == 1


# ------------------------------------------------------------------ known answers


def test_certain_win_has_zero_standard_error():
    # My last checker is on my 1-point: any roll bears it off; the opponent has one off.
    r = rollout(pos("x 1:1; o 6:14"), 200, players=("random", "random"), seed=3, jobs=1)
    assert r.games == 200
    assert r.win == 1.0 and r.win_gammon == 0.0 and r.lose_gammon == 0.0
    assert r.equity == 1.0
    assert all(v == 0.0 for v in r.se.values())
    assert r.mean_plies == 1.0 and r.std_plies == 0.0


def test_r20_certain_backgammon_counts_three_unless_rules_say_portes():
    # The opponent has none off and a checker on the bar: a backgammon (R20).
    bg = rollout(pos("x 1:1; o bar:1 6:14"), 100, players="random", seed=5, jobs=1)
    assert (bg.win, bg.win_gammon, bg.win_backgammon, bg.equity) == (1.0, 1.0, 1.0, 3.0)
    portes = rollout(pos("x 1:1; o bar:1 6:14"), 100, players="random", seed=5, jobs=1, rules="portes")
    assert (portes.win, portes.win_gammon, portes.win_backgammon, portes.equity) == (1.0, 1.0, 0.0, 2.0)


@pytest.mark.parametrize("stratify", [False, True])
def test_one_checker_race_matches_exact_probability(stratify):
    exact = float(one_checker_race(6, 8))
    r = rollout(pos(RACE_6_8), 20_000, players=("random", "random"), seed=11, jobs=1, stratify=stratify)
    assert r.games == 20_000
    assert r.win_gammon == 0.0 and r.lose_gammon == 0.0
    assert r.equity == pytest.approx(2 * r.win - 1)
    # The reported SE is the binomial one for the true p (within sampling noise of p itself).
    assert r.se["win"] == pytest.approx(math.sqrt(exact * (1 - exact) / 20_000), rel=0.02)
    assert abs(r.win - exact) < 4 * r.se["win"]


def test_stratified_first_roll_removes_its_variance():
    # Opponent certain to finish next turn, so I win iff my first roll bears off from 6:
    # exactly 27 of every 36 ordered rolls. With stratified dice every block of 36 trials plays
    # each roll once, so 36 x 20 trials win exactly 27 x 20 times.
    # (No truncation: it would count the exact 27/36 for every trial.)
    r = rollout(pos("x 6:1; o 1:1"), 36 * 20, players="random", seed=2, jobs=1, chunk_size=100,
                truncate=False)
    assert r.stratified and r.strata == (36, 36)
    assert round(r.win * r.games) == 27 * 20
    plain = [
        round(rollout(pos("x 6:1; o 1:1"), 720, players="random", seed=s, jobs=1, stratify=False,
                      truncate=False).win * 720)
        for s in range(5)
    ]
    assert any(w != 27 * 20 for w in plain)  # random dice do scatter


def test_xgid_dice_are_every_trials_first_roll():
    race = pos("x 6:1; o 1:1")
    miss = race.with_context(GameContext(dice=(2, 1)))  # 3 pips: cannot bear off from 6
    hit = race.with_context(GameContext(dice=(6, 5)))
    r_miss = rollout(miss.xgid(), 300, players="random", seed=1, jobs=1)
    r_hit = rollout(hit, 300, players="random", seed=1, jobs=1)
    assert r_miss.win == 0.0 and r_hit.win == 1.0
    assert r_miss.first_roll == (2, 1) and r_hit.first_roll == (6, 5)
    assert any("2-1" in note for note in r_miss.notes)
    assert "2-1" in str(r_miss)
    assert r_miss.to_dict()["first_roll"] == [2, 1]


# ------------------------------------------------------------------ standard errors


def test_standard_errors_match_the_scatter_of_independent_rollouts():
    """40 small rollouts with different seeds: sum of z^2 against the exact answer ~ chi2(40)."""
    exact = float(one_checker_race(6, 8))
    z2 = []
    for seed in range(40):
        r = rollout(pos(RACE_6_8), 400, players="random", seed=seed, jobs=1, stratify=False)
        z2.append(((r.win - exact) / r.se["win"]) ** 2)
    # chi2(40): P(< 17.9) ~ P(> 73.4) ~ 0.0005. A SE off by a factor 1.5 either way fails.
    assert 17.9 < sum(z2) < 73.4


def test_equity_standard_error_matches_the_scatter_with_gammons():
    """Random play from the start (many gammons and backgammons): the variance of 40 equity
    estimates agrees with the mean reported SE^2 (ratio ~ chi2(39)/39)."""
    estimates, se2 = [], []
    for seed in range(40):
        r = rollout("start", 250, players="random", seed=1000 + seed, jobs=1, stratify=False)
        estimates.append(r.equity)
        se2.append(r.se["equity"] ** 2)
        assert r.lose_backgammon > 0 or r.win_backgammon > 0 or seed > 0
    ratio = np.var(estimates, ddof=1) / np.mean(se2)
    # chi2(39)/39 lies in [0.46, 1.75] with probability ~0.999.
    assert 0.46 < ratio < 1.75


def test_figures_from_counts_by_hand():
    req = make_request(pos(RACE_6_8), 10, players="random", seed=1)
    from tavli_fast.jobs.rollout_result import build_result

    # 10 games: 3 single wins, 2 gammons, 1 backgammon won; 2 single, 1 gammon, 1 bg lost.
    results = [ChunkResult(0, 10, (3, 2, 1, 2, 1, 1), 500, 26_000)]
    r = build_result(req, results, jobs=1, elapsed_s=1.0)
    assert r.win == 0.6 and r.win_gammon == 0.3 and r.win_backgammon == 0.1
    assert r.lose_gammon == 0.2 and r.lose_backgammon == 0.1
    values = [1] * 3 + [2] * 2 + [3] + [-1] * 2 + [-2] + [-3]
    assert r.equity == pytest.approx(np.mean(values))
    assert r.equity == pytest.approx(0.6 - 0.4 + 0.3 - 0.2 + 0.1 - 0.1)
    assert r.se["equity"] == pytest.approx(np.std(values) / math.sqrt(10))
    assert r.se["win"] == pytest.approx(math.sqrt(0.6 * 0.4 / 10))
    assert r.mean_plies == 50 and r.std_plies == pytest.approx(math.sqrt(2600 - 2500))
    assert r.games_per_second == 10.0


# ------------------------------------------------------------------ stratification


@pytest.mark.parametrize("opening", [True, False])
def test_stratified_dice_play_each_first_roll_equally_often(opening):
    rolls = OPENING_ROLLS if opening else ALL_ROLLS
    s1 = len(rolls)
    assert s1 == (15 if opening else 36)
    block = s1 * 36
    dice = stratified_dice(123, 0, 2 * block, opening=opening)
    assert dice.shape == (2 * block, 4) and dice.dtype == np.int8
    firsts = [tuple(int(v) for v in row[:2]) for row in dice]
    pairs = [tuple(int(v) for v in row) for row in dice]
    for start in range(0, 2 * block, s1):  # every aligned block of S1 trials: each roll once
        assert sorted(firsts[start:start + s1]) == sorted(rolls)
    for start in (0, block):  # every aligned block of S1 x 36: each (first, second) pair once
        assert len(set(pairs[start:start + block])) == block
        assert Counter(p[2:] for p in pairs[start:start + block]) == {r: s1 for r in ROLLS}
    if opening:
        assert all(a != b for a, b in firsts)  # R5: no opening double


@pytest.mark.parametrize("position", ["start", "4HPwATDgc/ABMA"])
def test_r5_the_start_rolled_out_says_its_first_roll_has_no_double(position):
    # gnubg rolls out the start's Position ID with any first roll; ours plays a game's first
    # roll (R5), and the note says so, whichever way the start is given.
    request = make_request(position, 1296, seed=1)
    assert request.first_roll_no_doubles and request.strata == (15, 36)
    assert any("R5 opening roll" in note for note in request.notes)
    portes = make_request(position, 1296, seed=1, rules="portes")   # T3: both dice again
    assert not portes.first_roll_no_doubles and portes.strata == (36, 36)
    assert not any("R5" in note for note in portes.notes)
    later = make_request("sGfwATDgc/ABMA", 1296, seed=1)            # after 3-1: not a start
    assert not any("R5" in note for note in later.notes)


def test_stratified_dice_depend_only_on_the_global_trial_index():
    whole = stratified_dice(77, 0, 3000)
    pieces = np.concatenate([stratified_dice(77, s, 700 if s + 700 <= 3000 else 3000 - s)
                             for s in range(0, 3000, 700)])
    assert np.array_equal(whole, pieces)
    assert not np.array_equal(whole, stratified_dice(78, 0, 3000))  # permutations follow the seed


def test_stratified_dice_keep_forced_first_roll():
    dice = stratified_dice(5, 0, 72, forced=(4, 2))
    assert dice.shape == (72, 6)
    assert (dice[:, 0] == 4).all() and (dice[:, 1] == 2).all()
    assert sorted(tuple(r) for r in dice[:36, 2:4].tolist()) == sorted(ROLLS)


# ------------------------------------------------------------------ chunks and seeds


def test_chunk_seeds_come_from_the_master_seed_sequence():
    expected = np.random.SeedSequence(2024, spawn_key=(3,)).generate_state(1, np.uint64)[0]
    assert chunk_seed(2024, 3) == int(expected)
    assert len({chunk_seed(2024, c) for c in range(100)}) == 100


def test_plan_covers_every_trial_once():
    req = make_request("start", 25_001, seed=9, chunk_size=10_000)
    chunks = plan_chunks(req)
    assert [c.n_games for c in chunks] == [10_000, 10_000, 5_001]
    assert [c.first_trial for c in chunks] == [0, 10_000, 20_000]
    assert chunks[0].first_roll_no_doubles  # R5 from the starting position (backgammon rules)
    assert not plan_chunks(make_request("start", 10, seed=9, rules="portes"))[0].first_roll_no_doubles
    assert not plan_chunks(make_request(pos(RACE_6_8), 10, seed=9))[0].first_roll_no_doubles


def test_run_chunk_is_a_pure_function_of_the_chunk():
    chunk = plan_chunks(make_request("start", 500, players="pubeval", seed=4))[0]
    a, b = run_chunk(chunk), run_chunk(chunk)
    assert a == b and a.games == 500 and sum(a.counts) + a.truncated == 500


def test_random_seed_is_drawn_and_reported():
    r1 = rollout(pos("x 1:1; o 6:14"), 10, jobs=1)
    r2 = rollout(pos("x 1:1; o 6:14"), 10, jobs=1)
    assert r1.seed != r2.seed and 0 <= r1.seed < 2**63
    assert json.loads(r1.to_json())["seed"] == r1.seed


def _fake(index, games, wins):
    return ChunkResult(index, games, (wins, 0, 0, games - wins, 0, 0), games, games)


def test_target_se_stops_at_the_same_prefix_whatever_the_completion_order():
    results = [_fake(i, 100, 50) for i in range(10)]
    # Equity SE of k chunks of 100 games with p = 1/2: 1/sqrt(100 k). Below 0.05 from k = 5.
    for order in ([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], [9, 4, 2, 0, 7, 1, 3, 6, 5, 8]):
        tally = Tally(10, target_se=0.0499, min_trials=0)
        for i in order:
            tally.add(results[i])
            if tally.done:
                break
        assert tally.stop_at == 5
        assert [r.index for r in tally.final()] == [0, 1, 2, 3, 4]
    tally = Tally(10, target_se=0.0499, min_trials=700)
    for r in results:
        tally.add(r)
    assert tally.stop_at == 7


def test_tally_refuses_a_chunk_counted_twice():
    tally = Tally(3)
    tally.add(_fake(1, 10, 5))
    with pytest.raises(RuntimeError):
        tally.add(_fake(1, 10, 5))


def test_chunk_result_round_trip_and_checks():
    r = ChunkResult(4, 10, (1, 2, 3, 1, 2, 1), 300, 9500)
    assert ChunkResult.from_list(4, r.to_list()) == r
    with pytest.raises(ValueError):
        ChunkResult.from_list(4, [10, 1, 1, 1, 1, 1, 1, 300])  # 8 numbers
    with pytest.raises(ValueError):
        ChunkResult.from_list(4, [11, 1, 2, 3, 1, 2, 1, 300, 9500])  # do not add up


# ------------------------------------------------------------------ output


def test_result_prints_board_and_table_and_serialises():
    r = rollout("start", 300, players="pubeval", seed=8, jobs=1)
    text = str(r)
    assert str(Position.initial()) in text
    for label in ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon", "equity"):
        assert label in text
    assert "95% CI" in text and "seed 8" in text and "Stratified" in text
    d = json.loads(r.to_json())
    required = {"position_id", "players", "trials", "seed", "jobs", "win", "win_gammon",
                "win_backgammon", "lose_gammon", "lose_backgammon", "equity", "se",
                "mean_plies", "elapsed_s", "games_per_second", "stratified", "rules", "interrupted"}
    assert required <= d.keys()
    assert set(d["se"]) == {"win", "win_gammon", "win_backgammon", "lose_gammon",
                            "lose_backgammon", "equity"}
    assert d["position_id"] == "4HPwATDgc/ABMA" and d["players"] == ["pubeval", "pubeval"]
    assert d["trials"] == 300 and d["seed"] == 8 and d["jobs"] == 1
    assert sum(d["counts"].values()) + d["truncated"] == 300
    assert 0 <= d["win_backgammon"] <= d["win_gammon"] <= d["win"] <= 1


# ------------------------------------------------------------------ bad input


@pytest.mark.parametrize("trials", [0, -5, 1.5, "abc", None, True, float("nan")])
def test_bad_trials_raise_value_error(trials):
    with pytest.raises(ValueError):
        rollout("start", trials, jobs=1)


def test_whole_float_trials_are_accepted():
    assert make_request("start", 1e3, seed=1).trials == 1000


@pytest.mark.parametrize("jobs", [0, -1, 1.5])
def test_bad_jobs_raise_value_error(jobs):
    with pytest.raises(ValueError):
        rollout("start", 10, jobs=jobs)


@pytest.mark.parametrize("players", [("random", "nobody"), "gnubg", ("random",), ("a", "b", "c")])
def test_unknown_players_raise_value_error(players):
    with pytest.raises(ValueError):
        rollout("start", 10, players=players, jobs=1)


def test_unknown_rules_raise_value_error():
    with pytest.raises(ValueError):
        rollout("start", 10, rules="chess", jobs=1)


@pytest.mark.parametrize("position", ["not-a-position", "4HPwATDgc/ABM!", "XGID=garbage"])
def test_bad_positions_raise_invalid_position_error(position):
    with pytest.raises(InvalidPositionError):
        rollout(position, 10, jobs=1)


def test_finished_game_cannot_be_rolled_out():
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 0] = 15
    board[1, 6] = 15
    with pytest.raises(InvalidPositionError):
        rollout(Position.from_board(board), 10, jobs=1)


# ------------------------------------------------------------------ end to end (oracle)


def gnubg_random_games(n_games: int, seed: int) -> dict[str, list[float]]:
    """Random games under GNU Backgammon's rules (gnubg_nn move lists), for the first mover.

    The first roll is one of the 15 non-doubles (R5); each turn picks uniformly among the
    distinct resulting positions; a backgammon leaves a checker on the bar or in the winner's home.
    """
    import random

    import gnubg_nn

    rng = random.Random(seed)
    values, plies_list = [], []
    for _ in range(n_games):
        board = gnubg_nn.board_from_position_id("4HPwATDgc/ABMA")  # [opponent, on roll]
        side, plies = 0, 0
        while True:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            while plies == 0 and d1 == d2:
                d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            keys = sorted(set(gnubg_nn.moves(board, d1, d2, 0)))
            after = gnubg_nn.boardfromkey(rng.choice(keys)) if keys else board
            plies += 1
            if sum(after[1]) == 0:  # the mover bore off its last checker
                loser = after[0]
                if sum(loser) < 15:
                    value = 1
                elif loser[24] or any(loser[18:24]):  # loser's bar or points 19-24
                    value = 3
                else:
                    value = 2
                values.append(value if side == 0 else -value)
                plies_list.append(plies)
                break
            board = [list(after[1]), list(after[0])]
            side ^= 1
    return {"values": values, "plies": plies_list}


@pytest.mark.slow
@pytest.mark.oracle
def test_random_players_from_the_start_agree_with_gnubg_rules():
    pytest.importorskip("gnubg_nn")
    games = gnubg_random_games(3000, seed=12345)
    v = np.array(games["values"])
    n = len(v)
    theirs = {
        "win": np.mean(v > 0), "win_gammon": np.mean(v >= 2), "win_backgammon": np.mean(v == 3),
        "lose_gammon": np.mean(v <= -2), "lose_backgammon": np.mean(v == -3),
    }
    ours = rollout("start", 20_000, players="random", seed=2718, jobs=2)
    for figure, p in theirs.items():
        se = math.sqrt(p * (1 - p) / n + ours.se[figure] ** 2)
        assert abs(getattr(ours, figure) - p) < 4 * se, (figure, getattr(ours, figure), p)
    eq_se = math.sqrt(np.var(v) / n + ours.se["equity"] ** 2)
    assert abs(ours.equity - np.mean(v)) < 4 * eq_se
    plies = np.array(games["plies"], dtype=float)
    plies_se = math.sqrt(np.var(plies) / n + ours.std_plies**2 / ours.games)
    assert abs(ours.mean_plies - plies.mean()) < 4 * plies_se, (ours.mean_plies, plies.mean())
    assert theirs["win_backgammon"] > 0.05  # random play backgammons often: the test has teeth
