"""Exact match-play cube decisions inside the two-sided bear-off database (R21-R25).

For a position with both sides inside the two-sided database (every checker left on points
1-6, at most 9 a side by default) at a match score, the compiled core
(``kernels/_bearoff_match.pxi``) solves the cubeful game exactly: dynamic programming over
every position pair reachable from it, every cube value and owner, with perfect checker and
cube play on both sides (double, take or pass, redouble; no cube in the Crawford game; a
cube that wins the match for a side is dead), ending in the match equity table's values at
the score after the game. ``cube.py`` answers with it instead of the 0-ply model
(``docs/cube.md`` gives the costs and where the model still answers).

Answers are cached by position pair, cube and score, so repeated calls are free.

For many games at one score (a cubeful match rollout), ``solved_region`` solves once every
pair with at most REGION_CHECKERS checkers a side; the game loop then reads the players'
cube decisions and the truncated games' exact values from it.
"""

from __future__ import annotations

import functools
import threading

import numpy as np

from .. import _core
from ..game.position import Position
from .bearoff import default_database, in_two_sided
from .met import load_met

__all__ = ["SOLVE_BUDGET", "REGION_CHECKERS", "MATCH_REGION_CHECKERS", "exact_match_analysis",
           "solved_region", "match_regions"]

#: Values the solve may hold (float32, two per pair and cube state): 2**25 is 128 MB,
#: about 2.4 million position pairs at a 7-point score (a few seconds on one core).
#: Larger positions keep the 0-ply model.
SOLVE_BUDGET = 1 << 25

#: Checkers a side in the region a cubeful match rollout solves once per worker: 5 is
#: C(11, 6)^2 = 213,444 pairs, 12 MB and under a second at a 7-point score (6 checkers
#: would take 5-6 s; docs/cube.md).
REGION_CHECKERS = 5

#: The same for whole matches, whose score changes from game to game: each worker solves a
#: score's region on its first game there (4 checkers a side: 44,100 pairs, about 0.1 s and
#: 2.5 MB at a 7-point score), for the neural players' cube in bear-offs.
MATCH_REGION_CHECKERS = 4

_OWNERS = {"centre": 0, "me": 1, "opponent": 2}


def exact_match_analysis(pos: Position) -> tuple | None:
    """The exact cube analysis of `pos` (a match position before the roll) as
    ``_core.cube_analysis_match_exact`` gives it: (cubeless, nd, dt, dp, mwc_nd, mwc_dt,
    mwc_dp, action, can_double, positions of the side on roll, of its opponent); None
    when `pos` is money play, outside the two-sided database, or too large to solve
    within SOLVE_BUDGET (the caller keeps the model then)."""
    ctx = pos.context
    if ctx.match_length == 0 or not in_two_sided(pos.board):
        return None
    return _solved(pos.board.tobytes(), ctx.cube_value, _OWNERS[ctx.cube_owner], ctx.max_cube,
                   ctx.match_length - ctx.score[0], ctx.match_length - ctx.score[1],
                   ctx.crawford)


@functools.lru_cache(maxsize=4096)
def _solved(board: bytes, value: int, owner: int, max_cube: int, away_me: int,
            away_opp: int, crawford: bool) -> tuple | None:
    # The board travels as bytes: the cache's key must be hashable.
    b = np.frombuffer(board, dtype=np.int8).reshape(2, 26)
    return _core.cube_analysis_match_exact(np.ascontiguousarray(b), value, owner, max_cube,
                                           away_me, away_opp, crawford, load_met().kernel,
                                           default_database().tables, SOLVE_BUDGET)


@functools.lru_cache(maxsize=4)
def solved_region(value: int, owner: int, max_cube: int, away_me: int, away_opp: int,
                  crawford: bool, checkers: int = REGION_CHECKERS,
                  cache_dir: str | None = None) -> _core.MatchBearoffRegion:
    """Every bear-off pair of at most `checkers` checkers a side solved at this score and
    starting cube (the kernels' cube tuple fields, seen by the game's player 0; owner 0
    centre, 1 player 0, 2 player 1), once per process."""
    return _core.MatchBearoffRegion(default_database(cache_dir).tables, checkers, value, owner,
                                    max_cube, away_me, away_opp, crawford, load_met().kernel)


def match_regions(length: int, max_cube: int,
                  checkers: int = MATCH_REGION_CHECKERS) -> _core.MatchBearoffRegions:
    """The bear-off regions of a match's scores (solved on each score's first game by
    ``_core.run_matches``, which fills them without the GIL), one set per thread and match
    length: threads (a Dask worker's) never fill the same set at once."""
    return _match_regions(length, max_cube, checkers, threading.get_ident())


@functools.lru_cache(maxsize=4)
def _match_regions(length: int, max_cube: int, checkers: int,
                   thread: int) -> _core.MatchBearoffRegions:
    return _core.MatchBearoffRegions(checkers, length, max_cube, load_met().kernel)
