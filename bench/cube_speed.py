"""Speed of cubeful rollouts against cubeless ones, measured in one run (issue 9's target:
a cubeful neural rollout runs at least 0.7x the cubeless one, in games/s).

    python bench/cube_speed.py --trials 6000 --repeats 3

Each measure is the median of the repeats, one process (jobs=1), the starting position,
the shipped neural net on both sides, in games per CPU second of this process (the work is
all in it with jobs=1, so the figure does not depend on what else the machine is doing). "cubeless" is the default rollout (truncated at the
bear-off database); "cubeful" follows the no-double and double/take branches on the same
games, played to the end.
"""

from __future__ import annotations

import argparse
import statistics
import time

import tavli_fast as tf


MATCH_START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10"  # 7-point match, 0-0


def games_per_second(trials: int, repeats: int, position: str = "start", **kwargs) -> float:
    rates = []
    for seed in range(repeats):
        start = time.process_time()
        r = tf.rollout(position, trials, players="neural", seed=seed, jobs=1, **kwargs)
        assert r.games == trials
        rates.append(trials / (time.process_time() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=6000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tf.rollout("start", 10, players="neural", seed=0, jobs=1)       # load the net and databases
    # Without luck adjustment, which the neural cubeless rollout turns on by default and the
    # cubeful one cannot use: the measures compare the games, not the estimators.
    cubeless = games_per_second(args.trials, args.repeats, vr=False)
    cubeful = games_per_second(args.trials, args.repeats, cubeful=True)
    untruncated = games_per_second(args.trials, args.repeats, truncate=False, vr=False)
    match = games_per_second(args.trials, args.repeats, MATCH_START, cubeful=True)
    print(f"neural rollout, jobs=1, {args.trials} trials, median of {args.repeats}, games per CPU second")
    print(f"  cubeless (truncated)      {cubeless:10,.0f} games/s")
    print(f"  cubeless (played to end)  {untruncated:10,.0f} games/s")
    print(f"  cubeful (ND and DT)       {cubeful:10,.0f} games/s")
    print(f"  cubeful, 7-point match    {match:10,.0f} games/s")
    print(f"  cubeful / cubeless        {cubeful / cubeless:10.2f} x   (target >= 0.7)")
    print(f"  cubeful match / cubeless  {match / cubeless:10.2f} x")


if __name__ == "__main__":
    main()
