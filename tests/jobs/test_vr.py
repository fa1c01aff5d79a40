"""Rollout settings of issue 10: variance reduction (luck adjustment), --ply, the 1-ply move
filter and truncation after N plies.

Variance reduction must not move the expectation: the luck of a roll is the net's value of the
best play for the rolled dice less its mean over the 36 rolls, so its expectation is 0 whatever
the position. The tests check that on varied positions (the luck-adjusted and the plain
figures agree, and the summed luck is 0 within its SE) and that repeated luck-adjusted
rollouts scatter as their SEs say. Games are cut after a few plies (``truncate_plies``) to keep
the tests short; the luck of the rolls played is unbiased all the same.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.play.neural import default_net
from tavli_fast.api import rollout
from tavli_fast.play.players import player_id
from tavli_fast.game.position import Position
from tavli_fast.jobs.rollout import (
    DEFAULT_MOVE_FILTER,
    ChunkResult,
    make_request,
    request_from_checkpoint,
)


def varied_positions(count: int, seed: int = 3) -> list[Position]:
    """Positions from neural self-play: 1 to 30 plies from the start, on seeded dice."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        p = Position.initial()
        for _ in range(int(rng.integers(1, 31))):
            d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            after = Position.from_id(tf.choose(p.position_id(), d1, d2, "neural"))
            if after.is_game_over():
                break
            p = after.sides_switched()
        if not p.is_game_over():
            out.append(p)
    return out


def luck_run(position: Position, games: int, seed: int, kind: int, plies: int):
    """(per-game equity, per-game luck) of `games` games between two `kind` players."""
    equity = np.empty(games)
    luck = np.empty(games)
    board = np.ascontiguousarray(position.board, dtype=np.int8)
    _core.run_games(board, games, kind, kind, seed, False, True, net=default_net(),
                    per_game_equity=equity, vr_moments=np.zeros(12), per_game_luck=luck,
                    truncate_plies=plies)
    return equity, luck


@pytest.mark.slow
def test_luck_is_zero_on_average_on_12_varied_positions():
    """The summed luck of every game, pooled over 12 positions: its mean is 0 within 3 SEs."""
    lucks = [luck_run(p, 300, 100 + i, player_id("neural"), 12)[1]
             for i, p in enumerate(varied_positions(12))]
    pooled = np.concatenate(lucks)
    se = pooled.std(ddof=1) / math.sqrt(pooled.size)
    assert pooled.std() > 0.05          # real luck was measured
    assert abs(pooled.mean()) < 3 * se


@pytest.mark.slow
def test_vr_and_plain_rollouts_agree_on_12_positions():
    """Each position's two estimates within 4 combined SEs (24 comparisons: at 3 SEs one of
    them would fail by chance for about one net in sixteen), and no bias shared by the
    positions: the mean of their signed equity z-scores within 3 of its SE."""
    z = []
    for i, p in enumerate(varied_positions(12, seed=5)):
        r = rollout(p, 400, players="neural", seed=i, jobs=1, truncate_plies=12)
        assert r.vr is not None
        # Gammon rates of a few hundred games are too rare here for a plug-in SE to hold.
        for k in ("win", "equity"):
            combined = math.hypot(r.se[k], r.vr["se"][k])
            if combined > 0:
                assert abs(getattr(r, k) - r.vr[k]) < 4 * combined, (p.position_id(), k)
        z.append((r.equity - r.vr["equity"]) / math.hypot(r.se["equity"], r.vr["se"]["equity"]))
    assert abs(np.mean(z)) < 3 / math.sqrt(len(z))
    # The smaller SE: variance reduction must pay on these positions.
    assert np.mean(np.abs(z)) < 1.0


@pytest.mark.slow
def test_vr_at_1_ply_reuses_the_look_ahead_and_stays_unbiased():
    """1-ply players hand their look at the opponent's rolls to the luck of his next roll;
    the luck is still 0 on average, and the SE shrinks as at 0 ply."""
    lucks, plain, adjusted = [], [], []
    for i, p in enumerate(varied_positions(4, seed=7)):
        equity, luck = luck_run(p, 60, 200 + i, player_id("neural-1ply"), 8)
        lucks.append(luck)
        plain.append(equity.var())
        adjusted.append((equity - luck).var())
    pooled = np.concatenate(lucks)
    assert abs(pooled.mean()) < 3 * pooled.std(ddof=1) / math.sqrt(pooled.size)
    assert sum(adjusted) < 0.5 * sum(plain)


@pytest.mark.slow
def test_repeated_vr_rollouts_scatter_as_their_ses_say():
    position = varied_positions(1, seed=11)[0]
    values, ses = [], []
    for seed in range(30):
        r = rollout(position, 120, players="neural", seed=seed, jobs=1, stratify=False,
                    truncate_plies=10)
        values.append(r.vr["equity"])
        ses.append(r.vr["se"]["equity"])
    ratio = np.var(values, ddof=1) / np.mean(np.square(ses))
    # 29 degrees of freedom: the ratio lies in [0.45, 1.85] with probability about 0.998.
    assert 0.45 < ratio < 1.85


def test_vr_is_on_by_default_for_the_neural_players_only():
    assert make_request("start", 10, players="neural").vr
    assert not make_request("start", 10, players="pubeval").vr
    assert not make_request("start", 10, players="neural", vr=False).vr
    assert not make_request("cNvmAAC2rUIAAA:cAkAAAAAAAAA", 10, players="neural", cubeful=True).vr


def test_vr_report_names_the_luck_adjusted_figures():
    r = rollout("start", 40, players="neural", seed=1, jobs=1, truncate_plies=6)
    doc = json.loads(r.to_json())
    assert set(doc["vr"]) == {"win", "win_gammon", "win_backgammon", "lose_gammon",
                              "lose_backgammon", "equity", "se"}
    assert doc["vr"]["se"]["equity"] > 0
    assert "Luck-adjusted" in str(r)
    plain = rollout("start", 40, players="pubeval", seed=1, jobs=1)
    assert plain.vr is None and "vr" not in plain.to_dict()


def test_same_seed_gives_the_same_luck_adjusted_numbers():
    a = rollout("start", 30, players="neural", seed=4, jobs=1, truncate_plies=8)
    b = rollout("start", 30, players="neural", seed=4, jobs=1, truncate_plies=8)
    assert a.vr == b.vr


def test_chunk_results_with_luck_sums_round_trip():
    plain = 10 + 12
    for extra in (0, 10, 12, 22):
        values = [4, 1, 1, 0, 1, 1, 0, 200, 10000, 0] + [0.5] * (plain - 10 + extra)
        r = ChunkResult.from_list(0, values)
        assert r.to_list() == values
        assert (r.vr is not None) == (extra in (12, 22))
        assert (r.cube is not None) == (extra in (10, 22))
    with pytest.raises(ValueError):
        ChunkResult.from_list(0, [4, 1, 1, 0, 1, 1, 0, 200, 10000, 0] + [0.5] * 13)


def test_checkpoint_from_before_vr_resumes_without_vr():
    """A checkpoint written before these settings has no 'vr', 'truncate_plies' or
    'move_filter': it must be read back as the rollout it was (plain, played out)."""
    req = make_request("start", 100, players="neural", seed=1, vr=False)
    doc = {"request": req.to_dict()}
    assert "vr" not in doc["request"] and "move_filter" not in doc["request"]
    again = request_from_checkpoint(doc)
    assert again.identity() == req.identity()
    assert not again.vr and again.truncate_plies == 0 and again.move_filter == DEFAULT_MOVE_FILTER


def test_ply_maps_the_neural_players_per_side():
    assert make_request("start", 10, players="neural", ply=1).players == ("neural-1ply", "neural-1ply")
    assert make_request("start", 10, players="neural", ply=(1, 0)).players == ("neural-1ply", "neural")
    assert make_request("start", 10, players="neural-1ply", ply=0).players == ("neural", "neural")
    assert make_request("start", 10, players="pubeval,neural", ply=(0, 1)).players == (
        "pubeval", "neural-1ply")
    for bad in (2, -1, (1, 1, 1), True):
        with pytest.raises(ValueError, match="ply"):
            make_request("start", 10, players="neural", ply=bad)
    with pytest.raises(ValueError, match="pubeval"):
        make_request("start", 10, players="pubeval", ply=1)


def test_move_filter_is_checked_and_kept_in_the_identity_only_when_changed():
    assert "move_filter" not in make_request("start", 10, players="neural").identity()
    req = make_request("start", 10, players="neural-1ply", move_filter=(3, 0.08))
    assert req.identity()["move_filter"] == [3, 0.08]
    for bad in ((0, 0.1), (17, 0.1), (5, -0.1), (5, float("nan")), 5, "x"):
        with pytest.raises(ValueError, match="filter"):
            make_request("start", 10, players="neural-1ply", move_filter=bad)


def test_a_one_candidate_filter_makes_the_1ply_player_play_as_0ply():
    """With one candidate nothing is looked at deeper: the 1-ply player's play is the
    0-ply player's, on every roll of a few positions."""
    net = default_net()
    for p in varied_positions(5, seed=13):
        board = np.ascontiguousarray(p.board, dtype=np.int8)
        for d1, d2 in ((3, 1), (6, 5), (4, 4), (2, 1)):
            zero = _core.choose(board, d1, d2, player_id("neural"), 0, net=net)
            one = _core.choose(board, d1, d2, player_id("neural-1ply"), 0, net=net,
                               filter_candidates=1)
            assert np.array_equal(zero, one)


def test_truncate_plies_counts_the_nets_estimate_where_it_stops():
    """Cut after 1 ply from a position with dice given: every game plays that roll, then
    counts the net's probabilities of the position reached, seen by the first player."""
    p = Position.from_id("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    r = rollout(p, 20, players="neural", seed=1, jobs=1, truncate_plies=1, vr=False)
    after = Position.from_id(tf.choose(p.position_id(), 3, 1, "neural")).sides_switched()
    q = default_net().evaluate(np.ascontiguousarray(after.board, dtype=np.int8))
    # The opponent is on roll there: his win is our loss, his gammons our lost gammons.
    assert r.truncated == 20 and r.mean_plies == 1
    assert r.win == pytest.approx(1 - q[0], abs=1e-12)
    assert r.lose_gammon == pytest.approx(q[1], abs=1e-12)
    assert r.se["equity"] == pytest.approx(0, abs=1e-9)
    assert any("biased" in n for n in r.notes)


def test_truncate_plies_is_refused_with_the_cube_and_checked():
    with pytest.raises(ValueError, match="cubeful"):
        make_request("cNvmAAC2rUIAAA:cAkAAAAAAAAA", 10, players="neural", cubeful=True,
                     truncate_plies=10)
    with pytest.raises(ValueError):
        make_request("start", 10, players="neural", truncate_plies=-3)


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["backgammon", "portes"])
@pytest.mark.parametrize("player", ["neural", "neural-1ply"])
def test_vr_from_the_starting_position_is_unbiased(player, rules):
    """R5: the opening roll is never a double, so its luck is measured against the 30
    non-double rolls; against all 36 the luck-adjusted equity came out near the net's
    before-the-roll value (+0.08 instead of +0.04).  Under the Portes rules the first
    roll may be a double, and the 36 rolls are right.  Truncated after 4 plies (the
    opening roll is the one that matters), the plain and the adjusted estimates of the
    same games must agree."""
    r = rollout("start", 1296, players=player, seed=11, jobs=1, rules=rules, vr=True,
                truncate_plies=4)
    combined = math.hypot(r.se["equity"], r.vr["se"]["equity"])
    assert abs(r.equity - r.vr["equity"]) < 4 * combined, (r.equity, r.vr["equity"], combined)
