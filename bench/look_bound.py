"""The 1-ply player's bounded looks against its full ones, in one process (issue 54):

    python bench/look_bound.py [--games 150] [--repeats 5] [--evaluator float32|int16]

``neural-1ply`` self-play from the start (bear-offs by the databases, truncated in the
two-sided one, as ``tavli-rollout`` plays them), plain and luck-adjusted (a third of the
games), with ``_core.set_look_bound(True)`` (the default) and ``(False)`` taking turns in
each of ``--repeats`` rounds (CPU time). Printed: games a second, the median of each and
the median, least and greatest of the rounds' ratios; and whether every round gave the
same figures both ways (it must: the bound changes no choice).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np

from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.play import neural
from tavli_fast.play.players import player_id


def run(net, games: int, vr: bool, bound: bool) -> tuple[float, bytes]:
    """(games a CPU-second, the run's figures as bytes) with the bound on or off."""
    who = player_id("neural-1ply")
    board = np.ascontiguousarray(Position.initial().board)
    moments = np.zeros(12)
    _core.set_look_bound(bound)
    try:
        start = time.process_time()
        counts, plain = _core.run_games(board, games, who, who, 1, True, True,
                                        bearoff=net.bearoff, truncate=True, net=net,
                                        vr_moments=moments if vr else None)
        seconds = time.process_time() - start
    finally:
        _core.set_look_bound(True)
    return games / seconds, counts.tobytes() + plain.tobytes() + moments.tobytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150, help="plain games a round")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--evaluator", choices=neural.EVALUATORS, default="float32")
    args = parser.parse_args(argv)
    if args.games < 3 or args.repeats < 1:
        parser.error("--games must be at least 3 and --repeats at least 1")
    net = neural.evaluator(kind=args.evaluator)
    same = True
    print(f"neural-1ply from the start, {args.evaluator} evaluator, {args.repeats} rounds; "
          "games / CPU-s, bounded looks against full ones\n")
    print("| rollout | games a round | bounded | full | bounded / full (least-greatest) |")
    print("|---|---:|---:|---:|---|")
    for vr, games in ((False, args.games), (True, args.games // 3)):
        rates: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(args.repeats):
            figures = {}
            for bound in (True, False):
                rate, figures[bound] = run(net, games, vr, bound)
                rates[bound].append(rate)
            same &= figures[True] == figures[False]
        ratios = [a / b for a, b in zip(rates[True], rates[False])]
        print(f"| {'luck-adjusted' if vr else 'plain'} | {games} | "
              f"{statistics.median(rates[True]):.1f} | {statistics.median(rates[False]):.1f} | "
              f"**{statistics.median(ratios):.2f} x** ({min(ratios):.2f}-{max(ratios):.2f}) |",
              flush=True)
    print(f"\nThe same figures both ways in every round: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
