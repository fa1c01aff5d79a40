"""Issue 43's target "in money games with the cube, the cubeful player beats the cubeless one
(same net) by a measured, positive margin over >= 20,000 games", measured and printed:

    python bench/cubeful_play.py [--games 20000] [--chunk 2000] [--jobs 2] [--seed 1]
                                 [--no-sanity]

Money games with the cube from the starting position (centred cube, ``cube_branches(
Position.initial())[0]``, max cube 64, no Jacoby), the shipped net at 0 ply on both sides
(``neural`` vs ``neural``), opening roll without doubles (R5), bear-offs by the databases and
money bear-offs decided and truncated by the cubeful bear-off database. Both players take
their cube decisions the same way (the net's probabilities through the kernels' cube model);
they differ only in how they pick their checker plays: the cubeful player by cubeful 0-ply
equity at its cube (``run_games(..., cubeful_play=...)``), the cubeless one by cubeless 0-ply
equity.

Every dice sequence is played twice, with the seats swapped: seating A has the cubeful player
in seat 0 (``cubeful_play=(True, False)``), seating B in seat 1 (``(False, True)``), on the
same core seed and the same forced dice (the first ``FORCED`` rolls of each game drawn here,
the opening one without doubles; a longer game rolls on from the core's generator). With
``per_game_cubeful`` giving seat 0's points of each game, the cubeful player's points a game
on dice sequence i are m_i = (points_A[i] - points_B[i]) / 2; the margin is their mean with the
SE of the m_i (the luck of the dice largely cancels), z = margin / SE. The cubeful player's
points minus the cubeless player's are twice the margin.

Sanity check: the same two runs with both players cubeless (``cubeful_play=(False, False)``
in both seatings) must give exactly 0 on every dice sequence (the games are identical); the
mean points of seat 0 there (the first mover's edge in cubeless-play money games) and the SE
the margin would have without pairing are printed for context. ``--no-sanity`` skips those two
runs (half the time, for long runs).

Chunks of ``--chunk`` dice sequences run on a pool of ``--jobs`` processes (forkserver); the
numbers do not depend on ``--jobs`` (chunk seeds come from ``--seed`` and the chunk index;
another ``--chunk`` gives other dice).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from multiprocessing import get_context

import numpy as np

FORCED = 200  # rolls forced per game (games from the start last about 55-60 plies)

SEATINGS = {
    "A": (True, False),  # cubeful player in seat 0
    "B": (False, True),  # cubeful player in seat 1
    "A0": (False, False),  # both cubeless (sanity check), played twice
    "B0": (False, False),
}

_resources: dict | None = None


def forced_dice(n: int, rng: np.random.Generator) -> np.ndarray:
    """int8[n, 2 * FORCED]: each game's first FORCED rolls, the opening roll not a double."""
    dice = rng.integers(1, 7, size=(n, FORCED, 2), dtype=np.int8)
    again = dice[:, 0, 0] == dice[:, 0, 1]
    while again.any():
        dice[again, 0] = rng.integers(1, 7, size=(int(again.sum()), 2), dtype=np.int8)
        again = dice[:, 0, 0] == dice[:, 0, 1]
    return np.ascontiguousarray(dice.reshape(n, 2 * FORCED))


def play_chunk(task: tuple[int, int, int, bool]) -> dict:
    """Chunk ``index`` of ``n`` dice sequences, every seating: seat 0's points per game, the
    summed final cubes and the CPU seconds."""
    global _resources
    from tavli_fast import _core
    from tavli_fast.game.position import Position
    from tavli_fast.jobs.cubeful import cube_branches
    from tavli_fast.play.players import game_resources, player_kinds

    seed, index, n, sanity = task
    _, ids = player_kinds(("neural", "neural"))
    if _resources is None:
        _resources = game_resources(ids, True, True, None, net=True, cubeful=True)
    start = Position.initial()
    cube = cube_branches(start)[0]
    board = np.ascontiguousarray(start.board, dtype=np.int8)
    seq = np.random.SeedSequence(seed, spawn_key=(index,))
    core_seed = int(seq.generate_state(1, dtype=np.uint64)[0])
    dice = forced_dice(n, np.random.default_rng(seq))
    out: dict = {"index": index, "n": n, "points": {}, "cubes": {}, "cpu": 0.0}
    for name, cubeful_play in SEATINGS.items():
        if name.endswith("0") and not sanity:
            continue
        points = np.empty(n, dtype=np.float64)
        c0 = time.process_time()
        counts, _, sums = _core.run_games(
            board, n, ids[0], ids[1], core_seed, True, True, dice, bearoff_play=True,
            truncate=True, cube_branches=(cube,), per_game_cubeful=points,
            cubeful_play=cubeful_play, **_resources)
        out["cpu"] += time.process_time() - c0
        if int(counts[:7].sum()) != n:
            raise RuntimeError(f"chunk {index} seating {name}: {int(counts[:7].sum())} games of {n}")
        out["points"][name] = points
        out["cubes"][name] = float(sums[6])
    return out


def mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20000, help="dice sequences (games a seating)")
    ap.add_argument("--chunk", type=int, default=2000, help="dice sequences a task")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (1: in this process)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-sanity", action="store_true",
                    help="skip the two both-cubeless runs of the sanity check")
    args = ap.parse_args(argv)
    if args.games < 2 or args.chunk < 1 or args.jobs < 1:
        ap.error("--games >= 2, --chunk >= 1, --jobs >= 1")

    shown = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"Command: `python bench/cubeful_play.py{' ' + shown if shown else ''}`")
    sizes = [min(args.chunk, args.games - i) for i in range(0, args.games, args.chunk)]
    sanity = not args.no_sanity
    runs = [name for name in SEATINGS if sanity or not name.endswith("0")]
    tasks = [(args.seed, k, n, sanity) for k, n in enumerate(sizes)]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    if args.jobs == 1:
        chunks = [play_chunk(t) for t in tasks]
    else:
        with get_context("forkserver").Pool(args.jobs) as pool:
            chunks = list(pool.imap(play_chunk, tasks))  # in chunk order
    wall = time.perf_counter() - t0
    points = {name: np.concatenate([c["points"][name] for c in chunks]) for name in runs}
    cubes = {name: sum(c["cubes"][name] for c in chunks) / args.games for name in runs}
    cpu = sum(c["cpu"] for c in chunks)
    games = args.games * len(runs)
    print(f"seed {args.seed}; {args.games} dice sequences x {len(runs)} runs = {games} money "
          f"games with the cube (neural 0-ply both sides); {len(sizes)} chunks on {args.jobs} "
          f"process(es): {wall:.0f} s wall, {cpu:.1f} CPU s ({games / cpu:.0f} games per "
          f"CPU second); load average {load:.2f} before\n")

    print("| run | cubeful_play (seat 0, seat 1) | seat 0's points a game +- SE | mean final cube |")
    print("|---|---|---:|---:|")
    for name in runs:
        cp = SEATINGS[name]
        m, se = mean_se(points[name])
        print(f"| {name} | {cp} | {m:+.4f} +- {se:.4f} | {cubes[name]:.3f} |")

    margin = (points["A"] - points["B"]) / 2
    m, se = mean_se(margin)
    unpaired = math.sqrt(points["A"].var(ddof=1) + points["B"].var(ddof=1)) / 2 / math.sqrt(args.games)
    differ = int(np.count_nonzero(margin))
    print()
    print(f"Cubeful player's points a game against the cubeless one (paired, {args.games} dice "
          f"sequences, {2 * args.games} games): {m:+.4f} +- {se:.4f}  (z = {m / se:+.2f}; "
          f"without pairing the SE would be {unpaired:.4f}); cubeful minus cubeless points: "
          f"{2 * m:+.4f} +- {2 * se:.4f} a game")
    print(f"  dice sequences whose two games end differently for seat 0 (the checker play "
          f"changed the result): {differ} of {args.games}")
    if sanity:
        bm, bse = mean_se((points["A0"] - points["B0"]) / 2)
        print(f"Sanity, both cubeless on the same dice: margin {bm:+.6f} +- {bse:.6f}, "
              f"largest |difference| {float(np.abs(points['A0'] - points['B0']).max()):.3g} "
              f"(0 expected: identical games)")
    verdict = "met" if m > 0 and m / se >= 2 else "not shown (margin not 2 SEs above 0)"
    print(f"Target (a measured, positive margin over >= 20,000 games): {verdict}; "
          f"{2 * args.games} games played by the two players against each other.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
