"""Whole games in one process: how often does the side on roll win, and how?"""

from __future__ import annotations

import math
import os
import time
from ..run.records import TableExport
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .. import _core
from ..checks import check_count, check_seed
from .players import player_kinds
from ..game.resolve import resolve_position
from .neural import choose_net
from .players import game_resources, needs_net
from ..game.position import Position
from ..rules import FevgaRules, PlakotoRules, Rules, get_rules
from ..variants.games import VariantSimulationResult, simulate_variant
from ..variants.neural import check_variant_evaluator

__all__ = ["SimulationResult", "simulate"]


@dataclass(frozen=True)
class SimulationResult(TableExport):
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
    bearoff: bool = False

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


def simulate(
    position: str | Position | Any = "start",
    games: int = 10_000,
    players: tuple[str, str] | str = ("random", "random"),
    seed: int | None = None,
    rules: str | Rules | PlakotoRules | FevgaRules | None = "backgammon",
    bearoff: bool = True,
    cache_dir: str | os.PathLike | None = None,
    game: str = "portes",
    evaluator: str | None = None,
) -> SimulationResult | VariantSimulationResult:
    """Play `games` whole games from `position` in the compiled core, one process.

    ``players[0]`` is the side on roll in `position`; from the starting position
    it is the side that won the opening roll, so the results are the first
    mover's.  From the start the first roll follows R5 (no doubles) unless the
    rules say the first player re-rolls; from any other position the side on
    roll rolls normally, except that an XGID's rolled dice are played first.
    With `bearoff` (the default) pubeval and greedy play pure bear-offs
    perfectly by the bear-off databases (built in `cache_dir` on first use).
    The same seed gives the same games. `evaluator`: how the neural players' net values
    positions (``neural.EVALUATORS``; None: ``neural.default_evaluator()``).

    ``game="plakoto"`` or ``"fevga"`` plays that game instead (players ``random`` and
    ``heuristic``; ``rules`` a PlakotoRules / FevgaRules or None; ``position`` "start", a
    position of that game, its dict or text id): see ``variant_games.simulate_variant``.
    """
    if game in ("plakoto", "fevga"):
        check_variant_evaluator(game, evaluator)
        return simulate_variant(
            game, position, games, players, seed,
            None if isinstance(rules, str) and rules == "backgammon" else rules,  # type: ignore[arg-type]
        )
    if game != "portes":
        raise ValueError(f"game must be portes, plakoto or fevga, not {game!r}")
    n = check_count(games, "games")
    pos, is_start = resolve_position(position)
    names, kinds = player_kinds(players)
    rule = get_rules(rules)
    seed = check_seed(seed)
    resources = game_resources(kinds, bearoff, cache_dir=cache_dir,
                               weights=choose_net(evaluator=evaluator, needed=needs_net(kinds)))
    first_dice = None
    if pos.context.dice is not None:
        first_dice = np.tile(np.array(pos.context.dice, dtype=np.int8), (n, 1))
    t0 = time.perf_counter()
    counts, _ = _core.run_games(
        pos.board, n, kinds[0], kinds[1], seed,
        is_start and rule.first_roll_no_doubles, rule.backgammons, first_dice,
        bearoff_play=bearoff, **resources,
    )
    elapsed = time.perf_counter() - t0
    mean = counts[7] / n
    var = max(counts[8] / n - mean * mean, 0.0)
    return SimulationResult(
        position_id=pos.position_id(),
        players=names,
        rules=rule.name,
        games=n,
        win_single=int(counts[0]),
        win_gammon=int(counts[1]),
        win_backgammon=int(counts[2]),
        lose_single=int(counts[3]),
        lose_gammon=int(counts[4]),
        lose_backgammon=int(counts[5]),
        plies_mean=float(mean),
        plies_std=float(math.sqrt(var * n / (n - 1))) if n > 1 else 0.0,
        seed=seed,
        elapsed_s=elapsed,
        bearoff=resources["bearoff"] is not None,
    )
