"""``tavli-eval`` and ``tavli-hint``: the neural net's view of a position.

    tavli-eval --position 4HPwATDgc/ABMA        # five probabilities and the cubeless equity
    tavli-hint --position 4HPwATDgc/ABMA --dice 31
    tavli-hint --position 'XGID=...:52:...'      # an XGID's own dice are used

``tavli-eval`` evaluates the side on roll before it rolls (0 ply): the five probabilities,
the cubeless equity and the cubeful equity (the cube, score and match length of the XGID or
``PositionID:MatchID`` are used). ``tavli-hint`` on a position before the roll prints the
cube analysis as gnubg does (cubeless equity, no double, double/take, double/pass and the
proper action; ``cube.py``); with dice (``--dice`` or the XGID's) it lists the plays of the
roll, best first: every play's 0-ply equity, and the 1-ply equity of the best few
(``--top``, default 5), ranked by 1 ply where it was computed. Play equities are cubeless,
for the mover; at a match score (an XGID's or Match ID's), with gammons and backgammons at
the score's prices for each side, as the neural players weigh them in a match.
``--rollout [TRIALS]`` rolls the candidate plays out side by side on common dice instead, as
``tavli-rollout --dice`` does (``cli/plays.py``).
``--weights FILE`` uses another weights file than the shipped one. ``--game plakoto|fevga``
values a position of that game by its net instead (``cli/variant_evaluate.py``).

Exit status: 0 ok; 2 bad usage or bad input, an unusable weights file included (one line on
stderr).
"""

from __future__ import annotations

import json
import sys
from typing import Sequence

from ..errors import VariantIdError
from ..jobs.plays import DEFAULT_TRIALS
from ..play.reports import NET_OUTPUTS as FIGURES
from ..play.reports import eval_report, hint_report
from . import (OneLineParser, UsageError, add_executor_options, entry_point, executor_settings,
               parse_count, parse_dice, print_error, print_plays, run_command)
from .plays import add_plays_options, run_plays
from .rollout import _seed
from .variant_evaluate import print_variant_eval, print_variant_hint


def _parser(prog: str, description: str) -> OneLineParser:
    p = OneLineParser(prog=prog, description=description)
    p.add_argument("--position", metavar="ID", required=True,
                   help="'start', a gnubg Position ID, PositionID:MatchID or an XGID (the 'XGID=' "
                   "prefix may be left out; write --position=-b---... when the id starts with '-')")
    p.add_argument("--weights", metavar="FILE", help="a weights file (default: the shipped net)")
    p.add_argument("--game", choices=("plakoto", "fevga"), default=None,
                   help="a Plakoto or Fevga position (start, its text id or 'x 24:14 13:1; o "
                   "24:15'), valued by that game's net (cli/variant_evaluate.py)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    return p


def _report(prog: str, build, *args, **kwargs):
    """The command's JSON document (``play/reports.py``), or the exit status of bad input."""
    try:
        return build(*args, **kwargs)
    except VariantIdError as e:
        return print_error(prog, e.with_advice(
            f"{prog} reads backgammon (Portes) positions; the net does not play {e.game} "
            f"(tavli-rollout --game {e.game} rolls it out)"))
    except (ValueError, TypeError) as e:
        return print_error(prog, e)


@entry_point
def eval_main(argv: Sequence[str] | None = None) -> int:
    args = _parser("tavli-eval", "The neural net's probabilities for the side on roll.").parse_args(argv)
    report = _report("tavli-eval", eval_report, args.position, weights=args.weights, game=args.game)
    if isinstance(report, int):
        return report
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.game:
        print_variant_eval(args.game, report)
    else:
        print(f"Position ID {report['position_id']} (side on roll, before rolling)")
        for k in FIGURES:
            print(f"  {k:<16} {report[k]:8.4f}")
        print(f"  {'equity':<16} {report['equity']:+8.4f}   cubeless, money")
        cube = report["cube"]
        if cube is not None:
            scale = " (match: MWC mapped to the cube)" if cube["mwc"] else ""
            print(f"  {'cubeful equity':<16} {cube['cubeful_equity']:+8.4f}   {cube['action']}{scale}")
            if cube["mwc"]:
                mwc = cube["mwc"]
                best = min(mwc["double_take"], mwc["double_pass"]) if cube["double"] else mwc["no_double"]
                print(f"  {'cubeful MWC':<16} {best:8.4f}")
    return 0


def print_cube(decision: dict) -> None:
    """The cube analysis (``CubeDecision.to_dict()``) in gnubg's layout."""
    match = decision["mwc"] is not None
    if decision["exact"]:
        print("Cube analysis (exact: cubeful bear-off database, perfect play)")
    else:
        print(f"Cube analysis (0-ply, cube efficiency {decision['efficiency']:.3f})")
    print(f"  Cubeless equity   {decision['cubeless_equity']:+8.4f}"
          + ("   (normalised: gammons at their match price)" if match else ""))
    rows = (("No double", "no_double"), ("Double, take", "double_take"),
            ("Double, pass", "double_pass"))
    best = decision["cubeful_equity"]
    for i, (label, key) in enumerate(rows, 1):
        eq = decision[key]
        mark = f"({eq - best:+.4f})" if abs(eq - best) > 1e-12 else ""
        mwc = f"   MWC {decision['mwc'][key]:.4f}" if match else ""
        print(f"  {i}. {label:<15}{eq:+8.4f} {mark:>10}{mwc}")
    print(f"  Proper cube action: {decision['action']}")


@entry_point
def hint_main(argv: Sequence[str] | None = None) -> int:
    p = _parser("tavli-hint", "The cube decision before the roll, or the plays of a roll, by the "
                "neural net (0 and 1 ply).")
    p.add_argument("--dice", help="the roll, e.g. 31 (default: the XGID's dice; with no dice at "
                   "all, the cube decision before the roll)")
    p.add_argument("--top", type=int, default=5, help="plays that get the 1-ply look (default 5)")
    p.add_argument("--rollout", type=parse_count, nargs="?", const=DEFAULT_TRIALS, default=None,
                   metavar="TRIALS", help="roll out the candidate plays side by side on common "
                   f"dice, TRIALS a play at most (default {DEFAULT_TRIALS:,}); as tavli-rollout --dice")
    rollout = p.add_argument_group("with --rollout")
    add_plays_options(rollout, with_dice=False)
    for option, kwargs in (("--seed", {"type": _seed}), ("--cubeful", {"action": "store_true"}),
                           ("--checkpoint", {}), ("--resume", {}), ("--no-progress", {"action": "store_true"})):
        rollout.add_argument(option, **kwargs)
    add_executor_options(rollout)
    args = p.parse_args(argv)
    if args.rollout is not None or args.resume is not None:
        return run_command("tavli-hint", p, _hint_rollout, argv)
    unused = [o for o, v in (("--candidates", args.candidates), ("--plays", args.plays),
                             ("--plot", args.plot), ("--seed", args.seed)) if v is not None]
    if unused or args.cubeful or args.no_stop or args.stop_when_decided is not None:
        return print_error("tavli-hint", f"{', '.join(unused) or 'that option'} goes with --rollout")
    try:
        dice = parse_dice(args.dice) if args.dice is not None else None
    except ValueError as e:
        return print_error("tavli-hint", e)
    report = _report("tavli-hint", hint_report, args.position, dice, top=args.top,
                     weights=args.weights, game=args.game)
    if isinstance(report, int):
        return report
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.game:
        print_variant_hint(args.game, report)
    elif "cube" in report:
        print(f"Position ID {report['position_id']}   {report['xgid']}")
        print_cube(report["cube"])
    else:
        dice = report["dice"]
        basis = ("at the score's gammon prices" if report["gammon_prices"] else "money")
        print_plays(f"Position ID {report['position_id']}, dice {dice[0]}{dice[1]} "
                    f"(cubeless equity for the mover, {basis})", report["plays"])
    return 0


def _hint_rollout(args) -> int:
    """tavli-hint --rollout: the candidate plays rolled out (tavli-rollout --dice's job)."""
    if args.game:
        raise UsageError("--rollout: the candidate plays are rolled out for backgammon and Portes")
    settings = {"position": args.position, "dice": args.dice, "trials": args.rollout,
                "seed": args.seed, "cubeful": True if args.cubeful else None,
                "weights": args.weights}
    return run_plays("tavli-hint", args, settings, executor_settings(args))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(eval_main())
