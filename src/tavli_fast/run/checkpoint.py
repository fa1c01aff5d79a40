"""Checkpoint files of long runs (rollouts, candidate plays, opening statistics, matches):
JSON, written atomically, with a checksum.

A checkpoint is one JSON document with a ``format`` name, a ``version``, the ``request``
that fixes the run's numbers, the completed work and a ``checksum``: the SHA-256 of the
rest of the document in canonical form (keys sorted, no spaces). It is written to a
temporary file in the same directory, flushed to disk and renamed over the old one, so a
crash or Ctrl-C never leaves a half-written checkpoint; only a regular file or a new name
is written (``atomic.output_target``), and a run keeps its checkpoint only in a file that is
new, its own or given up with ``force`` (``claim_checkpoint``).

Reading refuses a document whose checksum does not match (edited by hand, or damaged) and
any NaN or infinite number. A checkpoint without a checksum, written before checkpoints had
one, is still read (its work is not thrown away) with a warning that it cannot be checked;
its numbers are checked for NaN and infinities as any other's.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from typing import Any, Callable, Mapping, Sequence

from ..checks import check_regular_file
from .atomic import atomic_file, output_target

__all__ = ["write_checkpoint", "read_checkpoint", "completed_units", "claim_checkpoint",
           "checksum_of"]

_log = logging.getLogger(__name__)

#: The key of the checksum in a checkpoint document.
CHECKSUM_KEY = "checksum"


def _canonical(doc: Mapping[str, Any]) -> str:
    """`doc` without its checksum as canonical JSON: keys sorted, no spaces, NaN and
    infinities refused (ValueError)."""
    body = {k: v for k, v in doc.items() if k != CHECKSUM_KEY}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _sha256(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def checksum_of(doc: Mapping[str, Any]) -> str:
    """``"sha256:<hex>"`` of `doc` (without its checksum) in canonical JSON: keys sorted, no
    spaces, NaN and infinities refused (ValueError)."""
    return _sha256(_canonical(doc))


def write_checkpoint(path: str | os.PathLike, doc: dict[str, Any]) -> None:
    """Write `doc` with its checksum to `path` atomically (temporary file beside it, fsync,
    os.replace); ValueError if `path` is not a regular file or a new name, or `doc` holds
    NaN or an infinity. The file is the canonical JSON with the checksum put first (the
    document is serialised once: a cluster's checkpoint can be tens of MB)."""
    body = _canonical(doc)
    signed = f'{{"{CHECKSUM_KEY}":"{_sha256(body)}"' + ("}" if body == "{}" else "," + body[1:])
    with atomic_file(path, text=True, fsync=True) as f:
        f.write(signed)


def _no_constant(name: str) -> Any:
    raise ValueError(f"it holds {name}, which no checkpoint writes")


def _finite(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"it holds {text}, which is not a finite number")
    return value


@functools.lru_cache(maxsize=None)
def _warn_unchecked(path: str) -> None:
    """Warn once per file that a checkpoint without a checksum cannot be checked."""
    _log.warning("checkpoint %s has no checksum (written by an older version): read "
                 "without checking it", path)


def claim_checkpoint(path: str | os.PathLike, read: Callable[[str], dict[str, Any]],
                     same_run: Callable[[dict[str, Any]], object], *,
                     resume: str | os.PathLike | None = None, force: bool = False) -> str:
    """The path a run may keep its checkpoint in; ValueError (one line) otherwise.

    `path` must be a regular file or a new name (``atomic.output_target``: never a device,
    pipe or directory). An existing file is overwritten only when it is the checkpoint the
    run resumes (`resume`), a checkpoint of the same run (`read` accepts it and `same_run`
    raises no ValueError for its document: the run could resume it), or `force` is given.
    """
    name = os.fspath(path)
    target = output_target(name)
    if force or not target.exists():
        return name
    if resume is not None and os.path.exists(resume) and os.path.samefile(target, resume):
        return name
    try:
        same_run(read(name))
    except ValueError as e:
        raise ValueError(f"{name} exists and is not a checkpoint of this run ({e}); give another "
                         f"file, or --force (force=True) to overwrite it") from None
    return name


def read_checkpoint(path: str | os.PathLike, fmt: str, version: int, what: str,
                    parts: dict[str, type], request_keys: Sequence[str] = ()) -> dict[str, Any]:
    """Load a checkpoint of the given format and version; ValueError if it is not one.

    `what` names the kind of run in messages; `parts` maps the keys the document must
    have to their types (e.g. ``{"request": dict, "chunks": dict}``); `request_keys` are
    the settings its ``request`` must hold.
    """
    path = check_regular_file(path, "a checkpoint file")
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f, parse_constant=_no_constant, parse_float=_finite)
    except FileNotFoundError:
        raise ValueError(f"checkpoint file not found: {path}") from None
    except (OSError, ValueError, UnicodeDecodeError) as e:
        raise ValueError(f"cannot read checkpoint {path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") != fmt:
        raise ValueError(f"{path} is not a tavli_fast {what} checkpoint")
    if CHECKSUM_KEY in doc:
        if doc[CHECKSUM_KEY] != checksum_of(doc):
            raise ValueError(f"checkpoint {path} has been changed since it was written (its "
                             "checksum does not match): it is not resumed")
    if doc.get("version") != version:
        raise ValueError(f"{path}: unsupported checkpoint version {doc.get('version')!r}")
    if not all(isinstance(doc.get(key), kind) for key, kind in parts.items()):
        raise ValueError(f"{path}: checkpoint is incomplete")
    missing = [key for key in request_keys if key not in doc["request"]]
    if missing:
        raise ValueError(f"{path}: checkpoint is incomplete (its request has no "
                         f"{', '.join(missing)})")
    if CHECKSUM_KEY not in doc:
        _warn_unchecked(path)
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
