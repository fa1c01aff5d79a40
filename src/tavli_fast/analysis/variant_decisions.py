"""The checker decisions of a replayed Plakoto or Fevga game, evaluated by that game's net
(``variants/neural.py``), and the luck of each roll: the same definitions as ``decisions.py``
(equity in points a game, P7 / F7; no cube, so no cube decisions and no MWC).

0 ply: every play's equity as the variants' neural player values it; 1 ply: the five best by
0 ply and the play made, by the net's 1-ply look. Luck: the best play's 0-ply equity minus its
mean over the 21 rolls.
"""

from __future__ import annotations

import numpy as np

from ..matchfile.variant_replay import VariantReplayedAction, VariantReplayedGame
from ..variants.movegen import variant_play_notation
from ..variants.neural import default_variant_net
from ..variants.position import VariantPosition
from .decisions import Decision, GameAnalysis, RollLuck
from .thresholds import mark

__all__ = ["analyse_variant_game", "VARIANT_PLIES"]

_TOP_1PLY = 5


def _equities(game: str, pos: VariantPosition, boards: np.ndarray) -> np.ndarray:
    """0-ply equities (points) of result boards of `pos` for the mover."""
    p = default_variant_net(game).play_probs(pos.core_board(), pos.pinned_mask(), boards)
    return 2.0 * p[:, 0] - 1.0 + p[:, 1] - p[:, 3]


def _best_of_roll(game: str, pos: VariantPosition, d1: int, d2: int) -> float:
    plays = variant_play_notation(game, pos, d1, d2)
    return float(_equities(game, pos, np.stack([p.position.core_board() for p in plays])).max())


def _pre_roll(game: str, pos: VariantPosition) -> float:
    total = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            total += (1 if d1 == d2 else 2) * _best_of_roll(game, pos, d1, d2)
    return total / 36


def _checker(game: str, number: int, replayed: VariantReplayedAction, ply: int) -> tuple[Decision | None, float]:
    action, before, after = replayed.action, replayed.before, replayed.after
    assert action.dice is not None
    plays = variant_play_notation(game, before, *action.dice)
    boards = np.stack([p.position.core_board() for p in plays])
    zero = _equities(game, before, boards)
    best0 = float(zero.max())
    if len(plays) <= 1:
        return None, best0
    made = next(i for i, p in enumerate(plays) if p.position == after)
    if ply == 0:
        values = {i: float(v) for i, v in enumerate(zero)}
    else:
        chosen = sorted(set(np.argsort(-zero)[:_TOP_1PLY].tolist()) | {made})
        one = default_variant_net(game).play_1ply_equities(before.core_board(), before.pinned_mask(),
                                                           boards[chosen])
        values = dict(zip(chosen, map(float, one)))
    best = max(values, key=lambda i: (values[i], -i))
    error = max(0.0, values[best] - values[made])
    return Decision(number, action.move, action.player, "checker",
                    f"{action.dice[0]}{action.dice[1]}", plays[made].notation or "(no play)",
                    plays[best].notation or "(no play)", error, None, mark(error),
                    before.variant_id(), values[made], values[best]), best0


#: The plies the Plakoto and Fevga nets analyse at (they have no 2-ply look).
VARIANT_PLIES = (0, 1)


def analyse_variant_game(game: VariantReplayedGame, ply: int = 0) -> GameAnalysis:
    """Evaluate every checker decision of a replayed Plakoto or Fevga game at `ply` (0 or
    1) and the luck of every roll."""
    if ply not in VARIANT_PLIES:
        raise ValueError(f"the {game.game} net analyses at 0 or 1 ply, not {ply!r}")
    decisions, luck = [], []
    number = game.record.number
    for replayed in game.actions:
        decision, best = _checker(game.game, number, replayed, ply)
        if decision is not None:
            decisions.append(decision)
        luck.append(RollLuck(number, replayed.action.move, replayed.action.player,
                             best - _pre_roll(game.game, replayed.before), 1))
    return GameAnalysis(number, tuple(decisions), tuple(luck))
