"""The Jellyfish / GamesGrid ``.mat`` text that GNU Backgammon, eXtreme Gammon and BGBlitz
export and import: reading it into a ``MatchRecord`` and writing one back.

The layout, as those programs write it::

    ; [Player 1 "Ann"]                 header lines start with ';'
     5 point match                     0 for a money session

     Game 1
     Ann : 0                        Bob : 0          the score before the game
      1)                             62: 24/18 13/11
      2) 62: 13/7* 24/22             51: 25/24 13/8
      3)  Doubles => 2                Takes
      4) 43: ...
          Wins 1 point

Each numbered line holds the left player's action (first column) and the right player's
(second column). A roll is ``62:`` and the play as single steps in the mover's numbering (25 or
``bar`` the bar, 0 or ``off`` borne off, ``*`` a hit, ``(2)`` a part played twice); a roll
that cannot be played has nothing after the colon. Cube actions are ``Doubles => N``,
``Takes``, ``Drops`` (or ``Passes``) and ``Beavers => N``; ``Wins N point(s)`` ends a game.
When a line holds one action, its column says whose it is.

tavli_fast's extension: a header line ``; [Variation "Plakoto"]`` (or ``"Fevga"``) says the
games are Plakoto or Fevga, their moves in the same text in the game's own numbering;
``"Portes"``: backgammon by the portes rules (no cube, no backgammons, any opening roll);
``"Tavli"``: a tavli match (T1-T3), each game naming its game on a line ``; [Game "Fevga"]``
after its ``Game N`` line (a Plakoto game drawn by two pinned mothers has no ``Wins`` line).
A header line ``; [Crawford "Played"]`` says the Crawford game was played before the file's
first game (a match saved from a post-Crawford score).
eXtreme Gammon writes the same header line with "Backgammon", "Nackgammon" or
"Hypergammon"; no program we know writes Plakoto or Fevga there, and the other programs will
not import such a file.

Reading checks only the form; ``replay.py`` checks the moves and the scores.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..run.atomic import atomic_file
from .model import Action, GameRecord, MatchFileError, MatchRecord

__all__ = ["read_mat", "parse_mat", "format_mat", "write_mat", "write_mat_text", "GAMES", "TAVLI_GAMES"]

#: The games a header may name (``; [Variation "..."]``), by their names in the file.
GAMES = {"backgammon": "backgammon", "portes": "portes", "plakoto": "plakoto", "fevga": "fevga",
         "tavli": "tavli"}

#: The games a game of a tavli record may name (``; [Game "..."]``).
TAVLI_GAMES = ("portes", "plakoto", "fevga")

_MATCH = re.compile(r"^\s*(\d+)\s+points?\s+match\s*(?:\(.*\))?\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d+)\s*$", re.IGNORECASE)
_SCORES = re.compile(r"^(\s*)(\S.*?)\s*:\s*(\d+)(\s+)(\S.*?)\s*:\s*(\d+)\s*$")
_NUMBERED = re.compile(r"^\s*(\d+)\)(.*)$")
_HEADER = re.compile(r'^;\s*\[\s*([A-Za-z ]+?)\s+"(.*)"\s*\]\s*$')
_POINT = r"(?:bar|off|\d{1,2})"
_PART = rf"{_POINT}\*?(?:/{_POINT}\*?)+(?:\(\d\))?"
_ITEM = re.compile(
    rf"(?P<roll>(?P<d1>\d)(?P<d2>\d):(?P<play>(?:[ \t]*{_PART})*))"
    r"|(?P<double>(?:Re)?[Dd]oubles?\s*=>\s*(?P<cube>\d+))"
    r"|(?P<beaver>Beavers?\s*=>\s*(?P<bcube>\d+))"
    r"|(?P<take>Takes?|Accepts?)"
    r"|(?P<drop>Drops?|Passes|Pass|Rejects?)"
    r"|(?P<wins>Wins\s+(?P<points>\d+)\s+points?(?:\s+and\s+the\s+match)?)"
    r"|(?P<resign>Resigns?(?:\s+(?P<rpoints>\d+))?)",
    re.IGNORECASE,
)
_DEFAULT_SPLIT = 20    # the column where the right player's actions start, if no header says
_LEFT_WIDTH = 28       # the left column's width in what we write (gnubg's)


def read_mat(path: str | os.PathLike) -> MatchRecord:
    """Read a ``.mat`` file. Raises MatchFileError (naming the file and line) for a file that
    is not UTF-8 text, not in the format, or cut off mid-line."""
    return parse_mat(read_text(path), source=str(path))


def read_text(path: str | os.PathLike) -> str:
    """A match file's text (``decode_text``); MatchFileError naming the file if it cannot be
    read."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MatchFileError(f"cannot read the file ({exc.strerror or exc})", source=str(path)) from None
    return decode_text(data, str(path))


def decode_text(data: bytes, source: str) -> str:
    """A match file's bytes as text: UTF-8 (with or without a byte-order mark), or a
    MatchFileError naming the line of the first byte that is not."""
    if b"\0" in data:
        line = data[:data.index(b"\0")].count(b"\n") + 1
        raise MatchFileError("not a text file (a NUL byte)", source=source, line=line)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise MatchFileError(f"not UTF-8 text (byte 0x{data[exc.start]:02x})", source=source,
                             line=line) from None


def parse_mat(text: str, *, source: str = "<text>") -> MatchRecord:
    """Read ``.mat`` text into a MatchRecord (see the module docstring for the layout)."""
    reader = _Reader(source)
    for number, line in enumerate(text.splitlines(), 1):
        reader.line(number, line.rstrip("\r"))
    return reader.record()


class _Reader:
    """The state of one read: the header, then game after game."""

    def __init__(self, source: str):
        self.source = source
        self.length: int | None = None
        self.comments: list[str] = []
        self.game = "backgammon"
        self.players: tuple[str, str] | None = None
        self.games: list[GameRecord] = []
        self.current: dict | None = None
        self.split = _DEFAULT_SPLIT

    def error(self, message: str, line: int, move: int | None = None) -> MatchFileError:
        game = self.current["number"] if self.current else None
        return MatchFileError(message, source=self.source, line=line, game=game, move=move)

    def line(self, number: int, text: str) -> None:
        stripped = text.strip()
        if not stripped:
            return
        if stripped.startswith(";"):
            if self.current is None:
                self.header(stripped)
            elif self.game == "tavli":
                self.game_name(number, stripped)
            return
        if self.length is None:
            m = _MATCH.match(text)
            if not m:
                raise self.error(f"not a .mat file: expected 'N point match', got {_show(stripped)}",
                                 number)
            self.length = int(m.group(1))
            return
        if m := _GAME.match(text):
            self.close_game()
            self.current = {"number": int(m.group(1)), "line": number, "score": None,
                            "actions": [], "winner": None, "points": 0, "game": None}
            if self.current["number"] != len(self.games) + 1:
                raise self.error(f"game {self.current['number']} follows game {len(self.games)}",
                                 number)
            return
        if self.current is None:
            raise self.error(f"expected 'Game 1', got {_show(stripped)}", number)
        if self.current["score"] is None:
            self.scores(number, text)
            return
        if self.current["winner"] is not None:
            raise self.error(f"an action after the game was won: {_show(stripped)}", number)
        m = _NUMBERED.match(text)
        if m:
            self.actions(number, int(m.group(1)), text, m.start(2))
        else:
            self.actions(number, None, text, 0)

    def header(self, text: str) -> None:
        self.comments.append(text)
        m = _HEADER.match(text)
        if m and m.group(1).lower() == "variation":
            name = m.group(2).strip().lower()
            if name not in GAMES:
                raise MatchFileError(f"unknown game {m.group(2)!r} in the header (known: "
                                     f"{', '.join(GAMES)})", source=self.source)
            self.game = GAMES[name]

    def game_name(self, number: int, text: str) -> None:
        """A tavli record's ``; [Game "Plakoto"]`` line: the game this one is."""
        m = _HEADER.match(text)
        if m and m.group(1).lower() == "game":
            name = m.group(2).strip().lower()
            if name not in TAVLI_GAMES:
                raise self.error(f"unknown game {m.group(2)!r} (a tavli match plays "
                                 f"{', '.join(TAVLI_GAMES)})", number)
            self.current["game"] = name   # type: ignore[index]

    def scores(self, number: int, text: str) -> None:
        m = _SCORES.match(text)
        if not m:
            raise self.error(f"expected the players and scores ('Ann : 0   Bob : 0'), got "
                             f"{_show(text.strip())}", number)
        players = (m.group(2), m.group(5))
        if self.players is None:
            self.players = players
        elif players != self.players:
            raise self.error(f"players {players[0]!r} and {players[1]!r} here, "
                             f"{self.players[0]!r} and {self.players[1]!r} before", number)
        self.current["score"] = (int(m.group(3)), int(m.group(6)))   # type: ignore[index]
        self.split = m.start(5) - 3

    def actions(self, number: int, move: int | None, text: str, start: int) -> None:
        game = self.current
        assert game is not None
        items = list(_ITEM.finditer(text, start))
        end = start
        for item in items + [None]:
            gap = text[end:item.start() if item else len(text)]
            if gap.strip():
                raise self.error(f"cannot read {_show(gap.strip())}", number, move)
            if item:
                end = item.end()
        if not items:
            return
        if move is None:
            last = game["actions"][-1].move if game["actions"] else None
            if any(not i.group("wins") for i in items) or last is None:
                raise self.error(f"a line without a move number: {_show(text.strip())}", number)
            move = last
        columns = [0, 1] if len(items) == 2 else [int(items[0].start() >= self.split)]
        if len(items) > 2:
            raise self.error(f"more than two actions on one line: {_show(text.strip())}", number, move)
        for item, player in zip(items, columns):
            self.action(number, move, player, item)

    def action(self, number: int, move: int, player: int, item: re.Match) -> None:
        game = self.current
        assert game is not None
        if item.group("wins"):
            game["winner"], game["points"] = player, int(item.group("points"))
            return
        if item.group("roll"):
            dice = (int(item.group("d1")), int(item.group("d2")))
            if not all(1 <= d <= 6 for d in dice):
                raise self.error(f"impossible dice {dice[0]}{dice[1]}", number, move)
            action = Action(move, player, "roll", dice, " ".join(item.group("play").split()),
                            line=number)
        elif item.group("double"):
            action = Action(move, player, "double", cube=int(item.group("cube")), line=number)
        elif item.group("beaver"):
            action = Action(move, player, "beaver", cube=int(item.group("bcube")), line=number)
        elif item.group("take"):
            action = Action(move, player, "take", line=number)
        elif item.group("drop"):
            action = Action(move, player, "drop", line=number)
        else:
            points = item.group("rpoints")
            action = Action(move, player, "resign", cube=int(points) if points else 0, line=number)
        game["actions"].append(action)

    def close_game(self) -> None:
        game = self.current
        if game is None:
            return
        if game["score"] is None:
            raise self.error("the game has no line of players and scores", game["line"])
        if self.game == "tavli" and game["game"] is None:
            raise self.error('a game of a tavli match without its \'; [Game "..."]\' line',
                             game["line"])
        self.games.append(GameRecord(game["number"], game["score"], tuple(game["actions"]),
                                     game["winner"], game["points"], game["line"], game["game"]))

    def record(self) -> MatchRecord:
        if self.length is None:
            raise MatchFileError("not a .mat file: no 'N point match' line", source=self.source)
        self.close_game()
        if not self.games or self.players is None:
            raise MatchFileError("the file holds no game", source=self.source)
        return MatchRecord(self.length, self.players, tuple(self.games), self.game,
                           tuple(self.comments), self.source)


def _show(text: str, width: int = 40) -> str:
    return repr(text if len(text) <= width else text[:width] + "...")


# ------------------------------------------------------------------------- writing
def _item(action: Action) -> str:
    if action.kind == "roll":
        assert action.dice is not None
        return f"{action.dice[0]}{action.dice[1]}: {action.play}".rstrip() + (" " if action.play else "")
    if action.kind == "double":
        return f" Doubles => {action.cube}"
    if action.kind == "beaver":
        return f" Beavers => {action.cube}"
    if action.kind == "resign":
        return f" Resigns {action.cube}" if action.cube else " Resigns"
    return {"take": " Takes", "drop": " Drops"}[action.kind]


def format_mat(record: MatchRecord) -> str:
    """The record as ``.mat`` text in gnubg's layout (a Plakoto or Fevga record with its
    ``; [Variation ...]`` header line)."""
    out = list(record.comments) or [f'; [Player 1 "{record.players[0]}"]',
                                    f'; [Player 2 "{record.players[1]}"]']
    if record.game != "backgammon" and not any("variation" in c.lower() for c in out):
        out.append(f'; [Variation "{record.game.capitalize()}"]')
    out += ["", f" {record.length} point match", ""]
    width = _LEFT_WIDTH + 5
    for game in record.games:
        left = f" {record.players[0]} : {game.score[0]}"
        out += [f" Game {game.number}",
                *([f'; [Game "{game.game.capitalize()}"]'] if game.game else []),
                left.ljust(max(len(left) + 1, width - 1)) + f"{record.players[1]} : {game.score[1]}"]
        rows: dict[int, list[str]] = {}
        for action in game.actions:
            row = rows.setdefault(action.move, ["", ""])
            row[action.player] = _item(action)
        wins = f"Wins {game.points} point{'s' if game.points != 1 else ''}"
        last = game.actions[-1] if game.actions else None
        dropped = (game.winner is not None and last is not None and last.kind == "drop"
                   and not rows[last.move][game.winner])
        if dropped:   # gnubg's place for it: beside the drop, in the winner's column
            rows[last.move][game.winner] = " " + wins   # type: ignore[union-attr,index]
        for move, (a, b) in sorted(rows.items()):
            text = f"{move:3d}) " + a
            out.append((text.ljust(max(len(text) + 1, width)) + b).rstrip() if b else text.rstrip())
        if game.winner is not None and not dropped:
            out.append(" " * (6 if game.winner == 0 else width + 1) + wins)
        out.append("")
    return "\n".join(out) + "\n"


def write_mat(record: MatchRecord, path: str | os.PathLike) -> None:
    """Write the record as a ``.mat`` file in one step (a reader sees the old file or the whole
    new one)."""
    write_mat_text(format_mat(record), path)


def write_mat_text(text: str, path: str | os.PathLike) -> None:
    """Write ``.mat`` text (``format_mat``'s) to `path` in one step."""
    with atomic_file(path, text=True, readable=True) as f:
        f.write(text)
