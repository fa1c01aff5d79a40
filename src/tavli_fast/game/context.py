"""The GameContext of a position: what an XGID or a Match ID carries beyond the checkers (the
cube, the score, the match, the dice), relative to the player on roll.

Its own module, below ``position`` (which gives every Position one) and ``matchid`` (which
reads and writes it), so that neither needs the other to define it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from ..errors import InvalidDiceError, InvalidPositionError, check_dice

__all__ = ["GameContext"]

CubeOwner = Literal["centre", "me", "opponent"]
_CUBE_OWNERS = ("centre", "me", "opponent")


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_power_of_two(value: int) -> bool:
    return value >= 1 and value & (value - 1) == 0


@dataclass(frozen=True)
class GameContext:
    """What an XGID carries beyond the checkers, relative to the player on roll.

    ``cube_value`` is the cube's value (1, 2, 4, ...) and ``max_cube`` the largest value the
    cube may reach, also as a value: the XGID stores both as log2, so the XGID default max-cube
    field ``10`` is ``max_cube=1024``. ``score`` is (mine, opponent's); ``match_length`` 0 is
    money play. ``crawford`` only exists in a match, ``jacoby`` and ``beaver`` only in money
    play. ``dice`` is None when the player on roll has not rolled yet.
    """

    cube_value: int = 1
    cube_owner: CubeOwner = "centre"
    dice: tuple[int, int] | None = None
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    max_cube: int = 1024

    def __post_init__(self) -> None:
        for name in ("cube_value", "max_cube", "match_length"):
            if not _is_int(getattr(self, name)):
                raise InvalidPositionError(f"{name} must be an int, got {getattr(self, name)!r}")
        for name in ("crawford", "jacoby", "beaver"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidPositionError(f"{name} must be a bool, got {getattr(self, name)!r}")
        if not _is_power_of_two(self.max_cube):
            raise InvalidPositionError(f"max_cube must be a power of two, got {self.max_cube}")
        if not _is_power_of_two(self.cube_value):
            raise InvalidPositionError(
                f"cube value must be a power of two (1, 2, 4, ...), got {self.cube_value}"
            )
        if self.cube_value > self.max_cube:
            raise InvalidPositionError(
                f"cube value {self.cube_value} is above the maximum cube {self.max_cube}"
            )
        if self.cube_owner not in _CUBE_OWNERS:
            raise InvalidPositionError(
                f"cube owner must be one of {_CUBE_OWNERS}, got {self.cube_owner!r}"
            )
        if self.cube_owner != "centre" and self.cube_value == 1:
            raise InvalidPositionError("an owned cube has been turned: its value cannot be 1")
        if self.dice is not None:
            if not isinstance(self.dice, tuple) or len(self.dice) != 2:
                raise InvalidDiceError(f"dice must be None or a pair, got {self.dice!r}")
            object.__setattr__(self, "dice", check_dice(*self.dice))
        if (
            not isinstance(self.score, tuple)
            or len(self.score) != 2
            or not all(_is_int(s) and s >= 0 for s in self.score)
        ):
            raise InvalidPositionError(
                f"score must be a pair of non-negative ints, got {self.score!r}"
            )
        object.__setattr__(self, "score", (int(self.score[0]), int(self.score[1])))
        if self.match_length < 0:
            raise InvalidPositionError(f"match length cannot be negative, got {self.match_length}")
        if self.match_length == 0:
            if self.score != (0, 0):
                raise InvalidPositionError(
                    f"money play (match length 0) has no score, got {self.score}"
                )
            if self.crawford:
                raise InvalidPositionError("the Crawford rule only exists in match play")
        else:
            if max(self.score) >= self.match_length:
                raise InvalidPositionError(
                    f"score {self.score[0]}-{self.score[1]} has already won a "
                    f"{self.match_length}-point match"
                )
            if self.jacoby or self.beaver:
                raise InvalidPositionError("Jacoby and beavers only exist in money play")
            if self.crawford:
                if max(self.score) != self.match_length - 1:
                    raise InvalidPositionError(
                        f"a Crawford game needs a player 1 point from winning the "
                        f"{self.match_length}-point match, score is "
                        f"{self.score[0]}-{self.score[1]}"
                    )
                if self.cube_value != 1 or self.cube_owner != "centre":
                    raise InvalidPositionError("the cube is not used in the Crawford game")

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    def sides_switched(self) -> GameContext:
        """The context seen by the opponent: owner and score swapped, dice cleared."""
        owner = {"centre": "centre", "me": "opponent", "opponent": "me"}[self.cube_owner]
        return replace(
            self, cube_owner=owner, score=(self.score[1], self.score[0]), dice=None  # type: ignore[arg-type]
        )
