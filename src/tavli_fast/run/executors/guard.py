"""The main-guard check: refuse at once to start worker processes that would re-run the script.

Under the ``spawn`` and ``forkserver`` start methods every worker process imports the main
script again (as ``__mp_main__``) before it runs any work. A script that calls ``rollout``
(or any parallel function) at its top level, outside ``if __name__ == "__main__":``, would
then call it again in each worker, where multiprocessing stops it with its long
"bootstrapping phase" error, and the pool breaks. ``check_main_guard`` sees this in the
parent, before any process starts, by finding the line of the script's top level that led to
the call and whether it lies inside such a guard. A REPL, ``python -c`` and notebooks have no
script file to re-run and are never refused; nor is the ``fork`` start method. A script
read from standard input (``python - < script.py``) cannot be imported again at all, and is
refused whatever its guard.
"""

from __future__ import annotations

import ast
import os
import sys
from types import FrameType

__all__ = ["MainGuardError", "check_main_guard"]


class MainGuardError(RuntimeError):
    """Worker processes would run the calling script's top level again: it lacks a main guard."""


def check_main_guard(start_method: str) -> None:
    """Raise MainGuardError when worker processes started by ``start_method`` would import the
    main script and so run again the top-level line that is calling us."""
    if start_method == "fork":
        return
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is not None and not os.path.isfile(path):
        # e.g. "<stdin>": the workers would try to import a script that is not a file.
        raise MainGuardError(
            f"the main script ({path}) is not a file that worker processes ({start_method}) "
            "can import again: save it to a file, or pass jobs=1"
        )
    frame = _top_level_frame(vars(main)) if main is not None else None
    if path is None or frame is None:
        return
    guards = _guarded_lines(path)
    if guards is None or any(first <= frame.f_lineno <= last for first, last in guards):
        return
    raise MainGuardError(
        f"{path}, line {frame.f_lineno}, starts worker processes from the script's top level, "
        f"and each worker ({start_method}) would run the script again: put the script's code "
        'under `if __name__ == "__main__":`, or pass jobs=1'
    )


def _top_level_frame(main_globals: dict) -> FrameType | None:
    """The frame running the main script's top-level code, if it is on the call stack."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals is main_globals:
            return frame
        frame = frame.f_back
    return None


def _guarded_lines(path: str) -> list[tuple[int, int]] | None:
    """The line ranges of the script's top-level ``if`` blocks that test ``__name__`` (None
    when the script cannot be read: then nothing is refused)."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    return [(node.lineno, node.end_lineno or node.lineno) for node in _top_level_nodes(tree)
            if isinstance(node, ast.If) and _tests_name(node.test)]


def _top_level_nodes(tree: ast.AST):
    """Every node of the module's top-level code (not inside a function, class or lambda)."""
    for child in ast.iter_child_nodes(tree):
        yield child
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield from _top_level_nodes(child)


def _tests_name(test: ast.expr) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(test))
