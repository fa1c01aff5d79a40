"""Replaying a match record with the move generator: every play must be one the dice allow
(RULES.md R7-R18), every cube action one the rules allow (R21-R25), and every game's points
and the scores must add up. What comes out is each action with the position it was taken
in (from the acting player's side, with the cube, the score and the dice in its context).

The play as written is read as single steps ``from/to`` in the mover's numbering (25 the bar,
0 off); the position they lead to must be one of the generator's results for the roll.
Backgammon and Portes records (the portes rules: no cube, no backgammons, any opening roll);
Plakoto, Fevga and tavli records are replayed by ``variant_replay.py``, which replays the
Portes games of a tavli match here (``replay_game``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..game.context import GameContext
from ..game.position import Position
from .model import Action, GameRecord, MatchFileError, MatchRecord

__all__ = ["ReplayedAction", "ReplayedGame", "replay_match", "replay_game", "board_after",
           "game_points", "first_score", "header_flags"]

_STEP_POINT = re.compile(r"^(bar|off|\d{1,2})(\*?)$", re.IGNORECASE)


@dataclass(frozen=True)
class ReplayedAction:
    """One action and its position. ``before``: the position the acting player saw, from his
    side (a roll: with the dice in the context; a cube action: before the roll, the cube as it
    was). ``after``: for a roll, the position after the play, sides not switched."""

    action: Action
    before: Position
    after: Position | None = None


@dataclass(frozen=True)
class ReplayedGame:
    """A game replayed: its record, its actions with positions, whether it was the Crawford
    game, and how it ended ("single", "gammon", "backgammon" borne off; "drop"; "resign";
    None when the file ends before the game does); ``portes``: played by the Portes rules
    (no cube, no backgammons)."""

    record: GameRecord
    actions: tuple[ReplayedAction, ...]
    crawford: bool
    ending: str | None
    portes: bool = False


def _point(text: str, source: str, where: dict) -> tuple[int, bool]:
    m = _STEP_POINT.match(text)
    if not m:
        raise MatchFileError(f"cannot read the point {text!r}", source=source, **where)
    name = m.group(1).lower()
    value = 25 if name == "bar" else 0 if name == "off" else int(name)
    if not 0 <= value <= 25:
        raise MatchFileError(f"no point {value} on the board", source=source, **where)
    return value, bool(m.group(2))


def parse_steps(play: str, source: str = "<text>", where: dict | None = None) -> list[tuple[int, int]]:
    """The (from, to) steps of a play as written (``24/18* 13/7*/3 8/5(2) bar/22 6/off``)."""
    where = where or {}
    steps = []
    for part in play.split():
        count = 1
        if m := re.match(r"^(.*)\((\d)\)$", part):
            part, count = m.group(1), int(m.group(2))
        points = [_point(p, source, where)[0] for p in part.split("/")]
        for _ in range(count):
            steps += [(a, b) for a, b in zip(points, points[1:])]
    for a, b in steps:
        if b >= a or a == 0:
            raise MatchFileError(f"the step {a}/{b} does not move towards home", source=source, **where)
    return steps


def board_after(board: np.ndarray, steps: list[tuple[int, int]]) -> np.ndarray | None:
    """The board after the steps (a checker landing on a lone opposing checker hits it), or
    None when a step starts where the mover has no checker."""
    b = np.array(board, dtype=np.int16)
    for a, t in sorted(steps, key=lambda s: -s[0]):
        if b[0, a] <= 0:
            return None
        b[0, a] -= 1
        b[0, t] += 1
        if 1 <= t <= 24 and b[1, 25 - t] == 1:
            b[1, 25 - t] = 0
            b[1, 25] += 1
    return b.astype(np.int8)


def game_points(after: Position, cube: int, jacoby: bool,
                backgammons: bool = True) -> tuple[int, str]:
    """The points and the kind of win of a game the mover of `after` (sides not switched)
    has just finished by bearing off his last checker (R19, R20; without `backgammons` a
    backgammon counts as a gammon, as in Portes)."""
    loser = after.board[1]
    if loser[0] > 0:
        return cube, "single"
    if jacoby and cube == 1:
        return cube, "single"
    if backgammons and loser[19:26].sum() > 0:
        return 3 * cube, "backgammon"
    return 2 * cube, "gammon"


class _Game:
    """The state of one game's replay."""

    def __init__(self, record: MatchRecord, game: GameRecord, crawford: bool,
                 jacoby: bool, beaver: bool, portes: bool = False):
        self.portes = portes                           # the portes rules: no cube, no backgammons
        self.match = record
        self.game = game
        self.crawford = crawford
        self.jacoby = jacoby
        self.beaver = beaver
        self.board = Position.initial().board          # from the side of `self.turn`
        self.turn: int | None = None
        self.cube, self.owner = 1, None                # owner: 0, 1 or None (centred)
        self.offered: int | None = None               # the player who doubled, awaiting an answer
        self.out: list[ReplayedAction] = []
        self.ending: str | None = None
        self.points = 0
        self.winner: int | None = None

    def error(self, message: str, action: Action | None = None) -> MatchFileError:
        return MatchFileError(message, source=self.match.source,
                              line=action.line if action else self.game.line,
                              game=self.game.number, move=action.move if action else None)

    def context(self, player: int, dice: tuple[int, int] | None) -> GameContext:
        score = self.game.score if player == 0 else self.game.score[::-1]
        owner = "centre" if self.owner is None else "me" if self.owner == player else "opponent"
        return GameContext(cube_value=self.cube, cube_owner=owner, dice=dice,
                           score=score if self.match.length else (0, 0),
                           match_length=self.match.length, crawford=self.crawford,
                           jacoby=self.jacoby and not self.match.length,
                           beaver=self.beaver and not self.match.length)

    def position(self, player: int, dice: tuple[int, int] | None = None) -> Position:
        board = self.board if player == self.turn else self.board[::-1]
        return Position(board, self.context(player, dice))

    def run(self) -> None:
        for action in self.game.actions:
            if self.ending is not None:
                raise self.error(f"an action after the game ended ({self.ending})", action)
            if self.portes and action.kind in ("double", "take", "drop", "beaver"):
                raise self.error(f"'{action.kind}': Portes is played without the cube", action)
            getattr(self, "_" + action.kind)(action)

    def _roll(self, action: Action) -> None:
        if self.offered is not None:
            raise self.error("a roll while a double waits for its answer", action)
        if self.turn is None:
            if action.dice[0] == action.dice[1] and not self.portes:   # type: ignore[index]
                raise self.error(f"impossible dice {action.dice[0]}{action.dice[1]} for the "
                                 "opening roll (a double)", action)
            self.turn = action.player
            self.board = Position.initial().board
        elif action.player == self.turn:
            raise self.error("the same player rolls twice in a row", action)
        else:
            self.board = self.board[::-1]
            self.turn = action.player
        before = self.position(action.player, action.dice)
        where = dict(line=action.line, game=self.game.number, move=action.move)
        steps = parse_steps(action.play, self.match.source, where)
        target = board_after(before.board, steps)
        match = None
        if target is not None:
            for play in before.plays(*action.dice):   # type: ignore[misc]
                if np.array_equal(play.position.board, target):
                    match = play.position
                    break
        if match is None:
            raise self.error(f"illegal move {action.dice[0]}{action.dice[1]}: "   # type: ignore[index]
                             f"{action.play or '(no move)'}", action)
        after = Position(match.board, before.context)
        self.out.append(ReplayedAction(action, before, after))
        self.board = np.array(match.board)
        if after.is_game_over():
            self.points, self.ending = game_points(after, self.cube, self.jacoby and not self.match.length,
                                                   backgammons=not self.portes)
            self.winner = action.player

    def _double(self, action: Action) -> None:
        if self.offered is not None:
            raise self.error("a double while a double waits for its answer", action)
        if self.turn is not None and action.player == self.turn:
            raise self.error("a double by the player who has just moved", action)
        if self.crawford:
            raise self.error("a double in the Crawford game (R24)", action)
        if self.owner is not None and self.owner != action.player:
            raise self.error("a double by the player who does not own the cube (R21)", action)
        if action.cube != 2 * self.cube:
            raise self.error(f"the cube goes from {self.cube} to {2 * self.cube}, not to "
                             f"{action.cube}", action)
        self.out.append(ReplayedAction(action, self.position(action.player)))
        self.offered = action.player

    def _answer(self, action: Action) -> None:
        if self.offered is None or self.offered == action.player:
            raise self.error(f"'{action.kind}' answers no double", action)
        self.out.append(ReplayedAction(action, self.position(action.player)))

    def _take(self, action: Action) -> None:
        self._answer(action)
        self.cube *= 2
        self.owner, self.offered = action.player, None

    def _beaver(self, action: Action) -> None:
        if self.match.length:
            raise self.error("a beaver in a match (beavers are for money play, R25)", action)
        if action.cube != 4 * self.cube:
            raise self.error(f"a beaver makes the cube {4 * self.cube}, not {action.cube}", action)
        self._answer(action)
        self.cube *= 4   # the beaver: take and redouble at once, keeping the cube (R25)
        self.owner, self.offered = action.player, None

    def _drop(self, action: Action) -> None:
        self._answer(action)
        self.points, self.ending, self.winner = self.cube, "drop", 1 - action.player

    def _resign(self, action: Action) -> None:
        self.out.append(ReplayedAction(action, self.position(action.player)))
        self.ending, self.winner = "resign", 1 - action.player

    def check_end(self, last: bool) -> None:
        g = self.game
        if self.ending is None:
            if g.winner is not None:
                if g.points % self.cube or not 1 <= g.points // self.cube <= 3:
                    raise self.error(f"game {g.number} won by {g.points} points with the cube "
                                     f"at {self.cube}: no game is worth that")
                self.ending, self.winner, self.points = "resign", g.winner, g.points
            elif not last:
                raise self.error(f"game {g.number} has no end (no 'Wins' line)")
            return
        if g.winner is None:
            if last and self.ending != "resign":
                raise self.error(f"the file is cut off: game {g.number} ended ({self.ending}) "
                                 "with no 'Wins' line")
            if not last:
                raise self.error(f"game {g.number} has no 'Wins' line")
            return
        if g.winner != self.winner:
            raise self.error(f"the 'Wins' line gives game {g.number} to "
                             f"{self.match.players[g.winner]!r}, the moves to "
                             f"{self.match.players[self.winner]!r}")   # type: ignore[index]
        if self.ending == "resign":
            if g.points % self.cube or not 1 <= g.points // self.cube <= 3:
                raise self.error(f"a resignation worth {g.points} points with the cube at {self.cube}")
        elif g.points != self.points:
            raise self.error(f"game {g.number} is worth {self.points} points ({self.ending}), "
                             f"the 'Wins' line says {g.points}")


def header_flags(record: MatchRecord) -> dict[str, str]:
    """The header's ``; [Name "value"]`` lines, by lower-case name."""
    return {c.split('"')[0].strip("; [").strip().lower(): c.split('"')[1]
            for c in record.comments if c.count('"') >= 2}


def first_score(record: MatchRecord) -> list[int]:
    """The score the record starts from: its first game's (a match saved from a score), which
    must not have won the match already; MatchFileError otherwise."""
    score = list(record.games[0].score) if record.games else [0, 0]
    if record.length and max(score) >= record.length:
        game = record.games[0]
        raise MatchFileError(f"the score {score[0]}-{score[1]} has won the {record.length}-point "
                             "match before the first game", source=record.source,
                             line=game.line, game=game.number)
    return score


def replay_game(record: MatchRecord, game: GameRecord, crawford: bool, last: bool,
                portes: bool = False) -> ReplayedGame:
    """Replay one backgammon (or, with `portes`, Portes) game of the record."""
    headers = header_flags(record)
    state = _Game(record, game, crawford, headers.get("jacoby", "off").lower() == "on",
                  headers.get("beaver", "off").lower() == "on", portes)
    state.run()
    state.check_end(last)
    return ReplayedGame(game, tuple(state.out), crawford, state.ending, portes)


def replay_match(record: MatchRecord) -> list[ReplayedGame]:
    """Replay every game of a backgammon or Portes record. Raises MatchFileError naming the
    line, game and move of the first illegal move, cube action or score that does not add up.

    The record may start at a score (its first game's); the Crawford game is the first game
    with a player 1-away, unless the header says ``; [Crawford "Played"]``."""
    if record.game not in ("backgammon", "portes"):
        raise MatchFileError(f"a {record.game} record: replay it with variant_replay",
                             source=record.source)
    score = first_score(record)
    crawford_done = header_flags(record).get("crawford", "").lower() == "played"
    out = []
    for i, game in enumerate(record.games):
        if game.score != tuple(score):
            raise MatchFileError(f"the score {game.score[0]}-{game.score[1]} does not add up: "
                                 f"the games before give {score[0]}-{score[1]}",
                                 source=record.source, line=game.line, game=game.number)
        n = record.length
        if n and max(score) >= n:
            raise MatchFileError(f"a game after the {n}-point match was won", source=record.source,
                                 line=game.line, game=game.number)
        portes = record.game == "portes"
        crawford = bool(n) and not portes and not crawford_done and max(score) == n - 1
        crawford_done = crawford_done or crawford
        replayed = replay_game(record, game, crawford, i == len(record.games) - 1, portes)
        if replayed.ending is not None and game.winner is not None:
            score[game.winner] += game.points
        out.append(replayed)
    return out
