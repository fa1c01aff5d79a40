"""Which default for luck adjustment (variance reduction, VR) serves the jobs best? Prints, for
each kind of job the commands run, the SE of its headline figure per CPU-second with and
without VR (Markdown, on stdout):

    python bench/vr_default.py [--scale 1.0] [--seed 1]

Each job runs twice in this process (``jobs=1``, CPU time by ``time.process_time``, so other
work on a shared machine disturbs it little), with the default players (the shipped net at
0 ply on both sides), once with ``vr=False`` and once with ``vr=True``:

- **rollout of a position** (``tavli-rollout``, ``rollout``): the start, and the positions
  after 3-1 8/5 6/5 and after 6-4 24/14 (the opponent on roll); the figure is the equity's SE
  (luck-adjusted with VR);
- **candidate plays** (``tavli-rollout --dice``, ``tavli-hint --rollout``, ``rollout_plays``):
  the net's top two plays of 4-3 at the start, every trial for both; the figure is the
  paired SE of their difference (``diff_se``);
- **opening statistics** (``tavli-openings``, ``openings``): every play of 6-5; the figures
  are the best play's equity SE and the SE of its difference from the second;
- **replies** (``tavli-openings --replies``, ``replies``): the 21 replies to 3-1 8/5 6/5; the
  figure is the SE of the play's equity over the replies.

"SE x sqrt(CPU s)" is the SE a run of one CPU-second would reach (SE falls as 1/sqrt(CPU
time)); the gain from VR is its ratio plain / VR (above 1: VR reaches a given SE sooner;
the CPU time to reach a given SE scales as the gain squared). The VR runs play fewer trials
than the plain ones (a luck-adjusted 0-ply game costs about 20 plain ones); the ratio does
not depend on the trials, only its precision does. Read the ratios to about +-15 %: the SEs come from a few
thousand games.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any, Callable

import tavli_fast as tf

#: Per job: trials (per play, per reply) of the plain run and of the VR run at --scale 1,
#: and the chunk size (whole blocks of the stratified first two rolls where it matters).
TRIALS = {
    "rollout": (5_184, 1_296, 1_296),
    "plays": (5_184, 1_296, 324),
    "openings": (1_296, 324, 324),
    "replies": (432, 216, 108),
}
#: The positions rolled out: after these opening plays, the opponent on roll.
OPENING_PLAYS = ((3, 1, "8/5 6/5"), (6, 4, "24/14"))
#: The start (the side on roll the first mover, as tavli-rollout's default position).
START = "4HPwATDgc/ABMA"


def after(die1: int, die2: int, notation: str) -> str:
    """The Position ID after an opening play, the opponent on roll."""
    (play,) = [p for p in tf.Position.initial().plays(die1, die2) if p.notation == notation]
    return play.position.sides_switched().position_id()


def cpu(run: Callable[[], Any]) -> tuple[Any, float]:
    start = time.process_time()
    value = run()
    return value, time.process_time() - start


def scaled(job: str, vr: bool, scale: float) -> tuple[int, int]:
    """(trials, chunk size) of a run: the trials a whole number of chunks, at least one."""
    plain, with_vr, chunk = TRIALS[job]
    n = (with_vr if vr else plain) * scale
    return max(1, round(n / chunk)) * chunk, chunk


def figures(job: str, vr: bool, scale: float, seed: int) -> dict[str, tuple[float, float]]:
    """{figure: (SE, CPU seconds of the run that gave it)} of one run of ``job``."""
    trials, chunk = scaled(job, vr, scale)
    common = dict(players="neural", seed=seed, jobs=1, vr=vr, chunk_size=chunk)
    if job == "rollout":
        out = {}
        for position in (START, *(after(*play) for play in OPENING_PLAYS)):
            r, s = cpu(lambda p=position: tf.rollout(p, trials, **common))
            out[f"equity SE, {position}"] = ((r.vr["se"] if vr else r.se)["equity"], s)
        return out
    if job == "plays":
        r, s = cpu(lambda: tf.rollout_plays("start", "43", trials, candidates=2,
                                            stop_when_decided=None, **common))
        return {"diff_se, top two of 4-3": (r.plays[1].diff_se, s)}
    if job == "openings":
        r, s = cpu(lambda: tf.openings(trials, rolls="65", screen=None, **common))
        plays = r.rolls[0].plays
        return {"best play's SE, 6-5": (plays[0].se["equity"], s),
                "diff_se, top two of 6-5": (plays[1].diff_se, s)}
    r, s = cpu(lambda: tf.replies("31", "8/5 6/5", trials, **common))
    return {"equity SE over the 21 replies": (r.overall()["equity_se"], s)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every job's trials")
    ap.add_argument("--seed", type=int, default=1, help="the seed of every run")
    ap.add_argument("--jobs-only", default=",".join(TRIALS), metavar="A,B",
                    help=f"the jobs to measure (default all: {','.join(TRIALS)})")
    args = ap.parse_args(argv)
    print("| job | figure | trials plain / VR | CPU s plain / VR | SE x sqrt(CPU s), plain "
          "| SE x sqrt(CPU s), VR | gain from VR |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for job in args.jobs_only.split(","):
        plain = figures(job, False, args.scale, args.seed)
        vr = figures(job, True, args.scale, args.seed)
        trials = f"{scaled(job, False, args.scale)[0]:,} / {scaled(job, True, args.scale)[0]:,}"
        for name, (se, plain_s) in plain.items():
            vr_se, vr_s = vr[name]
            a, b = se * math.sqrt(plain_s), vr_se * math.sqrt(vr_s)
            print(f"| {job} | {name} | {trials} | {plain_s:.1f} / {vr_s:.1f} | {a:.4f} "
                  f"| {b:.4f} | {a / b:.2f} x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
