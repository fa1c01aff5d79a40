"""The record of a played match or money session, as the match files hold it.

A record is what was written, checked only for its form: ``replay.py`` checks that every move
is legal and that the scores add up. Players are numbered 0 (the file's left column) and 1
(the right column) throughout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Action", "GameRecord", "MatchRecord", "MatchFileError", "ACTION_KINDS"]

#: What a player may do on a move line: roll and play, double (or redouble), take, drop
#: (pass), beaver (take and redouble at once, money only), resign.
ACTION_KINDS = ("roll", "double", "take", "drop", "beaver", "resign")


class MatchFileError(ValueError):
    """A match file that cannot be read or replayed; the message names the file and the place
    (line, game, move)."""

    def __init__(self, message: str, *, source: str = "<text>", line: int | None = None,
                 game: int | None = None, move: int | None = None):
        self.reason = message
        self.source = source
        self.line = line
        self.game = game
        self.move = move
        where = ", ".join(part for part in (
            f"line {line}" if line is not None else "",
            f"game {game}" if game is not None else "",
            f"move {move}" if move is not None else "") if part)
        super().__init__(f"{source}: {where + ': ' if where else ''}{message}")


@dataclass(frozen=True)
class Action:
    """One thing a player did. ``move``: the file's move number (``N)``); ``player`` 0 or 1;
    ``kind`` one of ACTION_KINDS; ``dice`` the roll (kind "roll"); ``play`` the move as written
    (kind "roll"; "" for a roll that could not be played); ``cube``: the cube's new value
    (kinds "double" and "beaver"), the points offered (kind "resign"); ``line``: the line of
    the file it was read from (0 for an action not read from a file)."""

    move: int
    player: int
    kind: str
    dice: tuple[int, int] | None = None
    play: str = ""
    cube: int = 0
    line: int = 0


@dataclass(frozen=True)
class GameRecord:
    """One game: its number (from 1), the score before it (left, right), its actions in
    order, the winner (0, 1, or None if the file ends before the game does, or a Plakoto game
    drawn) and the points won. ``line``: where the game starts in the file. ``game``: in a
    tavli record, the game this one is ("portes", "plakoto", "fevga"); else None."""

    number: int
    score: tuple[int, int]
    actions: tuple[Action, ...]
    winner: int | None
    points: int
    line: int = 0
    game: str | None = None


@dataclass(frozen=True)
class MatchRecord:
    """A match (``length`` > 0) or a money session (``length`` 0) between ``players`` (left,
    right), game after game. ``game`` names the game played ("backgammon", or "portes",
    "plakoto", "fevga", or "tavli", whose games name their own: tavli_fast extensions of
    the format). ``comments``: the header's ``;`` lines.
    ``source``: the file's name, for messages."""

    length: int
    players: tuple[str, str]
    games: tuple[GameRecord, ...]
    game: str = "backgammon"
    comments: tuple[str, ...] = field(default=())
    source: str = "<text>"

    @property
    def final_score(self) -> tuple[int, int]:
        """The points each side won in the file (left, right)."""
        won = [0, 0]
        for g in self.games:
            if g.winner is not None:
                won[g.winner] += g.points
        return won[0], won[1]
