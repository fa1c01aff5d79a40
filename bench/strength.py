"""Playing strength of a player against pubeval (or any other), with standard errors.

    python bench/strength.py --games 20000 --seed 1                    # neural vs pubeval
    python bench/strength.py --player neural-1ply --games 1000
    python bench/strength.py --player neural-2ply --opponent neural-1ply --games 600 --self-play 0
                                            # 2-ply against 1-ply (issue 54; ~0.3 s CPU a game)
    python bench/strength.py --games 20000 --rollout                   # also the issue's formula
    python bench/strength.py --weights net.npz --gnubg 10000 --jobs 2 --calibration 10000
    python bench/strength.py --games 0 --self-play 0 --gnubg 10000 --jobs 2 \
        --weights candidate.npz --baseline neural-v7-256.npz   # a candidate vs v7-256 (from ./nets)

Common dice: game i is played twice, once with each player moving first, and both games
use the same dice sequence (the first MAX_FORCED rolls of game i are drawn here and forced in
the core's game loop; a longer game rolls on from the game's own generator). Points per game
for the player = mean over i of (equity of game i with it first - equity with the other
first) / 2; its standard error comes from those paired differences, so the luck of the dice
largely cancels.

``--rollout`` also measures the issue's definition: ``rollout("start", N, players=(P, O))``
and ``(O, P)`` with the same seed, ppg = half the difference of the equities; its SE is given
as if the two rollouts were independent (an upper bound: their dice are partly common).

Also printed: the player's self-play outcome split and mean game length, next to GNU
Backgammon's published self-play figures (73.0 / 25.8 / 1.2 %, 55.6 plies).

``--gnubg N`` plays N dice sequences (each twice) against GNU Backgammon's 0-ply player
(gnubg_nn, a test-only oracle; never a training target), split over ``--jobs`` processes;
``--gnubg-plies 1`` (or 2) makes gnubg look that many plies ahead instead (its own
``best_move(..., n)``), so a player's 1-ply can be set against gnubg's 1-ply. ``--player
gnubg-N`` has gnubg's own N-ply player in our seat: ``--player gnubg-1 --gnubg N`` measures
what look-ahead gains gnubg itself, the yardstick for our 1-ply's gain. ``--filter-candidates``
and ``--filter-window`` set the 1-ply player's move filter, as in ``tavli-rollout``.
``--calibration N`` (issue 13): the net's predicted probabilities for the first mover at the
opening (the mean over the 15 non-double opening rolls of the probabilities after its best
0-ply play) against the outcomes of N self-play games played to the end, each figure with its
binomial SE and the difference in SEs. ``--weights FILE`` measures that weights file's net
instead of the shipped one.

``--baseline FILE`` (with ``--gnubg``): the same dice sequences are also played by that weights
file's net, and the difference between the two nets is given per dice sequence, with its SE:
the way to compare a candidate net with the shipped one. Two nets play the same games only
until their first different play, early in most games, so that SE is barely below either
net's own (0.0075-0.0087 against 0.0086 on 20,000 games, measured on nets fitted from v5).

``--errors`` (with ``--gnubg``): where the player loses, as gnubg 0-ply sees it. In those games
every play the player chooses (with more than one legal play) is valued by gnubg's 0-ply
evaluation against the best play by that evaluation; the equity given up is summed per game
by gnubg's class of the position (contact, crashed, race, bear-off). A diagnosis, biased
towards gnubg's own taste, never a training signal. Its total separated nets far apart in
strength (v2 and v3), but near gnubg's level it does not track the match result: compare
players by games.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.play.bearoff import default_database
from tavli_fast.play.neural import default_net, default_net_info, evaluator
from tavli_fast.play.players import needs_net, player_id
from tavli_fast.game.position import Position
from tavli_fast.jobs.rollout_chunks import DEFAULT_MOVE_FILTER
from tavli_fast.jobs.rollout_request import check_move_filter

MAX_FORCED = 160  # rolls forced per game; longer games are rare (mean ~55 plies)


def common_dice(n_games: int, seed: int) -> np.ndarray:
    """int8[n, 2 * MAX_FORCED]: the dice of every game, the opening roll without doubles (R5)."""
    rng = np.random.default_rng(seed)
    dice = rng.integers(1, 7, size=(n_games, MAX_FORCED, 2), dtype=np.int8)
    doubles = dice[:, 0, 0] == dice[:, 0, 1]
    while doubles.any():  # R5: re-roll the opening until it is not a double
        dice[doubles, 0] = rng.integers(1, 7, size=(int(doubles.sum()), 2), dtype=np.int8)
        doubles = dice[:, 0, 0] == dice[:, 0, 1]
    return dice.reshape(n_games, 2 * MAX_FORCED)


def _mean_se(x: np.ndarray) -> tuple[float, float]:
    """The mean of per-dice-sequence points and its standard error."""
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def swapped_seats(n_games: int, seed: int, seats, tables, net=None):
    """Each of ``n_games`` common dice sequences played twice from the start, once in each
    seating of ``seats``: two (player0, player1, run_games keywords), the second the first
    with the seats swapped. Returns (per sequence, half the difference of player 0's results
    in the two: the points a game of the first seating's player 0; the two runs' counts)."""
    dice = common_dice(n_games, seed)
    board = Position.initial().board
    equities, counts = [], []
    for player0, player1, keywords in seats:
        out = np.zeros(n_games)
        c, _ = _core.run_games(board, n_games, player0, player1, seed, True, True, dice, tables,
                               True, per_game_equity=out, net=net, **keywords)
        equities.append(out)
        counts.append(c)
    return (equities[0] - equities[1]) / 2, counts


def paired_match(player: str, opponent: str, n_games: int, seed: int, net=None) -> dict:
    """ppg of `player` against `opponent` over n_games dice sequences, each played twice
    (`net`: the neural players' net, default the shipped one)."""
    a, b = player_id(player), player_id(opponent)
    if net is None and needs_net((a, b)):
        net = default_net()
    t0 = time.perf_counter()
    diff, (counts_first, counts_second) = swapped_seats(
        n_games, seed, ((a, b, {}), (b, a, {})), default_database().tables, net)
    elapsed = time.perf_counter() - t0
    ppg, se = _mean_se(diff)
    wins = int(counts_first[:3].sum() + counts_second[3:6].sum())
    return {
        "player": player, "opponent": opponent, "games": 2 * n_games, "seed": seed,
        "ppg": ppg, "ppg_se": se,
        "win_rate": wins / (2 * n_games),
        "win_rate_se": math.sqrt(wins / (2 * n_games) * (1 - wins / (2 * n_games)) / (2 * n_games)),
        "elapsed_s": elapsed,
    }


def _gnubg_play(gnubg_nn, board: np.ndarray, d1: int, d2: int, plies: int = 0) -> np.ndarray:
    """The board (sides not switched) that GNU Backgammon's `plies`-ply player moves to.

    gnubg boards are [opponent's 25 entries, on-roll's 25 entries] (entries 0..23 = points
    1..24, 24 = bar); best_move gives (from, to) pairs in the mover's 1-based numbering,
    25 = bar, 0 = off.
    """
    move = gnubg_nn.best_move(_gnubg_board(board), d1, d2, plies)
    after = board.copy()
    for src, dst in move:
        after[0, src] -= 1
        after[0, dst] += 1                      # dst 0: borne off
        if dst > 0 and after[1, 25 - dst] == 1:  # a hit
            after[1, 25 - dst] = 0
            after[1, 25] += 1
    return after


def _game_value(board: np.ndarray) -> int:
    """1, 2 or 3 for the side in row 0, which has just borne off its last checker (R20)."""
    if board[1, 0] > 0:
        return 1
    return 3 if board[1, 19:26].any() else 2


_CLASSES = {5: "contact", 4: "crashed", 3: "race"}  # gnubg_nn.classify's codes; else bear-off


def _gnubg_board(board: np.ndarray) -> list[list[int]]:
    """gnubg's board (side not on roll, then side on roll) of ours (row 0 on roll)."""
    return [list(map(int, board[1, 1:26])), list(map(int, board[0, 1:26]))]


def _gnubg_loss(gnubg_nn, board: np.ndarray, d1: int, d2: int, chosen: np.ndarray,
                errors: dict) -> None:
    """Add the equity that `chosen` gives up by gnubg 0-ply's evaluation to errors[class]."""
    plays = _core.generate(board, d1, d2)
    if len(plays) < 2:
        return
    def value(after: np.ndarray) -> float:  # for the mover: minus the opponent's equity
        q = gnubg_nn.probabilities(_gnubg_board(after[::-1]), 0)
        return -(2 * q[0] - 1 + q[1] + q[2] - q[3] - q[4])
    loss = max(value(a) for a in plays) - value(chosen)
    name = _CLASSES.get(gnubg_nn.classify(_gnubg_board(board)), "bear-off")
    total, count = errors.get(name, (0.0, 0))
    errors[name] = (total + loss, count + 1)


def _gnubg_values(player: str, n_games: int, seed: int, lo: int, hi: int,
                  weights: str | None, errors: dict | None = None,
                  gnubg_plies: int = 0,
                  move_filter: tuple[int, float] = DEFAULT_MOVE_FILTER) -> np.ndarray:
    """float[hi - lo, 2]: `player`'s points in the games of dice sequences lo..hi-1 against
    gnubg at `gnubg_plies`, first with it moving first, then second (one process's share).
    With `errors`, each of its plays' loss by gnubg's 0-ply evaluation is added to it
    (_gnubg_loss). `player` "gnubg-N" is gnubg itself at N plies (its look-ahead gain);
    `move_filter` is the 1-ply player's."""
    import gnubg_nn

    own_plies = _gnubg_player_plies(player)
    kind = player_id(player) if own_plies is None else None
    net = evaluator(weights) if kind is not None and needs_net((kind,)) else None
    tables = default_database().tables
    dice = common_dice(n_games, seed).reshape(n_games, MAX_FORCED, 2)
    rng = np.random.default_rng([seed, 1, lo])     # rolls beyond MAX_FORCED
    start = Position.initial().board
    values = np.zeros((hi - lo, 2))
    for i in range(lo, hi):
        for ours_first in (0, 1):
            board, side, ply = start.copy(), 0, 0
            while True:
                d1, d2 = (int(d) for d in (dice[i, ply] if ply < MAX_FORCED else rng.integers(1, 7, 2)))
                ours = (side == 0) == (ours_first == 0)
                if ours:
                    chosen = (_gnubg_play(gnubg_nn, board, d1, d2, own_plies)
                              if own_plies is not None else
                              _core.choose(board, d1, d2, kind, seed, tables, True, net,
                                           *move_filter))
                    if errors is not None:  # gnubg-N's too: what its look-ahead changes
                        _gnubg_loss(gnubg_nn, board, d1, d2, chosen, errors)
                    board = chosen
                else:
                    board = _gnubg_play(gnubg_nn, board, d1, d2, gnubg_plies)
                ply += 1
                if board[0, 0] == 15:
                    v = _game_value(board)
                    values[i - lo, ours_first] = v if ours else -v
                    break
                board = np.ascontiguousarray(board[::-1])
                side ^= 1
    return values


def _gnubg_share(player: str, n_games: int, seed: int, lo: int, hi: int,
                 weights: str | None, errors: bool, gnubg_plies: int,
                 move_filter: tuple[int, float]) -> tuple[np.ndarray, dict | None]:
    found: dict | None = {} if errors else None
    return (_gnubg_values(player, n_games, seed, lo, hi, weights, found, gnubg_plies,
                          move_filter), found)


def _gnubg_player_plies(player: str) -> int | None:
    """N for the pseudo-player "gnubg-N" (gnubg's own N-ply player), else None."""
    if player.startswith("gnubg-") and player[6:] in ("0", "1", "2"):
        return int(player[6:])
    return None


def _gnubg_all(player: str, n_games: int, seed: int, weights: str | None, jobs: int,
               errors: bool, gnubg_plies: int = 0,
               move_filter: tuple[int, float] = DEFAULT_MOVE_FILTER) -> tuple[np.ndarray, list]:
    """float[n_games, 2] (`player`'s points in each dice sequence's two games against gnubg
    at `gnubg_plies`) and the processes' `errors` records, from `jobs` processes."""
    from concurrent.futures import ProcessPoolExecutor

    cuts = np.linspace(0, n_games, max(1, jobs) + 1).astype(int)
    with ProcessPoolExecutor(max(1, jobs)) as pool:
        parts = list(pool.map(_gnubg_share, *zip(*[(player, n_games, seed, lo, hi, weights, errors,
                                                     gnubg_plies, move_filter)
                                                    for lo, hi in zip(cuts[:-1], cuts[1:])])))
    return np.concatenate([v for v, _ in parts]), [found for _, found in parts]


def gnubg_match(player: str, n_games: int, seed: int, weights: str | None = None,
                jobs: int = 1, errors: bool = False, baseline: str | None = None,
                gnubg_plies: int = 0,
                move_filter: tuple[int, float] = DEFAULT_MOVE_FILTER) -> dict:
    """ppg of `player` against GNU Backgammon's `gnubg_plies`-ply player (gnubg_nn,
    test-only), common dice, each dice sequence played twice with sides swapped; a Python
    game loop in `jobs` processes (the numbers do not depend on it but for the rare rolls
    beyond MAX_FORCED).
    With `errors`, also the equity its plays give up by gnubg's evaluation, per game and
    per play, by class of position (``--errors``). With `baseline` (a weights file), the
    same dice sequences are played by that net too, and the report's ``baseline`` gives the
    difference between the two per dice sequence, with its SE (the right SE for the
    difference, though barely below either net's own: see the module's docstring)."""
    t0 = time.perf_counter()
    values, found_parts = _gnubg_all(player, n_games, seed, weights, jobs, errors, gnubg_plies,
                                     move_filter)
    elapsed = time.perf_counter() - t0
    diff = values.mean(axis=1)
    wins = int((values > 0).sum())
    ppg, se = _mean_se(diff)
    report = {"player": player, "opponent": f"gnubg-{gnubg_plies}ply", "games": 2 * n_games,
              "seed": seed, "ppg": ppg, "ppg_se": se, "win_rate": wins / (2 * n_games),
              "elapsed_s": elapsed}
    if errors:
        merged: dict = {}
        for found in found_parts:
            for name, (total, count) in found.items():
                t, c = merged.get(name, (0.0, 0))
                merged[name] = (t + total, c + count)
        report["errors"] = {name: {"plays": c, "per_game": t / (2 * n_games), "per_play": t / c}
                            for name, (t, c) in sorted(merged.items())}
    if baseline is not None:
        base = _gnubg_all(player, n_games, seed, baseline, jobs, False, gnubg_plies,
                          move_filter)[0].mean(axis=1)
        base_ppg, base_se = _mean_se(base)
        delta, delta_se = _mean_se(diff - base)
        report["baseline"] = {"weights": baseline, "ppg": base_ppg, "ppg_se": base_se,
                              "difference": delta, "difference_se": delta_se}
    return report


def rollout_match(player: str, opponent: str, trials: int, seed: int, jobs: int | None) -> dict:
    """The issue's definition: two rollouts with the same seed, half the equity difference."""
    r1 = tf.rollout("start", trials, players=(player, opponent), seed=seed, jobs=jobs)
    r2 = tf.rollout("start", trials, players=(opponent, player), seed=seed, jobs=jobs)
    return {"ppg": (r1.equity - r2.equity) / 2,
            "ppg_se_independent": math.hypot(r1.se["equity"], r2.se["equity"]) / 2,
            "equity_first": r1.equity, "equity_second": r2.equity, "trials": trials, "seed": seed}


def self_play(player: str, n_games: int, seed: int, weights: str | None = None) -> dict:
    """Outcome split and mean length of `n_games` self-play games from the start (R5), the
    net of `weights` (default the shipped one) playing, bear-offs by the databases."""
    kind = player_id(player)
    counts, _ = _core.run_games(Position.initial().board, n_games, kind, kind, seed, True, True,
                                None, default_database().tables, True,
                                net=evaluator(weights) if needs_net((kind,)) else None)
    n = int(counts[:6].sum())
    return {"games": n,
            "single": (counts[0] + counts[3]) / n,
            "gammon": (counts[1] + counts[4]) / n,
            "backgammon": (counts[2] + counts[5]) / n,
            "plies_mean": counts[7] / n}


def calibration(n_games: int, seed: int, weights: str | None = None) -> dict:
    """The net's predicted first-mover probabilities at the opening against the outcomes of
    `n_games` 0-ply self-play games played to the end (issue 13's gammon calibration)."""
    net = evaluator(weights)
    start = Position.initial().board
    predicted = np.zeros(5)
    for d1 in range(1, 7):
        for d2 in range(d1 + 1, 7):       # R5: the 15 non-doubles, equally likely
            plays = np.ascontiguousarray(_core.generate(start, d1, d2))
            eq = net.play_equities(start, plays)
            predicted += _after_probs(net, plays[int(np.argmax(eq))]) / 15
    counts, _ = _core.run_games(start, n_games, player_id("neural"), player_id("neural"), seed,
                                True, True, None, None, False, False, net=net)
    n = int(counts[:6].sum())
    wins, lg, lbg = counts[:3].sum(), counts[4:6].sum(), counts[5]
    observed = np.array([wins, counts[1:3].sum(), counts[2], lg, lbg]) / n
    se = np.sqrt(observed * (1 - observed) / n)
    names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
    return {"games": n, "seed": seed, "figures": {
        k: {"predicted": float(p), "observed": float(o), "se": float(e),
            "z": float((p - o) / e) if e > 0 else float("nan")}
        for k, p, o, e in zip(names, predicted, observed, se)}}


def _after_probs(net, after: np.ndarray) -> np.ndarray:
    """The first mover's probabilities after its play (the opponent on roll next)."""
    q = net.evaluate(np.ascontiguousarray(after[::-1]))
    return np.array([1 - q[0], q[3], q[4], q[1], q[2]])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--player", default="neural")
    p.add_argument("--opponent", default="pubeval")
    p.add_argument("--games", type=int, default=20_000, help="dice sequences (each played twice)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--self-play", type=int, default=10_000, help="self-play games (0: skip)")
    p.add_argument("--rollout", action="store_true", help="also the two-rollout measure")
    p.add_argument("--gnubg", type=int, default=0, metavar="N",
                   help="also N dice sequences against gnubg, 0-ply unless --gnubg-plies "
                        "(needs gnubg-nn)")
    p.add_argument("--gnubg-plies", dest="gnubg_plies", type=int, choices=(0, 1, 2), default=0,
                   help="with --gnubg: gnubg looks this many plies ahead (default 0)")
    p.add_argument("--errors", action="store_true",
                   help="with --gnubg: the equity the player's plays give up by gnubg's "
                        "evaluation, by class of position")
    p.add_argument("--baseline", metavar="FILE",
                   help="with --gnubg: also play the same dice with this weights file's net and "
                        "give the difference, with the SE of the paired differences")
    p.add_argument("--filter-candidates", type=int, metavar="N",
                   help="with --gnubg: the 1-ply player looks at most N plays deeper "
                        f"(as tavli-rollout's option; default {DEFAULT_MOVE_FILTER[0]})")
    p.add_argument("--filter-window", type=float, metavar="X",
                   help="with --gnubg: only plays within X of the best 0-ply play "
                        f"(default {DEFAULT_MOVE_FILTER[1]})")
    p.add_argument("--jobs", type=int, default=None)
    p.add_argument("--checkpoint", help="measure the net of a training checkpoint (match only)")
    p.add_argument("--weights", help="measure this weights file's net (default: the shipped one)")
    p.add_argument("--calibration", type=int, default=0, metavar="N",
                   help="also the opening calibration over N self-play games")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    filtered = args.filter_candidates is not None or args.filter_window is not None
    if (args.baseline or args.gnubg_plies or args.errors or filtered) and not args.gnubg:
        # Refused rather than ignored: a measurement that silently drops a setting misleads.
        p.error("--baseline, --gnubg-plies, --errors and --filter-* go with --gnubg N")
    try:
        move_filter = check_move_filter(
            (DEFAULT_MOVE_FILTER[0] if args.filter_candidates is None else args.filter_candidates,
             DEFAULT_MOVE_FILTER[1] if args.filter_window is None else args.filter_window))
    except ValueError as e:
        p.error(str(e))
    if _gnubg_player_plies(args.player) is not None:
        if args.games or args.self_play or args.rollout or args.checkpoint:
            p.error(f"--player {args.player} plays only against gnubg: give --gnubg N with "
                    "--games 0 --self-play 0")
        if filtered:
            p.error(f"--filter-* set our 1-ply player's filter; --player {args.player} uses "
                    "gnubg's")
    if args.checkpoint:
        from tavli_fast.training.train import load_checkpoint

        state = load_checkpoint(args.checkpoint)
        m = paired_match(args.player, args.opponent, args.games, args.seed, state.net)
        print(json.dumps({"games_done": state.games_done, **m}) if args.json else
              f"{state.games_done} games trained: {m['ppg']:+.4f} ppg (SE {m['ppg_se']:.4f}) "
              f"vs {m['opponent']}, wins {100 * m['win_rate']:.2f}%")
        return 0
    from tavli_fast.play.neural import default_weights_path, load_net, weights_file

    path = weights_file(args.weights) if args.weights else default_weights_path()
    t0 = time.perf_counter()
    info = load_net(path)[1]   # read, checksum verified, net built: what a player waits for
    load_s = time.perf_counter() - t0
    report: dict = {"net": {**{k: v for k, v in info.items() if k != "training"},
                            "file_bytes": os.path.getsize(path), "load_s": load_s}}
    if args.games:
        report["match"] = paired_match(args.player, args.opponent, args.games, args.seed,
                                       evaluator(args.weights))
    if args.rollout:
        report["rollout"] = rollout_match(args.player, args.opponent, 2 * args.games, args.seed,
                                          args.jobs)
    if args.gnubg:
        report["gnubg"] = gnubg_match(args.player, args.gnubg, args.seed, args.weights,
                                      args.jobs or 1, args.errors, args.baseline, args.gnubg_plies,
                                      move_filter)
    if args.calibration:
        report["calibration"] = calibration(args.calibration, args.seed, args.weights)
    if args.self_play:
        report["self_play"] = self_play(args.player, args.self_play, args.seed, args.weights)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    n = report["net"]
    print(f"net {n.get('version')} ({n.get('hidden')} hidden, {n.get('inputs')} inputs): "
          f"{n['file_bytes'] / 1000:.0f} kB, loaded and verified in {n['load_s']:.3f} s")
    m = report.get("match")
    if m:
        print(f"{m['player']} vs {m['opponent']}: {m['ppg']:+.4f} ppg (SE {m['ppg_se']:.4f}), "
              f"wins {100 * m['win_rate']:.2f}% (SE {100 * m['win_rate_se']:.2f}) over {m['games']} games "
              f"with common dice, seed {m['seed']}, {m['elapsed_s']:.0f} s")
    if "calibration" in report:
        c = report["calibration"]
        print(f"calibration at the opening, {c['games']} self-play games (first mover):")
        for k, f in c["figures"].items():
            print(f"  {k:16s} predicted {f['predicted']:.4f}  observed {f['observed']:.4f} "
                  f"± {f['se']:.4f}  ({f['z']:+.1f} SE)")
    if "rollout" in report:
        r = report["rollout"]
        print(f"two rollouts of {r['trials']} (seed {r['seed']}): {r['ppg']:+.4f} ppg "
              f"(SE <= {r['ppg_se_independent']:.4f})")
    if "gnubg" in report:
        g = report["gnubg"]
        print(f"{g['player']} vs {g['opponent']}: {g['ppg']:+.4f} ppg (SE {g['ppg_se']:.4f}), "
              f"wins {100 * g['win_rate']:.2f}% over {g['games']} games with common dice, "
              f"{g['elapsed_s']:.0f} s")
        b = g.get("baseline")
        if b:
            print(f"  baseline {b['weights']}: {b['ppg']:+.4f} ppg (SE {b['ppg_se']:.4f}); "
                  f"difference {b['difference']:+.4f} (SE {b['difference_se']:.4f}, same dice)")
        for name, e in g.get("errors", {}).items():
            print(f"  {name:9s} {e['plays']:7d} plays, equity given up by gnubg's evaluation "
                  f"{e['per_game']:.4f} a game, {e['per_play']:.4f} a play")
    if "self_play" in report:
        s = report["self_play"]
        print(f"self-play {s['games']} games: single {100 * s['single']:.1f}% gammon "
              f"{100 * s['gammon']:.1f}% backgammon {100 * s['backgammon']:.1f}%, "
              f"{s['plies_mean']:.1f} plies (gnubg: 73.0 / 25.8 / 1.2 %, 55.6 plies)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
