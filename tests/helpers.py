"""Helpers shared by the tests: readable fixtures, gnubg board converters, random positions.

``random_positions`` and the converters need gnubg_nn (the test-only oracle); ``pos`` does not.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

import tavli_fast as tf
from tavli_fast import _core
from tavli_fast.game.position import Position
from tavli_fast.matchfile.replay import replay_match
from tavli_fast.play.neural import default_net

#: The checkout (this file is tests/helpers.py) and the shared folder beside it (../shared:
#: RULES.md, data/positions, data/met), wherever a test file sits under tests/.
ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def pos(text: str) -> Position:
    """``pos("x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5")``: see Position.parse."""
    return Position.parse(text)


def gnubg_board(position: Position | np.ndarray) -> list[list[int]]:
    """Our (2, 26) board as a gnubg_nn board: [opponent's 25 entries, on-roll's 25 entries]."""
    board = position.board if isinstance(position, Position) else np.asarray(position)
    return [[int(c) for c in board[1, 1:26]], [int(c) for c in board[0, 1:26]]]


def from_gnubg_board(board) -> np.ndarray:
    """A gnubg_nn board (opponent first, 25 entries each) as our (2, 26) int8 board."""
    ours = np.zeros((2, 26), dtype=np.int8)
    ours[0, 1:26] = board[1]
    ours[1, 1:26] = board[0]
    ours[:, 0] = 15 - ours[:, 1:26].sum(axis=1)
    return ours


def random_positions(n: int, seed: int) -> list[Position]:
    """``n`` positions from random games (gnubg_nn move lists, random.Random(seed) choices).

    Every position of every game is kept, so contact, hits (bar) and bear-offs all appear.
    """
    import gnubg_nn

    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < n:
        board = gnubg_nn.board_from_position_id("4HPwATDgc/ABMA")
        while len(found) < n:
            found.append(Position.from_board(from_gnubg_board(board)))
            die1, die2 = rng.randint(1, 6), rng.randint(1, 6)
            keys = gnubg_nn.moves(board, die1, die2, 0)
            if keys:
                after = gnubg_nn.boardfromkey(rng.choice(keys))
            else:
                after = board
            if sum(after[1]) == 0:  # the mover bore off its last checker
                break
            board = [list(after[1]), list(after[0])]  # the opponent is on roll next
    return found


def varied_positions(count: int, seed: int = 3) -> list[Position]:
    """Positions from neural self-play: 1 to 30 plies from the start, on seeded dice."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        p = Position.initial()
        for _ in range(int(rng.integers(1, 31))):
            d1, d2 = (int(d) for d in rng.integers(1, 7, size=2))
            after = Position.from_id(tf.choose(p.position_id(), d1, d2, "neural"))
            if after.is_game_over():
                break
            p = after.sides_switched()
        if not p.is_game_over():
            out.append(p)
    return out


def luck_run(position: Position, games: int, seed: int, kind: int, plies: int):
    """(per-game equity, per-game luck) of `games` games between two `kind` players."""
    equity = np.empty(games)
    luck = np.empty(games)
    board = np.ascontiguousarray(position.board, dtype=np.int8)
    _core.run_games(board, games, kind, kind, seed, False, True, net=default_net(),
                    per_game_equity=equity, vr_moments=np.zeros(12), per_game_luck=luck,
                    truncate_plies=plies)
    return equity, luck


def replayed_rolls(analysis) -> dict:
    """(game, move, player) -> the replayed roll of an analysed match it was made from."""
    out = {}
    for game in replay_match(analysis.record):
        for r in game.actions:
            if r.action.kind == "roll":
                out[(game.record.number, r.action.move, r.action.player)] = r
    return out


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie (an exited child not yet reaped).

    Any OSError means gone: a process reaped between open and read gives ESRCH
    (ProcessLookupError), not FileNotFoundError.
    """
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
