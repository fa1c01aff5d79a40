"""The package's layout: each layer imports only the layers below it, imports sit at the top
of their module (but those of heavy optional dependencies) and make no circle, the old flat
module paths still import (with a DeprecationWarning), the root stays small and no module
grows past one job's size."""

from __future__ import annotations

import ast
import importlib
import sys
import warnings
from pathlib import Path

import pytest
from helpers import ROOT

import tavli_fast
from tavli_fast._aliases import MOVED

PACKAGE = Path(tavli_fast.__file__).parent
SOURCE = Path(__file__).resolve().parents[1] / "src" / "tavli_fast"

# Lower layers first; a module may import its own layer and the ones before it.
LAYERS = [
    {"_core", "_aliases", "_version", "errors", "rules", "checks"},
    {"game"},
    {"variants", "play", "run"},    # the variants' players use the net (play/neural.py)
    {"jobs", "training", "matchfile"},   # matchfile: played matches as files (replayed by game/)
    {"analysis"},                   # analysis of played matches: matchfile + play + jobs
    {"api"},
    {"cli", "serve", "__init__", "__main__"},   # serve: the engine over HTTP, beside the commands
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


def test_the_compiled_core_imports_nothing_of_the_package():
    """The core is the bottom layer: the Cython sources import numpy and the standard
    library only (the package hands the core what it needs, e.g. legal_positions' error
    path)."""
    source = ROOT / "src" / "tavli_fast"  # the checkout: the installed wheel holds no .pyx
    paths = [source / "_core.pyx", *sorted((source / "kernels").glob("*.pxi"))]
    assert len(paths) > 10
    bad = []
    for path in paths:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            words = line.split()
            if len(words) > 1 and words[0] in ("import", "from") and words[1].startswith(
                    ("tavli_fast", ".")):
                bad.append(f"{path.relative_to(source)}:{number}: {line.strip()}")
    assert not bad, "\n".join(bad)


#: Heavy optional dependencies (pyproject.toml's extras): imported inside the functions that
#: need them, so that importing tavli_fast (every command's start-up) never loads them.
OPTIONAL_DEPENDENCIES = {
    "matplotlib",   # the plot extra: only --plot and the results' plot() draw
    "distributed",  # the dask extra: only a Dask executor talks to a cluster
    "pandas",       # in no extra: only to_dataframe() needs it, and says how to install it
}


def _module_name(path: Path) -> str:
    """``tavli_fast.game.position`` for game/position.py, ``tavli_fast.game`` for its
    __init__.py."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_submodule(name: str) -> bool:
    """Whether the dotted name is a module or package of tavli_fast (the core included)."""
    *package, last = name.split(".")
    folder = PACKAGE.parent.joinpath(*package)
    return (folder / last / "__init__.py").exists() or any(folder.glob(f"{last}.*"))


def _imported(node: ast.Import | ast.ImportFrom, path: Path) -> list[str]:
    """The modules an import statement in `path` imports, relative ones resolved: for
    ``from X import n`` the submodule X.n when n is one, else X itself (a package: its
    __init__)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    source = node.module or ""
    if node.level:
        here = _module_name(path).split(".")
        package = here if path.name == "__init__.py" else here[:-1]
        base = package[: len(package) - node.level + 1]
        source = ".".join(base + ([node.module] if node.module else []))
    return [f"{source}.{a.name}" if _is_submodule(f"{source}.{a.name}") else source
            for a in node.names]


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _import_nodes(nodes, in_function: bool = False):
    """(import statement, whether it is inside a function) for every import among the nodes
    and in them, but those under ``if TYPE_CHECKING:``."""
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, in_function
        elif _is_type_checking(node):
            yield from _import_nodes(node.orelse, in_function)
        else:
            yield from _import_nodes(ast.iter_child_nodes(node), in_function or isinstance(
                node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))


def test_no_import_inside_a_function_but_optional_dependencies():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for node, in_function in _import_nodes(ast.parse(path.read_text()).body):
            if not in_function:
                continue
            for module in _imported(node, path):
                if module.split(".")[0] not in OPTIONAL_DEPENDENCIES:
                    bad.append(f"{rel}:{node.lineno} imports {module} inside a function")
    assert not bad, "\n".join(bad)


def _import_map() -> dict[str, dict[str, str]]:
    """module -> {tavli_fast module it imports when it is itself imported: where}. Only the
    imports run at import time count (not those in functions or under TYPE_CHECKING); the
    package __init__ a module's import runs first is no edge, unless the module imports a name
    of it (``from . import x``, x not a submodule)."""
    edges: dict[str, dict[str, str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        me = _module_name(path)
        out = edges.setdefault(me, {})
        for node, in_function in _import_nodes(ast.parse(path.read_text()).body):
            if in_function:
                continue
            for module in _imported(node, path):
                if module.split(".")[0] == PACKAGE.name and module != me:
                    out.setdefault(module, f"{path.relative_to(PACKAGE)}:{node.lineno}")
    return edges


def _circle(edges: dict[str, dict[str, str]]) -> list[str] | None:
    """One circle of the map (each step with the line of its import), or None."""
    state: dict[str, str] = {}  # "open" while on the path, "done" after

    def visit(module: str, path: list[str]) -> list[str] | None:
        state[module] = "open"
        for target in edges.get(module, {}):
            if state.get(target) == "open":
                steps = path[path.index(target):] + [target]
                return [f"{a} ({edges[a][b]})" for a, b in zip(steps, steps[1:])] + [target]
            if target not in state and (found := visit(target, path + [target])):
                return found
        state[module] = "done"
        return None

    for module in sorted(edges):
        if module not in state and (found := visit(module, [module])):
            return found
    return None


def test_the_import_map_has_no_circle():
    edges = _import_map()
    assert len(edges) > 50 and "tavli_fast.game.position" in edges["tavli_fast.game.movegen"]
    circle = _circle(edges)
    assert circle is None, "import circle: " + " -> ".join(circle)


def test_the_package_root_is_small():
    files = [p.name for p in PACKAGE.iterdir()
             if p.is_file() and not p.name.endswith((".so", ".c", ".pyd"))]
    assert len(files) <= 12, files


MAX_LINES = 700  # a module does one job; past this it is doing several


def test_no_module_or_kernel_file_is_over_700_lines():
    # The checkout's sources: an installed package has no kernels/ (not a package) to count.
    root = SOURCE if SOURCE.is_dir() else PACKAGE
    sources = [p for p in root.rglob("*") if p.suffix in (".py", ".pyx", ".pxi", ".pyi", ".h")]
    assert any(p.suffix == ".pxi" for p in sources) or root is PACKAGE
    long = {str(p.relative_to(root)): n for p in sources
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
