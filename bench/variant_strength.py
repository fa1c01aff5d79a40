"""Strength of the Plakoto and Fevga nets (issue 44): paired matches and self-play sanity.

    python bench/variant_strength.py [--games 10000] [--one-ply-games 1000] [--seed 1]
    python bench/variant_strength.py --game fevga --previous old-fevga.npz

For each game, head-to-head from the start with the seats swapped on common dice (game i
is played twice, each player moving first once, both times with the same dice ply by
ply): the net's 0-ply player (``neural``) against the shipped ``heuristic``, its 1-ply
player against its 0-ply one, and, with ``--previous``, against an earlier net of the
same game. A figure is the first player's points a game (P7, F7: 1 or 2) over the
2 x n games, with the SE of the mean of the n pair sums. Then self-play from the start
(the first mover on roll, T3: his first roll may be a double) of the net and of the
heuristic: first-mover win rate, 2-point (mars) rate, mother-rule rate (Plakoto), game
length in plies (a ply is one turn), each with its SE, and beside them the net's own
estimate of the start (its win probability and points a game for the first mover).
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np

from tavli_fast import _core
from tavli_fast.variants.games import OUTCOMES, POINTS, VARIANT_PLAYERS, simulate_variant
from tavli_fast.variants.neural import default_variant_net, evaluate_variant, load_variant_net
from tavli_fast.variants.position import variant_position
from tavli_fast.variants.movegen import GAME_CODES

COMMON_PLIES = 400  # dice fixed in advance for this many plies of each game (nearly all)


def paired(game: str, a: int, b: int, games: int, seed: int, net_a=None, net_b=None) -> dict:
    """Player a against player b, each game played with a first and with b first on the
    same dice. A player id is VARIANT_PLAYERS'; a neural one uses net_a / net_b (None: the
    shipped net)."""
    start = variant_position(game, None).core_board()
    dice = np.random.default_rng(seed).integers(1, 7, size=(games, 2 * COMMON_PLIES)).astype(np.int8)
    points = np.array(POINTS, dtype=np.float64)
    code = GAME_CODES[game]
    shipped = default_variant_net(game) if max(a, b) >= VARIANT_PLAYERS["neural"] else None
    net_a, net_b = net_a or shipped, net_b or shipped
    t0 = time.perf_counter()
    scores = []
    for first, second, net, sign in ((a, b, net_a, 1.0), (b, a, net_b, -1.0)):
        outcomes = np.empty(games, dtype=np.int8)
        _core.run_variant_games(start, 0, code, 0, games, first, second, seed, first_dice=dice,
                                outcomes=outcomes, net=net)
        scores.append(sign * points[outcomes])
    pair = scores[0] + scores[1]
    return {"games": 2 * games, "points": float(pair.mean() / 2),
            "se": float(pair.std(ddof=1) / math.sqrt(games) / 2),
            "seconds": time.perf_counter() - t0}


def paired_nets(game: str, net_a, net_b, games: int, seed: int) -> dict:
    """Two nets of the same game at 0 ply, on common dice. The core's game loop holds one net
    per game, so these games are played ply by ply in Python (slower; for --previous)."""
    from tavli_fast.variants.movegen import generate_variant_positions

    rng_dice = np.random.default_rng(seed).integers(1, 7, size=(games, 2 * COMMON_PLIES))
    total = []
    for i in range(games):
        pair = 0.0
        for nets, sign in (((net_a, net_b), 1.0), ((net_b, net_a), -1.0)):
            position = variant_position(game, None)
            for ply in range(10 * COMMON_PLIES):
                d1, d2 = (int(x) for x in rng_dice[i, 2 * (ply % COMMON_PLIES): 2 * (ply % COMMON_PLIES) + 2])
                after = generate_variant_positions(game, position, d1, d2)
                plays = np.stack([p.core_board() for p in after]).astype(np.int8)
                chosen = after[nets[ply % 2].choose(position.core_board(), position.pinned_mask(), plays)]
                if chosen.is_game_over():
                    if chosen.me_off == 15:
                        value = 1 if chosen.opp_off else 2          # P7, F7
                    else:
                        value = 0 if all(chosen.mother_pinned()) else 2   # P6 draw, P5
                    pair += sign * value * (1 if ply % 2 == 0 else -1)
                    break
                position = chosen.sides_switched()
        total.append(pair)
    x = np.array(total)
    return {"games": 2 * games, "points": float(x.mean() / 2),
            "se": float(x.std(ddof=1) / math.sqrt(games) / 2)}


def selfplay(game: str, player: str, games: int, seed: int) -> dict:
    r = simulate_variant(game, None, games, (player, player), seed=seed).rates()
    mars = r["double_win"][0] + r["double_loss"][0]
    mars_se = math.sqrt(mars * (1 - mars) / games)
    mother = r["mother_win"][0] + r["mother_loss"][0]
    return {"first_mover_win": r["win"], "first_mover_points": r["points"],
            "mars": (mars, mars_se), "mother": (mother, math.sqrt(mother * (1 - mother) / games)),
            "plies": r["plies"]}


def fmt(value: tuple[float, float], digits: int = 3) -> str:
    return f"{value[0]:+.{digits}f} ± {value[1]:.{digits}f}" if value[0] < 0 else \
        f"{value[0]:.{digits}f} ± {value[1]:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=("plakoto", "fevga"), action="append")
    parser.add_argument("--games", type=int, default=5000, help="pairs of games (x2 games)")
    parser.add_argument("--one-ply-games", type=int, default=500, help="pairs for 1-ply vs 0-ply")
    parser.add_argument("--selfplay-games", type=int, default=10000)
    parser.add_argument("--previous", default=None, help="an earlier net of the game to play")
    parser.add_argument("--previous-games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    report = {"seed": args.seed}
    for game in args.game or ["plakoto", "fevga"]:
        n, h, n1 = VARIANT_PLAYERS["neural"], VARIANT_PLAYERS["heuristic"], VARIANT_PLAYERS["neural-1ply"]
        out: dict = {
            "neural_vs_heuristic": paired(game, n, h, args.games, args.seed),
            "neural_1ply_vs_neural": paired(game, n1, n, args.one_ply_games, args.seed + 1),
        }
        if args.previous:
            out["neural_vs_previous"] = paired_nets(
                game, default_variant_net(game), load_variant_net(args.previous, game)[0],
                args.previous_games, args.seed + 2)
        start = evaluate_variant(game, None)
        out["net_estimate_of_start"] = {"win": start.win, "points": start.equity,
                                        "double": start.win_double + start.lose_double}
        out["selfplay"] = {p: selfplay(game, p, args.selfplay_games, args.seed + 3)
                           for p in ("neural", "heuristic")}
        report[game] = out
        if args.json:
            continue
        print(f"## {game} (seed {args.seed})")
        for key, r in out.items():
            if "points" in r and "games" in r:
                print(f"{key:<24} {r['games']:>7,} games  {fmt((r['points'], r['se']))} points a game")
        print(f"{'net estimate of start':<24} first mover wins {start.win:.3f}, "
              f"points {start.equity:+.3f}, 2-point games {start.win_double + start.lose_double:.3f}")
        print("self-play      first mover wins   points a game      mars (2 points)    mother"
              "             plies a game")
        for p, s in out["selfplay"].items():
            print(f"{p:<14} {fmt(s['first_mover_win'])}     {fmt(s['first_mover_points'])}     "
                  f"{fmt(s['mars'])}     {fmt(s['mother'])}     {fmt(s['plies'], 1)}")
        print()
    if args.json:
        print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
