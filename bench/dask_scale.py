"""Dask executor vs the local pool, the scheduler's overhead per task, the parent at 1e5 chunks.

    python bench/dask_scale.py                    # everything (about 2 minutes on 2 cores)
    python bench/dask_scale.py --trials 2e5 --repeats 1

1. Games per second of a random-player rollout of ``--trials`` (default 1e6, chunks of 10,000)
   on the local pool with 2 jobs and on a Dask cluster of 2 single-threaded worker processes
   on this machine (``LocalCluster``), each ``--repeats`` times, alternating; medians and their
   ratio (the issue's target: Dask >= 85 % of the local pool). Both runs must give the same
   numbers; the script checks it.
2. Tasks per second through each executor with a trivial unit (``abs`` of an int): the
   per-task overhead of the seam that a chunk must dwarf.
3. The parent's share of a 1e9-trial run (1e5 chunks of 10,000): planning the chunks, merging
   1e5 results with a progress report after each, one checkpoint write; time and peak memory.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def games_per_second(trials: int, repeats: int) -> None:
    import distributed

    import tavli_fast as tf

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        rates: dict[str, list[float]] = {"local pool, 2 jobs": [], "Dask, 2 workers": []}
        numbers = set()
        for _ in range(repeats):
            for name in rates:
                kwargs = {"jobs": 2} if name.startswith("local") else {"client": client}
                r = tf.rollout("start", trials, players="random", seed=1, **kwargs)
                assert r.games == trials and not r.interrupted
                numbers.add((r.counts, r.plies_sum))
                rates[name].append(r.games / r.elapsed_s)
        assert len(numbers) == 1, "the executors gave different numbers"
        med = {name: statistics.median(v) for name, v in rates.items()}
        for name, v in rates.items():
            print(f"{name:>20}: {med[name]:>9,.0f} games/s (median of {len(v)}: "
                  + ", ".join(f"{x:,.0f}" for x in v) + ")")
        print(f"{'Dask / local':>20}: {med['Dask, 2 workers'] / med['local pool, 2 jobs']:.1%}"
              "  (target >= 85%)")


def tasks_per_second(n: int) -> None:
    import distributed

    from tavli_fast.run.executors.dask import DaskExecutor
    from tavli_fast.run.executors.local import LocalExecutor

    units = list(range(n))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster, set_as_default=False) as client:
        for name, executor in (("local pool, 2 jobs", LocalExecutor(2)),
                               ("Dask, 2 workers", DaskExecutor(client=client))):
            got = []
            start = time.perf_counter()
            executor.run(units, abs, lambda i, r: got.append(r), lambda: False, None)
            elapsed = time.perf_counter() - start
            assert sorted(got) == units
            print(f"{name:>20}: {n / elapsed:>9,.0f} trivial tasks/s ({1e3 * elapsed / n:.2f} ms "
                  f"per task, {n} tasks)")


def parent_at_1e5_chunks(path: str) -> None:
    from tavli_fast.run.checkpoint import write_checkpoint
    from tavli_fast.jobs.rollout import RolloutJob, make_request, run_chunk

    before = rss_mb()
    start = time.perf_counter()
    job = RolloutJob(make_request("start", 10**9, "random", seed=1, chunk_size=10_000))
    units = job.plan()
    planned = time.perf_counter() - start
    one = run_chunk(units[0])
    start = time.perf_counter()
    for chunk in units:  # the same numbers for every chunk: only the parent's work is measured
        job.add(type(one)(chunk.index, one.games, one.counts, one.plies_sum, one.plies_sumsq,
                          one.truncated, one.moments))
        job.progress(1.0, 1.0)
    merged = time.perf_counter() - start
    start = time.perf_counter()
    write_checkpoint(path, job.to_checkpoint(0.0))
    saved = time.perf_counter() - start
    import os

    size = os.path.getsize(path) / 2**20
    os.unlink(path)
    print(f"{len(units):,} chunks: plan {planned:.1f} s, merge + progress {merged:.1f} s "
          f"({1e6 * merged / len(units):.0f} us per chunk), one checkpoint write {saved:.1f} s "
          f"({size:.0f} MB); peak RSS {rss_mb():.0f} MB ({rss_mb() - before:+.0f} MB)")


def main() -> None:
    from tavli_fast.cli import parse_count

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=parse_count, default=10**6)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--tasks", type=int, default=2000)
    ap.add_argument("--checkpoint-file", default="dask_scale_checkpoint.json")
    args = ap.parse_args()
    print(f"1. random rollout of {args.trials:,} trials, chunks of 10,000")
    games_per_second(args.trials, args.repeats)
    print("2. per-task overhead")
    tasks_per_second(args.tasks)
    print("3. the parent at 1e9 trials")
    parent_at_1e5_chunks(args.checkpoint_file)


if __name__ == "__main__":
    main()
