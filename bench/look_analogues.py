"""What the analogue replies change in the 1-ply player (issue 54), strength and speed:

    python bench/look_analogues.py [--games 2000] [--seed 1] [--jobs 2] [--speed-games 150] \
        [--repeats 5] [--evaluator float32|int16]

The 1-ply player's looks after the first value, for each of the opponent's rolls, the
analogue of the best candidate's best reply (the reply leaving his checkers where that one
left them) before anything else, even where the replies' pre-filter would not keep it
(``_nn_search.pxi``). ``_core.run_games(..., reply_analogues=(a, b))`` turns them off for a
side, as the search was before them. Printed:

1. **Paired games**, ``neural-1ply`` with the analogues against ``neural-1ply`` without,
   both at the default replies' pre-filter: ``--games`` dice sequences from each of
   ``--jobs`` seeds (``--seed``, ``--seed`` + 1, ...; one process each), each sequence
   played twice with the seats swapped (``bench/strength.py``'s common dice); points a game
   for the player with the analogues, with its SE from the per-sequence differences.
2. **Speed**: neural-1ply self-play from the start (bear-offs by the databases, truncated
   in the two-sided one, as ``tavli-rollout`` plays them), plain and luck-adjusted (a third
   of the games), with and without the analogues taking turns in each of ``--repeats``
   rounds in one process (CPU time); and neural 0-ply games in the same rounds, for the
   1-ply rollout's cost against 0-ply (issue 54's target: at most 20 x).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from strength import swapped_seats  # noqa: E402

from tavli_fast import _core  # noqa: E402
from tavli_fast.game.position import Position  # noqa: E402
from tavli_fast.play import neural  # noqa: E402
from tavli_fast.play.players import player_id  # noqa: E402


def paired(evaluator: str, games: int, seed: int) -> np.ndarray:
    """Per dice sequence, the points a game of neural-1ply with the analogues against
    neural-1ply without."""
    net = neural.evaluator(kind=evaluator)
    one = player_id("neural-1ply")
    diff, _ = swapped_seats(games, seed,
                            ((one, one, {"reply_analogues": (True, False)}),
                             (one, one, {"reply_analogues": (False, True)})),
                            net.bearoff, net)
    return diff


def rate(net, player: int, games: int, vr: bool, analogues: bool, seed: int) -> float:
    """Games a CPU-second of `player` self-play from the start."""
    board = np.ascontiguousarray(Position.initial().board)
    start = time.process_time()
    _core.run_games(board, games, player, player, seed, True, True, bearoff=net.bearoff,
                    truncate=True, net=net, vr_moments=np.zeros(12) if vr else None,
                    reply_analogues=(analogues, analogues))
    return games / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000,
                        help="dice sequences a seed, each played twice (0: no paired games)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2, help="seeds, one process each")
    parser.add_argument("--speed-games", type=int, default=150,
                        help="plain 1-ply games a round (0: no speed part)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--evaluator", choices=neural.EVALUATORS, default="int16")
    args = parser.parse_args(argv)
    if args.games < 0 or args.jobs < 1 or args.speed_games < 0 or args.repeats < 1:
        parser.error("--games and --speed-games must be >= 0, --jobs and --repeats >= 1")
    print(f"Command: `python bench/look_analogues.py "
          f"{' '.join(argv if argv is not None else sys.argv[1:])}` ({args.evaluator} "
          f"evaluator)\n")
    if args.games > 0:
        start = time.perf_counter()
        seeds = [args.seed + k for k in range(args.jobs)]
        with ProcessPoolExecutor(args.jobs) as pool:
            parts = list(pool.map(paired, [args.evaluator] * args.jobs,
                                  [args.games] * args.jobs, seeds))
        diff = np.concatenate(parts)
        se = float(diff.std(ddof=1) / math.sqrt(len(diff)))
        print(f"neural-1ply with the analogues against without, {2 * len(diff):,} games "
              f"({len(diff):,} dice sequences, seeds {seeds[0]}-{seeds[-1]}): "
              f"**{float(diff.mean()):+.4f} ± {se:.4f}** points a game "
              f"({time.perf_counter() - start:.0f} s of wall clock)\n", flush=True)
    if args.speed_games > 0:
        net = neural.evaluator(kind=args.evaluator)
        one, zero = player_id("neural-1ply"), player_id("neural")
        print("| rollout | 1-ply games a round | with the analogues | without | with / without "
              "(least-greatest) | 0-ply games/s | 1-ply's cost against 0-ply, with / without |")
        print("|---|---:|---:|---:|---|---:|---|")
        for vr, games in ((False, args.speed_games), (True, args.speed_games // 3)):
            rates: dict[object, list[float]] = {True: [], False: [], "0-ply": []}
            for k in range(args.repeats):
                for analogues in (True, False):
                    rates[analogues].append(rate(net, one, games, vr, analogues, k + 1))
                rates["0-ply"].append(rate(net, zero, 20 * games, vr, True, k + 1))
            ratios = [a / b for a, b in zip(rates[True], rates[False])]
            on, off, flat = (statistics.median(rates[x]) for x in (True, False, "0-ply"))
            print(f"| {'luck-adjusted' if vr else 'plain'} | {games} | {on:.1f} | {off:.1f} | "
                  f"**{statistics.median(ratios):.2f} x** ({min(ratios):.2f}-{max(ratios):.2f}) "
                  f"| {flat:,.0f} | **{flat / on:.1f} x** / {flat / off:.1f} x |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
