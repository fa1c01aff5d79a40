"""The process pool: same numbers for any jobs, spawn, worker logs, checkpoint/resume, a killed
worker, Ctrl-C, the target_se stop rule."""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import signal
import sys
import time

import pytest

from helpers import pos, process_alive
from tavli_fast.api import Executor, read_checkpoint, resume_rollout, rollout
from tavli_fast.run.executors.local import check_jobs, default_jobs, max_jobs

# 8 chunks of 1500 pubeval games: long enough to have several chunks in flight, short to run.
SPEC = dict(position="start", trials=12_000, players=("pubeval", "pubeval"), seed=20240501,
            chunk_size=1500)


@pytest.fixture(scope="module")
def reference():
    """The uninterrupted run, in this process."""
    return rollout(**SPEC, jobs=1)


def same_numbers(a, b):
    return (a.games, a.counts, a.plies_sum, a.plies_sumsq) == (b.games, b.counts, b.plies_sum, b.plies_sumsq)


def test_reference_run_is_complete(reference):
    assert reference.games == 12_000 and not reference.interrupted
    assert sum(reference.counts) + reference.truncated == 12_000


FORK = pytest.param(3, "fork", marks=pytest.mark.skipif(
    sys.version_info >= (3, 12), reason="fork with threads running warns from Python 3.12"))


@pytest.mark.parametrize("jobs,start_method", [(2, "forkserver"), FORK, (3, None), (2, "spawn")])
def test_same_seed_same_numbers_whatever_jobs(reference, jobs, start_method):
    r = rollout(**SPEC, executor=Executor(jobs, start_method))
    assert r.jobs == jobs
    assert same_numbers(r, reference)
    assert r.equity == reference.equity and r.se == reference.se


def test_other_seed_other_numbers(reference):
    r = rollout(**{**SPEC, "seed": SPEC["seed"] + 1}, jobs=2)
    assert not same_numbers(r, reference)


def test_worker_log_records_reach_the_parent(caplog):
    caplog.set_level(logging.DEBUG, logger="tavli_fast")
    rollout("start", 3000, players="pubeval", seed=1, chunk_size=1000, jobs=2)
    from_workers = [rec for rec in caplog.records
                    if rec.name == "tavli_fast.jobs.rollout_chunks" and rec.process != os.getpid()]
    assert len(from_workers) == 3  # one record per chunk, each from a worker process
    assert all("games in" in rec.getMessage() for rec in from_workers)


@pytest.mark.slow
def test_missing_bearoff_databases_are_built_once_in_the_parent(caplog, tmp_path, monkeypatch):
    from tavli_fast.play import bearoff

    reads = []
    read = bearoff.read_database
    monkeypatch.setattr(bearoff, "read_database", lambda *a, **k: reads.append(a[0]) or read(*a, **k))
    caplog.set_level(logging.INFO, logger="tavli_fast")
    rollout("start", 2000, players="pubeval", seed=1, chunk_size=500, jobs=2, cache_dir=tmp_path)
    builds = [rec for rec in caplog.records if rec.getMessage().startswith("building the")]
    assert len(builds) == 2  # the one-sided and the two-sided database, once each
    assert all(rec.process == os.getpid() for rec in builds)  # not in the workers
    assert reads == []  # built, not read: only the workers map and verify the 100 MB


def interrupt_after(n_games):
    """A progress callback that raises KeyboardInterrupt (as Ctrl-C would) once the reports
    count ``n_games`` (whole chunks and the games of the chunks in flight)."""
    calls = []

    def progress(p):
        calls.append(p)
        assert p.trials_done <= p.trials_total and p.equity_se >= 0
        if p.trials_done >= n_games and len([c for c in calls if c.trials_done >= n_games]) == 1:
            raise KeyboardInterrupt

    return progress


@pytest.mark.parametrize("jobs", [1, 2])
def test_interrupt_then_resume_gives_the_uninterrupted_numbers(reference, tmp_path, jobs):
    path = tmp_path / "run.json"
    partial = rollout(**SPEC, jobs=jobs, checkpoint=path, progress=interrupt_after(3 * 1500))
    assert partial.interrupted
    assert 3 * 1500 <= partial.games < 12_000
    assert partial.se["equity"] > 0 and partial.se["win"] > 0 and partial.se["win_gammon"] > 0
    assert "INTERRUPTED" in str(partial)
    saved = read_checkpoint(path)
    # The checkpoint holds whole chunks only; the chunks cut short count in the result (at
    # most one a unit in flight) and are played again, from their start, by the resume.
    assert all(v[0] == 1500 for v in saved["chunks"].values())
    whole = sum(v[0] for v in saved["chunks"].values())
    assert whole <= partial.games < whole + 2 * jobs * 1500
    assert saved["request"]["seed"] == SPEC["seed"]

    resumed = rollout(**SPEC, jobs=jobs, resume=path)
    assert not resumed.interrupted
    assert resumed.resumed_games == whole
    assert same_numbers(resumed, reference)
    # The checkpoint now holds every chunk, and resuming it again plays nothing new.
    again = resume_rollout(path, jobs=1)
    assert same_numbers(again, reference) and again.resumed_games == 12_000


def test_resume_to_more_trials_than_first_requested(tmp_path):
    path = tmp_path / "run.json"
    rollout("start", 2500, players="pubeval", seed=5, chunk_size=1000, jobs=1, checkpoint=path)
    longer = resume_rollout(path, trials=4000, jobs=2)
    direct = rollout("start", 4000, players="pubeval", seed=5, chunk_size=1000, jobs=1)
    assert longer.resumed_games == 2000  # the partial last chunk (500 games) is re-run as 1000
    assert same_numbers(longer, direct)


def test_resume_refuses_a_different_request(tmp_path):
    path = tmp_path / "run.json"
    rollout("start", 1000, players="pubeval", seed=5, chunk_size=500, jobs=1, checkpoint=path)
    with pytest.raises(ValueError, match="players"):
        rollout("start", 1000, players="random", seed=5, chunk_size=500, jobs=1, resume=path)
    with pytest.raises(ValueError, match="position"):
        rollout(pos("x 6:1; o 8:1"), 1000, players="pubeval", seed=5, chunk_size=500, jobs=1,
                resume=path)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"hello": 1}))
    with pytest.raises(ValueError, match="not a tavli_fast rollout checkpoint"):
        resume_rollout(bad)
    with pytest.raises(ValueError, match="not found"):
        resume_rollout(tmp_path / "missing.json")


def test_checkpoint_is_written_atomically(tmp_path):
    path = tmp_path / "run.json"
    rollout("start", 2000, players="pubeval", seed=5, chunk_size=500, jobs=2, checkpoint=path)
    doc = read_checkpoint(path)
    assert sorted(doc["chunks"], key=int) == ["0", "1", "2", "3"]
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]  # no temporary file left


@pytest.mark.parametrize("pause", [0.0, 1.0])
def test_a_killed_worker_has_its_chunk_rerun(reference, pause):
    # pause > 0 lets the pool notice the death before the next submission, so that path (a
    # submit on a broken pool) is taken for certain, not only when the timing happens to fall so.
    killed = []

    def kill_a_worker(p):
        # Progress now comes every half second, the first perhaps before the pool has
        # started: kill once a worker is there (the test fails below if none ever was).
        workers = multiprocessing.active_children()
        if not killed and workers and p.trials_done > 0:
            os.kill(workers[0].pid, signal.SIGKILL)
            killed.append(workers[0].pid)
            time.sleep(pause)

    r = rollout(**SPEC, jobs=2, progress=kill_a_worker)
    assert killed and r.worker_restarts >= 1
    assert not r.interrupted
    assert same_numbers(r, reference)  # nothing lost, nothing counted twice


OWNER_SCRIPT = """
import os, sys, time
from tavli_fast.run.executors.local import LocalExecutor

def unit(x):  # the first two units report their worker, the others wait long
    if x < 2:
        time.sleep(0.5)
        return os.getpid()
    time.sleep(120)

def completed(i, pid):
    if i < 2:
        print(pid, flush=True)

if __name__ == "__main__":
    LocalExecutor(2, sys.argv[1]).run(list(range(6)), unit, completed, lambda: False)
"""


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads process states from /proc")
@pytest.mark.parametrize("start_method", ["forkserver", "spawn"])
def test_workers_end_when_the_pool_owner_is_killed(tmp_path, start_method):
    # SIGKILL gives the owner no chance to stop its pool: the workers must notice by themselves
    # (without that they sat on in their unit, then waited for work forever).
    import subprocess
    script = tmp_path / "owner.py"
    script.write_text(OWNER_SCRIPT)
    owner = subprocess.Popen([sys.executable, str(script), start_method], cwd=tmp_path,
                             stdout=subprocess.PIPE, text=True)
    workers = [int(owner.stdout.readline()) for _ in range(2)]
    try:
        assert all(process_alive(w) for w in workers)
        owner.kill()
        owner.wait()
        deadline = time.monotonic() + 15
        while any(process_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(process_alive(w) for w in workers)
    finally:
        owner.kill()
        owner.wait()
        owner.stdout.close()
        for w in workers:
            if process_alive(w):
                with contextlib.suppress(ProcessLookupError):  # it may end in between
                    os.kill(w, signal.SIGKILL)


def test_target_se_stops_at_the_same_trial_whatever_jobs():
    spec = dict(position="start", trials=20_000, players="pubeval", seed=77, chunk_size=1000,
                target_se=0.02, min_trials=1000)
    one = rollout(**spec, jobs=1)
    two = rollout(**spec, jobs=2)
    assert one.target_reached and one.games < 20_000
    assert same_numbers(one, two)
    assert one.se["equity"] < 0.02
    # One chunk fewer would not have been enough (the rule stops at the first prefix below target).
    shorter = rollout(**{**spec, "trials": one.games - 1000, "target_se": None}, jobs=1)
    assert shorter.se["equity"] >= 0.02


def test_jobs_defaults_to_available_cpus():
    r = rollout(pos("x 1:1; o 6:14"), 10, seed=1)
    assert r.jobs == len(os.sched_getaffinity(0))


def test_jobs_beyond_four_per_cpu_are_refused_before_any_process_starts():
    """--jobs 100000 once ran and reported "100000 job(s)" (issue 51)."""
    assert max_jobs() == max(16, 4 * default_jobs())
    assert check_jobs(max_jobs()) == max_jobs()
    with pytest.raises(ValueError, match=f"at most {max_jobs()}"):
        check_jobs(max_jobs() + 1)
    with pytest.raises(ValueError, match="at most"):
        rollout("start", 10, "pubeval", seed=1, executor=100_000)
