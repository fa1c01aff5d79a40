"""Benchmark set-up: collect ``bench_*.py`` when pytest is pointed at ``bench/``.

``pyproject.toml`` keeps plain ``pytest`` to the tests (``testpaths = ["tests"]``) and
leaves ``python_files`` at its default (``test_*.py``).  The benchmarks live in
``bench_*.py`` so that they are never mistaken for tests; this hook makes pytest
collect them when it is given this directory (``python -m pytest bench
--benchmark-only``).  ``python_files`` cannot be changed from a conftest once
collection has begun, so the hook claims the files itself.  Inside the files the
benchmark functions are named ``test_*`` as usual.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    if file_path.suffix != ".py" or not file_path.name.startswith("bench_"):
        return None
    # pytest's own python plugin already collects a file named on the command line
    # (whatever its name) or one matching python_files: do not collect it twice.
    if parent.session.isinitpath(file_path):
        return None
    if any(fnmatch(file_path.name, pattern) for pattern in parent.config.getini("python_files")):
        return None
    return pytest.Module.from_parent(parent, path=file_path)


# ---------------------------------------------------------------- throughput summary
# pytest-benchmark reports seconds per round; the figures that matter here are rates
# (resulting positions, calls or games per second).  Each benchmark reports how much
# work one round does; the rates (work / median round time) are printed at the end.

_RATES = pytest.StashKey[list]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RATES] = []


@pytest.fixture
def report_rate(request: pytest.FixtureRequest, benchmark):
    """``report_rate(work, unit)`` after ``benchmark(...)``: records work / median time."""

    def report(work: int, unit: str) -> None:
        stats = getattr(benchmark, "stats", None)
        if stats is None:  # --benchmark-disable: the function ran once, untimed
            return
        median = stats.stats.median
        benchmark.extra_info[f"{unit} per second (median)"] = work / median
        request.config.stash[_RATES].append(
            (benchmark.group or "", request.node.name, work, unit, median)
        )

    return report


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    rows = config.stash.get(_RATES, [])
    if not rows:
        return
    terminalreporter.section("throughput: work per round / median round time")
    width = max(len(name) for _, name, *_ in rows)
    groups: dict[str, list] = {}
    for row in rows:  # grouped, in order of first appearance
        groups.setdefault(row[0], []).append(row)
    for group, members in groups.items():
        terminalreporter.write_line(group)
        for _, name, work, unit, median in members:
            terminalreporter.write_line(
                f"  {name:<{width}}  {work / median:>16,.0f} {unit}/s"
                f"  ({work:,} in {median * 1e3:,.2f} ms)"
            )
