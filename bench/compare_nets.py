"""Candidate nets against a baseline net, seed by seed, against GNU Backgammon (issue 13).

    python bench/compare_nets.py --seeds 283-298 --baseline neural-v17-320.npz v18.npz
    python bench/compare_nets.py --seeds 299-302 --baseline neural-v15-320.npz \\
        neural-v17-320.npz --player neural-1ply --gnubg 4000 --gnubg-plies 1

How docs/nets.md measures every candidate since v16: on each seed, every net plays the same
``--gnubg`` dice sequences (each twice, seats swapped) against gnubg (``bench/strength.py``'s
common-dice match), and each candidate's difference to the baseline is taken seed by seed.
The summary gives, per net, the mean over the seeds of its points a game against gnubg and of
its difference to the baseline; their standard errors come from the spread of the seeds'
figures (so at least 2 seeds), which counts every source of noise the seeds share.

``--record FILE`` (default ``compare_nets.jsonl``) keeps one line per seed as it finishes;
running the same command again skips the seeds the file already holds with the same nets and
settings, so a stopped run (Ctrl-C, a session's end) loses at most the seed it was playing.
gnubg (``gnubg-nn``) is a test-only oracle: this measures, it never trains.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from strength import _gnubg_all, _mean_se  # noqa: E402


def seed_range(text: str) -> list[int]:
    """"283-298" -> [283, ..., 298]; "7" -> [7]; "1,5,9" -> [1, 5, 9]."""
    seeds: list[int] = []
    try:
        for part in text.split(","):
            first, _, last = part.partition("-")
            lo, hi = int(first), int(last or first)
            if hi < lo:
                raise ValueError
            seeds.extend(range(lo, hi + 1))
    except ValueError:
        raise argparse.ArgumentTypeError(f"seeds are FIRST-LAST or a comma list, not {text!r}") from None
    return seeds


def play_seed(nets: list[str], seed: int, sequences: int, player: str, gnubg_plies: int,
              jobs: int) -> dict:
    """One seed's figures: each net's points a game against gnubg on the same dice, and each
    later net's difference to the first (with the SE of the paired per-sequence differences)."""
    per_net = [_gnubg_all(player, sequences, seed, net, jobs, False, gnubg_plies)[0].mean(axis=1)
               for net in nets]
    paired = {net: _mean_se(v - per_net[0]) for net, v in zip(nets[1:], per_net[1:])}
    return {
        "seed": seed,
        "ppg": {net: float(v.mean()) for net, v in zip(nets, per_net)},
        "difference": {net: d for net, (d, _) in paired.items()},
        "difference_se": {net: se for net, (_, se) in paired.items()},
    }


def summary(rows: list[dict], nets: list[str]) -> dict:
    """Per net: the mean over the seeds of its ppg against gnubg and (candidates) of its
    difference to the baseline, with SEs from the spread over the seeds."""
    out: dict = {"seeds": [r["seed"] for r in rows], "nets": {}}
    for i, net in enumerate(nets):
        ppg, ppg_se = _mean_se(np.array([r["ppg"][net] for r in rows]))
        entry = {"ppg": ppg, "ppg_se": ppg_se}
        if i:
            entry["difference"], entry["difference_se"] = _mean_se(
                np.array([r["difference"][net] for r in rows]))
        out["nets"][net] = entry
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("candidates", nargs="+", metavar="WEIGHTS", help="candidate weights files")
    p.add_argument("--baseline", required=True, metavar="WEIGHTS",
                   help="the net the candidates are measured against (a net's name or a file)")
    p.add_argument("--seeds", required=True, type=seed_range, help="e.g. 283-298 (at least 2 seeds)")
    p.add_argument("--gnubg", type=int, default=10_000, metavar="N",
                   help="dice sequences a seed, each played twice (default 10000)")
    p.add_argument("--gnubg-plies", type=int, choices=(0, 1, 2), default=0)
    p.add_argument("--player", default="neural", help="neural (default) or neural-1ply")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--record", default="compare_nets.jsonl", metavar="FILE",
                   help="one line per finished seed; seeds already there are not played again")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = p.parse_args(argv)
    if len(args.seeds) < 2:
        p.error("give at least 2 seeds: the SEs come from their spread")
    if args.gnubg < 2 or args.jobs < 1:
        p.error("--gnubg needs at least 2 sequences and --jobs at least 1")
    nets = [args.baseline, *args.candidates]
    settings = {"nets": nets, "player": args.player, "sequences": args.gnubg,
                "gnubg_plies": args.gnubg_plies}
    record = Path(args.record)
    done: dict[int, dict] = {}
    if record.exists():
        for line in record.read_text().splitlines():
            row = json.loads(line)
            if row["settings"] == settings:
                done[row["seed"]] = row
    with record.open("a") as f:
        for seed in args.seeds:
            if seed in done:
                continue
            row = {"settings": settings, **play_seed(nets, seed, args.gnubg, args.player,
                                                     args.gnubg_plies, args.jobs)}
            f.write(json.dumps(row) + "\n")
            f.flush()
            done[seed] = row
            cells = "  ".join(f"{net} {row['difference'][net]:+.4f}" for net in args.candidates)
            print(f"seed {seed}: {args.baseline} {row['ppg'][args.baseline]:+.4f} vs gnubg; {cells}",
                  file=sys.stderr)
    result = summary([done[s] for s in args.seeds], nets)
    if args.json:
        print(json.dumps({"settings": settings, **result}, indent=2))
        return 0
    contiguous = args.seeds == list(range(args.seeds[0], args.seeds[-1] + 1))
    which = f"{args.seeds[0]}-{args.seeds[-1]}" if contiguous else ",".join(map(str, args.seeds))
    print(f"{args.player} against gnubg {args.gnubg_plies}-ply, {len(args.seeds)} seeds ({which}), "
          f"{2 * args.gnubg:,} games a seed and net; SEs from the spread over the seeds")
    for net, e in result["nets"].items():
        line = f"  {net:<28} vs gnubg {e['ppg']:+.4f} ± {e['ppg_se']:.4f}"
        if "difference" in e:
            line += f"   minus {args.baseline}: {e['difference']:+.4f} ± {e['difference_se']:.4f}"
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
