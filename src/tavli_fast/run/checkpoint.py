"""Checkpoint files of long runs (rollouts, opening statistics): JSON, written atomically.

A checkpoint is one JSON document with a ``format`` name, a ``version``, the ``request``
that fixes the run's numbers and the completed work.  It is written to a temporary file in
the same directory, flushed to disk and renamed over the old one, so a crash or Ctrl-C
never leaves a half-written checkpoint.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Mapping, Sequence

from .atomic import atomic_file

__all__ = ["write_checkpoint", "read_checkpoint", "completed_units"]


def write_checkpoint(path: str | os.PathLike, doc: dict[str, Any]) -> None:
    """Write `doc` to `path` atomically (temporary file, fsync, os.replace)."""
    with atomic_file(path, text=True, fsync=True) as f:
        json.dump(doc, f)


def read_checkpoint(path: str | os.PathLike, fmt: str, version: int, what: str,
                    parts: dict[str, type], request_keys: Sequence[str] = ()) -> dict[str, Any]:
    """Load a checkpoint of the given format and version; ValueError if it is not one.

    `what` names the kind of run in messages; `parts` maps the keys the document must
    have to their types (e.g. ``{"request": dict, "chunks": dict}``); `request_keys` are
    the settings its ``request`` must hold.
    """
    path = os.fspath(path)
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise ValueError(f"checkpoint file not found: {path}") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read checkpoint {path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise ValueError(f"{path} is not a tavli_fast {what} checkpoint")
    if doc.get("version") != version:
        raise ValueError(f"{path}: unsupported checkpoint version {doc.get('version')!r}")
    if not all(isinstance(doc.get(key), kind) for key, kind in parts.items()):
        raise ValueError(f"{path}: checkpoint is incomplete")
    missing = [key for key in request_keys if key not in doc["request"]]
    if missing:
        raise ValueError(f"{path}: checkpoint is incomplete (its request has no "
                         f"{', '.join(missing)})")
    return doc


def completed_units(doc: dict[str, Any], identity: Mapping[str, Any],
                    planned_size: Callable[[int], int | None],
                    from_list: Callable[[int, Sequence[Any]], Any], size_of: Callable[[Any], int],
                    path: str) -> list[Any]:
    """The unit results of checkpoint `doc` that belong to a run's plan.

    `identity`: the parameters that fix the run's numbers; any difference with the saved
    request is an error naming it. `planned_size(index)`: the size of the plan's unit of that
    index (None: no such unit); a saved unit of another size (another total) is left out, to
    be run again. `from_list` rebuilds a unit's result from its saved numbers, `size_of`
    gives its size.
    """
    theirs = {k: doc["request"].get(k) for k in identity}
    diff = [k for k in identity if identity[k] != theirs[k]]
    if diff:
        details = ", ".join(f"{k}: checkpoint {theirs[k]!r}, requested {identity[k]!r}" for k in diff)
        raise ValueError(f"checkpoint {path} does not match the request ({details})")
    done = []
    for key, values in doc["chunks"].items():
        try:
            index = int(key)
        except ValueError:
            raise ValueError(f"{path}: bad chunk index {key!r}") from None
        result = from_list(index, values)
        if planned_size(index) == size_of(result):
            done.append(result)
    return done
