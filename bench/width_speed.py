"""What a narrower net would cost, evaluator by evaluator (issue 54): speed only.

    python bench/width_speed.py [--hidden 320,192,128] [--positions 2000] [--games 1500]
                                [--repeats 5]

Issue 54's remaining targets (3 M evaluations a second, 0-ply rollouts at 8 x GNU
Backgammon's) are set by the cost of one evaluation, and that is set by the hidden layer:
the shipped net has 320 units, gnubg's 128.  This script times nets of the shipped net's
inputs and race, pruning and bear-off nets but only its first H hidden units (the others
dropped: the net plays worse, so these are speeds, never strengths), by the float32 and the
int16 evaluators, in one process, the nets taking turns each round (the order reversed every
other round; CPU time; medians over ``--repeats``): the plays of one roll of ``--positions``
positions a second (``int16_speed.py``'s workload) and the moves a second of neural 0-ply
games from the start (a narrower net's games are of another length, so moves, not games;
the last column turns them into games of the full net's length).  Printed: a Markdown table,
each rate with its ratio to the full width by the same evaluator.
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
from int16_speed import plays_rate  # noqa: E402
from perf_neural import plays_of_one_roll  # noqa: E402

from tavli_fast import _core  # noqa: E402
from tavli_fast.game.position import Position  # noqa: E402
from tavli_fast.play import neural  # noqa: E402
from tavli_fast.play.players import player_id  # noqa: E402

EVALUATORS = ("float32", "int16")


def narrowed(hidden: int, kind: str) -> _core.NeuralNet:
    """The shipped net cut to its first `hidden` units, with its race, pruning and bear-off
    nets, by the evaluator `kind`."""
    full = neural.evaluator()
    w1, b1, w2, b2 = full.arrays()
    if not 32 <= hidden <= w1.shape[1] or hidden % 32:
        raise SystemExit(f"--hidden takes multiples of 32 up to {w1.shape[1]}, not {hidden}")
    return _core.NeuralNet(np.ascontiguousarray(w1[:, :hidden]), b1[:hidden].copy(),
                           np.ascontiguousarray(w2[:, :hidden]), b2.copy(), race=full.race,
                           bearoff=full.bearoff, prune=full.prune, quantised=kind == "int16")


def moves_rate(net: _core.NeuralNet, games: int) -> tuple[float, float]:
    """(moves a CPU-second, moves a game) of neural 0-ply games from the start, as
    ``int16_speed.games_rate`` plays them."""
    who = player_id("neural")
    board = np.ascontiguousarray(Position.initial().board)
    start = time.process_time()
    counts, _ = _core.run_games(board, games, who, who, 1, True, True, bearoff=net.bearoff,
                                truncate=True, net=net)
    seconds = time.process_time() - start
    played = int(counts[:7].sum())
    if played != games:
        raise SystemExit(f"{played} games played of {games}")
    return int(counts[7]) / seconds, int(counts[7]) / games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", default="320,192,128", help="widths, multiples of 32")
    parser.add_argument("--positions", type=int, default=2_000)
    parser.add_argument("--games", type=int, default=1_500, help="0-ply games a round")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    widths = [int(w) for w in args.hidden.split(",")]
    nets = {(w, k): narrowed(w, k) for w in widths for k in EVALUATORS}
    items = plays_of_one_roll(bench_neural.positions(args.positions), args.positions)
    n = sum(len(p) for _, p in items)
    plays: dict = {key: [] for key in nets}
    moves: dict = {key: [] for key in nets}
    length: dict = {key: [] for key in nets}
    for net in nets.values():       # warm up: the databases, the caches
        moves_rate(net, 20)
    for r in range(args.repeats):
        for key in (list(nets) if r % 2 == 0 else list(nets)[::-1]):
            plays[key].append(plays_rate(nets[key], items, n))
            rate, per_game = moves_rate(nets[key], args.games)
            moves[key].append(rate)
            length[key].append(per_game)
    print(f"int16 instance: {_core.INT16_KERNELS}; float32 kernels: {_core.SIMD_KERNELS}")
    print("| hidden units | evaluator | plays of a roll / s | 0-ply moves / s | moves a game "
          "| 0-ply games / s at the full net's length |\n|---:|---|---:|---:|---:|---:|")
    for (w, k) in nets:
        full = (widths[0], k)

        def ratio(d: dict) -> str:
            return "" if w == widths[0] else f" ({statistics.median(d[(w, k)]) / statistics.median(d[full]):.2f} x)"

        full_length = statistics.median(length[full])
        print(f"| {w} | {k} | {statistics.median(plays[(w, k)]):,.0f}{ratio(plays)} "
              f"| {statistics.median(moves[(w, k)]):,.0f}{ratio(moves)} "
              f"| {statistics.median(length[(w, k)]):.1f} "
              f"| {statistics.median(moves[(w, k)]) / full_length:,.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
