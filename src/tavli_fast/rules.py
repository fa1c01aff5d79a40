"""Rule presets (RULES.md R5, R20) as plain data passed to the core."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Rules", "RULES", "get_rules"]


@dataclass(frozen=True)
class Rules:
    """Options that change how a game is played or scored.

    first_roll_no_doubles: R5 — from the starting position the first play uses
        the opening roll (two different numbers, each of the 15 rolls 1/15).
        When False (R5 variant, seed 003) the first player rolls both dice
        again, so the first play may be a double.
    backgammons: R20 — when False a backgammon scores as a gammon.
    """

    name: str
    first_roll_no_doubles: bool
    backgammons: bool


RULES: dict[str, Rules] = {
    "backgammon": Rules("backgammon", first_roll_no_doubles=True, backgammons=True),
    "portes": Rules("portes", first_roll_no_doubles=False, backgammons=False),
}


def get_rules(rules: str | Rules) -> Rules:
    """The preset named `rules` ("backgammon" or "portes"), or `rules` itself."""
    if isinstance(rules, Rules):
        return rules
    try:
        return RULES[rules]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown rules {rules!r}: choose one of {', '.join(RULES)}"
        ) from None
