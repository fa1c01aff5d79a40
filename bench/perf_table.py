"""Print the README's performance table (Markdown) on stdout.

    python bench/perf_table.py [--repeats 5]

Measures, in one process, the workloads of bench_movegen.py and bench_games.py (the
same inputs, the same assertions first) with ``time.perf_counter`` (wall clock) and
``time.process_time`` (CPU time of this process), each the median of ``--repeats``
runs, and puts the issue's targets beside the figures.  Wall clock is what a user
sees; CPU time is less disturbed by other processes waiting for the same cores (the
machine is shared while we develop), so both are printed.  A target is "met" on the
wall-clock median; when only the CPU-time figure reaches it the table says so.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_games  # noqa: E402
import bench_movegen  # noqa: E402


@dataclass
class Timing:
    wall: float  # median seconds per run, wall clock
    cpu: float  # median seconds per run, CPU time of this process


def measure(run: Callable[[], object], expected: object, repeats: int) -> Timing:
    """Assert the workload once (untimed warm-up), then time `repeats` runs."""
    got = run()
    if got != expected:
        raise AssertionError(f"workload check failed: got {got!r}, expected {expected!r}")
    walls, cpus = [], []
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        got = run()
        w1, c1 = time.perf_counter(), time.process_time()
        if got != expected:
            raise AssertionError(f"workload changed: got {got!r}, expected {expected!r}")
        walls.append(w1 - w0)
        cpus.append(c1 - c0)
    return Timing(statistics.median(walls), statistics.median(cpus))


def games_played(kind: str, games: int) -> dict:
    """bench_games.play's result without its timing, to compare runs."""
    result = bench_games.play(kind, games).to_dict()
    result.pop("elapsed_s")
    return result


def human(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:,.1f} M"
    return f"{rate:,.0f}"


def verdict(wall: float, cpu: float, target: float | None) -> str:
    if target is None:
        return "—"
    if wall >= target:
        return "met"
    if cpu >= target:
        return "missed (met on CPU time)"
    return "**missed**"


def git_revision(repo: Path) -> str:
    try:
        rev = subprocess.run(
            ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(repo), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return rev + (" (with uncommitted changes)" if dirty else "")


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per figure (median)")
    parser.add_argument("--random-games", type=int, default=5_000)
    parser.add_argument("--pubeval-games", type=int, default=2_000)
    parser.add_argument("--greedy-games", type=int, default=2_000)
    parser.add_argument("--gnubg-games", type=int, default=200)
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")

    import gnubg_nn  # noqa: F401  (test-only oracle: fail early and clearly if missing)
    import numpy
    import tavli_fast

    command = shlex.join(["python", *sys.argv]) if argv is None else shlex.join(
        ["python", "bench/perf_table.py", *argv]
    )
    load_before = os.getloadavg()

    mix = bench_movegen.workloads()["mix"]
    sets = {name: bench_movegen.workloads()[name] for name in ("contact", "race", "bar")}
    r = args.repeats
    t_count = measure(lambda: bench_movegen.run_count_batch(mix), mix.expected_plays, r)
    t_generate = measure(lambda: bench_movegen.run_generate_batch(mix), mix.expected_plays, r)
    t_legal = measure(lambda: bench_movegen.run_legal_positions(mix), mix.expected_plays, r)
    t_gnubg = measure(lambda: bench_movegen.run_gnubg_moves(mix), mix.expected_gnubg_plays, r)

    game_counts = {
        "random": args.random_games, "pubeval": args.pubeval_games, "greedy": args.greedy_games,
    }
    t_games: dict[str, Timing] = {}
    plies_mean: dict[str, float] = {}
    for kind, n in game_counts.items():
        first = bench_games.play(kind, n)
        bench_games.check_games(first, n)
        plies_mean[kind] = first.plies_mean
        # Timed runs must play the very same games (same seed, same outcome counts).
        expected = first.to_dict()
        expected.pop("elapsed_s")
        t_games[kind] = measure(lambda k=kind, n=n: games_played(k, n), expected, r)
    gnubg_plies = bench_games.gnubg_random_games(args.gnubg_games)
    t_gnubg_games = measure(lambda: bench_games.gnubg_random_games(args.gnubg_games), gnubg_plies, r)
    load_after = os.getloadavg()

    rows: list[tuple[str, float, float, str, float | None]] = []
    # (measure, wall rate, cpu rate, target text, target value)
    def add(label: str, work: float, t: Timing, target_text: str = "—", target=None):
        rows.append((label, work / t.wall, work / t.cpu, target_text, target))

    add("`count_plays_batch`: resulting positions/s", mix.expected_plays, t_count,
        "≥ 20 M/s per core", 20e6)
    add("`generate_plays_batch`: resulting positions/s", mix.expected_plays, t_generate,
        "≥ 40 M/s per core (issue 54)", 40e6)
    add("`legal_positions`: calls/s", mix.calls, t_legal)
    add("`gnubg_nn.moves`: calls/s", mix.calls, t_gnubg,
        "(issue: about 250,000 on positions from random games)")
    ratio_wall = t_gnubg.wall / t_legal.wall
    ratio_cpu = t_gnubg.cpu / t_legal.cpu
    add("`legal_positions`: resulting positions/s", mix.expected_plays, t_legal)
    add("`gnubg_nn.moves`: resulting positions/s", mix.expected_gnubg_plays, t_gnubg)
    add("random games/s", game_counts["random"], t_games["random"], "≥ 10,000 per core", 1e4)
    add("pubeval games/s", game_counts["pubeval"], t_games["pubeval"], "≥ 3,000 per core", 3e3)
    add("greedy games/s", game_counts["greedy"], t_games["greedy"])
    add("random games/s, Python loop over `gnubg_nn.moves`", args.gnubg_games, t_gnubg_games,
        "(context; a C loop: about 3,000)")

    out = print
    out(f"Command: `{command}`")
    out()
    out(
        f"tavli_fast {tavli_fast.__version__} (git {git_revision(bench_movegen.REPO)}), "
        f"Python {platform.python_version()}, numpy {numpy.__version__}, "
        f"gnubg-nn {_gnubg_version()}; {cpu_model()}, {os.cpu_count()} cores; "
        f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; "
        f"{time.strftime('%Y-%m-%d %H:%M')}."
    )
    out()
    counts = ", ".join(f"{len(w.ids):,} {name}" for name, w in sets.items())
    out(
        f"Move generation: {len(mix.ids):,} positions ({counts}) x the 36 rolls as dice fall "
        f"(each non-double in both orders) = {mix.calls:,} (position, roll) pairs, "
        f"{mix.expected_plays:,} resulting positions ({mix.expected_gnubg_plays:,} for "
        f"gnubg_nn.moves, which lists no move for a roll that cannot be played). Games: "
        f"self-play from the starting position, {game_counts['random']:,} random, "
        f"{game_counts['pubeval']:,} pubeval, {game_counts['greedy']:,} greedy, "
        f"{args.gnubg_games:,} over gnubg_nn.moves. One process, one thread; every figure is "
        f"the median of {r} runs (wall clock: `time.perf_counter`; CPU: `time.process_time`)."
    )
    out()
    out("| measure | wall clock | CPU time | target | |")
    out("|---|---:|---:|---|---|")
    for label, wall, cpu, target_text, target in rows:
        out(f"| {label} | {human(wall)} | {human(cpu)} | {target_text} | "
            f"{verdict(wall, cpu, target)} |")
        if label.startswith("`gnubg_nn.moves`: calls/s"):
            out(f"| `legal_positions` / `gnubg_nn.moves` calls/s | {ratio_wall:.2f} x | "
                f"{ratio_cpu:.2f} x | ≥ 2 x | {verdict(ratio_wall, ratio_cpu, 2.0)} |")
    out()
    out(
        "Mean game length (plies): "
        + ", ".join(f"{kind} {plies_mean[kind]:.1f}" for kind in game_counts)
        + f", random over gnubg_nn.moves {gnubg_plies / args.gnubg_games:.1f}."
    )
    return 0


def _gnubg_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gnubg-nn")
    except PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
