"""Executors: where the units of work of a long run go (see ``driver.Executor``).

- ``local``: a pool of worker processes on this machine, or this process for one job.
- ``dask``: the workers of a Dask distributed cluster (Dask itself is imported only when one
  is made).

``make_executor`` picks one from the arguments of the public functions.
"""

from __future__ import annotations

from typing import Any

from .dask import DaskExecutor
from .guard import MainGuardError
from .local import LocalExecutor, check_jobs, default_jobs

__all__ = ["make_executor", "LocalExecutor", "MainGuardError", "check_jobs", "default_jobs"]


def make_executor(jobs: object = None, start_method: str | None = None, *,
                  scheduler: str | None = None, client: Any = None) -> Any:
    """The executor for these arguments: a Dask cluster when ``scheduler`` (an address such as
    ``tcp://10.0.0.5:8786``) or ``client`` (a ``distributed.Client``) is given, else the local
    pool of ``jobs`` processes. Use it as a context manager (``with make_executor(...) as e:``).

    ValueError when both a cluster and jobs / start_method are given (the cluster's workers run
    the units); see ``executors.dask.DaskExecutor`` for the errors of a cluster.
    """
    if scheduler is None and client is None:
        return LocalExecutor(check_jobs(jobs), start_method)
    if scheduler is not None and client is not None:
        raise ValueError("give either a Dask scheduler address or a Dask client, not both")
    if jobs is not None or start_method is not None:
        raise ValueError("jobs and start_method are for the local pool; on a Dask cluster its "
                         "workers run the units")
    return DaskExecutor(scheduler=scheduler, client=client)
