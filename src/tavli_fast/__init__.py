"""tavli_fast: a fast, rules-exact simulation and rollout engine for tavli / backgammon.

Public names: Position, legal_positions, play_notation, simulate, rollout,
resume_rollout, cube_decision, hint, match_equity, play_matches and the batch move-generation
functions; for Plakoto and Fevga, variant_plays, PlakotoPosition, FevgaPosition and their
rules, evaluate_variant (each game's net) and variant_text (a readable position form).  The hot loops live in the compiled
extension ``tavli_fast._core``.
"""

from __future__ import annotations

from ._version import __version__

try:
    from . import _core  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised by hand, not in CI
    raise ImportError(
        "tavli_fast's compiled core (tavli_fast._core) is not built. Install the package "
        "with `pip install .` (or `pip install -e .` for development), or build it in place "
        "with `python setup.py build_ext --inplace`; Cython, numpy and a C compiler are needed. "
        f"Original error: {exc}"
    ) from exc

from . import _aliases
from .play.cube import CubeDecision, cube_decision
from .play.bearoff import (
    BearoffDatabase,
    BearoffDatabaseError,
    RaceEstimate,
    bearoff_best_play,
    bearoff_rolls,
    bearoff_win_probability,
)
from .errors import InvalidCountError, InvalidDiceError, InvalidPositionError, VariantIdError
from .run.executors import MainGuardError
from .play.hint import RankedPlay, hint
from .play.met import MatchEquityTable, load_met, match_equity
from .game.movegen import (
    ALL_ROLLS,
    count_plays_batch,
    generate_plays_batch,
    generate_positions,
    legal_positions,
    play_notation,
)
from .play.neural import NeuralNetError, Probabilities, evaluate
from .jobs.openings_report import OpeningsResult, RepliesResult
from .jobs.match import MatchResult
from .api import (Executor, make_targets, openings, play_matches, replies, resume_rollout, rollout,
                  rollout_plays, simulate)
from .jobs.plays import InvalidPlayError
from .jobs.plays_report import PlayRollout, PlaysResult
from .play.players import choose
from .game.position import GameContext, Play, Position
from .jobs.rollout_result import RolloutResult
from .rules import FevgaRules, PlakotoRules, Rules, get_rules
from .play.simulate import SimulationResult
from .analysis.report import MatchAnalysis, analyse_match
from .matchfile.model import MatchFileError
from .variants.games import VariantSimulationResult, simulate_variant
from .variants.neural import evaluate_variant
from .variants.text import variant_text
from .variants.position import FevgaPosition, PlakotoPosition, VariantPosition, from_variant_id
from .variants.movegen import (
    VariantPlay,
    generate_variant_positions,
    variant_play_notation,
    variant_plays,
)

__all__ = [
    "__version__",
    "analyse_match",
    "ALL_ROLLS",
    "BearoffDatabase",
    "BearoffDatabaseError",
    "CubeDecision",
    "Executor",
    "FevgaPosition",
    "FevgaRules",
    "GameContext",
    "InvalidCountError",
    "InvalidDiceError",
    "InvalidPlayError",
    "InvalidPositionError",
    "MainGuardError",
    "MatchAnalysis",
    "MatchFileError",
    "MatchEquityTable",
    "MatchResult",
    "NeuralNetError",
    "OpeningsResult",
    "Play",
    "PlayRollout",
    "PlaysResult",
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
    "VariantIdError",
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
    "make_targets",
    "match_equity",
    "openings",
    "play_matches",
    "play_notation",
    "replies",
    "resume_rollout",
    "rollout",
    "rollout_plays",
    "simulate",
    "simulate_variant",
    "variant_play_notation",
    "variant_plays",
    "variant_text",
]


def compiled_core_in_use() -> bool:
    """True: the package cannot run without its compiled core (there is no slow fallback)."""
    return _core is not None


_aliases.install()
