# cython: embedsignature=True
"""Compiled kernels of tavli_fast: move generation, Position IDs, RNG, game loop.

Kernels, not API: the Python modules validate arguments and call these.
Board layout everywhere: int8[2][26], row 0 the player on roll, row 1 the
opponent, each row in its own numbering (0 off, 1..24 points, 25 bar).
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t, int64_t
from cpython.pycapsule cimport PyCapsule_New, PyCapsule_GetPointer, PyCapsule_Destructor
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF

cnp.import_array()

include "kernels/_rng.pxi"
include "kernels/_movegen.pxi"
include "kernels/_variants.pxi"
include "kernels/_plakoto.pxi"
include "kernels/_fevga.pxi"
include "kernels/_posid.pxi"
include "kernels/_pubeval.pxi"
include "kernels/_greedy.pxi"
include "kernels/_bearoff.pxi"
include "kernels/_neural.pxi"
include "kernels/_variant_neural.pxi"
include "kernels/_cube.pxi"
include "kernels/_game.pxi"
include "kernels/_variant_game.pxi"
include "kernels/_match.pxi"


# ---------------------------------------------------------------- helpers

cdef MoveGen* _new_movegen() except NULL:
    cdef MoveGen* g = <MoveGen*>calloc(1, sizeof(MoveGen))
    if g == NULL:
        raise MemoryError("cannot allocate the move generator's tables")
    g.out = g.own
    return g


# Scratch tables for the small calls below, used only while holding the GIL
# (the batch and game kernels allocate their own and release the GIL).
cdef MoveGen* _scratch = _new_movegen()


cdef int _load_board(const int8_t[:, ::1] src, Board* b) except -1:
    if src.shape[0] != 2 or src.shape[1] != 26:
        raise ValueError(f"a board has shape (2, 26), not ({src.shape[0]}, {src.shape[1]})")
    memcpy(b.c, &src[0, 0], 52)
    return 0


cdef int _check_die(int d) except -1:
    if d < 1 or d > 6:
        raise ValueError(f"a die shows 1 to 6, not {d}")
    return 0


cdef _results_array(MoveGen* g, int n):
    out = np.empty((n, 2, 26), dtype=np.int8)
    cdef int8_t[:, :, ::1] view = out
    if n:
        memcpy(&view[0, 0, 0], g.out, n * sizeof(Board))
    return out


cdef void _free_capsule(object capsule) noexcept:
    free(PyCapsule_GetPointer(capsule, NULL))


cdef object _adopt_boards(Board* buf, Py_ssize_t total):
    """An int8[total, 2, 26] array over a malloc'd buffer, which it frees when collected.

    Large results are handed over instead of copied (a copy of tens of MB costs
    as much as generating them).
    """
    cdef cnp.npy_intp dims[3]
    if total == 0:
        free(buf)
        return np.empty((0, 2, 26), dtype=np.int8)
    buf = <Board*>realloc(buf, total * sizeof(Board))   # give back the unused tail
    dims[0] = total
    dims[1] = 2
    dims[2] = 26
    arr = cnp.PyArray_SimpleNewFromData(3, dims, cnp.NPY_INT8, buf)
    cnp.set_array_base(arr, PyCapsule_New(buf, NULL, <PyCapsule_Destructor>_free_capsule))
    return arr


# ---------------------------------------------------------------- move generation

def generate(const int8_t[:, ::1] board, int die1, int die2):
    """Distinct boards reachable with (die1, die2), sides not switched: int8[n, 2, 26].

    When no die can be played the one result is the unchanged board.
    """
    cdef Board b
    _load_board(board, &b)
    _check_die(die1)
    _check_die(die2)
    cdef int n = generate_plays(_scratch, &b, die1, die2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    return _results_array(_scratch, n)


cdef int _check_batch(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice) except -1:
    cdef Py_ssize_t j
    if boards.shape[1] != 2 or boards.shape[2] != 26 or dice.shape[1] != 2:
        raise ValueError("boards must be (m, 2, 26) and dice (k, 2)")
    for j in range(dice.shape[0]):
        _check_die(dice[j, 0])
        _check_die(dice[j, 1])
    return 0


def count_batch(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice):
    """Numbers of distinct plays for every board x roll: int64[m, k]."""
    cdef Py_ssize_t m = boards.shape[0], k = dice.shape[0], i, j
    _check_batch(boards, dice)
    counts = np.zeros((m, k), dtype=np.int64)
    cdef int64_t[:, ::1] cv = counts
    cdef MoveGen* g = _new_movegen()
    cdef int n, bad = 0
    try:
        with nogil:
            for i in range(m):
                for j in range(k):
                    n = generate_plays(g, <const Board*>&boards[i, 0, 0], dice[j, 0], dice[j, 1])
                    if n < 0:
                        bad = 1
                    cv[i, j] = n
    finally:
        free(g)
    if bad:
        raise RuntimeError("more distinct plays than the generator holds")
    return counts


def generate_batch(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice):
    """All plays of every board x roll in one call.

    Returns (results int8[T, 2, 26], offsets int64[m*k + 1]); the plays of
    board i with roll j are results[offsets[i*k + j]:offsets[i*k + j + 1]].
    """
    cdef Py_ssize_t m = boards.shape[0], k = dice.shape[0], i, j
    _check_batch(boards, dice)
    offsets = np.zeros(m * k + 1, dtype=np.int64)
    cdef int64_t[::1] ov = offsets
    cdef MoveGen* g = _new_movegen()
    cdef Board* buf = NULL
    cdef Board* grown
    cdef Py_ssize_t total = 0, cap = 0
    cdef int n, bad = 0
    try:
        with nogil:
            for i in range(m):
                for j in range(k):
                    # Results are written straight into the growing buffer.
                    if total + MAX_RESULTS > cap:
                        cap = 2 * cap + MAX_RESULTS
                        grown = <Board*>realloc(buf, cap * sizeof(Board))
                        if grown == NULL:
                            bad = 2
                            break
                        buf = grown
                    g.out = &buf[total]
                    n = generate_plays(g, <const Board*>&boards[i, 0, 0], dice[j, 0], dice[j, 1])
                    if n < 0:
                        bad = 1
                        break
                    total += n
                    ov[i * k + j + 1] = total
                if bad:
                    break
        if bad == 1:
            raise RuntimeError("more distinct plays than the generator holds")
        if bad == 2:
            raise MemoryError("out of memory collecting plays")
        results = _adopt_boards(buf, total)
        buf = NULL                      # the array owns it now
        return results, offsets
    finally:
        free(g)
        free(buf)


# ---------------------------------------------------------------- Plakoto and Fevga

cdef VarGen* _new_vargen() except NULL:
    cdef VarGen* v = <VarGen*>calloc(1, sizeof(VarGen))
    if v == NULL:
        raise MemoryError("cannot allocate the move generator's tables")
    v.g.out = v.g.own
    return v


cdef VarGen* _vscratch = _new_vargen()


cdef int _check_variant(int game, int options) except -1:
    if game != GAME_PLAKOTO and game != GAME_FEVGA:
        raise ValueError(f"game must be 0 (Plakoto) or 1 (Fevga), not {game}")
    if options < 0 or options > 15:
        raise ValueError(f"options must be a 4-bit mask, not {options}")
    return 0


def variant_generate(const int8_t[:, ::1] board, int game, uint32_t pinned, int options,
                     int die1, int die2):
    """Plakoto (game 0) or Fevga (game 1): distinct boards reachable with (die1, die2).

    `board` is int8[2, 26] in the Portes layout with empty bars; `pinned` has bit p set
    for my point p holding my pinned checker (Plakoto).  Sides not switched: int8[n, 2, 26].
    When nothing can be played the one result is the unchanged board.
    """
    cdef Board b
    _load_board(board, &b)
    _check_die(die1)
    _check_die(die2)
    _check_variant(game, options)
    cdef int n = generate_variant(_vscratch, &b, game, pinned, options, die1, die2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    return _results_array(&_vscratch.g, n)


def variant_count_batch(const int8_t[:, :, ::1] boards, const uint32_t[::1] pinned, int game,
                        int options, const int8_t[:, ::1] dice):
    """Numbers of distinct Plakoto / Fevga plays for every board x roll: int64[m, k]."""
    cdef Py_ssize_t m = boards.shape[0], k = dice.shape[0], i, j
    _check_batch(boards, dice)
    _check_variant(game, options)
    if pinned.shape[0] != m:
        raise ValueError("one pinned mask per board")
    counts = np.zeros((m, k), dtype=np.int64)
    cdef int64_t[:, ::1] cv = counts
    cdef VarGen* v = _new_vargen()
    cdef int n, bad = 0
    try:
        with nogil:
            for i in range(m):
                for j in range(k):
                    n = generate_variant(v, <const Board*>&boards[i, 0, 0], game, pinned[i],
                                         options, dice[j, 0], dice[j, 1])
                    if n < 0:
                        bad = 1
                    cv[i, j] = n
    finally:
        free(v)
    if bad:
        raise RuntimeError("more distinct plays than the generator holds")
    return counts


cdef int _check_vplayer(int p, bint have_net) except -1:
    if p < VPLAYER_RANDOM or p > VPLAYER_NEURAL_1PLY:
        raise ValueError(f"a variant player is 0 (random), 1 (heuristic), 2 (neural) or "
                         f"3 (neural-1ply), not {p}")
    if p >= VPLAYER_NEURAL and not have_net:
        raise ValueError("a neural variant player needs the game's VariantNet")
    return 0


def run_variant_games(const int8_t[:, ::1] board, uint32_t pinned, int game, int options,
                      Py_ssize_t n_games, int player0, int player1, uint64_t seed,
                      const int8_t[:, ::1] first_dice=None, int8_t[::1] outcomes=None,
                      VariantNet net=None):
    """Play n_games Plakoto (game 0) / Fevga (game 1) games from `board`; player 0 on roll.

    Players: 0 random (uniform over the distinct results), 1 heuristic, 2 neural and
    3 neural-1ply (they need `net`, the game's VariantNet).  `pinned`: the
    pinned mask of the side on roll (Plakoto).  Returns int64[9]: the counts of the
    outcomes win single, win double, win by the mother rule, lose single, lose double,
    lose by the mother rule, draw (for player 0), then the sum and the sum of squares
    of the plies.  first_dice[i, 2j:2j+2] forces roll j of game i (a 0 pair rolls
    normally), as in run_games.  `outcomes`, if given (int8[n_games]), receives each
    game's outcome code (0-6 as above): paired comparisons need the games one by one.
    The same seed (and dice) gives the same games.
    """
    cdef Board b
    _load_board(board, &b)
    _check_variant(game, options)
    for p in (player0, player1):
        _check_vplayer(p, net is not None)
    cdef VNPlayers nn
    nn.net[GAME_PLAKOTO] = nn.net[GAME_FEVGA] = NULL
    nn.net[game] = _vnet_c(net, game)
    nn.scratch = NULL
    cdef int players[2]
    players[0] = player0
    players[1] = player1
    cdef int n_forced = 0
    cdef Py_ssize_t i, j
    if first_dice is not None:
        if first_dice.shape[0] != n_games or first_dice.shape[1] % 2:
            raise ValueError("first_dice must be (n_games, 2k)")
        n_forced = first_dice.shape[1] // 2
        for i in range(n_games):
            for j in range(first_dice.shape[1]):
                if first_dice[i, j] < 0 or first_dice[i, j] > 6:
                    raise ValueError("first_dice values must be 0 (roll) or 1..6")
    if outcomes is not None and outcomes.shape[0] != n_games:
        raise ValueError("outcomes must have n_games entries")
    counts = np.zeros(V_N_OUTCOMES + 2, dtype=np.int64)
    cdef int64_t[::1] cv = counts
    cdef VarGen* v = _new_vargen()
    cdef Rng rng
    cdef int outcome, plies = 0, failed = 0
    cdef const int8_t* forced = NULL
    cdef bint keep = outcomes is not None
    rng_seed(&rng, seed)
    try:
        if player0 == VPLAYER_NEURAL_1PLY or player1 == VPLAYER_NEURAL_1PLY:
            nn.scratch = _new_vargen()
        with nogil:
            for i in range(n_games):
                if n_forced:
                    forced = &first_dice[i, 0]
                outcome = play_variant_game(v, &b, pinned, game, options, players, &rng, &plies,
                                            forced, n_forced, &nn)
                if outcome < 0:
                    failed = 1
                    break
                cv[outcome] += 1
                cv[V_N_OUTCOMES] += plies
                cv[V_N_OUTCOMES + 1] += <int64_t>plies * plies
                if keep:
                    outcomes[i] = <int8_t>outcome
    finally:
        free(v)
        free(nn.scratch)
    if failed:
        raise RuntimeError("a game did not end (or overflowed the generator): a rules bug")
    return counts


# ---------------------------------------------------------------- Position IDs

def encode_position_id(const int8_t[:, ::1] board):
    """gnubg Position ID (14 characters) of a board."""
    cdef Board b
    cdef char out[14]
    _load_board(board, &b)
    posid_encode(&b, out)
    return out[:14].decode("ascii")


def decode_position_id(str text):
    """(board int8[2, 26], 0) for a legal 14-character id, else (None, error code).

    Error codes are those of posid_decode; position.py words the messages.
    """
    cdef Board b
    if len(text) != 14 or not text.isascii():
        return None, 1
    cdef bytes raw = text.encode("ascii")
    cdef int err = posid_decode(raw, &b)
    if err:
        return None, err
    out = np.empty((2, 26), dtype=np.int8)
    cdef int8_t[:, ::1] v = out
    memcpy(&v[0, 0], b.c, 52)
    return out, 0


cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object o)
    bint PyUnicode_IS_COMPACT_ASCII(object o)


cdef extern from "Python.h":
    long PyLong_AsLongAndOverflow(object o, int* overflow) except? -1


cdef inline int _small_die(object die) noexcept:
    """The value of an exact int die 1..6, else 0 (bool, float, out of range...)."""
    cdef int overflow = 0
    cdef long v
    if type(die) is not int:
        return 0
    v = PyLong_AsLongAndOverflow(die, &overflow)
    if overflow or v < 1 or v > 6:
        return 0
    return <int>v


def legal_positions(position_id, die1, die2):
    """legal_positions(position_id: str, die1: int, die2: int) -> list[str]

    gnubg Position IDs of the distinct positions reachable with (die1, die2),
    seen from the mover (sides not switched).  A roll with no legal play gives
    [position_id]: the unchanged position.  `position_id` may also be an XGID
    (its own dice, if any, are ignored here: the dice given are played).
    Raises InvalidDiceError / InvalidPositionError (both ValueError).

    Defined in the core so that the common call costs no Python frame: the
    plain case (a valid 14-character id, dice 1..6) is answered here, anything
    else goes to movegen.legal_positions_checked, which words the error or
    reads the XGID.
    """
    ids = legal_position_ids(position_id, die1, die2)
    if ids is None:
        from tavli_fast.game.movegen import legal_positions_checked
        return legal_positions_checked(position_id, die1, die2)
    return ids


cpdef list legal_position_ids(position_id, die1, die2):
    """Position IDs of the distinct plays (sides not switched), or None.

    Decoding, generation and encoding happen here, each id written straight
    into a new str object.  None means "not the plain case" (bad dice, not a
    14-character id, a bad or finished position).
    """
    cdef Board b
    cdef int i, n
    cdef int d1 = _small_die(die1), d2 = _small_die(die2)
    if d1 == 0 or d2 == 0 or type(position_id) is not str:
        return None
    if len(<str>position_id) != 14 or not PyUnicode_IS_COMPACT_ASCII(position_id):
        return None
    if posid_decode(<const char*>PyUnicode_DATA(position_id), &b):
        return None
    if b.c[0][0] == 15 or b.c[1][0] == 15:
        return None
    n = generate_plays(_scratch, &b, d1, d2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    # The opponent's part of the key is the same for every play that hits nothing.
    cdef int root_len, opp_len, my_len
    cdef uint64_t root_opp = posid_side_bits(b.c[1], &root_len)
    cdef uint64_t opp, mine
    cdef const Board* r
    cdef list out = PyList_New(n)        # its items are set below, once each
    for i in range(n):
        r = &_scratch.out[i]
        if r.c[1][25] == b.c[1][25]:
            opp, opp_len = root_opp, root_len
        else:
            opp = posid_side_bits(r.c[1], &opp_len)
        mine = posid_side_bits(r.c[0], &my_len)
        s = PyUnicode_New(14, 127)
        posid_from_bits(opp, opp_len, mine, <char*>PyUnicode_DATA(s))
        Py_INCREF(s)                    # PyList_SET_ITEM steals the reference
        PyList_SET_ITEM(out, i, s)
    return out


# ---------------------------------------------------------------- games

cdef const BearoffDB* _tables_db(BearoffTables tables):
    return &tables.db if tables is not None else NULL


cdef const NeuralNetC* _net_c(NeuralNet net):
    return &net.c if net is not None else NULL


cdef int _check_player(int player, BearoffTables bearoff, NeuralNet net) except -1:
    """A known player kind, with the data it needs."""
    if player < PLAYER_RANDOM or player > PLAYER_NEURAL_1PLY:
        raise ValueError(f"unknown player kind {player}")
    if player == PLAYER_BEAROFF and bearoff is None:
        raise ValueError("the bearoff player needs the bear-off databases")
    if (player == PLAYER_NEURAL or player == PLAYER_NEURAL_1PLY) and net is None:
        raise ValueError("the neural players need a NeuralNet")
    return 0


cdef int _set_filter(GameOptions* opt, int candidates, double window) except -1:
    """The 1-ply move filter, checked."""
    if not 1 <= candidates <= NN_MAX_CANDIDATES:
        raise ValueError(f"the move filter keeps 1 to {NN_MAX_CANDIDATES} candidates, not {candidates}")
    if not window >= 0.0:
        raise ValueError(f"the move filter's window must be >= 0, not {window}")
    opt.filter.candidates = candidates
    opt.filter.window = window
    return 0


def run_games(const int8_t[:, ::1] board, Py_ssize_t n_games, int player0, int player1,
              uint64_t seed, bint first_roll_no_doubles, bint backgammons,
              const int8_t[:, ::1] first_dice=None, BearoffTables bearoff=None,
              bint bearoff_play=True, bint truncate=False, int given_plies=0,
              double[::1] per_game_equity=None, NeuralNet net=None, cube_branches=None,
              MatchTableC met=None, int truncate_plies=0, double[::1] vr_moments=None,
              double[::1] per_game_luck=None, int filter_candidates=NN_1PLY_CANDIDATES,
              double filter_window=NN_1PLY_WINDOW, double[::1] per_game_cubeful=None,
              bint cube_first_turn=False, cubeful_play=(False, False)):
    """Play n_games games from `board`; player0 is on roll first.

    Returns (counts int64[9], moments float64[12]):
    counts = win_single, win_gammon, win_backgammon, lose_single, lose_gammon,
    lose_backgammon (exclusive outcomes of finished games, for player 0),
    truncated games, plies_sum, plies_sumsq;
    moments = the sums, then the sums of squares, of the per-game figures win,
    win_gammon, win_backgammon, lose_gammon, lose_backgammon, equity (gammons
    include backgammons; a truncated game counts its exact win probability).
    first_dice[i, 2j:2j+2] forces roll j of game i (a 0 pair rolls normally).
    `bearoff`: loaded databases (BearoffTables), used by the `bearoff` player,
    by pubeval/greedy when `bearoff_play`, and for truncation when `truncate`.
    `given_plies`: the first plies whose dice were given with the position (0 or 1):
    they are never truncated (a given roll must be played, not averaged away) and
    their roll is no luck.
    `truncate_plies` > 0: stop each game after that many plies and count the net's
    0-ply probabilities there (fast, but biased by the net's errors); needs `net`.
    `vr_moments` (float64[12]), if given, turns on variance reduction (needs `net`): every
    roll's luck is measured by the net (the probabilities after the best 0-ply play for the
    rolled dice less their mean over the 36 rolls, reusing a 1-ply player's look at the
    opponent's rolls), and the sums, then the sums of squares, of the six figures less the
    game's luck are added to it.  `per_game_luck` (float64[n_games]), with it, receives
    each game's luck in equity for player 0 (the luck-adjusted equity is
    per_game_equity - per_game_luck).
    `filter_candidates`, `filter_window`: the 1-ply move filter (at most that many
    candidates, within that equity of the best 0-ply play; 1..16 and >= 0).
    `per_game_equity`, if given (float64[n_games]), receives each game's
    cubeless equity for player 0: paired comparisons (common random numbers)
    need the games one by one, not only their sums.
    `net`: the NeuralNet of the neural players (required when one plays).
    `per_game_cubeful` (float64[n_games], with `cube_branches`) receives each game's cubeful
    result of the first branch for player 0 (as in `cube`'s sums: paired comparisons).
    `cube_first_turn`: player 0 makes a cube decision before his first roll too (the
    position was reached by a play; without it ply 0's cube is the branches' own).
    `cubeful_play` (a pair, player 0's then player 1's): with `cube_branches`, that side's
    0-ply neural player picks its plays by cubeful equity at its cube (the first live
    branch's), else by cubeless equity.
    `cube_branches`: play with the doubling cube, following up to two cube histories on
    the same games: a sequence of tuples (value, owner, max_value, jacoby, beaver, away_me,
    away_opp, crawford), each a starting cube seen by player 0 (owner 0 centre, 1 player
    0, 2 player 1; away 0 = money), with `met` for a match.  Games are then never
    truncated, and a third array is returned, cube = [sum_0, sum_1, sumsq_0, sumsq_1,
    sum_d, sumsq_d, cube_0, cube_1, sum_cl, sumsq_cl]: per branch k the sums of each
    game's cubeful result for player 0 (money: points per unit of branch 0's starting
    cube; match: MWC) and of its square, the same for d = result_1 - result_0 (paired),
    the sums of the final cube values, and the same two sums of the cubeless result on
    that scale (a dead cube at branch 0's value).
    """
    cdef Board b
    _load_board(board, &b)
    cdef GameOptions opt
    opt.players[0] = player0
    opt.players[1] = player1
    for p in (player0, player1):
        _check_player(p, bearoff, net)
    opt.net = _net_c(net)
    opt.scratch = NULL
    opt.first_roll_no_doubles = first_roll_no_doubles
    opt.backgammons = backgammons
    opt.bearoff = _tables_db(bearoff)
    opt.bearoff_play = bearoff_play
    opt.truncate = truncate
    opt.given_plies = given_plies
    opt.truncate_plies = truncate_plies
    opt.vr = vr_moments is not None
    _set_filter(&opt, filter_candidates, filter_window)
    opt.n_branches = 0
    opt.stop_on_pass = False
    opt.cube_first_turn = cube_first_turn
    if len(cubeful_play) != 2:
        raise ValueError("cubeful_play is a pair: player 0's, then player 1's")
    opt.cubeful_play[0] = bool(cubeful_play[0])
    opt.cubeful_play[1] = bool(cubeful_play[1])
    if (opt.vr or truncate_plies > 0) and net is None:
        raise ValueError("variance reduction and truncation after N plies need a NeuralNet")
    if truncate_plies < 0:
        raise ValueError(f"truncate_plies must be >= 0, not {truncate_plies}")
    if opt.vr and vr_moments.shape[0] != 2 * N_FIGURES:
        raise ValueError(f"vr_moments must have {2 * N_FIGURES} entries")
    if per_game_luck is not None and (not opt.vr or per_game_luck.shape[0] != n_games):
        raise ValueError("per_game_luck needs vr_moments and n_games entries")
    if cube_branches is not None:
        if not 1 <= len(cube_branches) <= MAX_BRANCHES:
            raise ValueError(f"one or two cube branches, not {len(cube_branches)}")
        for i, branch in enumerate(cube_branches):
            if len(branch) != 8:
                raise ValueError("a cube branch is (value, owner, max_value, jacoby, beaver, "
                                 "away_me, away_opp, crawford)")
            _cube_state(&opt.cube[i], branch[0], branch[1], branch[2], branch[3], branch[4],
                        branch[5], branch[6], branch[7], met)
        opt.n_branches = len(cube_branches)
    if truncate and (bearoff is None or bearoff.db.two_checkers == 0):
        raise ValueError("truncation needs the two-sided bear-off database")
    if truncate and cube_branches is not None and bearoff.db.cubeful == NULL:
        raise ValueError("truncating a cubeful rollout needs the cubeful bear-off database")
    if per_game_equity is not None and per_game_equity.shape[0] != n_games:
        raise ValueError("per_game_equity must have n_games entries")
    if per_game_cubeful is not None and (cube_branches is None
                                         or per_game_cubeful.shape[0] != n_games):
        raise ValueError("per_game_cubeful needs cube_branches and n_games entries")
    cdef double* cubefuls = &per_game_cubeful[0] if per_game_cubeful is not None and n_games else NULL
    cdef double* equities = &per_game_equity[0] if per_game_equity is not None and n_games else NULL
    cdef int n_forced = 0
    if first_dice is not None:
        if first_dice.shape[0] != n_games or first_dice.shape[1] % 2:
            raise ValueError("first_dice must be (n_games, 2k)")
        n_forced = first_dice.shape[1] // 2
        for i in range(n_games):
            for j in range(first_dice.shape[1]):
                if first_dice[i, j] < 0 or first_dice[i, j] > 6:
                    raise ValueError("forced dice must be 1..6 (or 0 for a normal roll)")
    counts = np.zeros(9, dtype=np.int64)
    moments = np.zeros(2 * N_FIGURES, dtype=np.float64)
    cube_moments = np.zeros(10, dtype=np.float64)
    cdef int64_t[::1] c = counts
    cdef double[::1] m = moments
    cdef double[::1] cm = cube_moments
    cdef double v[MAX_BRANCHES]
    cdef double cubeless
    cdef double f[N_FIGURES]
    cdef double a[N_FIGURES]
    cdef double* lucks = &per_game_luck[0] if per_game_luck is not None and n_games else NULL
    cdef Rng rng
    rng_seed(&rng, seed)
    cdef MoveGen* g = _new_movegen()
    cdef Py_ssize_t gi
    cdef int k, failed = 0
    cdef GameResult r
    cdef const int8_t* forced = NULL
    try:
        if player0 == PLAYER_NEURAL_1PLY or player1 == PLAYER_NEURAL_1PLY or opt.vr:
            opt.scratch = _new_movegen()    # the replies of the 1-ply look ahead, the luck
        with nogil:
            for gi in range(n_games):
                if n_forced:
                    forced = &first_dice[gi, 0]
                r = play_game(g, &b, &opt, &rng, forced, n_forced)
                if r.outcome == FAILED:
                    failed = 1
                    break
                if opt.n_branches:
                    cube_figures(&r, &opt, v, &cubeless)
                    if cubefuls != NULL:
                        cubefuls[gi] = v[0]
                    cm[8] += cubeless
                    cm[9] += cubeless * cubeless
                    for k in range(opt.n_branches):
                        cm[k] += v[k]
                        cm[2 + k] += v[k] * v[k]
                        cm[6 + k] += r.cube[k]
                    if opt.n_branches == 2:
                        cm[4] += v[1] - v[0]
                        cm[5] += (v[1] - v[0]) * (v[1] - v[0])
                c[r.outcome] += 1
                c[7] += r.plies
                c[8] += <int64_t>r.plies * r.plies
                game_figures(&r, f)
                if equities != NULL:
                    equities[gi] = f[FIG_EQUITY]
                for k in range(N_FIGURES):
                    m[k] += f[k]
                    m[N_FIGURES + k] += f[k] * f[k]
                if opt.vr:
                    luck_adjusted(&r, f, a)
                    if lucks != NULL:
                        lucks[gi] = f[FIG_EQUITY] - a[FIG_EQUITY]
                    for k in range(N_FIGURES):
                        vr_moments[k] += a[k]
                        vr_moments[N_FIGURES + k] += a[k] * a[k]
    finally:
        free(g)
        free(opt.scratch)
    if failed:
        raise RuntimeError("a game did not finish (corrupt position?)")
    if opt.n_branches:
        return counts, moments, cube_moments
    return counts, moments


def choose(const int8_t[:, ::1] board, int die1, int die2, int player, uint64_t seed,
           BearoffTables bearoff=None, bint bearoff_play=True, NeuralNet net=None,
           int filter_candidates=NN_1PLY_CANDIDATES, double filter_window=NN_1PLY_WINDOW,
           const double[::1] prices=None, const double[::1] reply_prices=None):
    """The board (sides not switched) that `player` moves to with (die1, die2); the 1-ply
    player uses the move filter (filter_candidates, filter_window) as in run_games.
    `prices`: the mover's gammon prices (win gammon, lose gammon, win bg, lose bg) that the
    neural players use in a match (gammon_prices_of); `reply_prices`: the opponent's, at
    which the 1-ply look picks his replies (both None: money; the 1-ply player needs both
    or neither)."""
    cdef Board b
    cdef Rng rng
    cdef GameOptions opt
    cdef int i
    _load_board(board, &b)
    _check_die(die1)
    _check_die(die2)
    _check_player(player, bearoff, net)
    opt.bearoff = _tables_db(bearoff)
    opt.bearoff_play = bearoff_play
    opt.truncate = False
    opt.truncate_plies = 0
    opt.vr = False
    _set_filter(&opt, filter_candidates, filter_window)
    opt.n_branches = 0
    opt.cube_first_turn = False
    opt.cubeful_play[0] = opt.cubeful_play[1] = False
    opt.net = _net_c(net)
    opt.scratch = NULL
    rng_seed(&rng, seed)
    cdef int n = generate_plays(_scratch, &b, die1, die2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    if player == PLAYER_NEURAL_1PLY:
        opt.scratch = _new_movegen()
    try:
        if ((prices is not None and prices.shape[0] != 4)
                or (reply_prices is not None and reply_prices.shape[0] != 4)):
            raise ValueError("gammon prices are four numbers")
        if player == PLAYER_NEURAL_1PLY and (prices is None) != (reply_prices is None):
            raise ValueError("the 1-ply player needs both sides' gammon prices, or neither")
        i = choose_play(_scratch, &b, n, player, &opt, &rng, NULL,
                        &prices[0] if prices is not None else NULL,
                        &reply_prices[0] if reply_prices is not None else NULL)
    finally:
        free(opt.scratch)
    out = np.empty((2, 26), dtype=np.int8)
    cdef int8_t[:, ::1] v = out
    memcpy(&v[0, 0], &_scratch.out[i], 52)
    return out


def first_rolls(uint64_t seed, Py_ssize_t n, bint first_roll_no_doubles):
    """The opening rolls of n games as the game loop draws them: int8[n, 2].

    Uses the same code path as run_games (for the R5 tests); each row is one
    game's first roll from a generator seeded with `seed` and advanced in turn.
    """
    cdef Rng rng
    cdef int d1, d2
    cdef Py_ssize_t i
    rng_seed(&rng, seed)
    out = np.empty((n, 2), dtype=np.int8)
    cdef int8_t[:, ::1] v = out
    for i in range(n):
        roll_for_ply(&rng, 0, first_roll_no_doubles, NULL, 0, &d1, &d2)
        v[i, 0] = d1
        v[i, 1] = d2
    return out


def rng_outputs(uint64_t seed, Py_ssize_t n):
    """The first n outputs of the core generator for `seed` (pinned by a golden test)."""
    cdef Rng rng
    rng_seed(&rng, seed)
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] v = out
    cdef Py_ssize_t i
    for i in range(n):
        v[i] = rng_next(&rng)
    return out


# ---------------------------------------------------------------- the doubling cube

cdef class MatchTableC:
    """A match equity table as the cube kernels read it (met.py builds it)."""
    cdef MatchTable t
    cdef object _pre, _post

    def __cinit__(self, pre, post):
        self._pre = np.ascontiguousarray(pre, dtype=np.float64)
        self._post = np.ascontiguousarray(post, dtype=np.float64)
        cdef Py_ssize_t n = self._post.shape[0]
        if self._pre.ndim != 2 or self._pre.shape[0] != n or self._pre.shape[1] != n or n < 1:
            raise ValueError("a match equity table is pre_crawford (n, n) and post_crawford (n,)")
        cdef const double[:, ::1] pre_v = self._pre
        cdef const double[::1] post_v = self._post
        self.t.n = <int>n
        self.t.pre = &pre_v[0, 0]
        self.t.post = &post_v[0]

    @property
    def size(self):
        return self.t.n


cdef int _cube_state(CubeState* s, int value, int owner, int max_value, bint jacoby,
                     bint beaver, int away_me, int away_opp, bint crawford,
                     MatchTableC met) except -1:
    if owner < CUBE_CENTRE or owner > CUBE_THEIRS:
        raise ValueError(f"unknown cube owner {owner}")
    if value < 1 or max_value < value:
        raise ValueError(f"bad cube value {value} (maximum {max_value})")
    s.value = value
    s.owner = owner
    s.max_value = max_value
    s.jacoby = jacoby
    s.beaver = beaver
    s.away_me = away_me
    s.away_opp = away_opp
    s.crawford = crawford
    s.met = NULL
    if away_me or away_opp:
        if met is None:
            raise ValueError("match play needs a match equity table")
        if away_me < 1 or away_opp < 1 or away_me > met.t.n or away_opp > met.t.n:
            raise ValueError(f"away counts {away_me}, {away_opp} outside the table (1..{met.t.n})")
        s.met = &met.t
    return 0


def match_mwc(MatchTableC met, int away_me, int away_opp, bint post):
    """MWC of the player `away_me` points from winning against `away_opp` (<= 0: won);
    `post`: the Crawford game has been played (read the post-Crawford table)."""
    if away_me > met.t.n or away_opp > met.t.n:
        raise ValueError(f"away counts {away_me}, {away_opp} outside the table (at most {met.t.n})")
    if away_me <= 0 and away_opp <= 0:
        raise ValueError("both players cannot have won")
    return met_mwc(&met.t, away_me, away_opp, post)


def cube_allows_double(int value, int owner, int max_value, bint jacoby, bint beaver,
                       int away_me, int away_opp, bint crawford, MatchTableC met=None):
    """R22-R25: may the side on roll double with this cube and score?"""
    cdef CubeState s
    _cube_state(&s, value, owner, max_value, jacoby, beaver, away_me, away_opp, crawford, met)
    return bool(cube_can_double(&s))


def cube_action_code(double nd, double dt, double dp, double win, double win_gammon,
                     bint can_double, bint beaver_money, bint jacoby_centred):
    """The proper cube action (an ACT_* code, cube.ACTIONS) from three cubeful equities."""
    return cube_action(nd, dt, dp, win, win_gammon, can_double, beaver_money, jacoby_centred)


def gammon_prices_of(int value, int away_me, int away_opp, MatchTableC met):
    """The match prices (win gammon, lose gammon, win backgammon, lose backgammon) of the side
    on roll at this score and cube, in units of a single game (money would be 1, 1, 1, 1)."""
    cdef CubeState s
    cdef double prices[4]
    _cube_state(&s, value, CUBE_CENTRE, max(value, 1), False, False, away_me, away_opp, False, met)
    gammon_prices(&s, prices)
    return (prices[0], prices[1], prices[2], prices[3])


def cube_efficiency_of(const int8_t[:, ::1] board):
    """The cube efficiency x of a position (CUBE.md: contact 0.76, race, bear-off 0.6)."""
    cdef Board b
    _load_board(board, &b)
    return cube_efficiency(&b)


def cube_analysis(const double[::1] probabilities, double x, int value, int owner,
                  int max_value, bint jacoby, bint beaver, int away_me, int away_opp,
                  bint crawford, MatchTableC met=None, const int8_t[:, ::1] board=None,
                  BearoffTables bearoff=None):
    """Cube analysis: (cubeless, nd, dt, dp, mwc_nd, mwc_dt, mwc_dp, action, can_double,
    exact).

    `probabilities`: the five cubeless probabilities of the side on roll.  `owner`: 0 centre,
    1 the side on roll, 2 the opponent.  away_me = away_opp = 0 is money play.  With
    `board` and `bearoff` (cubeful tables loaded), a money position in the cubeful bear-off
    database is answered exactly (exact = True); otherwise the 0-ply model.
    """
    cdef CubeState s
    cdef CubeAnalysis a
    cdef Board b
    if probabilities.shape[0] != 5:
        raise ValueError("five probabilities are needed")
    _cube_state(&s, value, owner, max_value, jacoby, beaver, away_me, away_opp, crawford, met)
    if board is not None:
        _load_board(board, &b)
    if board is None or not cube_analyse_exact(_tables_db(bearoff), &b, &s, &a):
        cube_analyse(&probabilities[0], x, &s, &a)
    return (a.cubeless, a.nd, a.dt, a.dp, a.mwc_nd, a.mwc_dt, a.mwc_dp, a.action,
            bool(a.can_double), bool(a.exact))


def run_matches(const int8_t[:, ::1] board, Py_ssize_t n_matches, int length, int score_a,
                int score_b, bint post_crawford, int player_a, int player_b, uint64_t seed,
                bint first_roll_no_doubles, bint backgammons, int max_cube, bint winner_starts,
                MatchTableC met, BearoffTables bearoff=None, bint bearoff_play=True,
                NeuralNet net=None, bint tavli=False, int variant_player_a=VPLAYER_HEURISTIC,
                int variant_player_b=VPLAYER_HEURISTIC, int plakoto_options=0,
                int fevga_options=0, bint plakoto_draw_ends_game=False,
                VariantNet plakoto_net=None, VariantNet fevga_net=None,
                cubeful_play=(False, False)):
    """Play n_matches matches to `length` points from the score (score_a, score_b).

    Every Portes game starts from `board` (the starting position).  max_cube = 1 plays
    without the cube.  `tavli` (T1-T3, needs max_cube = 1): the games rotate Portes,
    Plakoto, Fevga, the variant games played by variant_player_a / _b (VPLAYER_*) under
    the option bits plakoto_options / fevga_options (the neural ones, 2 and 3, need
    plakoto_net and fevga_net); plakoto_draw_ends_game: P6's option,
    a draw is a game that nobody scores instead of a replay.  `cubeful_play` (A's, then
    B's): that player's 0-ply neural player picks its plays by cubeful equity at the match's
    cube and score (run_games).  Returns int64[N_MATCH_TALLIES]:
    matches won by A, games, sum of games squared, sum of final cubes, A's single /
    gammon (2 points) / backgammon wins, B's, games ended by a pass, points scored by A
    and by B, then per game type (Portes, Plakoto, Fevga) games decided, A's points, B's
    points and the sums of their squares, then Plakoto mother-rule wins of A and of B,
    and Plakoto draws (replayed; counted in the games).
    """
    cdef Board b
    _load_board(board, &b)
    for p in (player_a, player_b):
        _check_player(p, bearoff, net)
    if met is None or length < 1 or length > met.t.n:
        raise ValueError(f"a match of {length} points needs a match equity table that long")
    if not (0 <= score_a < length and 0 <= score_b < length):
        raise ValueError(f"score {score_a}-{score_b} is not one of a {length}-point match")
    if max_cube < 1:
        raise ValueError("max_cube must be at least 1")
    if tavli:
        if max_cube != 1:
            raise ValueError("a tavli match is played without the cube (T1): max_cube must be 1")
        for p in (variant_player_a, variant_player_b):
            _check_vplayer(p, plakoto_net is not None and fevga_net is not None)
        _check_variant(GAME_PLAKOTO, plakoto_options)
        _check_variant(GAME_FEVGA, fevga_options)
    cdef GameOptions opt
    cdef MatchOptions m
    cdef int players[2]
    players[0] = player_a
    players[1] = player_b
    opt.net = _net_c(net)
    opt.scratch = NULL
    opt.first_roll_no_doubles = first_roll_no_doubles
    opt.backgammons = backgammons
    opt.bearoff = _tables_db(bearoff)
    opt.bearoff_play = bearoff_play
    opt.given_plies = 0
    opt.truncate_plies = 0
    opt.vr = False
    _set_filter(&opt, NN_1PLY_CANDIDATES, NN_1PLY_WINDOW)
    m.length = length
    m.score[0] = score_a
    m.score[1] = score_b
    m.post_crawford = post_crawford
    m.max_cube = max_cube
    m.winner_starts = winner_starts
    m.met = &met.t
    m.tavli = tavli
    m.variant_players[0] = variant_player_a
    m.variant_players[1] = variant_player_b
    m.variant_options[0] = plakoto_options
    m.variant_options[1] = fevga_options
    m.draw_ends_game = plakoto_draw_ends_game
    if len(cubeful_play) != 2:
        raise ValueError("cubeful_play is a pair: A's, then B's")
    m.cubeful_play[0] = bool(cubeful_play[0])
    m.cubeful_play[1] = bool(cubeful_play[1])
    opt.cube_first_turn = False
    m.vnn.net[GAME_PLAKOTO] = _vnet_c(plakoto_net, GAME_PLAKOTO)
    m.vnn.net[GAME_FEVGA] = _vnet_c(fevga_net, GAME_FEVGA)
    m.vnn.scratch = NULL
    tally = np.zeros(N_MATCH_TALLIES, dtype=np.int64)
    cdef int64_t[::1] t = tally
    cdef Rng rng
    rng_seed(&rng, seed)
    cdef MoveGen* g = _new_movegen()
    cdef VarGen* v = NULL
    cdef Py_ssize_t i
    cdef bint failed = False
    try:
        if player_a == PLAYER_NEURAL_1PLY or player_b == PLAYER_NEURAL_1PLY:
            opt.scratch = _new_movegen()
        if tavli:
            v = _new_vargen()
            if variant_player_a == VPLAYER_NEURAL_1PLY or variant_player_b == VPLAYER_NEURAL_1PLY:
                m.vnn.scratch = _new_vargen()
        with nogil:
            for i in range(n_matches):
                play_match(g, v, &b, &opt, players, &m, &rng, &t[0])
                if t[MT_GAMES] < 0:
                    failed = True
                    break
    finally:
        free(g)
        free(v)
        free(m.vnn.scratch)
        free(opt.scratch)
    if failed:
        raise RuntimeError("a game did not finish (corrupt position?)")
    return tally
