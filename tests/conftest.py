"""Shared test setup.

- tests/helpers.py is importable as ``helpers`` from any test module.
- The bear-off databases are built once per test session in a temporary
  cache directory (TAVLI_FAST_CACHE), never in the user's cache; CLI tests run
  as subprocesses inherit it.
"""

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))


def pytest_configure(config) -> None:
    if "TAVLI_FAST_CACHE" not in os.environ:
        cache = tempfile.mkdtemp(prefix="tavli_fast_test_cache_")
        os.environ["TAVLI_FAST_CACHE"] = cache
        config._tavli_cache = cache


def pytest_unconfigure(config) -> None:
    cache = getattr(config, "_tavli_cache", None)
    if cache:
        import shutil

        shutil.rmtree(cache, ignore_errors=True)
        del os.environ["TAVLI_FAST_CACHE"]
