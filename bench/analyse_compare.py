"""tavli-analyse beside GNU Backgammon's 0-ply analysis, on matches gnubg plays (issue 53's
targets), and the analysis's speed.

    python bench/analyse_compare.py [--matches 3] [--length 7] [--seed 1] [--out DIR]

Needs the PyPI ``gnubg`` package (the ``[test]`` extra; test-only oracle). Each match is
played by gnubg against itself with evaluation noise on both sides (0.06 for the left player,
0.015 for the right, so that there are errors to find and the two players differ), exported
as .mat, analysed by gnubg at 0 ply (its text export gives each move's candidates and the
match statistics) and by tavli_fast at 0 ply. Printed: per match, both players' unforced
moves and checker error rates by both programs; over all matches, the share of gnubg's very
bad moves (>= 0.12) that cost >= 0.04 in ours and the share of gnubg's clear best plays
(the play made was gnubg's first, the second >= 0.04 behind) that cost < 0.02 in ours; and
the seconds our analysis took.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tavli_fast as tf

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from gnubg_analysis import gnubg_analyse, gnubg_moves, gnubg_statistics  # noqa: E402

_PLAY = """
import sys, gnubg
length, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
for c in ["set threads 1", "set player 0 gnubg", "set player 1 gnubg",
          "set defaultnames Noisy Steady", "set display off",
          "set player 0 chequerplay evaluation noise 0.06",
          "set player 0 chequerplay evaluation deterministic off",
          "set player 1 chequerplay evaluation noise 0.015",
          "set player 1 chequerplay evaluation deterministic off",
          f"set seed {seed}", f"new match {length}"]:
    gnubg.command(c)
gnubg.next_turn()
gnubg.command(f"export match mat {out}")
"""

def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--matches", type=int, default=3)
    p.add_argument("--length", type=int, default=7)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--out", default=None, help="keep the files here")
    args = p.parse_args(argv)
    out = Path(args.out or tempfile.mkdtemp(prefix="analyse-compare"))
    out.mkdir(parents=True, exist_ok=True)
    very_bad = [0, 0]
    clear = [0, 0]
    seconds = []
    ok = True
    for k in range(args.matches):
        mat = out / f"match{k}.mat"
        subprocess.run([sys.executable, "-c", _PLAY, str(args.length), str(args.seed + k), str(mat)],
                       check=True, capture_output=True, timeout=900)
        files = gnubg_analyse(mat, out / f"match{k}.txt")
        start = time.perf_counter()
        ours = tf.analyse_match(mat)
        seconds.append(time.perf_counter() - start)
        theirs = gnubg_moves(files)
        stats = gnubg_statistics(files[-1])
        figures = ours.players()
        print(f"match {k}: {len(ours.games)} games, final score {ours.record.final_score}")
        for i, f in enumerate(figures):
            print(f"  {f.name:<8} unforced ours {f.checker_decisions:4d} gnubg "
                  f"{stats['unforced'][i]:4d}   error rate mEMG ours {f.error_rate:6.1f} "
                  f"gnubg {stats['error_rate'][i]:6.1f}")
            if abs(f.checker_decisions - stats["unforced"][i]) > 0.03 * stats["unforced"][i]:
                ok = False
        ranked = [f.error_rate for f in figures]
        if (ranked[0] < ranked[1]) != (stats["error_rate"][0] < stats["error_rate"][1]):
            print("  the players are ranked differently")
            ok = False
        for game, moves in zip(ours.games, theirs):
            mine = [d for a in ours.analyses if a.number == game.record.number
                    for d in a.decisions if d.kind == "checker"]
            names = ours.record.players
            j = 0
            for mv in moves:   # gnubg's moves in order; ours has the forced ones too
                if not mv["unforced"] or mv["error"] is None:
                    continue
                while j < len(mine) and (names[mine[j].player], mine[j].played) != (mv["player"], mv["play"]):
                    j += 1
                if j == len(mine):
                    print(f"  game {game.record.number}: gnubg's {mv['player']} {mv['play']} not found")
                    ok = False
                    break
                d = mine[j]
                if mv["error"] >= 0.12:
                    very_bad[0] += 1
                    very_bad[1] += d.error >= 0.04
                if mv["error"] == 0.0 and mv["gap"] is not None and mv["gap"] >= 0.04:
                    clear[0] += 1
                    clear[1] += d.error < 0.02
    share = lambda x: x[1] / x[0] if x[0] else float("nan")   # noqa: E731
    print(f"gnubg's very bad moves costing >= 0.04 in ours: {very_bad[1]}/{very_bad[0]} "
          f"({share(very_bad):.0%}; target >= 80%)")
    print(f"gnubg's clear best plays costing < 0.02 in ours: {clear[1]}/{clear[0]} "
          f"({share(clear):.0%}; target >= 90%)")
    print(f"our 0-ply analysis: {', '.join(f'{s:.1f}' for s in seconds)} s a match")
    ok = ok and share(very_bad) >= 0.8 and share(clear) >= 0.9
    print("targets met" if ok else "targets NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
