"""Peak memory of the rollout parent process: it should stay flat as trials grow.

    python bench/parent_memory.py 1e5 1e6

Each argument runs in a fresh process (``rollout("start", N, players="random", seed=1)``,
default jobs) and prints that process's peak resident set size. Workers are not counted:
the parent only merges per-chunk counts, so its memory must not grow with the trials.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import time


def measure(trials: str) -> None:
    import tavli_fast as tf
    from tavli_fast.cli import parse_count

    start = time.perf_counter()
    tf.rollout("start", parse_count(trials), players="random", seed=1)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{trials} trials: parent peak RSS {peak_mb:.1f} MB, {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--one":
        measure(sys.argv[2])
    else:
        for n in sys.argv[1:] or ["1e5", "1e6"]:
            subprocess.run([sys.executable, __file__, "--one", n], check=True)
