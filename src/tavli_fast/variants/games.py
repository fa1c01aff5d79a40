"""Whole Plakoto and Fevga games: players, ``simulate_variant`` and random-game positions.

Players (ours): ``random`` picks uniformly among the distinct results of the roll;
``heuristic`` scores every result (race progress; in Plakoto pins made and suffered, the
opponent's mother, points made and reachable lone checkers; in Fevga points held in front of
the opponent's rearmost checker and their longest run) and plays the best; ``neural`` plays
the result with the best equity by the game's shipped net (``variant_neural``, issue 44) and
``neural-1ply`` the best by its 1-ply look among the few best by 0 ply, as the Portes
players of those names do. Whole games run in
the compiled core (``_variant_game.pxi``), from the start or any position; the first roll may
be a double (T3: the starter rolls both dice again).

``random_game_positions`` gives every position of seeded random games, for the parity tests
and ``bench/bench_variants.py``. ``play_variant_trials`` plays the games of one rollout chunk
or openings unit (``rollout.py``, ``openings.py``) and returns each game's outcome.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from .. import _core
from ..checks import check_count, check_seed, player_names
from ..rules import FevgaRules, PlakotoRules
from ..run.records import TableExport
from .position import VariantPosition, variant_position
from .movegen import GAME_CODES, core_options, game_name, position_after, require_variant_in_progress
from ..play.neural import NetChoice
from .neural import variant_net_of_choice

__all__ = [
    "VARIANT_PLAYERS",
    "OUTCOMES",
    "POINTS",
    "variant_player_ids",
    "variant_net_for",
    "NEURAL_VARIANT_PLAYERS",
    "uses_variant_net",
    "play_variant_trials",
    "VariantSimulationResult",
    "simulate_variant",
    "random_game_positions",
]

VARIANT_PLAYERS: dict[str, int] = {"random": 0, "heuristic": 1, "neural": 2, "neural-1ply": 3}
#: The players that use the game's net (``variant_neural``).
NEURAL_VARIANT_PLAYERS = ("neural", "neural-1ply")
#: The exclusive outcomes of a game for player 0, in the core's order, and their points.
OUTCOMES = (
    "win_single", "win_double", "win_mother", "lose_single", "lose_double", "lose_mother", "draw",
)
POINTS = (1, 2, 2, -1, -2, -2, 0)


def variant_player_ids(game: str, players: object) -> tuple[tuple[str, str], tuple[int, int]]:
    """(names, core ids) of two Plakoto / Fevga players; ValueError names the known ones."""
    names = player_names(players)
    for name in names:
        if name not in VARIANT_PLAYERS:
            raise ValueError(
                f"unknown {game} player {name!r}: choose one of {', '.join(VARIANT_PLAYERS)}"
            )
    return names, (VARIANT_PLAYERS[names[0]], VARIANT_PLAYERS[names[1]])


def uses_variant_net(ids: tuple[int, ...]) -> bool:
    """Whether one of the players ``ids`` (VARIANT_PLAYERS' numbers) plays by the game's net."""
    return max(ids) >= VARIANT_PLAYERS["neural"]


def variant_net_for(game: str | int, ids: tuple[int, ...],
                    choice: NetChoice | None = None) -> _core.VariantNet | None:
    """The net of ``game`` (name or core code) that ``choice`` names (None: the shipped one)
    if one of the players ``ids`` is a neural one, else None (loaded only when it plays)."""
    if not uses_variant_net(ids):
        return None
    return variant_net_of_choice(game if isinstance(game, str) else game_name(game), choice)


def play_variant_trials(
    board: np.ndarray, pinned: int, game: int, options: int, n_games: int,
    players: tuple[int, int], seed: int, dice: np.ndarray | None = None,
    net: NetChoice | None = None, control: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Play ``n_games`` games in the core (GIL released) from ``board`` (player 0 on roll).

    ``dice[i, 2j:2j+2]`` forces roll j of game i (0 = roll normally); ``net`` names the net
    of the neural players (None: the shipped one). Returns (counts
    int64[9] as ``_core.run_variant_games`` gives them, outcomes int8[n_games] indexing
    ``OUTCOMES``). ``control``: the unit's control words (``_core.run_variant_games``): the
    games stop once its stop flag is up (the counts are then those of the games played, and
    only their outcomes are set).
    """
    outcomes = np.empty(n_games, dtype=np.int8)
    counts = _core.run_variant_games(board, pinned, game, options, n_games, players[0],
                                     players[1], seed, first_dice=dice, outcomes=outcomes,
                                     net=variant_net_for(game, players, net),
                                     control=control)
    return counts, outcomes


@dataclass(frozen=True)
class VariantSimulationResult(TableExport):
    """Outcome counts of ``games`` whole games, for ``players[0]`` (on roll first).

    The seven counts are exclusive: ``win_single`` (borne off, the loser has borne off some:
    1 point), ``win_double`` (the loser none: 2 points, P7/F7), ``win_mother`` (Plakoto P5:
    2 points), the same three losses, and ``draw`` (Plakoto P6, both mothers pinned: no
    points, replayed). A ply is one turn, a lost turn included.
    """

    game: str
    position_id: str
    players: tuple[str, str]
    rules: dict[str, bool]
    games: int
    win_single: int
    win_double: int
    win_mother: int
    lose_single: int
    lose_double: int
    lose_mother: int
    draw: int
    plies_mean: float
    plies_std: float
    seed: int
    elapsed_s: float

    @property
    def wins(self) -> int:
        return self.win_single + self.win_double + self.win_mother

    def rates(self) -> dict[str, tuple[float, float]]:
        """Each rate for player 0 with its standard error, and points a game (mean, SE)."""
        n = self.games

        def share(k: int) -> tuple[float, float]:
            p = k / n
            return p, math.sqrt(p * (1 - p) / n)

        counts = [getattr(self, name) for name in OUTCOMES]
        out = {
            "win": share(self.wins),
            "double_win": share(self.win_double),
            "double_loss": share(self.lose_double),
            "mother_win": share(self.win_mother),
            "mother_loss": share(self.lose_mother),
            "draw": share(self.draw),
        }
        mean = sum(c * v for c, v in zip(counts, POINTS)) / n
        second = sum(c * v * v for c, v in zip(counts, POINTS)) / n
        var = max(second - mean * mean, 0.0) * n / (n - 1) if n > 1 else 0.0
        out["points"] = (mean, math.sqrt(var / n))
        out["plies"] = (self.plies_mean, self.plies_std / math.sqrt(n))
        return out

    def to_dict(self) -> dict[str, Any]:
        d = {name: getattr(self, name) for name in self.__dataclass_fields__}
        d["players"] = list(self.players)
        d["rates"] = {k: {"value": v, "se": se} for k, (v, se) in self.rates().items()}
        return d


def simulate_variant(
    game: str,
    position: VariantPosition | Mapping[str, Any] | str | None = None,
    games: int = 10_000,
    players: tuple[str, str] | str = ("random", "random"),
    seed: int | None = None,
    rules: PlakotoRules | FevgaRules | None = None,
) -> VariantSimulationResult:
    """Play ``games`` whole Plakoto / Fevga games in the compiled core, one process.

    ``position``: None (or "start") for the starting position, a position, a dict or a text
    id; ``players[0]`` is the side on roll there. The same seed gives the same games.
    """
    if position == "start":
        position = None
    before = variant_position(game, position)
    require_variant_in_progress(before)
    n = check_count(games, "games")
    names, ids = variant_player_ids(game, players)
    seed = check_seed(seed)
    options = core_options(game, rules)
    t0 = time.perf_counter()
    counts = _core.run_variant_games(
        before.core_board(), before.pinned_mask(), GAME_CODES[game], options, n,
        ids[0], ids[1], seed, net=variant_net_for(game, ids),
    )
    elapsed = time.perf_counter() - t0
    mean = counts[7] / n
    var = max(counts[8] / n - mean * mean, 0.0)
    chosen = rules if rules is not None else (PlakotoRules() if game == "plakoto" else FevgaRules())
    return VariantSimulationResult(
        game=game,
        position_id=before.variant_id(),
        players=names,
        rules={k: bool(v) for k, v in vars(chosen).items()},
        games=n,
        **{name: int(c) for name, c in zip(OUTCOMES, counts[:7])},
        plies_mean=float(mean),
        plies_std=float(math.sqrt(var * n / (n - 1))) if n > 1 else 0.0,
        seed=seed,
        elapsed_s=elapsed,
    )

MAX_PLIES = 2000  # a random game is far shorter; this only guards against a rules bug


def random_game_positions(
    game: str,
    games: int,
    seed: int,
    rules: PlakotoRules | FevgaRules | None = None,
) -> list[VariantPosition]:
    """Every position with a player on roll in ``games`` random games from the start.

    Each player picks uniformly among the distinct results of his roll; the positions are
    listed as seen by the player on roll, finished positions left out.
    """
    rng = np.random.default_rng(seed)
    code, options = GAME_CODES[game], core_options(game, rules)
    out: list[VariantPosition] = []
    for _ in range(games):
        position = variant_position(game, None)
        for _ply in range(MAX_PLIES):
            out.append(position)
            d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            boards = _core.variant_generate(
                position.core_board(), code, position.pinned_mask(), options, d1, d2
            )
            after = position_after(position, boards[int(rng.integers(len(boards)))])
            if after.is_game_over():
                break
            position = after.sides_switched()
        else:  # pragma: no cover - a game that never ends is a rules bug
            raise RuntimeError(f"a random {game} game did not end in {MAX_PLIES} plies")
    return out
