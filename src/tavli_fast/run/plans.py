"""Plans of work made on demand: the units of a round, built one at a time when asked for.

A job kind's ``plan()`` (see ``driver.Job``) returns one of these instead of a list, so that
planning takes no time and no memory whatever the size of the run: a rollout of 1e12
trials has 1e8 chunks, and an executor only ever holds the few it has handed out. Each is a
read-only ``Sequence``: ``len()`` is the number of units, ``plan[i]`` makes unit ``i`` and
iterating makes them in order (afresh each time).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from itertools import chain
from typing import Any, Callable, Iterable, Iterator

__all__ = ["parts", "part_size", "MissingIndices", "UnitPlan", "ChainedPlan"]


def parts(total: int, size: int) -> int:
    """How many parts of ``size`` items (the last may be smaller) hold ``total`` items."""
    return -(-total // size)


def part_size(total: int, size: int, index: int) -> int | None:
    """The items of part ``index`` when ``total`` items are cut into parts of ``size``, the
    last one smaller (None: there is no such part)."""
    if not 0 <= index < parts(total, size):
        return None
    return min(size, total - index * size)


def _position(index: int, size: int) -> int:
    """``index`` of a sequence of ``size`` items as a position in it (negative from the end)."""
    if not isinstance(index, int):
        raise TypeError(f"plan indices are whole numbers, not {type(index).__name__}")
    position = index + size if index < 0 else index
    if not 0 <= position < size:
        raise IndexError(f"index {index} out of a plan of {size} units")
    return position


class MissingIndices(Sequence):
    """The whole numbers ``0 .. total-1`` that are not in ``done``, in increasing order.

    ``done`` holds the units already completed (read from a checkpoint): a few, never the
    whole plan, so only they are stored.
    """

    def __init__(self, total: int, done: Iterable[int] = ()):
        self.total = int(total)
        self._done = sorted({int(i) for i in done if 0 <= int(i) < self.total})
        self._done_set = frozenset(self._done)

    def __len__(self) -> int:
        return self.total - len(self._done)

    def __getitem__(self, index: int) -> int:  # type: ignore[override]
        k = _position(index, len(self))
        # The k-th missing number m satisfies m = k + (done numbers <= m): iterate to it.
        m = k
        while (nxt := k + bisect_right(self._done, m)) != m:
            m = nxt
        return m

    def __iter__(self) -> Iterator[int]:
        return (i for i in range(self.total) if i not in self._done_set)


class UnitPlan(Sequence):
    """``make(i)`` for each ``i`` of ``indices`` (a range, a ``MissingIndices``, ...), made
    when it is asked for."""

    def __init__(self, indices: Sequence[int], make: Callable[[int], Any]):
        self.indices = indices
        self._make = make

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, index: int) -> Any:  # type: ignore[override]
        return self._make(self.indices[_position(index, len(self))])

    def __iter__(self) -> Iterator[Any]:
        return map(self._make, self.indices)


class ChainedPlan(Sequence):
    """Several plans one after the other (e.g. the chunks of one roll, then of the next)."""

    def __init__(self, plans: Iterable[Sequence[Any]]):
        self.parts = [p for p in plans if len(p)]

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts)

    def __getitem__(self, index: int) -> Any:  # type: ignore[override]
        k = _position(index, len(self))
        for part in self.parts:
            if k < len(part):
                return part[k]
            k -= len(part)
        raise IndexError(index)  # pragma: no cover - _position checked the bounds

    def __iter__(self) -> Iterator[Any]:
        return chain.from_iterable(self.parts)
