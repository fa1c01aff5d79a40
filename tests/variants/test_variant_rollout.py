"""Rollouts of Plakoto and Fevga on the rollout engine (``rollout(..., rules=...)`` and
``tavli-rollout --game``): hand-worked endings (P5-P7, F7), reproducibility, checkpoints,
and bad input."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from tavli_fast import FevgaPosition, InvalidPositionError, PlakotoPosition, simulate_variant
from tavli_fast.api import openings, resume_rollout, rollout
from tavli_fast.jobs.rollout import ChunkResult, make_request, plan_chunks
from tavli_fast.play.neural import NeuralNetError
from tavli_fast.variants.neural import (SHIPPED, choose_variant_net, load_variant_net,
                                      variant_net_of_choice, variant_weights_file)

CMD = [sys.executable, "-m", "tavli_fast"]
POSITIONS = {"plakoto": PlakotoPosition, "fevga": FevgaPosition}


def counts(points: dict[int, int]) -> list[int]:
    """24 counts from {own point: checkers}."""
    out = [0] * 24
    for point, n in points.items():
        out[point - 1] = n
    return out


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *args], capture_output=True, text=True, timeout=120)


# ------------------------------------------------------------------ hand-worked endings


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
@pytest.mark.parametrize("his_off, points", [(0, 2), (1, 1)])
def test_p7_f7_last_checker_off_wins_two_points_only_if_he_has_borne_off_none(game, his_off, points):
    # My last checker is on my ace point: every roll bears it off at once.
    position = POSITIONS[game](counts({1: 1}), counts({6: 15 - his_off}), 14, his_off)
    r = rollout(position, 72, rules=game, seed=1, jobs=1)
    assert r.win == 1.0 and r.lose == 0.0
    assert r.win_gammon == (1.0 if points == 2 else 0.0)
    assert r.win_backgammon == 0.0                      # no backgammon in either game
    assert r.equity == points and r.se["equity"] == 0.0
    assert r.mean_plies == 1.0


def test_p5_pinning_his_mother_when_mine_is_gone_wins_two_points():
    # One of my checkers on each of my points 2-7: every die can land one on my 1-point, his
    # starting point, where his last checker there (his mother) stands alone. I have no
    # checker on my own starting point, so the game ends there for 2 points (P5).
    position = PlakotoPosition(counts({2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 13: 9}),
                               counts({24: 1, 1: 14}), 0, 0)
    r = rollout(position, 144, rules="plakoto", players="heuristic", seed=2, jobs=1)
    assert r.variant["mother_win"] == (1.0, 0.0)
    assert r.win == 1.0 and r.win_gammon == 1.0 and r.equity == 2.0
    assert r.variant["mother_loss"][0] == 0.0 and r.variant["draw"][0] == 0.0


def test_p6_two_pinned_mothers_are_a_draw_worth_nothing():
    # As above, but my own mother is already pinned on my 24-point by his checker: pinning
    # his mother now pins both, a draw (P6), which beats every other play for the heuristic.
    position = PlakotoPosition(counts({24: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 13: 8}),
                               counts({24: 1, 1: 1, 2: 13}), 0, 0, me_pinned=[24])
    r = rollout(position, 144, rules="plakoto", players="heuristic", seed=2, jobs=1)
    assert r.variant["draw"] == (1.0, 0.0)
    assert r.win == 0.0 and r.lose == 0.0 and r.equity == 0.0
    assert r.to_dict()["draw"] == 1.0


# ------------------------------------------------------------------ the engine


def test_t3_variant_rollouts_stratify_the_first_roll_over_all_36_rolls_doubles_included():
    for game in ("plakoto", "fevga"):
        request = make_request("start", 1296, game=game, seed=1)
        assert request.first_roll_no_doubles is False
        assert request.strata == (36, 36)
        assert any("double" in note for note in request.notes)
        chunk = plan_chunks(request)[0]
        assert chunk.game >= 0 and chunk.first_roll_no_doubles is False


@pytest.mark.slow
@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_same_seed_same_numbers_whatever_the_jobs(game):
    one = rollout("start", 3000, rules=game, seed=5, jobs=1, chunk_size=1000)
    two = rollout("start", 3000, rules=game, seed=5, jobs=2, chunk_size=1000)
    other = rollout("start", 3000, rules=game, seed=6, jobs=1, chunk_size=1000)
    assert one.totals == two.totals
    assert one.totals != other.totals
    draws = one.totals.variant[2]
    assert sum(one.counts) + draws == one.games == 3000


@pytest.mark.slow
def test_rollout_agrees_with_plain_simulation_of_the_same_games():
    # Different dice (stratified vs not), the same game: the two estimates must agree.
    r = rollout("start", 8000, rules="plakoto", players="heuristic,random", seed=3, jobs=2)
    s = simulate_variant("plakoto", None, 8000, ("heuristic", "random"), seed=9).rates()
    for mine, theirs in (("win", "win"), ("equity", "points")):
        value = r.win if mine == "win" else r.equity
        se = (r.se[mine] ** 2 + s[theirs][1] ** 2) ** 0.5
        assert abs(value - s[theirs][0]) < 4 * se
    mother = r.variant["mother_win"]
    assert abs(mother[0] - s["mother_win"][0]) < 4 * (mother[1] ** 2 + s["mother_win"][1] ** 2) ** 0.5
    assert r.win_gammon >= mother[0]                    # a mother win is a 2-point win


def test_fevga_reports_no_mother_rule_and_the_heuristic_beats_random():
    r = rollout("start", 2000, rules="fevga", players="heuristic,random", seed=4, jobs=1)
    assert r.variant == {}
    assert r.win > 0.9 and r.win + r.lose == pytest.approx(1.0)


def test_checkpoint_resume_gives_the_numbers_of_one_run(tmp_path):
    path = tmp_path / "run.json"
    args = dict(rules="plakoto", seed=8, jobs=1, chunk_size=500)
    rollout("start", 1000, checkpoint=str(path), **args)
    saved = json.loads(path.read_text())
    assert saved["request"]["game"] == "plakoto"
    assert all(len(row) == 25 for row in saved["chunks"].values())
    resumed = rollout("start", 2000, resume=str(path), **args)
    straight = rollout("start", 2000, **args)
    assert resumed.resumed_games == 1000
    assert resumed.totals == straight.totals


def test_chunk_rows_of_portes_variant_and_cubeful_checkpoints_all_read_back():
    portes = ChunkResult(0, 10, (4, 1, 0, 3, 2, 0), 500, 26000)
    variant = ChunkResult(1, 10, (4, 2, 0, 2, 1, 0), 800, 66000, variant=(1, 0, 1))
    for row in (portes, variant):
        assert ChunkResult.from_list(row.index, row.to_list()) == row
    bad = variant.to_list()
    bad[-1] = 2                                         # one draw too many for 10 games
    with pytest.raises(ValueError, match="add up"):
        ChunkResult.from_list(1, bad)
    with pytest.raises(ValueError, match="numbers"):
        ChunkResult.from_list(1, bad[:-1])


# ------------------------------------------------------------------ bad input


def test_bad_arguments_raise_precise_errors():
    with pytest.raises(ValueError, match="unknown rules 'tavla': choose one of backgammon, portes, "
                                         "plakoto, fevga"):
        rollout("start", 100, rules="tavla", jobs=1)
    with pytest.raises(ValueError, match="unknown fevga player 'pubeval'"):
        rollout("start", 100, rules="fevga", players="pubeval", jobs=1)
    with pytest.raises(ValueError, match="without the doubling cube"):
        rollout("start", 100, rules="plakoto", cubeful=True, jobs=1)
    with pytest.raises(InvalidPositionError, match="plakoto id, not a fevga"):
        rollout(PlakotoPosition.initial().variant_id(), 100, rules="fevga", jobs=1)


@pytest.mark.parametrize("args, message", [
    (["--game", "fevga", "--players", "pubeval,random"], "unknown fevga player"),
    (["--game", "plakoto", "--cubeful"], "without the doubling cube"),
    (["--game", "fevga", "--position", "PAAAB//wAAAP/+"], "plakoto id, not a fevga"),
    (["--game", "fevga", "--position", "F!!"], "not a base64 character"),
    (["--game", "backgammon"], "invalid choice"),
])
def test_cli_bad_input_is_one_line_and_exit_status_2(args, message):
    p = run(*args, "--trials", "100", "--no-progress")
    assert p.returncode == 2
    assert p.stdout == ""
    assert len(p.stderr.strip().splitlines()) == 1 and message in p.stderr
    assert "Traceback" not in p.stderr


def test_cli_rolls_out_plakoto_from_its_text_id_and_echoes_the_seed():
    start = PlakotoPosition.initial().variant_id()
    p = run("--game", "plakoto", "--position", start, "--trials", "720", "--seed", "4",
            "--json", "--no-progress", "-j", "1")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["game"] == "plakoto" and doc["seed"] == 4 and doc["trials"] == 720
    assert doc["position_id"] == start and doc["players"] == ["neural", "neural"]  # the default (issue 44)
    assert 0 < doc["mother_win"] < doc["win_gammon"] and doc["variant_se"]["mother_win"] > 0


# ------------------------------------------------------------------ options


def test_f4_option_changes_the_games_and_is_kept_in_the_checkpoint(tmp_path):
    args = dict(rules="fevga", seed=7, jobs=1, chunk_size=500)
    default = rollout("start", 1000, **args)
    quarter = rollout("start", 1000, game_rules=["runner_to_quarter"],
                      checkpoint=str(tmp_path / "q.json"), **args)
    assert quarter.totals != default.totals
    assert any("runner_to_quarter" in note for note in quarter.notes)
    saved = json.loads((tmp_path / "q.json").read_text())["request"]
    assert saved["game_rules"] == ["runner_to_quarter"]
    with pytest.raises(ValueError, match="does not match"):
        rollout("start", 2000, resume=str(tmp_path / "q.json"), **args)   # options differ


def test_p4_option_changes_the_games_of_a_pinned_home_checker():
    # My last two checkers: one on my ace, one on my 6-point pinned under 14 of his. By
    # default the pinned checker stops me bearing off (P4) and I cannot move at all; with
    # pinned_home_counts a 1 bears the ace checker off, so the games differ.
    from tavli_fast import PlakotoRules

    position = PlakotoPosition(counts({6: 1, 1: 1}), counts({19: 14, 20: 1}), 13, 0,
                               me_pinned=[6])
    default = rollout(position, 360, rules="plakoto", seed=3, jobs=1)
    option = rollout(position, 360, rules="plakoto", seed=3, jobs=1,
                     game_rules=PlakotoRules(pinned_home_counts=True))
    assert default.totals != option.totals
    assert default.notes != option.notes


def test_options_need_their_game():
    with pytest.raises(ValueError, match="give game too"):
        rollout("start", 100, game_rules=["runner_to_quarter"], jobs=1)
    with pytest.raises(ValueError, match="not an option of plakoto"):
        rollout("start", 100, rules="plakoto", game_rules=["runner_to_quarter"], jobs=1)
    p = run("--game", "fevga", "--option", "pinned_home_counts", "--trials", "100", "--no-progress")
    assert p.returncode == 2 and "not an option of fevga" in p.stderr


@pytest.mark.parametrize("game", ["plakoto", "fevga"])
def test_the_result_reports_the_game_played_as_its_rules(game):
    result = rollout("start", 100, rules=game, seed=4, jobs=1)
    assert result.rules == game and result.to_dict()["rules"] == game
    assert json.loads(result.to_json())["rules"] == game


# ------------------------------------------------------------------ a net of one's own

OTHER = "plakoto-v3.npz"  # an earlier Plakoto net (tavli_fast_nets), not the shipped one
SHIPPED_VERSION = load_variant_net(SHIPPED["plakoto"], "plakoto")[1]["version"]


def _plakoto(trials: int = 120, **kw):
    return rollout("start", trials, rules="plakoto", players="neural", seed=5, chunk_size=40,
                   **kw)


def test_weights_choose_the_net_of_the_neural_players_in_any_number_of_workers():
    shipped, one, two = _plakoto(jobs=1), _plakoto(jobs=1, weights=OTHER), _plakoto(jobs=2, weights=OTHER)
    assert one.totals == two.totals  # every worker loaded the same file
    assert one.totals != shipped.totals
    assert one.net.version == "v3" and one.net.file.endswith(OTHER)
    assert shipped.net.file is None and shipped.net.version == SHIPPED_VERSION
    assert f"Net: v3 from {one.net.file}" in str(one)
    # The shipped file named by its path plays as the default.
    given = _plakoto(jobs=1, weights=variant_weights_file(SHIPPED["plakoto"]))
    assert given.totals == shipped.totals and given.net.sha256 == shipped.net.sha256


def test_a_resumed_variant_rollout_keeps_its_weights(tmp_path):
    ck = tmp_path / "run.json"
    _plakoto(jobs=1, weights=OTHER, checkpoint=ck)
    resumed = resume_rollout(ck, trials=240, jobs=1)
    assert resumed.resumed_games == 120 and resumed.net.version == "v3"
    assert resumed.totals == _plakoto(240, jobs=1, weights=OTHER).totals
    with pytest.raises(ValueError):  # the shipped net cannot continue the v3 run
        _plakoto(240, jobs=1, resume=ck, checkpoint=tmp_path / "other.json")


def test_openings_use_the_weights_of_the_game():
    kw = dict(trials=36, rules="plakoto", rolls="61", seed=2, jobs=1)
    mine, shipped = openings(weights=OTHER, **kw), openings(**kw)
    assert mine.net.version == "v3" and shipped.net.file is None
    assert mine.to_dict()["rolls"] != shipped.to_dict()["rolls"]


@pytest.mark.parametrize("kw, message", [
    (dict(players="heuristic", weights=OTHER), "this run has none"),
    (dict(players="neural", weights="fevga-v2.npz"), "a net for 'fevga', not for 'plakoto'"),
    (dict(players="neural", weights="neural-v17-320.npz"), "not a tavli_fast Plakoto / Fevga"),
])
def test_weights_that_cannot_serve_the_game_are_refused(kw, message):
    with pytest.raises(ValueError, match=message):
        rollout("start", 100, rules="plakoto", jobs=1, **kw)


def test_a_variant_weights_file_that_changed_since_the_run_began_is_refused():
    choice = choose_variant_net("plakoto", OTHER)
    assert variant_net_of_choice("plakoto", choice) is variant_net_of_choice("plakoto", choice)
    with pytest.raises(NeuralNetError, match="changed since the run began"):
        variant_net_of_choice("plakoto", dataclasses.replace(choice, sha256="0" * 64))
