"""Plakoto and Fevga (RULES.md P1-P7, F1-F7): positions (``position``), the move
generator's Python face (``movegen``) and whole games (``games``).

The names of ``movegen`` are also here, where the flat package had them
(``tavli_fast.variants``)."""

from .movegen import (
    GAME_CODES,
    VariantPlay,
    core_options,
    generate_variant_positions,
    position_after,
    require_variant_in_progress,
    variant_play_notation,
    variant_plays,
)

__all__ = [
    "GAME_CODES",
    "VariantPlay",
    "position_after",
    "require_variant_in_progress",
    "variant_plays",
    "generate_variant_positions",
    "variant_play_notation",
    "core_options",
]
