"""Replaying a Plakoto or Fevga record (a ``.mat`` file with ``; [Variation "Plakoto"]`` or
``"Fevga"``) with those games' move generator (RULES.md P1-P7, F1-F7).

The plays are written as in backgammon files, single steps ``from/to`` in the mover's own
numbering (0 borne off; no bar in these games; ``*`` marks a pin in Plakoto and is not
needed). Neither game hits, so the mover's checkers after the steps decide the play; they must
be one of the generator's results for the roll. There is no cube; a game is worth 1 or 2
points (P7, F7). Any roll may open a game (in a tavli match the previous winner rolls both
dice). A Plakoto game drawn by two pinned mothers (P6) has no winner and no ``Wins`` line.

A tavli record (T1-T3) names each game's game; its Portes games are replayed by
``replay.py`` (the portes rules), its Plakoto and Fevga games here. The Plakoto and Fevga
options of the match are in the header line ``; [Options "..."]`` (their names, as
``tavli-match --option`` takes them).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import FevgaRules, PlakotoRules, game_rules
from ..variants.movegen import generate_variant_positions
from ..variants.position import VariantPosition, variant_position
from .model import Action, GameRecord, MatchFileError, MatchRecord
from .replay import ReplayedGame, first_score, header_flags, parse_steps, replay_game

__all__ = ["VariantReplayedAction", "VariantReplayedGame", "replay_variant_match"]


@dataclass(frozen=True)
class VariantReplayedAction:
    """A roll and its play: the position before (the mover on roll), after (sides not
    switched), and the play's notation as the engine writes it."""

    action: Action
    before: VariantPosition
    after: VariantPosition


@dataclass(frozen=True)
class VariantReplayedGame:
    """A replayed Plakoto or Fevga game (``crawford`` always False: no cube)."""

    record: GameRecord
    actions: tuple[VariantReplayedAction, ...]
    ending: str | None
    game: str
    crawford: bool = False


def _mine_after(before: VariantPosition, steps: list[tuple[int, int]]) -> tuple[tuple[int, ...], int] | None:
    me, off = list(before.me), before.me_off
    for a, b in sorted(steps, key=lambda s: -s[0]):
        if not 1 <= a <= 24 or me[a - 1] <= 0:
            return None
        me[a - 1] -= 1
        if b == 0:
            off += 1
        else:
            me[b - 1] += 1
    return tuple(me), off


def _rules(record: MatchRecord, name: str) -> PlakotoRules | FevgaRules:
    """The game's rules: its options named in the header's ``; [Options "..."]`` line."""
    names = header_flags(record).get("options", "").split()
    fields = PlakotoRules.__dataclass_fields__ if name == "plakoto" else FevgaRules.__dataclass_fields__
    try:
        return game_rules(name, [n for n in names if n in fields])
    except ValueError as exc:
        raise MatchFileError(str(exc), source=record.source) from None


def _replay_game(record: MatchRecord, game: GameRecord, name: str) -> VariantReplayedGame:
    rules = _rules(record, name)
    pos = variant_position(name, None)
    turn: int | None = None
    out: list[VariantReplayedAction] = []
    ending: str | None = None
    winner: int | None = None

    def error(message: str, action: Action | None) -> MatchFileError:
        return MatchFileError(message, source=record.source,
                              line=action.line if action else game.line, game=game.number,
                              move=action.move if action else None)

    for action in game.actions:
        if action.kind != "roll":
            raise error(f"'{action.kind}': {name} is played without the cube", action)
        if ending is not None:
            raise error("an action after the game ended", action)
        if turn is not None:
            if action.player == turn:
                raise error("the same player rolls twice in a row", action)
            pos = pos.sides_switched()
        turn = action.player
        where = dict(line=action.line, game=game.number, move=action.move)
        target = _mine_after(pos, parse_steps(action.play, record.source, where))
        dice = action.dice
        assert dice is not None
        match = next((p for p in generate_variant_positions(name, pos, *dice, rules)
                      if target is not None and (p.me, p.me_off) == target), None)
        if match is None:
            raise error(f"illegal move {dice[0]}{dice[1]}: {action.play or '(no move)'}", action)
        out.append(VariantReplayedAction(action, pos, match))
        pos = match
        if pos.is_game_over():
            ending, winner = ("single" if pos.opp_off else "double"), action.player
            if name == "plakoto" and all(pos.mother_pinned()):   # type: ignore[attr-defined]
                ending, winner = "draw", None    # P6: both mothers pinned
    if ending == "draw" and game.winner is not None:
        raise error(f"game {game.number} was drawn (P6), yet the 'Wins' line gives it to "
                    f"{record.players[game.winner]!r}", None)
    if game.winner is not None:
        if not 1 <= game.points <= 2:
            raise error(f"a {name} game is worth 1 or 2 points, not {game.points} (P7, F7)", None)
        if winner is not None and game.winner != winner:
            raise error(f"the 'Wins' line gives game {game.number} to "
                        f"{record.players[game.winner]!r}, the moves to {record.players[winner]!r}", None)
        ending = ending or "resign"
    return VariantReplayedGame(game, tuple(out), ending, name)


def replay_variant_match(record: MatchRecord) -> list[VariantReplayedGame | ReplayedGame]:
    """Replay every game of a Plakoto, Fevga or tavli record (a tavli record's Portes games
    give ``replay.ReplayedGame``s); MatchFileError names the line, game and move of the
    first illegal move or score that does not add up."""
    if record.game not in ("plakoto", "fevga", "tavli"):
        raise MatchFileError(f"not a Plakoto, Fevga or tavli record ({record.game})",
                             source=record.source)
    score = first_score(record)
    out: list[VariantReplayedGame | ReplayedGame] = []
    for i, game in enumerate(record.games):
        if game.score != tuple(score):
            raise MatchFileError(f"the score {game.score[0]}-{game.score[1]} does not add up: "
                                 f"the games before give {score[0]}-{score[1]}",
                                 source=record.source, line=game.line, game=game.number)
        name = game.game or record.game
        if name == "portes":
            out.append(replay_game(record, game, False, i == len(record.games) - 1, portes=True))
        else:
            out.append(_replay_game(record, game, name))
        if game.winner is not None:
            score[game.winner] += game.points
    return out
