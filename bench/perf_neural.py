"""Print the README's neural-evaluator and legal_positions figures (Markdown) on stdout.

    python bench/perf_neural.py [--repeats 5]

In one process, one thread (so every rate is per core), each figure the median of
``--repeats`` timed runs after an untimed one that checks the workload:

- net evaluations/s on the 20,000 benchmark positions of bench_neural.py, by the exact
  float64 path (the reference, computed as the evaluator before issue 10 was) and by the
  fast float32 path, one board at a
  time; then the plays of one roll of each of 4,000 of those positions, evaluated as the
  players do (``play_equities``: as changes to the position before the move) against the
  same boards evaluated one by one by the exact path;
- neural 0-ply and 1-ply rollout games/s (``rollout(..., jobs=1)``, as ``tavli-rollout``
  plays them: bear-offs by the databases, truncation), with GNU Backgammon's speed in a
  Python loop over ``gnubg_nn.best_move`` (0-ply self-play games) as the in-run anchor
  (``gnubg_nn.probabilities`` is not timed: gnubg caches evaluations, so repeated runs
  over the same boards would measure its cache);
- ``legal_positions`` / ``gnubg_nn.moves`` calls/s on the move-generation workload of
  bench_movegen.py and on positions from random games.  The two are timed in alternation
  and the ratio is the median of the per-pair ratios, so that a change of load on the
  shared machine hits both sides of a pair alike.

``--weights FILE`` (an installed net by its bare name, e.g. ``neural-v7-256.npz`` from
``tavli_fast_nets``: ``pip install ./nets``) times that net instead of the shipped default,
and adds two ratios timed in alternation with the default in the same process:
single-board evaluations and 0-ply rollout games.

Times are CPU time of this process (``time.process_time``), less disturbed by other
processes on a shared machine than the wall clock; the wall-clock medians are printed too.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_movegen  # noqa: E402
import bench_neural  # noqa: E402
from perf_table import Timing, cpu_model, git_revision, human, measure  # noqa: E402


def rate_row(label: str, work: float, t: Timing, note: str = "") -> str:
    return f"| {label} | {human(work / t.cpu)} | {human(work / t.wall)} | {note} |"


def timed_pair(run_a: Callable[[], object], expected_a: object, run_b: Callable[[], object],
               expected_b: object, repeats: int) -> tuple[Timing, Timing, float]:
    """Time a and b in alternation: (a's medians, b's medians, median of the CPU-time ratios
    b / a), the workloads asserted on every run."""
    for run, expected in ((run_a, expected_a), (run_b, expected_b)):
        if (got := run()) != expected:
            raise AssertionError(f"workload check failed: got {got!r}, expected {expected!r}")
    cpu = {"a": [], "b": []}
    wall = {"a": [], "b": []}
    for _ in range(repeats):
        for key, run, expected in (("a", run_a, expected_a), ("b", run_b, expected_b)):
            c0, w0 = time.process_time(), time.perf_counter()
            got = run()
            w1, c1 = time.perf_counter(), time.process_time()
            if got != expected:
                raise AssertionError(f"workload changed: got {got!r}, expected {expected!r}")
            cpu[key].append(c1 - c0)
            wall[key].append(w1 - w0)
    ratio = statistics.median(b / a for a, b in zip(cpu["a"], cpu["b"]))
    return (Timing(statistics.median(wall["a"]), statistics.median(cpu["a"])),
            Timing(statistics.median(wall["b"]), statistics.median(cpu["b"])), ratio)


def plays_of_one_roll(boards: np.ndarray, n: int, seed: int = 7):
    """(before boards, their plays for one random roll each) for the first n live boards."""
    from tavli_fast import _core

    rng = np.random.default_rng(seed)
    items = []
    for board in boards:
        if board[0, 0] == 15 or board[1, 0] == 15:
            continue
        items.append((board, _core.generate(board, *(int(d) for d in rng.integers(1, 7, 2)))))
        if len(items) == n:
            break
    return items


def gnubg_boards(boards) -> list:
    """The boards in gnubg_nn's layout: [opponent's 25 entries, on-roll's 25 entries]."""
    return [[list(map(int, b[1, 1:26])), list(map(int, b[0, 1:26]))] for b in boards]


def gnubg_self_play(games: int, seed: int = 1) -> int:
    """GNU Backgammon 0-ply self-play (gnubg_nn.best_move) in a Python loop; the plies played."""
    import gnubg_nn
    from strength import _gnubg_play

    from tavli_fast.game.position import Position

    rng = np.random.default_rng(seed)
    start = Position.initial().board
    plies = 0
    for _ in range(games):
        board = start.copy()
        d1 = d2 = 0
        while d1 == d2:                          # R5: no double on the opening roll
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
        while True:
            board = _gnubg_play(gnubg_nn, board, d1, d2)
            plies += 1
            if board[0, 0] == 15:
                break
            board = np.ascontiguousarray(board[::-1])
            d1, d2 = (int(d) for d in rng.integers(1, 7, 2))
    return plies


def random_game_workload(boards: np.ndarray) -> tuple[list[str], list, list[tuple[int, int]]]:
    """Position IDs and gnubg boards of the live positions among `boards`, and the 36 rolls."""
    from tavli_fast.game.position import Position

    live = [b for b in boards if b[0, 0] < 15 and b[1, 0] < 15]
    ids = [Position.from_board(b).position_id() for b in live]
    rolls = [(a, b) for a in range(1, 7) for b in range(1, 7)]
    return ids, gnubg_boards(live), rolls


def count_legal(ids: list[str], rolls) -> int:
    from tavli_fast import legal_positions as lp

    return sum(len(lp(i, d1, d2)) for i in ids for d1, d2 in rolls)


def count_gnubg(boards: list, rolls) -> int:
    import gnubg_nn

    moves = gnubg_nn.moves
    return sum(len(moves(b, d1, d2)) for b in boards for d1, d2 in rolls)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure (median)")
    parser.add_argument("--games-0ply", type=int, default=2_000, help="neural 0-ply rollout trials")
    parser.add_argument("--games-1ply", type=int, default=40, help="neural-1ply rollout trials")
    parser.add_argument("--gnubg-games", type=int, default=100, help="gnubg 0-ply Python-loop games")
    parser.add_argument("--weights", metavar="FILE", default=None,
                        help="time this weights file's net instead of the shipped one, and "
                        "against it in alternation")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    import gnubg_nn  # test-only oracle: fail early and clearly if missing

    import tavli_fast as tf
    from tavli_fast import _core

    from tavli_fast.play.neural import default_net, evaluator

    command = shlex.join(["python", "bench/perf_neural.py", *(sys.argv[1:] if argv is None else argv)])
    load_before = os.getloadavg()
    r = args.repeats
    shipped = default_net()
    net = evaluator(args.weights)
    boards = bench_neural.positions(bench_neural.N_POSITIONS)
    n = len(boards)

    # Evaluations, one board at a time: exact (the evaluator before issue 10) and fast.
    t_exact = measure(lambda: len(net.evaluate_many(boards, exact=True)), n, r)
    t_fast = measure(lambda: len(net.evaluate_many(boards)), n, r)
    worst_single = float(np.abs(net.evaluate_many(boards) - net.evaluate_many(boards, exact=True)).max())

    # The plays of a roll: as the players evaluate them, and by the exact path one by one.
    items = plays_of_one_roll(boards, 4_000)
    n_plays = sum(len(p) for _, p in items)
    switched = np.ascontiguousarray(np.concatenate([p for _, p in items])[:, ::-1])
    t_plays_exact = measure(lambda: len(net.evaluate_many(switched, exact=True)), n_plays, r)
    t_plays_fast = measure(lambda: sum(len(net.play_equities(b, p)) for b, p in items), n_plays, r)
    worst_plays = max(float(np.abs(net.play_equities(b, p)
                                   - [net.move_equity(q, exact=True) for q in p]).max())
                      for b, p in items[:500])

    # Rollout games per core.
    def rollout_games(player: str, trials: int, weights: str | None) -> Callable[[], tuple]:
        def run():
            res = tf.rollout("start", trials, players=(player, player), seed=1, jobs=1, vr=False,
                             weights=weights)
            return res.trials, round(res.equity, 12)
        return run
    games0 = rollout_games("neural", args.games_0ply, args.weights)
    first0 = games0()
    t_games0 = measure(games0, first0, r)
    games1 = rollout_games("neural-1ply", args.games_1ply, args.weights)
    t_games1 = measure(games1, games1(), max(1, r // 2))
    gnubg_plies = gnubg_self_play(args.gnubg_games)
    t_gnubg_games = measure(lambda: gnubg_self_play(args.gnubg_games), gnubg_plies, max(1, r // 2))

    # legal_positions against gnubg_nn.moves, timed in alternation.
    mix = bench_movegen.workloads()["mix"]
    t_legal, t_moves, ratio_mix = timed_pair(
        lambda: bench_movegen.run_legal_positions(mix), mix.expected_plays,
        lambda: bench_movegen.run_gnubg_moves(mix), mix.expected_gnubg_plays, r)
    ids, gboards, rolls = random_game_workload(boards[:3_000])
    expected, expected_gnubg = count_legal(ids, rolls), count_gnubg(gboards, rolls)
    # gnubg lists no move for a roll that cannot be played, where we list the position itself.
    assert 0 <= expected - expected_gnubg <= len(ids) * len(rolls), (expected, expected_gnubg)
    t_legal_rg, t_moves_rg, ratio_rg = timed_pair(
        lambda: count_legal(ids, rolls), expected, lambda: count_gnubg(gboards, rolls),
        expected_gnubg, r)
    if args.weights:  # the ratios to the shipped net, timed in alternation
        _, _, ratio_eval = timed_pair(lambda: len(shipped.evaluate_many(boards)), n,
                                      lambda: len(net.evaluate_many(boards)), n, r)
        shipped0 = rollout_games("neural", args.games_0ply, None)
        _, _, ratio_games = timed_pair(shipped0, shipped0(), games0, first0, r)
    load_after = os.getloadavg()

    out = print
    out(f"Command: `{command}`")
    out()
    out(f"tavli_fast {tf.__version__} (git {git_revision(bench_movegen.REPO)}), "
        f"Python {platform.python_version()}, numpy {np.__version__}; {cpu_model()}, "
        f"{os.cpu_count()} cores; SIMD kernels: {_core.SIMD_KERNELS}; load average "
        f"{load_before[0]:.2f} before, {load_after[0]:.2f} after; {time.strftime('%Y-%m-%d %H:%M')}. "
        f"One process, one thread; medians of {r} runs.")
    if args.weights:
        out()
        out(f"Net: {args.weights} ({net.hidden} hidden units). Timed in alternation with the "
            f"shipped net, its CPU time is **{ratio_eval:.2f} x** the shipped net's for single "
            f"boards and **{ratio_games:.2f} x** for 0-ply rollout games.")
    out()
    out("| measure | per second (CPU time) | per second (wall clock) | |")
    out("|---|---:|---:|---|")
    out(rate_row("net evaluations, one board at a time, exact float64 path (the reference)",
                 n, t_exact, f"{n:,} benchmark positions"))
    out(rate_row("net evaluations, one board at a time, fast path", n, t_fast,
                 f"**{t_exact.cpu / t_fast.cpu:.2f} x** exact; max difference {worst_single:.1e}"))
    out(rate_row("net evaluations of the plays of a roll, exact path, board by board", n_plays,
                 t_plays_exact, f"{n_plays:,} plays of one roll of {len(items):,} positions"))
    out(rate_row("net evaluations of the plays of a roll, fast path (`play_equities`, as the players)",
                 n_plays, t_plays_fast,
                 f"**{t_plays_exact.cpu / t_plays_fast.cpu:.2f} x** exact; max equity difference "
                 f"{worst_plays:.1e}"))
    out(rate_row("neural 0-ply rollout games (`rollout(..., jobs=1)`)", args.games_0ply, t_games0))
    out(rate_row("neural-1ply rollout games", args.games_1ply, t_games1))
    out(rate_row("gnubg 0-ply self-play games, Python loop over gnubg_nn.best_move (anchor)",
                 args.gnubg_games, t_gnubg_games))
    out(rate_row("`legal_positions` calls, bench_movegen mix", mix.calls, t_legal))
    out(rate_row("`gnubg_nn.moves` calls, bench_movegen mix", mix.calls, t_moves,
                 f"`legal_positions` / `gnubg_nn.moves`: **{ratio_mix:.2f} x** (target ≥ 2 x)"))
    calls = len(ids) * len(rolls)
    out(rate_row("`legal_positions` calls, positions from random games", calls, t_legal_rg,
                 f"{len(ids):,} positions x 36 rolls"))
    out(rate_row("`gnubg_nn.moves` calls, positions from random games", calls, t_moves_rg,
                 f"`legal_positions` / `gnubg_nn.moves`: **{ratio_rg:.2f} x** (target ≥ 2 x)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
