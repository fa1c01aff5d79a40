"""The server's job registry on its own (jobs that need no engine): bounded running jobs,
finished jobs dropped by age and by count, cancel and shutdown."""

from __future__ import annotations

import json
import threading
import time

import pytest

from tavli_fast.serve.jobs import Busy, JobRegistry


class _Result:
    def __init__(self, interrupted: bool):
        self.interrupted = interrupted

    def to_json(self) -> str:
        return json.dumps({"interrupted": self.interrupted, "equity": float("nan")})


def _quick(progress, cancel: threading.Event) -> _Result:
    return _Result(False)


def _until_cancelled(progress, cancel: threading.Event) -> _Result:
    cancel.wait(30)
    return _Result(True)


def _wait_done(registry: JobRegistry, job_id: str) -> None:
    deadline = time.monotonic() + 10
    while registry.get(job_id).status == "running":
        assert time.monotonic() < deadline
        time.sleep(0.01)


def test_running_jobs_are_bounded_and_cancel_keeps_the_partial_result():
    registry = JobRegistry(max_running=1)
    job = registry.start("rollout", _until_cancelled)
    with pytest.raises(Busy) as refused:
        registry.start("rollout", _quick)
    assert refused.value.retry_after_s > 0
    job.cancel.set()
    _wait_done(registry, job.id)
    assert job.status == "cancelled" and job.result == {"interrupted": True, "equity": None}
    assert registry.start("rollout", _quick).kind == "rollout"


def test_finished_jobs_are_dropped_by_count_oldest_first():
    registry = JobRegistry(max_running=5, max_kept=3)
    ids = []
    for _ in range(5):
        ids.append(registry.start("rollout", _quick).id)
        _wait_done(registry, ids[-1])
    assert [registry.get(i) is None for i in ids] == [True, True, False, False, False]


def test_a_failing_job_says_why_and_shutdown_stops_the_running_ones():
    def broken(progress, cancel):
        raise ValueError("bad\nposition")

    registry = JobRegistry(max_running=3)
    failed = registry.start("rollout", broken)
    _wait_done(registry, failed.id)
    assert failed.status == "failed" and failed.error == "bad position"
    running = registry.start("rollout", _until_cancelled)
    assert registry.shutdown(timeout_s=10) and running.status == "cancelled"
    assert registry.cancelled_at_close == 1
    with pytest.raises(Busy):
        registry.start("rollout", _quick)      # a stopping server starts no more
