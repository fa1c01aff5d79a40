# Tesauro's public evaluation function "pubeval" (included by _core.pyx).
#
# pubeval is a linear move-selection function published by Gerald Tesauro
# (IBM Research, 1993) "as a public service to the backgammon programming
# community" as a benchmark opponent.  Score = W . x, with one weight vector
# for racing positions and one for contact positions.  The 2 x 122 weights
# below are Tesauro's published numbers, transcribed from pubeval.c; they are
# checked against GNU Backgammon's copy through gnubg_nn.pub_eval_score in
# tests/play/test_evaluators.py (this file contains no code from either project).
#
# Inputs, for the side that has just moved ("me", row 0 of the Board):
#   for each of my points p = 1..24, in group g = 24 - p (Tesauro numbers the
#   groups from my 24-point down to my 1-point), five inputs:
#     x[5g+0] = 1 if the OPPONENT has exactly one checker on my point p
#     x[5g+1] = 1 if I have exactly 1 checker on p
#     x[5g+2] = 1 if I have >= 2 checkers on p
#     x[5g+3] = 1 if I have exactly 3
#     x[5g+4] = (n - 3) / 2 if I have n >= 4
#   x[120] = (opponent checkers on the bar) / 2
#   x[121] = (my checkers borne off) / 15
# My own checkers on the bar have no input (as in the original).  A position
# with all 15 of my checkers off scores 99999999 (as float: 1e8).
#
# Choice of weights: the race weights are used when the board is not a
# contact position (no checker of one side still has to pass a checker of
# the other side, or one side has no checker left on the board), exactly as
# gnubg_nn.pub_eval_score decides (gnubg's ClassifyPosition(board) <=
# CLASS_RACE, computed on the position AFTER the move).  Tesauro's original
# instructions (and gnubg's own pub_best_move) classify the position BEFORE
# the move instead; _pubeval_with_race lets the caller pass that flag.
#
# Perspective: gnubg_nn.pub_eval_score(board) scores the side in board[0]
# (gnubg rows: [[side A, 25 entries], [side B, 25 entries]], entries 0..23 =
# points 1..24 in that side's own numbering, 24 = bar).  After a move, gnubg
# swaps sides so that the next player on roll is board[1] and the side that
# just moved is board[0]; so gnubg_nn.pub_eval_score scores the position for
# the side that JUST MOVED, which is our row 0.  Our Board (row 0 = just
# moved, sides not switched) therefore corresponds to the gnubg board
# [ours[0][1:26], ours[1][1:26]].
#
# Speed: the 122-weight dot product is folded at import into per-point
# lookup tables, so one evaluation is 48 table loads and a few adds.

from libc.stdint cimport int8_t

# Tesauro's weights, in his input order (see above).
cdef double _PUB_W_RACE[122]
cdef double _PUB_W_CONTACT[122]
_PUB_W_RACE[:] = [
    0.00000, -0.17160, 0.27010, 0.29906, -0.08471,
    0.00000, -1.40375, -1.05121, 0.07217, -0.01351,
    0.00000, -1.29506, -2.16183, 0.13246, -1.03508,
    0.00000, -2.29847, -2.34631, 0.17253, 0.08302,
    0.00000, -1.27266, -2.87401, -0.07456, -0.34240,
    0.00000, -1.34640, -2.46556, -0.13022, -0.01591,
    0.00000, 0.27448, 0.60015, 0.48302, 0.25236,
    0.00000, 0.39521, 0.68178, 0.05281, 0.09266,
    0.00000, 0.24855, -0.06844, -0.37646, 0.05685,
    0.00000, 0.17405, 0.00430, 0.74427, 0.00576,
    0.00000, 0.12392, 0.31202, -0.91035, -0.16270,
    0.00000, 0.01418, -0.10839, -0.02781, -0.88035,
    0.00000, 1.07274, 2.00366, 1.16242, 0.22520,
    0.00000, 0.85631, 1.06349, 1.49549, 0.18966,
    0.00000, 0.37183, -0.50352, -0.14818, 0.12039,
    0.00000, 0.13681, 0.13978, 1.11245, -0.12707,
    0.00000, -0.22082, 0.20178, -0.06285, -0.52728,
    0.00000, -0.13597, -0.19412, -0.09308, -1.26062,
    0.00000, 3.05454, 5.16874, 1.50680, 5.35000,
    0.00000, 2.19605, 3.85390, 0.88296, 2.30052,
    0.00000, 0.92321, 1.08744, -0.11696, -0.78560,
    0.00000, -0.09795, -0.83050, -1.09167, -4.94251,
    0.00000, -1.00316, -3.66465, -2.56906, -9.67677,
    0.00000, -2.77982, -7.26713, -3.40177, -12.32252,
    0.00000, 3.42040,
]
_PUB_W_CONTACT[:] = [
    0.25696, -0.66937, -1.66135, -2.02487, -2.53398,
    -0.16092, -1.11725, -1.06654, -0.92830, -1.99558,
    -1.10388, -0.80802, 0.09856, -0.62086, -1.27999,
    -0.59220, -0.73667, 0.89032, -0.38933, -1.59847,
    -1.50197, -0.60966, 1.56166, -0.47389, -1.80390,
    -0.83425, -0.97741, -1.41371, 0.24500, 0.10970,
    -1.36476, -1.05572, 1.15420, 0.11069, -0.38319,
    -0.74816, -0.59244, 0.81116, -0.39511, 0.11424,
    -0.73169, -0.56074, 1.09792, 0.15977, 0.13786,
    -1.18435, -0.43363, 1.06169, -0.21329, 0.04798,
    -0.94373, -0.22982, 1.22737, -0.13099, -0.06295,
    -0.75882, -0.13658, 1.78389, 0.30416, 0.36797,
    -0.69851, 0.13003, 1.23070, 0.40868, -0.21081,
    -0.64073, 0.31061, 1.59554, 0.65718, 0.25429,
    -0.80789, 0.08240, 1.78964, 0.54304, 0.41174,
    -1.06161, 0.07851, 2.01451, 0.49786, 0.91936,
    -0.90750, 0.05941, 1.83120, 0.58722, 1.28777,
    -0.83711, -0.33248, 2.64983, 0.52698, 0.82132,
    -0.58897, -1.18223, 3.35809, 0.62017, 0.57353,
    -0.07276, -0.36214, 4.37655, 0.45481, 0.21746,
    0.10504, -0.61977, 3.54001, 0.04612, -0.18108,
    0.63211, -0.87046, 2.47673, -0.48016, -1.27157,
    0.86505, -1.11342, 1.24612, -0.82385, -2.77082,
    1.23606, -1.59529, 0.10438, -1.30206, -4.11520,
    5.62596, -2.75800,
]

# Folded tables, [0] = contact weights, [1] = race weights.
#   _PUB_MINE[k][p][n]: contribution of n of my checkers on my point p
#   _PUB_OPP[k][q][n]:  contribution of n opponent checkers on the
#                       opponent's point q (non-zero only for n == 1)
#   _PUB_OPP_BAR[k][n], _PUB_OFF[k][n]: the two global inputs.
# Row 0 and index 25 of the point tables stay 0 (bar/off are not points).
cdef double _PUB_MINE[2][26][16]
cdef double _PUB_OPP[2][26][16]
cdef double _PUB_OPP_BAR[2][16]
cdef double _PUB_OFF[2][16]

# All my checkers off: gnubg returns the C float 99999999.f == 1e8.
cdef double PUBEVAL_ALL_OFF = 1.0e8


cdef void _pubeval_build_tables() noexcept:
    cdef int k, p, q, n, g
    cdef double* w
    for k in range(2):
        if k == 1:
            w = &_PUB_W_RACE[0]
        else:
            w = &_PUB_W_CONTACT[0]
        for p in range(26):
            for n in range(16):
                _PUB_MINE[k][p][n] = 0.0
                _PUB_OPP[k][p][n] = 0.0
        for p in range(1, 25):
            g = 24 - p                      # group of my point p
            for n in range(1, 16):
                if n == 1:
                    _PUB_MINE[k][p][n] = w[5 * g + 1]
                elif n == 2:
                    _PUB_MINE[k][p][n] = w[5 * g + 2]
                elif n == 3:
                    _PUB_MINE[k][p][n] = w[5 * g + 2] + w[5 * g + 3]
                else:
                    _PUB_MINE[k][p][n] = w[5 * g + 2] + w[5 * g + 4] * (n - 3) / 2.0
        for q in range(1, 25):
            # the opponent's point q is my point 25 - q, whose group is q - 1
            _PUB_OPP[k][q][1] = w[5 * (q - 1)]
        for n in range(16):
            _PUB_OPP_BAR[k][n] = w[120] * n / 2.0
            _PUB_OFF[k][n] = w[121] * n / 15.0


_pubeval_build_tables()


cdef inline bint rows_race(const int8_t* a, const int8_t* b) noexcept nogil:
    """True when no contact remains between rows `a` and `b` (gnubg: ClassifyPosition <=
    CLASS_RACE): the pubeval race weights and the neural race net apply.

    Contact means my rearmost checker (bar = 25) and the opponent's rearmost
    checker, each in its own numbering, satisfy back_me + back_opp > 25 - 1,
    i.e. some checker still has to pass an enemy checker.  A side with no
    checker left on the board (game over) counts as race.
    """
    cdef int me = 25
    cdef int opp = 25
    while me > 0 and a[me] == 0:
        me -= 1
    while opp > 0 and b[opp] == 0:
        opp -= 1
    if me == 0 or opp == 0:
        return True
    return me + opp <= 24


cdef inline bint board_race(const Board* b) noexcept nogil:
    """rows_race of the board's two rows: no contact left."""
    return rows_race(b.c[0], b.c[1])


cdef inline double _pubeval_with_race(const Board* b, bint race) noexcept nogil:
    """pubeval of b for row 0 (the side that just moved), weights chosen by race."""
    cdef int k = 1 if race else 0
    cdef int p
    cdef double s
    if b.c[0][OFF] >= 15:
        return PUBEVAL_ALL_OFF
    s = _PUB_OPP_BAR[k][b.c[1][BAR]] + _PUB_OFF[k][b.c[0][OFF]]
    for p in range(1, 25):
        s += _PUB_MINE[k][p][b.c[0][p]] + _PUB_OPP[k][p][b.c[1][p]]
    return s


cdef inline double _pubeval(const Board* b) noexcept nogil:
    """pubeval of b for row 0, race weights iff b itself has no contact
    (the choice gnubg_nn.pub_eval_score makes)."""
    return _pubeval_with_race(b, board_race(b))


cdef int _evaluators_load_board(const int8_t[:, ::1] board, Board* out) except -1:
    """Copy a (2, 26) int8 board into a Board, checking shape and counts."""
    cdef int side, p, total
    if board.shape[0] != 2 or board.shape[1] != 26:
        raise ValueError(
            f"board must have shape (2, 26), got ({board.shape[0]}, {board.shape[1]})")
    for side in range(2):
        total = 0
        for p in range(26):
            if board[side, p] < 0 or board[side, p] > 15:
                raise ValueError(
                    f"board[{side}, {p}] = {board[side, p]} is not a checker count 0..15")
            total += board[side, p]
            out.c[side][p] = board[side, p]
        if total != 15:
            raise ValueError(f"side {side} has {total} checkers, expected 15")
    return 0


def pubeval_score(const int8_t[:, ::1] board, race=None):
    """Tesauro's pubeval score of a position after a move.

    board: int8 array (2, 26); row 0 = the side that has just moved (the score
    is for that side), row 1 = the opponent, sides NOT switched.
    race: None (default) chooses race weights when ``board`` has no contact,
    as gnubg_nn.pub_eval_score does; True/False forces the weight set (e.g.
    from the position before the move, as in Tesauro's original).
    Higher is better for row 0; 1e8 when all 15 of row 0's checkers are off.
    """
    cdef Board b
    _evaluators_load_board(board, &b)
    if race is None:
        return _pubeval(&b)
    return _pubeval_with_race(&b, bool(race))
