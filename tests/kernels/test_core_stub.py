"""The type stub of the compiled core (``_core.pyi``) matches the built module: every public
name on both sides, and each function's (and method's) parameters by name and order."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

import tavli_fast
from tavli_fast import _core

STUB = Path(tavli_fast.__file__).with_name("_core.pyi")
MODULES_IMPORTED_BY_THE_CORE = {"np"}  # names the module imports, not its own


def stub_tree() -> ast.Module:
    return ast.parse(STUB.read_text())


def stub_names() -> dict[str, ast.AST]:
    names: dict[str, ast.AST] = {}
    for node in stub_tree().body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
        elif isinstance(node, ast.Assign):
            names.update({t.id: node for t in node.targets if isinstance(t, ast.Name)})
    return names


STUB_ONLY = {"Board"}  # a type alias of the stub's own


def test_every_public_name_of_the_core_is_in_the_stub_and_nothing_else():
    public = {n for n in dir(_core) if not n.startswith("_")} - MODULES_IMPORTED_BY_THE_CORE
    stub = set(stub_names()) - STUB_ONLY
    assert sorted(public - stub) == [], "missing from _core.pyi"
    assert sorted(stub - public) == [], "in _core.pyi but not in the built module"


def _parameters(node: ast.FunctionDef) -> list[str]:
    a = node.args
    return [p.arg for p in a.posonlyargs + a.args + a.kwonlyargs]


def _functions():
    for name, node in stub_names().items():
        if isinstance(node, ast.FunctionDef):
            yield name, getattr(_core, name), node
        elif isinstance(node, ast.ClassDef):
            cls = getattr(_core, name)
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and not item.decorator_list and \
                        not item.name.startswith("__"):
                    yield f"{name}.{item.name}", getattr(cls, item.name), item


FUNCTIONS = list(_functions())


@pytest.mark.parametrize("name, function, node", FUNCTIONS, ids=[f[0] for f in FUNCTIONS])
def test_each_stub_signature_names_the_real_parameters(name, function, node):
    real = list(inspect.signature(function).parameters)
    assert _parameters(node) == real, name
