"""What the 1-ply look-ahead and luck adjustment cost against 0-ply play (issue 54), in one
run (Markdown on stdout):

    python bench/ply1_cost.py [--games 2000 40 200 20] [--repeats 3] [--se-games 400] \
        [--reply-keep 8] [--reply-estimator prune] [--luck-keeps 0,1,2,3,4] \
        [--luck-estimators slope,prune] [--candidates]

One process, CPU time (``time.process_time``), so every rate is per core; the settings
compared are alternated within each repeat and the medians reported:

1. **Rollout games per CPU-second from the start** (``_core.run_games`` as rollouts play
   them: bear-offs by the databases, truncation at the database), neural 0-ply and
   neural-1ply, plain and luck-adjusted, each with the pre-filters off (``(0, 0)``: every
   reply and every luck-table play valued by the net, the search before issue 54's
   pre-filter) and pre-filtered (the look-ahead's replies at ``--reply-keep``, opt-in; the
   luck tables at their default ``_core.LUCK_FILTER``), and the cost of each against plain
   0-ply play (target: neural-1ply at most 20 x).
2. **The luck tables' pre-filter, SE per CPU-second**: 0-ply luck-adjusted rollouts of the
   start and of the positions after 3-1 8/5 6/5 and 6-4 24/14 (``--se-games`` games each,
   seed 1) for each keep of ``--luck-keeps``: the luck-adjusted equity's SE times the square
   root of the CPU seconds (the SE a one-second run reaches; smaller is better).
3. With ``--candidates``: the candidate plays of the opening 4-3 at the defaults (as
   ``tavli-rollout --dice 43 --seed 1`` plays them: 5 plays, luck-adjusted, 1,296 trials a
   round until decided), CPU seconds in this process with the luck tables exact and
   pre-filtered (target: 60 s of wall clock on 2 cores, about 120 CPU seconds).
"""

from __future__ import annotations

import argparse
import functools
import math
import statistics
import sys
import time

import numpy as np

from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.play.players import game_resources, player_id

EXACT = (0, 0.0)
#: The positions of the SE measure: the start, and after two opening plays (opponent on roll).
OPENING_PLAYS = ((3, 1, "8/5 6/5"), (6, 4, "24/14"))


def after(die1: int, die2: int, notation: str) -> np.ndarray:
    """The board after an opening play, the opponent on roll."""
    (play,) = [p for p in Position.initial().plays(die1, die2) if p.notation == notation]
    return np.ascontiguousarray(play.position.sides_switched().board)


def games(resources, board, player: int, n: int, vr: bool, look, luck,
          seed: int = 1) -> tuple[float, float, float]:
    """(games per CPU-second, the luck-adjusted equity's SE (NaN without VR), CPU s)."""
    kwargs = dict(bearoff=resources["bearoff"], net=resources["net"], truncate=True,
                  reply_filter=look, luck_filter=luck)
    moments = np.zeros(12)
    if vr:
        kwargs["vr_moments"] = moments
    start = time.process_time()
    _core.run_games(board, n, player, player, seed, True, True, **kwargs)
    seconds = time.process_time() - start
    se = math.nan
    if vr:
        mean = moments[5] / n
        se = math.sqrt(max(moments[11] / n - mean * mean, 0.0) / (n - 1))
    return n / seconds, se, seconds


def speed_table(resources, counts: list[int], repeats: int, reply_keep: int,
                estimator: str = "prune") -> None:
    zero, one = player_id("neural"), player_id("neural-1ply")
    start = np.ascontiguousarray(Position.initial().board)
    default = ((reply_keep, 0.0, estimator), _core.LUCK_FILTER)
    runs = {
        "neural 0-ply, plain": (zero, counts[0], False, EXACT, EXACT),
        "neural 0-ply, luck-adjusted, exact tables": (zero, counts[2], True, EXACT, EXACT),
        "neural 0-ply, luck-adjusted, pre-filtered tables": (zero, counts[2], True, *default),
        "neural-1ply, plain, exact replies": (one, counts[3], False, EXACT, EXACT),
        "neural-1ply, plain, pre-filtered replies": (one, counts[1], False, *default),
        "neural-1ply, luck-adjusted, exact": (one, counts[3], True, EXACT, EXACT),
        "neural-1ply, luck-adjusted, pre-filtered": (one, counts[1], True, *default),
    }
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, (player, n, vr, look, luck) in runs.items():
            rates[name].append(games(resources, start, player, n, vr, look, luck)[0])
    base = statistics.median(rates["neural 0-ply, plain"])
    print(f"Pre-filters (keep, margin[, estimator]): the 1-ply look-ahead's replies "
          f"{default[0]} (the default: {_core.REPLY_FILTER}), the luck tables "
          f"{_core.LUCK_FILTER} by {_core.LUCK_ESTIMATOR} (the default). The net valued by "
          f"the {'int16' if resources['net'].quantised else 'float32'} evaluator (the "
          f"package's default).\n")
    print("| rollout from the start | games | games / CPU-s (median) | runs | cost against "
          "0-ply plain |")
    print("|---|---:|---:|---|---:|")
    for name, (_, n, *_rest) in runs.items():
        rate = statistics.median(rates[name])
        print(f"| {name} | {n} | {rate:,.1f} | {', '.join(f'{r:,.0f}' for r in rates[name])} "
              f"| {base / rate:.1f} x |", flush=True)


def luck_table(resources, n: int, keeps: list[int], estimators: list[str]) -> None:
    zero = player_id("neural")
    settings = [(k, 0.0, e) for k in keeps for e in (estimators[:1] if k == 0 else estimators)]
    boards = {"the start": np.ascontiguousarray(Position.initial().board)}
    boards.update({f"after {a}-{b} {play}": after(a, b, play) for a, b, play in OPENING_PLAYS})
    print(f"\n0-ply luck-adjusted rollouts, {n} games each, seed 1: SE x sqrt(CPU s) of the "
          "luck-adjusted equity by the luck tables' pre-filter (keep 0: exact tables)\n")
    print("| position | " + " | ".join(f"keep {k}" + (f" ({e})" if k else "")
                                       for k, _, e in settings) + " |")
    print("|---|" + "---:|" * len(settings))
    for name, board in boards.items():
        cells = []
        for setting in settings:
            _, se, seconds = games(resources, board, zero, n, True, EXACT, setting)
            cells.append(f"{se * math.sqrt(seconds):.4f} ({se:.4f} in {seconds:.1f} s)")
        print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


def candidates_cpu(exact: bool) -> tuple[int, float]:
    """(trials, CPU seconds) of the candidate plays of the opening 4-3 at the defaults in
    this process (``rollout_plays(..., jobs=1)``, as ``tavli-rollout --dice 43`` plays them),
    the luck tables exact (every play valued by the net) if `exact`."""
    import tavli_fast as tf

    run_games = _core.run_games
    if exact:
        _core.run_games = functools.partial(run_games, luck_filter=EXACT)
    try:
        start = time.process_time()
        result = tf.rollout_plays("start", "43", seed=1, jobs=1)
        seconds = time.process_time() - start
    finally:
        _core.run_games = run_games
    return sum(p.trials for p in result.plays), seconds


def candidates_time() -> None:
    print("\nThe candidate plays of the opening 4-3 at the defaults (`rollout_plays(\"start\", "
          "\"43\", seed=1, jobs=1)`, as `tavli-rollout --dice 43 --seed 1` plays them), CPU "
          "seconds in one process (on 2 idle cores the wall clock is about half):\n")
    print("| luck tables | trials | CPU s | CPU ms a trial |")
    print("|---|---:|---:|---:|")
    for exact in (True, False):
        trials, seconds = candidates_cpu(exact)
        name = "exact (before)" if exact else f"pre-filtered {_core.LUCK_FILTER} (default)"
        print(f"| {name} | {trials:,} | {seconds:.1f} | {1e3 * seconds / trials:.2f} |",
              flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, nargs=4, default=(2000, 40, 200, 20),
                    metavar=("PLAIN0", "FILTERED1", "VR0", "EXACT1"),
                    help="games of the speed runs: 0-ply plain, 1-ply pre-filtered, 0-ply "
                         "luck-adjusted, 1-ply exact")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--reply-keep", type=int, default=8,
                    help="the 1-ply look-ahead's pre-filter in the pre-filtered runs")
    ap.add_argument("--reply-estimator", default="prune", help="its estimator: prune or slope")
    ap.add_argument("--luck-estimators", default=_core.LUCK_ESTIMATOR,
                    help="the luck tables' estimators of the SE runs (prune, slope)")
    ap.add_argument("--se-games", type=int, default=400, help="games of each SE run (0: none)")
    ap.add_argument("--luck-keeps", default="0,1,2,3,4")
    ap.add_argument("--candidates", action="store_true",
                    help="also time the candidate plays of 4-3 at the defaults")
    args = ap.parse_args(argv)
    print(f"Command: `python bench/ply1_cost.py "
          f"{' '.join(argv if argv is not None else sys.argv[1:])}`\n")
    resources = game_resources((player_id("neural"),), True, truncate=True)
    speed_table(resources, list(args.games), args.repeats, args.reply_keep, args.reply_estimator)
    if args.se_games > 0:
        luck_table(resources, args.se_games, [int(k) for k in args.luck_keeps.split(",")],
                   args.luck_estimators.split(","))
    if args.candidates:
        candidates_time()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
