"""Executors: where the units of work of a long run go (see ``driver.Executor``).

- ``local``: a pool of worker processes on this machine, or this process for one job.

``make_executor`` picks one from the arguments of the public functions.
"""

from __future__ import annotations

from typing import Any

from .local import LocalExecutor, check_jobs, default_jobs

__all__ = ["make_executor", "LocalExecutor", "check_jobs", "default_jobs"]


def make_executor(jobs: object = None, start_method: str | None = None) -> Any:
    """The executor for these arguments: the local pool of ``jobs`` processes.

    Use it as a context manager (``with make_executor(...) as executor:``).
    """
    return LocalExecutor(check_jobs(jobs), start_method)
