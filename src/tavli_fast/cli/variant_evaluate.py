"""``tavli-eval --game`` and ``tavli-hint --game``: the Plakoto or Fevga net's view (issue 44).

    tavli-eval --game plakoto --position start
    tavli-eval --game fevga --position 'x 24:14 20:1; o 24:15'
    tavli-hint --game plakoto --position 'x 24:14 13:1; o 24:15' --dice 64 --top 5

``--position``: ``start``, the game's text id or its readable form (``variant_text``).
``tavli-eval`` prints the board and the net's five estimates for the side on roll before it
rolls, with their points a game. ``tavli-hint`` lists the plays of the roll in notation,
best first: every play's 0-ply equity (points a game for the mover) and the 1-ply equity of
the best few (``--top``), ranked by 1 ply where it was computed. ``cli/evaluate.py`` hands
the command lines with ``--game`` here.
"""

from __future__ import annotations

import json

import numpy as np

from ..variants import require_variant_in_progress, variant_play_notation
from ..variants.neural import evaluate_variant, variant_net
from ..variants.position import variant_position
from ..variants.text import variant_text
from . import parse_dice, print_error, print_plays

FIGURES = ("win", "win_double", "win_mother", "lose_double", "lose_mother")


def _load(prog: str, args):
    """(position, net) or an exit status."""
    try:
        text = None if args.position.strip().lower() == "start" else args.position
        position = variant_position(args.game, text)
        require_variant_in_progress(position)
        net = variant_net(args.game, args.weights)
    except (ValueError, TypeError) as e:
        return print_error(prog, e)
    return position, net


def variant_eval(args) -> int:
    """tavli-eval for Plakoto / Fevga."""
    loaded = _load("tavli-eval", args)
    if isinstance(loaded, int):
        return loaded
    position, net = loaded
    p = evaluate_variant(args.game, position, net)
    report = {"game": args.game, "position_id": position.variant_id(),
              "position": variant_text(position), **p.to_dict()}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(position.draw())
    print(f" {report['position']}")
    print(f"{args.game.capitalize()}: the side on roll (X), before rolling")
    for k in FIGURES:
        if args.game == "fevga" and "mother" in k:
            continue
        print(f"  {k:<16} {report[k]:8.4f}")
    print(f"  {'equity':<16} {p.equity:+8.4f}   points a game")
    return 0


def variant_hint(args) -> int:
    """tavli-hint for Plakoto / Fevga: the plays of the roll by 0 and 1 ply."""
    loaded = _load("tavli-hint", args)
    if isinstance(loaded, int):
        return loaded
    position, net = loaded
    try:
        if args.dice is None:
            raise ValueError("--dice is needed with --game (no cube in Plakoto or Fevga, T1)")
        dice = parse_dice(args.dice)
        if args.top < 0:
            raise ValueError(f"--top must be 0 or more, not {args.top}")
    except ValueError as e:
        return print_error("tavli-hint", e)
    plays = variant_play_notation(args.game, position, *dice)
    boards = np.stack([p.position.core_board() for p in plays]).astype(np.int8)
    board, pinned = position.core_board(), position.pinned_mask()
    probs = net.play_probs(board, pinned, boards)
    zero = 2 * probs[:, 0] - 1 + probs[:, 1] - probs[:, 3]
    order = list(np.argsort(-zero, kind="stable"))
    one: dict[int, float] = {}
    top = order[:args.top]
    if top:
        values = net.play_1ply_equities(board, pinned, boards[top], 0)
        one = {int(i): float(v) for i, v in zip(top, values)}
    order = sorted(top, key=lambda i: -one[int(i)]) + order[len(top):]
    rows = [{"play": plays[i].notation, "equity_0ply": float(zero[i]),
             "equity_1ply": one.get(int(i)),
             **{k: float(v) for k, v in zip(FIGURES, probs[i])}} for i in order]
    report = {"game": args.game, "position_id": position.variant_id(), "dice": list(dice),
              "plays": rows}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print_plays(f"{args.game.capitalize()} {report['position_id']}, dice {dice[0]}{dice[1]} "
                f"(points a game for the mover)", rows)
    return 0
