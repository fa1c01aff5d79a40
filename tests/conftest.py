"""Shared test setup.

- tests/helpers.py is importable as ``helpers`` from any test module (pyproject's
  ``pythonpath``), wherever under tests/ the module sits.
- The bear-off databases are built once per test session in a temporary
  cache directory (TAVLI_FAST_CACHE), never in the user's cache; CLI tests run
  as subprocesses inherit it.
- Longest files first: each file's tests stay on one worker (``--dist loadfile``), and a
  long file handed out last would leave the other worker idle while it runs. The seconds
  each file took are kept in tests/durations.json; ``pytest --record-durations`` rewrites
  it (a file it does not list goes last; a stale list only costs balance, never a result).
"""

import json
import os
import tempfile
from collections import defaultdict
from pathlib import Path

DURATIONS = Path(__file__).with_name("durations.json")
_FILE_SECONDS: defaultdict[str, float] = defaultdict(float)


def pytest_addoption(parser) -> None:
    parser.addoption("--record-durations", action="store_true",
                     help="write each test file's seconds to tests/durations.json (run the "
                          "whole suite: the files are handed to the workers longest first)")


def pytest_configure(config) -> None:
    if "TAVLI_FAST_CACHE" not in os.environ:
        cache = tempfile.mkdtemp(prefix="tavli_fast_test_cache_")
        os.environ["TAVLI_FAST_CACHE"] = cache
        config._tavli_cache = cache


def pytest_collection_modifyitems(config, items) -> None:
    seconds = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    # A stable sort: a file's tests stay together and in their order.
    items.sort(key=lambda item: -seconds.get(_file(item.nodeid), 0.0))


def pytest_runtest_logreport(report) -> None:
    _FILE_SECONDS[_file(report.nodeid)] += report.duration  # setup, call and teardown


def pytest_sessionfinish(session, exitstatus) -> None:
    config = session.config
    if config.getoption("record_durations") and not hasattr(config, "workerinput"):
        ranked = sorted(_FILE_SECONDS.items(), key=lambda kv: -kv[1])
        DURATIONS.write_text(json.dumps({f: round(s, 1) for f, s in ranked}, indent=1) + "\n")


def pytest_unconfigure(config) -> None:
    cache = getattr(config, "_tavli_cache", None)
    if cache:
        import shutil

        shutil.rmtree(cache, ignore_errors=True)
        del os.environ["TAVLI_FAST_CACHE"]


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]
