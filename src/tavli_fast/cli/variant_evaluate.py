"""``tavli-eval --game`` and ``tavli-hint --game``: the Plakoto or Fevga net's view (issue 44).

    tavli-eval --game plakoto --position start
    tavli-eval --game fevga --position 'x 24:14 20:1; o 24:15'
    tavli-hint --game plakoto --position 'x 24:14 13:1; o 24:15' --dice 64 --top 5

``--position``: ``start``, the game's text id or its readable form (``variant_text``).
``tavli-eval`` prints the board and the net's five estimates for the side on roll before it
rolls, with their points a game. ``tavli-hint`` lists the plays of the roll in notation,
best first: every play's 0-ply equity (points a game for the mover) and the 1-ply equity of
the best few (``--top``), ranked by 1 ply where it was computed. The documents are built in
``play/reports.py`` (for ``tavli-serve`` too); ``cli/evaluate.py`` prints them here.
"""

from __future__ import annotations

from ..play.reports import VARIANT_OUTPUTS as FIGURES
from ..variants.position import variant_position
from . import print_plays


def print_variant_eval(game: str, report: dict) -> None:
    """tavli-eval --game's text: the board and the net's five estimates (``eval_report``)."""
    print(variant_position(game, report["position_id"]).draw())
    print(f" {report['position']}")
    print(f"{game.capitalize()}: the side on roll (X), before rolling")
    for k in FIGURES:
        if game == "fevga" and "mother" in k:
            continue
        print(f"  {k:<16} {report[k]:8.4f}")
    print(f"  {'equity':<16} {report['equity']:+8.4f}   points a game")


def print_variant_hint(game: str, report: dict) -> None:
    """tavli-hint --game's text: the plays of the roll by 0 and 1 ply (``hint_report``)."""
    dice = report["dice"]
    print_plays(f"{game.capitalize()} {report['position_id']}, dice {dice[0]}{dice[1]} "
                f"(points a game for the mover)", report["plays"])
