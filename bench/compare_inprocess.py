"""Two builds of tavli_fast in one process, timed in turn: the net's work, plays and games.

    python bench/compare_inprocess.py main HEAD [--rounds 20] [--evaluators float32,int16]
                                                [--positions 2000] [--games 400]
                                                [--ply1-games 0]

For effects of a few per cent, which ``compare_builds.py`` (two processes at once, one a core)
cannot see on a shared machine whose speed swings from one second to the next. Each
revision is exported (``git archive``) and built in place under a package name of its own
(``tavli_fast_a``, ``tavli_fast_b``: the folder and the extension renamed), so that both
load side by side; then, round after round, the same process times each build in turn
(the order reversed every other round), in CPU time: ``play_equities`` over the plays of one
roll of ``--positions`` positions (``int16_speed.py``'s workload) and ``--games`` neural 0-ply
games from the start (``_core.run_games``, as ``int16_speed.py`` plays them), for each
evaluator, and with ``--ply1-games`` that many ``neural-1ply`` games from the start (the
look-ahead's defaults). Before the timing, both builds play the same games from the same
seed and the script says whether their results are the same bit for bit.

Printed: per evaluator and measure, each build's median rate, and the median over the
rounds of the second build's rate over the first's, with its quartiles.

Run it once with the same revision on both sides, the control: a difference it shows is
where the two copies sit in memory, not code. Before 442afd9 the weight tables started 16
bytes past a cache line or elsewhere, as the allocator placed each copy, and a revision
against itself came out 1.096 x for the 0-ply games (quartiles 0.995-1.101, 2026-12-07);
since they start on 64-byte lines, 1.004 x. Effects of a few per cent are best confirmed
by separate processes in alternation as well (ASLR places each run anew).
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_neural  # noqa: E402
from compare_builds import build  # noqa: E402
from int16_speed import plays_rate  # noqa: E402
from perf_neural import plays_of_one_roll  # noqa: E402


class Build:
    """One build's modules, loaded under its package name."""

    def __init__(self, package: str):
        self.core = importlib.import_module(f"{package}._core")
        self.neural = importlib.import_module(f"{package}.play.neural")
        players = importlib.import_module(f"{package}.play.players")
        self.who = players.player_id("neural")
        self.who1 = players.player_id("neural-1ply")
        position = importlib.import_module(f"{package}.game.position").Position
        self.start = np.ascontiguousarray(position.initial().board)

    def games(self, net, games: int, seed: int = 1, ply1: bool = False) -> tuple:
        who = self.who1 if ply1 else self.who
        return self.core.run_games(self.start, games, who, who, seed, True, True,
                                   bearoff=net.bearoff, truncate=True, net=net)


def games_rate(build: Build, net, games: int, ply1: bool = False) -> float:
    start = time.process_time()
    build.games(net, games, ply1=ply1)
    return games / (time.process_time() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="the first revision (the reference)")
    parser.add_argument("b", help="the second revision")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--evaluators", default="float32,int16")
    parser.add_argument("--positions", type=int, default=2_000)
    parser.add_argument("--games", type=int, default=400, help="0-ply games a round")
    parser.add_argument("--ply1-games", type=int, default=0,
                        help="neural-1ply games a round (0: none)")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.games < 1 or args.positions < 1 or args.ply1_games < 0:
        parser.error("--rounds, --games and --positions must be at least 1, --ply1-games at "
                     "least 0")
    items = plays_of_one_roll(bench_neural.positions(args.positions), args.positions)
    n = sum(len(p) for _, p in items)
    with tempfile.TemporaryDirectory() as tmp:
        packages = {"tavli_fast_a": args.a, "tavli_fast_b": args.b}
        for package, revision in packages.items():
            sys.path.insert(0, str(build(revision, Path(tmp) / package, package)))
        builds = {package: Build(package) for package in packages}
        print(f"a = {args.a}, b = {args.b}; {args.rounds} rounds, one process, CPU time")
        kinds = args.evaluators.split(",")
        nets = {k: {p: b.neural.evaluator(kind=k) for p, b in builds.items()} for k in kinds}
        for k in kinds:
            a, b = ([x.tolist() for x in build.games(nets[k][p], 200, seed=7)]
                    for p, build in builds.items())
            print(f"{k}: 200 games from seed 7 {'the same' if a == b else 'DIFFERENT'} in both")
            if args.ply1_games:
                a, b = ([x.tolist() for x in build.games(nets[k][p], 20, seed=7, ply1=True)]
                        for p, build in builds.items())
                print(f"{k}: 20 neural-1ply games from seed 7 "
                      f"{'the same' if a == b else 'DIFFERENT'} in both")
        print("\n| evaluator | measure | a | b | b / a (quartiles) |\n|---|---|---:|---:|---:|")
        measures = [("plays", "plays of a roll / s"), ("games", "0-ply games / s")]
        if args.ply1_games:
            measures.append(("ply1", "neural-1ply games / s"))
        for k in kinds:
            rates: dict = {(m, p): [] for m, _ in measures for p in builds}
            for r in range(args.rounds):
                for p in (list(builds) if r % 2 == 0 else list(builds)[::-1]):
                    rates[("plays", p)].append(plays_rate(nets[k][p], items, n))
                    rates[("games", p)].append(games_rate(builds[p], nets[k][p], args.games))
                    if args.ply1_games:
                        rates[("ply1", p)].append(games_rate(builds[p], nets[k][p],
                                                             args.ply1_games, ply1=True))
            for m, label in measures:
                a, b = rates[(m, "tavli_fast_a")], rates[(m, "tavli_fast_b")]
                ratios = [y / x for x, y in zip(a, b)]
                q = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
                print(f"| {k} | {label} | {statistics.median(a):,.0f} | "
                      f"{statistics.median(b):,.0f} | {q[1]:.3f} ({q[0]:.3f}-{q[2]:.3f}) |",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
