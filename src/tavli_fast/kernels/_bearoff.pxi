# Bear-off databases: the index of one side's position that all of them share, and its
# rolls.  The databases are in _bearoff_one_sided, _bearoff_two_sided, _bearoff_cubeful
# (their dynamic programs) and _bearoff_lookup (the nogil lookups the game loop and
# rollouts use); play/bearoff.py owns the files.
#
# Index of one side's bear-off position (combinatorial number system).
# A side with c[p] checkers on points p = 1..P is written as a string of bits,
# from the highest point down: c[P] ones, a zero, c[P-1] ones, a zero, ...,
# c[1] ones, a zero.  The zero that closes point P-i sits at bit
#     z_i = i + (checkers on points P-i .. P),        i = 0 .. P-1,
# and the index is  sum_i C(z_i, i + 1).  Why this order:
#   * it does not depend on the largest checker count, so the positions with
#     at most n checkers are exactly the indices [0, C(n + P, P));
#   * a move (or bear-off) from point s to a lower point only lowers the z_i
#     between them, so every play lowers the index: a DP that walks the
#     indices upwards always finds its results already solved.
#
# The board used to generate one side's plays: my checkers in row 0, and the
# opponent with all 15 checkers borne off.  generate_plays never reads the
# opponent's borne-off count, and an opponent with nothing on the board can
# neither block a point (R7) nor be hit (R11), so the plays are exactly the
# plays of my checkers alone.

from libc.stdint cimport int32_t
from libc.math cimport fabs

cdef enum:
    BO_MAX_POINTS = 24
    BO_MAX_CHECKERS = 15
    BO_ROLLS = 21
    BO_BINOM_N = BO_MAX_POINTS + BO_MAX_CHECKERS + 1

# C(n, k), filled once at import; read-only afterwards.
cdef int64_t _BO_BINOM[BO_BINOM_N][BO_MAX_POINTS + 2]


cdef void _bo_init_binom() noexcept nogil:
    cdef int n, k
    for n in range(BO_BINOM_N):
        _BO_BINOM[n][0] = 1
        for k in range(1, BO_MAX_POINTS + 2):
            _BO_BINOM[n][k] = 0 if n == 0 else _BO_BINOM[n - 1][k - 1] + _BO_BINOM[n - 1][k]

_bo_init_binom()


cdef inline void bo_roll(int r, int* d1, int* d2, int* weight) noexcept nogil:
    """The r-th of the 21 distinct rolls: 6 doubles (weight 1/36), then 15 non-doubles (2/36)."""
    cdef int a, b, k = r - 6
    if r < 6:
        d1[0] = r + 1
        d2[0] = r + 1
        weight[0] = 1
        return
    a = 2
    while k >= a - 1:
        k -= a - 1
        a += 1
    b = k + 1
    d1[0] = a
    d2[0] = b
    weight[0] = 2


cdef inline int64_t bo_n_positions(int points, int checkers) noexcept nogil:
    """Positions of at most `checkers` checkers on `points` points: C(checkers + points, points)."""
    return _BO_BINOM[checkers + points][points]


cdef inline int64_t bo_index(const int8_t* row, int points) noexcept nogil:
    """Index of the side whose counts are row[1..points] (row[p] == 0 above `points`)."""
    cdef int64_t idx = 0
    cdef int i, above = 0
    for i in range(points):
        above += row[points - i]
        idx += _BO_BINOM[i + above][i + 1]
    return idx


cdef inline int bo_checkers_on(const int8_t* row, int points) noexcept nogil:
    """Checkers on points 1..`points`, or -1 if the side has any checker above them or on the bar."""
    cdef int p, total = 0
    for p in range(points + 1, 26):
        if row[p]:
            return -1
    for p in range(1, points + 1):
        total += row[p]
    return total


cdef inline void bo_unrank(int64_t idx, int points, int checkers, int8_t* row) noexcept nogil:
    """Inverse of bo_index: write the counts to row[1..points] (row[0] and the rest untouched)."""
    cdef int i, z = checkers + points - 1, prev
    cdef int zs[BO_MAX_POINTS]
    # Greedy decoding: the largest z_{i} with C(z, i + 1) <= what is left.
    for i in range(points - 1, -1, -1):
        while _BO_BINOM[z][i + 1] > idx:
            z -= 1
        zs[i] = z
        idx -= _BO_BINOM[z][i + 1]
        z -= 1
    prev = -1
    for i in range(points):
        # z_i - z_{i-1} - 1 checkers on point points - i.
        row[points - i] = <int8_t>(zs[i] - prev - 1)
        prev = zs[i]


cdef inline void bo_side_board(Board* b, int64_t idx, int points, int checkers) noexcept nogil:
    """The board of one side alone (see the header): my checkers, the opponent all borne off."""
    cdef int p, total = 0
    memset(b, 0, sizeof(Board))
    bo_unrank(idx, points, checkers, b.c[0])
    for p in range(1, points + 1):
        total += b.c[0][p]
    b.c[0][0] = <int8_t>(15 - total)
    b.c[1][0] = 15
