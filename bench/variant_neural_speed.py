"""Evaluations a second of the Plakoto and Fevga nets (issue 44's target: >= 1 M per core).

    python bench/variant_neural_speed.py [--positions 2000] [--repeat 5]

Two figures per game, one thread: full evaluations of positions from random games
(``evaluate_many``, the fast float32 path), and the plays of a roll valued as the players
value them (``play_probs``: one base per roll, then the change of inputs of each play).
The best of ``--repeat`` runs is printed.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tavli_fast.variants.games import random_game_positions
from tavli_fast.variants.neural import default_variant_net
from tavli_fast.variants.movegen import generate_variant_positions


def best_rate(work, count: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return count / min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print("| game | hidden | full evaluations / s | plays valued / s (plays a roll) |")
    print("|---|---|---|---|")
    for game in ("plakoto", "fevga"):
        net = default_variant_net(game)
        positions = random_game_positions(game, 200, args.seed)
        chosen = [positions[i] for i in rng.choice(len(positions), args.positions, replace=False)]
        boards = np.stack([p.core_board() for p in chosen]).astype(np.int8)
        pinned = np.array([p.pinned_mask() for p in chosen], dtype=np.uint32)
        assert net.evaluate_many(boards, pinned).shape == (len(chosen), 5)
        full = best_rate(lambda: net.evaluate_many(boards, pinned), len(chosen), args.repeat)
        rolls = []
        for p in chosen[:300]:
            d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            after = generate_variant_positions(game, p, d1, d2)
            rolls.append((p.core_board(), p.pinned_mask(),
                          np.stack([a.core_board() for a in after]).astype(np.int8)))
        n_plays = sum(len(r[2]) for r in rolls)

        def value_plays() -> None:
            for board, mask, plays in rolls:
                net.play_probs(board, mask, plays)

        plays = best_rate(value_plays, n_plays, args.repeat)
        print(f"| {game} | {net.hidden} | {full:,.0f} | {plays:,.0f} ({n_plays / len(rolls):.1f}) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
