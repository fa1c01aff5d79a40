"""The decisions of one replayed game, each evaluated by the engine: the best play or cube
action, the one played, the equity lost, its mark; and the luck of each roll.

Checker plays: every play of the roll is valued by the neural net as ``tavli-hint`` values them
(by the analysis' evaluator, float32 or int16: ``neural.EVALUATORS``, by default
``neural.default_evaluator``'s; ``play/hint.py``'s way: cubeless
equity for the mover, gammons at the match score's prices): at 0 ply all of them; at 1 and 2
ply ``hint``'s ranking at that ply (each play at the deepest ply it reached) and the play made
at that ply. A roll with one distinct legal play (forced, or none) is not a decision.

Cube decisions (``play/cube.py``'s model on the net's probabilities before the roll at the
analysis ply; bear-offs exact): before each roll of a player who may double, the cube
analysis of his position. It counts as a decision of his when he doubled, or when the
proper action is to double, or when doubling would have cost less than 0.16 (a decision
close enough to think about, as gnubg counts its "close" cube decisions); the answer to a
double (take, beaver, drop) is always a decision of the one doubled. Equity lost is per unit
of the cube at the time (double/pass = +1), as gnubg reports it.

Luck of a roll: the equity of the best play of the roll made minus the mean of that over the
21 rolls (the equity before the roll: the 1-ply look of the engine), at 0 ply whatever the
analysis ply, in EMG per unit of the cube.

Equity lost in a match is also given as match winning chances: the equity scale spans losing
and winning the cube's value at the score, so 1 EMG is half the MWC between those.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from .. import _core
from ..game.context import GameContext
from ..game.position import Position
from ..matchfile.replay import ReplayedAction, ReplayedGame
from ..play.cube import CubeDecision, cube_decision, gammon_prices
from ..play.hint import ranked_plays
from ..play.met import load_met
from ..play.neural import check_evaluator, evaluator
from ..play.reports import NET_OUTPUTS, probabilities_at
from .rollouts import RolloutSettings, roll_out_cube, roll_out_plays
from .thresholds import mark

__all__ = ["Decision", "RollLuck", "GameAnalysis", "analyse_game", "CLOSE_CUBE", "PLIES",
           "cube_analysis_at", "mwc_after", "mwc_per_emg"]

#: A cube decision that was not made counts when doubling would have cost less than this.
CLOSE_CUBE = 0.16
#: The plies the engine analyses at.
PLIES = (0, 1, 2)
_TOP_1PLY = 5


@dataclass(frozen=True)
class Decision:
    """One evaluated decision. ``player``: 0 (left column) or 1; ``kind`` "checker" or
    "cube"; ``dice`` "62" (checker) or None; ``played`` and ``best``: plays in gnubg notation,
    or cube actions ("No double", "Double", "Take", "Pass", "Beaver"); ``error``: equity
    lost, EMG (0 for the best); ``mwc_error``: the same as match winning chances (None in
    money play); ``position_id``: gnubg's ``PositionID:MatchID`` of the decision's
    position, the decider on roll; ``ply``: the depth the equities were found at.
    ``rollout``: for a decision settled by rollouts (``rollouts.py``), the rollout's trials,
    seed and each option's rolled-out equity and SE, which ``error`` and the equities then
    are, with ``error_se`` the SE of ``error`` (None when not rolled out)."""

    game: int
    move: int
    player: int
    kind: str
    dice: str | None
    played: str
    best: str
    error: float
    mwc_error: float | None
    mark: str
    position_id: str
    equity_played: float
    equity_best: float
    ply: int = 0
    error_se: float | None = None
    rollout: dict | None = None

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class RollLuck:
    """The luck of one roll for its player (EMG per unit of the cube) and the cube's value."""

    game: int
    move: int
    player: int
    luck: float
    cube: int


@dataclass(frozen=True)
class GameAnalysis:
    """A game's decisions (in the order made), its rolls' luck, and its resignation judged
    (``resignations.py``; None when the game did not end by one)."""

    number: int
    decisions: tuple[Decision, ...]
    luck: tuple[RollLuck, ...]
    resignation: Any = None


def mwc_after(ctx: GameContext, points: int) -> float:
    """In a match, the match winning chance of the side of `ctx` once the game ends with it
    winning `points` (losing, if negative), by the Kazaross-XG2 table."""
    met = load_met()
    me, opp = ctx.match_length - ctx.score[0], ctx.match_length - ctx.score[1]
    post = not ctx.crawford and 1 in (me, opp)
    a, b = (me - points, opp) if points > 0 else (me, opp + points)
    if a <= 0 or b <= 0:
        return 1.0 if a <= 0 else 0.0
    return met.mwc(a, b, post or (ctx.crawford and 1 in (a, b)))


def mwc_per_emg(pos: Position) -> float | None:
    """MWC per EMG at the position's score and cube (None in money play)."""
    ctx = pos.context
    if not ctx.match_length:
        return None
    c = ctx.cube_value
    return (mwc_after(ctx, c) - mwc_after(ctx, -c)) / 2


def _checker(replayed: ReplayedAction, game: int, ply: int, cache: _core.SearchCache | None,
             settings: RolloutSettings | None, kind: str,
             backgammons: bool = True) -> tuple[Decision | None, float]:
    """The checker decision of a roll (None when forced) and the best play's 0-ply equity,
    by the evaluator `kind`; rolled out when its two best plays are closer than
    `settings.close`. Without `backgammons` (Portes), a backgammon is valued as a gammon."""
    action, before, after = replayed.action, replayed.before, replayed.after
    assert after is not None and action.dice is not None
    net = evaluator(kind=kind)
    prices = gammon_prices(before.context, backgammons=backgammons)
    mine, theirs = prices if prices is not None else (None, None)
    plays = before.plays(*action.dice)
    zero = [net.move_equity(p.position.board, prices=mine) for p in plays]
    best0 = max(zero)
    if len(plays) <= 1:
        return None, best0
    made = next(i for i, p in enumerate(plays) if np.array_equal(p.position.board, after.board))
    if ply == 0:
        values = {i: v for i, v in enumerate(zero)}
        best = max(values, key=lambda i: (values[i], -i))
    else:
        # hint's ranking at `ply` (the 5 best by 0 ply at 1 ply, the filter's best of those
        # at 2 ply), each play valued at the deepest ply it reached; the play made at `ply`.
        ranked = ranked_plays(before, *action.dice, top=_TOP_1PLY, net=net, ply=ply,
                              cache=cache, backgammons=backgammons)
        index = {plays[i].position.board.tobytes(): i for i in range(len(plays))}
        values = {}
        for play, board in ranked:
            deepest = play.equity_2ply if ply == 2 else play.equity_1ply
            if deepest is not None:
                values[index[np.ascontiguousarray(board).tobytes()]] = deepest
        best = next(iter(values))
        if made not in values:
            values[made] = net.move_equity(plays[made].position.board, ply=ply, prices=mine,
                                           reply_prices=theirs, cache=cache)
        if values[made] > values[best]:
            best = made
    error = max(0.0, values[best] - values[made])
    error_se = rollout = None
    top = sorted(values, key=lambda i: (-values[i], i))[:2]
    if settings is not None and len(top) == 2 and values[top[0]] - values[top[1]] < settings.close:
        chosen = top + ([made] if made not in top else [])
        names = [plays[i].notation for i in chosen]
        rolled = roll_out_plays(before, action.dice, names, settings,
                                (game, action.move, action.player, 0), kind)
        values = {i: rolled.equity[plays[i].notation] for i in chosen}
        best = chosen[names.index(rolled.best)]
        made_name = plays[made].notation
        error, error_se = rolled.behind[made_name], rolled.behind_se[made_name]
        rollout = {"trials": rolled.trials, "seed": rolled.seed, "cubeful": True,
                   "options": {n: {"equity": rolled.equity[n], "se": rolled.se[n]}
                               for n in names}}
    scale = mwc_per_emg(before)
    pre = before.with_context(replace(before.context, dice=None))
    decision = Decision(
        game, action.move, action.player, "checker", f"{action.dice[0]}{action.dice[1]}",
        plays[made].notation or "(no play)", plays[best].notation or "(no play)", error,
        None if scale is None else error * scale, mark(error), pre.gnubg_id(),
        values[made], values[best], ply, error_se, rollout)
    return decision, best0


def _pre_roll_equity(before: Position, kind: str, backgammons: bool = True) -> float:
    """The equity of the side on roll before it rolls: the engine's 1-ply look from the
    opponent's side, negated, by the evaluator `kind`."""
    prices = gammon_prices(before.context, backgammons=backgammons)
    mine, theirs = prices if prices is not None else (None, None)
    board = np.ascontiguousarray(before.board[::-1])
    return -evaluator(kind=kind).move_equity(board, ply=1, prices=theirs, reply_prices=mine)


def cube_analysis_at(pos: Position, ply: int, cache: _core.SearchCache | None,
                     kind: str | None = None) -> CubeDecision:
    """The cube analysis of `pos` (the decider on roll, before rolling) on the net's
    probabilities at `ply` by the evaluator `kind` (None: the default one; at 0 ply what
    ``cube_decision`` gives by that evaluator; bear-offs exact either way)."""
    p = probabilities_at(pos, evaluator(kind=kind), ply, cache=cache)
    return cube_decision(pos, probabilities=[getattr(p, k) for k in NET_OUTPUTS], exact=True)


def _cube_decisions(game: ReplayedGame, i: int, move: int, ply: int,
                    cache: _core.SearchCache | None,
                    settings: RolloutSettings | None, kind: str) -> list[Decision]:
    """The cube decisions at the start of action i's turn (a roll or a double), at `ply`;
    settled by a cubeful rollout of the position when double and no double, or take and
    pass, are closer than `settings.close`."""
    replayed = game.actions[i]
    action = replayed.action
    pos = replayed.before.with_context(replace(replayed.before.context, dice=None))
    ctx = pos.context
    if game.crawford or (ctx.cube_owner == "opponent") or pos.is_game_over():
        return []
    analysis = cube_analysis_at(pos, ply, cache, kind)
    if not analysis.can_double:
        return []
    doubled = action.kind == "double"
    nd, dt, dp = analysis.no_double, analysis.double_take, analysis.double_pass
    se: dict | None = None
    rollout = None
    if settings is not None and (abs(nd - min(dt, dp)) < settings.close
                                 or (doubled and abs(dt - dp) < settings.close)):
        figures, seed = roll_out_cube(pos, settings, (game.record.number, move, action.player, 1),
                                      kind)
        if figures.double_take is not None:
            nd, dt, dp, se = (figures.no_double, figures.double_take, figures.double_pass,
                              figures.se)
            rollout = {"trials": settings.trials, "seed": seed, "cubeful": True, "options": {
                "No double": {"equity": nd, "se": se["no_double"]},
                "Double, take": {"equity": dt, "se": se["double_take"]},
                "Double, pass": {"equity": dp, "se": 0.0}}}
    doubled_value = min(dt, dp)
    optimal = max(nd, doubled_value)
    chosen = doubled_value if doubled else nd
    scale = mwc_per_emg(pos)
    out = []
    if doubled or analysis.double or optimal - doubled_value < CLOSE_CUBE:
        error = max(0.0, optimal - chosen)
        error_se = None
        if se is not None:
            error_se = (0.0 if error == 0 else se["difference"] if dt <= dp
                        else se["no_double"])
        out.append(Decision(
            game.record.number, move, action.player, "cube", None,
            "Double" if doubled else "No double", "Double" if optimal > nd else "No double",
            error, None if scale is None else error * scale, mark(error), pos.gnubg_id(),
            chosen, optimal, ply, error_se, rollout))
    if doubled and i + 1 < len(game.actions):
        answer = game.actions[i + 1].action
        took = answer.kind in ("take", "beaver")
        best = "Take" if dt <= dp else "Pass"
        error = max(0.0, (dt - dp) if took else (dp - dt))
        out.append(Decision(
            game.record.number, move, answer.player, "cube", None,
            {"take": "Take", "beaver": "Beaver"}.get(answer.kind, "Pass"), best, error,
            None if scale is None else error * scale, mark(error),
            pos.sides_switched().gnubg_id(), -(dt if took else dp), -min(dt, dp), ply,
            None if se is None else se["double_take"], rollout))
    return out


def analyse_game(game: ReplayedGame, ply: int = 0, rollouts: RolloutSettings | None = None,
                 evaluator: str | None = None) -> GameAnalysis:
    """Evaluate every decision of a replayed backgammon game at `ply` (0, 1 or 2: checker
    plays and cube decisions) and the luck of every roll (0 ply), the net valuing positions
    by `evaluator` ("float32" or "int16"; None: the default one), its rollouts too. At 2 ply
    one SearchCache keeps the searched positions across the game's decisions. `rollouts`:
    settle the close decisions by rollouts (``rollouts.py``; None: none). A Portes game
    (``game.portes``) has no cube decisions, and its backgammons are valued as gammons."""
    if ply not in PLIES:
        raise ValueError(f"ply must be one of {PLIES}, not {ply!r}")
    kind = check_evaluator(evaluator)
    decisions: list[Decision] = []
    luck: list[RollLuck] = []
    actions = game.actions
    number = game.record.number
    turn_started: set[int] = set()
    cache = _core.SearchCache() if ply == 2 else None
    for i, replayed in enumerate(actions):
        action = replayed.action
        if action.kind == "double":
            # The decision belongs to the line of the doubler's next roll (or its own line).
            roll = next((a.action.move for a in actions[i + 1:]
                         if a.action.kind == "roll" and a.action.player == action.player),
                        action.move)
            decisions += _cube_decisions(game, i, roll, ply, cache, rollouts, kind)
            turn_started.add(action.player * 100000 + roll)
        elif action.kind == "roll":
            if (action.player * 100000 + action.move not in turn_started and i > 0
                    and not game.portes):
                decisions += _cube_decisions(game, i, action.move, ply, cache, rollouts, kind)
            checker, best = _checker(replayed, number, ply, cache, rollouts, kind,
                                     not game.portes)
            if checker is not None:
                decisions.append(checker)
            pre = replayed.before.with_context(replace(replayed.before.context, dice=None))
            value = best - _pre_roll_equity(pre, kind, not game.portes)
            luck.append(RollLuck(number, action.move, action.player,
                                 0.0 if math.isnan(value) else value,
                                 replayed.before.context.cube_value))
    return GameAnalysis(number, tuple(decisions), tuple(luck))
