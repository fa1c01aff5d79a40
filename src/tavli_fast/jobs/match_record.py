"""The matches ``tavli-match`` plays, kept as records to be written as ``.mat`` files
(``tavli-match --save``, ``play_matches(..., save=)``).

The matches are played in the compiled core (``_match.pxi``) by the players and rules of the
run; with ``record`` the core also keeps a log of each match (``_match_log.pxi``): each game's
start (its type, its starter, whether it is the Crawford game), each play as its dice and the
board after it, each cube action, each game's end (winner and points, as the run's tallies
count them). ``match_records`` turns that log into ``MatchRecord``s: the text of each play comes
from the single-die steps between the boards before and after it (``game/steps.py``; in Plakoto
and Fevga from the game's notation, ``variants/movegen.py``), and the move numbers follow
gnubg's layout (the left player, A, in the first column). So the saved matches are the very
matches whose result the run reports.

Record kinds (``MatchRecord.game``): ``"backgammon"`` (the backgammon rules, cube or not),
``"portes"`` (the portes rules: no cube, no backgammons, any opening roll, written with the
header ``; [Variation "Portes"]``) and ``"tavli"`` (T1-T3: each game names its own game,
``GameRecord.game``); see ``matchfile/mat.py``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

import numpy as np

from .. import _core
from ..game.position import Position
from ..game.steps import steps_of
from ..matchfile.mat import write_mat_text
from ..matchfile.model import Action, GameRecord, MatchRecord
from ..rules import game_rules
from ..run.atomic import output_target
from ..variants.movegen import notated_play, position_after
from ..variants.position import variant_position

__all__ = ["match_records", "play_text", "record_kind", "save_paths", "write_saved", "DEFAULT_NAMES"]

#: The players' names in a saved match unless given.
DEFAULT_NAMES = ("Player 1", "Player 2")

_KIND = {v: k for k, v in _core.LOG_KINDS.items()}
_GAME_NAMES = ("portes", "plakoto", "fevga")   # a LOG_GAME entry's type


def play_text(before: np.ndarray, after: np.ndarray, die1: int, die2: int) -> str:
    """A play as the .mat files write it: single steps ``from/to`` in the mover's numbering
    (25 the bar, 0 off), ``*`` on a hit."""
    return " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, hit in
                    steps_of(before, after, die1, die2))


def record_kind(rules: str, tavli: bool) -> str:
    """The ``MatchRecord.game`` of a run's matches: ``"tavli"``, ``"portes"`` (the portes
    rules) or ``"backgammon"``."""
    return "tavli" if tavli else "portes" if rules == "portes" else "backgammon"


def match_records(entries: np.ndarray, *, length: int, names: Sequence[str], kind: str,
                  game_options: Sequence[str] = (), source: str = "<played>") -> list[MatchRecord]:
    """The matches of a log (``_core.run_matches(..., record=True)``'s entries), in order.

    ``kind``: ``record_kind`` of the run; ``game_options``: the Plakoto and Fevga option
    names of a tavli run (their plays are matched against those games' generators)."""
    out: list[MatchRecord] = []
    starts = [i for i, k in enumerate(entries["kind"]) if k == _core.LOG_KINDS["match"]]
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(entries)
        out.append(_match(entries[start:end], length, (names[0], names[1]), kind,
                          tuple(game_options), source))
    return out


def _match(entries: np.ndarray, length: int, names: tuple[str, str], kind: str,
           game_options: tuple[str, ...], source: str) -> MatchRecord:
    first = entries[0]
    score = [int(first["a"]), int(first["b"])]
    comments = [f'; [Player 1 "{names[0]}"]', f'; [Player 2 "{names[1]}"]']
    if kind != "backgammon":
        comments.append(f'; [Variation "{kind.capitalize()}"]')
    if first["d1"]:
        comments.append('; [Crawford "Played"]')   # a score start after the Crawford game
    if kind == "tavli" and game_options:
        comments.append(f'; [Options "{" ".join(game_options)}"]')
    games: list[GameRecord] = []
    bounds = [i for i, k in enumerate(entries["kind"]) if k == _core.LOG_KINDS["game"]]
    for j, start in enumerate(bounds):
        stop = bounds[j + 1] if j + 1 < len(bounds) else len(entries)
        game = _game(entries[start:stop], len(games) + 1, (score[0], score[1]), kind,
                     game_options)
        games.append(game)
        if game.winner is not None:
            score[game.winner] += game.points
    return MatchRecord(length, names, tuple(games), kind, tuple(comments), source)


def _game(entries: np.ndarray, number: int, score: tuple[int, int], kind: str,
          game_options: tuple[str, ...]) -> GameRecord:
    """One game of the log: its LOG_GAME entry, its plays and cube actions, its LOG_END."""
    head = entries[0]
    starter = int(head["side"])
    name = _GAME_NAMES[int(head["a"])] if kind == "tavli" else kind
    variant = name in ("plakoto", "fevga")
    rules = game_rules(name, [o for o in game_options
                              if o in type(game_rules(name)).__dataclass_fields__]) if variant else None
    board = None if variant else np.array(Position.initial().board)
    position = variant_position(name, None) if variant else None
    move, actions = 1, []
    winner: int | None = None
    points = 0
    for e in entries[1:]:
        what = _KIND[int(e["kind"])]
        if what == "end":
            winner = None if e["side"] < 0 else int(e["side"])
            points = int(e["a"])
            break
        player = starter ^ int(e["side"])
        if what == "play":
            d1, d2 = int(e["d1"]), int(e["d2"])
            dice = (max(d1, d2), min(d1, d2))    # written higher die first, as gnubg does
            after = np.array(e["board"])
            if variant:
                reached = position_after(position, after)   # a result of the core's generator
                text = notated_play(name, position, reached, d1, d2, rules).notation
                position = reached.sides_switched()
            else:
                text, board = play_text(board, after, d1, d2), after[::-1].copy()
            actions.append(Action(move, player, "roll", dice, text))
            move += player   # the right player's action ends the line
        elif what == "double":
            actions.append(Action(move, player, "double", cube=int(e["a"])))
            move += player
        else:   # take, beaver, drop: the answer, on the doubler's line or the next
            actions.append(Action(move, player, what, cube=int(e["a"]) if what == "beaver" else 0))
            move += player
    return GameRecord(number, score, tuple(actions), winner, points,
                      game=name if kind == "tavli" else None)


def save_paths(path: str | os.PathLike, matches: int) -> list[Path]:
    """Where a run of `matches` matches saves them: `path` itself for one match; for more,
    one file a match (a .mat file holds one match), numbered from 1 before the suffix with
    as many digits as the count has (``m.mat``, 12 matches: ``m-01.mat`` ... ``m-12.mat``).
    ValueError (one line) unless every one may be written (``atomic.output_target``)."""
    base = Path(path)
    if matches == 1:
        paths = [base]
    else:
        width = len(str(matches))
        paths = [base.with_name(f"{base.stem}-{i:0{width}d}{base.suffix}")
                 for i in range(1, matches + 1)]
    if os.path.isdir(base):
        raise ValueError(f"{os.fspath(path)} is a directory: give a file name (FILE.mat)")
    for p in paths:
        output_target(p)
    return paths


def write_saved(texts: Sequence[str], path: str | os.PathLike, matches: int) -> list[str]:
    """Write the .mat texts of a run of `matches` matches (the first len(texts) of the
    ``save_paths``: an interrupted run saves the matches it reports), each in one step;
    returns the paths written."""
    paths = save_paths(path, matches)[:len(texts)]
    for p, text in zip(paths, texts):
        write_mat_text(text, p)
    return [os.fspath(p) for p in paths]
