"""One backgammon match played move by move in Python and kept as a record, to be written as
a ``.mat`` file (``tavli-match --save``): the matches of ``match.py`` are played in the
compiled core, which keeps no moves.

Both sides are the neural player at 0 ply: each roll's play is the one of best 0-ply equity
(gammons at the match score's prices, as ``tavli-hint`` ranks them), and the cube is handled
by ``play/cube.py``'s 0-ply decisions (double when the proper action is to double and the
position is not too good; take when taking is right). Rules: the opening roll (R1-R2, the
higher die moves first with both dice), the cube (R21-R25: Crawford game without the cube,
gammons and backgammons count). The dice come from a seeded generator: the same seed, the
same match.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..checks import check_seed
from ..game.context import GameContext
from ..game.position import Position
from ..matchfile.model import Action, GameRecord, MatchRecord
from ..matchfile.replay import game_points
from ..game.steps import steps_of
from ..play.cube import cube_decision, gammon_prices
from ..play.neural import default_net

__all__ = ["play_match_record", "play_text"]

_MAX_TURNS = 10_000   # no game lasts this long; a guard against a loop


def play_text(before: np.ndarray, after: np.ndarray, die1: int, die2: int) -> str:
    """A play as the .mat files write it: single steps ``from/to`` in the mover's numbering
    (25 the bar, 0 off), ``*`` on a hit."""
    return " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, hit in
                    steps_of(before, after, die1, die2))


def play_match_record(length: int, *, seed: int, names: tuple[str, str] = ("Player 1", "Player 2"),
                      source: str = "<played>") -> MatchRecord:
    """Play a `length`-point match between two 0-ply neural players and return its record
    (left player: names[0])."""
    if not isinstance(length, int) or isinstance(length, bool) or not 1 <= length <= 64:
        raise ValueError(f"the match length must be 1 to 64 points, not {length!r}")
    rng = np.random.default_rng(check_seed(seed))
    net = default_net()
    score = [0, 0]
    games: list[GameRecord] = []
    crawford_done = False
    while max(score) < length:
        crawford = not crawford_done and max(score) == length - 1
        crawford_done = crawford_done or crawford
        record = _play_game(len(games) + 1, tuple(score), length, crawford, rng, net)  # type: ignore[arg-type]
        games.append(record)
        score[record.winner] += record.points   # type: ignore[index]
    return MatchRecord(length, names, tuple(games), source=source)


def _roll(rng: np.random.Generator) -> tuple[int, int]:
    d = rng.integers(1, 7, size=2)
    return int(max(d)), int(min(d))   # written higher die first, as gnubg writes them


def _play_game(number: int, score: tuple[int, int], length: int, crawford: bool,
               rng: np.random.Generator, net) -> GameRecord:
    while True:   # R1-R2: the opening roll is never a double; the higher die starts
        d1, d2 = _roll(rng)
        if d1 != d2:
            break
    turn = 0 if d1 > d2 else 1
    dice: tuple[int, int] | None = (max(d1, d2), min(d1, d2))
    board = np.array(Position.initial().board)
    cube, owner = 1, None
    move = 1
    actions: list[Action] = []
    for _ in range(_MAX_TURNS):
        mine = score if turn == 0 else score[::-1]
        context = GameContext(cube_value=cube, score=(mine[0], mine[1]), match_length=length,
                              crawford=crawford,
                              cube_owner="centre" if owner is None else
                              "me" if owner == turn else "opponent")
        pos = Position(board, context)
        if dice is None and not crawford and owner in (None, turn):
            decision = cube_decision(pos)
            if decision.can_double and decision.double and not decision.too_good:
                actions.append(Action(move, turn, "double", cube=2 * cube))
                if turn == 1:
                    move += 1
                if not decision.take:
                    actions.append(Action(move, 1 - turn, "drop"))
                    return GameRecord(number, score, tuple(actions), turn, cube)
                actions.append(Action(move, 1 - turn, "take"))
                cube, owner = 2 * cube, 1 - turn
                if turn == 0:
                    move += 1
        if dice is None:
            dice = _roll(rng)
        prices = gammon_prices(replace(context, cube_value=cube, cube_owner=context.cube_owner))
        plays = pos.plays(*dice)
        best = max(plays, key=lambda p: net.move_equity(
            p.position.board, prices=None if prices is None else prices[0]))
        after = np.array(best.position.board)
        actions.append(Action(move, turn, "roll", dice, play_text(board, after, *dice)))
        if after[0, 0] == 15:
            points, _ = game_points(Position(after), cube, False)
            return GameRecord(number, score, tuple(actions), turn, points)
        if turn == 1:
            move += 1
        board = after[::-1].copy()
        turn = 1 - turn
        dice = None
    raise RuntimeError("a game did not end")   # pragma: no cover
