"""Run a rollout's chunks on a pool of worker processes; checkpoint, resume, survive failures.

The pool itself (``run_units``) runs any picklable unit of work with a given module-level
worker function; rollouts use it with ``rollout.run_chunk``, opening statistics with
``openings.run_unit``.

- Workers run ``rollout.run_chunk`` (the C game loop, GIL released); the parent only merges counts.
- A worker that dies (killed, crashed) breaks the pool: the chunks that were in flight are run
  again on a fresh pool. Results are keyed by chunk index, so no trial is lost or counted twice.
- Ctrl-C (KeyboardInterrupt in the parent) stops the workers and returns the result of the
  chunks completed so far, flagged ``interrupted``; with a checkpoint file those chunks are saved
  and ``resume`` continues to the requested trials with the numbers of an uninterrupted run.
- Worker log records reach the parent's loggers through a ``multiprocessing`` queue
  (``logging.handlers.QueueHandler`` in the workers, a small listener thread in the parent), which
  works with every start method (fork, forkserver, spawn).
"""

from __future__ import annotations

import functools
import logging
import logging.handlers
import multiprocessing
import os
import queue as queue_module
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from numbers import Integral
from typing import Any, Callable, Sequence

from .checkpoint import read_checkpoint as _read_checkpoint
from .checkpoint import write_checkpoint
from .progress import RolloutProgress
from .results import RolloutResult, build_result
from .rollout import (
    DEFAULT_CHUNK_SIZE,
    ChunkResult,
    RolloutRequest,
    Tally,
    chunk_resources,
    make_request,
    plan_chunks,
    run_chunk,
)

__all__ = ["rollout", "resume_rollout", "run_request", "run_units", "default_jobs", "CHECKPOINT_FORMAT"]

log = logging.getLogger(__name__)

CHECKPOINT_FORMAT = "tavli_fast rollout checkpoint"
CHECKPOINT_VERSION = 1

#: A pool that breaks this many times in a row without finishing a chunk is given up on.
MAX_CONSECUTIVE_FAILURES = 3

ProgressCallback = Callable[[RolloutProgress], Any]


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


def _check_jobs(jobs: object) -> int:
    if jobs is None:
        return default_jobs()
    if isinstance(jobs, bool) or not isinstance(jobs, Integral):
        raise ValueError(f"jobs must be a whole number >= 1, got {jobs!r}")
    if jobs < 1:
        raise ValueError(f"jobs must be >= 1, got {jobs}")
    return int(jobs)


# ---------------------------------------------------------------------------------------------
# Checkpoints
# ---------------------------------------------------------------------------------------------


def _write_checkpoint(path: str, request: RolloutRequest, tally: Tally, elapsed_s: float) -> None:
    """Save the request and the completed chunks (atomically: see checkpoint.py)."""
    write_checkpoint(path, {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "request": request.to_dict(),
        "elapsed_s": elapsed_s,
        "chunks": {str(i): tally.results[i].to_list() for i in sorted(tally.results)},
    })


def read_checkpoint(path: str) -> dict[str, Any]:
    """Load and check a rollout checkpoint; ValueError if it is not one."""
    return _read_checkpoint(path, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, "rollout",
                            {"request": dict, "chunks": dict})


def _request_from_checkpoint(doc: dict[str, Any], **overrides: Any) -> RolloutRequest:
    req = doc["request"]
    args = dict(
        position=req["position"],
        trials=req["trials"],
        players=tuple(req["players"]),
        seed=req["seed"],
        rules=req["rules"],
        stratify=req["stratify"],
        bearoff=req.get("bearoff", True),
        truncate=req.get("truncate", True),
        cache_dir=req.get("cache_dir"),
        chunk_size=req["chunk_size"],
        target_se=req.get("target_se"),
        min_trials=req.get("min_trials"),
    )
    args.update({k: v for k, v in overrides.items() if v is not None})
    return make_request(**args)


def _completed_from_checkpoint(
    doc: dict[str, Any], request: RolloutRequest, path: str
) -> list[ChunkResult]:
    """Chunk results of the checkpoint that belong to ``request``'s plan (by index and size)."""
    if doc["request"].get("board") != request.identity()["board"]:
        raise ValueError(f"checkpoint {path} is for another position")
    mine = request.identity()
    theirs = {k: doc["request"].get(k) for k in mine}
    diff = [k for k in mine if mine[k] != theirs[k]]
    if diff:
        details = ", ".join(f"{k}: checkpoint {theirs[k]!r}, requested {mine[k]!r}" for k in diff)
        raise ValueError(f"checkpoint {path} does not match the request ({details})")
    sizes = {c.index: c.n_games for c in plan_chunks(request)}
    done = []
    for key, values in doc["chunks"].items():
        try:
            index = int(key)
        except ValueError:
            raise ValueError(f"{path}: bad chunk index {key!r}") from None
        result = ChunkResult.from_list(index, values)
        if sizes.get(index) == result.games:  # chunks of another plan (other trials) are re-run
            done.append(result)
    return done


# ---------------------------------------------------------------------------------------------
# Worker side
# ---------------------------------------------------------------------------------------------


def _worker_init(log_queue: Any, level: int) -> None:
    """Pool initializer: ignore SIGINT (the parent handles Ctrl-C) and send logs to the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
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
# Running chunks
# ---------------------------------------------------------------------------------------------


@dataclass
class _Run:
    """Mutable state of one execution (lives in the caller's frame, not the module)."""

    request: RolloutRequest
    tally: Tally
    jobs: int
    progress: ProgressCallback | None
    checkpoint: str | None
    started: float
    previous_elapsed: float
    resumed_games: int
    restarts: int = 0
    last_save: float = 0.0

    def elapsed(self) -> float:
        return self.previous_elapsed + time.perf_counter() - self.started

    def save(self, force: bool = False) -> None:
        if self.checkpoint is None:
            return
        now = time.perf_counter()
        if force or now - self.last_save >= 1.0:
            _write_checkpoint(self.checkpoint, self.request, self.tally, self.elapsed())
            self.last_save = now

    def completed(self, result: ChunkResult) -> None:
        self.tally.add(result)
        self.save()
        if self.progress is not None:
            current = self.tally.current()
            session = time.perf_counter() - self.started
            new_games = current.games - self.resumed_games
            rate = new_games / session if session > 0 else 0.0
            left = self.request.trials - current.games
            if self.tally.stop_at is not None:
                left = 0
            self.progress(
                RolloutProgress(
                    trials_done=current.games,
                    trials_total=self.request.trials,
                    elapsed_s=self.elapsed(),
                    games_per_second=rate,
                    equity=current.equity if current.games else float("nan"),
                    equity_se=current.equity_se(),
                    eta_s=left / rate if rate > 0 else float("inf"),
                )
            )


def _run_in_process(
    todo: Sequence[Any], worker: Callable[[Any], Any], completed: Callable[[Any], Any],
    done: Callable[[], bool],
) -> None:
    for unit in todo:
        completed(worker(unit))
        if done():
            return


def _kill_pool(executor: ProcessPoolExecutor) -> None:
    """Stop a pool now: terminate its workers (they may be in the middle of a chunk)."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(timeout=5)
    executor.shutdown(wait=True, cancel_futures=True)


def _run_pool(
    todo: Sequence[Any],
    worker: Callable[[Any], Any],
    completed: Callable[[Any], Any],
    done: Callable[[], bool],
    jobs: int,
    start_method: str,
    on_restart: Callable[[], Any] | None = None,
) -> None:
    """Run ``worker(unit)`` for every unit on a process pool; ``completed(result)`` in the parent.

    Units are submitted in the given order (at most two per worker in flight) and results of
    units that finish together are handed over in that order. A broken pool (a dead worker) is
    replaced and its unfinished units are run again, so each unit's result arrives exactly once.
    """
    ctx = multiprocessing.get_context(start_method)
    pending = list(enumerate(todo))  # (order, unit)
    workers = min(jobs, len(pending))
    level = logging.getLogger("tavli_fast").getEffectiveLevel()
    failures = 0
    while pending:
        log_queue = ctx.Queue()
        listener = _LogListener(log_queue)
        executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=ctx, initializer=_worker_init, initargs=(log_queue, level)
        )
        inflight: dict[Future, tuple[int, Any]] = {}
        broken = False
        finished = False
        try:
            while (pending or inflight) and not done():
                while pending and len(inflight) < 2 * workers:
                    try:
                        future = executor.submit(worker, pending[0][1])
                    except BrokenProcessPool:  # a worker died since the last result arrived
                        broken = True
                        break
                    inflight[future] = pending.pop(0)
                if broken and not inflight:
                    break
                ready, _ = wait(inflight, return_when=FIRST_COMPLETED)
                for fut in sorted(ready, key=lambda f: inflight[f][0]):
                    item = inflight.pop(fut)
                    try:
                        result = fut.result()
                    except BrokenProcessPool:
                        broken = True
                        pending.append(item)
                        continue
                    failures = 0
                    completed(result)
                if broken:
                    break
            finished = not broken and not inflight
        finally:
            if broken:
                pending.extend(inflight.values())
                pending.sort(key=lambda item: item[0])
            if finished:  # let the workers exit normally, so their last log records arrive
                executor.shutdown(wait=True)
            else:  # interrupted, broken, or stopped early with units in flight
                _kill_pool(executor)
            listener.stop()
            log_queue.close()
            log_queue.join_thread()
        if done():
            return
        if broken:
            failures += 1
            if on_restart is not None:
                on_restart()
            log.warning(
                "a worker process died; re-running %d unfinished unit(s) on a fresh pool", len(pending)
            )
            if failures >= MAX_CONSECUTIVE_FAILURES:
                raise RuntimeError(
                    f"worker processes died {failures} times in a row without finishing a unit of work"
                )


def run_units(
    units: Sequence[Any],
    worker: Callable[[Any], Any],
    completed: Callable[[Any], Any],
    *,
    jobs: int,
    start_method: str | None = None,
    done: Callable[[], bool] | None = None,
    on_restart: Callable[[], Any] | None = None,
    prepare: Callable[[Any], Any] | None = None,
) -> None:
    """Run ``worker`` on each unit of work and pass each result to ``completed`` in this process.

    The general pool behind ``rollout``: ``worker`` must be a module-level (picklable) function
    and the units picklable data. ``jobs == 1`` runs the units here, in order; otherwise a pool
    of ``jobs`` processes (``start_method``, default forkserver) runs them, and results arrive as
    units finish (in submission order among units finishing together). ``done()``, checked after
    each result, stops the run early. Worker processes that die are replaced and their units run
    again (RuntimeError after MAX_CONSECUTIVE_FAILURES broken pools in a row); ``on_restart`` is
    called each time. ``prepare(first_unit)`` runs here before a pool starts: it builds what
    every worker would otherwise build at once on a fresh machine (the bear-off databases),
    without loading it here.
    KeyboardInterrupt stops the workers and propagates.
    """
    n_jobs = _check_jobs(jobs)
    is_done = done if done is not None else (lambda: False)
    if not units or is_done():
        return
    if n_jobs == 1:
        _run_in_process(units, worker, completed, is_done)
    else:
        if prepare is not None:
            prepare(units[0])
        _run_pool(units, worker, completed, is_done, n_jobs, start_method or default_start_method(),
                  on_restart)


def run_request(
    request: RolloutRequest,
    *,
    jobs: int,
    progress: ProgressCallback | None = None,
    checkpoint: str | None = None,
    completed: Sequence[ChunkResult] = (),
    previous_elapsed: float = 0.0,
    start_method: str | None = None,
) -> RolloutResult:
    """Run the chunks of ``request`` not already in ``completed``; merge; return the result."""
    tally = Tally(request.n_chunks, request.target_se, request.min_trials)
    for r in sorted(completed, key=lambda r: r.index):
        tally.add(r)
    resumed_games = sum(r.games for r in tally.results.values())
    run = _Run(
        request=request,
        tally=tally,
        jobs=jobs,
        progress=progress,
        checkpoint=checkpoint,
        started=time.perf_counter(),
        previous_elapsed=previous_elapsed,
        resumed_games=resumed_games,
    )
    todo = [c for c in plan_chunks(request) if c.index not in tally.results]
    interrupted = False
    def restarted() -> None:
        run.restarts += 1

    try:
        run_units(todo, run_chunk, run.completed, jobs=jobs, start_method=start_method,
                  done=lambda: tally.done, on_restart=restarted,
                  prepare=functools.partial(chunk_resources, load=False))
    except KeyboardInterrupt:
        interrupted = True
        log.info("interrupted: %d of %d chunks completed", len(tally.results), request.n_chunks)
    run.save(force=True)
    return build_result(
        request,
        tally.final(),
        jobs=jobs,
        elapsed_s=run.elapsed(),
        interrupted=interrupted,
        target_reached=tally.stop_at is not None,
        worker_restarts=run.restarts,
        resumed_games=resumed_games,
        checkpoint=checkpoint,
    )


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def rollout(
    position: object = "start",
    trials: object = 10_000,
    players: object = ("pubeval", "pubeval"),
    seed: int | None = None,
    jobs: int | None = None,
    rules: object = "backgammon",
    stratify: bool = True,
    target_se: float | None = None,
    min_trials: int | None = None,
    checkpoint: str | os.PathLike | None = None,
    resume: str | os.PathLike | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: ProgressCallback | None = None,
    start_method: str | None = None,
    bearoff: bool = True,
    truncate: bool = True,
    cache_dir: str | os.PathLike | None = None,
) -> RolloutResult:
    """Roll out ``position`` for ``trials`` games and return a ``RolloutResult``.

    position: ``"start"``, a gnubg Position ID, an XGID or a ``Position``. Dice rolled in an XGID
    are the first roll of every trial. players: two names (or one for both; ``"A,B"`` works);
    the first plays the side on roll. seed: master seed (a random one is drawn and reported when
    None). jobs: worker processes (default: the CPUs available; 1 runs in this process).
    stratify: quasi-random first two rolls. target_se: stop once the equity's standard error is
    below it (checked after whole chunks, in chunk order, after ``min_trials``). checkpoint: a
    JSON file kept up to date with the completed chunks; resume: continue from such a file (the
    request must match it; the seed is taken from it when not given). progress: called with a
    ``RolloutProgress`` after each chunk. bearoff: pubeval and greedy play pure bear-offs
    perfectly by the bear-off databases. truncate: a game stops once both sides are inside the
    two-sided bear-off database and counts its exact win probability (GNU Backgammon's
    truncation at the bear-off database: same expectation, smaller standard errors). The
    databases are built in ``cache_dir`` (default: the user cache) on first use. The numbers
    depend on the seed, the request and ``chunk_size``, never on ``jobs``.

    Raises ValueError for bad arguments (trials <= 0 or not whole, jobs < 1, unknown player or
    rules), InvalidPositionError for a bad position.
    """
    n_jobs = _check_jobs(jobs)
    completed: list[ChunkResult] = []
    previous_elapsed = 0.0
    if resume is not None:
        doc = read_checkpoint(os.fspath(resume))
        if seed is None:
            seed = doc["request"]["seed"]
    request = make_request(
        position, trials, players, seed, rules, stratify, chunk_size, target_se, min_trials,
        bearoff, truncate, cache_dir,
    )
    if resume is not None:
        completed = _completed_from_checkpoint(doc, request, os.fspath(resume))
        previous_elapsed = float(doc.get("elapsed_s") or 0.0)
        if checkpoint is None:
            checkpoint = resume
    return run_request(
        request,
        jobs=n_jobs,
        progress=progress,
        checkpoint=os.fspath(checkpoint) if checkpoint is not None else None,
        completed=completed,
        previous_elapsed=previous_elapsed,
        start_method=start_method,
    )


def resume_rollout(
    path: str | os.PathLike,
    *,
    trials: object = None,
    jobs: int | None = None,
    target_se: float | None = None,
    progress: ProgressCallback | None = None,
    checkpoint: str | os.PathLike | None = None,
    start_method: str | None = None,
) -> RolloutResult:
    """Continue the rollout saved in checkpoint ``path`` (to its trials, or to ``trials``)."""
    n_jobs = _check_jobs(jobs)
    doc = read_checkpoint(os.fspath(path))
    request = _request_from_checkpoint(doc, trials=trials, target_se=target_se)
    completed = _completed_from_checkpoint(doc, request, os.fspath(path))
    return run_request(
        request,
        jobs=n_jobs,
        progress=progress,
        checkpoint=os.fspath(checkpoint if checkpoint is not None else path),
        completed=completed,
        previous_elapsed=float(doc.get("elapsed_s") or 0.0),
        start_method=start_method,
    )
