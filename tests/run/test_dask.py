"""The Dask executor on a real cluster: a scheduler and 2 workers on 127.0.0.1, started as
subprocesses (``dask scheduler``, ``dask worker``) once for this module.

Same numbers as the local pool (rollout, opening statistics and matches, through
``--scheduler``), a
worker killed mid-run, Ctrl-C then a resume on the local pool, a worker that differs, an
unreachable scheduler, and Dask not installed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import tavli_fast
from tavli_fast.run.executors import make_executor
from tavli_fast.run.executors.dask import (CONNECT_TIMEOUT_S, ENV_TIMEOUT, ClusterError,
                                          DaskMissingError, connect_timeout_s)
from tavli_fast.jobs.openings_report import openings
from tavli_fast.api import Executor, play_matches, read_checkpoint, resume_rollout, rollout

import distributed  # noqa: E402 - in the [test] extra

DASK = str(Path(sys.executable).with_name("dask"))
ROLLOUT_CLI = [sys.executable, "-m", "tavli_fast"]
MATCH_CLI = [sys.executable, "-m", "tavli_fast.cli.match"]
OPENINGS_CLI = [sys.executable, "-c", "import sys; from tavli_fast.cli.openings import main; sys.exit(main())"]

# 10 chunks of 1000 pubeval games: several chunks in flight on each worker, a second or two.
SPEC = dict(position="start", trials=10_000, players=("pubeval", "pubeval"), seed=20261130,
            chunk_size=1000)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def cluster():
    """(scheduler address, connected client): 2 workers of one thread each, with nannies (a
    killed worker process is replaced)."""
    address = f"tcp://127.0.0.1:{free_port()}"
    procs = [subprocess.Popen([DASK, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                               "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    client = None
    try:
        for _ in range(2):
            procs.append(subprocess.Popen(
                [DASK, "worker", address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while client is None:
            try:
                client = distributed.Client(address, timeout=5, set_as_default=False)
            except OSError:
                assert time.monotonic() < deadline, "the scheduler did not start"
                time.sleep(0.5)
        client.wait_for_workers(2, timeout=60)
        yield address, client
    finally:
        if client is not None:
            client.close()
        for p in reversed(procs):
            p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.fixture(scope="module")
def reference():
    return rollout(**SPEC, jobs=1)


def same_numbers(a, b) -> bool:
    return ((a.games, a.counts, a.plies_sum, a.plies_sumsq, a.truncated, a.totals.moments)
            == (b.games, b.counts, b.plies_sum, b.plies_sumsq, b.truncated, b.totals.moments))


@pytest.mark.slow
def test_rollout_through_scheduler_is_identical_to_local(cluster, reference):
    address, _ = cluster
    p = subprocess.run([*ROLLOUT_CLI, "--trials", "10000", "--chunk-size", "1000", "--seed",
                        str(SPEC["seed"]), "--player", "pubeval", "--scheduler", address, "--json"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["jobs"] == 2  # the cluster's worker threads
    assert doc["trials"] == reference.games
    assert list(doc["counts"].values()) == list(reference.counts)
    assert doc["equity"] == reference.equity and doc["se"] == reference.se
    assert doc["mean_plies"] == reference.mean_plies


def test_openings_through_scheduler_are_identical_to_local(cluster):
    address, _ = cluster
    args = ["--trials", "200", "--chunk-size", "100", "--player", "pubeval", "--rolls", "31,62",
            "--seed", "4", "--screen", "0.2", "--screen-trials", "100", "--json"]
    p = subprocess.run([*OPENINGS_CLI, *args, "--scheduler", address], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    local = openings(trials=200, chunk_size=100, players="pubeval", rolls="31,62", seed=4,
                     screen=0.2, screen_trials=100, jobs=1)
    ignore = ("elapsed_s", "jobs")
    on_dask = {k: v for k, v in json.loads(p.stdout).items() if k not in ignore}
    assert on_dask == {k: v for k, v in json.loads(local.to_json()).items() if k not in ignore}


def test_candidate_plays_through_scheduler_are_identical_to_local(cluster):
    address, _ = cluster
    args = ["--dice", "62", "--plays", "24/18 13/11,13/5,24/16", "--trials", "648",
            "--chunk-size", "324", "--player", "pubeval", "--seed", "6", "--json"]
    p = subprocess.run([*ROLLOUT_CLI, *args, "--scheduler", address], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    local = tavli_fast.rollout_plays("start", "62", 648, "pubeval", 6, jobs=1, chunk_size=324,
                                     plays="24/18 13/11,13/5,24/16")
    ignore = ("elapsed_s", "jobs")
    on_dask = {k: v for k, v in json.loads(p.stdout).items() if k not in ignore}
    assert on_dask == {k: v for k, v in json.loads(local.to_json()).items() if k not in ignore}


def test_matches_and_cubeful_rollouts_through_scheduler_are_identical_to_local(cluster):
    address, client = cluster
    local = play_matches(3, 60, "pubeval,greedy", seed=5, chunk_size=20, jobs=1)
    on_dask = play_matches(3, 60, "pubeval,greedy", seed=5, chunk_size=20, executor=Executor(client=client))
    assert on_dask.tallies == local.tallies and on_dask.matches == 60
    p = subprocess.run([*MATCH_CLI, "--length", "3", "--matches", "60", "--chunk-size", "20",
                        "--seed", "5", "--players", "pubeval,greedy", "--scheduler", address,
                        "--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["win"] == list(local.win)
    cube = dict(position="start", trials=400, players="pubeval", seed=3, chunk_size=100,
                cubeful=True)
    assert rollout(**cube, executor=Executor(client=client)).cubeful == rollout(**cube, jobs=1).cubeful


def test_a_killed_worker_process_changes_nothing(cluster, reference):
    _, client = cluster
    pids = client.run(os.getpid)  # {worker address: pid of its worker process}
    killed = []

    def kill_a_worker(progress):
        if not killed:
            address, pid = sorted(pids.items())[0]
            os.kill(pid, signal.SIGKILL)  # its nanny starts a fresh worker process
            killed.append(address)

    r = rollout(**SPEC, executor=Executor(client=client), progress=kill_a_worker)
    assert killed and not r.interrupted
    assert same_numbers(r, reference)  # nothing lost, nothing counted twice
    client.wait_for_workers(2, timeout=60)


def test_interrupted_on_dask_resumes_on_the_local_pool(cluster, reference, tmp_path):
    _, client = cluster
    path = tmp_path / "run.json"
    calls = []

    def interrupt_after_two(progress):  # two chunks merged (a cluster has no games in flight)
        if progress.trials_done >= 2000 and not calls:
            calls.append(progress)
            raise KeyboardInterrupt

    partial = rollout(**SPEC, executor=Executor(client=client), checkpoint=path,
                      progress=interrupt_after_two)
    assert partial.interrupted and 2000 <= partial.games < 10_000
    assert sum(v[0] for v in read_checkpoint(path)["chunks"].values()) == partial.games
    resumed = resume_rollout(path, jobs=1)
    assert resumed.resumed_games == partial.games
    assert same_numbers(resumed, reference)


def test_a_worker_with_another_version_is_refused_by_name(cluster):
    _, client = cluster
    address = sorted(client.nthreads())[0]

    def set_version(version):
        import tavli_fast as tf

        tf.__version__ = version

    client.run(set_version, "0.0.0-other", workers=[address])
    try:
        with pytest.raises(ClusterError, match=f"{address}.*0.0.0-other"):
            rollout(**SPEC, executor=Executor(client=client))
    finally:
        client.run(set_version, tavli_fast.__version__, workers=[address])


def test_unreachable_scheduler_exits_2_with_one_line_after_the_timeout():
    """A second's wait, set by $TAVLI_FAST_DASK_TIMEOUT (the default, 10 s, is checked below;
    a test that waited for it would only wait)."""
    start = time.monotonic()
    p = subprocess.run([*ROLLOUT_CLI, "--trials", "1000", "--scheduler",
                        f"tcp://127.0.0.1:{free_port()}"], capture_output=True, text=True,
                       timeout=60, env={**os.environ, ENV_TIMEOUT: "1"})
    assert time.monotonic() - start < 8  # 1 s of waiting and the start-up, not the default 10
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the Dask scheduler" in lines[0], p.stderr


def test_the_wait_for_a_scheduler_is_10_s_unless_the_environment_says(monkeypatch):
    monkeypatch.delenv(ENV_TIMEOUT, raising=False)
    assert connect_timeout_s() == CONNECT_TIMEOUT_S == 10.0
    monkeypatch.setenv(ENV_TIMEOUT, "2.5")
    assert connect_timeout_s() == 2.5
    for bad in ("soon", "0", "-3", "nan", "inf", ""):
        monkeypatch.setenv(ENV_TIMEOUT, bad)
        with pytest.raises(ValueError, match=f"{ENV_TIMEOUT} must be a number of seconds > 0"):
            connect_timeout_s()
    p = subprocess.run([*ROLLOUT_CLI, "--trials", "1000", "--scheduler", "tcp://127.0.0.1:8786"],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, ENV_TIMEOUT: "soon"})
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{ENV_TIMEOUT} must be a number of seconds > 0" in lines[0], p.stderr


def test_jobs_with_a_scheduler_is_bad_usage():
    p = subprocess.run([*ROLLOUT_CLI, "-j", "2", "--scheduler", "tcp://127.0.0.1:8786"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "--jobs cannot be used with --scheduler" in p.stderr
    with pytest.raises(ValueError, match="not a Dask scheduler address"):
        rollout(**SPEC, executor=Executor(scheduler="no-port-here"))


def test_without_dask_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(DaskMissingError, match=r"pip install 'tavli_fast\[dask\]'"):
        make_executor(scheduler="tcp://127.0.0.1:8786")


def test_training_targets_through_scheduler_are_identical_to_local(cluster, tmp_path):
    """Issue 13: the training data is made on the same driver, so a cluster gives the same
    shards as the local pool."""
    from tavli_fast.jobs import targets as supervise
    from tavli_fast.play.neural import default_net

    _, client = cluster
    net = default_net()
    supervise.make_targets(tmp_path / "dask", net, 3, seed=8, unit_games=1, client=client)
    supervise.make_targets(tmp_path / "local", net, 3, seed=8, unit_games=1, jobs=1)
    a, b = supervise.load_targets(tmp_path / "dask"), supervise.load_targets(tmp_path / "local")
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and len(a[0]) > 0


def test_a_cancel_drops_the_tasks_of_the_cluster_at_once(cluster):
    # Last in the file: the dropped tasks still run on the workers until the cluster ends.
    _, client = cluster
    cancel = threading.Event()
    calls = []
    timer = threading.Timer(8.0, cancel.set)
    started = time.monotonic()
    timer.start()
    r = rollout("start", 4_000_000, players="pubeval", seed=3, chunk_size=1_000_000,
                executor=Executor(client=client), cancel=cancel, progress=calls.append)
    timer.join()
    assert r.interrupted and r.games < 4_000_000
    assert time.monotonic() - started - 8.0 < 10.0  # the tasks of 1e6 games are not waited for
    assert calls  # progress every second or so, though no chunk ended
