"""Shared test setup: make tests/helpers.py importable as ``helpers`` from any test module."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skips nothing: tests marked ``oracle`` skip themselves via ``pytest.importorskip``."""
