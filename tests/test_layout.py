"""The package's layout: each layer imports only the layers below it, the old flat module
paths still import (with a DeprecationWarning), the root stays small and no module grows
past one job's size."""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from pathlib import Path

import pytest

import tavli_fast
from tavli_fast._aliases import MOVED

PACKAGE = Path(tavli_fast.__file__).parent

# Lower layers first; a module may import its own layer and the ones before it.
LAYERS = [
    {"_core", "_aliases", "_version", "errors", "rules", "checks"},
    {"game"},
    {"variants", "play", "run"},    # the variants' players use the net (play/neural.py)
    {"jobs", "training"},
    {"api"},
    {"cli", "__init__", "__main__"},
]


def _layer(top: str) -> int:
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{top} is in no layer")


def _imports(path: Path) -> list[tuple[str, int]]:
    """(top-level part of each tavli_fast module imported, line) in `path`."""
    rel = path.relative_to(PACKAGE).with_suffix("").parts
    here = list(rel[:-1]) if rel[-1] != "__init__" else list(rel[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                parts = base + (node.module.split(".") if node.module else [])
                names = parts[:1] or [a.name for a in node.names]
            elif node.module and node.module.startswith("tavli_fast"):
                parts = node.module.split(".")[1:]
                names = parts[:1] or [a.name for a in node.names]
            else:
                continue
            out += [(n, node.lineno) for n in names]
    return out


def test_no_module_imports_a_layer_above_its_own():
    bad = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).parts
        top = rel[0][:-3] if len(rel) == 1 else rel[0]
        for name, line in _imports(path):
            if _layer(name) > _layer(top):
                bad.append(f"{path.relative_to(PACKAGE)}:{line} imports {name}")
    assert not bad, "\n".join(bad)


def test_the_package_root_is_small():
    files = [p.name for p in PACKAGE.iterdir()
             if p.is_file() and not p.name.endswith((".so", ".c", ".pyd"))]
    assert len(files) <= 12, files


MAX_LINES = 700  # a module does one job; past this it is doing several


def test_no_module_or_kernel_file_is_over_700_lines():
    sources = [p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".pyx", ".pxi", ".pyi", ".h")]
    long = {str(p.relative_to(PACKAGE)): n for p in sources
            if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert len(sources) > 50 and not long, long


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_module_paths_import_with_a_deprecation_warning(old, monkeypatch):
    monkeypatch.delitem(sys.modules, f"tavli_fast.{old}", raising=False)
    with pytest.warns(DeprecationWarning, match=f"tavli_fast.{old} is now"):
        module = importlib.import_module(f"tavli_fast.{old}")
    assert module is importlib.import_module(f"tavli_fast.{MOVED[old]}")


def test_public_functions_keep_their_names_after_old_imports():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        importlib.import_module("tavli_fast.parallel")
    for name in ("rollout", "simulate", "hint", "openings"):
        assert callable(getattr(tavli_fast, name)), name
