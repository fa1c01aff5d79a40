"""Command-line tools, one small module per command (``tavli-rollout`` is ``cli.rollout``).

Shared conventions: argparse, human output on stdout, logs and progress bars on stderr, exit
status 0 on success and 2 on bad usage or bad input with a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

__all__ = ["UsageError", "OneLineParser", "parse_count", "players_from_args", "compiled_core_status"]


class UsageError(Exception):
    """Bad input found after parsing: reported as one line on stderr, exit status 2."""


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line (``prog: error: message``), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def parse_count(text: str) -> int:
    """A positive whole number written as ``1000000``, ``1_000_000`` or ``1e6``."""
    from ..inputs import check_count  # the same rule as the Python API's

    s = text.strip()
    try:
        number: int | float = int(s)
    except ValueError:
        try:
            number = float(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    try:
        return check_count(number, "the value")
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}") from None


def players_from_args(args: argparse.Namespace) -> tuple[str, str] | None:
    """The pair of players given by ``--player P`` or ``--players A,B`` (None: neither)."""
    if args.player is not None:
        return (args.player, args.player)
    if args.players is not None:
        parts = [s.strip() for s in args.players.split(",")]
        if len(parts) != 2 or not all(parts):
            raise UsageError(f"--players takes two names separated by a comma, got {args.players!r}")
        return (parts[0], parts[1])
    return None


def compiled_core_status() -> str:
    """Whether the compiled core (tavli_fast._core) is importable, and from where."""
    try:
        from .. import _core
    except ImportError as e:  # pragma: no cover - depends on the build
        return f"compiled core: NOT available ({e})"
    return f"compiled core: yes ({_core.__file__})"


def print_error(prog: str, message: object) -> int:
    """Report bad input as one line on stderr; return the exit status 2."""
    text = " ".join(str(message).split()) or type(message).__name__
    print(f"{prog}: error: {text}", file=sys.stderr)
    return 2
