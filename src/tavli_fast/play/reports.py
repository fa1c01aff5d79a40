"""The JSON documents of ``tavli-eval --json`` and ``tavli-hint --json``, built here once for
both of their faces: the commands print them and ``tavli-serve`` answers them (``/v1/eval``,
``/v1/hint``).

Backgammon (Portes) positions are valued by the backgammon net; with ``game`` ``"plakoto"`` or
``"fevga"`` the position is one of that game (``start``, its text id or its readable form)
valued by that game's net. Every document also carries ``board``: the position the engine
read, as plain data a page can draw (``board_report``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ..errors import check_dice
from ..game.position import BAR, OFF, Position
from ..game.resolve import resolve_position
from ..variants import require_variant_in_progress, variant_play_notation
from ..variants.neural import check_variant_evaluator, evaluate_variant, variant_net
from ..variants.position import variant_position
from ..variants.text import variant_text
from .cube import CubeDecision, cube_decision, gammon_prices
from .hint import check_ply, prices_report, ranked_plays
from .neural import Probabilities, evaluator

__all__ = ["NET_OUTPUTS", "VARIANT_OUTPUTS", "eval_report", "hint_report", "board_report",
           "load_position", "check_top", "probabilities_at"]

#: The backgammon net's five outputs, in its order (``Probabilities``' fields).
NET_OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
#: The Plakoto and Fevga nets' five outputs.
VARIANT_OUTPUTS = ("win", "win_double", "win_mother", "lose_double", "lose_mother")


def load_position(position: str, weights: str | None = None, game: str | None = None,
                  kind: str | None = None) -> tuple[Any, Any]:
    """(position, net): ``position`` read as the commands read ``--position`` (of ``game`` when
    given) and the net that values it (``weights``: a weights file, None the shipped net),
    by the evaluator ``kind`` (``neural.EVALUATORS``; None: the default one; the Plakoto and Fevga
    nets have float32 only). ValueError (InvalidPositionError, VariantIdError,
    NeuralNetError) for bad input."""
    check_variant_evaluator(game, kind)
    if game is None:
        pos, _ = resolve_position(position)
        return pos, evaluator(weights, kind=kind)
    text = None if position.strip().lower() == "start" else position
    pos = variant_position(game, text)
    require_variant_in_progress(pos)
    return pos, variant_net(game, weights)


def check_top(top: int) -> int:
    """``--top``: the plays that get the 1-ply look, 0 or more (ValueError if not)."""
    if isinstance(top, bool) or not isinstance(top, int) or top < 0:
        raise ValueError(f"--top must be 0 or more, not {top!r}")
    return top


def probabilities_at(position: Position, net: _core.NeuralNet, ply: int,
                     cache: _core.SearchCache | None = None) -> Probabilities:
    """The net's probabilities for the side on roll at ``ply`` (0, 1 or 2; in a match, the
    plays inside the look-ahead chosen at each side's gammon prices). `cache`: a SearchCache
    to keep the 2-ply search's positions in across calls (None: none; the same numbers).
    ValueError for a finished game at 1 or 2 ply."""
    if ply == 0:
        return Probabilities.from_array(net.evaluate(position.board))
    prices = gammon_prices(position.context)
    mine, theirs = prices if prices is not None else (None, None)
    return Probabilities.from_array(net.probabilities(position.board, ply, cache, prices=mine,
                                                      reply_prices=theirs))


def _cube(position: Position, probabilities: Probabilities) -> CubeDecision | None:
    """The cube analysis (exact in the bear-off databases, else the model on the net's
    probabilities), or None once dice are rolled."""
    if position.context.dice is not None:
        return None
    return cube_decision(position, probabilities=[getattr(probabilities, k) for k in NET_OUTPUTS],
                         exact=True)


def eval_report(position: str, *, weights: str | None = None, game: str | None = None,
                ply: int = 0, evaluator: str | None = None) -> dict[str, Any]:
    """``tavli-eval --json``: the net's five probabilities for the side on roll before it rolls
    (at ``ply``: 0, 1 or 2 rolls ahead), the cubeless equity and (backgammon) the cube analysis
    and cubeful equity on them; ``evaluator``: how the net values positions (None: the default one;
    ``"int16"``: the int16 evaluator, backgammon only)."""
    ply = check_ply(ply)
    if game is not None and ply:
        raise ValueError(f"--ply {ply}: the {game} net evaluates at 0 ply")
    pos, net = load_position(position, weights, game, evaluator)
    if game is not None:
        p = evaluate_variant(game, pos, net)
        return {"game": game, "position_id": pos.variant_id(), "position": variant_text(pos),
                **p.to_dict(), "board": board_report(pos, game)}
    probabilities = probabilities_at(pos, net, ply)
    cube = _cube(pos, probabilities)
    return {"position_id": pos.position_id(), "ply": ply, "evaluator": _kind(net),
            **{k: getattr(probabilities, k) for k in NET_OUTPUTS},
            "equity": probabilities.equity,
            "cubeful_equity": cube.cubeful_equity if cube is not None else None,
            "cube": cube.to_dict() if cube is not None else None,
            "board": board_report(pos)}


def hint_report(position: str, dice: tuple[int, int] | None = None, *, top: int = 5,
                weights: str | None = None, game: str | None = None,
                ply: int | None = None, evaluator: str | None = None) -> dict[str, Any]:
    """``tavli-hint --json``: with dice (given, or an XGID's), the plays of the roll best first
    (``plays``: 0-ply equity of each, 1-ply of the ``top`` best, at ``ply`` 2 the 2-ply equity
    of the best of those, and each play's 0-ply probabilities for the mover); before the roll,
    the cube analysis (``cube``) on the probabilities at ``ply``. ``ply`` None: 1 for the
    plays, 0 for the cube. ``evaluator``: how the net values positions (None: the default one;
    ``"int16"``: the int16 evaluator, backgammon only). ValueError for bad input (a finished
    game, top < 0, a bad ply, no dice in Plakoto or Fevga, an unknown evaluator)."""
    top = check_top(top)
    if ply is not None:
        ply = check_ply(ply)
    if dice is not None:
        dice = check_dice(*dice)
    if game is not None and ply not in (None, 1):
        raise ValueError(f"--ply {ply}: the {game} hint looks 0 and 1 ply ahead "
                         "(--ply is for backgammon)")
    pos, net = load_position(position, weights, game, evaluator)
    if game is not None:
        return _variant_hint(game, pos, net, dice, top)
    if dice is None and pos.context.dice is not None:
        dice = tuple(pos.context.dice)
    if dice is None:
        depth = ply or 0
        decision = _cube(pos, probabilities_at(pos, net, depth))
        return {"position_id": pos.position_id(), "xgid": pos.xgid(), "ply": depth,
                "evaluator": _kind(net), "cube": decision.to_dict(), "board": board_report(pos)}
    depth = 1 if ply is None else ply
    ranked = ranked_plays(pos, dice[0], dice[1], top=top, net=net, ply=depth)
    probabilities = _mover_probabilities(net, [board for _, board in ranked])
    plays = [{**play.to_dict(), **p} for (play, _), p in zip(ranked, probabilities)]
    return {"position_id": pos.position_id(), "dice": list(dice), "ply": depth,
            "evaluator": _kind(net), "plays": plays, "gammon_prices": prices_report(pos),
            "board": board_report(pos, dice=dice)}


def _kind(net: _core.NeuralNet) -> str:
    """The ``evaluator`` of a backgammon document: the one that valued its positions."""
    return "int16" if net.quantised else "float32"


def _mover_probabilities(net: _core.NeuralNet, boards: list[np.ndarray]) -> list[dict[str, float]]:
    """The mover's 0-ply probabilities after each play (``boards``: sides not switched): the
    opponent's on roll, turned round; a play that bears off the last checker wins outright."""
    over = [bool(board[0, OFF] == 15) for board in boards]
    going = [board[::-1] for board, done in zip(boards, over) if not done]
    theirs = iter(net.evaluate_many(np.ascontiguousarray(np.stack(going), dtype=np.int8))
                  if going else ())
    out = []
    for board, done in zip(boards, over):
        if done:
            out.append({"win": 1.0, "win_gammon": float(board[1, OFF] == 0), "win_backgammon": 0.0,
                        "lose_gammon": 0.0, "lose_backgammon": 0.0})
            continue
        t = next(theirs)
        out.append({"win": 1.0 - float(t[0]), "win_gammon": float(t[3]),
                    "win_backgammon": float(t[4]), "lose_gammon": float(t[1]),
                    "lose_backgammon": float(t[2])})
    return out


def _variant_hint(game: str, pos: Any, net: Any, dice: tuple[int, int] | None,
                  top: int) -> dict[str, Any]:
    """The plays of a Plakoto or Fevga roll by the game's net, 0 ply and 1 ply."""
    if dice is None:
        raise ValueError("--dice is needed with --game (no cube in Plakoto or Fevga, T1)")
    plays = variant_play_notation(game, pos, *dice)
    boards = np.stack([p.position.core_board() for p in plays]).astype(np.int8)
    board, pinned = pos.core_board(), pos.pinned_mask()
    probs = net.play_probs(board, pinned, boards)
    zero = 2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3]
    order = list(np.argsort(-zero, kind="stable"))
    one: dict[int, float] = {}
    best = order[:top]
    if best:
        values = net.play_1ply_equities(board, pinned, boards[best], 0)
        one = {int(i): float(v) for i, v in zip(best, values)}
    order = sorted(best, key=lambda i: -one[int(i)]) + order[len(best):]
    rows = [{"play": plays[i].notation, "equity_0ply": float(zero[i]),
             "equity_1ply": one.get(int(i)),
             **{k: float(v) for k, v in zip(VARIANT_OUTPUTS, probs[i])}} for i in order]
    return {"game": game, "position_id": pos.variant_id(), "dice": list(dice), "plays": rows,
            "board": board_report(pos, game, dice)}


def board_report(position: Any, game: str | None = None,
                 dice: tuple[int, int] | None = None) -> dict[str, Any]:
    """The position as plain data for a drawing, from the mover's side: ``mover`` and
    ``opponent`` hold 26 counts each in the mover's numbering (index 0 borne off, 1..24 the
    points, 25 the bar; the opponent's checkers on the mover's point p), ``pips`` both pip
    counts, and for backgammon the cube (value, owner ``centre|me|opponent``), the score and
    the match length; for Plakoto and Fevga ``pinned``, the mover's points where each side's
    checker is pinned (Plakoto)."""
    if game is None:
        board = position.board
        context = position.context
        mine = [int(n) for n in board[0]]
        theirs = [int(board[1, OFF])] + [int(board[1, 25 - p]) for p in range(1, 25)] + [
            int(board[1, BAR])]
        rolled = dice if dice is not None else context.dice
        return {"game": "backgammon", "mover": mine, "opponent": theirs,
                "pips": list(position.pip_counts()),
                "cube": {"value": context.cube_value, "owner": context.cube_owner},
                "score": list(context.score), "match_length": context.match_length,
                "crawford": context.crawford,
                "dice": list(rolled) if rolled is not None else None}
    mine = [position.me_off, *position.me, 0]
    theirs = [position.opp_off, *(position.opp[position.their_point(p) - 1] for p in range(1, 25)), 0]
    pinned = {"mover": sorted(position.me_pinned),
              "opponent": sorted(position.their_point(p) for p in position.opp_pinned)}
    return {"game": game, "mover": [int(n) for n in mine], "opponent": [int(n) for n in theirs],
            "pips": [int(n) for n in position.pips()], "cube": None, "score": None,
            "match_length": 0, "crawford": False, "pinned": pinned,
            "dice": list(dice) if dice is not None else None}
