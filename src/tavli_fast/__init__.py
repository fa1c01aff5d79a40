"""tavli_fast: a fast, rules-exact simulation and rollout engine for tavli / backgammon.

Public names: Position, legal_positions, play_notation, simulate, rollout,
resume_rollout, cube_decision, hint, match_equity, play_matches and the batch move-generation
functions; for Plakoto and Fevga, variant_plays, PlakotoPosition, FevgaPosition and their
rules, evaluate_variant (each game's net) and variant_text (a readable position form).  The hot loops live in the compiled
extension ``tavli_fast._core``.
"""

from __future__ import annotations

__version__ = "0.1.0"

try:
    from . import _core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised by hand, not in CI
    raise ImportError(
        "tavli_fast's compiled core (tavli_fast._core) is not built. Install the package "
        "with `pip install .` (or `pip install -e .` for development), or build it in place "
        "with `python setup.py build_ext --inplace`; Cython, numpy and a C compiler are needed. "
        f"Original error: {exc}"
    ) from exc

from .cube import CubeDecision, cube_decision
from .bearoff import (
    BearoffDatabase,
    BearoffDatabaseError,
    RaceEstimate,
    bearoff_best_play,
    bearoff_rolls,
    bearoff_win_probability,
)
from .errors import InvalidDiceError, InvalidPositionError
from .hint import RankedPlay, hint
from .met import MatchEquityTable, load_met, match_equity
from .movegen import (
    ALL_ROLLS,
    count_plays_batch,
    generate_plays_batch,
    generate_positions,
    legal_positions,
    play_notation,
)
from .neural import NeuralNetError, Probabilities, evaluate
from .openings_report import OpeningsResult, RepliesResult, openings, replies
from .match import MatchResult
from .parallel import play_matches, resume_rollout, rollout
from .players import choose
from .position import GameContext, Play, Position
from .results import RolloutResult
from .rules import FevgaRules, PlakotoRules, Rules, get_rules
from .simulate import SimulationResult, simulate
from .variant_games import VariantSimulationResult, simulate_variant
from .variant_neural import evaluate_variant
from .variant_text import variant_text
from .variant_position import FevgaPosition, PlakotoPosition, VariantPosition, from_variant_id
from .variants import (
    VariantPlay,
    generate_variant_positions,
    variant_play_notation,
    variant_plays,
)

__all__ = [
    "__version__",
    "ALL_ROLLS",
    "BearoffDatabase",
    "BearoffDatabaseError",
    "CubeDecision",
    "FevgaPosition",
    "FevgaRules",
    "GameContext",
    "InvalidDiceError",
    "InvalidPositionError",
    "MatchEquityTable",
    "MatchResult",
    "NeuralNetError",
    "OpeningsResult",
    "Play",
    "PlakotoPosition",
    "PlakotoRules",
    "Position",
    "Probabilities",
    "RaceEstimate",
    "RankedPlay",
    "RepliesResult",
    "RolloutResult",
    "Rules",
    "SimulationResult",
    "VariantPlay",
    "VariantPosition",
    "VariantSimulationResult",
    "bearoff_best_play",
    "bearoff_rolls",
    "bearoff_win_probability",
    "choose",
    "count_plays_batch",
    "cube_decision",
    "evaluate",
    "evaluate_variant",
    "from_variant_id",
    "generate_plays_batch",
    "generate_positions",
    "generate_variant_positions",
    "get_rules",
    "hint",
    "legal_positions",
    "load_met",
    "match_equity",
    "openings",
    "play_matches",
    "play_notation",
    "replies",
    "resume_rollout",
    "rollout",
    "simulate",
    "simulate_variant",
    "variant_play_notation",
    "variant_plays",
    "variant_text",
]


def compiled_core_in_use() -> bool:
    """True: the package cannot run without its compiled core (there is no slow fallback)."""
    return _core is not None
