"""Does the int16 evaluator play as well as the float32 one?  Paired games (issue 54):

    python bench/int16_strength.py [--player neural] [--seeds 1-10] [--games 10000] \
        [--record int16_strength.jsonl]

On each seed, ``--games`` dice sequences (``bench/strength.py``'s common dice, the opening
without doubles) are each played twice from the start, cubeless, money, the int16 and the
float32 evaluators of the shipped net swapping seats (``_core.run_games(player_nets=...)``);
the bear-offs are played by the databases.  Printed: per seed and over all of them, the
points a game the int16 player wins, with the standard error from the per-sequence
differences.  ``--record`` keeps one line per seed as it finishes; the same command again
skips the seeds it holds with the same settings, so a stopped run loses one seed at most.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_nets import seed_range  # noqa: E402
from strength import swapped_seats  # noqa: E402

from tavli_fast.play import neural  # noqa: E402
from tavli_fast.play.players import player_id  # noqa: E402


def play_seed(player: str, seed: int, games: int) -> np.ndarray:
    """Per dice sequence: the points a game of the int16 player (half the difference of its
    two seats' results)."""
    float_net, int16_net = neural.evaluator(kind="float32"), neural.evaluator(kind="int16")
    who = player_id(player)
    return swapped_seats(games, seed, ((who, who, {"player_nets": (int16_net, float_net)}),
                                       (who, who, {"player_nets": (float_net, int16_net)})),
                         float_net.bearoff, float_net)[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="neural", choices=("neural", "neural-1ply"))
    parser.add_argument("--seeds", type=seed_range, default=seed_range("1-10"))
    parser.add_argument("--games", type=int, default=10_000, help="dice sequences a seed")
    parser.add_argument("--record", default="int16_strength.jsonl")
    args = parser.parse_args(argv)
    settings = {"player": args.player, "games": args.games}
    path = Path(args.record)
    rows = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
    done = {r["seed"]: r for r in rows if r["settings"] == settings}
    for seed in args.seeds:
        if seed in done:
            continue
        start = time.process_time()
        diff = play_seed(args.player, seed, args.games)
        row = {"seed": seed, "settings": settings, "sum": float(diff.sum()),
               "sumsq": float((diff ** 2).sum()), "n": len(diff),
               "identical": int((diff == 0).sum()), "cpu_s": time.process_time() - start}
        with path.open("a") as f:
            f.write(json.dumps(row) + "\n")
        done[seed] = row
        print(f"seed {seed}: {row['sum'] / row['n']:+.5f} points a game "
              f"({row['identical']:,} of {row['n']:,} sequences alike), {row['cpu_s']:.0f} CPU s",
              flush=True)
    mine = [done[s] for s in args.seeds if s in done]
    n = sum(r["n"] for r in mine)
    mean = sum(r["sum"] for r in mine) / n
    var = (sum(r["sumsq"] for r in mine) - n * mean ** 2) / (n - 1)
    print(f"{args.player}, {n:,} dice sequences ({2 * n:,} games): the int16 evaluator "
          f"{mean:+.5f} +- {math.sqrt(var / n):.5f} points a game against float32; "
          f"{sum(r['identical'] for r in mine):,} sequences gave the same result")
    return 0


if __name__ == "__main__":
    sys.exit(main())
