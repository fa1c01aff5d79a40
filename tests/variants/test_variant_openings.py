"""Opening statistics of Plakoto and Fevga (``openings(..., rules=...)``, ``tavli-openings
--game``): the T3 rolls, every play of each, common dice, reproducibility, bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

import tavli_fast as tf
from tavli_fast.jobs.openings import make_openings_request, play_trials
from tavli_fast.api import openings

START = {"me": [0] * 23 + [15], "opp": [0] * 23 + [15], "me_off": 0, "opp_off": 0,
         "me_pinned": [], "opp_pinned": []}


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tavli_fast.cli.openings", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_t3_the_first_play_may_be_a_double_so_all_21_rolls_open(game):
    request = make_openings_request(trials=10, game=game, seed=1)
    rolls = {rp.roll: rp.weight for rp in request.rolls}
    assert len(rolls) == 21
    assert rolls[(6, 6)] == pytest.approx(1 / 36) and rolls[(2, 1)] == pytest.approx(2 / 36)
    assert sum(rolls.values()) == pytest.approx(1.0)
    assert request.players == ("neural", "neural")  # the default, as for Portes (issue 44)


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_every_distinct_play_of_every_roll_is_a_candidate(game):
    request = make_openings_request(trials=10, game=game, seed=1)
    for rp in request.rolls:
        results = tf.variant_plays(game, START, *rp.roll)
        assert len(rp.notations) == len(set(rp.notations)) == len(results)
        # The rolled-out positions are those results seen by the opponent (sides switched).
        mine = sorted(tuple(r["me"]) for r in results)
        rolled = sorted(tuple(tf.from_variant_id(i).opp) for i in rp.position_ids)
        assert mine == rolled
    assert play_trials(10, rolls=None, game=game) == 10 * sum(len(rp.notations) for rp in request.rolls)


def test_hand_worked_play_lists_of_two_rolls():
    # Plakoto 6-5 from the start: one checker 24/13, or two checkers 24/18 and 24/19.
    request = make_openings_request(trials=10, game="plakoto", rolls="65,11", seed=1)
    plays = {rp.roll: set(rp.notations) for rp in request.rolls}
    assert plays[(6, 5)] == {"24/13", "24/19 24/18"}
    # Fevga 1-1: only the runner may leave the start (F4), so one play: 24/20.
    request = make_openings_request(trials=10, game="fevga", rolls="11", seed=1)
    assert request.rolls[0].notations == ("24/20",)


@pytest.mark.slow
def test_common_dice_pair_the_plays_and_the_same_seed_gives_the_same_ranking():
    args = dict(trials=400, rules="plakoto", rolls="65,66", seed=3, chunk_size=200)
    one = openings(jobs=1, **args)
    two = openings(jobs=2, **args)
    assert one.to_dict()["rolls"] == two.to_dict()["rolls"]
    assert one.game == "plakoto" and one.to_dict()["game"] == "plakoto"
    for roll in one.rolls:
        best = roll.plays[0]
        ratios = []
        for p in roll.plays[1:]:
            assert p.equity <= best.equity and p.diff == pytest.approx(p.equity - best.equity)
            assert p.diff_se > 0
            ratios.append(p.diff_se / (p.se["equity"] ** 2 + best.se["equity"] ** 2) ** 0.5)
        # Paired on the same dice: the runner-up, whose games follow the best play's most
        # closely, gets a paired SE below that of two independent estimates; plays far apart
        # gain little from the common dice, but lose nothing beyond noise.
        assert ratios[0] < 0.95 and max(ratios) < 1.1, ratios
        for p in roll.plays:
            assert p.value["win_backgammon"] == p.value["lose_backgammon"] == 0.0
            assert p.value["win"] + p.value["lose_gammon"] <= 1.0


def test_first_mover_figures_count_a_draw_as_nothing():
    # Win rates come straight from the games: never a "win" made of the opponent's draws.
    r = openings(trials=300, rules="plakoto", players="random", rolls="21", seed=5, jobs=1,
                 chunk_size=300)
    for p in r.rolls[0].plays:
        v = p.value
        assert 0.0 < v["win"] < 1.0
        assert abs(v["equity"]) <= 2.0


@pytest.mark.parametrize("args, message", [
    (["--game", "fevga", "--rules", "portes"], "--rules is for Portes"),
    (["--game", "plakoto", "--player", "pubeval"], "unknown plakoto player"),
    (["--game", "plakoto", "--rolls", "31", "--replies", "24/21"], "--replies does not support --game"),
    (["--game", "plakoto", "--rolls", "71"], "dice run from 1 to 6"),
])
def test_cli_bad_input_is_one_line_and_exit_status_2(args, message):
    p = run(*args, "--trials", "10", "--no-progress")
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and message in p.stderr
    assert "Traceback" not in p.stderr


def test_cli_fevga_openings_as_json():
    p = run("--game", "fevga", "--rolls", "21,11", "--trials", "100", "--seed", "2", "--json",
            "--no-progress", "-j", "1")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["game"] == "fevga" and doc["seed"] == 2
    assert sorted(r["roll"] for r in doc["rolls"]) == ["11", "21"]
    assert all(play["trials"] == 100 for r in doc["rolls"] for play in r["plays"])


@pytest.mark.slow
def test_options_reach_every_unit_and_change_the_numbers():
    from tavli_fast.jobs.openings import plan_units

    request = make_openings_request(trials=200, game="fevga", rolls="65", seed=4,
                                    game_rules=["runner_to_quarter"])
    assert request.game_rules == ("runner_to_quarter",) and request.variant_options != 0
    assert all(u.variant_options == request.variant_options for u in plan_units(request, 0))
    args = dict(trials=1296, rules="plakoto", rolls="65", seed=4, jobs=1)
    default, option = openings(**args), openings(game_rules=["pinned_home_counts"], **args)
    assert default.to_dict()["rolls"] != option.to_dict()["rolls"]
    with pytest.raises(ValueError, match="give game too"):
        make_openings_request(trials=10, game_rules=["runner_to_quarter"])


def test_the_result_reports_the_game_played_as_its_rules():
    result = openings(trials=20, rules="fevga", rolls="21", seed=4, jobs=1)
    assert result.rules == "fevga" and result.to_dict()["rules"] == "fevga"



def test_the_table_has_no_backgammon_columns_for_the_variants():
    # P7, F7: a Plakoto or Fevga game is worth 1 or 2 points, so the table drops "W bg" and
    # "L bg" (always 0 there): three rates a play (win, W g, L g) against Portes' five.
    def header_and_rates(result):
        lines = str(result).splitlines()
        at = next(i for i, line in enumerate(lines) if line.split()[:2] == ["play", "equity"])
        rates = [t for t in lines[at + 1].split() if re.fullmatch(r"\d\.\d{3}", t)]
        return lines[at], rates

    header, rates = header_and_rates(
        openings(trials=20, rules="plakoto", players="random", rolls="21", seed=4, jobs=1))
    assert "bg" not in header and header.count(" g ") == 2 and len(rates) == 3
    header, rates = header_and_rates(openings(trials=20, players="random", rolls="21", seed=4, jobs=1))
    assert header.count(" bg ") == 2 and len(rates) == 5
