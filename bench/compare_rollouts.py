"""Time two builds' rollouts against each other: games per CPU-second of one player.

    python bench/compare_rollouts.py bac9400 HEAD [--player neural-1ply] [--vr] \
        [--evaluator int16] [--games 300] [--rounds 6]

The builds and rounds are compare_builds.py's: each revision exported and built in place,
then both run at once, one on each core, swapped every round.  Each run is a rollout of the
start (``tavli_fast.rollout``, ``jobs=1``, seed 1, luck-adjusted with ``--vr``, by the
evaluator ``--evaluator``) in CPU time,
after a warm-up of a tenth of the games.  Printed: each build's median games per CPU-second,
and the median over the rounds of the second build's speed against the first's (least,
greatest).  Both builds must give the same equity (the same games), or the script says so.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_builds import build_both, revisions_parser, run_rounds, speed_up  # noqa: E402

CHILD = r"""
import json, sys, time
import tavli_fast as tf
player, games, vr, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "vr", sys.argv[4]
opts = dict(players=(player, player), jobs=1, vr=vr, evaluator=kind)
tf.rollout("start", max(games // 10, 1), seed=2, **opts)
t = time.process_time()
r = tf.rollout("start", games, seed=1, **opts)
seconds = time.process_time() - t
print(json.dumps({"file": tf.__file__, "seconds": seconds, "equity": r.equity}))
"""


def main(argv: list[str] | None = None) -> int:
    parser = revisions_parser(__doc__.splitlines()[0], rounds=6)
    parser.add_argument("--player", default="neural-1ply")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--vr", action="store_true", help="luck-adjusted rollouts")
    parser.add_argument("--evaluator", choices=("float32", "int16"), default="float32")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.games < 1:
        parser.error("--rounds and --games must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        srcs = build_both(args.a, args.b, Path(tmp))
        reports = run_rounds(srcs, args.rounds, CHILD,
                             [args.player, str(args.games), "vr" if args.vr else "plain",
                              args.evaluator])
    seconds = {rev: [r["seconds"] for r in done] for rev, done in reports.items()}
    equities = {rev: {r["equity"] for r in done} for rev, done in reports.items()}
    kind = "luck-adjusted" if args.vr else "plain"
    print(f"{args.player} rollouts of the start, {kind}, {args.evaluator}, {args.games} games "
          f"a run, {args.rounds} rounds (CPU time, one core each)")
    for rev, times in seconds.items():
        print(f"{rev:>12s}: {args.games / statistics.median(times):,.1f} games / CPU-s")
    print(f"{args.b} against {args.a}: {speed_up(seconds[args.a], seconds[args.b])} x")
    if equities[args.a] != equities[args.b]:
        print(f"the equities differ: {sorted(equities[args.a])} against "
              f"{sorted(equities[args.b])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
