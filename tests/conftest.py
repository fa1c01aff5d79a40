"""Shared test setup.

- tests/helpers.py is importable as ``helpers`` from any test module (pyproject's
  ``pythonpath``), wherever under tests/ the module sits.
- The bear-off databases are built once per test session in a temporary
  cache directory (TAVLI_FAST_CACHE), never in the user's cache; CLI tests run
  as subprocesses inherit it.
"""

import os
import tempfile


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
