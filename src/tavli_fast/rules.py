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
    cube: R21-R23 — the doubling cube is used (matches and cubeful rollouts).
    winner_starts: in a match, the previous game's winner starts the next game (and
        rolls both dice, as the first player does when ``first_roll_no_doubles`` is
        False); otherwise each game opens with the R5 opening roll.
    """

    name: str
    first_roll_no_doubles: bool
    backgammons: bool
    cube: bool = True
    winner_starts: bool = False


RULES: dict[str, Rules] = {
    "backgammon": Rules("backgammon", first_roll_no_doubles=True, backgammons=True),
    # The Greek rule texts: no cube, games of 1 or 2 points, the winner starts the next game.
    "portes": Rules("portes", first_roll_no_doubles=False, backgammons=False, cube=False,
                    winner_starts=True),
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
