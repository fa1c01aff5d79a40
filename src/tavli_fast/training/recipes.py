"""How a net was made: the training recipes its weights files record, as one chain.

A shipped weights file records in its metadata (``training``) what was done (``method``),
the commands that did it (``recipe``), and the file it started from with that file's
SHA-256 (``start``). Following ``start`` back gives the whole chain from the first net,
oldest first; `format_chain` prints it as the shell commands that repeat it (``tavli-train
--recipe``). ``tavli-train`` records them itself: ``--fit ... --export`` the file it started
from, the commands that made its targets and those of the fit (``--method`` adds the words);
TD training the file of ``--init-from`` and the commands of the run (its checkpoint keeps
them across ``--resume``); ``--average`` the commands of its checkpoints' runs and its own.
A file without ``start`` (from random weights, or exported before this was recorded) is
its chain's first step. A file also records the steps of all its ancestors (``ancestors``:
each one's version, file, SHA-256, start, method and commands), so that its chain needs no
other file: the shipped default holds the chain of the earlier nets, which live in the
``tavli_fast_nets`` package (``nets/embed_chain.py`` writes it), and ``tavli-train`` writes
it into every net it exports from a start file whose chain it can follow. Where the earlier
files are installed, they must agree with those records.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass
from pathlib import Path

from ..variants.neural import load_variant_net
from ..play.neural import (
    NeuralNetError,
    default_weights_path,
    installed_net,
    load_net,
    weights_file,
)

__all__ = ["RecipeStep", "training_chain", "format_chain", "ancestors", "with_ancestors"]


@dataclass(frozen=True)
class RecipeStep:
    """One net of a chain: its version, its file's name, the net it started from (a file
    name, or None for the first), what was done and the commands that did it (none where
    the file records only the run's state), and its weights' SHA-256."""

    version: str
    file: str
    start: str | None
    method: str
    commands: tuple[str, ...]
    sha256: str = ""  # of its weights (weights_checksum)


def _describe(training: dict) -> str:
    """What a file without a written method records about how it was made."""
    if training.get("averaged"):
        runs = training["averaged"]
        games = sorted(int(r.get("games_done", 0)) for r in runs)
        seeds = sorted({r.get("seed") for r in runs}, key=str)
        return (f"TD self-play: the mean of {len(runs)} checkpoints (seed "
                f"{', '.join(map(str, seeds))}; {games[0]:,} to {games[-1]:,} games)")
    if "supervised" in training:
        fit = training["supervised"]
        return (f"fitted to the targets in {', '.join(map(str, fit.get('targets', ())))} "
                f"({fit.get('epochs')} epochs, the last at rate {fit.get('rate')})"
                + ("" if training.get("recipe") else "; no commands recorded"))
    if "games_done" in training:
        return f"TD self-play: {int(training['games_done']):,} games, seed {training.get('seed')}"
    return "no training recorded"


def training_chain(weights: str | os.PathLike | None = None) -> list[RecipeStep]:
    """The chain of nets that made the net of `weights` (a weights file, or a shipped one by
    its bare name; None: the shipped default), oldest first. Each ``start`` file is looked
    for beside the file that names it, then among the installed nets (`installed_net`), and
    must have the SHA-256 recorded for it. A file's ``training.ancestors`` (`ancestors`)
    stands in for the start files that are not installed, and must agree with those that
    are. NeuralNetError if a start file can be neither found nor read from its successors'
    records, if it differs from them, or if the chain comes back to a net it has passed."""
    path: Path | None = weights_file(weights) if weights is not None else default_weights_path()
    name = path.name
    chain: list[RecipeStep] = []
    recorded: dict[str, tuple[RecipeStep, str | None, str]] = {}  # sha256: (step, its start's, by)
    expected: str | None = None
    while True:
        if path is not None:
            meta = _weights_meta(path)
            if expected is not None and meta["sha256"] != expected:
                raise NeuralNetError(f"{path}: not the net its successor started from (its "
                                     "SHA-256 differs from the one recorded)")
            training = meta.get("training") if isinstance(meta.get("training"), dict) else {}
            start = training.get("start") if isinstance(training.get("start"), dict) else None
            step = RecipeStep(
                version=str(meta.get("version")), file=path.name,
                start=str(start["file"]) if start else None,
                method=str(training.get("method") or _describe(training)),
                commands=tuple(str(c) for c in training.get("recipe", ())),
                sha256=str(meta["sha256"]))
            start_sha = start.get("sha256") if start else None
            if step.sha256 in recorded and recorded[step.sha256][0] != step:
                raise NeuralNetError(f"{path}: its recipe differs from the one "
                                     f"{recorded[step.sha256][2]} records for it")
            _learn(recorded, training.get("ancestors"), path.name)
        elif expected in recorded:  # not installed: as its successors record it
            step, start_sha, _ = recorded[expected]
        else:
            weights_file(name)  # an earlier net of the default: how to install it
            raise NeuralNetError(f"{name}: no such weights file")
        if step.sha256 in {s.sha256 for s in chain}:
            raise NeuralNetError(f"{step.file}: the chain of start files comes back to this net")
        chain.append(step)
        if step.start is None:
            return chain[::-1]
        beside = path.parent / step.start if path is not None else None
        name, expected = step.start, start_sha
        path = beside if beside is not None and beside.is_file() else _installed(name)


def _weights_meta(path: Path) -> dict:
    """The metadata of a backgammon net's file, or of a Plakoto / Fevga net's (its own format,
    the same ``training`` record): NeuralNetError if it is neither."""
    try:
        return load_net(path)[1]
    except NeuralNetError as backgammon:
        try:
            return load_variant_net(path)[1]
        except NeuralNetError:
            raise backgammon from None


def _installed(name: str) -> Path | None:
    """The file a start file's name finds (in the working directory, then `installed_net`)."""
    return Path(name) if Path(name).is_file() else installed_net(name)


def _learn(recorded: dict, ancestors: object, by: str) -> None:
    """Add the steps of a file's ``ancestors`` (`by`: its name) to `recorded`, by SHA-256,
    each with its start's (the step before it); NeuralNetError if two records disagree."""
    if not isinstance(ancestors, list):
        return
    before: RecipeStep | None = None
    for entry in ancestors:
        step = _step_of_record(entry)
        start_sha = before.sha256 if before is not None and before.file == step.start else None
        if step.sha256 in recorded and recorded[step.sha256][0] != step:
            raise NeuralNetError(f"{by}: its record of {step.file} differs from the one "
                                 f"{recorded[step.sha256][2]} holds")
        recorded.setdefault(step.sha256, (step, start_sha, by))
        before = step


def step_record(step: RecipeStep) -> dict:
    """A step as a file's ``training.ancestors`` holds it (JSON)."""
    return {"version": step.version, "file": step.file, "sha256": step.sha256,
            "start": step.start, "method": step.method, "commands": list(step.commands)}


def _step_of_record(entry: dict) -> RecipeStep:
    return RecipeStep(version=str(entry["version"]), file=str(entry["file"]),
                      start=None if entry.get("start") is None else str(entry["start"]),
                      method=str(entry["method"]),
                      commands=tuple(str(c) for c in entry.get("commands", ())),
                      sha256=str(entry["sha256"]))


def ancestors(start: dict, path: str | os.PathLike | None = None) -> list[dict]:
    """What a net made from the net `start` names (``{"file", "sha256"}``, as a file's
    ``training.start``) records as its ``training.ancestors``: the whole chain of that net,
    itself included, oldest first (`step_record`), so that ``tavli-train --recipe`` needs no
    other file. The start file is `path`, or the file its name finds (`weights_file`).
    NeuralNetError if it cannot be found or read, has another SHA-256, or its chain cannot
    be followed."""
    chain = training_chain(path if path is not None else str(start["file"]))
    if chain[-1].sha256 != start.get("sha256"):
        raise NeuralNetError(f"{start['file']}: not the net the new one started from (its "
                             "SHA-256 differs from the one recorded)")
    return [step_record(step) for step in chain]


def with_ancestors(training: dict, path: str | os.PathLike | None = None) -> dict:
    """`training` (a new weights file's record) with its ``ancestors`` (`ancestors`) when it
    names a start file whose chain can be followed (`path`: that file, if known); as it is
    otherwise (``tavli-train --recipe`` then looks for the start files themselves)."""
    start = training.get("start")
    if not isinstance(start, dict):
        return training
    try:
        return {**training, "ancestors": ancestors(start, path)}
    except (NeuralNetError, OSError):
        return training


def format_chain(chain: list[RecipeStep], width: int = 95) -> str:
    """The chain as a shell script: each step's version, file and method as comments, then
    its commands."""
    lines: list[str] = []
    for step in chain:
        head = f"{step.version} ({step.file}" + (f", from {step.start}" if step.start else "") + \
            f"): {step.method}"
        lines += textwrap.wrap(head, width, initial_indent="# ", subsequent_indent="#   ")
        lines += step.commands
    return "\n".join(lines) + "\n"
