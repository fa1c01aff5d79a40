"""Print the issue 10 rollout figures (Markdown) on stdout, in one run:

    python bench/perf_vr.py [--games0 400] [--games1 40] [--repeats 3]

One process, one thread, CPU time (``time.process_time``), so every rate is per core:

- neural 0-ply and 1-ply rollout games/s from the start (``rollout(..., jobs=1, vr=False)``,
  as ``tavli-rollout`` plays them: bear-offs by the databases, truncation at the database),
  medians of ``--repeats`` runs, beside GNU Backgammon's C++ rollout speeds quoted in issue 10
  for this machine (178-208 games/s at 0 ply, 1.7 at 1 ply) and gnubg_nn's 0-ply self-play in
  a Python loop, timed here as the in-run anchor;
- the equity SE per CPU-second with and without variance reduction, at 1 ply and at 0 ply,
  on the 15 positions after each opening roll's best play (by the 1-ply player): each
  position rolled out with ``vr=False`` and with ``vr=True`` (its own run, so the VR run pays
  for its luck tables). "SE x sqrt(CPU s)" is the SE a one-second run would reach; the ratio
  plain / VR of it is the gain (target >= 3x at 1 ply).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from perf_neural import gnubg_self_play  # noqa: E402

ISSUE_GNUBG = {0: "178-208", 1: "1.7"}


def opening_positions() -> list[tuple[str, str]]:
    """(roll, Position ID) after the 1-ply player's play of each of the 15 opening rolls,
    the opponent on roll."""
    import tavli_fast as tf
    from tavli_fast.game.position import Position

    start = Position.initial().position_id()
    out = []
    for a in range(1, 7):
        for b in range(1, a):
            after = Position.from_id(tf.choose(start, a, b, "neural-1ply"))
            out.append((f"{a}-{b}", after.sides_switched().position_id()))
    return out


def cpu(run):
    c0 = time.process_time()
    value = run()
    return value, time.process_time() - c0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games0", type=int, default=400, help="games per position at 0 ply")
    ap.add_argument("--games1", type=int, default=40, help="games per position at 1 ply")
    ap.add_argument("--speed-games", type=int, default=(2000, 40), nargs=2, metavar=("G0", "G1"),
                    help="games of the speed runs from the start at 0 and 1 ply")
    ap.add_argument("--gnubg-games", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)

    import tavli_fast as tf

    print(f"Command: `python bench/perf_vr.py {' '.join(argv if argv is not None else sys.argv[1:])}`\n")
    # Speed from the start.
    print("| players | games/s, one core (median) | GNU Backgammon C++ rollout (issue 10) | ratio |")
    print("|---|---:|---:|---:|")
    speeds = {}
    for ply, games in zip((0, 1), args.speed_games):
        times = []
        for rep in range(args.repeats):
            _, t = cpu(lambda: tf.rollout("start", games, players="neural", ply=ply, seed=1,
                                          jobs=1, vr=False))
            times.append(t)
        speeds[ply] = games / statistics.median(times)
        low = float(ISSUE_GNUBG[ply].split("-")[-1])
        print(f"| neural {ply}-ply | {speeds[ply]:,.1f} | {ISSUE_GNUBG[ply]} | "
              f"{speeds[ply] / low:.1f} x the highest |")
    plies, t = cpu(lambda: gnubg_self_play(args.gnubg_games))
    print(f"| gnubg_nn 0-ply self-play, Python loop over `best_move` (anchor) | "
          f"{args.gnubg_games / t:,.1f} | | |")

    # SE per CPU-second with and without VR.
    positions = opening_positions()
    for ply, games in ((1, args.games1), (0, args.games0)):
        print(f"\n{ply}-ply, {games} games a position and setting, seed 1:\n")
        print("| roll | position | equity plain | equity VR | SE x sqrt(CPU s), plain | "
              "SE x sqrt(CPU s), VR | gain |")
        print("|---|---|---:|---:|---:|---:|---:|")
        gains, cost_plain, cost_vr = [], [], []
        for roll, pid in positions:
            rp, tp = cpu(lambda: tf.rollout(pid, games, players="neural", ply=ply, seed=1,
                                            jobs=1, vr=False))
            rv, tv = cpu(lambda: tf.rollout(pid, games, players="neural", ply=ply, seed=1,
                                            jobs=1, vr=True))
            sp = rp.se["equity"] * math.sqrt(tp)
            sv = rv.vr["se"]["equity"] * math.sqrt(tv)
            gains.append(sp / sv)
            cost_plain.append(sp * sp)
            cost_vr.append(sv * sv)
            print(f"| {roll} | {pid} | {rp.equity:+.3f} ± {rp.se['equity']:.3f} | "
                  f"{rv.vr['equity']:+.3f} ± {rv.vr['se']['equity']:.3f} | {sp:.4f} | {sv:.4f} | "
                  f"{sp / sv:.2f} x |")
        overall = math.sqrt(sum(cost_plain) / sum(cost_vr))
        print(f"\n{ply}-ply: SE per CPU-second with VR **{overall:.2f} x** better than without "
              f"over the 15 positions (variance x time summed; median per position "
              f"{statistics.median(gains):.2f} x; target at 1 ply >= 3 x). Mean SE x sqrt(CPU s): "
              f"plain {math.sqrt(statistics.mean(cost_plain)):.4f}, VR "
              f"{math.sqrt(statistics.mean(cost_vr)):.4f}.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
