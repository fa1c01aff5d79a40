"""Our 0-ply analysis beside GNU Backgammon's (PyPI gnubg, test-only oracle) on a match gnubg
played (tests/data/matches/gnubg-7pt.mat): issue 53's targets on that match."""

from __future__ import annotations

from pathlib import Path

import pytest

from tavli_fast.analysis.report import analyse_match

pytest.importorskip("gnubg")

from gnubg_analysis import gnubg_analyse, gnubg_moves, gnubg_statistics  # noqa: E402

MATCH = Path(__file__).resolve().parents[1] / "data" / "matches" / "gnubg-7pt.mat"


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    files = gnubg_analyse(MATCH, tmp_path_factory.mktemp("gnubg") / "analysis.txt")
    return analyse_match(MATCH), gnubg_moves(files), gnubg_statistics(files[-1])


@pytest.mark.oracle
def test_same_games_and_unforced_moves_as_gnubg(both):
    ours, moves, stats = both
    assert len(moves) == len(ours.games) == 8
    counts = [p.checker_decisions for p in ours.players()]
    for mine, theirs in zip(counts, stats["unforced"]):
        assert abs(mine - theirs) <= 0.03 * theirs


@pytest.mark.oracle
def test_players_ranked_as_gnubg_ranks_them(both):
    ours, _, stats = both
    a, b = (p.error_rate for p in ours.players())
    assert (a < b) == (stats["error_rate"][0] < stats["error_rate"][1])


@pytest.mark.oracle
def test_gnubgs_clear_best_plays_cost_little_in_ours(both):
    ours, moves, _ = both
    names = ours.record.players
    clear = kept = 0
    for game, gm in zip(ours.analyses, moves):
        mine = [d for d in game.decisions if d.kind == "checker"]
        j = 0
        for mv in gm:
            if not mv["unforced"] or mv["error"] is None:
                continue
            while (names[mine[j].player], mine[j].played) != (mv["player"], mv["play"]):
                j += 1   # an IndexError here: a move gnubg analysed that we did not
            if mv["error"] == 0.0 and mv["gap"] is not None and mv["gap"] >= 0.04:
                clear += 1
                kept += mine[j].error < 0.02
    assert clear > 30 and kept >= 0.9 * clear
