"""Huge counts (issue 41): one upper bound for every count, plans made on demand, Ctrl-C works.

``--trials 1e30`` used to be accepted: the run planned chunks without end (memory grew about
28 MB/s) and Ctrl-C was not heard. Now every count of the API and the commands is at most
``inputs.MAX_COUNT`` (an InvalidCountError, a ValueError; exit status 2 with one line), a
plan is a sequence made on demand whatever its size, and SIGINT stops a run even when the
command inherited it ignored (a command started in the background of a script).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
import tracemalloc
from contextlib import contextmanager
from typing import Iterator

import pytest

import tavli_fast as tf
from tavli_fast.play import neural
from tavli_fast.jobs import targets as supervise
from tavli_fast.training import train
from tavli_fast.errors import InvalidCountError
from tavli_fast.run.executors import LocalExecutor
from tavli_fast.checks import MAX_COUNT, check_count
from tavli_fast.jobs.match import MatchJob, make_match_request
from tavli_fast.jobs.openings import OpeningsJob, make_openings_request
from tavli_fast.run.plans import ChainedPlan, MissingIndices, UnitPlan, part_size
from tavli_fast.jobs.rollout import ChunkResult, RolloutJob, make_request, plan_chunks

TOO_MANY = [MAX_COUNT + 1, 1e13, 1e30, 10**30]

#: A seed that no function takes: checked after the counts, it makes a function that would
#: accept a huge count fail at once (instead of starting the huge run), so that these tests
#: fail, not hang, if the bound were gone.
BAD_SEED = -1


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Fail a block of Python code that runs longer than `seconds` (a plan built in full)."""

    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------------------------------
# One bound for every count
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", TOO_MANY)
def test_check_count_refuses_more_than_max_count(value):
    with pytest.raises(InvalidCountError, match="at most 1e12"):
        check_count(value, "trials")


def test_check_count_takes_max_count_and_zero_where_allowed():
    assert check_count(MAX_COUNT) == MAX_COUNT and check_count(float(MAX_COUNT)) == MAX_COUNT
    assert check_count(0, "min_trials", minimum=0) == 0
    with pytest.raises(InvalidCountError):
        check_count(0)
    assert issubclass(InvalidCountError, ValueError) and tf.InvalidCountError is InvalidCountError


API_CALLS = {
    # The main counts: with the bound gone these would start a huge run, so a bad seed (checked
    # after them) stops them at once.
    "rollout trials": lambda n: tf.rollout("start", n, players="pubeval", seed=BAD_SEED, jobs=1),
    "openings trials": lambda n: tf.openings(trials=n, players="pubeval", seed=BAD_SEED, jobs=1),
    "replies trials": lambda n: tf.replies("31", "8/5 6/5", trials=n, players="pubeval",
                                           seed=BAD_SEED, jobs=1),
    "play_matches matches": lambda n: tf.play_matches(5, n, "pubeval", seed=BAD_SEED, jobs=1),
    "simulate games": lambda n: tf.simulate("start", n, seed=BAD_SEED),
    "simulate plakoto games": lambda n: tf.simulate(games=n, rules="plakoto", seed=BAD_SEED),
    "train games": lambda n: train.train(n, 1, lam=2.0),
    "make_targets games": lambda n: supervise.make_targets("unused", neural.default_net(), n,
                                                           explore=2.0),
    "rollout_probs trials": lambda n: supervise.rollout_probs(neural.default_net(), [], n, 1),
    # The others: a run of 10 trials or matches, quick even if the bound were gone.
    "rollout chunk_size": lambda n: tf.rollout("start", 10, players="pubeval", chunk_size=n,
                                               seed=1, jobs=1),
    "rollout min_trials": lambda n: tf.rollout("start", 10, players="pubeval", min_trials=n,
                                               target_se=0.1, seed=1, jobs=1),
    "rollout truncate_plies": lambda n: tf.rollout("start", 10, players="neural", truncate_plies=n,
                                                   seed=1, jobs=1),
    "openings screen_trials": lambda n: tf.openings(trials=100, screen=0.1, screen_trials=n,
                                                    players="pubeval", rolls="31", seed=1, jobs=1),
    "play_matches chunk_size": lambda n: tf.play_matches(5, 10, "pubeval", chunk_size=n, seed=1,
                                                         jobs=1),
}


@pytest.mark.parametrize("call", API_CALLS.values(), ids=API_CALLS.keys())
def test_the_api_refuses_a_count_above_the_bound_before_anything_else(call, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InvalidCountError, match="at most 1e12"):
        call(MAX_COUNT + 1)


def test_resume_rollout_refuses_a_count_above_the_bound(tmp_path):
    path = tmp_path / "run.json"
    tf.rollout("start", 10, players="pubeval", seed=3, jobs=1, checkpoint=path)
    with pytest.raises(InvalidCountError, match="at most 1e12"):
        tf.resume_rollout(path, trials=1e30, jobs=1)


# ---------------------------------------------------------------------------------------------
# Plans made on demand
# ---------------------------------------------------------------------------------------------


def test_part_size_cuts_a_total_into_parts():
    for total, size in ((10, 3), (9, 3), (1, 5), (MAX_COUNT, 7)):
        count = -(-total // size)
        assert part_size(total, size, count - 1) == total - (count - 1) * size
        assert part_size(total, size, count) is None and part_size(total, size, -1) is None
        assert all(part_size(total, size, i) == size for i in range(min(count - 1, 100)))


def test_missing_indices_match_a_plain_list():
    rng = random.Random(41)
    for _ in range(200):
        total = rng.randrange(0, 60)
        done = rng.sample(range(total + 5), rng.randrange(0, total + 5))
        expected = [i for i in range(total) if i not in done]
        missing = MissingIndices(total, done)
        assert len(missing) == len(expected) and list(missing) == expected
        assert [missing[k] for k in range(len(expected))] == expected
        if expected:
            assert missing[-1] == expected[-1]
        with pytest.raises(IndexError):
            missing[len(expected)]


def test_a_chained_plan_indexes_and_iterates_its_parts_in_order():
    plan = ChainedPlan([UnitPlan(range(3), lambda i: ("a", i)), UnitPlan(range(0), str),
                        UnitPlan(range(5, 7), lambda i: ("b", i))])
    expected = [("a", 0), ("a", 1), ("a", 2), ("b", 5), ("b", 6)]
    assert len(plan) == 5 and list(plan) == expected and [plan[i] for i in range(5)] == expected


@contextmanager
def little_memory(limit_bytes: int) -> Iterator[None]:
    tracemalloc.start()
    try:
        yield
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < limit_bytes, f"{peak:,} bytes"


def test_a_rollout_of_max_count_trials_plans_at_once_in_little_memory():
    request = make_request("start", MAX_COUNT, players="pubeval", seed=1, chunk_size=1)
    done = [ChunkResult.from_list(i, [1, 1, 0, 0, 0, 0, 0, 1, 1, 0, *[0] * 12]) for i in (0, 2)]
    with time_limit(10), little_memory(1_000_000):
        plan = RolloutJob(request, done).plan()
        assert len(plan) == MAX_COUNT - 2
        assert [plan[k].index for k in range(3)] == [1, 3, 4]
        last = plan[-1]
    assert last.index == MAX_COUNT - 1 and last.first_trial == MAX_COUNT - 1 and last.n_games == 1
    assert plan_chunks(request)[5].seed == plan[3].seed  # chunk 5 is the same in both plans


def test_matches_and_openings_of_max_count_plan_at_once_in_little_memory():
    matches = make_match_request(5, MAX_COUNT, "pubeval", seed=1, chunk_size=1)
    openings = make_openings_request(MAX_COUNT, "pubeval", seed=1, rolls="31,62", chunk_size=1)
    with time_limit(10), little_memory(2_000_000):
        match_plan = MatchJob(matches).plan()
        openings_plan = OpeningsJob(openings).plan()
        assert len(match_plan) == MAX_COUNT and match_plan[-1].n_matches == 1
        assert len(openings_plan) == 2 * MAX_COUNT
        first_of_62 = openings_plan[MAX_COUNT]
    assert first_of_62.roll_index == 1 and first_of_62.chunk == 0


def _finish_after(n: int):
    seen: list[int] = []
    return seen, (lambda i, result: seen.append(result)), (lambda: len(seen) >= n)


@pytest.mark.parametrize("jobs", [1, 2])
def test_executors_take_units_from_a_huge_plan_one_at_a_time(jobs):
    plan = UnitPlan(range(MAX_COUNT), int)  # unit i is the number i; the worker negates it
    seen, completed, done = _finish_after(10)
    with time_limit(60):
        LocalExecutor(jobs).run(plan, abs, completed, done)
    # Units are taken in order, at most 2 per worker in flight: the first ten results come from
    # the first units (with 2 workers one early unit may still be running when ten are in).
    assert len(seen) >= 10 and len(set(seen)) == len(seen)
    assert max(seen) < 10 + 2 * jobs, seen


# ---------------------------------------------------------------------------------------------
# The command line: bounded counts, and Ctrl-C in a run of 1e12 trials
# ---------------------------------------------------------------------------------------------

CLI = [sys.executable, "-m", "tavli_fast"]


@pytest.mark.parametrize("argv", [["--trials", "1e30"], ["--trials", "1000000000001"],
                                  ["--chunk-size", "1e13"], ["--min-trials", "1e30"]])
def test_tavli_rollout_refuses_a_huge_count_in_one_line(argv):
    p = subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and len(p.stderr.strip().splitlines()) == 1, p.stderr
    assert "1e12" in p.stderr and "Traceback" not in p.stderr


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("VmRSS:")).split()[1])


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as `cmd &` in a script leaves it


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads /proc")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_stops_a_rollout_of_1e12_trials_whose_memory_stays_flat(jobs):
    """Chunks of one trial, so that a plan made in full would be 1e12 chunks; SIGINT inherited
    ignored, as in a script's background job: it must stop the run all the same."""
    cmd = [*CLI, "--trials", "1e12", "--chunk-size", "1", "--player", "random", "--seed", "5",
           "--jobs", jobs, "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_ignore_sigint)
    try:
        time.sleep(3)   # past the start-up (imports, the databases read, the unit thread)
        early = _rss_kb(proc.pid)
        time.sleep(1.5)
        growth = _rss_kb(proc.pid) - early
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "INTERRUPTED" in out and "of 1,000,000,000,000" in out
    assert "Traceback" not in err
    assert growth < 15_000, f"the parent grew {growth} kB in 1.5 s"
    played = int(out.split("Rollout: ")[1].split(" trials")[0].replace(",", ""))
    assert played > 0  # the games started at once: no plan was built first
