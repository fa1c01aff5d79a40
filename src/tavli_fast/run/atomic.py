"""Files written in one step: readers see the old file or the whole new one, never a part."""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Iterator

__all__ = ["atomic_file"]


@contextmanager
def atomic_file(path: str | os.PathLike, *, text: bool = False, fsync: bool = False,
                readable: bool = False) -> Iterator[IO[Any]]:
    """A file object (binary, or UTF-8 text when `text`) whose contents replace `path` when
    the block ends: it is a temporary file beside `path`, renamed over it by os.replace. On
    any error (Ctrl-C included) the temporary file is removed and `path` is left as it was.
    `fsync`: flush to the disk before the rename. `readable`: world-readable (mkstemp makes
    the file private to its owner)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w" if text else "wb", **({"encoding": "utf-8"} if text else {})) as f:
            yield f
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        if readable:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
