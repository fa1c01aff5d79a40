"""Time two builds of tavli_fast against each other: the evaluator and 0-ply rollouts.

    python bench/compare_builds.py 33548d3 HEAD [--rounds 10] [--weights neural-v6.npz ...]

Each revision is exported (``git archive``) to a temporary folder and its extension built in
place there (``setup.py build_ext --inplace``: Cython and a C compiler must be installed in
this environment, as for a development install). Then, round after round, both builds run
at the same time, one on each of two cores (swapped every round, pinned by ``taskset`` where
it exists), so that the load of a shared machine falls on both alike. Each run times, per
net of ``--weights`` (installed nets by their bare names, which both revisions must find: a
revision since the earlier nets moved out of the package finds them in ``tavli_fast_nets``,
``pip install ./nets``, an older one in its own data):
``evaluate_many`` on bench_neural.py's 20,000 positions, 8 times, and a 1,000-game 0-ply
rollout of the start (``jobs=1``, no variance reduction), in CPU time.

Printed: the median time of every (build, net, measure), and for every one the median over
the rounds of its time relative to the first build's first net (speed-ups above 1 are
faster), with the least and greatest of those ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_neural  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

# The child builds each net as neural.evaluator does, spelt out because the older revision
# it times may predate that helper.
CHILD = r"""
import json, sys, time
import numpy as np
import tavli_fast as tf
from tavli_fast.play.bearoff import default_database
from tavli_fast.play.neural import load_net, with_bearoff

boards = np.load(sys.argv[1])
times = {}
for name in sys.argv[2:]:
    net = with_bearoff(load_net(name)[0], default_database().tables)
    net.evaluate_many(boards)
    t = time.process_time()
    for _ in range(8):
        net.evaluate_many(boards)
    times[f"{name} evaluations"] = time.process_time() - t
    t = time.process_time()
    tf.rollout("start", 1000, players=("neural", "neural"), seed=1, jobs=1, vr=False, weights=name)
    times[f"{name} rollout"] = time.process_time() - t
print(json.dumps({"file": tf.__file__, "times": times}))
"""


def build(revision: str, where: Path, package: str | None = None) -> Path:
    """The revision's tree under `where`, its extension built in place; its src folder.
    With `package`, the package is renamed so (its folder and its extension), so that two
    builds load side by side in one process (compare_inprocess.py)."""
    tree = where / revision.replace("/", "_")
    tree.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    if package is not None:
        (tree / "src" / "tavli_fast").rename(tree / "src" / package)
        setup = tree / "setup.py"
        text = re.sub(r"\btavli_fast\._core\b", f"{package}._core", setup.read_text())
        setup.write_text(text.replace("src/tavli_fast/", f"src/{package}/"))
    subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=tree,
                   check=True, capture_output=True)
    return tree / "src"


def start(src: Path, core: int, child: str, args: list[str]) -> subprocess.Popen:
    """Run `child` (Python source, given `args`) with the build at `src`, on `core`."""
    pin = ["taskset", "-c", str(core)] if shutil.which("taskset") else []
    env = {**os.environ, "PYTHONPATH": str(src), "OPENBLAS_NUM_THREADS": "1"}
    return subprocess.Popen([*pin, sys.executable, "-c", child, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=src.parent)


def run_rounds(srcs: dict[str, Path], rounds: int, child: str,
               args: list[str]) -> dict[str, list[dict]]:
    """Each round, every build's run of `child` at once, one a core, swapped each round.

    Returns the JSON document each run printed, by revision, in round order; a run must
    report (as ``"file"``) the extension it imported, from its own build.
    """
    runs: dict[str, list[dict]] = {rev: [] for rev in srcs}
    for r in range(rounds):
        procs = {rev: start(src, (k + r) % 2, child, args)
                 for k, (rev, src) in enumerate(srcs.items())}
        for rev, proc in procs.items():
            out, err = proc.communicate()
            if proc.returncode:
                raise SystemExit(f"{rev}: the timing run failed:\n{err}")
            report = json.loads(out)
            if not report["file"].startswith(str(srcs[rev])):
                raise SystemExit(f"{rev}: imported {report['file']}, not its own build")
            runs[rev].append(report)
    return runs


def revisions_parser(description: str, rounds: int) -> argparse.ArgumentParser:
    """The options every comparison of two builds takes: the two revisions, --rounds."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("a", help="the first revision (the reference)")
    parser.add_argument("b", help="the second revision")
    parser.add_argument("--rounds", type=int, default=rounds)
    return parser


def build_both(a: str, b: str, where: Path) -> dict[str, Path]:
    """Both revisions built under `where`: their src folders, by revision, `a` first."""
    return {rev: build(rev, where / str(k)) for k, rev in enumerate((a, b))}


def speed_up(reference: list[float], times: list[float]) -> str:
    """The median over the rounds of reference time / time, then the least and greatest."""
    ratios = [a / b for a, b in zip(reference, times)]
    return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}, {max(ratios):.2f})"


def main(argv: list[str] | None = None) -> int:
    parser = revisions_parser(__doc__.splitlines()[0], rounds=10)
    parser.add_argument("--weights", nargs="+", default=["neural-v6.npz", "neural-v7-256.npz"])
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        srcs = build_both(args.a, args.b, where)
        boards = where / "boards.npy"
        np.save(boards, bench_neural.positions(bench_neural.N_POSITIONS))
        reports = run_rounds(srcs, args.rounds, CHILD, [str(boards), *args.weights])
        runs = {rev: [report["times"] for report in done] for rev, done in reports.items()}
    print(f"{args.rounds} rounds; speed-up = the time of {args.a} with {args.weights[0]} "
          "(the same measure) / the time, median over the rounds (least, greatest)")
    for measure in ("evaluations", "rollout"):
        reference = [t[f"{args.weights[0]} {measure}"] for t in runs[args.a]]
        for rev in srcs:
            for name in args.weights:
                times = [t[f"{name} {measure}"] for t in runs[rev]]
                print(f"{rev:>12s} {name:>20s} {measure:>11s}: median {statistics.median(times):.3f} s"
                      f"  speed-up {speed_up(reference, times)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
