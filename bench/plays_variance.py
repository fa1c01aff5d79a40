"""Issue 43's target "common dice cut the variance of the difference between the top two plays
at least 4x against independent rollouts of the same trials", measured and printed:

    python bench/plays_variance.py [--trials 1296] [--vr-trials 1296] [--chunk 108]
                                   [--contact 2] [--seed 1] [--cases start@43 start@62]

For each case (a position and a roll; by default the start with 43 and 62, and ``--contact``
positions of ``../shared/data/positions/contact.csv`` with a roll each, drawn with ``--seed``)
the top two candidates by the net (``make_plays_request(..., candidates=2)``) are rolled out
three ways, with the shipped net at 0 ply for both sides (the default players), one process:

- (a) independent, plain: each play on its own seed (different dice), no luck adjustment;
- (b) common dice, plain (``vr=False``): both plays on the same dice, as ``rollout_plays``
  plays them (same seeds, same stratified first two rolls, same later rolls);
- (c) common dice with luck adjustment (``vr=True``, ``rollout_plays``' default with the net).

and, at no extra cost, (d) independent with luck adjustment: the sum of the two plays' own
luck-adjusted variances from (c) (a play's own results do not depend on the dice the other
play sees, so this is what two independent luck-adjusted rollouts would give).

Each figure is the per-trial variance of the difference between the two plays, from the sums
that ``jobs.candidates.run_unit`` returns for the units ``jobs.plays._unit(request, ...)`` of
the run: var(x0 - x1) for (b) and (c), var(x0) + var(x1) for (a) and (d). The SE of a
difference is sqrt(variance / trials), which is what ``diff_se`` reports (like it, this ignores
the stratification of the first two rolls, which (a) would have too). The ratios' SEs are
jackknife SEs over the ``--chunk``-trial chunks (chunk i of both runs left out together; with
``--vr-trials`` other than ``--trials`` the runs have different numbers of chunks and the SE
of a ratio involving (c) is only a rough guide). The cost is the CPU time of the process
(``time.process_time``, so other work on the machine disturbs it little) per trial of both
plays, and "per CPU-second" multiplies the variance ratio by the ratio of costs: the gain for
a fixed budget of CPU time.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
# ../shared/data/positions relative to the repository root; TAVLI_BENCH_POSITIONS overrides.
POSITIONS_DIR = Path(
    os.environ.get("TAVLI_BENCH_POSITIONS", REPO.parent / "shared" / "data" / "positions")
)
ROLLS = tuple((a, b) for a in range(1, 7) for b in range(1, 7))  # as dice fall


def contact_cases(count: int, seed: int) -> list[tuple[str, str]]:
    """``count`` (Position ID, roll) pairs: positions of contact.csv and a roll each, drawn with
    ``seed``, keeping those whose roll has at least two distinct plays."""
    from tavli_fast.game.position import Position

    path = POSITIONS_DIR / "contact.csv"
    ids = [line.strip() for line in path.read_text().splitlines() if line.strip()]
    rng = np.random.default_rng(seed)
    out: list[tuple[str, str]] = []
    for i in rng.permutation(len(ids)):
        if len(out) == count:
            break
        d1, d2 = ROLLS[int(rng.integers(36))]
        if len(Position.from_position_id(ids[i]).plays(d1, d2)) >= 2:
            out.append((ids[i], f"{max(d1, d2)}{min(d1, d2)}"))
    return out


@dataclass
class Sums:
    """Per chunk: trials, the sums and sums of squares of both plays' scores, their cross
    products, and the CPU seconds; one row a chunk."""

    rows: list[list[float]] = field(default_factory=list)
    cpu: float = 0.0

    def add(self, n, s0, q0, s1, q1, x01, seconds):
        self.rows.append([n, s0, q0, s1, q1, x01])
        self.cpu += seconds

    def array(self) -> np.ndarray:
        return np.asarray(self.rows, dtype=np.float64)


def variance_of_difference(total: np.ndarray, paired: bool) -> tuple[float, float]:
    """(mean difference, per-trial variance of the difference) from summed rows."""
    n, s0, q0, s1, q1, x01 = total
    d = (s0 - s1) / n
    if paired:
        return d, (q0 + q1 - 2.0 * x01) / n - d * d
    return d, (q0 / n - (s0 / n) ** 2) + (q1 / n - (s1 / n) ** 2)


def jackknife_ratio(a: np.ndarray, pa: bool, b: np.ndarray, pb: bool) -> tuple[float, float]:
    """var_a / var_b over all chunks and its jackknife SE (leaving out one chunk of both)."""
    ta, tb = a.sum(axis=0), b.sum(axis=0)
    ratio = variance_of_difference(ta, pa)[1] / variance_of_difference(tb, pb)[1]
    k = min(len(a), len(b))
    if k < 2:
        return ratio, math.nan
    loo = np.array([variance_of_difference(ta - a[i], pa)[1] / variance_of_difference(tb - b[i], pb)[1]
                    for i in range(k)])
    return ratio, float(math.sqrt((k - 1) / k * ((loo - loo.mean()) ** 2).sum()))


def run(units, split: bool = False) -> Sums:
    """Run the units (one process) and sum each chunk's scores. ``split``: the units come in
    pairs, play 0's unit then play 1's (independent runs), merged chunk by chunk."""
    from tavli_fast.jobs.candidates import run_unit, unit_resources

    out = Sums()
    for unit in units:
        unit_resources(unit)  # the net and databases: loaded once, not timed
    step = 2 if split else 1
    for i in range(0, len(units), step):
        group = units[i:i + step]
        c0 = time.process_time()
        results = [run_unit(u) for u in group]
        seconds = time.process_time() - c0
        if split:
            (a,), (b,) = (r.scores for r in results)
            n = results[0].games
            out.add(n, a[0], a[1], b[0], b[1], math.nan, seconds)
        else:
            r = results[0]
            (s0, q0), (s1, q1) = r.scores
            out.add(r.games, s0, q0, s1, q1, r.cross[0][1], seconds)
    return out


def measure(position: str, dice: str, args) -> dict:
    from tavli_fast.jobs.plays import make_plays_request, _unit

    common = dict(stop_when_decided=None, chunk_size=args.chunk)
    plain = make_plays_request(position, dice, args.trials, seed=args.seed, candidates=2, vr=False,
                               **common)
    names = [c.play for c in plain.candidates]
    if len(names) < 2:
        raise SystemExit(f"{position} {dice}: fewer than two candidate plays")
    other = make_plays_request(position, dice, args.trials, seed=args.seed + 1000003, plays=names,
                               vr=False, **common)
    lucky = make_plays_request(position, dice, args.vr_trials, seed=args.seed, plays=names,
                               vr=True, **common)
    chunks = range(plain.n_chunks)
    a = run([u for c in chunks for u in (_unit(plain, (0,), c), _unit(other, (1,), c))], split=True)
    b = run([_unit(plain, (0, 1), c) for c in chunks])
    c = run([_unit(lucky, (0, 1), k) for k in range(lucky.n_chunks)])
    return {"position": position, "dice": dice, "plays": names, "a": a, "b": b, "c": c,
            "trials": args.trials, "vr_trials": args.vr_trials}


def fmt(x: float, digits: int = 3) -> str:
    return "nan" if not math.isfinite(x) else f"{x:.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=1296, help="trials per play, plain runs (a), (b)")
    ap.add_argument("--vr-trials", type=int, default=1296, help="trials per play, luck-adjusted (c)")
    ap.add_argument("--chunk", type=int, default=108, help="trials per chunk (jackknife unit)")
    ap.add_argument("--contact", type=int, default=2, help="positions from contact.csv")
    ap.add_argument("--seed", type=int, default=1, help="rollout seed, and the contact draw")
    ap.add_argument("--cases", nargs="*", default=["start@43", "start@62"],
                    help="POSITION@DICE cases before the contact ones (POSITION: start, a "
                         "Position ID or an XGID)")
    args = ap.parse_args(argv)

    shown = " ".join(argv if argv is not None else sys.argv[1:])
    print(f"Command: `python bench/plays_variance.py{' ' + shown if shown else ''}`")
    print(f"seed {args.seed}; trials per play: plain {args.trials}, luck-adjusted {args.vr_trials}; "
          f"chunks of {args.chunk}; players: the shipped net at 0 ply; load average "
          f"{os.getloadavg()[0]:.2f}\n")
    cases = [tuple(c.rsplit("@", 1)) for c in args.cases]
    cases += contact_cases(args.contact, args.seed)

    header = ("| position | roll | plays (0 vs 1) | d (b) +- SE | d (c) +- SE | var (a) | var (b) | "
              "var (c) | var (d) | (a)/(b) | (d)/(c) | (a)/(c) | games/s (a) | (b) | (c) | "
              "(a)/(c) per CPU-s |")
    print(header)
    print("|" + "---|" * 3 + "---:|" * (header.count("|") - 4))
    ratios = {"ab": [], "dc": [], "ac": [], "ac_cpu": [], "cost": []}
    for position, dice in cases:
        m = measure(position, dice, args)
        a, b, c = m["a"].array(), m["b"].array(), m["c"].array()
        db, vb = variance_of_difference(b.sum(axis=0), True)
        _, va = variance_of_difference(a.sum(axis=0), False)
        dc, vc = variance_of_difference(c.sum(axis=0), True)
        _, vd = variance_of_difference(c.sum(axis=0), False)
        ab, ab_se = jackknife_ratio(a, False, b, True)
        dcr, dc_se = jackknife_ratio(c, False, c, True)
        ac, ac_se = jackknife_ratio(a, False, c, True)
        games = {k: 2 * s.array()[:, 0].sum() / s.cpu for k, s in (("a", m["a"]), ("b", m["b"]), ("c", m["c"]))}
        cost = games["a"] / games["c"]  # CPU per trial of (c) over (a)
        per_cpu = ac / cost
        ratios["ab"].append(ab)
        ratios["dc"].append(dcr)
        ratios["ac"].append(ac)
        ratios["ac_cpu"].append(per_cpu)
        ratios["cost"].append(cost)
        nb, nc = b[:, 0].sum(), c[:, 0].sum()
        label = "start" if position == "start" else position
        print(f"| {label} | {dice} | {m['plays'][0]} vs {m['plays'][1]} | "
              f"{db:+.4f} +- {math.sqrt(vb / nb):.4f} | {dc:+.4f} +- {math.sqrt(vc / nc):.4f} | "
              f"{fmt(va)} | {fmt(vb)} | {fmt(vc, 4)} | {fmt(vd, 4)} | "
              f"{ab:.2f} +- {ab_se:.2f} | {dcr:.2f} +- {dc_se:.2f} | {ac:.1f} +- {ac_se:.1f} | "
              f"{games['a']:.0f} | {games['b']:.0f} | {games['c']:.0f} | {per_cpu:.2f} |",
              flush=True)

    med = {k: statistics.median(v) for k, v in ratios.items()}
    print()
    print("var: per-trial variance of the difference between the two plays (equity^2); SE of a "
          "difference = sqrt(var / trials). games/s: games of both plays per CPU second, one core.")
    print(f"Median over {len(cases)} cases of the variance ratios (range in brackets):")
    for key, text in (("ab", "(a)/(b) common dice alone, plain"),
                      ("dc", "(d)/(c) common dice alone, luck-adjusted"),
                      ("ac", "(a)/(c) common dice + luck adjustment vs independent plain"),
                      ("cost", "CPU per trial, (c) / (a)"),
                      ("ac_cpu", "(a)/(c) per CPU-second (variance ratio / cost ratio)")):
        print(f"  {text}: {med[key]:.2f}x  [{min(ratios[key]):.2f} .. {max(ratios[key]):.2f}]")
    verdict = lambda x: "met" if x >= 4 else "not met"  # noqa: E731
    print(f"Target >= 4x for common dice against independent rollouts of the same trials: "
          f"common dice alone {verdict(med['ab'])} ({med['ab']:.2f}x plain, {med['dc']:.2f}x "
          f"luck-adjusted); with rollout_plays' default luck adjustment {verdict(med['ac'])} "
          f"({med['ac']:.1f}x per trial, {med['ac_cpu']:.2f}x per CPU-second).")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
