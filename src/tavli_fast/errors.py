"""Exceptions raised for bad user input, and the dice check shared by all modules."""

from __future__ import annotations

import numpy as np

__all__ = ["InvalidPositionError", "VariantIdError", "InvalidDiceError", "InvalidCountError",
           "check_dice"]


class InvalidPositionError(ValueError):
    """A board, Position ID, XGID or game context that is not a legal backgammon position."""


class VariantIdError(InvalidPositionError):
    """A Plakoto or Fevga position id where a backgammon (Portes) position was expected.

    ``text``: the id; ``game``: ``"plakoto"`` or ``"fevga"``. ``with_advice`` gives the same
    error with what to do added, worded for where it was given (an option, an argument)."""

    def __init__(self, text: str, game: str, advice: str = ""):
        self.text, self.game, self.advice = text, game, advice
        message = f"{text!r} is a {game.capitalize()} position id, not a backgammon one"
        super().__init__(f"{message}: {advice}" if advice else message)

    def with_advice(self, advice: str) -> "VariantIdError":
        return VariantIdError(self.text, self.game, advice)


class InvalidDiceError(ValueError):
    """Dice that are not two whole numbers from 1 to 6."""


class InvalidCountError(ValueError):
    """A count (trials, games, matches, chunk size, ...) that is not a whole number in range:
    at least 1 (or 0 where that is allowed) and at most ``inputs.MAX_COUNT``."""


def _check_die(name: str, value: object) -> int:
    # bool is a subclass of int, but True is not a die roll: refuse it explicitly.
    # numpy integers are accepted; float, str, None, ... are not (3.0 is not a die).
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidDiceError(
            f"{name} must be an int from 1 to 6, got {value!r} ({type(value).__name__})"
        )
    die = int(value)
    if not 1 <= die <= 6:
        raise InvalidDiceError(f"{name} must be from 1 to 6, got {die}")
    return die


def check_dice(die1: object, die2: object) -> tuple[int, int]:
    """Return ``(die1, die2)`` as plain ints, or raise InvalidDiceError saying what is wrong."""
    return _check_die("die1", die1), _check_die("die2", die2)
