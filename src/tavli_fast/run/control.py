"""How a run is stopped and watched while its units play: the control words the game loops
share with the driver.

Each unit in flight has a *slot* of two int64 words: the stop flag, which the driver sets
(the compiled game loops look at it before every game, ``kernels/_control.pxi``), and the
games that unit has played so far, which the loops count and the driver reads for its
progress. The words live in a small file mapped into memory by the driver and by each
worker process of a local pool (``shared=True``), or in an array of this process when the
units run on one of its threads. Nothing here is global: a ``RunControl`` belongs to one
run, and a worker gets its slot as a ``UnitControl`` with each unit.

``Cancel`` is what callers pass to stop a run: anything with ``is_set() -> bool``, such as a
``threading.Event``.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Protocol

import numpy as np

__all__ = ["Cancel", "RunControl", "UnitControl", "check_cancel"]

_WORDS = 2  # per slot: the stop flag, the games played


class Cancel(Protocol):
    """Asks a run to stop once ``is_set()`` is true (a ``threading.Event`` is one)."""

    def is_set(self) -> bool: ...


def check_cancel(cancel: object) -> Cancel | None:
    """``cancel`` as given, or None; TypeError if it has no ``is_set()``."""
    if cancel is not None and not callable(getattr(cancel, "is_set", None)):
        raise TypeError(f"cancel must have an is_set() method (a threading.Event), not "
                        f"{type(cancel).__name__}")
    return cancel  # type: ignore[return-value]


@dataclass(frozen=True)
class UnitControl:
    """One unit's slot: passed to the job's worker, which hands ``words()`` to the core.

    Picklable: in a worker process it names the shared file (``path``) and the slot; on a
    thread of the driver's process it carries the array itself (``local``).
    """

    slot: int
    path: str | None = None
    local: Any = field(default=None, compare=False)

    @contextlib.contextmanager
    def words(self) -> Iterator[np.ndarray | None]:
        """The slot's two int64 words (stop flag, games played) while the block runs; None if
        the run's file is gone (the run has ended: the unit then simply runs to its end)."""
        if self.local is not None:
            yield self.local[_WORDS * self.slot:_WORDS * (self.slot + 1)]
            return
        try:
            fd = os.open(self.path, os.O_RDWR)  # type: ignore[arg-type]
        except (OSError, TypeError):
            yield None
            return
        try:
            mapped = mmap.mmap(fd, 0)
        finally:
            os.close(fd)
        view = np.frombuffer(mapped, dtype=np.int64)
        try:
            yield view[_WORDS * self.slot:_WORDS * (self.slot + 1)]
        finally:
            del view
            with contextlib.suppress(BufferError):  # the caller kept a view: the GC closes it
                mapped.close()

    def stopped(self, words: np.ndarray | None) -> bool:
        """Whether the run was asked to stop (so the unit may have been cut short)."""
        return words is not None and bool(words[0])


class RunControl:
    """The control words of one run: ``slots`` units in flight at most, in a file mapped by
    every worker process (``shared``) or in this process's memory.

    ``cancel`` (a ``Cancel``) is looked at by ``poll``; ``stop`` sets every slot's flag, after
    which the units in flight return at their next game with the games they played.
    """

    def __init__(self, slots: int, *, shared: bool, cancel: Cancel | None = None):
        self.slots = max(1, int(slots))
        self.cancel = check_cancel(cancel)
        self.stopping = False
        self.path: str | None = None
        self._mapped: mmap.mmap | None = None
        size = _WORDS * self.slots * 8
        if shared:
            fd, self.path = tempfile.mkstemp(prefix="tavli-run-", suffix=".ctl")
            try:
                os.ftruncate(fd, size)
                self._mapped = mmap.mmap(fd, size)
            finally:
                os.close(fd)
            self.words = np.frombuffer(self._mapped, dtype=np.int64)
        else:
            self.words = np.zeros(_WORDS * self.slots, dtype=np.int64)

    def __enter__(self) -> "RunControl":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Unmap and remove the shared file (the workers that still map it keep their copy)."""
        if self._mapped is not None:
            self.words = np.zeros(_WORDS * self.slots, dtype=np.int64)
            with contextlib.suppress(BufferError):
                self._mapped.close()
            self._mapped = None
        if self.path is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            self.path = None

    def unit(self, slot: int) -> UnitControl:
        """The control of the unit about to run in ``slot`` (its game count starts at 0)."""
        self.words[_WORDS * slot + 1] = 0
        self.words[_WORDS * slot] = 1 if self.stopping else 0
        if self.path is not None:
            return UnitControl(slot, self.path)
        return UnitControl(slot, local=self.words)

    def cancelled(self) -> bool:
        """Whether the caller's cancel is set (or the run is stopping already)."""
        return self.stopping or (self.cancel is not None and bool(self.cancel.is_set()))

    def stop(self) -> None:
        """Ask every unit in flight to stop at its next game."""
        self.stopping = True
        self.words[0::_WORDS] = 1

    def games(self, slots: Iterable[int]) -> int:
        """The games played so far by the units in ``slots``."""
        return int(sum(int(self.words[_WORDS * s + 1]) for s in slots))
