"""GNU Backgammon's 0-ply analysis of a .mat file, read from its text export (test-only
oracle: the PyPI ``gnubg`` package, run in its own process with one thread -- its evaluation
threads hang its Python module).

    from gnubg_analysis import gnubg_analyse, gnubg_statistics
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

__all__ = ["gnubg_analyse", "gnubg_moves", "gnubg_statistics"]

_ANALYSE = """
import sys, gnubg
for c in ["set threads 1", "set analysis chequerplay evaluation plies 0",
          "set analysis cubedecision evaluation plies 0",
          "set analysis chequerplay evaluation prune off",
          "set analysis cubedecision evaluation prune off",
          "set export moves number 10",
          "import mat " + sys.argv[1], "analyse match", "export match text " + sys.argv[2]]:
    gnubg.command(c)
"""

_MOVE = re.compile(r"^\* (.+?) moves (.*)$")
_CAND = re.compile(r"^(\*?)\s+(\d+)\. Cubeful 0-ply\s+(.*?)\s+Eq\.: ([-+]\d+\.\d+)(?: \(([-+]\d+\.\d+)\))?")


def gnubg_analyse(mat: Path, text: Path) -> list[Path]:
    """Have gnubg analyse `mat` at 0 ply and export the analysis as text beside `text`
    (gnubg writes one file a game: text, text_002, ...); the files in game order."""
    for old in text.parent.glob(text.stem + "*" + text.suffix):
        old.unlink()
    subprocess.run([sys.executable, "-c", _ANALYSE, str(mat), str(text)], check=True,
                   capture_output=True, timeout=900)
    return sorted(text.parent.glob(text.stem + "*" + text.suffix),
                  key=lambda f: (len(f.name), f.name))


def gnubg_moves(text_files: list[Path]) -> list[list[dict]]:
    """Per game, each checker move gnubg analysed: player, play, gnubg's error of it, the gap
    from gnubg's first to second play, and gnubg's first play."""
    games = []
    for path in text_files:
        moves: list[dict] = []
        current: dict | None = None
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if m := _MOVE.match(line):
                current = {"player": m.group(1), "play": m.group(2).strip(), "cands": []}
                moves.append(current)
            elif current is not None and (m := _CAND.match(line)):
                current["cands"].append((bool(m.group(1)), m.group(3).strip(),
                                         -float(m.group(5) or 0.0)))
        for mv in moves:
            c = mv.pop("cands")
            played = [x for x in c if x[0]]
            mv["error"] = played[0][2] if played else None
            mv["gap"] = c[1][2] if len(c) > 1 else None
            mv["unforced"] = len(c) > 1
        games.append(moves)
    return games


def gnubg_statistics(path: Path) -> dict:
    """The match totals of gnubg's text export (the last game's file ends with them)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    tail = text[text.rfind("Chequerplay statistics"):]
    unforced = re.search(r"Unforced moves\s+(\d+)\s+(\d+)", tail)
    rate = re.search(r"Error rate mEMG \(MWC\)\s+([-\d.]+).*?\s+([-\d.]+)\s+\(", tail)
    return {"unforced": (int(unforced.group(1)), int(unforced.group(2))),
            "error_rate": (-float(rate.group(1)), -float(rate.group(2)))}


