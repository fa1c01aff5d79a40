"""The two move-selection evaluations of the core: pubeval and greedy.

Both score a position AFTER a move, for the side that has just moved: row 0 of
the board, sides not switched (row 1 = the opponent, who rolls next).

pubeval is checked against GNU Backgammon's copy (gnubg_nn, test-only oracle).
gnubg_nn.pub_eval_score(gnubg_board) scores gnubg_board[0], the side NOT on
roll: after a move gnubg swaps sides, so the side that just moved sits in
board[0].  Our after-move board therefore maps to the gnubg board
[ours[0][1:26], ours[1][1:26]] (entries 0..23 = points 1..24, 24 = bar, each
side in its own numbering).  gnubg_nn.moves returns the after-move keys
unswapped (mover in row 1); reversing the two rows gives that layout.  The
weight set is chosen like gnubg_nn.pub_eval_score does: race weights iff the
scored board has no contact; gnubg_nn.pub_best_move instead classifies the
position BEFORE the move (Tesauro's own instruction), hence the race=
argument.
"""
import random

import numpy as np
import pytest

from tavli_fast import _core

START = "x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5"


def board(text):
    """int8 (2, 26) board from 'x 24:2 13:5 bar:1; o 6:5 ...'.

    x = row 0 (the side that has just moved), o = row 1, each in its own
    numbering (bar = 25); checkers not listed are borne off.
    """
    b = np.zeros((2, 26), dtype=np.int8)
    rows = text.split(";")
    assert len(rows) == 2
    for row, part in enumerate(rows):
        tokens = part.split()
        assert tokens[0] == "xo"[row]
        for tok in tokens[1:]:
            point, count = tok.split(":")
            b[row, 25 if point == "bar" else int(point)] += int(count)
        b[row, 0] = 15 - b[row, 1:].sum()
        assert b[row, 0] >= 0
    return b


# --------------------------------------------------------------- pubeval

# Tesauro's published race weights for my 1-point (input group 23) and for
# checkers off, written out here by hand from pubeval.c.
RACE_ONE_CHECKER_ON_ACE = -2.77982
RACE_OFF = 3.42040


def test_pubeval_race_position_by_hand():
    # 14 of mine off, one on my 1-point; the opponent stacks his 6-point.
    # No contact -> race weights: w[5*23 + 1] (one checker on my 1-point)
    # + w[121] * 14 / 15 (checkers off); the opponent has no blot, no bar.
    b = board("x 1:1; o 6:15")
    expected = RACE_ONE_CHECKER_ON_ACE + RACE_OFF * 14 / 15
    assert _core.pubeval_score(b) == pytest.approx(expected, abs=1e-9)


def test_pubeval_all_checkers_off_is_the_best_score():
    won = board("x ; o 6:15")
    almost = board("x 1:1; o 6:15")
    assert _core.pubeval_score(won) == 1e8
    assert _core.pubeval_score(won) > _core.pubeval_score(almost)


def test_pubeval_race_flag_selects_the_weight_set():
    b = board(START)  # contact: auto -> contact weights
    assert _core.pubeval_score(b) == _core.pubeval_score(b, race=False)
    assert _core.pubeval_score(b) != pytest.approx(_core.pubeval_score(b, race=True))


def test_pubeval_rejects_bad_boards():
    with pytest.raises(ValueError):
        _core.pubeval_score(np.zeros((2, 25), dtype=np.int8))
    bad = board(START)
    bad[0, 6] = -1
    with pytest.raises(ValueError):
        _core.pubeval_score(bad)
    bad = board(START)
    bad[1, 6] += 1  # 16 checkers
    with pytest.raises(ValueError):
        _core.pubeval_score(bad)


def _gnubg():
    return pytest.importorskip("gnubg_nn")


def _ours(gnubg_mover_first):
    """Our after-move board from a gnubg board whose row 0 is the mover."""
    b = np.zeros((2, 26), dtype=np.int8)
    b[:, 1:] = np.array(gnubg_mover_first, dtype=np.int8)
    b[:, 0] = 15 - b[:, 1:].sum(axis=1)
    return b


def _has_contact(b):
    backs = []
    for row in (0, 1):
        nonzero = np.nonzero(b[row, 1:])[0]
        if len(nonzero) == 0:
            return False
        backs.append(nonzero[-1] + 1)
    return backs[0] + backs[1] > 24


def _random_games(g, seed, n_games):
    """Yield (gnubg on-roll board, dice, after-move boards with the mover in row 0)."""
    rng = random.Random(seed)
    start = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    for _ in range(n_games):
        b = [list(start), list(start)]
        while True:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            keys = g.moves(b, d1, d2)
            afters = [[list(r) for r in g.board_from_position_key(k)][::-1] for k in keys]
            yield b, (d1, d2), afters
            if not afters:  # no legal play: the opponent rolls
                b = [b[1], b[0]]
                continue
            b = rng.choice(afters)  # mover in row 0 == next on-roll gnubg board
            if sum(b[0]) == 0:
                break


@pytest.mark.oracle
def test_pubeval_matches_gnubg_pub_eval_score_on_random_positions():
    g = _gnubg()
    rng = random.Random(2024)
    gnubg_boards, ours = [], []
    for _, _, afters in _random_games(g, seed=1, n_games=60):
        for a in rng.sample(afters, min(3, len(afters))):
            gnubg_boards.append(a)
            ours.append(_ours(a))
    # The sample covers what it should.
    assert len(ours) >= 2000
    assert sum(not _has_contact(b) for b in ours) >= 100                 # races
    assert sum(_has_contact(b) for b in ours) >= 1000                    # contact
    assert sum(b[0, 25] > 0 for b in ours) >= 50                         # mover on bar
    assert sum(b[1, 25] > 0 for b in ours) >= 200                        # hit checkers
    assert sum(b[0, 0] > 0 for b in ours) >= 50                          # borne off
    assert sum(b[0, 1:7].sum() + b[0, 0] == 15 for b in ours) >= 50      # bear-off
    assert sum(b[0, 0] == 15 for b in ours) >= 10                        # game won
    worst = 0.0
    for a, b in zip(gnubg_boards, ours):
        expected = g.pub_eval_score(a)
        got = _core.pubeval_score(b)
        assert got == pytest.approx(expected, abs=1e-4), (a, got, expected)
        worst = max(worst, abs(got - expected))
    assert worst < 1e-4


def _apply_gnubg_move(b, move):
    """gnubg on-roll board [[opp], [me]] + pub_best_move's 0-based (from, to)
    pairs (24 = bar, -1 = off) -> the after-move board with the mover first."""
    me, opp = list(b[1]), list(b[0])
    for i in range(0, len(move), 2):
        src, dst = move[i], move[i + 1]
        me[src] -= 1
        if dst >= 0:
            me[dst] += 1
            if opp[23 - dst] == 1:  # hit
                opp[23 - dst] = 0
                opp[24] += 1
    return [me, opp]


@pytest.mark.oracle
def test_pubeval_best_play_matches_gnubg_pub_best_move():
    g = _gnubg()
    compared = 0
    for b, dice, afters in _random_games(g, seed=2, n_games=40):
        if len(afters) < 2:
            continue
        expected = _apply_gnubg_move(b, g.pub_best_move(b, *dice))
        assert expected in afters
        # gnubg classifies race / contact on the position before the move.
        before = _ours([b[1], b[0]])
        race = not _has_contact(before)
        scores = [_core.pubeval_score(_ours(a), race=race) for a in afters]
        assert afters[int(np.argmax(scores))] == expected, (b, dice)
        compared += 1
    assert compared >= 1500


# --------------------------------------------------------------- greedy


def test_greedy_shot_table_counts_the_classic_numbers():
    # Rolls that hit a blot n pips away (no blocks): 11 12 14 15 15 17 6 6 5 3 2 3.
    expected = {1: 11, 2: 12, 3: 14, 4: 15, 5: 15, 6: 17,
                7: 6, 8: 6, 9: 5, 10: 3, 11: 2, 12: 3}
    for distance, shots in expected.items():
        assert _core._greedy_shots([distance]) == shots
    # Two checkers 1 and 2 away: any 1 or 2, plus 1-1 (4 steps reach 2 too): 20.
    assert _core._greedy_shots([1, 2]) == 20
    assert _core._greedy_shots([]) == 0


def test_greedy_race_prefers_bearing_off_to_the_same_pips_inside():
    # Race, all home, roll 2: 2/off versus 6/4 (both use 2 pips).
    before = "x 6:3 5:3 4:3 3:3 2:3; o 19:15"
    off = board("x 6:3 5:3 4:3 3:3 2:2; o 19:15")      # 2/off
    inside = board("x 6:2 5:3 4:4 3:3 2:3; o 19:15")   # 6/4
    assert board(before)[0, 0] == 0
    assert off[0, 0] == 1 and inside[0, 0] == 0
    assert _core.greedy_score(off) > _core.greedy_score(inside)


def test_greedy_race_extra_checker_off_scores_higher():
    fewer = board("x 3:2 2:2 1:2; o 20:15")
    more = board("x 3:2 2:2 1:1; o 20:15")
    assert _core.greedy_score(more) > _core.greedy_score(fewer)


def test_greedy_all_checkers_off_beats_everything():
    won = board("x ; o 1:15")
    assert _core.greedy_score(won) > _core.greedy_score(board("x 1:1; o 1:15"))
    assert _core.greedy_score(won) > _core.greedy_score(board("x 1:1; o bar:14 1:1"))


def test_greedy_a_hit_scores_higher_than_the_same_play_without_it():
    # I played 8/5 6/5; in one world his blot was on my 5-point (his 20) and is
    # now on the bar, in the other that checker was still on his 24-point.
    hit = board("x 24:2 13:5 8:2 6:4 5:2; o bar:1 24:1 13:5 8:3 6:5")
    no_hit = board("x 24:2 13:5 8:2 6:4 5:2; o 24:2 13:5 8:3 6:5")
    assert _core.greedy_score(hit) > _core.greedy_score(no_hit)


def test_greedy_hits_and_makes_the_five_point_with_three_one():
    # His blot on my 5-point (he split 24/20); my 3-1: 8/5* 6/5 is the play.
    before = board("x 24:2 13:5 8:3 6:5; o 24:1 20:1 13:5 8:3 6:5")
    plays = _core.generate(before, 3, 1)
    best = plays[int(np.argmax([_core.greedy_score(p) for p in plays]))]
    assert best[1, 25] == 1                    # he is on the bar
    assert best[0, 5] == 2 and best[0, 8] == 2 and best[0, 6] == 4


def test_greedy_blots_in_direct_range_score_lower_than_the_same_checkers_safe():
    # Same pips (10 + 8 = 9 + 9): two blots on 10 and 8 within 6 pips of his
    # back checker on my 4-point (his 21) versus the same checkers as my 9-point.
    exposed = board("x 24:2 13:4 10:1 8:1 6:5 5:2; o 21:1 24:1 13:5 8:3 6:5")
    safe = board("x 24:2 13:4 9:2 6:5 5:2; o 21:1 24:1 13:5 8:3 6:5")
    pips = np.arange(26)
    assert exposed[0].dot(pips) == safe[0].dot(pips)
    shot_at = _core.greedy_score(safe) - _core.greedy_score(exposed)
    assert shot_at > 0
    # Control: his two back checkers already past my blots (on my 11- and
    # 12-points, his 14 and 13): no shots, so the only gain of `safe` left is
    # the made 9-point; the shots themselves must have cost something more.
    exposed_ctl = board("x 24:2 13:4 10:1 8:1 6:5 5:2; o 14:1 13:6 8:3 6:5")
    safe_ctl = board("x 24:2 13:4 9:2 6:5 5:2; o 14:1 13:6 8:3 6:5")
    not_shot_at = _core.greedy_score(safe_ctl) - _core.greedy_score(exposed_ctl)
    assert shot_at > not_shot_at + 2.0


def test_greedy_beats_random_play_clearly():
    # 400 whole games in the core (greedy = player kind 2, random = 0), each
    # side starting half of them; greedy wins ~99% (measured over thousands).
    start = board(START)
    first, _ = _core.run_games(start, 200, 2, 0, 7, True, True)
    second, _ = _core.run_games(start, 200, 0, 2, 8, True, True)
    greedy_wins = first[0:3].sum() + second[3:6].sum()
    assert first[0:6].sum() == 200 and second[0:6].sum() == 200
    assert greedy_wins >= 0.9 * 400
