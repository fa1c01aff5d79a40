"""How well nets value races (issue 13's race net): their equity errors against rollouts.

    python bench/race_accuracy.py --positions 3000 --seed 1 --jobs 2
    python bench/race_accuracy.py --weights a.npz b.npz --gnubg       # several nets, and gnubg

The yardstick: race positions (no contact left) from 0-ply self-play games of the shipped net
(`--seed`; one turn in 20 plays a random legal play, as the training data does), each labelled
by `--trials` luck-adjusted rollout games of the shipped net's 0-ply play to the end, counted
exactly in the bear-off database (``supervise.rollout_probs``). The labels' own noise is
measured by labelling `--noise` of the positions again with other dice: their equity SD a
label is the spread of the two labellings' difference / sqrt(2).

For each evaluator (the shipped net alone, the shipped evaluator, i.e. that net with the
bear-off databases, then each `--weights` file's net alone and with the databases): the mean
absolute and the root mean square error of its cubeless equity against the labels, and the mean absolute error
of its win probability, for the two kinds of race: bear-offs (both sides on their home
boards) and the others. `--gnubg`: the same for GNU Backgammon's 0-ply evaluation (gnubg_nn,
a test-only oracle, never a training target), which shows how far the yardstick itself is
from an independent race evaluator. Races where both sides are in the two-sided bear-off
database are left out: the engine knows those exactly.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from multiprocessing import get_context

import numpy as np

from tavli_fast import _core
from tavli_fast.jobs import targets as supervise
from tavli_fast.play.bearoff import default_database
from tavli_fast.play.neural import default_net, default_net_info, load_net, with_bearoff


def race_positions(n: int, seed: int) -> np.ndarray:
    """n distinct race positions (row 0 on roll) from the shipped net's self-play, outside
    the two-sided database."""
    net, tables = default_net(), default_database().tables
    state = _core.rng_state(seed)
    found: dict[bytes, np.ndarray] = {}
    while len(found) < n:
        boards = net.selfplay_positions(200, state, 0.05)
        for b in boards[_core.races(boards)]:
            if tables.win(b) is None:  # outside the two-sided database
                found.setdefault(b.tobytes(), b)
    return np.stack(list(found.values())[:n])


def _label(args: tuple[np.ndarray, int, int]) -> np.ndarray:
    boards, trials, seed = args
    return supervise.rollout_probs(default_net(), np.ascontiguousarray(boards), trials, seed)


def labels(boards: np.ndarray, trials: int, seed: int, jobs: int) -> np.ndarray:
    parts = np.array_split(np.arange(len(boards)), max(1, 8 * jobs))
    work = [(boards[p], trials, seed * 1000 + k) for k, p in enumerate(parts) if len(p)]
    with get_context("forkserver").Pool(jobs) as pool:
        return np.concatenate(pool.map(_label, work))


def errors(probs: np.ndarray, target: np.ndarray, bear_off: np.ndarray) -> dict:
    d = supervise.equity_of(probs) - supervise.equity_of(target)
    out = {}
    for kind, rows in (("bear-off", bear_off), ("other race", ~bear_off)):
        out[kind] = {"positions": int(rows.sum()), "equity_mae": float(np.abs(d[rows]).mean()),
                     "equity_rms": float(np.sqrt((d[rows] ** 2).mean())),
                     "win_mae": float(np.abs(probs[rows, 0] - target[rows, 0]).mean())}
    return out


def gnubg_probs(boards: np.ndarray) -> np.ndarray:
    import gnubg_nn  # test-only oracle

    return np.array([gnubg_nn.probabilities([list(map(int, b[1, 1:26])),
                                             list(map(int, b[0, 1:26]))], 0) for b in boards])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--positions", type=int, default=3000)
    p.add_argument("--trials", type=int, default=36, help="rollout games a label (default 36)")
    p.add_argument("--noise", type=int, default=300, help="positions labelled twice")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--weights", nargs="*", default=[], help="more nets to measure")
    p.add_argument("--gnubg", action="store_true", help="also GNU Backgammon's 0-ply evaluation")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    if args.positions < 10 or args.trials < 1 or not 0 <= args.noise <= args.positions:
        p.error("--positions >= 10, --trials >= 1 and 0 <= --noise <= --positions")
    t0 = time.perf_counter()
    boards = race_positions(args.positions, args.seed)
    target = labels(boards, args.trials, args.seed, args.jobs)
    again = labels(boards[:args.noise], args.trials, args.seed + 10**6, args.jobs) if args.noise else None
    version = default_net_info().get("version")
    out: dict = {"positions": len(boards), "trials": args.trials, "seed": args.seed,
                 "labelled_by": version, "nets": {}}
    if again is not None:
        diff = supervise.equity_of(target[:args.noise]) - supervise.equity_of(again)
        out["label_equity_sd"] = float(diff.std(ddof=1) / math.sqrt(2))
    tables = default_database().tables
    nets = [(f"net {version} alone", default_net(bearoff=False)),
            (f"net {version} + databases (shipped)", default_net())]
    for f in args.weights:
        net = load_net(f)[0]
        nets += [(f"{f} alone", net), (f"{f} + databases", with_bearoff(net, tables))]
    bear_off = ~boards[:, :, 7:26].any(axis=(1, 2))
    for name, net in nets:
        out["nets"][name] = errors(net.evaluate_many(boards), target, bear_off)
    if args.gnubg:
        out["nets"]["gnubg 0-ply"] = errors(gnubg_probs(boards), target, bear_off)
    out["elapsed_s"] = time.perf_counter() - t0
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{out['positions']} race positions (seed {args.seed}), each labelled by {args.trials} "
          f"luck-adjusted rollout games of net {out['labelled_by']}")
    if "label_equity_sd" in out:
        print(f"label noise: equity SD {out['label_equity_sd']:.4f} a label ({args.noise} "
              "labelled twice)")
    print(f"{'evaluator':44s} {'positions':>16s} {'|equity error|':>15s} {'RMS':>8s} "
          f"{'|win error|':>12s}")
    for name, kinds in out["nets"].items():
        for kind, e in kinds.items():
            print(f"{name:44s} {kind:>10s} {e['positions']:5d} {e['equity_mae']:15.4f} "
                  f"{e['equity_rms']:8.4f} {e['win_mae']:12.4f}")
    print(f"({out['elapsed_s']:.0f} s)")


if __name__ == "__main__":
    main()
