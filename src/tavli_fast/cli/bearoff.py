"""``tavli-bearoff``: bear-off figures of a position from the exact databases.

For each side inside the one-sided database: mean rolls to bear off, EPC (effective pip
count = mean rolls x 49/6), wastage (EPC - pip count) and the distribution of the number of
rolls; then the exact win probability of the side on roll when both sides are inside the
two-sided database, else the estimate from the one-sided distributions (marked approximate).
``--cubeful`` adds the cubeful two-sided database: the exact money equities of the side on
roll with the cube centred, owned by it and owned by its opponent (perfect checker and cube
play). ``--rebuild`` (re)builds the databases in the cache directory.

Exit status: 0 ok; 2 bad usage or bad input (one line on stderr); 1 an unusable database file.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Sequence

from ..game.position import Position
from ..play.bearoff import (
    DEFAULT_TWO_SIDED_CHECKERS,
    ROLLS_PER_EPC,
    BearoffDatabase,
    BearoffDatabaseError,
    _cubeful_path,
    _one_sided_path,
    _two_sided_path,
    cache_directory,
)
from . import OneLineParser, entry_point, print_error

PROG = "tavli-bearoff"


def build_parser() -> OneLineParser:
    p = OneLineParser(prog=PROG, description="Exact bear-off figures from the bear-off databases.")
    p.add_argument("--position", metavar="ID", help="a gnubg Position ID or an XGID")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--rebuild", action="store_true",
                   help="build the databases again (replacing any file in the cache)")
    p.add_argument("--cache-dir", metavar="DIR",
                   help="where the databases live (default: $TAVLI_FAST_CACHE or the user cache)")
    p.add_argument("--points", type=int, default=6, help="points of the one-sided database (6)")
    p.add_argument("--checkers", type=int, default=15,
                   help="checkers of the one-sided database (15)")
    p.add_argument("--two-sided", type=int, default=DEFAULT_TWO_SIDED_CHECKERS, metavar="N",
                   help=f"checkers a side of the two-sided database ({DEFAULT_TWO_SIDED_CHECKERS}; "
                   "0: none)")
    p.add_argument("--cubeful", action="store_true",
                   help="also the cubeful two-sided database (money equities with the cube; "
                   "built on first use, about 10 s and 300 MB for 9 checkers)")
    return p


@entry_point
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.position is None and not args.rebuild:
        return print_error(PROG, "give --position ID, --rebuild, or both")
    logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                        format=f"{PROG}: %(message)s")
    try:
        position = Position.from_id(args.position) if args.position is not None else None
        if args.rebuild:
            _rebuild(args)
        db = BearoffDatabase(args.cache_dir, args.points, args.checkers, args.two_sided,
                             cubeful=args.cubeful)
    except BearoffDatabaseError as e:
        print_error(PROG, e)
        return 1
    except (ValueError, OSError) as e:
        return print_error(PROG, e)
    if position is None:
        return 0
    try:
        report = describe(db, position)
    except ValueError as e:
        return print_error(PROG, e)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0


def _rebuild(args) -> None:
    directory = cache_directory(args.cache_dir)
    paths = [_one_sided_path(directory, args.points, args.checkers)]
    if args.two_sided:
        paths.append(_two_sided_path(directory, args.two_sided))
    if args.two_sided and args.cubeful:
        paths.append(_cubeful_path(directory, args.two_sided))
    for path in paths:
        path.unlink(missing_ok=True)
    t0 = time.perf_counter()
    BearoffDatabase(args.cache_dir, args.points, args.checkers, args.two_sided,
                    cubeful=args.cubeful)
    logging.getLogger("tavli_fast.play.bearoff").info(
        "rebuilt %s in %.1f s", ", ".join(str(p) for p in paths), time.perf_counter() - t0)


def describe(db, position) -> dict:
    """The figures of `position` as a JSON-ready dict (ValueError if neither side bears off)."""
    sides = {}
    for name, row in (("on_roll", position.board[0]), ("opponent", position.board[1])):
        counts = [int(c) for c in row[1:db.points + 1]]
        if row[db.points + 1:].any() or sum(counts) > db.checkers:
            continue
        sides[name] = _side(db, counts)
    if not sides:
        raise ValueError(f"neither side is in a bear-off (all checkers on points 1-{db.points})")
    report = {"position_id": position.position_id(), "points": db.points, "sides": sides}
    try:
        race = db.race(position)
    except ValueError:
        race = None
    if race is not None:
        report["race"] = {"win": race.win, "win_gammon": race.win_gammon,
                          "lose_gammon": race.lose_gammon, "exact": race.exact}
    if db.cubeful and race is not None and race.exact:
        eq = db.cubeful_equities(position)
        report["cubeful"] = {"centred": eq.centred, "owned": eq.owned,
                             "opponent_owns": eq.opponent_owns, "double_take": eq.double_take}
    return report


def _side(db, counts: list[int]) -> dict:
    dist = db.rolls(counts)
    mean = db.mean_rolls(counts)
    pips = sum((i + 1) * c for i, c in enumerate(counts))
    side = {"checkers": counts, "pips": pips, "mean_rolls": mean,
            "epc": mean * ROLLS_PER_EPC, "wastage": mean * ROLLS_PER_EPC - pips,
            "rolls": {k: float(p) for k, p in enumerate(dist) if p > 0}}
    if sum(counts) == 15 and db.checkers == 15:
        first = db.first_off(counts)
        side["first_off"] = {k: float(p) for k, p in enumerate(first) if p > 0}
    return side


def format_report(report: dict) -> str:
    lines = [f"Position ID {report['position_id']}"]
    for name, side in report["sides"].items():
        who = "side on roll" if name == "on_roll" else "opponent"
        lines.append(f"{who}: {side['checkers']}  pips {side['pips']}  "
                     f"mean rolls {side['mean_rolls']:.4f}  EPC {side['epc']:.2f}  "
                     f"wastage {side['wastage']:.2f}")
        lines.append("  rolls  P(exactly)  P(at most)")
        total = 0.0
        for k, p in side["rolls"].items():
            total += p
            lines.append(f"  {k:5d}  {p:10.6f}  {total:10.6f}")
        if "first_off" in side:
            lines.append("  first checker off: " + "  ".join(
                f"{k}: {p:.4f}" for k, p in side["first_off"].items()))
    race = report.get("race")
    if race:
        kind = "exact" if race["exact"] else "approximate (from one-sided distributions)"
        lines.append(f"side on roll wins: {race['win']:.6f} ({kind})")
        if not race["exact"]:
            lines.append(f"  wins a gammon {race['win_gammon']:.6f}, "
                         f"loses a gammon {race['lose_gammon']:.6f}")
    cubeful = report.get("cubeful")
    if cubeful:
        lines.append("money equities with the cube (exact, per unit of the cube, before the "
                     "roll and its cube action):")
        lines.append(f"  cube centred {cubeful['centred']:+.6f}   owned {cubeful['owned']:+.6f}"
                     f"   opponent owns {cubeful['opponent_owns']:+.6f}"
                     f"   double, take {cubeful['double_take']:+.6f}")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
