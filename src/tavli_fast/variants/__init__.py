"""Plakoto and Fevga (RULES.md P1-P7, F1-F7): positions (``position``), the move
generator's Python face (``movegen``) and whole games (``games``).

The names of ``movegen`` are also here, where the flat package had them
(``tavli_fast.variants``)."""

from . import movegen as _movegen
from .movegen import *  # noqa: F403 - the old module's names, listed once in movegen.__all__

__all__ = list(_movegen.__all__)
