"""Whole games in one process: how often does the side on roll win, and how?"""

from __future__ import annotations

import math
import os
import time
from dataclasses import asdict, dataclass

import numpy as np

from . import _core
from .movegen import require_game_in_progress
from .players import player_ids
from .position import Position
from .rules import Rules, get_rules

__all__ = ["SimulationResult", "simulate", "resolve_position", "new_seed"]

MAX_SEED = 2**64 - 1


@dataclass(frozen=True)
class SimulationResult:
    """Outcome counts of `games` whole games, for ``players[0]`` (on roll first).

    The six counts are exclusive (R19-R20): a gammon win is not also counted as
    a single win.  A ply is one turn, a lost turn (no legal play) included.
    """

    position_id: str
    players: tuple[str, str]
    rules: str
    games: int
    win_single: int
    win_gammon: int
    win_backgammon: int
    lose_single: int
    lose_gammon: int
    lose_backgammon: int
    plies_mean: float
    plies_std: float
    seed: int
    elapsed_s: float

    @property
    def wins(self) -> int:
        return self.win_single + self.win_gammon + self.win_backgammon

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed_s if self.elapsed_s > 0 else math.inf

    def to_dict(self) -> dict:
        d = asdict(self)
        d["players"] = list(self.players)
        return d


def new_seed() -> int:
    """A fresh random seed in [0, 2**63), reported so the run can be repeated."""
    return int.from_bytes(os.urandom(8), "little") >> 1


def check_seed(seed: int | None) -> int:
    if seed is None:
        return new_seed()
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"seed must be from 0 to 2**64 - 1, got {seed}")
    return int(seed)


def resolve_position(position: str | Position) -> tuple[Position, bool]:
    """(Position, is_start) from "start", a gnubg Position ID, an XGID or a Position.

    `is_start` says whether the opening-roll rule R5 applies: only a game that
    begins at the starting position has an opening roll.
    """
    if isinstance(position, Position):
        pos = position
    elif isinstance(position, str) and position.strip().lower() in ("start", "initial"):
        pos = Position.initial()
    elif isinstance(position, str):
        pos = Position.from_id(position)
    else:
        raise TypeError(f"position must be 'start', an id or a Position, not {type(position).__name__}")
    require_game_in_progress(pos)
    is_start = np.array_equal(pos.board, Position.initial().board) and pos.context.dice is None
    return pos, is_start


def simulate(
    position: str | Position = "start",
    games: int = 10_000,
    players: tuple[str, str] = ("random", "random"),
    seed: int | None = None,
    rules: str | Rules = "backgammon",
) -> SimulationResult:
    """Play `games` whole games from `position` in the compiled core, one process.

    ``players[0]`` is the side on roll in `position`; from the starting position
    it is the side that won the opening roll, so the results are the first
    mover's.  From the start the first roll follows R5 (no doubles) unless the
    rules say the first player re-rolls; from any other position the side on
    roll rolls normally, except that an XGID's rolled dice are played first.
    The same seed gives the same games.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games <= 0:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    pos, is_start = resolve_position(position)
    kinds = player_ids(players)
    rule = get_rules(rules)
    seed = check_seed(seed)
    first_dice = None
    if pos.context.dice is not None:
        first_dice = np.tile(np.array(pos.context.dice, dtype=np.int8), (int(games), 1))
    t0 = time.perf_counter()
    totals = _core.run_games(
        pos.board, int(games), kinds[0], kinds[1], seed,
        is_start and rule.first_roll_no_doubles, rule.backgammons, first_dice,
    )
    elapsed = time.perf_counter() - t0
    n = int(games)
    mean = totals[6] / n
    var = max(totals[7] / n - mean * mean, 0.0)
    return SimulationResult(
        position_id=pos.position_id(),
        players=(players[0], players[1]),
        rules=rule.name,
        games=n,
        win_single=int(totals[0]),
        win_gammon=int(totals[1]),
        win_backgammon=int(totals[2]),
        lose_single=int(totals[3]),
        lose_gammon=int(totals[4]),
        lose_backgammon=int(totals[5]),
        plies_mean=float(mean),
        plies_std=float(math.sqrt(var * n / (n - 1))) if n > 1 else 0.0,
        seed=seed,
        elapsed_s=elapsed,
    )
