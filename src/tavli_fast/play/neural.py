"""The neural evaluator's weights: the shipped file, its format and its checksum.

A weights file is a numpy ``.npz`` archive holding ``w1`` (I, H), ``b1`` (H,), ``w2``
(5, H), ``b2`` (5,) as float64, and ``meta``: a JSON text with ``magic``, ``format``,
``version`` (of the trained net), ``hidden``, ``inputs`` (I: 198 raw inputs, 203 with v2's
hand features, 209 with issue 13's too, 215 with its second set), how it was trained, and
``sha256``: the SHA-256 of the four arrays' bytes (little-endian float64, C order, in that
order). A file of format 2 also holds a race net (issue 13), ``race_w1`` .. ``race_b2``, which
evaluates the positions with no contact left; its ``meta`` has ``race`` (its ``hidden`` and
``inputs``) and the checksum covers the eight arrays. Loading checks all of it; a damaged or
foreign file raises NeuralNetError naming the file.

The package ships one net, the default: ``data/neural-v17-320.npz`` (net v16-320 fitted to a
fifth round of 2-ply look-ahead targets, its own, with the fourth). The earlier nets (every
earlier default from v2 on, and v16-320, the net between v15-320 and v17-320), kept so that
results made with them can be repeated, live in a data package of their own,
``tavli_fast_nets`` (``nets/`` in the checkout: ``pip install ./nets``); docs/nets.md tells
their story. Wherever a weights file is asked for, an installed net may be named by its bare
file name (``weights_file``: the package's data, then ``tavli_fast_nets``); an earlier net
named while that package is missing is a one-line NeuralNetError that says how to install
it. Nothing is ever downloaded. The default's metadata also records the recipe of each net
it was made from (``training.ancestors``, see ``recipes.py``), so its whole chain needs no
other file.
``default_net()`` adds the bear-off databases, which value the bear-offs (``with_bearoff``),
and carries the shipped net's pruning net (``data/prune-v17-32.npz``, the same format: a small
net on the raw inputs that the replies' pre-filter ranks plays by; ``with_pruning_net``), as
does the same net loaded from any file. Another net has none, and its pre-filter ranks by
the slope, as before.

The net's inputs and outputs are described in ``_neural.pxi``: five probabilities for the
player on roll (win, win gammon, win backgammon, lose gammon, lose backgammon; gammons include
backgammons), made consistent.
"""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.util
import json
import os
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from .. import _core
from ..checks import check_regular_file
from ..run.atomic import atomic_file
from ..game.position import Position
from .bearoff import default_database

__all__ = [
    "NeuralNetError",
    "Probabilities",
    "EVALUATORS",
    "check_evaluator",
    "default_evaluator",
    "quantised",
    "DEFAULT_WEIGHTS",
    "default_net",
    "evaluator",
    "load_net",
    "save_net",
    "weights_checksum",
    "net_arrays",
    "net_from_arrays",
    "with_bearoff",
    "with_pruning_net",
    "NetChoice",
    "choose_net",
    "net_of_choice",
    "evaluate",
]

MAGIC = "tavli_fast-neural"
FORMAT = 1
FORMAT_RACE = 2  # a file with a race net
DEFAULT_WEIGHTS = "neural-v17-320.npz"
#: The shipped net's pruning net (issue 54, ``training/prune_train.py``), loaded with it: the
#: replies' pre-filter ranks a roll's plays by it (``_nn_prefilter.pxi``, estimator "prune").
PRUNE_WEIGHTS = "prune-v17-32.npz"
NETS_PACKAGE = "tavli_fast_nets"  # the earlier nets, a separate data distribution
NETS_INSTALL = "pip install ./nets"  # how to install it from the checkout
_ARRAYS = ("w1", "b1", "w2", "b2")
_RACE_ARRAYS = tuple(f"race_{k}" for k in _ARRAYS)


class NeuralNetError(ValueError, RuntimeError):
    """A weights file that cannot be used (damaged, foreign, or of another format).

    A ValueError, since such a file is bad input like any other (the commands report it
    with exit status 2); also a RuntimeError, as it was before it was a ValueError."""


@dataclass(frozen=True)
class Probabilities:
    """Cubeless probabilities for the player on roll; gammons include backgammons."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @property
    def equity(self) -> float:
        """Cubeless money equity: +1 a single win, +2 a gammon, +3 a backgammon."""
        return (2.0 * self.win - 1.0 + self.win_gammon - self.lose_gammon
                + self.win_backgammon - self.lose_backgammon)

    @classmethod
    def from_array(cls, p: np.ndarray) -> "Probabilities":
        return cls(*(float(x) for x in p))


def weights_checksum(arrays: tuple[np.ndarray, ...]) -> str:
    """SHA-256 (hex) of the weight arrays as little-endian float64 in C order."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a, dtype="<f8").tobytes())
    return h.hexdigest()


def net_arrays(net: _core.NeuralNet) -> tuple[np.ndarray, ...]:
    """The net's weights (w1, b1, w2, b2), followed by its race net's if it has one."""
    return net.arrays() + (net.race.arrays() if net.race is not None else ())


def net_from_arrays(arrays: tuple[np.ndarray, ...],
                    prune: tuple[np.ndarray, ...] = ()) -> _core.NeuralNet:
    """The net of `net_arrays`' four or eight arrays, with the pruning net of `prune`'s four
    (``net.prune.arrays()``), if given."""
    race = _core.NeuralNet(*arrays[4:8]) if len(arrays) == 8 else None
    return _core.NeuralNet(*arrays[:4], race=race,
                           prune=_core.NeuralNet(*prune) if prune else None)


def save_net(path: str | os.PathLike, net: _core.NeuralNet, version: str, **info: object) -> None:
    """Write `net` (and its race net, if any) as a weights file (atomically), with `version`
    and any JSON-able `info`."""
    path = Path(path)
    arrays = net_arrays(net)
    meta = {"magic": MAGIC, "format": FORMAT, "version": version, "hidden": net.hidden,
            "inputs": net.n_inputs, "sha256": weights_checksum(arrays), **info}
    names = _ARRAYS
    if net.race is not None:
        meta["format"] = FORMAT_RACE
        meta["race"] = {"hidden": net.race.hidden, "inputs": net.race.n_inputs}
        names += _RACE_ARRAYS
    with atomic_file(path, readable=True) as f:  # a shipped file is world-readable
        np.savez(f, **dict(zip(names, arrays)), meta=np.array(json.dumps(meta)))


def nets_folder() -> Path | None:
    """The folder of the earlier nets: the ``tavli_fast_nets`` package's, None if it is not
    installed (``pip install ./nets`` from the checkout)."""
    if importlib.util.find_spec(NETS_PACKAGE) is None:
        return None
    return Path(importlib.import_module(NETS_PACKAGE).FOLDER)


def installed_net(name: str) -> Path | None:
    """The installed weights file of the bare file name `name`: in the package's data (the
    default), then among the earlier nets (``tavli_fast_nets``); None if neither holds it."""
    for folder in (default_weights_path().parent, nets_folder()):
        if folder is not None and (folder / name).is_file():
            return folder / name
    return None


def history_nets() -> tuple[str, ...]:
    """The file names of the earlier nets, which ``tavli_fast_nets`` holds: the nets the
    default was made from, as its file records them (``training.ancestors``)."""
    training = _load_default()[1].get("training") or {}
    return tuple(str(step.get("file")) for step in training.get("ancestors", ()))


def missing_history_net(name: str) -> NeuralNetError:
    """The one-line error for an earlier net named while ``tavli_fast_nets`` is not installed."""
    return NeuralNetError(f"{name}: an earlier net, kept in the {NETS_PACKAGE} package, which is "
                          f"not installed (from the tavli_fast checkout: {NETS_INSTALL})")


def weights_file(name: str | os.PathLike) -> Path:
    """The weights file `name` names: that path if it exists, else, for a bare file name,
    the installed file of that name (``neural-v5.npz``, say: the recipes' commands and the
    README's examples name the nets that way), in the package's data, then among the earlier
    nets of ``tavli_fast_nets`` (`installed_net`); else the path as given (so that loading it
    reports it missing). NeuralNetError, in one line, for an earlier net of the default's
    chain when ``tavli_fast_nets`` is not installed: it says how to install it."""
    path = Path(os.fspath(name))
    if not path.exists() and path.name == os.fspath(name):
        installed = installed_net(path.name)
        if installed is not None:
            return installed
        if path.name in history_nets():
            raise missing_history_net(path.name)
    return path


def load_net(path: str | os.PathLike) -> tuple[_core.NeuralNet, dict]:
    """(net, meta) from a weights file (`weights_file`: a shipped one by its bare name), its
    format and checksum verified. The net the shipped pruning net was distilled from (the
    default's weights, from whatever file) comes with that pruning net (`with_pruning_net`);
    any other has none."""
    net, meta = _read_net(path)
    if meta.get("role") != "pruning" and meta.get("sha256") == _shipped_pruning_target():
        net = with_pruning_net(net, meta, default_weights_path().with_name(PRUNE_WEIGHTS))
    return net, meta


@functools.cache
def _shipped_pruning_target() -> str | None:
    """The checksum of the net the shipped pruning net copies (None if it is missing)."""
    path = default_weights_path().with_name(PRUNE_WEIGHTS)
    return _read_net(path)[1].get("target_sha256") if path.is_file() else None


def _read_net(path: str | os.PathLike) -> tuple[_core.NeuralNet, dict]:
    """`load_net` without the pruning net."""
    path = weights_file(path)
    check_regular_file(path, "a weights file")
    try:
        # Open the file here: np.load leaks its handle when a damaged archive makes it raise.
        with open(path, "rb") as f:
            if not zipfile.is_zipfile(f):  # (np.load would talk of pickles)
                raise NeuralNetError(f"{path}: not a weights file (not an .npz archive)")
            f.seek(0)
            with np.load(f, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                race = isinstance(meta, dict) and meta.get("format") == FORMAT_RACE
                arrays = tuple(np.array(z[k]) for k in _ARRAYS + (_RACE_ARRAYS if race else ()))
    except FileNotFoundError:
        raise NeuralNetError(f"{path}: no such weights file") from None
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise NeuralNetError(f"{path}: not a readable weights file ({exc})") from None
    if not isinstance(meta, dict) or meta.get("magic") != MAGIC:
        raise NeuralNetError(f"{path}: not a tavli_fast weights file")
    if meta.get("format") not in (FORMAT, FORMAT_RACE):
        raise NeuralNetError(f"{path}: weights format {meta.get('format')}, this version reads "
                             f"{FORMAT} and {FORMAT_RACE}")
    if any(a.dtype != np.float64 for a in arrays):
        raise NeuralNetError(f"{path}: the weights are not float64")
    if weights_checksum(arrays) != meta.get("sha256"):
        raise NeuralNetError(f"{path}: checksum mismatch, the weights file is damaged")
    try:
        net = net_from_arrays(arrays)
    except ValueError as exc:
        raise NeuralNetError(f"{path}: {exc}") from None
    return net, meta


def default_weights_path() -> Path:
    """Where the shipped default weights are (inside the installed package)."""
    return Path(str(resources.files("tavli_fast") / "data" / DEFAULT_WEIGHTS))


@functools.cache
def _load_default() -> tuple[_core.NeuralNet, dict]:
    net, meta = load_net(default_weights_path())
    if net.prune is None:       # the shipped pruning net is missing or not this net's
        net = with_pruning_net(net, meta, default_weights_path().with_name(PRUNE_WEIGHTS))
    return net, meta


def with_pruning_net(net: _core.NeuralNet, meta: dict, path: str | os.PathLike) -> _core.NeuralNet:
    """`net` with the pruning net of the weights file `path` (its format and checksum
    verified), which must have been distilled from `net`'s weights (its ``target_sha256``
    is `meta`'s ``sha256``); NeuralNetError if it cannot be used."""
    prune, prune_meta = _read_net(path)
    if prune_meta.get("role") != "pruning" or prune_meta.get("target_sha256") != meta.get("sha256"):
        raise NeuralNetError(f"{path}: not a pruning net of the net {meta.get('version')}")
    try:
        return _core.NeuralNet(*net.arrays(), race=net.race, bearoff=net.bearoff, prune=prune,
                               quantised=net.quantised)
    except ValueError as exc:
        raise NeuralNetError(f"{path}: {exc}") from None


def default_net(bearoff: bool = True) -> _core.NeuralNet:
    """The shipped evaluator, loaded and verified once per process (read-only use only): the
    shipped net and, unless `bearoff` is False, the bear-off databases of the default cache
    (built on first use), which value the positions where both sides are bearing off."""
    net = _load_default()[0]
    if not bearoff:
        return net
    return with_bearoff(net, default_database().tables)


def evaluator(weights: str | os.PathLike | None = None,
              kind: str | None = None) -> _core.NeuralNet:
    """The evaluator the players use: the net of the weights file `weights` (a shipped net may
    be named by its bare file name; None: the shipped default) with the bear-off databases of
    the default cache, valued by the evaluator `kind` (EVALUATORS; None: default_evaluator()).
    NeuralNetError if the file cannot be used, ValueError for an unknown kind."""
    kind = check_evaluator(kind)
    tables = default_database().tables
    if weights is None:
        net = _load_default()[0]
        return with_bearoff(quantised(net) if kind == "int16" else net, tables)
    # A file's net is read afresh each call: memoising what is built from it would keep one
    # net a call (a server answering requests with a weights file would grow without end).
    net = load_net(weights)[0]
    return attach_bearoff(net.as_quantised() if kind == "int16" else net, tables)


#: The evaluators a net's positions can be valued by: the float32 path (the reference) and
#: the int16 one (``NeuralNet.as_quantised``: faster, within about 0.005 of it, as strong).
EVALUATORS = ("float32", "int16")


def default_evaluator() -> str:
    """The evaluator of a run that names none: int16 where its kernels run on AVX2 or
    AVX-512BW (``_core.INT16_KERNELS``), where it is the faster one (about 1.3-1.5 x in
    rollouts) and plays as well as float32 (docs/performance.md); float32, the reference,
    where they would run lane by lane (``TAVLI_FAST_SIMD=baseline`` or a processor without
    AVX2), about 5 x slower than float32. Either gives the same numbers on every machine
    when named; the results and checkpoints say which valued a run."""
    return "float32" if _core.INT16_KERNELS == "baseline" else "int16"


def check_evaluator(kind: object) -> str:
    """`kind` if it names an evaluator (EVALUATORS; None: default_evaluator()), else
    ValueError."""
    if kind is None:
        return default_evaluator()
    if kind not in EVALUATORS:
        raise ValueError(f"evaluator must be one of {', '.join(EVALUATORS)}, not {kind!r}")
    return str(kind)


@functools.cache
def quantised(net: _core.NeuralNet) -> _core.NeuralNet:
    """`net` (and its race net) valued by the int16 evaluator; memoised, as with_bearoff."""
    return net if net.quantised else net.as_quantised()


def attach_bearoff(net: _core.NeuralNet, tables: _core.BearoffTables) -> _core.NeuralNet:
    """`net` (with its race net, if any) and the bear-off databases `tables`, which then value
    every position where both sides are bearing off: exactly inside the two-sided database,
    by the two one-sided distributions beyond it (as gnubg values its bear-off class).
    A new net each call (`with_bearoff` memoises it)."""
    return _core.NeuralNet(*net.arrays(), race=net.race, bearoff=tables, prune=net.prune,
                           quantised=net.quantised)


@functools.cache
def with_bearoff(net: _core.NeuralNet, tables: _core.BearoffTables) -> _core.NeuralNet:
    """`attach_bearoff`, memoised: the same objects give the same evaluator (for nets that
    live as long as the process, such as the shipped one)."""
    return attach_bearoff(net, tables)


def default_net_info() -> dict:
    """The shipped net's metadata (version, training, checksum)."""
    return dict(_load_default()[1])


@dataclass(frozen=True)
class NetChoice:
    """Which net a run's neural players use, as plain data a worker can be sent: the shipped
    one (`file` None) or a weights file, named by its path and the checksum it had when the
    run was planned (so that every worker, and a resumed run, uses the same weights)."""

    file: str | None
    version: str
    sha256: str
    evaluator: str = "float32"  # EVALUATORS: how the net values positions

    def describe(self) -> str:
        """One line for reports: the version, the file unless it is the shipped one, and the
        evaluator unless it is the float32 one."""
        if self.file is None:
            text = f"{self.version} (the shipped weights)"
        else:
            text = f"{self.version} from {self.file} (sha256 {self.sha256[:12]}...)"
        return text if self.evaluator == "float32" else f"{text}, {self.evaluator} evaluator"

    def to_dict(self) -> dict:
        return {"file": self.file, "version": self.version, "sha256": self.sha256,
                "evaluator": self.evaluator}

    def require_unchanged(self, meta: dict) -> None:
        """NeuralNetError unless ``meta``, its file's read again, holds the weights chosen
        (the checksum they had when the run was planned)."""
        if meta["sha256"] != self.sha256:
            raise NeuralNetError(f"{self.file}: the weights file has changed since the run "
                                 "began (its checksum differs)")

    def checkpoint_keys(self) -> tuple[dict, dict]:
        """(identity, setting) entries of a run's checkpoint: a weights file's checksum, which
        a resumed run must match, and its path; none for the shipped net, so that the
        checkpoints of runs with it stay as they were; and the evaluator unless it is the
        float32 one (a run resumes with the evaluator it began with)."""
        kind = {} if self.evaluator == "float32" else {"evaluator": self.evaluator}
        if self.file is None:
            return kind, {}
        return {"weights_sha256": self.sha256, **kind}, {"weights": self.file}


def choose_net(weights: str | os.PathLike | None = None, needed: bool = True,
               evaluator: str | None = None) -> NetChoice | None:
    """The NetChoice of the weights file `weights` (None: the shipped net) valued by
    `evaluator` (EVALUATORS; None: default_evaluator()), the file loaded and checked now, for
    a run that uses a net (`needed`; else None). ValueError naming the file if it cannot be
    used (NeuralNetError, a ValueError), for an unknown evaluator, or if weights or the int16
    evaluator are asked of a run that uses no net."""
    kind = check_evaluator(evaluator)
    if not needed:
        for asked, what in ((weights is not None, "weights are"),
                            (evaluator is not None and kind != "float32",
                             f"the {kind} evaluator is")):
            if asked:
                raise ValueError(f"{what} for the net, and this run uses none (no neural "
                                 "player, no variance reduction, no truncate_plies)")
        return None
    if weights is None:
        if kind == "int16":
            quantised(_load_default()[0])   # ValueError now if it cannot; kept for the run
        info = default_net_info()
        return NetChoice(None, str(info.get("version")), str(info["sha256"]), kind)
    path = os.path.abspath(weights_file(weights))  # workers may run elsewhere in the tree
    net, meta = load_net(path)
    if kind == "int16":
        net.as_quantised()   # ValueError now if this net cannot take it (a copy not kept:
                             # `net` is a fresh load, which a memo would keep for good)
    return NetChoice(path, str(meta.get("version")), str(meta["sha256"]), kind)


def net_of_choice(choice: NetChoice | None) -> _core.NeuralNet:
    """The net of `choice` (None: the shipped one by the default evaluator), without bear-off
    databases, loaded once per process, by the evaluator chosen. NeuralNetError if its file
    no longer holds the weights it had when chosen."""
    if choice is None or choice.file is None:
        net = default_net(bearoff=False)
    else:
        net = _load_checked(choice)
    kind = default_evaluator() if choice is None else choice.evaluator
    return quantised(net) if kind == "int16" else net


@functools.cache
def _load_checked(choice: NetChoice) -> _core.NeuralNet:
    net, meta = load_net(choice.file)
    choice.require_unchanged(meta)
    return net


def evaluate(position: str | Position, net: _core.NeuralNet | None = None) -> Probabilities:
    """The net's probabilities for the player on roll in `position` (Position ID, XGID or
    Position), before the dice are rolled; `net` None: the shipped one by the default
    evaluator (``default_evaluator``), as ``tavli-eval``."""
    pos = position if isinstance(position, Position) else Position.from_id(position)
    if pos.board[0, 0] == 15 or pos.board[1, 0] == 15:
        raise ValueError("the game is over: there is nothing to evaluate")
    return Probabilities.from_array((net or evaluator()).evaluate(pos.board))
