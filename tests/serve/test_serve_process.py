"""The ``tavli-serve`` process: SIGINT and SIGTERM cancel its jobs and stop it within seconds,
and none of its worker processes outlives it; another host than loopback warns."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request

import pytest

pytest.importorskip("fastapi", reason="the [serve] extra (in the test extra) is not installed")

from helpers import process_alive  # noqa: E402
from served import start_server  # noqa: E402  (tests/serve/served.py)


def _call(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as r:
        return json.loads(r.read())


def _descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads the process tree from /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_cancels_the_jobs_and_leaves_no_worker_behind(sig):
    served = start_server("--jobs", "2")
    try:
        job = _call(served.url + "v1/rollouts", "POST",
                    {"position": "start", "player": "pubeval", "trials": 10**8, "seed": 1,
                     "chunk_size": 1000})
        deadline = time.monotonic() + 60
        while not (_call(served.url + f"v1/rollouts/{job['id']}")["progress"] or {}).get(
                "trials_done"):
            assert time.monotonic() < deadline, "no trial played within a minute"
            time.sleep(0.1)
        workers = _descendants(served.process.pid)
        # The local pool's two worker processes, and its forkserver and resource tracker.
        assert len(workers) >= 4, workers
    finally:
        status = served.stop(sig, timeout_s=30)
    assert status == 0
    assert "stopped; 1 running job(s) cancelled" in served.said[-1]
    deadline = time.monotonic() + 10
    while any(process_alive(p) for p in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in workers if process_alive(p)]


def test_another_host_than_loopback_warns():
    served = start_server("--host", "127.0.0.2")   # loopback still, but not the default
    try:
        assert any("warning: serving on 127.0.0.2" in line and "--token" in line
                   for line in served.said), served.said
        assert _call(served.url + "v1/health")["status"] == "ok"
    finally:
        assert served.stop() == 0
