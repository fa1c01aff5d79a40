"""The server's long jobs (rollouts, opening statistics): each runs in a worker thread of the
server that calls the public API with ``progress=`` and ``cancel=``, as the commands do.

The registry holds no job logic: a job is a function ``run(progress, cancel)`` that returns
the API's result object, whose ``to_json()`` is the command's ``--json`` document. The
registry bounds the running jobs (``Busy`` beyond), keeps finished ones for ``keep_s`` seconds
and then drops them, and on shutdown cancels every running job and waits for its thread (and
so for its executor, which shuts its worker processes down) to end.
"""

from __future__ import annotations

import json
import math
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

__all__ = ["Busy", "ServedJob", "JobRegistry", "progress_document", "finite"]

#: A job: called in its worker thread with the progress callback and the cancel event.
JobRun = Callable[[Callable[[Any], None], threading.Event], Any]


class Busy(Exception):
    """As many jobs as allowed are running: try again later (``retry_after_s``)."""

    def __init__(self, running: int, retry_after_s: int):
        super().__init__(f"{running} jobs are running, the most this server runs at once; "
                         f"try again in {retry_after_s} s")
        self.retry_after_s = retry_after_s


def _number(x: float) -> float | None:
    """A float for JSON: None for NaN and infinities (JSON has neither)."""
    return None if x is None or not math.isfinite(x) else float(x)


def finite(doc: Any) -> Any:
    """A JSON-ready document with NaN and infinities as None (JSON has neither)."""
    if isinstance(doc, float):
        return _number(doc)
    if isinstance(doc, dict):
        return {k: finite(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [finite(v) for v in doc]
    return doc


def progress_document(p: Any) -> dict[str, Any]:
    """A ``RolloutProgress`` as JSON-ready data (NaN and infinity as null)."""
    return {"trials_done": p.trials_done, "trials_total": p.trials_total,
            "elapsed_s": _number(p.elapsed_s), "games_per_second": _number(p.games_per_second),
            "equity": _number(p.equity), "equity_se": _number(p.equity_se),
            "eta_s": _number(p.eta_s),
            "plays": [{"play": q.play, "trials_done": q.trials, "equity": _number(q.equity),
                       "equity_se": _number(q.equity_se), "dropped": q.dropped}
                      for q in getattr(p, "plays", ())]}


@dataclass
class ServedJob:
    """One job: its status (``running``, ``done``, ``cancelled``, ``failed``), its latest
    progress, its result document (the partial one when cancelled) or error."""

    id: str
    kind: str
    cancel: threading.Event = field(default_factory=threading.Event)
    status: str = "running"
    progress: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    error: str | None = None
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    updates: int = 0  # progress reports so far (a stream sends the new ones)
    thread: threading.Thread | None = None

    def snapshot(self) -> dict[str, Any]:
        """``GET /v1/rollouts/{id}``'s document."""
        return {"id": self.id, "kind": self.kind, "status": self.status,
                "progress": self.progress, "result": self.result, "error": self.error}

    def report(self, progress: Any) -> None:
        """The progress callback handed to the API (called from the worker thread)."""
        self.progress = progress_document(progress)
        self.updates += 1

    def _finish(self, run: JobRun) -> None:
        try:
            result = run(self.report, self.cancel)
            self.result = finite(json.loads(result.to_json()))
            stopped = bool(self.result.get("interrupted"))
            self.status = "cancelled" if stopped and self.cancel.is_set() else "done"
        except Exception as e:  # noqa: BLE001 - a job's failure is reported, not raised
            self.error = " ".join(str(e).split()) or type(e).__name__
            self.status = "failed"
        self.finished = time.monotonic()


class JobRegistry:
    """The jobs of one server: at most ``max_running`` running at once, finished ones kept
    for ``keep_s`` seconds, and ``max_kept`` of them at most (the oldest dropped first)."""

    def __init__(self, *, max_running: int = 2, keep_s: float = 3600.0, max_kept: int = 1000):
        self.max_running = max_running
        self.keep_s = keep_s
        self.max_kept = max_kept
        self._jobs: dict[str, ServedJob] = {}
        self._lock = threading.Lock()
        self._closed = False
        #: The jobs that were running when the server began to stop (cancel_all's first call).
        self.cancelled_at_close = 0

    def start(self, kind: str, run: JobRun) -> ServedJob:
        """Start ``run`` in a worker thread as a new job of ``kind``; Busy when the running
        jobs are already ``max_running`` (or the server is stopping)."""
        with self._lock:
            self._expire()
            running = sum(job.status == "running" for job in self._jobs.values())
            if self._closed or running >= self.max_running:
                raise Busy(running, 5)
            job = ServedJob(id=secrets.token_hex(8), kind=kind)
            job.thread = threading.Thread(target=job._finish, args=(run,),
                                          name=f"tavli-serve job {job.id}", daemon=True)
            self._jobs[job.id] = job
            job.thread.start()
        return job

    def get(self, job_id: str, kind: str | None = None) -> ServedJob | None:
        """The job of that id (of that kind), or None (unknown, or finished and dropped)."""
        with self._lock:
            self._expire()
            job = self._jobs.get(job_id)
        return job if job is not None and (kind is None or job.kind == kind) else None

    def running(self) -> int:
        """How many jobs are running."""
        with self._lock:
            return sum(job.status == "running" for job in self._jobs.values())

    def _expire(self) -> None:
        now = time.monotonic()
        finished = sorted((job.finished, k) for k, job in self._jobs.items()
                          if job.finished is not None)
        too_many = max(0, len(finished) - self.max_kept)
        for i, (when, job_id) in enumerate(finished):
            if i < too_many or now - when > self.keep_s:
                del self._jobs[job_id]

    def cancel_all(self) -> None:
        """Ask every running job to stop (each keeps its partial result); start no more."""
        with self._lock:
            if not self._closed:
                self.cancelled_at_close = sum(j.status == "running" for j in self._jobs.values())
            self._closed = True
            jobs = list(self._jobs.values())
        for job in jobs:
            job.cancel.set()

    def shutdown(self, timeout_s: float = 10.0) -> bool:
        """Cancel every running job and wait up to ``timeout_s`` for their threads (and their
        worker processes) to end; whether they all did."""
        self.cancel_all()
        deadline = time.monotonic() + timeout_s
        for job in list(self._jobs.values()):
            if job.thread is not None:
                job.thread.join(max(0.0, deadline - time.monotonic()))
        return all(job.thread is None or not job.thread.is_alive() for job in self._jobs.values())
