"""The Dask executor: units of work run as tasks on the workers of a Dask distributed cluster.

Start a scheduler (``dask scheduler``) and workers (``dask worker tcp://HOST:8786``, each with
the same Python and tavli_fast), then pass the scheduler's address (``scheduler=``) or a
connected ``distributed.Client`` (``client=``). Dask is imported only here, and only when such
an executor is made; without it installed the error says ``pip install 'tavli_fast[dask]'``.

- **Same numbers:** a task runs the same module-level worker function on the same unit as the
  local pool, and the job merges results by unit index, so the numbers are bit for bit those
  of a local run, whatever the number of workers.
- **Workers:** before any task, every worker reports its tavli_fast version, whether its core
  is compiled, and the counts of a short fixed simulation (a fingerprint of its compiled core).
  A worker that differs from this process is refused: the error names it.
- **Bear-off databases:** before the first task, one task per worker machine builds the
  missing database files into that machine's cache (without loading them); the tasks then only
  map them.
- **Faults:** Dask runs again elsewhere the tasks of a worker that dies; each unit's result is
  handed over once. A scheduler that cannot be reached is a ``ClusterError`` (an OSError) after
  ``CONNECT_TIMEOUT_S``. KeyboardInterrupt cancels the outstanding tasks and propagates.
- At most about two tasks per worker thread are outstanding at once, so the scheduler and this
  process hold a few hundred futures, not one per unit.
"""

from __future__ import annotations

import importlib
import logging
import math
import os
import time
import uuid
from typing import Any, Callable, Sequence

__all__ = ["DaskExecutor", "ClusterError", "DaskMissingError", "CONNECT_TIMEOUT_S", "ENV_TIMEOUT",
           "connect_timeout_s", "INSTALL_HINT"]

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'tavli_fast[dask]'"

#: Seconds to reach the scheduler, and to wait for a first worker, before giving up ...
CONNECT_TIMEOUT_S = 10.0
#: ... unless this environment variable gives another number of seconds.
ENV_TIMEOUT = "TAVLI_FAST_DASK_TIMEOUT"

#: Seconds between two looks at the cluster's size (how many tasks to keep outstanding).
_RESIZE_INTERVAL_S = 2.0


class DaskMissingError(ImportError):
    """A Dask executor was asked for, but Dask distributed is not installed."""


class ClusterError(OSError):
    """The cluster cannot run this job: no scheduler, no workers, or a worker that differs."""


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise DaskMissingError(
            f"running on a Dask cluster needs Dask distributed: {INSTALL_HINT} ({e})"
        ) from None
    return distributed


def connect_timeout_s() -> float:
    """Seconds to wait for the scheduler and a first worker: ``$TAVLI_FAST_DASK_TIMEOUT``
    where it is set, else CONNECT_TIMEOUT_S. ValueError if it is not a number of seconds > 0."""
    given = os.environ.get(ENV_TIMEOUT)
    if given is None:
        return CONNECT_TIMEOUT_S
    try:
        seconds = float(given)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{ENV_TIMEOUT} must be a number of seconds > 0, not {given!r}")
    return seconds


def _engine_identity() -> dict[str, Any]:
    """What must be equal on every worker and here: version, compiled core, a fingerprint.

    Sent to the workers by value (a nested function), so it runs even where tavli_fast cannot
    be imported and then says so.
    """

    def identity() -> dict[str, Any]:
        try:
            tf = importlib.import_module("tavli_fast")
            core = importlib.import_module("tavli_fast._core")
            sim = tf.simulate("start", games=20, players=("pubeval", "random"), seed=20261130,
                              bearoff=False)
            counts = (sim.win_single, sim.win_gammon, sim.win_backgammon, sim.lose_single,
                      sim.lose_gammon, sim.lose_backgammon, sim.plies_mean)
            compiled = str(getattr(core, "__file__", "")).endswith((".so", ".pyd"))
            return {"version": str(tf.__version__), "compiled": compiled, "fingerprint": counts}
        except Exception as e:  # noqa: BLE001 - reported as the worker's problem
            return {"error": f"{type(e).__name__}: {e}"}

    return {"probe": identity, "here": identity()}


def _difference(theirs: Any, here: dict[str, Any]) -> str | None:
    """Why a worker's identity is refused, or None when it matches."""
    if isinstance(theirs, BaseException):
        return f"it could not be asked ({type(theirs).__name__}: {theirs})"
    if "error" in theirs:
        return f"tavli_fast does not work there ({theirs['error']})"
    if theirs["version"] != here["version"]:
        return f"it runs tavli_fast {theirs['version']}, this process {here['version']}"
    if not theirs["compiled"]:
        return "its tavli_fast has no compiled core"
    if list(theirs["fingerprint"]) != list(here["fingerprint"]):
        return "its compiled core plays a fixed test simulation differently (another build)"
    return None


class DaskExecutor:
    """Runs units as tasks on a Dask cluster: ``scheduler`` (an address such as
    ``tcp://10.0.0.5:8786``) or ``client`` (a connected ``distributed.Client``, left open).

    Raises DaskMissingError without Dask installed, ClusterError when the scheduler cannot be
    reached within ``connect_timeout`` seconds (None: ``connect_timeout_s()``), has no
    worker, or a worker differs from this process (the message names it).
    """

    name = "dask"

    def __init__(self, scheduler: str | None = None, client: Any = None, *,
                 connect_timeout: float | None = None):
        self._distributed = _import_distributed()
        if connect_timeout is None:
            connect_timeout = connect_timeout_s()
        if (scheduler is None) == (client is None):
            raise ValueError("give either a scheduler address or a client, not both")
        self._own_client = client is None
        if client is None:
            if not isinstance(scheduler, str) or not scheduler.strip():
                raise ValueError(f"scheduler must be an address such as tcp://host:8786, got {scheduler!r}")
            client = self._connect(scheduler.strip(), connect_timeout)
        self.client = client
        self.restarts = 0
        try:
            self._wait_for_workers(connect_timeout)
            self._check_workers()
        except BaseException:
            self.close()
            raise
        self._sized_at = time.monotonic()

    # Setting up ------------------------------------------------------------------------------
    def _connect(self, address: str, timeout: float) -> Any:
        from distributed.comm import parse_address
        from distributed.comm.addressing import parse_host_port

        try:
            parse_host_port(parse_address(address)[1])
        except ValueError:
            raise ValueError(f"{address!r} is not a Dask scheduler address such as "
                             "tcp://10.0.0.5:8786") from None
        try:
            return self._distributed.Client(address, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, TypeError) as e:
            detail = " ".join(str(e).split()) or type(e).__name__
            raise ClusterError(f"cannot reach the Dask scheduler at {address}: {detail}") from None

    def _address(self) -> str:
        return str(getattr(self.client.scheduler, "address", "the scheduler"))

    def _wait_for_workers(self, timeout: float) -> None:
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except (TimeoutError, OSError):
            raise ClusterError(
                f"the Dask scheduler at {self._address()} has no workers after {timeout:g} s; "
                f"start some with: dask worker {self._address()}"
            ) from None
        self.workers = self._count_threads()

    def _count_threads(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def _check_workers(self) -> None:
        """Refuse the cluster if one of its workers runs another tavli_fast than this process."""
        ident = _engine_identity()
        here = ident["here"]
        if "error" in here:  # pragma: no cover - this process imported tavli_fast already
            raise ClusterError(f"this process cannot identify its tavli_fast: {here['error']}")
        answers = self.client.run(ident["probe"], on_error="return")
        refused = [(addr, why) for addr, theirs in sorted(answers.items())
                   if (why := _difference(theirs, here)) is not None]
        if refused:
            addr, why = refused[0]
            more = f" (and {len(refused) - 1} more worker(s))" if len(refused) > 1 else ""
            raise ClusterError(
                f"Dask worker {addr} is refused: {why}{more}; every worker needs the same "
                f"tavli_fast ({here['version']}) with a compiled core"
            )

    def _prepare_each_machine(self, prepare: Callable[[Any], Any], unit: Any) -> None:
        """One task per worker machine (host) builds what every worker there would otherwise
        build at once (the bear-off databases), before any unit runs."""
        from distributed.comm import get_address_host

        hosts: dict[str, str] = {}
        for addr in sorted(self.client.nthreads()):
            hosts.setdefault(get_address_host(addr), addr)
        futures = [self.client.submit(prepare, unit, workers=[addr], allow_other_workers=True,
                                      pure=False, key=f"tavli-prepare-{uuid.uuid4().hex}")
                   for addr in hosts.values()]
        try:
            self.client.gather(futures)
        except Exception as e:
            raise ClusterError(
                f"building the bear-off databases on the Dask workers failed ({e}); build them "
                "on each worker machine with `tavli-bearoff --position ZgAA4NAAAAAAAA` first"
            ) from None
        log.info("databases ready on %d worker machine(s)", len(hosts))

    def __enter__(self) -> "DaskExecutor":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect from the scheduler if this executor connected (a given client stays open)."""
        if self._own_client and self.client is not None:
            try:
                self.client.close(timeout=5)
            except Exception:  # noqa: BLE001 - closing a client of a dead scheduler
                pass
            self.client = None

    # Running ---------------------------------------------------------------------------------
    def _window(self) -> int:
        """Outstanding tasks to keep: two per worker thread (the cluster's size is looked up
        again every few seconds, so workers that join get work)."""
        now = time.monotonic()
        if now - self._sized_at >= _RESIZE_INTERVAL_S:
            self.workers = self._count_threads()
            self._sized_at = now
        return 2 * self.workers

    def run(
        self,
        units: Sequence[Any],
        worker: Callable[[Any], Any],
        completed: Callable[[int, Any], Any],
        done: Callable[[], bool],
        prepare: Callable[[Any], Any] | None = None,
        *,
        cancel: Any = None,
        partial: Callable[[int, Any], Any] | None = None,
        tick: Callable[[int], Any] | None = None,
    ) -> bool:
        """See ``driver.Executor.run``. The tasks of a cluster are not cut short: a cancel is
        answered when the next task finishes (the tasks still running are dropped), and
        there are no partial results nor games in flight to report."""
        if not units or done():
            return False
        stopped = False
        distributed = self._distributed
        if prepare is not None:
            self._prepare_each_machine(prepare, units[0])
        known = set(self.client.nthreads())
        run_id = uuid.uuid4().hex[:12]
        name = getattr(worker, "__name__", "unit")
        pending = iter(enumerate(units))  # taken one at a time: a plan made on demand
        inflight: dict[Any, int] = {}
        stream: Any = None  # made once the first futures exist

        def refill() -> None:
            window = self._window()
            while len(inflight) < window and (item := next(pending, None)) is not None:
                i, unit = item
                future = self.client.submit(worker, unit, pure=False, key=f"tavli-{name}-{run_id}-{i}")
                inflight[future] = i
                if stream is not None:
                    stream.add(future)

        try:
            refill()
            stream = distributed.as_completed(list(inflight), loop=self.client.loop)
            for future in stream:
                i = inflight.pop(future)
                if future.status != "finished":
                    error = future.exception()
                    if isinstance(error, distributed.KilledWorker):
                        raise RuntimeError(f"Dask workers kept dying while running unit {i}: {error}")
                    raise RuntimeError(f"unit {i} failed on a Dask worker: {type(error).__name__}: {error}")
                result = future.result()
                future.release()
                completed(i, result)
                if done():
                    break
                if cancel is not None and cancel.is_set():
                    stopped = True
                    break
                refill()
        finally:
            if inflight:  # interrupted, failed or stopped early: drop the outstanding tasks
                try:
                    self.client.cancel(list(inflight))
                except Exception:  # noqa: BLE001 - the scheduler may be gone
                    pass
            try:
                lost = known - set(self.client.nthreads())
            except Exception:  # noqa: BLE001 - the scheduler may be gone
                lost = set()
            if lost:
                self.restarts += len(lost)
                log.warning("%d Dask worker(s) left during the run; Dask ran their tasks again "
                            "elsewhere", len(lost))
        return stopped
