"""GNU Backgammon's ``.sgf`` match files (Smart Game Format, game 6 = backgammon) read into a
``MatchRecord``, so that they replay and analyse like ``.mat`` files.

What is read: one game tree a game, ``(;FF[4]GM[6]...`` with the root's ``MI`` (``length:N``,
``game:N``, ``ws:N``, ``bs:N`` the scores of White and Black before the game), ``PW`` / ``PB``
(White is the left player, as gnubg's .mat export puts him), ``RU`` (``Jacoby``, beavers),
``RE`` (``W+2``, ``B+1R`` for a resignation); then one node per action: ``B[62xxyy]`` /
``W[...]`` a roll and its play, each pair of letters one checker's step from and to (``a`` to
``x`` the points, in White's numbering point = letter + 1, in Black's 24 - letter; ``y`` the
bar, ``z`` borne off); ``[double]``, ``[take]``, ``[drop]``, ``[beaver]``. Everything else
(gnubg's analysis, comments, marks) is skipped. Move numbers are those gnubg's .mat export
would write for the same game.
"""

from __future__ import annotations

import os
import re

from .mat import read_text
from .model import Action, GameRecord, MatchFileError, MatchRecord

__all__ = ["read_sgf", "parse_sgf"]

_PROPERTY = re.compile(r"([A-Z]+)((?:\s*\[(?:\\.|[^\]\\])*\])+)", re.DOTALL)
_VALUE = re.compile(r"\[((?:\\.|[^\]\\])*)\]", re.DOTALL)
_ROLL = re.compile(r"^([1-6])([1-6])((?:[a-z][a-z])*)$")
_RESULT = re.compile(r"^([WB])\+(\d+)(R?)$")


def read_sgf(path: str | os.PathLike) -> MatchRecord:
    """Read a gnubg ``.sgf`` file; MatchFileError names the file and the place."""
    return parse_sgf(read_text(path), source=str(path))


def _trees(text: str, source: str) -> list[tuple[int, str]]:
    """The top-level game trees: (offset, text inside the parentheses)."""
    out, depth, start, in_value, escaped = [], 0, 0, False, False
    for i, ch in enumerate(text):
        if in_value:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == "]":
                in_value = False
        elif ch == "[":
            in_value = True
        elif ch == "(":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise MatchFileError("a ')' that closes nothing", source=source,
                                     line=text.count("\n", 0, i) + 1)
            if depth == 0:
                out.append((start, text[start:i]))
    if depth or in_value:
        raise MatchFileError("the file is cut off (a game tree is not closed)", source=source,
                             line=text.count("\n") + 1)
    return out


def _point(letter: str, player: int) -> int:
    index = ord(letter) - ord("a")
    if index == 24:
        return 25
    if index == 25:
        return 0
    return index + 1 if player == 0 else 24 - index


class _Rows:
    """Move numbers as the .mat export writes them: the left player's action and then the
    right player's share a line; a new line when the slot is taken or the right one used."""

    def __init__(self) -> None:
        self.move, self.left, self.right = 0, True, True

    def place(self, player: int) -> int:
        if player == 0:
            if self.left or self.right:
                self.move, self.left, self.right = self.move + 1, False, False
            self.left = True
        else:
            if self.right:
                self.move, self.left, self.right = self.move + 1, False, False
            self.right = True
        return self.move


def parse_sgf(text: str, *, source: str = "<text>") -> MatchRecord:
    """Read gnubg SGF text into a MatchRecord (see the module docstring)."""
    trees = _trees(text, source)
    if not trees:
        raise MatchFileError("not an SGF file: no game tree '(;...)'", source=source, line=1)
    length: int | None = None
    players: tuple[str, str] | None = None
    jacoby = beaver = False
    games = []
    for number, (offset, tree) in enumerate(trees, 1):
        nodes = tree.split(";")[1:] if tree.lstrip().startswith(";") else None
        line0 = text.count("\n", 0, offset) + 1
        if not nodes:
            raise MatchFileError("a game tree without nodes", source=source, line=line0, game=number)
        root = {k: _VALUE.findall(v) for k, v in _PROPERTY.findall(nodes[0])}
        if root.get("GM", ["6"])[0] != "6":
            raise MatchFileError(f"game type GM[{root['GM'][0]}] is not backgammon (GM[6])",
                                 source=source, line=line0, game=number)
        info = dict(v.split(":", 1) for v in root.get("MI", []) if ":" in v)
        try:
            length = int(info.get("length", length if length is not None else 0))
            score = (int(info.get("ws", 0)), int(info.get("bs", 0)))
        except ValueError:
            raise MatchFileError(f"cannot read MI{root.get('MI')}", source=source, line=line0,
                                 game=number) from None
        names = (root.get("PW", ["White"])[0], root.get("PB", ["Black"])[0])
        players = players or names
        rules = " ".join(root.get("RU", [])).lower()
        jacoby, beaver = jacoby or "jacoby" in rules, beaver or "beaver" in rules
        rows = _Rows()
        actions: list[Action] = []
        pending: int | None = None   # the player whose double waits for its answer
        beavered = False             # gnubg writes a beaver as a double back, then a take
        for index, node in enumerate(nodes[1:], 1):
            props = {k: _VALUE.findall(v) for k, v in _PROPERTY.findall(node)}
            line = line0 + tree.count("\n", 0, tree.find(node))
            for colour, player in (("W", 0), ("B", 1)):
                if colour not in props:
                    continue
                value = props[colour][0].strip().lower()
                if value == "take" and beavered and pending == player:
                    pending, beavered = None, False   # the doubler takes the beaver
                    continue
                move = rows.place(player)
                if value in ("double", "take", "drop", "beaver"):
                    if value == "double" and pending is not None and pending != player:
                        value, beavered = "beaver", True
                    elif value == "double":
                        pending = player
                    elif not beavered:
                        pending = None
                    actions.append(Action(move, player, value, line=line))
                    continue
                m = _ROLL.match(value)
                if not m:
                    raise MatchFileError(f"cannot read the move {colour}[{value}]", source=source,
                                         line=line, game=number, move=move)
                pairs = m.group(3)
                steps = [f"{_point(pairs[i], player)}/{_point(pairs[i + 1], player)}"
                         for i in range(0, len(pairs), 2)]
                actions.append(Action(move, player, "roll", (int(m.group(1)), int(m.group(2))),
                                      " ".join(steps), line=line))
        winner, points = None, 0
        if "RE" in root:
            r = _RESULT.match(root["RE"][0].strip())
            if not r:
                raise MatchFileError(f"cannot read the result RE[{root['RE'][0]}]", source=source,
                                     line=line0, game=number)
            winner, points = (0 if r.group(1) == "W" else 1), int(r.group(2))
        games.append(GameRecord(number, score, tuple(_cube_values(actions)), winner, points, line0))
    comments = ([f'; [Jacoby "{"On" if jacoby else "Off"}"]', f'; [Beaver "{"On" if beaver else "Off"}"]']
                + [f'; [Player 1 "{players[0]}"]', f'; [Player 2 "{players[1]}"]'])   # type: ignore[index]
    return MatchRecord(length or 0, players, tuple(games), comments=tuple(comments),   # type: ignore[arg-type]
                       source=source)


def _cube_values(actions: list[Action]) -> list[Action]:
    """The cube's new value on each double and beaver (SGF does not write it)."""
    cube, out = 1, []
    for a in actions:
        if a.kind == "double":
            cube *= 2
            a = Action(a.move, a.player, a.kind, cube=cube, line=a.line)
        elif a.kind == "beaver":
            cube *= 2
            a = Action(a.move, a.player, a.kind, cube=cube, line=a.line)
        out.append(a)
    return out
