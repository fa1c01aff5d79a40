"""Variance reduction does not move the expectation, shown statistically: the luck of a roll
is the net's value of the best play for the rolled dice less its mean over the rolls (the 30
non-doubles for the R5 opening roll), so its expectation is 0 whatever the position. On
varied positions the luck-adjusted and the plain figures agree and the summed luck is 0
within its SE; repeated luck-adjusted rollouts scatter as their SEs say. Games are cut after
a few plies (``truncate_plies``) to keep the tests short; the luck of the rolls played is
unbiased all the same. (The slowest of the VR tests, apart from ``test_vr.py`` so that the
two files run on different workers.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers import luck_run, varied_positions
from tavli_fast.api import rollout
from tavli_fast.play.players import player_id


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
def test_vr_and_plain_rollouts_agree_on_8_positions():
    """Each position's two estimates within 4 combined SEs (16 comparisons: at 3 SEs one of
    them would fail by chance for about one net in twenty), and no bias shared by the
    positions: the mean of their signed equity z-scores within 3 of its SE (the summed luck
    itself, with its own SE, is checked on 12 more positions above)."""
    z = []
    for i, p in enumerate(varied_positions(8, seed=5)):
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


@pytest.mark.slow
@pytest.mark.parametrize("rules", ["backgammon", "portes"])
@pytest.mark.parametrize("player", ["neural", "neural-1ply"])
def test_vr_from_the_starting_position_is_unbiased(player, rules):
    """R5: the opening roll is never a double, so its luck is measured against the 30
    non-double rolls; against all 36 the luck-adjusted equity came out near the net's
    before-the-roll value (+0.08 instead of +0.04).  Under the Portes rules the first
    roll may be a double, and the 36 rolls are right.  Truncated after the opening roll
    and the reply (the opening roll is the one that matters; at 1 ply the reply's luck
    comes from the look-ahead), the plain and the adjusted estimates of the same games
    must agree: four combined SEs are about 0.015 here, well under that bias."""
    r = rollout("start", 1296, players=player, seed=11, jobs=1, rules=rules, vr=True,
                truncate_plies=2)
    combined = math.hypot(r.se["equity"], r.vr["se"]["equity"])
    assert abs(r.equity - r.vr["equity"]) < 4 * combined, (r.equity, r.vr["equity"], combined)
