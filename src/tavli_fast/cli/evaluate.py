"""``tavli-eval`` and ``tavli-hint``: the neural net's view of a position.

    tavli-eval --position 4HPwATDgc/ABMA        # five probabilities and the cubeless equity
    tavli-hint --position 4HPwATDgc/ABMA --dice 31
    tavli-hint --position 'XGID=...:52:...'      # an XGID's own dice are used

``tavli-eval`` evaluates the side on roll before it rolls (0 ply; ``--ply 1`` or ``2``: the
mean over its 36 rolls of the position after its best play, valued one ply less): the five
probabilities, the cubeless equity and the cubeful equity (the cube, score and match length
of the XGID or ``PositionID:MatchID`` are used). ``tavli-hint`` on a position before the
roll prints the cube analysis as gnubg does (cubeless equity, no double, double/take,
double/pass and the proper action; ``cube.py``), on the probabilities at ``--ply`` (default
0); with dice (``--dice`` or the XGID's) it lists the plays of the roll, best first: every
play's 0-ply equity, the 1-ply equity of the best few (``--top``, default 5), and with
``--ply 2`` the 2-ply equity of the best of those (at most 3, within 0.10 of the best by 1
ply: ``hint.FILTER_2PLY``), ranked by the deepest ply computed (``--ply 0``: 0 ply only).
Play equities are cubeless, for the mover; at a match score (an XGID's or Match ID's), with
gammons and backgammons at the score's prices for each side, as the neural players weigh
them in a match (also the plays chosen inside the look-ahead).
``--rollout [TRIALS]`` rolls the candidate plays out side by side on common dice instead, as
``tavli-rollout --dice`` does (``cli/plays.py``; ``--reply-filter KEEP``: its ``neural-1ply``
players' pre-filter of replies, as there).
``--weights FILE`` uses another weights file than the shipped one; ``--evaluator int16``
values positions by the int16 evaluator (the hint and ``--rollout`` alike; backgammon
only). ``--game plakoto|fevga`` values a position of that game by its net instead
(``cli/variant_evaluate.py``).

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
from . import (OneLineParser, UsageError, add_executor_options, add_force_option,
               add_evaluator_option, add_reply_filter_option, entry_point, executor_settings,
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
    add_evaluator_option(p)
    p.add_argument("--game", choices=("plakoto", "fevga"), default=None,
                   help="a Plakoto or Fevga position (start, its text id or 'x 24:14 13:1; o "
                   "24:15'), valued by that game's net (cli/variant_evaluate.py)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    return p


def _add_ply(p: OneLineParser, default: int, what: str) -> None:
    p.add_argument("--ply", type=int, choices=(0, 1, 2), default=default,
                   help=f"how many rolls the net looks ahead: 0, 1 or 2 ({what}; default {default})")


def build_eval_parser() -> OneLineParser:
    parser = _parser("tavli-eval", "The neural net's probabilities for the side on roll.")
    _add_ply(parser, 0, "2 looks two rolls ahead, as gnubg's 2-ply")
    return parser


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
    args = build_eval_parser().parse_args(argv)
    report = _report("tavli-eval", eval_report, args.position, weights=args.weights,
                     game=args.game, ply=args.ply, evaluator=args.evaluator)
    if isinstance(report, int):
        return report
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.game:
        print_variant_eval(args.game, report)
    else:
        print(f"Position ID {report['position_id']} (side on roll, before rolling; {args.ply}-ply"
              f"{_by(report)})")
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


def print_cube(decision: dict, ply: int = 0) -> None:
    """The cube analysis (``CubeDecision.to_dict()``) in gnubg's layout (the model on the
    ``ply``-ply probabilities, or the exact figures of the bear-off databases)."""
    match = decision["mwc"] is not None
    if decision["exact"]:
        source = "bear-off solved at the match score" if match else "cubeful bear-off database"
        print(f"Cube analysis (exact: {source}, perfect play)")
    else:
        print(f"Cube analysis ({ply}-ply, cube efficiency {decision['efficiency']:.3f})")
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


def build_hint_parser() -> OneLineParser:
    p = _parser("tavli-hint", "The cube decision before the roll, or the plays of a roll, by the "
                "neural net (0, 1 and 2 ply).")
    p.add_argument("--dice", help="the roll, e.g. 31 (default: the XGID's dice; with no dice at "
                   "all, the cube decision before the roll)")
    p.add_argument("--top", type=int, default=5, help="plays that get the 1-ply look (default 5)")
    _add_ply(p, 1, "the plays: 2 looks at the best of the 1-ply ones two rolls ahead; the cube "
             "decision before the roll: the probabilities at that ply, default 0 there")
    p.set_defaults(ply=None)
    p.add_argument("--rollout", type=parse_count, nargs="?", const=DEFAULT_TRIALS, default=None,
                   metavar="TRIALS", help="roll out the candidate plays side by side on common "
                   f"dice, TRIALS a play at most (default {DEFAULT_TRIALS:,}); as tavli-rollout --dice")
    rollout = p.add_argument_group("with --rollout")
    add_plays_options(rollout, with_dice=False)
    rollout.add_argument("--seed", type=_seed,
                         help="master seed of the rollout (default: random, always printed)")
    rollout.add_argument("--cubeful", action="store_true",
                         help="play the position's cube (money or match) in every game and rank "
                         "the plays by cubeful equity")
    add_reply_filter_option(rollout)
    rollout.add_argument("--checkpoint", metavar="FILE", help="keep the rollout's progress in FILE (JSON)")
    rollout.add_argument("--resume", metavar="FILE",
                         help="continue the candidate-play rollout saved in FILE (its settings; "
                         "keeps saving to it)")
    rollout.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_force_option(rollout)
    add_executor_options(rollout)
    return p


@entry_point
def hint_main(argv: Sequence[str] | None = None) -> int:
    p = build_hint_parser()
    args = p.parse_args(argv)
    if args.rollout is not None or args.resume is not None:
        return run_command("tavli-hint", p, _hint_rollout, argv)
    unused = [o for o, v in (("--candidates", args.candidates), ("--plays", args.plays),
                             ("--plot", args.plot), ("--seed", args.seed),
                             ("--reply-filter", args.reply_filter)) if v is not None]
    if unused or args.cubeful or args.no_stop or args.stop_when_decided is not None:
        return print_error("tavli-hint", f"{', '.join(unused) or 'that option'} goes with --rollout")
    try:
        dice = parse_dice(args.dice) if args.dice is not None else None
    except ValueError as e:
        return print_error("tavli-hint", e)
    report = _report("tavli-hint", hint_report, args.position, dice, top=args.top,
                     weights=args.weights, game=args.game, ply=args.ply,
                     evaluator=args.evaluator)
    if isinstance(report, int):
        return report
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.game:
        print_variant_hint(args.game, report)
    elif "cube" in report:
        print(f"Position ID {report['position_id']}   {report['xgid']}{_by(report)}")
        print_cube(report["cube"], report["ply"])
    else:
        _print_ranked(report)
    return 0


def _print_ranked(report: dict) -> None:
    """The plays of a roll ranked by the net, as text (``report``: tavli-hint's JSON)."""
    basis = ("at the score's gammon prices" if report["gammon_prices"] else "money")
    d1, d2 = report["dice"]
    print_plays(f"Position ID {report['position_id']}, dice {d1}{d2} "
                f"(cubeless equity for the mover, {basis}{_by(report)})", report["plays"])


def _by(report: dict) -> str:
    """The evaluator named in a text report when it is not the default float32 one."""
    return ", int16 evaluator" if report.get("evaluator") == "int16" else ""


def _print_hint_first(args) -> None:
    """tavli-hint --rollout's text report starts with the hint itself: the plays ranked by
    the net (0 and 1 ply), so the rollout's table below can be read against it. Input the
    hint cannot read is left to the rollout, which reports it (one line, exit status 2)."""
    try:
        dice = parse_dice(args.dice) if args.dice is not None else None
        report = hint_report(args.position, dice, top=args.top, weights=args.weights,
                             evaluator=args.evaluator)
    except ValueError:
        return
    if "plays" not in report:           # no roll: the rollout reports it
        return
    _print_ranked(report)
    print()
    print("Rolled out (the candidate plays on common dice):")
    sys.stdout.flush()


def _hint_rollout(args) -> int:
    """tavli-hint --rollout: the hint (text only; --json prints the rollout's one document),
    then the candidate plays rolled out (tavli-rollout --dice's job)."""
    if args.game:
        raise UsageError("--rollout: the candidate plays are rolled out for backgammon and Portes")
    settings = {"position": args.position, "dice": args.dice, "trials": args.rollout,
                "seed": args.seed, "cubeful": True if args.cubeful else None,
                "weights": args.weights, "reply_filter": args.reply_filter,
                "evaluator": args.evaluator}
    first = None if args.resume is not None or args.json else (lambda: _print_hint_first(args))
    return run_plays("tavli-hint", args, settings, executor_settings(args), preface=first)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(eval_main())
