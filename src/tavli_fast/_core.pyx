# cython: embedsignature=True
"""Compiled kernels of tavli_fast: move generation, Position IDs, RNG, game loop.

Kernels, not API: the Python modules validate arguments and call these.
Board layout everywhere: int8[2][26], row 0 the player on roll, row 1 the
opponent, each row in its own numbering (0 off, 1..24 points, 25 bar).
"""
import numpy as np
cimport numpy as cnp
from libc.stdlib cimport calloc, free, realloc
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t, int64_t
from cpython.pycapsule cimport PyCapsule_New, PyCapsule_GetPointer, PyCapsule_Destructor
from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF

cnp.import_array()

include "_rng.pxi"
include "_movegen.pxi"
include "_posid.pxi"
include "_pubeval.pxi"
include "_greedy.pxi"
include "_bearoff.pxi"
include "_neural.pxi"
include "_game.pxi"


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
        from tavli_fast.movegen import legal_positions_checked
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


def run_games(const int8_t[:, ::1] board, Py_ssize_t n_games, int player0, int player1,
              uint64_t seed, bint first_roll_no_doubles, bint backgammons,
              const int8_t[:, ::1] first_dice=None, BearoffTables bearoff=None,
              bint bearoff_play=True, bint truncate=False, int truncate_from_ply=0,
              double[::1] per_game_equity=None, NeuralNet net=None):
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
    No game is truncated before ply `truncate_from_ply` (a roll that was given
    with the position must be played, not averaged away).
    `per_game_equity`, if given (float64[n_games]), receives each game's
    cubeless equity for player 0: paired comparisons (common random numbers)
    need the games one by one, not only their sums.
    `net`: the NeuralNet of the neural players (required when one plays).
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
    opt.truncate = False
    opt.truncate = truncate
    opt.truncate_from_ply = truncate_from_ply
    if truncate and (bearoff is None or bearoff.db.two_checkers == 0):
        raise ValueError("truncation needs the two-sided bear-off database")
    if per_game_equity is not None and per_game_equity.shape[0] != n_games:
        raise ValueError("per_game_equity must have n_games entries")
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
    cdef int64_t[::1] c = counts
    cdef double[::1] m = moments
    cdef double f[N_FIGURES]
    cdef Rng rng
    rng_seed(&rng, seed)
    cdef MoveGen* g = _new_movegen()
    cdef Py_ssize_t gi
    cdef int k, failed = 0
    cdef GameResult r
    cdef const int8_t* forced = NULL
    try:
        if player0 == PLAYER_NEURAL_1PLY or player1 == PLAYER_NEURAL_1PLY:
            opt.scratch = _new_movegen()    # the replies of the 1-ply look ahead
        with nogil:
            for gi in range(n_games):
                if n_forced:
                    forced = &first_dice[gi, 0]
                r = play_game(g, &b, &opt, &rng, forced, n_forced)
                if r.outcome == FAILED:
                    failed = 1
                    break
                c[r.outcome] += 1
                c[7] += r.plies
                c[8] += <int64_t>r.plies * r.plies
                game_figures(&r, f)
                if equities != NULL:
                    equities[gi] = f[FIG_EQUITY]
                for k in range(N_FIGURES):
                    m[k] += f[k]
                    m[N_FIGURES + k] += f[k] * f[k]
    finally:
        free(g)
        free(opt.scratch)
    if failed:
        raise RuntimeError("a game did not finish (corrupt position?)")
    return counts, moments


def choose(const int8_t[:, ::1] board, int die1, int die2, int player, uint64_t seed,
           BearoffTables bearoff=None, bint bearoff_play=True, NeuralNet net=None):
    """The board (sides not switched) that `player` moves to with (die1, die2)."""
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
    opt.net = _net_c(net)
    opt.scratch = NULL
    rng_seed(&rng, seed)
    cdef int n = generate_plays(_scratch, &b, die1, die2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    if player == PLAYER_NEURAL_1PLY:
        opt.scratch = _new_movegen()
    try:
        i = choose_play(_scratch, &b, n, player, &opt, &rng)
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
