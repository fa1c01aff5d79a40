"""Our net and rollouts side by side with GNU Backgammon's and bgsage's, as ratios in one run.

    python bench/peer_ratios.py [--repeats 3] [--trials0 1296] [--trials0-vr 576]
                                [--trials1 72] [--trials1-vr 72] [--positions 100000]
                                [--parts evals,0ply,1ply] [--peer-filter default|ours]
                                [--gnubg-onesided] [--skip gnubg|bgsage]
                                [--evaluator float32|int16]

Issue 54's targets, measured in one run on one machine: neural 0-ply rollouts >= 8 x GNU
Backgammon's 0-ply rollouts and neural-1ply >= 20 x its 1-ply; against bgsage (a peer engine
on PyPI of the same design: a C++ core under Python) 1-ply rollouts >= 5 x its same-level
rollouts, and ahead at every level.  Each engine runs in a worker process of its own (one
thread; this script started with ``--worker NAME``) that times its own CPU time
(``time.process_time``: the whole process, every thread) around the work alone: loading nets
and databases, settings and building a peer's rollout object are outside the timing.  The
workers take the jobs in turn, so the engines of one figure are timed in alternation (the
order rotated every repeat); each rate is the median of ``--repeats`` runs, each ratio the
median of the per-repeat ratios.  Before the timed runs every engine plays an untimed
warm-up of each job, and every run, timed or not, checks its workload: the games each engine
reports played (gnubg's own rollout report, bgsage's progress count, our result), the
positions evaluated.  GNU Backgammon (``gnubg``, a test dependency) and bgsage are
bench-only; the package never imports them, and each part is skipped, saying so, when its
engine is not installed (``pip install bgsage``; it is never a dependency).

What runs, from the same position (the starting position as a Position ID), cubeless, played
to the end but for each engine's bear-off database.  The peers' first roll may be a double;
ours is the R5 opening roll (never a double: tavli_fast takes the start as a game's first play),
so our start's equity for the side on roll is about 0.04 lower (the shipped net's 0-ply mean
over the best plays of the 15 non-doubles is +0.041, over all 36 rolls +0.078); the games'
lengths, so the speeds, hardly differ:

- tavli_fast: ``rollout(POSITION_ID, trials, players="neural", ply=0|1, vr=False|True,
  jobs=1)``: quasi-random first two rolls, games stopped once both sides are in the two-sided
  bear-off database (up to 9 checkers on 6 points; exact win chance), move filter of the 1-ply
  player (5, 0.16) (the best 5 plays by 0 ply within 0.16 looked at 1 ply), luck adjustment
  (``vr``) by the 0-ply net over the 21 rolls.
- GNU Backgammon (the ``gnubg`` package: its own C rollout, ``rollout`` command, ``set threads
  1``): ``set rollout cubeful off``, ``chequerplay plies 0|1`` (pruning nets on, its
  default), ``varredn off|on`` (its lookahead variance reduction), ``quasirandom on``, no
  truncation, ``bearofftruncation exact on`` (its two-sided database: 6 checkers on 6 points)
  and ``onesided off`` (its default stops cubeless games once both sides are in the one-sided
  database, earlier than ours; ``--gnubg-onesided`` restores it), its default rollout move
  filter at 1 ply (up to 12 plays within 0.24 by 0 ply).
- bgsage: ``bgbot_cpp.create_rollout`` with its production net, ``decision_ply`` 1|2 (it counts
  plies as XG does: its 1-ply is the raw net, our 0-ply), ``truncation_depth=0`` (to the end),
  ``enable_vr`` False|True, ``n_threads=1``, ``parallelize_trials=False``, its one-sided
  bear-off database set as its analyzer sets it, ``ultra_late_threshold=9999`` and
  ``late_ply=-1`` (the same ply all game, as its analyzer's full rollouts), its move filter
  (5 plays within 0.08).
- ``--peer-filter ours`` gives both peers our 1-ply move filter (5 plays within 0.16) instead
  of their defaults.

Net evaluations a second (single positions, 0 ply, ``--positions`` positions of random games
a run, made as bench_neural.py makes them, a fresh slice for every run so that no cache is hit
again): ours by
``evaluate_many`` (one call), bgsage by ``batch_evaluate_post_move`` (one call; C++, a Python
dict out per position), GNU Backgammon by ``gnubg.evaluate`` in a Python loop (its call
overhead counts against it: a lower bound on its net's speed; its evaluation cache flushed
before).  Each net's mean win probability over the slice is checked against ours (within
0.03) and printed: the three read the same boards.  The start's equity, pooled over the
repeats with its SE, is printed beside: each engine rolls out its own play, so it need only
be close.

The default run takes about 8 minutes on a 2-core machine shared with other work (4 minutes
of CPU); the 1-ply trial counts are small (72 games a run), so those figures are good to about
+-15 %: raise them with ``--trials1``, ``--trials1-vr`` and ``--repeats``.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import math
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import NamedTuple

START_ID = "4HPwATDgc/ABMA"          # the starting position, player on roll, any first roll
OUR_FILTER = (5, 0.16)
ENGINES = ("tavli_fast", "gnubg", "bgsage")
TITLES = {"tavli_fast": "tavli_fast", "gnubg": "GNU Backgammon", "bgsage": "bgsage"}


# --- the engines, one per worker process -------------------------------------------------

def cpu_timed(run: Callable[[], object]) -> tuple[object, dict]:
    """run()'s value, and the process's CPU seconds and the wall-clock seconds it took."""
    c0, w0 = time.process_time(), time.perf_counter()
    value = run()
    wall = time.perf_counter() - w0
    return value, {"cpu": time.process_time() - c0, "wall": wall}


class Ours:
    def __init__(self, options: dict):
        import tavli_fast
        from tavli_fast.play.neural import default_evaluator, evaluator

        self.tf = tavli_fast
        self.kind = options.get("evaluator") or default_evaluator()
        self.net = evaluator(kind=self.kind)

    def info(self) -> dict:
        r = self.tf.rollout(START_ID, 2, players="neural", seed=1, jobs=1, vr=False,
                            evaluator=self.kind)
        return {"version": f"{self.tf.__version__} (net {getattr(r.net, 'version', r.net)}, "
                           f"{self.kind} evaluator)",
                "settings": "rollout(..., players='neural', jobs=1), quasi-random first two rolls, "
                            "truncation at the two-sided bear-off database (9 checkers), "
                            f"1-ply move filter {OUR_FILTER}, vr: the 0-ply net over the 21 rolls"}

    def rollout(self, ply: int, vr: bool, trials: int, seed: int) -> dict:
        r, out = cpu_timed(lambda: self.tf.rollout(START_ID, trials, players="neural", ply=ply,
                                                    vr=vr, seed=seed, jobs=1,
                                                    evaluator=self.kind))
        equity, se = (r.vr["equity"], r.vr["se"]["equity"]) if vr else (r.equity, r.se["equity"])
        out.update(games=r.games, equity=equity, se=se, plies=r.mean_plies)
        return out

    def evaluate(self, boards) -> dict:
        res, out = cpu_timed(lambda: self.net.evaluate_many(boards))
        out.update(positions=int(len(res)), mean_win=float(res[:, 0].mean()))
        return out


class Gnubg:
    """GNU Backgammon's own rollout (its C code) through the ``gnubg`` package's commands.

    The package prints a rollout's report only when its progress flag is set (the program sets
    it when its output is a terminal); the worker sets it through ctypes and reads the report
    from its standard output, which goes to a file while the command runs.
    """

    def __init__(self, options: dict):
        import ctypes

        import gnubg
        from gnubg import _gnubg

        self.gnubg = gnubg
        self.libc = ctypes.CDLL(None)
        try:
            ctypes.c_int.in_dll(ctypes.CDLL(_gnubg.__file__), "fShowProgress").value = 1
        except (OSError, ValueError) as exc:
            raise RuntimeError("this gnubg package does not show its progress flag "
                               "(fShowProgress): its rollout reports cannot be read") from exc
        commands = [
            "set threads 1",
            "set player 0 human", "set player 1 human",
            "set rollout cubeful off",
            "set rollout quasirandom on",
            "set rollout truncation enable off",
            "set rollout bearofftruncation exact on",
            "set rollout bearofftruncation onesided "
            + ("on" if options["gnubg_onesided"] else "off"),
            "set rollout later enable off",
            "set rollout initial off",
        ]
        if options["peer_filter"] == "ours":
            commands += [f"set rollout player {p} movefilter 1 0 0 {OUR_FILTER[0]} {OUR_FILTER[1]}"
                         for p in (0, 1)]
        commands += ["new game", f"set board {START_ID}"]
        self.onesided = options["gnubg_onesided"]
        self.filter = options["peer_filter"]
        self.command(commands)

    def command(self, commands: list[str]) -> str:
        """Run gnubg commands with its standard output caught; the text it printed."""
        with tempfile.TemporaryFile(mode="w+b") as caught:
            sys.stdout.flush()
            self.libc.fflush(None)
            saved = os.dup(1)
            os.dup2(caught.fileno(), 1)
            try:
                for c in commands:
                    self.gnubg.command(c)
            finally:
                self.libc.fflush(None)
                os.dup2(saved, 1)
                os.close(saved)
            caught.seek(0)
            return caught.read().decode("utf-8", "replace").replace("\r", "\n")

    def info(self) -> dict:
        text = self.command(["show rollout"])
        lines = [line.strip() for line in text.splitlines()]
        keep = [line for line in lines
                if re.match(r"(No truncation|Will (not )?truncate (money|\*cubeless)|Quasi-random"
                            r"|Cubeless rollout|Using pruning)", line)]
        at = lines.index("Move filter for 1 ply:") if "Move filter for 1 ply:" in lines else -1
        if at >= 0:
            keep.append("1-ply move filter: " + lines[at + 1])
        ours = f"up to {OUR_FILTER[0]} more moves within equity {OUR_FILTER[1]}"
        if self.filter == "ours" and (at < 0 or ours not in lines[at + 1]):
            raise RuntimeError("gnubg did not take our move filter:\n" + text)
        return {"version": self.gnubg.version,
                "settings": "`rollout` command, `set threads 1`: "
                            + "; ".join(re.sub(r"\s+", " ", line).rstrip(".")
                                        for line in dict.fromkeys(keep))}

    def rollout(self, ply: int, vr: bool, trials: int, seed: int) -> dict:
        self.command([f"set rollout trials {trials}", f"set rollout seed {seed}",
                      f"set rollout chequerplay plies {ply}",
                      "set rollout varredn " + ("on" if vr else "off"), "clear cache"])
        report, out = cpu_timed(lambda: self.command(["rollout"]))
        final = report.split("Rollout done")[-1]
        if "Rollout done" not in report:
            raise RuntimeError("gnubg printed no rollout report:\n" + report[-2000:])
        games = re.search(r"(\d+) games,", final)
        equity = re.search(r"CL\s+([-+]?\d+\.\d+)\s*\n\s*\[.*CL\s+(\d+\.\d+)\]", final)
        play = re.search(r"Play: (.*)", final)
        kind = re.search(r"Full cubeless rollout.*", final)
        if not (games and equity and play and kind):
            raise RuntimeError("unreadable gnubg rollout report:\n" + final)
        vr_text = "with variance reduction" if vr else "without variance reduction"
        bearoff = "one-sided" if self.onesided else "exact"
        checks = [f"{ply}-ply" in play.group(1), vr_text in kind.group(0),
                  f"truncated at {bearoff} bearoff" in kind.group(0)]
        if not all(checks):
            raise RuntimeError(f"gnubg rolled out with other settings: {play.group(0)!r}, "
                               f"{kind.group(0)!r}")
        out.update(games=int(games.group(1)), equity=float(equity.group(1)),
                   se=float(equity.group(2)), settings=f"{kind.group(0)}; Play: {play.group(1)}")
        return out

    def evaluate(self, boards) -> dict:
        g = self.gnubg
        items = [[list(map(int, b[1, 1:26])), list(map(int, b[0, 1:26]))] for b in boards]
        cube, context = g.cubeinfo(), g.evalcontext(0, 0, 1, 0, 0)    # cubeless 0-ply
        self.command(["clear cache"])
        evaluate = g.evaluate
        res, out = cpu_timed(lambda: [evaluate(b, cube, context) for b in items])
        out.update(positions=len(res), mean_win=sum(r[0] for r in res) / len(res))
        return out


class Bgsage:
    def __init__(self, options: dict):
        import bgbot_cpp
        import bgsage
        from bgsage.weights import bearoff_db_path

        self.cpp = bgbot_cpp
        self.bgsage = bgsage
        self.weights = bgsage.default_weights()
        self.db = bgbot_cpp.BearoffDB()
        path = bearoff_db_path()
        if not (path and self.db.load(path)):
            self.db = None
        self.filter = (5, 0.08) if options["peer_filter"] == "default" else OUR_FILTER
        w = self.weights
        self.strategy = bgbot_cpp.create_strategy(w.strategy_type, w.weight_paths_list,
                                                  w.hidden_sizes_list)

    def info(self) -> dict:
        from importlib.metadata import version

        from bgsage.weights import PRODUCTION_MODEL

        return {"version": f"{version('bgsage')} (model {PRODUCTION_MODEL})",
                "settings": f"create_rollout(decision_ply=ply+1, truncation_depth=0, n_threads=1, "
                            f"parallelize_trials=False, ultra_late_threshold=9999, late_ply=-1, "
                            f"filter {self.filter}), bear-off database: "
                            f"{'one-sided' if self.db else 'none'}"}

    def rollout(self, ply: int, vr: bool, trials: int, seed: int) -> dict:
        w = self.weights
        strategy = self.cpp.create_rollout(
            w.strategy_type, w.weight_paths_list, w.hidden_sizes_list, n_trials=trials,
            truncation_depth=0, decision_ply=ply + 1, filter_max_moves=self.filter[0],
            filter_threshold=self.filter[1], n_threads=1, seed=seed, late_ply=-1,
            enable_vr=vr, parallelize_trials=False, ultra_late_threshold=9999,
            cubeful_trial_moves=False)
        if self.db is not None:
            self.cpp.rollout_set_bearoff_db(strategy, self.db)
        done = []
        start = self.bgsage.STARTING_BOARD
        # The start after the opponent's move: the side on roll's rollout, from the
        # opponent's side (the position is symmetric).
        res, out = cpu_timed(lambda: strategy.evaluate_board(
            start, start, lambda n, total: done.append(n)))
        out.update(games=max(done, default=0), equity=-res["equity"], se=res["std_error"])
        return out

    def evaluate(self, boards) -> dict:
        owner = self.cpp.CubeOwner.CENTERED
        # Each pre-roll position as bgsage's post-move board: the opponent's view, its
        # checkers positive, the side on roll's negative, bars at 25 (its) and 0.
        items = []
        for b in boards:
            post = [0] * 26
            for p in range(1, 25):
                post[p] += int(b[1, p])
                post[25 - p] -= int(b[0, p])
            post[25], post[0] = int(b[1, 25]), int(b[0, 25])
            items.append((post, owner))
        res, out = cpu_timed(lambda: self.cpp.batch_evaluate_post_move(items, self.strategy,
                                                                       n_threads=1))
        out.update(positions=len(res), mean_win=sum(1.0 - r["probs"][0] for r in res) / len(res))
        return out


WORKERS = {"tavli_fast": Ours, "gnubg": Gnubg, "bgsage": Bgsage}


def worker(name: str, options: dict) -> int:
    """Serve jobs, one JSON line each on stdin, one JSON line of results each on stdout."""
    import numpy as np

    reply = os.fdopen(os.dup(1), "w", buffering=1)
    with open(os.devnull, "w") as quiet:        # the engines' own chatter away from the replies
        os.dup2(quiet.fileno(), 1)
    engine = WORKERS[name](options)
    reply.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        job = json.loads(line)
        try:
            if job["job"] == "info":
                out = engine.info()
            elif job["job"] == "rollout":
                out = engine.rollout(job["ply"], job["vr"], job["trials"], job["seed"])
            else:
                boards = np.load(job["boards"])[job["start"]:job["stop"]]
                out = engine.evaluate(boards)
        except Exception as exc:                # reported to the parent, which stops
            out = {"error": f"{type(exc).__name__}: {exc}"}
        reply.write(json.dumps(out) + "\n")
    return 0


# --- the parent: start the workers, alternate them, print the table -----------------------

class Worker:
    def __init__(self, name: str, options: dict):
        self.name = name
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--worker", name, "--options", json.dumps(options)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.read()

    def read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            self.log.seek(0)
            raise RuntimeError(f"the {self.name} worker stopped:\n{self.log.read()[-3000:]}")
        out = json.loads(line)
        if "error" in out:
            raise RuntimeError(f"{self.name}: {out['error']}")
        return out

    def call(self, **job) -> dict:
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def checked(name: str, job: dict, out: dict) -> dict:
    """The workload check of one run: every game played, every position evaluated."""
    if job["job"] == "rollout" and out["games"] != job["trials"]:
        raise AssertionError(f"{name} played {out['games']} games of {job['trials']}")
    if job["job"] == "evaluate" and out["positions"] != job["stop"] - job["start"]:
        raise AssertionError(f"{name} evaluated {out['positions']} positions of "
                             f"{job['stop'] - job['start']}")
    return out


def human(rate: float) -> str:
    if rate >= 1e6:
        return f"{rate / 1e6:,.2f} M"
    if rate >= 100:
        return f"{rate:,.0f}"
    return f"{rate:,.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="timed runs per figure (median)")
    ap.add_argument("--trials0", type=int, default=1296, help="games of a 0-ply rollout, plain")
    ap.add_argument("--trials0-vr", type=int, default=576,
                    help="games of a 0-ply rollout, luck-adjusted (144 was too few for a "
                    "stable ratio: about a CPU-second of ours)")
    ap.add_argument("--trials1", type=int, default=72, help="games of a 1-ply rollout, plain")
    ap.add_argument("--trials1-vr", type=int, default=72,
                    help="games of a 1-ply rollout, luck-adjusted")
    ap.add_argument("--positions", type=int, default=100_000,
                    help="positions of a net-evaluation run")
    ap.add_argument("--seed", type=int, default=54,
                    help="seed of the first repeat (+1 each repeat)")
    ap.add_argument("--parts", default="evals,0ply,1ply",
                    help="the figures to measure, of evals, 0ply, 1ply (comma-separated)")
    ap.add_argument("--peer-filter", choices=("default", "ours"), default="default",
                    help="the peers' 1-ply move filter: their own defaults, or ours (5, 0.16)")
    ap.add_argument("--gnubg-onesided", action="store_true",
                    help="let gnubg stop cubeless games at its one-sided bear-off database "
                         "(its default)")
    ap.add_argument("--evaluator", choices=("float32", "int16"), default=None,
                    help="our net's evaluator (docs/performance.md, the int16 evaluator; "
                         "default: the package's default, int16 where AVX2)")
    ap.add_argument("--skip", action="append", default=[], choices=("gnubg", "bgsage"),
                    help="leave an engine out")
    ap.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("--options", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(args.worker, json.loads(args.options))
    if args.repeats < 1 or min(args.trials0, args.trials0_vr, args.trials1, args.trials1_vr) < 1:
        ap.error("--repeats and the trial counts must be at least 1")
    args.parts = set(args.parts.split(","))
    if not args.parts or not args.parts <= {"evals", "0ply", "1ply"}:
        ap.error("--parts takes evals, 0ply and 1ply, comma-separated")

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import numpy as np

    import bench_neural
    from perf_table import cpu_model, git_revision

    command = shlex.join(["python", "bench/peer_ratios.py",
                          *(sys.argv[1:] if argv is None else argv)])
    options = {"peer_filter": args.peer_filter, "gnubg_onesided": args.gnubg_onesided,
               "evaluator": args.evaluator}
    names, skipped = [], {}
    for name in ENGINES:
        if name in args.skip:
            skipped[name] = "left out (--skip)"
        elif importlib.util.find_spec(name) is None:
            skipped[name] = f"not installed (`pip install {name}`): its part is skipped"
        else:
            names.append(name)
    for name, why in skipped.items():
        print(f"{TITLES[name]}: {why}", file=sys.stderr)

    load_before = os.getloadavg()
    measures = plan(args)
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        boards_file = str(Path(tmp) / "boards.npy")
        if "evals" in args.parts:
            np.save(boards_file, bench_neural.positions(args.positions * (args.repeats + 1)))
        workers, infos = {}, {}
        for name in names:
            try:
                worker_ = Worker(name, options)
                stack.callback(worker_.close)
                infos[name] = worker_.call(job="info")
            except RuntimeError as exc:
                if name == "tavli_fast":
                    raise
                # A peer whose package changed under us: its part is skipped, saying why.
                print(f"{TITLES[name]}: {exc}", file=sys.stderr)
                skipped[name] = ("could not be started, its part is skipped: "
                                 + str(exc).strip().splitlines()[-1])
                continue
            workers[name] = worker_
        names = list(workers)
        runs = run_all(measures, workers, args, boards_file)
    load_after = os.getloadavg()

    print(f"Command: `{command}`\n")
    print(f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, git "
          f"{git_revision(Path(__file__).resolve().parents[1])}, {cpu_model()}, "
          f"{os.cpu_count()} CPUs, load average {load_before[0]:.2f} before and "
          f"{load_after[0]:.2f} after; one thread each, CPU time, medians of {args.repeats} "
          f"runs in alternation.\n")
    report(measures, runs, names)
    print("\nEngines and settings:\n")
    for e in ENGINES:
        print(f"- {TITLES[e]} {infos[e]['version']}: {infos[e]['settings']}" if e in names
              else f"- {TITLES[e]}: {skipped[e]}")
        if e == "gnubg" and e in names:  # gnubg's own report of what each rollout was
            for m in measures:
                if m.job["job"] == "rollout":
                    print(f"  - {m.short.split(':')[0]}: "
                          + re.sub(r"\s+", " ", runs[m.label]["gnubg"][-1]["settings"]))
    return 0


class Measure(NamedTuple):
    label: str          # the row of the table
    short: str          # the row of the checks
    job: dict
    targets: dict       # engine -> the least ratio ours / it that issue 54 asks for


def plan(args: argparse.Namespace) -> list[Measure]:
    """The five figures: net evaluations, then rollouts at 0 and 1 ply, plain and luck-adjusted.
    Issue 54's targets: 8 x gnubg at 0 ply, 20 x at 1 ply; 5 x bgsage at 1 ply, ahead of it
    everywhere (the rollout targets applied to both the plain and the luck-adjusted rows)."""
    out = []
    if "evals" in args.parts:
        out.append(Measure("net evaluations/s (0 ply, single positions, "
                           f"{args.positions:,} a run)", "net evaluations: mean win probability",
                           {"job": "evaluate"}, {"bgsage": 1.0}))
    for ply, vr, trials in ((0, False, args.trials0), (0, True, args.trials0_vr),
                            (1, False, args.trials1), (1, True, args.trials1_vr)):
        if f"{ply}ply" not in args.parts:
            continue
        kind = "luck-adjusted" if vr else "plain"
        out.append(Measure(f"{ply}-ply rollout games/s, {kind} ({trials} games a run)",
                           f"{ply}-ply rollout, {kind}: equity",
                           {"job": "rollout", "ply": ply, "vr": vr, "trials": trials},
                           {"gnubg": 8.0, "bgsage": 1.0} if ply == 0
                           else {"gnubg": 20.0, "bgsage": 5.0}))
    return out


def run_all(measures: list[Measure], workers: dict, args: argparse.Namespace,
            boards_file: str) -> dict:
    """runs[label][engine]: the outputs of the timed runs, every engine of a figure in turn
    (the order rotated every repeat), after an untimed warm-up; every run checked."""
    names = list(workers)
    n = args.positions
    runs = {m.label: {name: [] for name in names} for m in measures}
    for rep in range(-1, args.repeats):          # -1: the untimed warm-up
        for m in measures:
            job = dict(m.job)
            if job["job"] == "evaluate":         # a fresh slice each run: no cache hit twice
                job.update(boards=boards_file, start=(rep + 1) * n, stop=(rep + 2) * n)
            else:
                job["seed"] = args.seed + rep if rep >= 0 else args.seed + 1000
                if rep < 0:
                    job["trials"] = min(job["trials"], 36 if job["ply"] == 0 else 4)
            order = names[rep % len(names):] + names[:rep % len(names)]
            outs = {}
            for name in order:
                outs[name] = out = checked(name, job, workers[name].call(**job))
                print(f"{'warm-up' if rep < 0 else f'repeat {rep + 1}'}: {name}: {m.label}: "
                      f"{out['cpu']:.2f} CPU s", file=sys.stderr)
                if rep >= 0:
                    out["rate"] = (out["games"] if job["job"] == "rollout"
                                   else out["positions"]) / out["cpu"]
                    runs[m.label][name].append(out)
            if job["job"] == "evaluate":
                same_boards(outs)
    return runs


def same_boards(outs: dict) -> None:
    """The nets' mean win probabilities over one slice agree closely (0.535-0.543 on the
    default slices); a board read the wrong way round would move a peer's by far more."""
    ours = outs["tavli_fast"]["mean_win"]
    for name, out in outs.items():
        if abs(out["mean_win"] - ours) > 0.03:
            raise AssertionError(f"{name} read the boards differently: mean win probability "
                                 f"{out['mean_win']:.4f}, ours {ours:.4f}")


def report(measures: list[Measure], runs: dict, names: list[str]) -> None:
    """The Markdown tables: rates and ratios with issue 54's targets, then the checks."""
    peers = ("gnubg", "bgsage")
    head = ["measure", *(TITLES[e] for e in ENGINES), *(f"ours / {TITLES[p]}" for p in peers),
            "issue 54"]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 2) + "---|")
    for m in measures:
        rates = {e: [o["rate"] for o in runs[m.label][e]] for e in names}
        cells = [m.label] + [human(statistics.median(rates[e])) if e in names else "—"
                             for e in ENGINES]
        verdicts = []
        for p in peers:
            if p not in names:
                cells.append("—")
                continue
            ratios = [a / b for a, b in zip(rates["tavli_fast"], rates[p])]
            ratio = statistics.median(ratios)
            spread = f" ({min(ratios):.2f}-{max(ratios):.2f})" if len(ratios) > 1 else ""
            cells.append(f"**{ratio:.2f} x**{spread}")
            if p in m.targets:
                least = m.targets[p]
                sign = "> 1 x" if least == 1.0 else f">= {least:g} x"
                met = ratio > 1.0 if least == 1.0 else ratio >= least
                verdicts.append(f"{TITLES[p]} {sign}: {'met' if met else 'missed'}")
        print("| " + " | ".join(cells + ["; ".join(verdicts) or "—"]) + " |")
    notes = []
    if len(runs[measures[0].label]["tavli_fast"]) > 1:
        notes.append("In brackets: the lowest and highest ratio of the repeats.")
    if "gnubg" in names and measures[0].job["job"] == "evaluate":
        notes.append("GNU Backgammon's net evaluations are a Python loop over `gnubg.evaluate` "
                     "(each call's overhead counts against it); ours and bgsage's are one "
                     "batch call.")
    if notes:
        print("\n" + "\n".join(notes))

    # The engines roll out the same position and read the same boards: the equities should
    # agree within their SEs (and the engines' nets), the win probabilities closely.
    print("\nChecks: the start's equity for the side on roll, pooled over the repeats (± SE; "
          "our games' mean length in plies; ours with the R5 opening roll, no double, so about "
          "0.04 below the peers'), and the mean win probability of the evaluated positions by "
          "each net:\n")
    print("| check | " + " | ".join(TITLES[e] for e in names) + " |")
    print("|---|" + "---:|" * len(names))
    for m in measures:
        cells = [m.short]
        for e in names:
            outs = runs[m.label][e]
            if m.job["job"] == "evaluate":
                cells.append(f"{statistics.mean(o['mean_win'] for o in outs):.4f}")
                continue
            equity = statistics.mean(o["equity"] for o in outs)
            se = math.sqrt(sum(o["se"] ** 2 for o in outs)) / len(outs)
            plies = (f" ({statistics.mean(o['plies'] for o in outs):.1f} plies)"
                     if "plies" in outs[0] else "")
            cells.append(f"{equity:+.3f} ± {se:.3f}{plies}")
        print("| " + " | ".join(cells) + " |")

if __name__ == "__main__":
    raise SystemExit(main())
