"""The Plakoto and Fevga nets (issue 44): weights files, the shipped nets, and evaluation.

A net per game (``_core.VariantNet``, described in ``_variant_neural.pxi``, its inputs in
``_variant_inputs.pxi``): a one-hidden-layer net whose five sigmoid outputs are, for the
player on roll, P(win), P(win 2 points: the loser bore off none, or the mother rule P5),
P(win by the mother rule), P(lose 2 points), P(lose by the mother rule); Fevga's mother
outputs are always 0. Its equity is the points a game (P7, F7):
``2 win - 1 + win2 - lose2``.

A weights file is an ``.npz`` with ``w1`` (I, H), ``b1``, ``w2`` (5, H), ``b2`` as float64
and ``meta``: JSON with ``magic``, ``format``, ``game``, ``version``, ``hidden``, ``inputs``,
``sha256`` of the four arrays (as ``neural.py`` writes backgammon nets) and ``training``: how
it was made, with the exact command (``recipe``) and seed. Loading checks all of it. The
package ships one net per game in ``data/`` (``SHIPPED``); a shipped file may be named by its
bare file name.
"""

from __future__ import annotations

import functools
import json
import os
import zipfile
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from .. import _core
from ..checks import check_regular_file
from ..run.atomic import atomic_file
from ..play.neural import NetChoice, NeuralNetError, check_evaluator, installed_net, weights_checksum
from .position import VariantPosition, variant_position
from .movegen import GAME_CODES, game_name, require_variant_in_progress

__all__ = [
    "MAGIC",
    "SHIPPED",
    "VariantProbabilities",
    "variant_net_from_seed",
    "save_variant_net",
    "load_variant_net",
    "variant_weights_file",
    "default_variant_net",
    "variant_net",
    "choose_variant_net",
    "check_variant_evaluator",
    "variant_net_of_choice",
    "evaluate_variant",
]

MAGIC = "tavli_fast-variant-neural"
FORMAT = 1
#: The shipped net of each game (the default of its neural players).
SHIPPED: dict[str, str] = {"plakoto": "plakoto-v4.npz", "fevga": "fevga-v2.npz"}
_ARRAYS = ("w1", "b1", "w2", "b2")


@dataclass(frozen=True)
class VariantProbabilities:
    """The net's estimates for the player on roll. ``win_double`` counts every 2-point win
    (the loser bore off none, or P5's mother rule), ``win_mother`` the mother wins alone."""

    win: float
    win_double: float
    win_mother: float
    lose_double: float
    lose_mother: float

    @property
    def equity(self) -> float:
        """Points a game: +1 a single win, +2 a double or mother win (P7, F7)."""
        return 2.0 * self.win - 1.0 + self.win_double - self.lose_double

    @classmethod
    def from_array(cls, p: np.ndarray) -> "VariantProbabilities":
        return cls(*(float(x) for x in p))

    def to_dict(self) -> dict[str, float]:
        return {**{k: getattr(self, k) for k in self.__dataclass_fields__}, "equity": self.equity}


def variant_net_from_seed(game: str, seed: int, hidden: int = 96) -> _core.VariantNet:
    """A net of small random weights (uniform in +-0.1) drawn from ``seed``."""
    code = GAME_CODES[game]
    rng = np.random.default_rng(seed)
    inputs = _core.VARIANT_NET_INPUTS[code]
    return _core.VariantNet(code, rng.uniform(-0.1, 0.1, (inputs, hidden)), np.zeros(hidden),
                            rng.uniform(-0.1, 0.1, (5, hidden)), np.zeros(5))


def save_variant_net(path: str | os.PathLike, net: _core.VariantNet, version: str,
                     **info: object) -> None:
    """Write ``net`` as a weights file (atomically, world-readable) with ``version`` and any
    JSON-able ``info`` (``training`` above all)."""
    arrays = net.arrays()
    meta = {"magic": MAGIC, "format": FORMAT, "game": game_name(net.game), "version": version,
            "hidden": net.hidden, "inputs": net.n_inputs, "sha256": weights_checksum(arrays),
            **info}
    with atomic_file(Path(path), readable=True) as f:
        np.savez(f, **dict(zip(_ARRAYS, arrays)), meta=np.array(json.dumps(meta)))


def _shipped_dir() -> Path:
    return Path(str(resources.files("tavli_fast") / "data"))


def variant_weights_file(name: str | os.PathLike) -> Path:
    """The file ``name`` names: that path if it exists, else the installed file of that bare
    name (the shipped nets, then the earlier ones of ``tavli_fast_nets``), else the path as
    given (loading then reports it missing)."""
    path = Path(os.fspath(name))
    if not path.exists() and path.name == os.fspath(name):
        installed = installed_net(path.name)
        if installed is not None:
            return installed
    return path


def load_variant_net(path: str | os.PathLike, game: str | None = None) -> tuple[_core.VariantNet, dict]:
    """(net, meta) from a weights file, its format and checksum verified; with ``game``, the
    file must hold that game's net. NeuralNetError names the file otherwise."""
    path = variant_weights_file(path)
    check_regular_file(path, "a weights file")
    try:
        with open(path, "rb") as f:
            if not zipfile.is_zipfile(f):
                raise NeuralNetError(f"{path}: not a weights file (not an .npz archive)")
            f.seek(0)
            with np.load(f, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                arrays = tuple(np.array(z[k]) for k in _ARRAYS)
    except FileNotFoundError:
        raise NeuralNetError(f"{path}: no such weights file") from None
    except (OSError, KeyError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise NeuralNetError(f"{path}: not a readable weights file ({exc})") from None
    if not isinstance(meta, dict) or meta.get("magic") != MAGIC:
        raise NeuralNetError(f"{path}: not a tavli_fast Plakoto / Fevga weights file")
    if meta.get("format") != FORMAT:
        raise NeuralNetError(f"{path}: weights format {meta.get('format')}, this version reads {FORMAT}")
    if meta.get("game") not in GAME_CODES or (game is not None and meta["game"] != game):
        raise NeuralNetError(f"{path}: a net for {meta.get('game')!r}, not for {game!r}")
    if any(a.dtype != np.float64 for a in arrays) or weights_checksum(arrays) != meta.get("sha256"):
        raise NeuralNetError(f"{path}: checksum mismatch, the weights file is damaged")
    try:
        net = _core.VariantNet(GAME_CODES[meta["game"]], *arrays)
    except ValueError as exc:
        raise NeuralNetError(f"{path}: {exc}") from None
    return net, meta


@functools.cache
def _load_shipped(game: str) -> tuple[_core.VariantNet, dict]:
    return load_variant_net(_shipped_dir() / SHIPPED[game], game)


def default_variant_net(game: str) -> _core.VariantNet:
    """The shipped net of ``game``, loaded and verified once per process (read-only use)."""
    if game not in SHIPPED:
        raise ValueError(f"no net for {game!r}: choose plakoto or fevga")
    return _load_shipped(game)[0]


def variant_net(game: str, weights: str | os.PathLike | None = None) -> _core.VariantNet:
    """The net the neural players of ``game`` use: the file ``weights`` (None: shipped)."""
    if weights is None:
        return default_variant_net(game)
    return load_variant_net(weights, game)[0]


def choose_variant_net(game: str, weights: str | os.PathLike | None = None,
                       needed: bool = True) -> NetChoice | None:
    """The NetChoice of ``game``'s net for a run whose neural players use it (``needed``;
    else None): the weights file ``weights``, loaded and checked now and named by its
    absolute path and checksum for the workers and a resumed run, or (None) the shipped one.
    ValueError (NeuralNetError) naming the file if it cannot be used or holds another game's
    net, or if weights are given to a run whose players use no net."""
    if not needed:
        if weights is not None:
            raise ValueError(f"weights are for {game}'s neural players, and this run has none")
        return None
    if weights is None:
        meta = _load_shipped(game)[1]
        return NetChoice(None, str(meta.get("version")), str(meta["sha256"]))
    path = os.path.abspath(variant_weights_file(weights))  # workers may run elsewhere
    meta = load_variant_net(path, game)[1]
    return NetChoice(path, str(meta.get("version")), str(meta["sha256"]))


def check_variant_evaluator(game: object, evaluator: object) -> None:
    """ValueError for an evaluator other than float32 asked of a Plakoto / Fevga run or
    command (``game``; None: backgammon / Portes, where any of ``neural.EVALUATORS`` goes):
    the int16 evaluator is for the backgammon / Portes net, these nets have none. An unknown
    evaluator is refused too (``neural.check_evaluator``); None asks for none (these nets'
    float32)."""
    kind = check_evaluator(evaluator)
    if game is not None and evaluator is not None and kind != "float32":
        raise ValueError(f"evaluator {kind}: the {kind} evaluator is for the backgammon / Portes "
                         f"net, not {game}'s (its net is valued by float32 only)")


def variant_net_of_choice(game: str, choice: NetChoice | None) -> _core.VariantNet:
    """The net of ``choice`` for ``game`` (None or a shipped choice: the shipped net), loaded
    once per process; NeuralNetError if the file no longer holds the weights it had when the
    run was planned."""
    if choice is None or choice.file is None:
        return default_variant_net(game)
    return _load_checked(game, choice)


@functools.cache
def _load_checked(game: str, choice: NetChoice) -> _core.VariantNet:
    net, meta = load_variant_net(choice.file, game)
    choice.require_unchanged(meta)
    return net


def evaluate_variant(
    game: str,
    position: VariantPosition | Mapping[str, Any] | str | None = None,
    net: _core.VariantNet | None = None,
    exact: bool = False,
) -> VariantProbabilities:
    """The net's probabilities for the player on roll of ``position`` (None: the start),
    before he rolls. ``exact``: the float64 path instead of the fast float32 one."""
    pos = variant_position(game, position)
    require_variant_in_progress(pos)
    net = default_variant_net(game) if net is None else net
    board = pos.core_board()[None].copy()
    pinned = np.array([pos.pinned_mask()], dtype=np.uint32)
    return VariantProbabilities.from_array(net.evaluate_many(board, pinned, exact=exact)[0])
