"""The replies' pre-filter (issue 54, ``_nn_prefilter.pxi``): its first-order estimate
against the slope of the net's equity computed here in float64 from the net's own weights,
the roll tables it builds against a plain Python search over the public evaluations, the
1-ply player with it against a plain Python 1-ply search, the luck it measures (unbiased
however few plays it keeps), and the checks of its settings."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.play import neural
from tavli_fast.play.players import player_id
from helpers import pos

ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]
POSITIONS = Path(__file__).resolve().parents[3] / "shared" / "data" / "positions"
CONTACT = pos("x 20:1 13:4 8:3 7:2 6:4 4:1; o 24:1 22:2 16:2 13:3 8:2 6:3 3:2").board
OPENING = Position.initial().board


def sample_positions(n: int) -> list[np.ndarray]:
    """The first n benchmark contact positions, and two of our own."""
    ids = (POSITIONS / "contact.csv").read_text().split()[:n]
    return [Position.from_id(i).board for i in ids] + [CONTACT, OPENING]


@pytest.fixture(scope="module")
def net() -> _core.NeuralNet:
    return neural.default_net(bearoff=False)


def equity(p) -> float:
    return 2 * p[0] - 1 + p[1] - p[3] + p[2] - p[4]


def turned(board: np.ndarray) -> np.ndarray:
    """The board with the other side on roll."""
    return np.ascontiguousarray(board[::-1])


# ------------------------------------------------------------------ the estimate


def slope(net, board: np.ndarray) -> np.ndarray:
    """d(the mover's money equity)/d(raw input), float64, at the position the mover's plays
    start from: the opponent on roll of `board` turned, by the chain rule through the raw
    sigmoid outputs (the estimate ignores the clamps that make them consistent) of the net
    of its class (the race net where no contact is left)."""
    if net.race is not None and _core.races(turned(board)[None])[0]:
        net = net.race
    w1, b1, w2, b2 = net.arrays()
    x = _core.neural_inputs(turned(board), inputs=net.n_inputs)
    sig = lambda z: 1.0 / (1.0 + np.exp(-z))  # noqa: E731
    a = sig(x @ w1 + b1)
    q = sig(w2 @ a + b2)
    # The mover's equity in the opponent's probabilities: 1 - 2 q_win - q_wg - q_wbg + q_lg + q_lbg.
    de_dq = np.array([-2.0, -1.0, -1.0, 1.0, 1.0]) * q * (1 - q)
    de_dh = (w2.T @ de_dq) * a * (1 - a)
    return (w1 @ de_dh)[:_core.NEURAL_BASE_INPUTS]


def first_order(net, board: np.ndarray, plays: np.ndarray) -> list[float]:
    """The slope at `board` (numpy) times each play's change of the raw inputs."""
    g = slope(net, board)
    x0 = _core.neural_inputs(turned(board), features=False)
    return [float(g @ (_core.neural_inputs(turned(play), features=False) - x0))
            for play in plays]


def test_the_estimate_is_the_slope_of_the_nets_equity_along_each_plays_raw_inputs(net):
    checked = 0
    assert net.race is not None     # the race positions among them check the race net's
    for board in sample_positions(6):
        for d1, d2 in ((3, 1), (6, 6), (5, 2)):
            plays = _core.generate(board, d1, d2)
            got = net.play_estimates(board, plays)
            for value, want in zip(got, first_order(net, board, plays)):
                if not math.isfinite(value):
                    continue
                assert value == pytest.approx(want, rel=2e-3, abs=2e-5)
                checked += 1
    assert checked > 100


def test_the_estimate_ranks_plays_much_like_the_net(net):
    """Not a proof of strength (bench/prefilter_strength.py measures that), but a broken
    slope (a wrong sign, the wrong side) ranks no better than chance."""
    hits = total = 0
    for board in sample_positions(10):
        for d1, d2 in ROLLS:
            plays = _core.generate(board, d1, d2)
            if len(plays) < 6:
                continue
            est = net.play_estimates(board, plays)
            eq = net.play_equities(board, plays)
            hits += int(np.argmax(eq) in np.argsort(-est)[:3])
            total += 1
    assert total > 50 and hits / total > 0.6


def test_a_won_game_is_always_kept(net):
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 0], board[0, 1] = 14, 1           # one checker left, on my 1 point
    board[1, 0], board[1, 23], board[1, 13] = 8, 2, 5
    plays = _core.generate(board, 2, 1)
    assert np.isinf(net.play_estimates(board, plays)).all()


# ------------------------------------------------------------------ roll tables


def python_replies(net, board: np.ndarray, keep: int, margin: float = 0.0,
                   estimator: str = "slope"):
    """For each roll of `board`'s side on roll: its plays, their equities by the players'
    incremental 0-ply values, and which of them the pre-filter keeps by plain Python: those
    whose estimates (by `estimator`) are the best `keep` or within `margin` of the keep-th
    (all when keep is 0 or covers them)."""
    out = []
    for d1, d2 in ROLLS:
        plays = _core.generate(board, d1, d2)
        kept = np.ones(len(plays), dtype=bool)
        if 0 < keep < len(plays):
            est = net.play_estimates(board, plays, estimator=estimator).astype(np.float32)
            kept = est >= np.sort(est)[::-1][keep - 1] - np.float32(margin)
        out.append((plays, net.play_equities(board, plays), kept))
    return out


def python_table(net, board: np.ndarray, keep: int, margin: float,
                 estimator: str = "slope") -> list[float]:
    """Each roll's table equity by plain Python: the best of the plays the pre-filter
    keeps."""
    return [float(values[kept].max())
            for _, values, kept in python_replies(net, board, keep, margin, estimator)]


@pytest.mark.parametrize("estimator", ["slope", "prune"])
@pytest.mark.parametrize("setting", [(0, 0.0), (1, 0.0), (3, 0.0), (4, 0.05), (8, 0.0)])
def test_a_roll_table_holds_the_best_of_the_plays_the_pre_filter_keeps(net, setting, estimator):
    for board in sample_positions(4):
        table = net.roll_table(board, setting + (estimator,))
        got = [equity(row) for row in table]
        assert got == pytest.approx(python_table(net, board, *setting, estimator), abs=1e-12)


def boards_of_rolls(board: np.ndarray, rolls) -> list[set[bytes]]:
    return [{p.tobytes() for p in _core.generate(board, a, b)} for a, b in rolls]


@pytest.mark.parametrize("setting", [(0, 0.0), (8, 0.0, "prune")])
def test_a_board_several_rolls_reach_keeps_each_rolls_numbers(net, setting):
    """A roll table values a board once when several rolls reach it (its memo): from the
    start, 13/6 is a play of 6-1, 5-2 and 4-3 alike; each row is still the best of its own
    roll's plays by the players' values."""
    shared = set.intersection(*boards_of_rolls(OPENING, [(6, 1), (5, 2), (4, 3)]))
    assert len(shared) >= 1
    got = [equity(row) for row in net.roll_table(OPENING, setting)]
    assert got == pytest.approx(python_table(net, OPENING, *setting[:2], "prune"), abs=1e-12)


def test_a_table_of_more_plays_than_its_memo_holds_is_exact(net):
    """Fifteen lone checkers give 6,000 distinct plays over the 21 rolls, more than the
    memo keeps (1,024): the plays beyond it are evaluated as ever."""
    board = np.zeros((2, 26), dtype=np.int8)
    board[0, 10:25] = 1
    board[1, 6], board[1, 8], board[1, 13], board[1, 24] = 5, 3, 5, 2
    assert len(set.union(*boards_of_rolls(board, ROLLS))) > 1024
    got = [equity(row) for row in net.roll_table(board)]
    assert got == pytest.approx(python_table(net, board, 0, 0.0), abs=1e-12)


@pytest.mark.parametrize("estimator", ["slope", "prune"])
def test_keeping_every_play_is_the_exact_table(net, estimator):
    board = pos("x 20:1 7:2 4:1; o 22:1 15:1 6:2").board
    most = max(len(_core.generate(board, a, b)) for a, b in ROLLS)
    assert 1 < most <= _core.MAX_FILTER_CANDIDATES
    assert np.array_equal(net.roll_table(board, (most, 0.0, estimator)), net.roll_table(board))
    assert not np.array_equal(net.roll_table(board, (1, 0.0, estimator)), net.roll_table(board))


def test_a_tighter_filter_never_finds_a_better_reply(net):
    for board in sample_positions(4):
        exact = [equity(r) for r in net.roll_table(board)]
        for keep in (1, 2, 4):
            filtered = [equity(r) for r in net.roll_table(board, (keep, 0.0))]
            assert all(f <= e + 1e-12 for f, e in zip(filtered, exact))


# ------------------------------------------------------------------ the 1-ply player


def python_1ply_choice(net, board, d1, d2, keep, estimator, analogues=True):
    """The 1-ply player in plain Python: the 0-ply best five within 0.16 (the default move
    filter), each valued by the mean over the opponent's 36 rolls of his best reply of
    those the pre-filter keeps, and, for the candidates after the first with `analogues`,
    of the replies that leave his checkers where his best reply to the best candidate so
    far left them; the best of them (the first of equals, replies and candidates alike)."""
    plays = _core.generate(board, d1, d2)
    zero = net.play_equities(board, plays)
    order = sorted(range(len(plays)), key=lambda i: -zero[i])[:_core.FILTER_CANDIDATES]
    best, best_v, targets = order[0], -math.inf, None
    for i in order:
        if zero[i] < zero[order[0]] - _core.FILTER_WINDOW:
            break
        rows, own = [], []
        for r, (replies, values, kept) in enumerate(
                python_replies(net, turned(plays[i]), keep, 0.0, estimator)):
            allowed = kept.copy()
            if analogues and targets is not None:
                allowed |= (replies[:, 0] == targets[r]).all(axis=1)
            k = int(np.argmax(np.where(allowed, values, -np.inf)))
            rows.append(values[k])
            own.append(replies[k, 0])
        v = -sum(e * (1 if a == b else 2) for e, (a, b) in zip(rows, ROLLS)) / 36
        if v > best_v:
            best, best_v, targets = i, v, own
    return plays[best]


@pytest.mark.parametrize("keep, estimator", [(0, "slope"), (2, "slope"), (8, "slope"),
                                             (2, "prune"), (8, "prune")])
def test_the_1ply_player_with_the_pre_filter_follows_a_plain_python_search(net, keep, estimator):
    one = player_id("neural-1ply")
    for board, (d1, d2) in ((CONTACT, (4, 2)), (OPENING, (6, 1)), (CONTACT, (6, 5))):
        for analogues in (True, False):
            got = _core.choose(board, d1, d2, one, 0, None, True, net,
                               reply_filter=(keep, 0.0, estimator), reply_analogues=analogues)
            assert np.array_equal(got, python_1ply_choice(net, board, d1, d2, keep, estimator,
                                                          analogues))


def test_the_analogue_replies_change_choices_as_the_plain_python_search_does(net):
    """The analogues join a later candidate's replies where the pre-filter would not keep
    them: with the tightest filter (the slope keeping 1) they change the 1-ply player's
    choice in some positions (22 of these 202), and the engine follows the plain search
    both ways in each."""
    one = player_id("neural-1ply")
    rng = np.random.default_rng(54)
    changed = 0
    for board in sample_positions(200):
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        got = {a: _core.choose(board, d1, d2, one, 0, None, True, net,
                               reply_filter=(1, 0.0, "slope"), reply_analogues=a)
               for a in (True, False)}
        if not np.array_equal(got[True], got[False]):
            changed += 1
            for a in (True, False):
                assert np.array_equal(got[a], python_1ply_choice(net, board, d1, d2, 1, "slope",
                                                                 a))
    assert changed >= 5


@pytest.mark.parametrize("bad", [True, (True,), (True, True, True)])
def test_the_analogues_setting_is_a_pair(net, bad):
    with pytest.raises(ValueError, match="reply_analogues is a pair"):
        _core.run_games(OPENING, 1, player_id("neural-1ply"), player_id("neural-1ply"), 1,
                        True, True, net=net, reply_analogues=bad)


def test_without_a_pre_filter_the_analogues_change_nothing(net):
    """Every reply is valued then, the analogues among them: the same games bit for bit."""
    one = player_id("neural-1ply")
    board = np.ascontiguousarray(sample_positions(1)[0])
    runs = []
    for analogues in (True, False):
        per_game = np.zeros(8)
        counts, _ = _core.run_games(board, 8, one, one, 3, True, True, net=net,
                                    per_game_equity=per_game, reply_filter=(0, 0.0),
                                    reply_analogues=(analogues, analogues))
        runs.append((counts.tolist(), per_game.tobytes()))
    assert runs[0] == runs[1]


# ------------------------------------------------------------------ luck


def test_luck_by_pre_filtered_tables_is_unbiased():
    """The luck of a roll is its table row less the table's mean over the rolls, both from
    the same table: whichever plays the pre-filter keeps, the luck averages to zero.  With
    the crudest filter (one play a roll) the summed luck of 1,500 games from the start is 0
    within 3 SEs."""
    net = neural.default_net()
    games = 1500
    luck = np.zeros(games)
    _core.run_games(OPENING, games, player_id("neural"), player_id("neural"), 5, True, True,
                    net=net, bearoff=net.bearoff, vr_moments=np.zeros(12), per_game_luck=luck,
                    luck_filter=(1, 0.0))
    assert abs(luck.mean()) < 3 * luck.std(ddof=1) / math.sqrt(games)
    assert luck.std() > 0.1       # the luck was measured


def test_the_luck_filter_changes_the_adjusted_figures_but_not_the_games():
    net = neural.default_net()
    neural0 = player_id("neural")

    def run(setting):
        eq, luck = np.zeros(40), np.zeros(40)
        _core.run_games(OPENING, 40, neural0, neural0, 3, True, True, net=net,
                        bearoff=net.bearoff, vr_moments=np.zeros(12), per_game_equity=eq,
                        per_game_luck=luck, luck_filter=setting)
        return eq, luck

    eq0, luck0 = run((0, 0.0))
    eq1, luck1 = run((1, 0.0))
    assert np.array_equal(eq0, eq1)
    assert not np.array_equal(luck0, luck1)


@pytest.mark.parametrize("setting", [(0, 0.0), None])
def test_luck_adjustment_leaves_the_0ply_players_games_as_they_are(setting):
    """The 0-ply player takes the values of the plays its turn's luck table has already
    valued (from the same base: the same numbers), so luck-adjusted games are the very games
    played without it, with every play valued (keep 0) or the default pre-filter."""
    net = neural.default_net()
    neural0 = player_id("neural")
    start = np.ascontiguousarray(pos("x 24:2 13:4 8:3 6:5 5:1; o 24:2 13:5 8:3 6:4 4:1").board)

    def games(vr: bool) -> np.ndarray:
        eq = np.zeros(60)
        extra = dict(vr_moments=np.zeros(12), luck_filter=setting) if vr else {}
        _core.run_games(start, 60, neural0, neural0, 11, False, True, net=net,
                        bearoff=net.bearoff, per_game_equity=eq, **extra)
        return eq

    assert np.array_equal(games(True), games(False))


# ------------------------------------------------------------------ settings


@pytest.mark.parametrize("setting", [(-1, 0.0), (_core.MAX_FILTER_CANDIDATES + 1, 0.0),
                                     (2, -0.1), (2, math.inf), (2, math.nan), (True, 0.0),
                                     (2.5, 0.0), "2", (2,), (2, 0.0, 1), (2, 0.0, "net"),
                                     (2, 0.0, None), (-1, 0.0, "prune"), (2, 0.0, "prune", 1),
                                     2])
def test_bad_pre_filters_are_refused(net, setting):
    with pytest.raises(ValueError, match="reply_filter|luck_filter"):
        net.roll_table(OPENING, setting)
    with pytest.raises(ValueError, match="luck_filter"):
        _core.run_games(OPENING, 1, player_id("neural"), player_id("neural"), 1, True, True,
                        net=net, luck_filter=setting)
    with pytest.raises(ValueError, match="reply_filter"):   # one setting, or a pair of them
        _core.run_games(OPENING, 1, player_id("neural-1ply"), player_id("neural"), 1, True, True,
                        net=net, reply_filter=setting)
    with pytest.raises(ValueError, match="reply_filter"):
        _core.run_games(OPENING, 1, player_id("neural-1ply"), player_id("neural"), 1, True, True,
                        net=net, reply_filter=((8, 0.0), setting))
    with pytest.raises(ValueError, match="reply_filter"):
        _core.choose(OPENING, 3, 1, player_id("neural-1ply"), 0, None, True, net,
                     reply_filter=setting)


def test_the_defaults_are_stated():
    assert _core.REPLY_FILTER == (8, 0.0)
    assert _core.LUCK_FILTER == (8, 0.0)
    assert _core.REPLY_ESTIMATOR == "prune"
    assert _core.LUCK_ESTIMATOR == "prune"


@pytest.mark.parametrize("setting, message", [
    ((17, 0.0, "prune"), "reply_filter keeps 0 (every play) to 16 plays, not 17"),
    ((2, 0.0, "net"), "reply_filter's estimator is one of ['prune', 'slope'], not 'net'"),
    ((2, 0.0, "prune", 1), "reply_filter is (keep, margin) or (keep, margin, estimator)")])
def test_the_pre_filters_errors_say_what_is_wrong(net, setting, message):
    with pytest.raises(ValueError) as err:
        net.roll_table(OPENING, setting)
    assert str(err.value).startswith(message)


# ------------------------------------------------------------------ the pruning net


def forward_equity(prune: _core.NeuralNet, play: np.ndarray) -> float:
    """The mover's money equity after `play` (sides not switched) by a plain float64
    forward pass of the pruning net over the raw inputs of the position its opponent
    rolls from, the probabilities made consistent as the net's are."""
    w1, b1, w2, b2 = prune.arrays()
    x = _core.neural_inputs(turned(play), features=False)
    sig = lambda z: 1.0 / (1.0 + np.exp(-z))  # noqa: E731
    q = sig(w2 @ sig(x @ w1 + b1) + b2)
    q[1] = min(q[1], q[0])
    q[2] = min(q[2], q[1])
    q[3] = min(q[3], 1.0 - q[0])
    q[4] = min(q[4], q[3])
    return -equity(q)          # the opponent's equity, seen by the mover


def random_pruning_net(seed: int, hidden: int = 24) -> _core.NeuralNet:
    rng = np.random.default_rng(seed)
    return _core.NeuralNet(rng.normal(0, 0.3, (_core.NEURAL_BASE_INPUTS, hidden)),
                           rng.normal(0, 0.3, hidden), rng.normal(0, 0.3, (5, hidden)),
                           rng.normal(0, 0.3, 5))


def other_net_file(net, folder: Path) -> Path:
    """A weights file of the shipped net with one weight changed: another net."""
    w1, b1, w2, b2 = net.arrays()
    w1[0, 0] += 0.5
    path = folder / "other.npz"
    neural.save_net(path, _core.NeuralNet(w1, b1, w2, b2, race=net.race), "other")
    return path


def test_the_shipped_net_carries_its_pruning_net(net, tmp_path):
    assert net.prune is not None
    assert net.prune.n_inputs == _core.NEURAL_BASE_INPUTS and net.prune.hidden <= 128
    assert neural.default_net().prune is net.prune          # the databases keep it
    # The same net from any file has it too; another net has none.
    copy = tmp_path / "copy.npz"
    neural.save_net(copy, _core.NeuralNet(*net.arrays(), race=net.race), "copy")
    assert neural.load_net(copy)[0].prune is not None
    assert neural.load_net(other_net_file(net, tmp_path))[0].prune is None


@pytest.mark.parametrize("which", ["shipped", "random", "random wide"])
def test_the_pruning_nets_estimate_is_its_forward_pass(net, which):
    """The kernel (the base's hidden sums plus the estimate rows of each play's changed
    points, float32, a batch at a time) against a float64 forward pass of the same small
    net on each play's position.  "random wide" has 40 hidden units: a block of 32 and one
    of 16."""
    prune = {"shipped": net.prune, "random": random_pruning_net(3),
             "random wide": random_pruning_net(4, hidden=40)}[which]
    big = _core.NeuralNet(*net.arrays(), race=net.race, prune=prune)
    checked = 0
    for board in sample_positions(8):
        if _core.races(turned(board)[None])[0]:
            continue                    # the slope's (test_a_race_is_estimated_by_the_slope)
        for d1, d2 in ((3, 1), (6, 6), (5, 2), (4, 4)):
            plays = _core.generate(board, d1, d2)
            got = big.play_estimates(board, plays, estimator="prune")
            for play, value in zip(plays, got):
                if math.isfinite(value):
                    assert value == pytest.approx(forward_equity(prune, play), abs=2e-5)
                    checked += 1
    assert checked > 200


def test_a_batch_of_estimates_is_each_plays_own(net):
    """The pruning net estimates a roll's plays 32 at a time (tf_forward_batch); each gets
    the numbers it gets alone, bit for bit, across the batches' seams too."""
    checked = 0
    for board in sample_positions(8):
        for d1, d2 in ((1, 1), (2, 2), (6, 5)):
            plays = _core.generate(board, d1, d2)
            together = net.play_estimates(board, plays, estimator="prune")
            alone = [net.play_estimates(board, plays[i:i + 1], estimator="prune")[0]
                     for i in range(len(plays))]
            assert together.tolist() == alone
            checked += len(plays) > 32
    assert checked >= 2


@pytest.mark.parametrize("estimator", ["prune", "slope"])
def test_boards_the_point_tables_do_not_cover_are_estimated_by_the_raw_inputs(net, estimator):
    """The pruning net's estimate rows and the slope's point tables fold the pips and the
    borne-off checkers into each point's terms, which holds for real plays only.  Boards
    of any counts (play_estimates takes any array) still get the raw inputs' numbers: one
    point of 16 checkers, borne-off checkers that came from nowhere, a checker that
    vanished, each among real plays."""
    board = sample_positions(8)[3]
    plays = _core.generate(board, 3, 1)
    odd = plays[:3].copy()
    odd[0, 0, 6] = 16
    odd[1, 0, 0] += 1
    odd[2, 1, 13] -= 1 if odd[2, 1, 13] > 0 else -1
    mixed = np.ascontiguousarray(np.concatenate([plays, odd]))
    got = net.play_estimates(board, mixed, estimator=estimator)
    ranked = np.isfinite(got)
    assert ranked[-3:].all() and ranked.sum() > 10
    if estimator == "prune":
        want = [forward_equity(net.prune, play) for play in mixed[ranked]]
        assert got[ranked] == pytest.approx(want, abs=2e-5)
    else:
        want = first_order(net, board, mixed[ranked])
        assert got[ranked] == pytest.approx(want, rel=2e-3, abs=2e-5)


def test_a_pruning_net_trained_in_place_is_estimated_by_its_new_weights(net):
    """The estimate rows are built from the weights when the pruning net is attached; a
    change of its weights (training in place) must not leave them stale."""
    prune = random_pruning_net(5)
    big = _core.NeuralNet(*net.arrays(), race=net.race, prune=prune)
    board = sample_positions(8)[2]
    plays = _core.generate(board, 6, 4)
    before = big.play_estimates(board, plays, estimator="prune")
    prune.train(2, np.array([1, 2, 3, 4], dtype=np.uint64), 0.5)
    after = big.play_estimates(board, plays, estimator="prune")
    assert np.abs(after - before).max() > 1e-3
    assert after == pytest.approx([forward_equity(prune, play) for play in plays], abs=2e-5)


def test_the_pruning_net_ranks_plays_much_better_than_chance(net):
    """Its best play is the net's in most contact rolls (a net of random weights, or one
    read from the wrong side, is right in few)."""
    hits = total = 0
    for board in sample_positions(20):
        if _core.races(turned(board)[None])[0]:
            continue
        for d1, d2 in ROLLS:
            plays = _core.generate(board, d1, d2)
            if len(plays) < 6:
                continue
            est = net.play_estimates(board, plays, estimator="prune")
            if not np.isfinite(est).all():
                continue
            hits += int(np.argmax(est) == np.argmax(net.play_equities(board, plays)))
            total += 1
    assert total > 100 and hits / total > 0.55


def test_a_race_is_estimated_by_the_slope(net):
    board = pos("x 9:2 6:3 5:3 4:3 3:2 2:2; o 8:3 6:3 5:3 4:4 3:2").board
    assert _core.races(turned(board)[None])[0]
    plays = _core.generate(board, 4, 2)
    assert np.array_equal(net.play_estimates(board, plays, estimator="prune"),
                          net.play_estimates(board, plays))


def test_a_net_without_a_pruning_net_filters_by_the_slope(net):
    plain = _core.NeuralNet(*net.arrays(), race=net.race)
    for board in sample_positions(3):
        for keep in (1, 4):
            assert np.array_equal(plain.roll_table(board, (keep, 0.0, "prune")),
                                  net.roll_table(board, (keep, 0.0, "slope")))
    with pytest.raises(ValueError, match="this net has no pruning net"):
        plain.play_estimates(OPENING, _core.generate(OPENING, 3, 1), estimator="prune")


def test_luck_by_pruning_net_tables_is_unbiased():
    """As for the slope: one play a roll by the pruning net, the summed luck of 1,500 games
    from the start is 0 within 3 SEs."""
    net = neural.default_net()
    games = 1500
    luck = np.zeros(games)
    _core.run_games(OPENING, games, player_id("neural"), player_id("neural"), 7, True, True,
                    net=net, bearoff=net.bearoff, vr_moments=np.zeros(12), per_game_luck=luck,
                    luck_filter=(1, 0.0, "prune"))
    assert abs(luck.mean()) < 3 * luck.std(ddof=1) / math.sqrt(games)
    assert luck.std() > 0.1


def test_the_luck_filters_default_estimator_is_the_one_stated():
    """LUCK_FILTER given explicitly is the default (its estimator LUCK_ESTIMATOR), and the
    other estimator measures other luck."""
    net = neural.default_net()
    neural0 = player_id("neural")

    def luck(setting):
        out = np.zeros(30)
        _core.run_games(OPENING, 30, neural0, neural0, 4, True, True, net=net,
                        bearoff=net.bearoff, vr_moments=np.zeros(12), per_game_luck=out,
                        luck_filter=setting)
        return out

    other = "slope" if _core.LUCK_ESTIMATOR == "prune" else "prune"
    default = luck(None)
    assert np.array_equal(default, luck(_core.LUCK_FILTER))
    assert np.array_equal(default, luck(_core.LUCK_FILTER + (_core.LUCK_ESTIMATOR,)))
    assert not np.array_equal(default, luck(_core.LUCK_FILTER + (other,)))


@pytest.mark.parametrize("bad, message", [
    (lambda net: _core.NeuralNet(*net.arrays()), "a pruning net has the 198 raw inputs"),
    (lambda net: random_pruning_net(1, hidden=129), "at most 128 hidden units"),
    (lambda net: _core.NeuralNet(*random_pruning_net(1).arrays(), race=net.race),
     "no race net, databases or pruning net of its own")])
def test_bad_pruning_nets_are_refused(net, bad, message):
    with pytest.raises(ValueError, match=message):
        _core.NeuralNet(*net.arrays(), prune=bad(net))


def test_a_pruning_net_of_another_net_is_refused(net, tmp_path):
    path = tmp_path / "prune.npz"
    neural.save_net(path, random_pruning_net(2), "p", role="pruning", target_sha256="0" * 64)
    plain, meta = neural.load_net(other_net_file(net, tmp_path))
    with pytest.raises(neural.NeuralNetError, match="not a pruning net of the net"):
        neural.with_pruning_net(plain, meta, path)
