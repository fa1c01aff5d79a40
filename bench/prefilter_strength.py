"""How much the replies' pre-filter (issue 54, ``_nn_prefilter.pxi``) changes the play, in
one run (Markdown on stdout):

    python bench/prefilter_strength.py [--positions 1000] [--games 2000] [--seed 1] \
        [--filters 2,4,6,8] [--estimators slope,prune] [--paired 4] [--estimator prune]

1. **Agreement on the benchmark positions** (``../shared/data/positions``, contact and
   race, all 21 rolls of each): for each pre-filter (keep k, margin 0) and each estimator
   of ``--estimators`` (the slope, the pruning net) the share of the roll-table rows
   (``NeuralNet.roll_table``) whose play is the one the net finds among all the plays, and
   the mean and largest equity the filtered choice gives up (by the net's 0-ply values),
   with the CPU time per table.
2. **Paired games**, ``neural-1ply`` with the pre-filter ``--paired`` (by ``--estimator``)
   against the exact ``neural-1ply`` (``reply_filter=(0, 0)``): each dice sequence played
   twice, the players swapping seats (``bench/strength.py``'s common dice), points a game
   for the filtered player with its SE from the per-sequence differences.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from strength import swapped_seats  # noqa: E402

from tavli_fast.game.position import Position  # noqa: E402
from tavli_fast.play.players import game_resources, player_id  # noqa: E402

POSITIONS = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "positions"


def equity(table: np.ndarray) -> np.ndarray:
    """The money equity of each row of probabilities."""
    t = table
    return 2 * t[:, 0] - 1 + t[:, 1] - t[:, 3] + t[:, 2] - t[:, 4]


def agreement(net, boards: list[np.ndarray], exact: list[np.ndarray], keep: int,
              estimator: str) -> tuple[float, float, float, float]:
    """(share of rows with the exact play (`exact`: the boards' exact tables), mean loss,
    largest loss, CPU s a table)."""
    start = time.process_time()
    tables = [net.roll_table(b, (keep, 0.0, estimator)) for b in boards]
    seconds = (time.process_time() - start) / len(boards)
    same = np.concatenate([np.all(e == t, axis=1) for e, t in zip(exact, tables)])
    loss = np.concatenate([equity(e) - equity(t) for e, t in zip(exact, tables)])
    return float(same.mean()), float(loss.mean()), float(loss.max()), seconds


def paired(resources, keep: int, games: int, seed: int,
           estimator: str = "prune") -> tuple[float, float, float]:
    """(points a game of neural-1ply with the pre-filter `keep` by `estimator` against the
    exact one, SE, CPU seconds)."""
    one = player_id("neural-1ply")
    filtered, exact = (keep, 0.0, estimator), (0, 0.0)
    start = time.process_time()
    diff, _ = swapped_seats(games, seed, ((one, one, {"reply_filter": (filtered, exact)}),
                                          (one, one, {"reply_filter": (exact, filtered)})),
                            resources["bearoff"], resources["net"])
    return (float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(games)),
            time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=1000, help="of each file, at most 1,000")
    ap.add_argument("--filters", default="1,2,3,4,6,8", help="the keeps k to measure")
    ap.add_argument("--estimators", default="slope,prune", help="the estimators to measure")
    ap.add_argument("--paired", type=int, default=4, help="the keep of the paired games (0: none)")
    ap.add_argument("--estimator", default="prune", help="the estimator of the paired games")
    ap.add_argument("--games", type=int, default=2000, help="dice sequences, each played twice")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    resources = game_resources((player_id("neural"),), True)
    net = resources["net"]
    print(f"Command: `python bench/prefilter_strength.py "
          f"{' '.join(argv if argv is not None else sys.argv[1:])}`\n")
    if args.positions > 0:
        estimators = args.estimators.split(",")
        print("| positions | pre-filter keep | estimator | same play as the exact table | "
              "mean loss | largest loss | CPU ms a table (exact: keep 0) |")
        print("|---|---:|---|---:|---:|---:|---:|")
        for kind in ("contact", "race"):
            ids = (POSITIONS / f"{kind}.csv").read_text().split()[:args.positions]
            boards = [np.ascontiguousarray(Position.from_id(i).board) for i in ids]
            exact = [net.roll_table(b) for b in boards]
            for keep in [0] + [int(k) for k in args.filters.split(",")]:
                for estimator in (estimators[:1] if keep == 0 else estimators):
                    same, mean, worst, seconds = agreement(net, boards, exact, keep, estimator)
                    print(f"| {kind} ({len(boards)}) | {keep} | {'-' if keep == 0 else estimator} "
                          f"| {same:.2%} | {mean:.4f} | {worst:.3f} | {seconds * 1e3:.3f} |",
                          flush=True)
    if args.paired > 0 and args.games > 0:
        ppg, se, seconds = paired(resources, args.paired, args.games, args.seed, args.estimator)
        print(f"\nneural-1ply with the pre-filter keep {args.paired} by {args.estimator} "
              f"against the exact "
              f"neural-1ply, {2 * args.games:,} games ({args.games:,} dice sequences, seed "
              f"{args.seed}): **{ppg:+.4f} ± {se:.4f}** points a game "
              f"({seconds:.0f} CPU s).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
