"""The driver of every long run: plan units -> an executor runs them -> merge -> result.

A *job kind* (``rollout.RolloutJob``, ``openings.OpeningsJob``, ...) says what the units of
work are and how their results add up; an *executor* (``executors.local``, ``executors.dask``)
says where the units run. The driver joins the two, once for every kind and executor:

1. ``job.plan()`` gives the units of the next round (units already done, e.g. read from a
   checkpoint, are left out) as a sequence made on demand (``plans.py``), so that planning
   costs neither time nor memory however large the run; an empty one ends the run. Most kinds have one round; a kind
   whose later units depend on earlier results (openings' screening) plans a second round once
   the first is merged.
2. The executor runs ``job.worker(unit)`` on each unit, wherever it likes, and hands each
   result back here. The driver passes every unit's result to ``job.add`` exactly once (a
   second result for the same unit is an error, never a double count); the kind merges the
   results in unit index order, so the numbers never depend on which unit finished first.
3. After each result: ``job.done`` may stop the run early (a target standard error), the
   progress callback gets ``job.progress(...)``, and at most once a second the checkpoint file
   is rewritten from ``job.to_checkpoint(...)`` (and once more at the end).
4. Ctrl-C (KeyboardInterrupt), or the caller's ``cancel`` (anything with ``is_set()``, such as
   a ``threading.Event`` set from another thread), stops the run within a second: the
   executor sets the stop flag that the game loops look at before every game
   (``control.py``), and the units in flight hand over the games they played. The run
   returns what was merged, flagged ``interrupted``.
5. Partial chunks count, but are never saved: a unit cut short is merged by
   ``job.add_partial`` (when the kind has it) *after* the last checkpoint is written, so the
   interrupted result reports every game played while the checkpoint holds whole units only.
   A resume plays the cut units again from their start, with their own seeds, and so gives
   the numbers of an uninterrupted run bit for bit (resuming within a unit would need the
   generator's state and the running sums of every figure saved mid-unit; a unit lost is at
   most a chunk's games per worker).
6. While units play, the progress callback is called every PROGRESS_INTERVAL_S seconds or
   so, whatever the chunk size, with the games the units in flight have played so far added
   (``progress.with_games_in_flight``).

This module knows nothing of processes, clusters or of any particular kind of job.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from .checkpoint import write_checkpoint
from .control import Cancel, check_cancel
from .progress import RolloutProgress, with_games_in_flight

__all__ = ["Job", "Executor", "RunOutcome", "ProgressCallback", "Cancel", "run_job",
           "PROGRESS_INTERVAL_S"]

log = logging.getLogger(__name__)

ProgressCallback = Callable[[RolloutProgress], Any]

#: Seconds between two checkpoint writes while a run goes on (it is always written at the end).
CHECKPOINT_INTERVAL_S = 1.0
#: Seconds between two progress reports while units play (and after each unit).
PROGRESS_INTERVAL_S = 0.5


class Job(Protocol):
    """One kind of long run, as the driver sees it. A new kind implements this in its own module.

    ``worker`` must be a module-level function (so that it pickles by reference) taking one unit
    (plain picklable data) and returning plain picklable numbers; it must not depend on where or
    in which order it runs. Set it (and ``prepare``) as ``staticmethod`` class attributes.
    """

    worker: Callable[[Any], Any]
    #: Module-level too: builds what every worker of a machine needs before its first unit (the
    #: bear-off databases, into the cache, without loading them); run once per machine.
    prepare: Callable[[Any], Any]

    def plan(self) -> Sequence[Any]:
        """The units of the next round that are not done yet, in index order, made when asked
        for (``plans.UnitPlan``); an empty sequence when finished."""

    def add(self, result: Any) -> None:
        """Merge one unit's result (called exactly once per unit, in the order units finish)."""

    # Optional: def add_partial(self, result: Any) -> None, which merges the result of a unit
    # cut short by a stop (Ctrl-C, a cancel), for the interrupted result only: it is called
    # after the last checkpoint is written. Kinds without it drop such results.

    @property
    def done(self) -> bool:
        """True once the run may stop before all planned units have run (e.g. SE reached)."""

    def progress(self, elapsed_s: float, session_s: float) -> RolloutProgress:
        """Where the run stands; ``session_s`` is the time of this session (not of resumed work)."""

    def to_checkpoint(self, elapsed_s: float) -> dict[str, Any]:
        """A JSON-ready document from which the kind's ``from_checkpoint`` rebuilds the job."""


class Executor(Protocol):
    """Runs units of work somewhere (see ``executors``)."""

    #: Workers that run units at once (processes of the local pool, threads of a cluster).
    workers: int
    #: Times lost workers made units run again (the local pool's fresh pools).
    restarts: int

    def run(
        self,
        units: Sequence[Any],
        worker: Callable[..., Any],
        completed: Callable[[int, Any], Any],
        done: Callable[[], bool],
        prepare: Callable[[Any], Any] | None,
        *,
        cancel: Cancel | None = None,
        partial: Callable[[int, Any], Any] | None = None,
        tick: Callable[[int], Any] | None = None,
    ) -> bool:
        """Call ``completed(i, worker(units[i]))`` here for each unit, once each, until all ran
        or ``done()`` is true, taking the units from ``units`` in order as they are needed
        (never all at once: a plan may hold 1e8 units). Units whose worker died are run again.
        A worker with a ``control`` parameter gets its unit's control words (``control.py``).
        Once ``cancel`` is set, or on KeyboardInterrupt, stop the units in flight and hand
        their results over, ``partial(i, result)`` for those cut short; then return True (a
        cancel) or let the KeyboardInterrupt propagate. ``tick(games)`` is called every
        fraction of a second with the games the units in flight have played. Returns
        whether the run was stopped."""


@dataclass(frozen=True)
class RunOutcome:
    """How a run went (the numbers themselves are in the job)."""

    elapsed_s: float  # including the time of the resumed checkpoint
    interrupted: bool
    restarts: int


def run_job(
    job: Job,
    executor: Executor,
    *,
    progress: ProgressCallback | None = None,
    checkpoint: str | None = None,
    previous_elapsed: float = 0.0,
    cancel: Cancel | None = None,
) -> RunOutcome:
    """Run ``job`` on ``executor`` until it is finished, stopped early or interrupted.

    ``checkpoint``: a file kept up to date with ``job.to_checkpoint`` (written atomically).
    ``previous_elapsed``: seconds already spent by the run being resumed.
    ``cancel``: anything with ``is_set() -> bool`` (a ``threading.Event``); once it is set,
    from any thread, the run stops within a second and returns ``interrupted``, as on
    Ctrl-C. ``progress`` is called after each unit and at least once a second while units
    play. Works from any thread (no signal handler is installed here).
    """
    cancel = check_cancel(cancel)
    started = time.perf_counter()
    last_save = -float("inf")
    last_report = -float("inf")
    cut: list[Any] = []  # results of units cut short by the stop: reported, never saved

    def elapsed() -> float:
        return previous_elapsed + time.perf_counter() - started

    def save(force: bool = False) -> None:
        nonlocal last_save
        now = time.perf_counter()
        if checkpoint is not None and (force or now - last_save >= CHECKPOINT_INTERVAL_S):
            write_checkpoint(checkpoint, job.to_checkpoint(elapsed()))
            last_save = now

    def report(in_flight: int = 0) -> None:
        nonlocal last_report
        if progress is None:
            return
        last_report = time.perf_counter()
        session = last_report - started
        progress(with_games_in_flight(job.progress(elapsed(), session), in_flight, session))

    def tick(in_flight: int) -> None:
        if time.perf_counter() - last_report >= PROGRESS_INTERVAL_S:
            report(in_flight)

    interrupted = False
    try:
        while not job.done:
            if cancel is not None and cancel.is_set():
                interrupted = True
                break
            units = job.plan()
            if not units:
                break
            seen: set[int] = set()

            def completed(i: int, result: Any) -> None:
                if i in seen or not 0 <= i < len(units):
                    raise RuntimeError(f"unit {i} of this round was returned twice or is unknown")
                seen.add(i)
                job.add(result)
                save()
                report()

            def held(i: int, result: Any) -> None:
                if i in seen or not 0 <= i < len(units):
                    raise RuntimeError(f"unit {i} of this round was returned twice or is unknown")
                seen.add(i)
                cut.append(result)

            stopped = executor.run(units, job.worker, completed, lambda: job.done, job.prepare,
                                   cancel=cancel, partial=held, tick=tick)
            if stopped:
                interrupted = True
                break
            if len(seen) < len(units) and not job.done:
                raise RuntimeError(f"the executor returned {len(seen)} of {len(units)} units")
    except KeyboardInterrupt:
        interrupted = True
    if interrupted:
        log.info("interrupted; the result holds the games played so far")
    save(force=True)
    add_partial = getattr(job, "add_partial", None)
    for result in cut if add_partial is not None else ():
        add_partial(result)
    return RunOutcome(elapsed_s=elapsed(), interrupted=interrupted, restarts=executor.restarts)
