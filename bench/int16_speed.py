"""The int16 evaluator's speed against the float32 one, in one process (issue 54):

    python bench/int16_speed.py [--positions 2000] [--games0 3000] [--games1 150] [--repeats 5]

Printed, each a median over ``--repeats`` rounds in which the two evaluators take turns
(CPU time): the plays of one roll of ``--positions`` positions (``bench/plays_speed.py``'s
workload, ``play_equities``) a second, and neural 0-ply and ``neural-1ply`` rollout games
from the start (bear-offs by the databases, truncated in the two-sided one, as
``tavli-rollout`` plays them; 0-ply with luck adjustment too, a fifteenth of the games) a
second; and the ratio int16 / float32 of each.
``INT16_KERNELS`` says which instance ran (TAVLI_FAST_SIMD=avx2 or baseline to choose).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_neural  # noqa: E402
from perf_neural import plays_of_one_roll  # noqa: E402

from tavli_fast import _core  # noqa: E402
from tavli_fast.game.position import Position  # noqa: E402
from tavli_fast.play import neural  # noqa: E402
from tavli_fast.play.players import player_id  # noqa: E402


def plays_rate(net, items, n: int) -> float:
    start = time.process_time()
    for board, plays in items:
        net.play_equities(board, plays)
    return n / (time.process_time() - start)


def games_rate(net, player: str, games: int, vr: bool = False) -> float:
    who = player_id(player)
    board = np.ascontiguousarray(Position.initial().board)
    start = time.process_time()
    _core.run_games(board, games, who, who, 1, True, True, bearoff=net.bearoff, truncate=True,
                    net=net, vr_moments=np.zeros(12) if vr else None)
    return games / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2_000)
    parser.add_argument("--games0", type=int, default=3_000, help="0-ply games a round")
    parser.add_argument("--games1", type=int, default=150, help="neural-1ply games a round")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    nets = {"float32": neural.evaluator(kind="float32"), "int16": neural.evaluator(kind="int16")}
    items = plays_of_one_roll(bench_neural.positions(args.positions), args.positions)
    n = sum(len(p) for _, p in items)
    work = {"plays of a roll / s": lambda net: plays_rate(net, items, n),
            "0-ply games / s": lambda net: games_rate(net, "neural", args.games0),
            "0-ply luck-adjusted games / s": lambda net: games_rate(net, "neural", args.games0 // 15,
                                                                    vr=True),
            "1-ply games / s": lambda net: games_rate(net, "neural-1ply", args.games1)}
    for net in nets.values():       # warm up: the databases, the caches
        games_rate(net, "neural-1ply", 2)
    print(f"int16 instance: {_core.INT16_KERNELS}; float32 kernels: {_core.SIMD_KERNELS}")
    print("| measure | float32 | int16 | int16 / float32 |\n|---|---:|---:|---:|")
    for name, run in work.items():
        rates: dict[str, list[float]] = {k: [] for k in nets}
        for r in range(args.repeats):
            for k in (list(nets) if r % 2 == 0 else list(nets)[::-1]):
                rates[k].append(run(nets[k]))
        med = {k: statistics.median(v) for k, v in rates.items()}
        ratios = [b / a for a, b in zip(rates["float32"], rates["int16"])]
        print(f"| {name} | {med['float32']:,.0f} | {med['int16']:,.0f} | "
              f"{statistics.median(ratios):.2f} x ({min(ratios):.2f}-{max(ratios):.2f}) |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
