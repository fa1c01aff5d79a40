"""A proxy for issue 43's target "on hidden positions rolled out at depth by GNU Backgammon, the
best play agrees wherever the published gap exceeds 0.02, at default settings, within 10
minutes each on 2 cores":

    python bench/plays_reference.py [--positions 4] [--trials N] [--seed 1] [--jobs 2]
                                    [--oracle-plies 2] [--only-clear]

We do not have those hidden positions nor gnubg's rollouts of them. The proxy: ``--positions``
positions of ``../shared/data/positions/contact.csv`` (wildbg's contact set), each with a roll
drawn with ``--seed`` (positions whose roll has fewer than two distinct plays are skipped;
with ``--only-clear`` also those where gnubg's gap is at most 0.02, which the target does not
count, so that every rollout counts), and as the reference GNU Backgammon's own ranking of
every legal play by its cubeless evaluation at ``--oracle-plies`` plies (default 2, gnubg's "world class" depth), through the ``gnubg`` Python
package (a test-only oracle, never imported by tavli_fast): ``gnubg.evaluate`` with
``eval_context(cubeful=0, plies, deterministic=1, prune=0, noise=0)`` of the position after
each of our legal plays (no move filter, so every play is valued at full depth; the same
numbers as ``gnubg.find_best_moves`` gives the plays its filter keeps, whose move tuples lose
a bear-off's "off" and so cannot name every play). The position gnubg reads from the XGID is
checked against ours. A 2-ply evaluation is not a rollout: where it and a rollout disagree, either may be wrong, so a
disagreement here is a position to look at, not proof of an error.

For each position our ``rollout_plays(position, dice, jobs=--jobs, seed=--seed)`` runs at its
default settings (candidates screened by the net at 1 ply, cubeless, luck-adjusted 0-ply
rollouts on common dice, up to DEFAULT_TRIALS a play, stop when decided), ``--trials`` to
change the trials only. Printed per position: gnubg's best play and its gap to gnubg's second,
our best play with its paired lead over our second (and SE), whether gnubg's best was among our
candidates and where we rank it, gnubg's equity loss of our best play (by gnubg's evaluation),
and the wall time of our rollout (target: 10 minutes each on 2 cores; the load average is
printed, the cores are shared). Then the counts: agreement where gnubg's gap exceeds 0.02,
and overall.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
# ../shared/data/positions relative to the repository root; TAVLI_BENCH_POSITIONS overrides.
POSITIONS_DIR = Path(
    os.environ.get("TAVLI_BENCH_POSITIONS", REPO.parent / "shared" / "data" / "positions")
)
ROLLS = tuple((a, b) for a in range(1, 7) for b in range(1, 7))  # as dice fall
GAP = 0.02  # the target's threshold on the reference's gap between its best two plays
TIME_LIMIT_S = 600.0

# The gnubg oracle helpers of the tests (a test-only dependency, as here).
sys.path.insert(0, str(REPO / "tests"))
from gnubg_cube import gnubg_output  # noqa: E402


def drawn_positions(seed: int):
    """(Position ID, roll) pairs from contact.csv in an order drawn with ``seed``, each roll
    with at least two distinct plays (the roll as (high, low))."""
    from tavli_fast.game.position import Position

    ids = [line.strip() for line in (POSITIONS_DIR / "contact.csv").read_text().splitlines()
           if line.strip()]
    rng = np.random.default_rng(seed)
    for i in rng.permutation(len(ids)):
        d1, d2 = ROLLS[int(rng.integers(36))]
        if len(Position.from_position_id(ids[i]).plays(d1, d2)) >= 2:
            yield ids[i], (max(d1, d2), min(d1, d2))


def gnubg_board(position) -> list[list[int]]:
    """A Position's board as gnubg wants it: [the opponent's 25 entries, the side on roll's]
    (entries 0..23 = points 1..24, 24 = bar)."""
    board = position.board
    return [[int(c) for c in board[1, 1:26]], [int(c) for c in board[0, 1:26]]]


def gnubg_ranking(position, dice: tuple[int, int], plies: int) -> list[tuple[str, float, str]]:
    """Every legal play ranked by gnubg's cubeless evaluation at ``plies`` of the position after
    it: (our notation, the mover's equity, the Position ID after the play with the opponent on
    roll, as rollout_plays gives it), best first."""
    import gnubg

    from tavli_fast.game.position import Position

    with_dice = Position(position.board, replace(position.context, dice=dice))
    gnubg.set_gnubg_id(with_dice.xgid())
    read = gnubg.board()
    if [list(read[0]), list(read[1])] != gnubg_board(position):
        raise AssertionError(f"gnubg read another board from {with_dice.xgid()}")
    cube = gnubg.cube_info()
    context = gnubg.eval_context(0, plies, 1, 0, 0.0)
    ranked = []
    for play in position.plays(*dice):
        after = play.position.sides_switched()  # the opponent on roll
        equity = -gnubg.evaluate(gnubg_board(after), cube, context)[5]
        ranked.append((play.notation, float(equity), after.position_id()))
    return sorted(ranked, key=lambda r: -r[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=4)
    ap.add_argument("--trials", type=int, default=None,
                    help="trials a play at most (default: rollout_plays' default)")
    ap.add_argument("--seed", type=int, default=1, help="draws the positions and rolls; the rollouts' seed")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--oracle-plies", type=int, default=2, choices=(0, 1, 2, 3))
    ap.add_argument("--only-clear", action="store_true",
                    help=f"roll out only positions where gnubg's gap exceeds {GAP} (the ones "
                         "the target counts); the others drawn are skipped and counted")
    args = ap.parse_args(argv)

    import tavli_fast as tf
    from tavli_fast.game.position import Position
    from tavli_fast.jobs.plays import DEFAULT_TRIALS

    shown = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"Command: `python bench/plays_reference.py{' ' + shown if shown else ''}`")
    trials = DEFAULT_TRIALS if args.trials is None else args.trials
    print(f"seed {args.seed}; reference: gnubg {args.oracle_plies}-ply cubeless "
          f"(gnubg.evaluate of every play); ours: rollout_plays at default settings, "
          f"{trials} trials a play at most, {args.jobs} jobs; load average {os.getloadavg()[0]:.2f}\n")
    gnubg_output("set threads 1")  # what gnubg prints is thrown away

    print("| # | position | roll | gnubg best | gnubg eq | gap to 2nd | our best | our eq +- SE | "
          "lead over our 2nd +- SE | decided | trials | gnubg best: our rank | gnubg loss of ours | "
          "agree | wall s |")
    print("|---:|---|---|---|---:|---:|---|---:|---:|---|---:|---|---:|---|---:|")
    rows = []
    skipped = 0
    for pid, dice in drawn_positions(args.seed):
        if len(rows) == args.positions:
            break
        position = Position.from_position_id(pid)
        ranked = gnubg_ranking(position, dice, args.oracle_plies)
        g_best, g_eq, g_pid = ranked[0]
        gap = g_eq - ranked[1][1]
        if args.only_clear and gap <= GAP:
            skipped += 1
            continue
        k = len(rows) + 1
        t0 = time.perf_counter()
        result = tf.rollout_plays(pid, f"{dice[0]}{dice[1]}", trials, seed=args.seed, jobs=args.jobs)
        wall = time.perf_counter() - t0
        ours = result.plays
        best = ours[0]
        second = ours[1] if len(ours) > 1 else None
        rank = next((i for i, p in enumerate(ours, 1) if p.position_id == g_pid), None)
        loss = g_eq - next(eq for _, eq, p in ranked if p == best.position_id)
        agree = best.position_id == g_pid
        rows.append((gap, agree, wall, rank))
        lead = f"{-second.diff:.4f} +- {second.diff_se:.4f}" if second else "-"
        print(f"| {k} | {pid} | {dice[0]}{dice[1]} | {g_best} | {g_eq:+.4f} | {gap:.4f} | "
              f"{best.play} | {best.equity:+.4f} +- {best.se:.4f} | {lead} | "
              f"{'yes' if result.decided else 'no'} | {result.trials_played} | "
              f"{rank if rank else 'not a candidate'} of {len(ours)} | {loss:.4f} | "
              f"{'yes' if agree else 'NO'} | {wall:.0f} |", flush=True)

    clear = [r for r in rows if r[0] > GAP]
    print()
    if args.only_clear:
        print(f"--only-clear: {skipped} positions drawn before these had gnubg's gap <= {GAP} "
              f"and were skipped")
    print(f"gnubg's gap > {GAP}: our best play agrees in {sum(r[1] for r in clear)} of {len(clear)} "
          f"positions; all positions: {sum(r[1] for r in rows)} of {len(rows)}; gnubg's best "
          f"not among our candidates: {sum(r[3] is None for r in rows)}")
    walls = [r[2] for r in rows]
    print(f"wall time of our rollouts: median {float(np.median(walls)):.0f} s, max {max(walls):.0f} s "
          f"(limit {TIME_LIMIT_S:.0f} s each on 2 cores; this machine's cores are shared)")
    print("trials: plays rolled out x trials, summed over the candidates; gnubg loss of ours: "
          "gnubg's equity of its best play less that of our best play, by its own evaluation")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
