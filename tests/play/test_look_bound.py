"""The 1-ply player's bounded looks (issue 54, ``nn_1ply_equity_above``): a candidate after
the first is valued only as far as needed to show it cannot beat the best so far. The
choice, the games and the luck tables must be exactly those of the full looks, which
``_core.set_look_bound(False)`` restores; compared here game by game and bit for bit,
under the settings that change which replies a look values (the pre-filter's keep and
margin, a margin wide enough to hold more replies than the look keeps aside, the move
filter's width, the int16 evaluator), and play by play on benchmark positions."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.play import neural
from tavli_fast.play.players import player_id

POSITIONS = Path(__file__).resolve().parents[3] / "shared" / "data" / "positions"
ONE_PLY = player_id("neural-1ply")


@pytest.fixture
def bound_switch():
    """set_look_bound(flag) for the test, the default restored after it."""
    previous = _core.set_look_bound(True)
    yield _core.set_look_bound
    _core.set_look_bound(previous)


@pytest.fixture(scope="module")
def net() -> _core.NeuralNet:
    return neural.default_net(bearoff=False)


def contact_boards(n: int) -> list[np.ndarray]:
    ids = (POSITIONS / "contact.csv").read_text().split()[:n]
    return [Position.from_id(i).board for i in ids]


def games(net, board, n: int, vr: bool, **kwargs) -> tuple:
    """Everything a run of 1-ply self-play reports, per game included."""
    per_game = np.zeros(n)
    extra = dict(per_game_equity=per_game)
    if vr:
        extra.update(vr_moments=np.zeros(12), per_game_luck=np.zeros(n))
    counts, moments = _core.run_games(board, n, ONE_PLY, ONE_PLY, 7, True, True, net=net,
                                      **extra, **kwargs)
    return (counts.tolist(), moments.tobytes(), per_game.tobytes(),
            extra["per_game_luck"].tobytes() if vr else None)


@pytest.mark.parametrize("vr", [False, True], ids=["plain", "vr"])
@pytest.mark.parametrize("settings", [
    {},                                                     # the defaults: keep 8 by the pruning net
    {"reply_filter": (0, 0.0)},                             # every reply
    {"reply_filter": (2, 0.0, "slope")},
    {"reply_filter": (16, 5.0)},                            # keeps all: more than the look holds aside
    {"filter_candidates": 16, "filter_window": 1.0},        # many later candidates
], ids=["default", "exact", "slope-2", "wide-margin", "wide-move-filter"])
def test_bounded_looks_play_the_same_games(net, bound_switch, vr, settings):
    board = np.ascontiguousarray(contact_boards(1)[0])
    n = 6 if settings.get("reply_filter", (8,))[0] in (0, 16) else 12
    bound_switch(True)
    bounded = games(net, board, n, vr, **settings)
    bound_switch(False)
    full = games(net, board, n, vr, **settings)
    assert bounded == full
    assert bounded[0][:6] != [0] * 6          # games were played to the end


def test_bounded_looks_with_the_int16_evaluator(bound_switch):
    quantised = neural.default_net(bearoff=False).as_quantised()
    start = np.ascontiguousarray(Position.initial().board)
    bound_switch(True)
    bounded = games(quantised, start, 10, True)
    bound_switch(False)
    assert bounded == games(quantised, start, 10, True)


def test_bounded_looks_choose_the_same_plays(net, bound_switch):
    rng = np.random.default_rng(54)
    boards = contact_boards(120)
    chosen = {}
    for flag in (True, False):
        bound_switch(flag)
        chosen[flag] = [
            _core.choose(b, int(d[0]), int(d[1]), ONE_PLY, 0, None, True, net,
                         filter_candidates=8, filter_window=0.3).tobytes()
            for b, d in zip(boards, rng.integers(1, 7, (len(boards), 2)))]
        rng = np.random.default_rng(54)
    assert chosen[True] == chosen[False]
    # Not a vacuous comparison: the plays differ between positions.
    assert len(set(chosen[True])) > 100


def test_the_switch_reports_the_setting_before(bound_switch):
    assert bound_switch(False) is True
    assert bound_switch(True) is False
