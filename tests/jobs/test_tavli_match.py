"""The tavli match (RULES.md T1-T3): ``play_matches(..., rules="tavli")`` and ``tavli-match
--tavli``: games rotate Portes, Plakoto, Fevga without the cube, 1 or 2 points a game."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tavli_fast.jobs.match import (
    GAME_TYPES,
    TALLIES,
    MatchChunkResult,
    make_match_request,
    plan_match_chunks,
)
from tavli_fast.api import play_matches

KINDS = ("portes", "plakoto", "fevga")


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tavli_fast.cli.match", *args],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def five():
    return play_matches(5, 600, ("pubeval", "pubeval"), rules="tavli", seed=1, jobs=1, chunk_size=200)


def test_t2_games_rotate_portes_plakoto_fevga(five):
    types = five.game_types()
    n = {k: types[k]["games"] for k in KINDS}
    # In every match the decided games run P, Pl, F, P, ...: per match 0 <= P - Pl <= 1 and
    # 0 <= Pl - F <= 1, with at most one of the two differences 1.
    assert 0 <= n["portes"] - n["plakoto"] <= five.matches
    assert 0 <= n["plakoto"] - n["fevga"] <= five.matches
    assert n["portes"] - n["fevga"] <= five.matches
    assert n["fevga"] > 0
    # Every game played is decided, or a Plakoto draw (P6) that is replayed.
    assert sum(n.values()) + five._t("draws") == five.games


def test_t1_no_cube_and_every_game_scores_one_or_two_points(five):
    assert five.mean_cube == 1.0 and five._t("passes") == 0
    for kind, d in five.game_types().items():
        points = d["points_a"] + d["points_b"]
        assert d["games"] <= points <= 2 * d["games"], kind
    assert five._t("backgammon_a") == five._t("backgammon_b") == 0
    # A match ends as soon as a side reaches 5: the winner has 5 or 6 points.
    total = five._t("points_a") + five._t("points_b")
    assert 5 * five.matches <= total <= 2 * 5 * five.matches


def test_t3_first_roll_may_be_a_double_and_the_winner_starts():
    request = make_match_request(5, 10, "pubeval", tavli=True, seed=1)
    chunk = plan_match_chunks(request)[0]
    assert chunk.tavli and chunk.winner_starts and not chunk.first_roll_no_doubles
    assert chunk.max_cube == 1 and not chunk.backgammons
    assert request.rules.name == "portes"


@pytest.mark.slow
def test_t3_the_previous_winner_starts_so_the_portes_winner_opens_plakoto():
    # A plays Portes far better (pubeval vs random) and both play Plakoto by the same
    # heuristic. Since the Portes winner starts the next game (T3), A nearly always moves
    # first in Plakoto and wins the first mover's share of its points; with a coin for the
    # starter the share falls back to about one half.
    from tavli_fast import _core, simulate_variant
    from tavli_fast.play.cube import default_match_table
    from tavli_fast.play.players import player_id
    from tavli_fast.game.position import Position

    def plakoto_share(winner_starts: bool) -> float:
        t = _core.run_matches(Position.initial().board, 2000, 5, 0, 0, False, player_id("pubeval"),
                              player_id("random"), 5, False, False, 1, winner_starts,
                              default_match_table(), bearoff_play=False, tavli=True,
                              variant_player_a=1, variant_player_b=1)
        a, b = (int(t[TALLIES.index(f"plakoto_points_{x}")]) for x in "ab")
        return a / (a + b)

    s = simulate_variant("plakoto", None, 10000, "heuristic", seed=1)
    won = s.win_single + 2 * (s.win_double + s.win_mother)
    lost = s.lose_single + 2 * (s.lose_double + s.lose_mother)
    first_mover = won / (won + lost)
    assert first_mover > 0.53                           # the heuristic's first-mover edge
    winner_starts = plakoto_share(True)
    assert abs(winner_starts - first_mover) < 0.03
    assert winner_starts - plakoto_share(False) > 0.03


def test_p5_mother_wins_are_counted_among_the_two_point_wins(five):
    mothers = five._t("mother_a") + five._t("mother_b")
    assert 0 < mothers <= five._t("gammon_a") + five._t("gammon_b")
    # Only Plakoto has the mother rule: there are fewer mother wins than Plakoto games.
    assert mothers < five.game_types()["plakoto"]["games"]


def test_equal_players_have_even_chances_and_the_shares_have_ses(five):
    a, b = five.win
    assert a + b == pytest.approx(1.0)
    assert abs(a - 0.5) < 4 * five.se[0]
    for kind, d in five.game_types().items():
        assert 0 < d["share_a_se"] < 0.05
        assert abs(d["share_a"] - 0.5) < 4 * d["share_a_se"], kind
    assert 3 <= five.games_per_match <= 10 and five.games_per_match_se > 0


def test_share_se_matches_the_spread_of_independent_runs():
    shares = [play_matches(3, 150, "pubeval", rules="tavli", seed=s, jobs=1).game_types()["portes"]
              for s in range(8)]
    values = [d["share_a"] for d in shares]
    mean = sum(values) / len(values)
    spread = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
    reported = sum(d["share_a_se"] for d in shares) / len(shares)
    assert 0.4 * reported < spread < 2.5 * reported


def test_a_strong_player_beats_random_in_every_game_type():
    r = play_matches(7, 200, ("pubeval", "random"), rules="tavli", seed=2, jobs=1)
    assert r.win[0] > 0.95
    for kind, d in r.game_types().items():
        assert d["share_a"] > 0.85, kind


def test_length_one_is_a_single_portes_game():
    r = play_matches(1, 300, "pubeval", rules="tavli", seed=3, jobs=1)
    types = r.game_types()
    assert r.games_per_match == 1.0
    assert types["portes"]["games"] == 300 and types["plakoto"]["games"] == types["fevga"]["games"] == 0


def test_same_seed_same_numbers_whatever_the_jobs_and_checkpoints_resume(tmp_path):
    args = dict(rules="tavli", seed=4, chunk_size=50)
    one = play_matches(5, 150, "pubeval,greedy", jobs=1, **args)
    two = play_matches(5, 150, "pubeval,greedy", jobs=2, **args)
    assert one.tallies == two.tallies
    path = tmp_path / "m.json"
    play_matches(5, 50, "pubeval,greedy", jobs=1, checkpoint=str(path), **args)
    assert json.loads(path.read_text())["request"]["tavli"] is True
    resumed = play_matches(5, 150, "pubeval,greedy", jobs=1, resume=str(path), **args)
    assert resumed.tallies == one.tallies and resumed.resumed_matches == 50
    with pytest.raises(ValueError, match="does not match"):
        play_matches(5, 150, "pubeval,greedy", jobs=1, resume=str(path), seed=4, chunk_size=50)


def test_match_checkpoint_rows_from_before_the_tavli_match_still_read():
    old = [10, 6, 80, 700, 80, 30, 10, 0, 30, 10, 0, 0, 60, 50]   # 1 + 13 numbers
    result = MatchChunkResult.from_list(0, old)
    assert len(result.tallies) == len(TALLIES)
    assert result.tallies[:13] == tuple(old[1:]) and not any(result.tallies[13:])
    with pytest.raises(ValueError, match="whole numbers"):
        MatchChunkResult.from_list(0, old[:-1])


def test_bad_arguments_raise_precise_errors():
    with pytest.raises(ValueError, match="starts at 0-0"):
        play_matches(5, 10, "pubeval", rules="tavli", score=(1, 0), jobs=1)
    with pytest.raises(ValueError, match="portes rules"), pytest.warns(DeprecationWarning):
        play_matches(5, 10, "pubeval", tavli=True, rules="backgammon", jobs=1)


@pytest.mark.parametrize("args, message", [
    (["--tavli", "--score", "2,1"], "--score cannot be used with --tavli"),
    (["--tavli", "--max-cube", "4"], "--max-cube cannot be used with --tavli"),
    (["--tavli", "--rules", "backgammon"], "portes rules"),
    (["--tavli", "--length", "0"], "--length: must be at least 1"),
    (["--tavli", "--players", "pubeval,heuristic"], "heuristic"),
])
def test_cli_bad_input_is_one_line_and_exit_status_2(args, message):
    p = run(*args, "--matches", "10", "--no-progress")
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and message in p.stderr
    assert "Traceback" not in p.stderr


def test_cli_tavli_match_report():
    p = run("--tavli", "--length", "5", "--players", "pubeval,random", "--matches", "100",
            "--seed", "6", "--no-progress", "-j", "1")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "Tavli matches to 5 points" in out and "seed 6" in out
    for kind in GAME_TYPES:
        assert f"\n{kind} " in out
    assert "random plays random" in out and "pubeval plays heuristic" in out
    doc = json.loads(run("--tavli", "--length", "7", "--player", "greedy", "--matches", "40",
                         "--seed", "6", "--json", "--no-progress", "-j", "1").stdout)
    assert doc["tavli"] is True and doc["length"] == 7 and doc["cube"] is False
    assert set(doc["game_types"]) == set(GAME_TYPES)


def test_p6_option_a_draw_is_a_game_nobody_scores_and_the_rotation_moves_on(tmp_path):
    r = play_matches(5, 600, "pubeval", rules="tavli", seed=1, jobs=1,
                     game_rules=["draw_scores_point"], checkpoint=str(tmp_path / "d.json"))
    types, draws = r.game_types(), r._t("draws")
    assert draws > 0
    played = {k: types[k]["games"] for k in KINDS}
    played["plakoto"] += draws                       # a drawn Plakoto game is a played one
    assert 0 <= played["portes"] - played["plakoto"] <= r.matches
    assert 0 <= played["plakoto"] - played["fevga"] <= r.matches
    assert json.loads((tmp_path / "d.json").read_text())["request"]["game_rules"] == ["draw_scores_point"]
    assert "not replayed" in str(r)
    with pytest.raises(ValueError, match="need tavli"):
        play_matches(5, 10, "pubeval", game_rules=["draw_scores_point"], jobs=1)
    with pytest.raises(ValueError, match="not an option of Plakoto or Fevga"):
        play_matches(5, 10, "pubeval", rules="tavli", game_rules=["jacoby"], jobs=1)
