"""Rule presets and options (RULES.md R5, R20, P4, P6, F4-F6) as plain data passed to the core."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Rules", "RULES", "get_rules", "PlakotoRules", "FevgaRules", "game_rules", "option_names"]


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


@dataclass(frozen=True)
class PlakotoRules:
    """Options of Plakoto (RULES.md P1-P7); the defaults are the first reading of each rule.

    pinned_home_counts: P4 option — a pinned checker in the home board counts as home, so
        it does not stop its side bearing off (it still cannot move). Default: it stops it.
    draw_scores_point: P6 option — two pinned mothers end the game with 1 point counted to
        nobody (some online rooms) instead of a replayed draw. Scoring only: plays are the same.
    """

    pinned_home_counts: bool = False
    draw_scores_point: bool = False


@dataclass(frozen=True)
class FevgaRules:
    """Options of Fevga (RULES.md F1-F7); the defaults are the first reading of each rule.

    runner_to_quarter: F4 option — the first checker frees the others once it reaches the
        opponent's starting quarter (own points 7-12, so any own point <= 12) instead of
        passing the opponent's starting point (own points 1-11).
    start_quarter_each_move: F5 option — holding all six own points 19-24 is forbidden after
        every single move of a play, not only at its end.
    prime_never_built: F6 option — a play may not end with a six-point prime that has every
        opposing checker behind it, unless the opponent was already trapped so at the start
        of the turn (then the default F6 rule applies: open it if a play using the most dice can).
    """

    runner_to_quarter: bool = False
    start_quarter_each_move: bool = False
    prime_never_built: bool = False


def game_rules(game: str, options: object = None) -> PlakotoRules | FevgaRules:
    """The rules of ``game`` ("plakoto" / "fevga"): the defaults for None, ``options`` itself
    when it is that game's rules object, else the options named (a sequence of names, each
    set True). ValueError names the options of the game."""
    cls = {"plakoto": PlakotoRules, "fevga": FevgaRules}.get(game)
    if cls is None:
        raise ValueError(f"game must be plakoto or fevga, not {game!r}")
    if options is None:
        return cls()
    if isinstance(options, (PlakotoRules, FevgaRules)):
        if not isinstance(options, cls):
            raise ValueError(f"{game} takes {cls.__name__}, not {type(options).__name__}")
        return options
    names = [options] if isinstance(options, str) else list(options)  # type: ignore[call-overload]
    known = tuple(cls.__dataclass_fields__)
    for name in names:
        if name not in known:
            raise ValueError(f"{name!r} is not an option of {game}: choose from {', '.join(known)}")
    return cls(**{name: True for name in names})


def option_names(rules: PlakotoRules | FevgaRules) -> tuple[str, ...]:
    """The options set in ``rules`` (those that differ from the first reading), by name."""
    return tuple(name for name, value in vars(rules).items() if value)
