"""The module paths of the flat package (before it was laid out by job), as deprecated
aliases: ``import tavli_fast.neural`` still gives ``tavli_fast.play.neural``, with a
DeprecationWarning naming the new path. Names the package itself binds to a public
function (``rollout``, ``simulate``, ``hint``, ``openings``) have no alias: importing a
module under them would replace the function."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType

#: old module (under tavli_fast) -> its module today
MOVED = {
    "position": "game.position",
    "matchid": "game.matchid",
    "movegen": "game.movegen",
    "notation": "game.notation",
    "reference": "game.reference",
    "variant_position": "variants.position",
    "variant_games": "variants.games",
    "variants_reference": "variants.reference",
    "players": "play.players",
    "neural": "play.neural",
    "bearoff": "play.bearoff",
    "cube": "play.cube",
    "met": "play.met",
    "parallel": "api",
    "cubeful": "jobs.cubeful",
    "openings_report": "jobs.openings_report",
    "match": "jobs.match",
    "results": "jobs.rollout_result",
    "stratify": "jobs.stratify",
    "supervise": "jobs.targets",
    "driver": "run.driver",
    "checkpoint": "run.checkpoint",
    "progress": "run.progress",
    "atomic": "run.atomic",
    "plans": "run.plans",
    "executors": "run.executors",
    "executors.local": "run.executors.local",
    "executors.dask": "run.executors.dask",
    "executors.guard": "run.executors.guard",
    "train": "training.train",
    "recipes": "training.recipes",
    "inputs": "checks",
}
_PREFIX = "tavli_fast."


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds an old module path and hands back the module that lives elsewhere now."""

    def __init__(self) -> None:
        self._own_specs: dict[str, importlib.machinery.ModuleSpec] = {}

    def find_spec(self, name: str, path: object = None, target: object = None):
        if name.startswith(_PREFIX) and name[len(_PREFIX):] in MOVED:
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = _PREFIX + MOVED[spec.name[len(_PREFIX):]]
        warnings.warn(f"{spec.name} is now {new}; the old module path will be removed",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        self._own_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        """The module is loaded under its own name already; the import system has just set
        its __spec__ to the old path's, which would misdirect its relative imports: put its
        own back."""
        module.__spec__ = self._own_specs.pop(module.__spec__.name)


def install() -> None:
    """Put the finder first on sys.meta_path (once): an old submodule path such as
    ``tavli_fast.executors.local`` would otherwise be found again by the path finder under
    its old name, as a second copy of the module."""
    if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedModules())
