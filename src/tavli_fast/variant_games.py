"""Random Plakoto and Fevga games, played with the compiled move generators.

For now this module gives positions from random games (random player: each distinct result
of the roll equally likely), which the parity tests and ``bench/bench_variants.py`` use.
Seeded with numpy's Generator: the same seed gives the same positions.
"""

from __future__ import annotations

import numpy as np

from . import _core
from .rules import FevgaRules, PlakotoRules
from .variant_position import VariantPosition, variant_position
from .variants import _GAME_CODES, _after, core_options

__all__ = ["random_game_positions"]

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
    code, options = _GAME_CODES[game], core_options(game, rules)
    out: list[VariantPosition] = []
    for _ in range(games):
        position = variant_position(game, None)
        for _ply in range(MAX_PLIES):
            out.append(position)
            d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            boards = _core.variant_generate(
                position.core_board(), code, position.pinned_mask(), options, d1, d2
            )
            after = _after(position, boards[int(rng.integers(len(boards)))])
            if after.is_game_over():
                break
            position = after.sides_switched()
        else:  # pragma: no cover - a game that never ends is a rules bug
            raise RuntimeError(f"a random {game} game did not end in {MAX_PLIES} plies")
    return out
