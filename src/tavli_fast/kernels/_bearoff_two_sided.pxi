# The two-sided (cubeless) bear-off database: each pair's exact probability that the
# side on roll wins, and the play lists both DPs walk.
# Included by _core.pyx after _bearoff.pxi (its index and enums).

def bearoff_play_lists(int checkers):
    """For each 6-point position with <= `checkers` checkers and each of the 21 rolls, the
    indices of its distinct results: (offsets int64[n*21 + 1], results int32[T])."""
    cdef int64_t n = bo_n_positions(6, checkers), idx, total = 0, cap = 0
    offsets = np.zeros(n * BO_ROLLS + 1, dtype=np.int64)
    cdef int64_t[::1] ov = offsets
    cdef int32_t* buf = NULL
    cdef int32_t* grown
    cdef MoveGen* g = _new_movegen()
    cdef Board b
    cdef int r, d1, d2, w, k, cnt, bad = 0
    try:
        with nogil:
            for idx in range(n):
                bo_side_board(&b, idx, 6, checkers)
                for r in range(BO_ROLLS):
                    bo_roll(r, &d1, &d2, &w)
                    cnt = generate_plays(g, &b, d1, d2)
                    if cnt <= 0:
                        bad = 1
                        break
                    if total + cnt > cap:
                        cap = 2 * cap + cnt + 4096
                        grown = <int32_t*>realloc(buf, cap * sizeof(int32_t))
                        if grown == NULL:
                            bad = 2
                            break
                        buf = grown
                    for k in range(cnt):
                        buf[total + k] = <int32_t>bo_index(g.out[k].c[0], 6)
                    total += cnt
                    ov[idx * BO_ROLLS + r + 1] = total
                if bad:
                    break
        if bad == 1:
            raise RuntimeError("move generator overflow in a bear-off position")
        if bad == 2:
            raise MemoryError("out of memory listing bear-off plays")
        results = np.empty(total, dtype=np.int32)
        if total:
            memcpy(cnp.PyArray_DATA(results), buf, total * sizeof(int32_t))
        return offsets, results
    finally:
        free(g)
        free(buf)


cdef inline double _bo2_value(const int64_t* off, const int32_t* res, int64_t pos,
                              const double* w_vs) noexcept nogil:
    """P(the side on roll at `pos` wins), w_vs[r] = P(the opponent, then on roll, beats r):
    each roll takes the result leaving the opponent the least."""
    cdef int r, d1, d2, w
    cdef int64_t t
    cdef double lo, v, acc = 0.0
    for r in range(BO_ROLLS):
        bo_roll(r, &d1, &d2, &w)
        lo = 2.0
        for t in range(off[pos * BO_ROLLS + r], off[pos * BO_ROLLS + r + 1]):
            v = w_vs[res[t]]
            if v < lo:
                lo = v
        acc += w * lo
    return 1.0 - acc / 36.0


cdef void _bo2_rows_vs(const int64_t* off, const int32_t* res, float* table, int64_t n,
                       int64_t m, float* tmp, double* acc) noexcept nogil:
    """acc[j] = P(m on roll beats j) for 1 <= j < m, reading whole rows of the table.

    table[a * n + b] = P(b on roll beats a): the row of a result r lists how
    every opponent j fares on roll against r, so the minimum over the results
    of a roll is an element-wise minimum of contiguous rows (vectorised).
    """
    cdef int r, d1, d2, w
    cdef int64_t t, s, e, j
    cdef const float* row
    cdef float x
    for j in range(1, m):
        acc[j] = 0.0
    for r in range(BO_ROLLS):
        bo_roll(r, &d1, &d2, &w)
        s = off[m * BO_ROLLS + r]
        e = off[m * BO_ROLLS + r + 1]
        row = table + res[s] * n
        for j in range(1, m):
            tmp[j] = row[j]
        for t in range(s + 1, e):
            row = table + res[t] * n
            for j in range(1, m):
                x = row[j]
                tmp[j] = x if x < tmp[j] else tmp[j]
        for j in range(1, m):
            acc[j] += w * tmp[j]
    for j in range(1, m):
        acc[j] = 1.0 - acc[j] / 36.0


cdef void _bo2_step(const int64_t* off, const int32_t* res, float* table, int64_t n,
                    int64_t m, float* tmp, double* acc) noexcept nogil:
    """Solve every pair whose larger index is m: (m on roll vs j <= m) and (j on roll vs m).

    Each needs only pairs with a smaller larger index, or the m-vs-j pairs
    solved first in this step: a play lowers the mover's index.
    """
    cdef int64_t j
    _bo2_rows_vs(off, res, table, n, m, tmp, acc)
    acc[0] = 0.0                          # the opponent has borne off everything: lost
    acc[m] = _bo2_value(off, res, m, acc) # m vs m needs m vs r < m, all in acc now
    for j in range(m + 1):
        table[j * n + m] = <float>acc[j]
    table[m * n] = 1.0                    # nothing left to bear off: won
    for j in range(1, m):
        table[m * n + j] = <float>_bo2_value(off, res, j, acc)


def bearoff_build_two_sided(int checkers):
    """Solve the two-sided database for up to `checkers` checkers a side on 6 points.

    Returns float32[n, n] with table[opponent, on_roll] = P(the side on roll
    wins), both indices of bo_index over 6 points; each side maximises its
    probability of winning.  Row 0 (the opponent finished) is 0, column 0
    (the side on roll finished) is 1.
    """
    if not 1 <= checkers <= BO_MAX_CHECKERS:
        raise ValueError("checkers must be 1..15")
    offsets, results = bearoff_play_lists(checkers)
    cdef int64_t n = bo_n_positions(6, checkers), m
    table = np.zeros((n, n), dtype=np.float32)
    tmp = np.zeros(n + 1, dtype=np.float32)
    acc = np.zeros(n + 1, dtype=np.float64)
    cdef float[:, ::1] tv = table
    cdef float[::1] tmpv = tmp
    cdef double[::1] accv = acc
    cdef int64_t[::1] ov = offsets
    cdef int32_t[::1] rsv = results
    with nogil:
        for m in range(1, n):
            _bo2_step(&ov[0], &rsv[0], &tv[0, 0], n, m, &tmpv[0], &accv[0])
    return table
