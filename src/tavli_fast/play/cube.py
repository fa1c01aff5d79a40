"""Cube decisions at 0-ply (rules R21-R25): should the side on roll double, should the
opponent take?

The model is GNU Backgammon's, as ``../shared/CUBE.md`` states it, so that the numbers can
be set beside gnubg's and eXtreme Gammon's: cubeful equities from the cubeless probabilities
by Janowski's interpolation between a dead and a live cube, with a cube efficiency by
position class (contact 0.76; race 0.6 + 0.0025 pips, at most 0.8; bear-off 0.6), and in
match play Thyssen's generalisation over the match equity table (``met.py``). The kernels
are in ``_cube.pxi``; the game loop uses the same ones for the players' cube decisions.

Money positions inside the cubeful two-sided bear-off database (``bearoff.py``) are
answered exactly instead, from perfect checker and cube play, as GNU Backgammon answers
them from its own database; match positions inside the two-sided database are solved
exactly at their score (``match_bearoff.py``). ``exact`` is then True; ``docs/cube.md``
says how exact, and where the model still answers (money cubes close to their maximum,
match positions too large to solve).

Equities are those of the side on roll per unit of the current cube, as gnubg's ``hint``
prints them: double/pass is +1. In a match, match winning chances are mapped to that
scale linearly between losing and winning the current cube's value, as gnubg does.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from .. import _core
from ..errors import InvalidPositionError
from ..game.position import GameContext, Position
from .bearoff import default_database, in_two_sided
from .match_bearoff import exact_match_analysis
from .met import load_met
from .neural import evaluator
from .players import NEURAL_BY_PLY, PLAYERS

__all__ = ["CubeDecision", "cube_decision", "cube_state_args", "ACTIONS", "DOUBLING", "OWNER_CODES",
           "default_match_table", "check_probabilities", "resolve_pre_roll", "gammon_prices"]

#: The proper cube actions in the kernels' order, in gnubg's words (for a centred cube;
#: "double" becomes "redouble" when the side on roll owns the cube).
ACTIONS = (
    "No double, take",
    "Double, take",
    "Double, pass",
    "Too good to double, pass",
    "Too good to double, take",
    "Optional double, take",
    "Optional double, pass",
    "No double, beaver",
    "Double, beaver",
    "You cannot double",
)
DOUBLING = frozenset({1, 2, 6, 8})  #: actions that say: double now
CANNOT_DOUBLE = ACTIONS[9]
_TOO_GOOD = {3, 4}

#: GameContext.cube_owner -> the kernels' owner code.
OWNER_CODES = {"centre": 0, "me": 1, "opponent": 2}


@dataclass(frozen=True)
class CubeDecision:
    """The cube analysis of a position before the roll, for the side on roll.

    ``no_double``, ``double_take``, ``double_pass``: cubeful equities per unit of the current
    cube (double/pass = +1.0). ``mwc``: in a match, the same three as match winning chances
    (keys ``no_double``, ``double_take``, ``double_pass``); None in money play. ``action``:
    gnubg's sentence for the proper action. ``can_double``: the rules let the side on roll
    double now; ``double``: it should; ``take``: if doubled, the opponent should take (or
    beaver); ``too_good``: it should play on for a gammon instead of doubling.
    ``cubeless_equity``: money: the cubeless equity; match: the normalised cubeless equity
    (gammons weighted by their match price), as gnubg prints it. ``efficiency``: the cube
    efficiency x the model used (None when exact). ``probabilities``: the five cubeless
    probabilities used. ``exact``: the equities come from the cubeful bear-off database
    or, in a match, from the game solved at its score (perfect play by both sides), not
    from the model.
    """

    no_double: float
    double_take: float
    double_pass: float
    mwc: dict[str, float] | None
    action: str
    can_double: bool
    double: bool
    take: bool
    too_good: bool
    cubeless_equity: float
    efficiency: float | None
    probabilities: tuple[float, float, float, float, float]
    exact: bool = False

    @property
    def cubeful_equity(self) -> float:
        """The equity with the proper cube action: ND, or the better for the taker of DT and
        DP when the side on roll should double."""
        if self.double:
            return min(self.double_take, self.double_pass)
        return self.no_double

    @property
    def cubeful_mwc(self) -> float | None:
        """In a match, the MWC with the proper cube action; None in money play."""
        if self.mwc is None:
            return None
        if self.double:
            return min(self.mwc["double_take"], self.mwc["double_pass"])
        return self.mwc["no_double"]

    def to_dict(self) -> dict:
        """A JSON-ready dict (the ``"cube"`` object of ``tavli-hint --json``)."""
        return {**asdict(self), "cubeful_equity": self.cubeful_equity}


def action_words(action: int, owner: str) -> str:
    """gnubg's sentence for an action code; the "re-" form when the side on roll owns the
    cube ("You cannot double" stays as it is)."""
    text = ACTIONS[action]
    if owner == "me" and text != CANNOT_DOUBLE:
        text = text.replace("double", "redouble").replace("Double", "Redouble")
    return text


def check_probabilities(probabilities: Sequence[float]) -> np.ndarray:
    """Five probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon)
    of the side on roll, gammons including backgammons, checked to be consistent."""
    try:
        p = np.array([float(x) for x in probabilities], dtype=np.float64)  # type: ignore[union-attr]
    except (TypeError, ValueError):
        raise ValueError(
            f"probabilities must be five numbers (win, win_gammon, win_backgammon, "
            f"lose_gammon, lose_backgammon), got {probabilities!r}"
        ) from None
    if p.shape != (5,) or not np.all(np.isfinite(p)):
        raise ValueError(f"probabilities must be five finite numbers, got {probabilities!r}")
    tol = 1e-9
    win, wg, wb, lg, lb = p
    if not (-tol <= win <= 1 + tol and -tol <= wb <= wg + tol and wg <= win + tol
            and -tol <= lb <= lg + tol and lg <= 1 - win + tol):
        raise ValueError(
            "inconsistent probabilities: need 0 <= win <= 1, 0 <= win_backgammon <= "
            "win_gammon <= win and 0 <= lose_backgammon <= lose_gammon <= 1 - win, "
            f"got {tuple(float(x) for x in p)}"
        )
    return np.clip(p, 0.0, 1.0)


def default_match_table() -> _core.MatchTableC:
    """The default match equity table (Kazaross-XG2) as the kernels read it."""
    return load_met().kernel


def cube_state_args(context: GameContext, met: _core.MatchTableC | None = None,
                    max_cube: int | None = None) -> dict:
    """Keyword arguments for the cube kernels from a GameContext (the side on roll's view)."""
    match = context.match_length > 0
    if match and met is None:
        met = default_match_table()
    return dict(
        value=context.cube_value,
        owner=OWNER_CODES[context.cube_owner],
        max_value=context.max_cube if max_cube is None else max_cube,
        jacoby=context.jacoby,
        beaver=context.beaver,
        away_me=context.match_length - context.score[0] if match else 0,
        away_opp=context.match_length - context.score[1] if match else 0,
        crawford=context.crawford,
        met=met if match else None,
    )


def gammon_prices(context: GameContext, met: _core.MatchTableC | None = None, *,
                  backgammons: bool = True) -> tuple[np.ndarray, np.ndarray] | None:
    """In a match, the gammon prices (win gammon, lose gammon, win backgammon, lose
    backgammon, in units of a single game) of the side on roll and of its opponent at the
    context's score and cube, as the neural players weigh gammons there; None in money play.
    Without `backgammons` (the Portes rules, R20's option: a backgammon scores as a gammon)
    the backgammon prices are 0, in money play too (prices 1, 1, 0, 0)."""
    if context.match_length == 0:
        if backgammons:
            return None
        money = np.array([1.0, 1.0, 0.0, 0.0])
        return money, money.copy()
    met = default_match_table() if met is None else met
    me = context.match_length - context.score[0]
    opp = context.match_length - context.score[1]
    prices = (np.array(_core.gammon_prices_of(context.cube_value, me, opp, met)),
              np.array(_core.gammon_prices_of(context.cube_value, opp, me, met)))
    if not backgammons:
        for side in prices:
            side[2:] = 0.0
    return prices


def _probabilities_of(pos: Position, player: str) -> np.ndarray:
    if player not in PLAYERS:
        raise ValueError(f"unknown player {player!r}: choose one of {', '.join(PLAYERS)}")
    if player not in NEURAL_BY_PLY:
        raise ValueError(
            f"player {player!r} gives no probabilities: cube decisions need the neural "
            "evaluator (player 'neural') or probabilities given"
        )
    return np.asarray(evaluator().evaluate(pos.board), dtype=np.float64)


def resolve_pre_roll(position: str | Position) -> Position:
    """The Position of `position` (Position ID, XGID, Position ID:Match ID or Position),
    checked to be a game in progress before the roll."""
    if isinstance(position, Position):
        pos = position
    elif isinstance(position, str):
        pos = Position.from_id(position)
    else:
        raise TypeError(
            f"position must be a Position ID, an XGID or a Position, not {type(position).__name__}"
        )
    if pos.is_game_over():
        raise InvalidPositionError("the game is over: there is no cube decision to make")
    if pos.context.dice is not None:
        raise InvalidPositionError(
            f"the side on roll has rolled {pos.context.dice[0]}{pos.context.dice[1]}: a cube "
            "decision is made before the roll (give the position with no dice)"
        )
    return pos


def cube_decision(position: str | Position, *, probabilities: Sequence[float] | None = None,
                  player: str = "neural", exact: bool | None = None) -> CubeDecision:
    """The 0-ply cube analysis of `position` for the side on roll, before it rolls.

    `position`: a gnubg Position ID (money, centred cube), an XGID or ``PositionID:MatchID``
    (their cube, owner, score, match length, Crawford, Jacoby and beaver flags are used),
    or a Position with its GameContext. `probabilities`: (win, win_gammon, win_backgammon,
    lose_gammon, lose_backgammon) of the side on roll, gammons including backgammons; when
    given, no evaluator runs. Otherwise `player`'s evaluator gives them (the neural net at
    0-ply, by the default evaluator, ``neural.default_evaluator``). `exact`: answer a position
    inside the bear-off databases exactly (True: money from the cubeful database, a match by
    solving the game at its score), or always by the model (False); the default None does the
    first unless `probabilities` are given (then the model runs on them). Raises
    InvalidPositionError (dice already rolled, game over, a bad id), ValueError (bad
    probabilities, a player without probabilities).
    """
    pos = resolve_pre_roll(position)
    p = check_probabilities(probabilities) if probabilities is not None else _probabilities_of(pos, player)
    ctx = pos.context
    x = _core.cube_efficiency_of(pos.board)
    # Given probabilities ask for the model on them; else a bear-off inside the databases
    # is answered exactly: a match by its solve at the score, money by the cubeful database.
    if exact is None:
        exact = probabilities is None
    solved = exact_match_analysis(pos) if exact else None
    if solved is not None:
        (cubeless, nd, dt, dp, m_nd, m_dt, m_dp, action, can_double) = solved[:9]
    else:
        tables = _exact_tables(pos) if exact else None
        (cubeless, nd, dt, dp, m_nd, m_dt, m_dp, action, can_double,
         exact) = _core.cube_analysis(p, x, **cube_state_args(ctx), board=pos.board,
                                      bearoff=tables)
    return CubeDecision(
        no_double=nd,
        double_take=dt,
        double_pass=dp,
        mwc=({"no_double": m_nd, "double_take": m_dt, "double_pass": m_dp}
             if ctx.match_length else None),
        action=action_words(action, ctx.cube_owner),
        can_double=can_double,
        double=action in DOUBLING,
        take=dt <= dp,
        too_good=action in _TOO_GOOD,
        cubeless_equity=cubeless,
        efficiency=None if exact else x,
        probabilities=tuple(float(v) for v in p),  # type: ignore[arg-type]
        exact=exact,
    )


def _exact_tables(pos: Position) -> _core.BearoffTables | None:
    """The bear-off tables with the cubeful database when `pos` is a money position inside
    it (the database is built on first use), else None."""
    if pos.context.match_length or not in_two_sided(pos.board):
        return None
    return default_database(cubeful=True).tables
