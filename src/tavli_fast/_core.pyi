"""Type stubs of the compiled core (see _core.pyx). Boards are int8 arrays of
shape (2, 26): row 0 the player on roll, row 1 the opponent, each in its own
numbering (0 borne off, 1..24 points, 25 bar)."""

from enum import IntEnum
from typing import Any, Callable, Sequence

import numpy as np
import numpy.typing as npt

Board = npt.NDArray[np.int8]

class PlayerKind(IntEnum):
    PLAYER_RANDOM = 0
    PLAYER_PUBEVAL = 1
    PLAYER_GREEDY = 2
    PLAYER_BEAROFF = 3
    PLAYER_NEURAL = 4
    PLAYER_NEURAL_1PLY = 5
    PLAYER_NEURAL_2PLY = 6

def generate(board: Board, die1: int, die2: int) -> npt.NDArray[np.int8]: ...
def count_batch(boards: npt.NDArray[np.int8], dice: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]: ...
def generate_batch(
    boards: npt.NDArray[np.int8], dice: npt.NDArray[np.int8]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]: ...
def variant_generate(
    board: Board, game: int, pinned: int, options: int, die1: int, die2: int
) -> npt.NDArray[np.int8]: ...
def variant_count_batch(
    boards: npt.NDArray[np.int8],
    pinned: npt.NDArray[np.uint32],
    game: int,
    options: int,
    dice: npt.NDArray[np.int8],
) -> npt.NDArray[np.int64]: ...
def run_variant_games(
    board: Board,
    pinned: int,
    game: int,
    options: int,
    n_games: int,
    player0: int,
    player1: int,
    seed: int,
    first_dice: npt.NDArray[np.int8] | None = ...,
    outcomes: npt.NDArray[np.int8] | None = ...,
    net: VariantNet | None = ...,
    control: npt.NDArray[np.int64] | None = ...,
    rng_state: npt.NDArray[np.uint64] | None = ...,
) -> npt.NDArray[np.int64]: ...
def encode_position_id(board: Board) -> str: ...
def decode_position_id(text: str) -> tuple[Board | None, int]: ...
def legal_positions(position_id: str, die1: int, die2: int) -> list[str]: ...
def legal_position_ids(position_id: object, die1: object, die2: object) -> list[str] | None: ...
def set_legal_positions_checked(checked: Callable[[Any, Any, Any], list[str]]) -> None: ...
def run_games(
    board: Board,
    n_games: int,
    player0: int,
    player1: int,
    seed: int,
    first_roll_no_doubles: bool,
    backgammons: bool,
    first_dice: npt.NDArray[np.int8] | None = ...,
    bearoff: BearoffTables | None = ...,
    bearoff_play: bool = ...,
    truncate: bool = ...,
    given_plies: int = ...,
    per_game_equity: npt.NDArray[np.float64] | None = ...,
    net: NeuralNet | None = ...,
    cube_branches: Any = ...,
    met: Any = ...,
    truncate_plies: int = ...,
    vr_moments: npt.NDArray[np.float64] | None = ...,
    per_game_luck: npt.NDArray[np.float64] | None = ...,
    filter_candidates: int = ...,
    filter_window: float = ...,
    per_game_cubeful: npt.NDArray[np.float64] | None = ...,
    cube_first_turn: bool = ...,
    cubeful_play: tuple[bool, bool] = ...,
    match_region: MatchBearoffRegion | None = ...,
    control: npt.NDArray[np.int64] | None = ...,
    rng_state: npt.NDArray[np.uint64] | None = ...,
    moments_into: npt.NDArray[np.float64] | None = ...,
    reply_filter: tuple[int, float] | tuple[tuple[int, float], tuple[int, float]] | None = ...,
    luck_filter: tuple[int, float] | None = ...,
    player_nets: tuple[NeuralNet, NeuralNet] | None = ...,
    reply_analogues: tuple[bool, bool] = ...,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]: ...
def choose(
    board: Board,
    die1: int,
    die2: int,
    player: int,
    seed: int,
    bearoff: BearoffTables | None = ...,
    bearoff_play: bool = ...,
    net: NeuralNet | None = ...,
    filter_candidates: int = ...,
    filter_window: float = ...,
    prices: npt.NDArray[np.float64] | None = ...,
    reply_prices: npt.NDArray[np.float64] | None = ...,
    reply_filter: tuple[int, float] | None = ...,
    reply_analogues: bool = ...,
) -> Board: ...
def first_rolls(seed: int, n: int, first_roll_no_doubles: bool) -> npt.NDArray[np.int8]: ...
def rng_outputs(seed: int, n: int) -> npt.NDArray[np.uint64]: ...
def pubeval_score(board: Board, race: bool | None = ...) -> float: ...
def greedy_score(board: Board) -> float: ...
def bearoff_build_one_sided(
    points: int, checkers: int, k_cols: int, tie_eps: float = ...
) -> tuple[npt.NDArray[np.float64], ...]: ...
def bearoff_play_lists(checkers: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]: ...
def bearoff_build_two_sided(checkers: int) -> npt.NDArray[np.float32]: ...
def bearoff_build_two_sided_cubeful(
    checkers: int, doubled: npt.NDArray[np.float32] | None = ...
) -> npt.NDArray[np.float32]: ...
def bearoff_index(counts: npt.NDArray[np.int8]) -> int: ...
def bearoff_position(index: int, points: int, checkers: int) -> npt.NDArray[np.int8]: ...
def bearoff_n_positions(points: int, checkers: int) -> int: ...

class BearoffTables:
    def __init__(
        self,
        points: int,
        checkers: int,
        rolls: npt.NDArray[np.float64],
        mean: npt.NDArray[np.float64],
        first: npt.NDArray[np.float64] | None = ...,
        win: npt.NDArray[np.float32] | None = ...,
        cubeful: npt.NDArray[np.float32] | None = ...,
    ) -> None: ...
    @property
    def points(self) -> int: ...
    @property
    def checkers(self) -> int: ...
    @property
    def two_sided_checkers(self) -> int: ...
    def win(self, board: Board) -> float | None: ...
    @property
    def cubeful(self) -> bool: ...
    def cubeful_equities(self, board: Board) -> tuple[float, float, float] | None: ...
    def race(self, board: Board) -> tuple[float, float, float] | None: ...
    def choose(self, board: Board, die1: int, die2: int) -> Board | None: ...

NEURAL_INPUTS: int  # with v2's hand features (203)
NEURAL_EXTENDED_INPUTS: int  # with issue 13's features too (209)
NEURAL_TIMING_INPUTS: int  # and its containment, break contact and free pips (215)
INPUT_COUNTS: tuple[int, ...]  # the input sizes a net may have: 198, 203, 209, 215
NEURAL_BASE_INPUTS: int  # the raw inputs only (198)
NEURAL_OUTPUTS: int
FILTER_CANDIDATES: int  # the 1-ply move filter's defaults (5 candidates within 0.16)
FILTER_WINDOW: float
MAX_FILTER_CANDIDATES: int
REPLY_FILTER: tuple[int, float]  # the 1-ply look-ahead's pre-filter of replies (keep, margin); 0: all
LUCK_FILTER: tuple[int, float]  # the luck tables' pre-filter (keep, margin)
ESTIMATORS: dict[str, int]  # the pre-filter's estimators: "prune" (the pruning net), "slope"
REPLY_ESTIMATOR: str  # the estimator of a reply_filter given as (keep, margin): "prune"
LUCK_ESTIMATOR: str  # the estimator of a luck_filter given as (keep, margin): "slope"
FILTER_2PLY_CANDIDATES: int  # the 2-ply search's second filter (3 candidates within 0.10 by 1 ply)
FILTER_2PLY_WINDOW: float
FILTERS_2PLY: tuple[tuple[int, float], tuple[int, float]]
MAX_PLY: int
LOG_KINDS: dict[str, int]  # run_matches(record=True)'s log: the kinds of its entries
LOG_ENTRY_DTYPE: dict[str, object]  # and the numpy dtype of an entry (a dtype's dict form)

class SearchCache:
    """The 2-ply search's bounded cache of evaluated positions (a power of two entries)."""
    def __init__(self, entries: int = ...) -> None: ...
    @property
    def entries(self) -> int: ...
    @property
    def hits(self) -> int: ...
    @property
    def misses(self) -> int: ...
    def clear(self) -> None: ...

class NeuralNet:
    """One-hidden-layer evaluator; weights w1 (I, H), b1 (H,), w2 (5, H), b2 (5,); I = 198, 203, 209 or 215."""
    def __init__(
        self,
        w1: npt.ArrayLike,
        b1: npt.ArrayLike,
        w2: npt.ArrayLike,
        b2: npt.ArrayLike,
        race: NeuralNet | None = ...,
        bearoff: BearoffTables | None = ...,
        prune: NeuralNet | None = ...,
        quantised: bool = ...,
    ) -> None: ...
    @property
    def quantised(self) -> bool: ...
    def as_quantised(self) -> NeuralNet: ...
    @property
    def race(self) -> NeuralNet | None: ...
    @property
    def prune(self) -> NeuralNet | None: ...
    @property
    def bearoff(self) -> BearoffTables | None: ...
    @property
    def hidden(self) -> int: ...
    @property
    def n_inputs(self) -> int: ...
    def arrays(self) -> tuple[npt.NDArray[np.float64], ...]: ...
    def evaluate(self, board: Board, exact: bool = ...) -> npt.NDArray[np.float64]: ...
    def evaluate_many(
        self, boards: npt.NDArray[np.int8], exact: bool = ...
    ) -> npt.NDArray[np.float64]: ...
    def play_equities(self, board: Board, plays: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]: ...
    def play_estimates(
        self, board: Board, plays: npt.NDArray[np.int8],
        prices: npt.NDArray[np.float64] | None = ...,
        estimator: str = ...,
    ) -> npt.NDArray[np.float64]: ...
    def roll_table(
        self, board: Board, reply_filter: tuple[int, float] | tuple[int, float, str] = ...,
        prices: npt.NDArray[np.float64] | None = ...,
    ) -> npt.NDArray[np.float64]: ...
    def move_equity(
        self, board: Board, ply: int = ..., exact: bool = ...,
        prices: npt.NDArray[np.float64] | None = ...,
        reply_prices: npt.NDArray[np.float64] | None = ...,
        cache: SearchCache | None = ...,
    ) -> float: ...
    def selfplay_positions(
        self, games: int, rng_state: npt.NDArray[np.uint64], explore: float = ...,
        outcomes: bool = ...,
    ) -> npt.NDArray[np.int8] | tuple[npt.NDArray[np.int8], npt.NDArray[np.int8]]: ...
    def probs_1ply_many(self, boards: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]: ...
    def probs_many(self, boards: npt.NDArray[np.int8], plies: int = ...) -> npt.NDArray[np.float64]: ...
    def probabilities(
        self, board: Board, ply: int = ..., cache: SearchCache | None = ...,
        prices: npt.NDArray[np.float64] | None = ...,
        reply_prices: npt.NDArray[np.float64] | None = ...,
    ) -> npt.NDArray[np.float64]: ...
    def rank_plays(
        self, board: Board, plays: npt.NDArray[np.int8], ply: int = ...,
        filters: Sequence[tuple[int, float]] | None = ..., cache: SearchCache | None = ...,
        incremental: bool = ..., prices: npt.NDArray[np.float64] | None = ...,
        reply_prices: npt.NDArray[np.float64] | None = ...,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64]]: ...
    def train(
        self, games: int, rng_state: npt.NDArray[np.uint64], alpha: float, backgammons: bool = ...,
        lam: float = ...,
    ) -> npt.NDArray[np.int64]: ...

VARIANT_NET_INPUTS: tuple[int, int]  # the variant nets' input counts: Plakoto, Fevga
VARIANT_INPUT_UNITS: tuple[dict[str, int], dict[str, int]]  # where each side's units are

class VariantNet:
    """The Plakoto (game 0) or Fevga (game 1) net: w1 (I, H), b1 (H,), w2 (5, H), b2 (5,)."""
    def __init__(
        self, game: int, w1: npt.ArrayLike, b1: npt.ArrayLike, w2: npt.ArrayLike,
        b2: npt.ArrayLike,
    ) -> None: ...
    @property
    def game(self) -> int: ...
    @property
    def hidden(self) -> int: ...
    @property
    def n_inputs(self) -> int: ...
    def arrays(self) -> tuple[npt.NDArray[np.float64], ...]: ...
    def evaluate_many(
        self, boards: npt.NDArray[np.int8], pinned: npt.NDArray[np.uint32], exact: bool = ...
    ) -> npt.NDArray[np.float64]: ...
    def play_probs(self, board: Board, pinned: int, plays: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]: ...
    def play_1ply_equities(
        self, board: Board, pinned: int, plays: npt.NDArray[np.int8], options: int = ...
    ) -> npt.NDArray[np.float64]: ...
    def choose(
        self, board: Board, pinned: int, plays: npt.NDArray[np.int8], ply: int = ...,
        options: int = ...,
    ) -> int: ...
    def train(
        self, games: int, rng_state: npt.NDArray[np.uint64], alpha: float, lam: float,
        options: int = ...,
    ) -> npt.NDArray[np.int64]: ...

def variant_neural_inputs(game: int, board: Board, pinned: int = ...) -> npt.NDArray[np.float64]: ...
def neural_inputs(board: Board, features: bool = ..., inputs: int | None = ...) -> npt.NDArray[np.float64]: ...
def races(boards: npt.NDArray[np.int8]) -> npt.NDArray[np.bool_]: ...
def neural_inputs_many(boards: npt.NDArray[np.int8], inputs: int = ...) -> npt.NDArray[np.float32]: ...
def rng_state(seed: int) -> npt.NDArray[np.uint64]: ...
def fast_sigmoid(x: npt.ArrayLike) -> npt.NDArray[np.float32]: ...
def set_look_bound(enabled: bool) -> bool: ...

SIMD_KERNELS: str  # "avx2" or "baseline": the fast evaluator's kernels in this process
INT16_KERNELS: str  # "avx512", "avx2" or "baseline": the int16 evaluator's instance

# The doubling cube and matches (kernels/_cube_api.pxi, _match_api.pxi).

class MatchTableC:
    """A match equity table as the cube kernels read it: pre_crawford (n, n), post_crawford (n,)."""
    def __init__(self, pre: npt.ArrayLike, post: npt.ArrayLike) -> None: ...
    @property
    def size(self) -> int: ...

def match_mwc(met: MatchTableC, away_me: int, away_opp: int, post: bool) -> float: ...
def cube_allows_double(
    value: int, owner: int, max_value: int, jacoby: bool, beaver: bool, away_me: int,
    away_opp: int, crawford: bool, met: MatchTableC | None = ...,
) -> bool: ...
def cube_action_code(
    nd: float, dt: float, dp: float, win: float, win_gammon: float, can_double: bool,
    beaver_money: bool, jacoby_centred: bool,
) -> int: ...
def gammon_prices_of(
    value: int, away_me: int, away_opp: int, met: MatchTableC
) -> tuple[float, float, float, float]: ...
def cube_efficiency_of(board: Board) -> float: ...
def cube_analysis(
    probabilities: npt.NDArray[np.float64], x: float, value: int, owner: int, max_value: int,
    jacoby: bool, beaver: bool, away_me: int, away_opp: int, crawford: bool,
    met: MatchTableC | None = ..., board: Board | None = ..., bearoff: BearoffTables | None = ...,
) -> tuple[float, float, float, float, float, float, float, int, bool, bool]: ...
def run_matches(
    board: Board,
    n_matches: int,
    length: int,
    score_a: int,
    score_b: int,
    post_crawford: bool,
    player_a: int,
    player_b: int,
    seed: int,
    first_roll_no_doubles: bool,
    backgammons: bool,
    max_cube: int,
    winner_starts: bool,
    met: MatchTableC,
    bearoff: BearoffTables | None = ...,
    bearoff_play: bool = ...,
    net: NeuralNet | None = ...,
    tavli: bool = ...,
    variant_player_a: int = ...,
    variant_player_b: int = ...,
    plakoto_options: int = ...,
    fevga_options: int = ...,
    plakoto_draw_ends_game: bool = ...,
    plakoto_net: VariantNet | None = ...,
    fevga_net: VariantNet | None = ...,
    cubeful_play: tuple[bool, bool] = ...,
    regions: MatchBearoffRegions | None = ...,
    control: npt.NDArray[np.int64] | None = ...,
    record: bool = ...,
    reply_filter: tuple[int, float] | tuple[int, float, str] | None = ...,
) -> npt.NDArray[np.int64] | tuple[npt.NDArray[np.int64], npt.NDArray[np.void]]: ...
def bearoff_cube_solution(
    board: Board, value: int, owner: int, max_value: int, away_me: int, away_opp: int,
    crawford: bool, met: MatchTableC | None, bearoff: BearoffTables, budget: int,
) -> tuple[float, float, float, float, bool, int, int] | None: ...
def cube_analysis_match_exact(
    board: Board, value: int, owner: int, max_value: int, away_me: int, away_opp: int,
    crawford: bool, met: MatchTableC, bearoff: BearoffTables, budget: int,
) -> tuple[float, float, float, float, float, float, float, int, bool, int, int] | None: ...

class MatchBearoffRegion:
    def __init__(
        self, bearoff: BearoffTables, checkers: int, value: int, owner: int, max_value: int,
        away_me: int, away_opp: int, crawford: bool, met: MatchTableC,
    ) -> None: ...
    @property
    def checkers(self) -> int: ...
    @property
    def pairs(self) -> int: ...
    def cube_analysis(
        self, board: Board, side: int, value: int, owner: int, bearoff: BearoffTables,
    ) -> tuple[float, float, float, float, float, float, float, int, bool] | None: ...

class MatchBearoffRegions:
    checkers: int
    length: int
    max_cube: int
    def __init__(self, checkers: int, length: int, max_cube: int, met: MatchTableC) -> None: ...
    @property
    def solved(self) -> int: ...
