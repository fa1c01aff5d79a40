"""The marks of an error and the rating of a player, on GNU Backgammon's scales.

Marks: an error (equity lost, EMG per unit of the cube) of at least 0.03 is *doubtful*, of at
least 0.06 *bad*, of at least 0.12 *very bad*: the thresholds GNU Backgammon 1.1 applies by
default (its ``show analysis`` prints them; tests/analysis checks them against the PyPI gnubg
package).

Ratings: the player's error per decision (EMG) places him in a band; the band limits are those
of GNU Backgammon's own error-to-rating function (checked against the PyPI gnubg package's
``error_rating``): below 0.005 "Expert", then "Advanced" (below 0.008), "Intermediate" (below
0.013), "Casual player" (below 0.020), "Beginner" (below 0.032), and "Awful!" from 0.032.
"""

from __future__ import annotations

import math

__all__ = ["DOUBTFUL", "BAD", "VERY_BAD", "mark", "rating", "RATING_BANDS"]

DOUBTFUL = 0.03
BAD = 0.06
VERY_BAD = 0.12

#: (upper limit of the error per decision in EMG, the band's name), best band first.
RATING_BANDS = (
    (0.005, "Expert"),
    (0.008, "Advanced"),
    (0.013, "Intermediate"),
    (0.020, "Casual player"),
    (0.032, "Beginner"),
    (math.inf, "Awful!"),
)


def mark(error: float) -> str:
    """"very bad", "bad", "doubtful" or "" for an error in EMG (0 or more)."""
    if error >= VERY_BAD:
        return "very bad"
    if error >= BAD:
        return "bad"
    if error >= DOUBTFUL:
        return "doubtful"
    return ""


def rating(error_per_decision: float) -> str:
    """The band of an error per decision (EMG); "" when nothing was decided (NaN)."""
    if math.isnan(error_per_decision):
        return ""
    return next(name for limit, name in RATING_BANDS if error_per_decision < limit)
