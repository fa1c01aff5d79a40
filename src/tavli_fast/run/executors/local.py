"""The local executor: a pool of worker processes on this machine, or this process for jobs=1.

- Workers run the job's module-level worker function (the C game loop, GIL released); the
  parent only merges plain numbers.
- A worker that dies (killed, crashed) breaks the pool: the units that were in flight run again
  on a fresh pool. Each unit's result is handed over exactly once.
- Ctrl-C (KeyboardInterrupt in the parent) or the caller's cancel sets the stop flag of the
  units in flight (``run/control.py``); their game loops stop at the next game and hand over
  the games played, as partial results, within a second. KeyboardInterrupt then propagates.
  The parent looks at the cancel and reports the games in flight every POLL_S seconds.
- A worker ends itself when the process that started the pool is gone, even if that one was
  killed without a chance to stop it (SIGKILL, the OOM killer): no orphans left computing or
  waiting for work.
- Worker log records reach the parent's loggers through a ``multiprocessing`` queue
  (``logging.handlers.QueueHandler`` in the workers, a small listener thread in the parent), which
  works with every start method (fork, forkserver, spawn).
"""

from __future__ import annotations

import inspect
import logging
import logging.handlers
import multiprocessing
import os
import queue as queue_module
import select
import signal
import threading
import time
from concurrent.futures import (FIRST_COMPLETED, Future, ProcessPoolExecutor, ThreadPoolExecutor,
                                wait)
from concurrent.futures.process import BrokenProcessPool
from numbers import Integral
from typing import Any, Callable, Iterable, Sequence

from ..control import Cancel, RunControl, UnitControl
from .guard import check_main_guard

__all__ = ["LocalExecutor", "check_jobs", "default_jobs", "max_jobs", "default_start_method",
           "MAX_CONSECUTIVE_FAILURES"]

log = logging.getLogger(__name__)

#: A pool that breaks this many times in a row without finishing a unit is given up on.
MAX_CONSECUTIVE_FAILURES = 3
#: Seconds between two looks at the cancel and the progress while units play.
POLL_S = 0.1
#: Seconds the units in flight get to hand over their games once the run is stopping (a
#: game loop that takes its control words stops at its next game, well within a second).
DRAIN_S = 10.0


#: Local worker processes allowed per CPU available (``max_jobs``).
JOBS_PER_CPU = 4
#: The least ``max_jobs`` on any machine.
MIN_MAX_JOBS = 16


def default_jobs() -> int:
    """The number of CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - platforms without sched_getaffinity
        return max(1, os.cpu_count() or 1)


def default_start_method() -> str:
    """``forkserver`` where available (safe with the parent's threads), else ``spawn``."""
    methods = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in methods else "spawn"


def check_jobs(jobs: object) -> int:
    """``jobs`` as a whole number >= 1 (None: the CPUs available); ValueError otherwise."""
    if jobs is None:
        return default_jobs()
    if isinstance(jobs, bool) or not isinstance(jobs, Integral):
        raise ValueError(f"jobs must be a whole number >= 1, got {jobs!r}")
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    if jobs > max_jobs():
        raise ValueError(f"jobs must be at most {max_jobs()} ({JOBS_PER_CPU} per CPU available, at "
                         f"least {MIN_MAX_JOBS}), got {jobs}: more processes than that only "
                         "share the same CPUs")
    return int(jobs)


def max_jobs() -> int:
    """The most local worker processes a run may ask for: ``JOBS_PER_CPU`` per CPU available,
    and never fewer than ``MIN_MAX_JOBS`` (a Dask cluster's workers are its own)."""
    return max(MIN_MAX_JOBS, JOBS_PER_CPU * default_jobs())


# ---------------------------------------------------------------------------------------------
# Worker side
# ---------------------------------------------------------------------------------------------


def _alive(pid: int) -> bool:
    """Whether a process numbered `pid` exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's process has that number now
        return True
    return True


def _watch_owner(owner: int) -> None:
    """Exit this process as soon as process `owner` has ended. A worker's own parent is the
    forkserver under that start method, which outlives a killed pool owner, so the owner is
    watched by its number: through a pidfd where there is one (Linux), else by polling."""
    try:
        fd = os.pidfd_open(owner)
    except (AttributeError, OSError):  # no pidfd here, or the owner is already gone
        while _alive(owner):
            time.sleep(1.0)
    else:
        select.select([fd], [], [])  # a pidfd becomes readable when its process ends
    os._exit(1)


def _worker_init(log_queue: Any, level: int, owner: int) -> None:
    """Pool initializer: ignore SIGINT (the parent handles Ctrl-C), send logs to the parent,
    and end with `owner`, the process that started the pool (see _watch_owner)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_owner, args=(owner,), name="tavli-owner-watch",
                     daemon=True).start()
    root = logging.getLogger()
    for h in list(root.handlers):
        root.removeHandler(h)
    root.addHandler(logging.handlers.QueueHandler(log_queue))
    root.setLevel(level)


class _LogListener:
    """Parent side of worker logging: hands queued records to the parent's own loggers.

    A thread polls the queue with a timeout and stops on an event (not on a sentinel put into the
    queue), so a worker killed while writing to the queue cannot make the parent hang.
    """

    def __init__(self, log_queue: Any):
        self.queue = log_queue
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="tavli-log-listener", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            try:
                record = self.queue.get(timeout=0.05)
            except queue_module.Empty:
                if self._stop.is_set():
                    return
                continue
            except (EOFError, OSError):
                return
            logger = logging.getLogger(record.name)
            if logger.isEnabledFor(record.levelno):
                logger.handle(record)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


# ---------------------------------------------------------------------------------------------
# The executor
# ---------------------------------------------------------------------------------------------


def _kill_pool(executor: ProcessPoolExecutor) -> None:
    """Stop a pool now: terminate its workers (they may be in the middle of a unit)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=5)
    executor.shutdown(wait=True, cancel_futures=True)


class LocalExecutor:
    """Runs units on ``jobs`` worker processes of this machine (``jobs == 1``: in this process,
    on a thread of its own, so that the caller's thread stays free to answer Ctrl-C, a cancel
    and the progress while a unit plays).

    start_method: how workers start (default forkserver where available, else spawn).
    MainGuardError (a RuntimeError) for a pool started from a script's top level, outside
    ``if __name__ == "__main__":`` (see ``guard.py``).
    """

    name = "local"

    def __init__(self, jobs: int | None = None, start_method: str | None = None):
        self.workers = check_jobs(jobs)
        self.start_method = start_method or default_start_method()
        self.restarts = 0
        if self.workers > 1:  # refused before any work, not by each worker (guard.py)
            check_main_guard(self.start_method)

    def __enter__(self) -> "LocalExecutor":
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def run(
        self,
        units: Sequence[Any],
        worker: Callable[..., Any],
        completed: Callable[[int, Any], Any],
        done: Callable[[], bool],
        prepare: Callable[[Any], Any] | None = None,
        *,
        cancel: Cancel | None = None,
        partial: Callable[[int, Any], Any] | None = None,
        tick: Callable[[int], Any] | None = None,
    ) -> bool:
        """See ``driver.Executor.run``. In a pool, units are submitted in the given order (at
        most two per worker in flight; the units are taken from ``units`` one at a time, so a
        plan made on demand is never held whole), results of units finishing together are
        handed over in that order, and ``prepare(units[0])`` runs here first (it builds what
        every worker would otherwise build at once on a fresh machine, without loading it
        here)."""
        if not units or done():
            return False
        if self.workers == 1:
            if not _takes_control(worker):
                # Nothing would stop its units early: in this thread, where Ctrl-C is heard
                # between two of the worker's calls into the core, as ever.
                for i, unit in enumerate(units):
                    if cancel is not None and cancel.is_set():
                        return True
                    completed(i, worker(unit))
                    if done():
                        break
                return False
            with RunControl(1, shared=False, cancel=cancel) as control:
                pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tavli-unit")
                # One unit at a time: none is waiting to start when the run is done early.
                flight = _Flight(pool, _Pending(units), worker, control, window=1)
                try:
                    flight.fly(completed, done, partial, tick)
                finally:
                    pool.shutdown(wait=not control.stopping, cancel_futures=True)
                return control.stopping
        if prepare is not None and not _prepare_watched(prepare, units[0], cancel, tick):
            return True
        return self._run_pool(units, worker, completed, done, cancel, partial, tick)

    def _run_pool(
        self,
        units: Sequence[Any],
        worker: Callable[..., Any],
        completed: Callable[[int, Any], Any],
        done: Callable[[], bool],
        cancel: Cancel | None,
        partial: Callable[[int, Any], Any] | None,
        tick: Callable[[int], Any] | None,
    ) -> bool:
        """A broken pool (a dead worker) is replaced and its unfinished units are run again, so
        each unit's result arrives exactly once; RuntimeError after MAX_CONSECUTIVE_FAILURES
        broken pools in a row."""
        ctx = multiprocessing.get_context(self.start_method)
        pending = _Pending(units)
        workers = min(self.workers, len(units))
        level = logging.getLogger("tavli_fast").getEffectiveLevel()
        failures = 0
        with RunControl(2 * workers, shared=True, cancel=cancel) as control:
            while pending:
                log_queue = ctx.Queue()
                listener = _LogListener(log_queue)
                executor = ProcessPoolExecutor(
                    max_workers=workers, mp_context=ctx, initializer=_worker_init,
                    initargs=(log_queue, level, os.getpid()),
                )
                flight = _Flight(executor, pending, worker, control, window=2 * workers)
                try:
                    flight.fly(completed, done, partial, tick)
                finally:
                    if flight.broken:
                        pending.run_again(item for item, _ in flight.inflight.values())
                    if flight.finished:  # let the workers exit normally: their last logs arrive
                        executor.shutdown(wait=True)
                    else:  # interrupted, broken, or stopped early with units in flight
                        _kill_pool(executor)
                    listener.stop()
                    log_queue.close()
                    log_queue.join_thread()
                if done() or control.stopping:
                    return control.stopping
                if flight.broken:
                    failures = 1 if flight.progressed else failures + 1
                    self.restarts += 1
                    log.warning(
                        "a worker process died; re-running %d unfinished unit(s) on a fresh pool",
                        len(pending.again),
                    )
                    if failures >= MAX_CONSECUTIVE_FAILURES:
                        raise RuntimeError(
                            f"worker processes died {failures} times in a row without finishing "
                            "a unit of work"
                        )
            return False


def _prepare_watched(prepare: Callable[[Any], Any], unit: Any, cancel: Cancel | None,
                     tick: Callable[[int], Any] | None) -> bool:
    """``prepare(unit)`` (the databases a fresh machine builds, up to a minute) on a thread of
    its own, while this one looks at the cancel and reports progress every POLL_S seconds.
    False if the cancel came first (the build goes on in the background, for the next run)."""
    outcome: dict[str, BaseException] = {}

    def build() -> None:
        try:
            prepare(unit)
        except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
            outcome["error"] = e

    thread = threading.Thread(target=build, name="tavli-prepare", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(POLL_S)
        if cancel is not None and cancel.is_set():
            return False
        if tick is not None:
            tick(0)
    if "error" in outcome:
        raise outcome["error"]
    return True


def _run_unit(worker: Callable[..., Any], unit: Any,
              control: UnitControl | None) -> tuple[Any, bool]:
    """A unit as a worker runs it: (its result, whole). ``whole`` is false when the run's stop
    flag was up as the unit returned: the game loop may then have cut it short."""
    if control is None:
        return worker(unit), True
    with control.words() as words:
        result = worker(unit, control=words)
        return result, not control.stopped(words)


def _takes_control(worker: Callable[..., Any]) -> bool:
    """Whether ``worker`` takes the ``control`` words of its unit (the game loops' stop flag)."""
    try:
        return "control" in inspect.signature(worker).parameters
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return False


class _Flight:
    """The units in flight on one pool (of processes or of one thread): submits them, hands
    their results over, looks at the cancel and the progress every POLL_S seconds, and once
    the run is stopping (Ctrl-C, the cancel) stops the units in flight and waits DRAIN_S
    seconds at most for the games they played."""

    def __init__(self, pool: Any, pending: "_Pending", worker: Callable[..., Any],
                 control: RunControl, *, window: int):
        self.pool = pool
        self.pending = pending
        self.worker = worker
        self.control = control
        self.window = window
        self.takes_control = _takes_control(worker)
        self.inflight: dict[Future, tuple[tuple[int, Any], int]] = {}  # -> (index, unit), slot
        self.free_slots = list(range(min(self.window, control.slots)))
        self.broken = False
        self.finished = False
        self.progressed = False

    def _submit(self) -> None:
        while self.pending and len(self.inflight) < self.window and self.free_slots:
            item = self.pending.pop()
            slot = self.free_slots.pop()
            unit_control = self.control.unit(slot) if self.takes_control else None
            try:
                future = self.pool.submit(_run_unit, self.worker, item[1], unit_control)
            except BrokenProcessPool:  # a worker died since the last result arrived
                self.pending.run_again([item])
                self.free_slots.append(slot)
                self.broken = True
                return
            self.inflight[future] = (item, slot)

    def _hand_over(self, ready: Iterable[Future], completed: Callable[[int, Any], Any],
                   partial: Callable[[int, Any], Any] | None) -> None:
        for fut in sorted(ready, key=lambda f: self.inflight[f][0][0]):
            item, slot = self.inflight.pop(fut)
            self.free_slots.append(slot)
            if fut.cancelled():
                continue
            try:
                result, whole = fut.result()
            except BrokenProcessPool:
                self.broken = True
                self.pending.run_again([item])
                continue
            self.progressed = True
            if whole:
                completed(item[0], result)
            elif partial is not None:
                partial(item[0], result)

    def fly(self, completed: Callable[[int, Any], Any], done: Callable[[], bool],
            partial: Callable[[int, Any], Any] | None, tick: Callable[[int], Any] | None) -> None:
        try:
            with _HeldSignals() as held:
                self._fly(completed, done, partial, tick, held)
        except KeyboardInterrupt:
            if not self.control.stopping:   # (a replayed signal has stopped them already)
                self._stop(completed, partial)
            raise

    def _fly(self, completed: Callable[[int, Any], Any], done: Callable[[], bool],
             partial: Callable[[int, Any], Any] | None, tick: Callable[[int], Any] | None,
             held: _HeldSignals) -> None:
        while (self.pending or self.inflight) and not done():
            if self.control.cancelled() or held.caught is not None:
                self._stop(completed, partial)
                held.replay()   # Ctrl-C or SIGTERM: raises, the games handed over first
                return
            self._submit()
            if self.broken and not self.inflight:
                return
            ready, _ = wait(self.inflight, timeout=POLL_S, return_when=FIRST_COMPLETED)
            self._hand_over(ready, completed, partial)
            if self.broken:
                return
            if tick is not None and self.inflight:
                tick(self.control.games(slot for _, slot in self.inflight.values()))
        self.finished = not self.broken and not self.inflight

    def _stop(self, completed: Callable[[int, Any], Any],
              partial: Callable[[int, Any], Any] | None) -> None:
        """Stop the units in flight: those of a worker that takes the control words hand over
        their games; the others cannot be cut short, and are dropped with their pool."""
        if self.takes_control:
            self._drain(completed, partial)
        else:
            self.control.stop()

    def _drain(self, completed: Callable[[int, Any], Any],
               partial: Callable[[int, Any], Any] | None) -> None:
        """Stop the units in flight at their next game and hand over what they played."""
        self.control.stop()
        for fut in list(self.inflight):
            fut.cancel()  # not started yet: nothing to wait for
        deadline = time.monotonic() + DRAIN_S
        while self.inflight and (left := deadline - time.monotonic()) > 0:
            ready, _ = wait(self.inflight, timeout=min(left, POLL_S), return_when=FIRST_COMPLETED)
            self._hand_over(ready, completed, partial)
        if self.inflight:
            log.warning("%d unit(s) did not stop within %g s; their games are lost",
                        len(self.inflight), DRAIN_S)


class _HeldSignals:
    """SIGINT and SIGTERM held while units fly (main thread only), for the handler they had to
    be called at a point the loop chooses: a KeyboardInterrupt raised inside
    ``concurrent.futures.wait`` can leave its futures' locks half released, and the wait after
    it then fails ("release unlocked lock") instead of handing over the games played. Signals
    whose handler is not a Python function (the default action, ignored) are left alone."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.caught: tuple[int, Any] | None = None
        self._previous: dict[int, Callable[[int, Any], Any]] = {}

    def __enter__(self) -> "_HeldSignals":
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                handler = signal.getsignal(sig)
                if callable(handler):
                    self._previous[sig] = handler
                    signal.signal(sig, self._hold)
        return self

    def _hold(self, signum: int, frame: Any) -> None:
        if self.caught is None:
            self.caught = (signum, frame)

    def replay(self) -> None:
        """Call the held signal's own handler now (it may raise KeyboardInterrupt)."""
        if self.caught is not None:
            signum, frame = self.caught
            self.caught = None
            self._previous[signum](signum, frame)

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)


class _Pending:
    """The (index, unit) pairs still to run: units to run again (their worker died) first, in
    index order, then the rest of the plan, taken from it one at a time."""

    def __init__(self, units: Sequence[Any]):
        self.again: list[tuple[int, Any]] = []
        self._rest = iter(enumerate(units))
        self._next: tuple[int, Any] | None = next(self._rest, None)

    def __bool__(self) -> bool:
        return bool(self.again) or self._next is not None

    def pop(self) -> tuple[int, Any]:
        """The next pair to run (IndexError when there is none)."""
        if self.again:
            return self.again.pop(0)
        if self._next is None:
            raise IndexError("no unit left to run")
        item, self._next = self._next, next(self._rest, None)
        return item

    def run_again(self, items: Iterable[tuple[int, Any]]) -> None:
        """Put back pairs that did not finish, to run before the rest."""
        self.again.extend(items)
        self.again.sort(key=lambda item: item[0])
