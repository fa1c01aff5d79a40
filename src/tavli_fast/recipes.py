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
its chain's first step.
"""

from __future__ import annotations

import os
import textwrap
from dataclasses import dataclass

from .neural import NeuralNetError, default_weights_path, load_net, weights_file

__all__ = ["RecipeStep", "training_chain", "format_chain"]


@dataclass(frozen=True)
class RecipeStep:
    """One net of a chain: its version, its file's name, the net it started from (a file
    name, or None for the first), what was done and the commands that did it (none where
    the file records only the run's state)."""

    version: str
    file: str
    start: str | None
    method: str
    commands: tuple[str, ...]


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
    for beside the file that names it, then among the shipped nets, and must have the
    SHA-256 recorded for it: NeuralNetError if it cannot be found or differs, or if the
    chain comes back to a file it has passed."""
    path = weights_file(weights) if weights is not None else default_weights_path()
    chain: list[RecipeStep] = []
    seen: set[str] = set()
    expected: str | None = None
    while True:
        meta = load_net(path)[1]
        if expected is not None and meta["sha256"] != expected:
            raise NeuralNetError(f"{path}: not the net its successor started from (its "
                                 "SHA-256 differs from the one recorded)")
        if meta["sha256"] in seen:
            raise NeuralNetError(f"{path}: the chain of start files comes back to this net")
        seen.add(meta["sha256"])
        training = meta.get("training") if isinstance(meta.get("training"), dict) else {}
        start = training.get("start") if isinstance(training.get("start"), dict) else None
        chain.append(RecipeStep(
            version=str(meta.get("version")), file=path.name,
            start=str(start["file"]) if start else None,
            method=str(training.get("method") or _describe(training)),
            commands=tuple(str(c) for c in training.get("recipe", ()))))
        if start is None:
            return chain[::-1]
        beside = path.parent / str(start["file"])
        path = beside if beside.is_file() else weights_file(str(start["file"]))
        expected = start.get("sha256")


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
