"""Files written in one step: readers see the old file or the whole new one, never a part.

Every file the package writes (checkpoints, plots, CSV tables, weights files, databases)
goes through ``atomic_file``, which first asks ``output_target`` where it may write: a
regular file or a new name in an existing directory. A device (``/dev/null``,
``/dev/full``), a pipe, a socket or a directory is refused and left as it was; a symbolic
link is followed, so the file it names is replaced and the link stays.
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

from ..checks import special_file_kind

__all__ = ["atomic_file", "output_target", "save_figure"]


def output_target(path: str | os.PathLike) -> Path:
    """The file that writing `path` replaces: `path`, or the file its symbolic links lead to.

    ValueError (one line, naming `path`) unless that is a regular file or a new name in an
    existing, writable directory: nothing is written and nothing is replaced.
    """
    real = Path(os.path.realpath(os.fspath(path)))
    try:
        kind = special_file_kind(real)
    except OSError as e:
        raise ValueError(f"cannot write {os.fspath(path)}: {e.strerror}") from None
    if kind is not None:
        linked = os.path.abspath(os.fspath(path)) != os.fspath(real)
        shown = f"{os.fspath(path)} (-> {real})" if linked else os.fspath(path)
        raise ValueError(f"{shown} is {kind}, not a regular file: it is left as it is")
    if not real.exists():
        directory = real.parent
        if not directory.is_dir():
            raise ValueError(f"cannot write {os.fspath(path)}: directory {directory} does not "
                             "exist")
        if not os.access(directory, os.W_OK | os.X_OK):
            raise ValueError(f"cannot write {os.fspath(path)}: directory {directory} is not "
                             "writable")
    return real


@contextmanager
def atomic_file(path: str | os.PathLike, *, text: bool = False, fsync: bool = False,
                readable: bool = False) -> Iterator[IO[Any]]:
    """A file object (binary, or UTF-8 text when `text`) whose contents replace `path` when
    the block ends: it is a temporary file beside `path` (beside the file a symbolic link
    names), renamed over it by os.replace. `path` must be a regular file or a new name
    (``output_target``; ValueError before anything is written). On any error (Ctrl-C
    included) the temporary file is removed and `path` is left as it was. `fsync`: flush to
    the disk before the rename. `readable`: world-readable (mkstemp makes the file private
    to its owner)."""
    target = output_target(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w" if text else "wb",
                       **({"encoding": "utf-8", "newline": ""} if text else {})) as f:
            yield f
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        if readable:
            os.chmod(tmp, 0o644)
        output_target(target)  # still a regular file or absent: never replace a device
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_figure(figure: Any, path: str | os.PathLike, dpi: int = 110) -> None:
    """Save a matplotlib figure to `path` itself, atomically: in the format its extension
    names when matplotlib writes it (``.svg``, ``.pdf``, ...), else PNG (matplotlib alone
    would add ``.png`` to a name without one and write another file)."""
    suffix = Path(path).suffix[1:].lower()
    fmt = suffix if suffix in figure.canvas.get_supported_filetypes() else "png"
    with atomic_file(path, readable=True) as f:
        figure.savefig(f, format=fmt, dpi=dpi)
