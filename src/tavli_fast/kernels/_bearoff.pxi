# Bear-off databases (issue 4): the dynamic programs that build them and the
# nogil lookups the game loop and rollouts use.  bearoff.py owns the files.
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


# ---------------------------------------------------------------- one-sided DP

cdef int _bo1_best(MoveGen* g, int n, int points, const double* mean) noexcept nogil:
    """Index (into g.out) of the result with the fewest expected rolls left; first one on ties."""
    cdef int i, best = 0
    cdef double v, best_v = 1e300
    for i in range(n):
        v = mean[bo_index(g.out[i].c[0], points)]
        if v < best_v:
            best_v = v
            best = i
    return best


cdef int _bo1_first_best(MoveGen* g, int n, int points, const double* first_mean) noexcept nogil:
    """Index of a result with a checker off, else of the fewest expected rolls to the first one."""
    cdef int i, best = 0
    cdef double v, best_v = 1e300
    for i in range(n):
        if g.out[i].c[0][0] > 0:
            return i
        v = first_mean[bo_index(g.out[i].c[0], points)]
        if v < best_v:
            best_v = v
            best = i
    return best


cdef bint _bo1_near_tie(MoveGen* g, int n, int points, int k_cols, const double* rolls,
                        const double* mean, int64_t chosen, double eps) noexcept nogil:
    """Does another result come within `eps` of the chosen one's mean with a different
    distribution?  (There a database rounded to fixed point may pick the other one.)"""
    cdef int i, k
    cdef int64_t j
    for i in range(n):
        j = bo_index(g.out[i].c[0], points)
        if j == chosen or mean[j] - mean[chosen] >= eps:
            continue
        for k in range(k_cols):
            if fabs(rolls[j * k_cols + k] - rolls[chosen * k_cols + k]) > 1e-12:
                return True
    return False


cdef int _bo1_solve(MoveGen* g, int64_t idx, int points, int checkers, int k_cols,
                    double* rolls, double* mean,
                    uint8_t* ties, double tie_eps) noexcept nogil:
    """rolls[idx, :] and mean[idx] from the solved positions below idx; -1 if k_cols is too small."""
    cdef Board b
    cdef int r, d1, d2, w, n, k
    cdef double* dist = rolls + idx * k_cols
    cdef const double* sub
    cdef int64_t j
    cdef double m = 1.0
    bo_side_board(&b, idx, points, checkers)
    for r in range(BO_ROLLS):
        bo_roll(r, &d1, &d2, &w)
        n = generate_plays(g, &b, d1, d2)
        if n <= 0:
            return -1
        j = bo_index(g.out[_bo1_best(g, n, points, mean)].c[0], points)
        if ties != NULL and _bo1_near_tie(g, n, points, k_cols, rolls, mean, j, tie_eps):
            ties[idx] = 1
        sub = rolls + j * k_cols
        if sub[k_cols - 1] != 0.0:
            return -1
        for k in range(k_cols - 1):
            dist[k + 1] += w * sub[k] / 36.0
        m += w * mean[j] / 36.0
    mean[idx] = m
    return 0


cdef int _bo1_solve_first(MoveGen* g, int64_t idx, int points, int checkers, int k_cols,
                          double* first, double* first_mean) noexcept nogil:
    """The rolls until the first checker is off, for a side with all 15 on the board."""
    cdef Board b
    cdef int r, d1, d2, w, n, k, i
    cdef double* dist = first + idx * k_cols
    cdef const double* sub
    cdef int64_t j
    cdef double m = 1.0
    bo_side_board(&b, idx, points, checkers)
    for r in range(BO_ROLLS):
        bo_roll(r, &d1, &d2, &w)
        n = generate_plays(g, &b, d1, d2)
        if n <= 0:
            return -1
        i = _bo1_first_best(g, n, points, first_mean)
        if g.out[i].c[0][0] > 0:
            dist[1] += w / 36.0
            continue
        j = bo_index(g.out[i].c[0], points)
        sub = first + j * k_cols
        if sub[k_cols - 1] != 0.0:
            return -1
        for k in range(k_cols - 1):
            dist[k + 1] += w * sub[k] / 36.0
        m += w * first_mean[j] / 36.0
    first_mean[idx] = m
    return 0


def bearoff_build_one_sided(int points, int checkers, int k_cols, double tie_eps=0.0):
    """Solve the one-sided database: (rolls, mean, first, first_mean).

    rolls[i, k] = P(exactly k rolls to bear off position i) under the play that
    minimises the expected number of rolls; mean[i] its mean.  first[i, k] and
    first_mean[i]: the rolls until the first checker is off, under the play
    minimising their expected number, for positions with all 15 checkers on
    the board (zero rows elsewhere).  k_cols must exceed the longest bear-off.
    tie_eps > 0 adds a fifth result, uint8 ties[i] = 1 where the optimal play
    of i (or of a position it plays to) has a rival within tie_eps expected
    rolls with another distribution: where databases rounded differently may
    legitimately differ.
    """
    if not 1 <= points <= BO_MAX_POINTS - 1 or not 1 <= checkers <= BO_MAX_CHECKERS:
        raise ValueError(f"points must be 1..{BO_MAX_POINTS - 1} and checkers 1..15")
    cdef int64_t n = bo_n_positions(points, checkers), idx
    rolls = np.zeros((n, k_cols), dtype=np.float64)
    mean = np.zeros(n, dtype=np.float64)
    first = np.zeros((n, k_cols), dtype=np.float64)
    first_mean = np.zeros(n, dtype=np.float64)
    cdef double[:, ::1] rv = rolls, fv = first
    cdef double[::1] mv = mean, fmv = first_mean
    cdef MoveGen* g = _new_movegen()
    cdef int failed = 0
    cdef int64_t first_full = bo_n_positions(points, 14)   # 15 on the board from here on
    ties = np.zeros(n, dtype=np.uint8)
    cdef uint8_t[::1] tiev = ties
    cdef uint8_t* tiep = &tiev[0] if tie_eps > 0.0 else NULL
    rv[0, 0] = 1.0
    try:
        with nogil:
            for idx in range(1, n):
                if _bo1_solve(g, idx, points, checkers, k_cols, &rv[0, 0], &mv[0], tiep, tie_eps):
                    failed = 1
                    break
                if checkers == 15 and idx >= first_full:
                    if _bo1_solve_first(g, idx, points, checkers, k_cols, &fv[0, 0], &fmv[0]):
                        failed = 1
                        break
    finally:
        free(g)
    if failed:
        raise RuntimeError(f"one-sided bear-off DP failed at position {idx} "
                           f"(more than {k_cols - 1} rolls, or a move generator overflow)")
    if tie_eps > 0.0:
        return rolls, mean, first, first_mean, ties
    return rolls, mean, first, first_mean


# ---------------------------------------------------------------- two-sided DP

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


# ---------------------------------------------------------------- cubeful two-sided DP
#
# Money play with the cube, both sides playing checkers and cube perfectly.  No gammon is
# possible inside the database (both sides have borne off), so the Jacoby rule changes
# nothing here.  For each pair three tables hold the no-double equity of the side on roll
# per unit of the current cube, before its roll and before its own cube action (what a
# cube analysis calls ND): CF_CENTRE (cube in the middle), CF_OWN (the side on roll owns
# it) and CF_THEIRS (its opponent owns it; then ND is all it has, and 2 x CF_THEIRS is
# what doubling is worth when the opponent takes: "DT").  The side about to roll picks the
# better of no double and min(DT, pass = +1), so after a play the mover faces the
# opponent's value with the opponent's own action applied:
#     mover's cube centred -> opponent centred:  max(ND_C, min(2 X', 1))
#     mover owns it        -> opponent can't:    X
#     opponent owns it     -> opponent owns:     max(ND_O, min(2 X', 1))
# X' is X itself for an unlimited cube (values per unit do not depend on the cube's
# level); with a maximum cube (R23) it is the X of the next level up, from a table solved
# for one doubling fewer (`doubled`), down to the dead cube (2 P(win) - 1).
# A beaver (R23) is never chosen against a correct double: a taker beavers only when
# DT < 0, and then 2 X < X <= ND_C, so the doubler would not have doubled.

cdef enum:
    CF_CENTRE = 0
    CF_OWN = 1
    CF_THEIRS = 2
    CF_TABLES = 3


cdef inline double _cf_acting(double nd, double doubled_x) noexcept nogil:
    """The side on roll's equity after its own cube action: doubling is worth
    min(DT, DP) = min(2 X, 1); it doubles when that is at least ND."""
    cdef double d = 2.0 * doubled_x
    if d > 1.0:
        d = 1.0
    return d if d >= nd else nd


cdef void _cf_value(const int64_t* off, const int32_t* res, int64_t pos,
                    const double* vs_c, const double* vs_o, const double* vs_x,
                    const double* vs_dx, double* out) noexcept nogil:
    """The three ND values of `pos` on roll against a fixed opponent; vs_*[r] are the
    opponent's ND values on roll against each result r of `pos` (vs_dx: its X one
    doubling up), r = 0 meaning `pos` has borne off everything."""
    cdef int r, d1, d2, w, k
    cdef int64_t t, q
    cdef double lo[CF_TABLES]
    cdef double acc[CF_TABLES]
    cdef double v
    for k in range(CF_TABLES):
        acc[k] = 0.0
    for r in range(BO_ROLLS):
        bo_roll(r, &d1, &d2, &w)
        for k in range(CF_TABLES):
            lo[k] = 2.0
        for t in range(off[pos * BO_ROLLS + r], off[pos * BO_ROLLS + r + 1]):
            q = res[t]
            v = _cf_acting(vs_c[q], vs_dx[q])
            if v < lo[CF_CENTRE]:
                lo[CF_CENTRE] = v
            if vs_x[q] < lo[CF_OWN]:
                lo[CF_OWN] = vs_x[q]
            v = _cf_acting(vs_o[q], vs_dx[q])
            if v < lo[CF_THEIRS]:
                lo[CF_THEIRS] = v
        for k in range(CF_TABLES):
            acc[k] += w * lo[k]
    for k in range(CF_TABLES):
        out[k] = -acc[k] / 36.0


cdef void _cf_rows_vs(const int64_t* off, const int32_t* res, const float* cf,
                      const float* doubled, int64_t n, int64_t m, double* tmp,
                      double* acc) noexcept nogil:
    """acc[k * (n + 1) + j]: table k's ND value of m on roll against j, 1 <= j < m, from
    whole rows of the solved tables (the opponent j on roll against each result of m)."""
    cdef int r, d1, d2, w, k
    cdef int64_t t, s, e, j, nn = n * n, stride = n + 1
    cdef const float* row_c
    cdef const float* row_o
    cdef const float* row_x
    cdef const float* row_dx
    cdef double* lo_c = tmp
    cdef double* lo_o = tmp + stride
    cdef double* lo_x = tmp + 2 * stride
    cdef double v
    for k in range(CF_TABLES):
        for j in range(1, m):
            acc[k * stride + j] = 0.0
    for r in range(BO_ROLLS):
        bo_roll(r, &d1, &d2, &w)
        s = off[m * BO_ROLLS + r]
        e = off[m * BO_ROLLS + r + 1]
        for j in range(1, m):
            lo_c[j] = 2.0
            lo_o[j] = 2.0
            lo_x[j] = 2.0
        for t in range(s, e):
            row_c = cf + CF_CENTRE * nn + res[t] * n
            row_o = cf + CF_OWN * nn + res[t] * n
            row_x = cf + CF_THEIRS * nn + res[t] * n
            row_dx = doubled + CF_THEIRS * nn + res[t] * n
            for j in range(1, m):
                v = _cf_acting(row_c[j], row_dx[j])
                lo_c[j] = v if v < lo_c[j] else lo_c[j]
                lo_x[j] = row_x[j] if row_x[j] < lo_x[j] else lo_x[j]
                v = _cf_acting(row_o[j], row_dx[j])
                lo_o[j] = v if v < lo_o[j] else lo_o[j]
        for j in range(1, m):
            acc[CF_CENTRE * stride + j] += w * lo_c[j]
            acc[CF_OWN * stride + j] += w * lo_x[j]
            acc[CF_THEIRS * stride + j] += w * lo_o[j]
    for k in range(CF_TABLES):
        for j in range(1, m):
            acc[k * stride + j] = -acc[k * stride + j] / 36.0


cdef void _cf_step(const int64_t* off, const int32_t* res, float* cf, const float* doubled,
                   int64_t n, int64_t m, double* tmp, double* acc,
                   double* acc_dx) noexcept nogil:
    """Solve every pair whose larger index is m, as _bo2_step does for the cubeless table.
    `doubled` is `cf` itself for an unlimited cube; acc_dx then receives m's X values
    as they are solved (else it holds them from `doubled`)."""
    cdef int64_t j, nn = n * n, stride = n + 1
    cdef int k
    cdef double out[CF_TABLES]
    cdef bint self_doubled = doubled == cf
    _cf_rows_vs(off, res, cf, doubled, n, m, tmp, acc)
    for k in range(CF_TABLES):
        acc[k * stride] = -1.0                  # the opponent has borne off everything
    if self_doubled:
        for j in range(m):
            acc_dx[j] = acc[CF_THEIRS * stride + j]
    else:
        for j in range(m + 1):
            acc_dx[j] = doubled[CF_THEIRS * nn + j * n + m]
    # m against m needs m against every r < m: all in acc now.
    _cf_value(off, res, m, acc, acc + stride, acc + 2 * stride, acc_dx, out)
    for k in range(CF_TABLES):
        acc[k * stride + m] = out[k]
    if self_doubled:
        acc_dx[m] = out[CF_THEIRS]
    for k in range(CF_TABLES):
        for j in range(m + 1):
            cf[k * nn + j * n + m] = <float>acc[k * stride + j]
        cf[k * nn + m * n] = 1.0                # nothing left to bear off: won
    for j in range(1, m):
        _cf_value(off, res, j, acc, acc + stride, acc + 2 * stride, acc_dx, out)
        for k in range(CF_TABLES):
            cf[k * nn + m * n + j] = <float>out[k]


def bearoff_build_two_sided_cubeful(int checkers, doubled=None):
    """Solve the cubeful two-sided database (money, perfect checker and cube play) for up
    to `checkers` checkers a side on 6 points.

    Returns float32[3, n, n]: [k, opponent, on_roll] is the side on roll's no-double
    equity per unit of the cube, before its roll, with the cube centred (k = 0), owned by
    the side on roll (1) or by its opponent (2); indices as in bearoff_build_two_sided.
    `doubled`: None for an unlimited cube; else the tables of one doubling fewer before
    the maximum cube (R23), whose owned-by-opponent table values a double (for the first
    level below the maximum, pass three copies of the dead cube's 2 P(win) - 1).
    """
    if not 1 <= checkers <= BO_MAX_CHECKERS:
        raise ValueError("checkers must be 1..15")
    offsets, results = bearoff_play_lists(checkers)
    cdef int64_t n = bo_n_positions(6, checkers), m
    cf = np.zeros((CF_TABLES, n, n), dtype=np.float32)
    cf[:, 0, :] = -1.0                         # the opponent has borne off everything
    cf[:, :, 0] = 1.0                          # the side on roll has
    cf[:, 0, 0] = 0.0
    if doubled is not None:
        doubled = np.ascontiguousarray(doubled, dtype=np.float32)
        if doubled.shape != cf.shape:
            raise ValueError(f"the doubled tables must have shape {cf.shape}")
    tmp = np.zeros(CF_TABLES * (n + 1), dtype=np.float64)
    acc = np.zeros(CF_TABLES * (n + 1), dtype=np.float64)
    acc_dx = np.zeros(n + 1, dtype=np.float64)
    cdef float[:, :, ::1] cfv = cf
    cdef const float[:, :, ::1] dv = doubled if doubled is not None else cf
    cdef double[::1] tmpv = tmp, accv = acc, dxv = acc_dx
    cdef int64_t[::1] ov = offsets
    cdef int32_t[::1] rsv = results
    with nogil:
        for m in range(1, n):
            _cf_step(&ov[0], &rsv[0], &cfv[0, 0, 0], &dv[0, 0, 0], n, m, &tmpv[0],
                     &accv[0], &dxv[0])
    return cf


# ---------------------------------------------------------------- lookups

ctypedef struct BearoffDB:
    int points                  # one-sided: points 1..points
    int checkers                # one-sided: at most this many checkers
    int k_cols                  # columns of rolls/first: k = 0 .. k_cols - 1
    int64_t n1                  # one-sided positions
    const double* rolls         # [n1][k_cols] P(exactly k rolls to bear off)
    const double* mean          # [n1] expected rolls
    const double* first         # [n1][k_cols] rolls until the first checker is off (15 on board), or NULL
    int two_checkers            # two-sided: at most this many a side on 6 points (0: none)
    int64_t n2
    const float* win            # [n2][n2]: win[opponent * n2 + on_roll] = P(on roll wins)
    const float* cubeful        # [3][n2][n2] money ND equities (CF_* tables), or NULL


cdef inline double bearoff2_win(const BearoffDB* db, const Board* b) noexcept nogil:
    """Exact P(side 0, on roll, wins) if both sides are inside the two-sided database, else -1."""
    cdef int mine, theirs
    if db.two_checkers == 0:
        return -1.0
    mine = bo_checkers_on(b.c[0], 6)
    theirs = bo_checkers_on(b.c[1], 6)
    if mine < 0 or theirs < 0 or mine > db.two_checkers or theirs > db.two_checkers:
        return -1.0
    return db.win[bo_index(b.c[1], 6) * db.n2 + bo_index(b.c[0], 6)]


cdef inline bint bearoff2_cubeful(const BearoffDB* db, const Board* b, double* nd) noexcept nogil:
    """The exact money ND equities of side 0, on roll (nd[CF_CENTRE], nd[CF_OWN],
    nd[CF_THEIRS], per unit of an unlimited cube), if both sides are inside the cubeful
    two-sided database; else False."""
    cdef int mine, theirs, k
    cdef int64_t at
    if db.cubeful == NULL:
        return False
    mine = bo_checkers_on(b.c[0], 6)
    theirs = bo_checkers_on(b.c[1], 6)
    if mine < 0 or theirs < 0 or mine > db.two_checkers or theirs > db.two_checkers:
        return False
    at = bo_index(b.c[1], 6) * db.n2 + bo_index(b.c[0], 6)
    for k in range(CF_TABLES):
        nd[k] = db.cubeful[k * db.n2 * db.n2 + at]
    return True


cdef inline int64_t bearoff1_index(const BearoffDB* db, const int8_t* row) noexcept nogil:
    """One-sided index of a side, or -1 if it is not inside the one-sided database."""
    cdef int total = bo_checkers_on(row, db.points)
    if total < 0 or total > db.checkers:
        return -1
    return bo_index(row, db.points)


cdef double bearoff_race_equity(const BearoffDB* db, int64_t on_roll, int64_t other,
                                bint on_roll_full, bint other_full, double* probs) noexcept nogil:
    """Approximate cubeless race from the two one-sided distributions (each side playing to
    bear off fastest, independently): probs = P(win), P(win gammon), P(lose gammon) for the
    side on roll; returns the equity.  `*_full`: that side still has all 15 on the board.

    One backward pass keeps the tails P(at least k rolls) as running sums, so a call
    costs O(rolls), not O(rolls^2): the bear-off player calls it for every candidate.
    """
    cdef const double* a = db.rolls + on_roll * db.k_cols
    cdef const double* b = db.rolls + other * db.k_cols
    cdef const double* fa = db.first + on_roll * db.k_cols if db.first != NULL else NULL
    cdef const double* fb = db.first + other * db.k_cols if db.first != NULL else NULL
    cdef bint gammons_for = other_full and fb != NULL
    cdef bint gammons_against = on_roll_full and fa != NULL
    cdef int k
    cdef double win = 0.0, wg = 0.0, lg = 0.0
    cdef double tail_b = 0.0, tail_fb = 0.0, tail_fa_next = 0.0
    for k in range(db.k_cols - 1, 0, -1):
        tail_b += b[k]                      # P(other needs >= k rolls)
        if gammons_for:
            tail_fb += fb[k]                # P(other's first checker needs >= k rolls)
        # I finish on my k-th roll, before the other side's k-th roll.
        win += a[k] * tail_b
        if gammons_for:
            wg += a[k] * tail_fb
        if gammons_against:
            # The other side finishes on its k-th roll, after my k-th: I have had k rolls.
            lg += b[k] * tail_fa_next       # P(my first checker needs >= k + 1 rolls)
            tail_fa_next += fa[k]
    probs[0] = win
    probs[1] = wg
    probs[2] = lg
    return 2.0 * win - 1.0 + wg - lg


cdef inline double _bo2_swapped(const BearoffDB* db, const Board* r) noexcept nogil:
    """P(side 1 of r, about to roll, wins); r is inside the two-sided database."""
    return db.win[bo_index(r.c[0], 6) * db.n2 + bo_index(r.c[1], 6)]


cdef double _bo_result_value(const BearoffDB* db, const Board* r) noexcept nogil:
    """How good the result r (sides not switched) is for its mover: higher is better.

    Exact win probability inside the two-sided database; else, when the
    opponent is in the one-sided database, the approximate race equity; else
    minus the expected rolls.
    """
    cdef double w
    cdef double probs[3]
    cdef int64_t mine, theirs
    if r.c[0][0] == 15:
        return 1e9                              # borne off: the game is won
    w = bearoff2_win(db, r)
    if w >= 0.0:
        # bearoff2_win wants the side on roll in row 0: here the opponent is next.
        return 1.0 - _bo2_swapped(db, r)
    mine = bearoff1_index(db, r.c[0])
    theirs = bearoff1_index(db, r.c[1])
    if theirs >= 0:
        return -bearoff_race_equity(db, theirs, mine, r.c[1][0] == 0, r.c[0][0] == 0, probs)
    return -db.mean[mine]


cdef int bearoff_choose(const BearoffDB* db, const MoveGen* g, int n, const Board* before) noexcept nogil:
    """Index in g.out[0:n] of the play the databases prefer, or -1 if `before` (side 0 to
    play) is not a pure bear-off the one-sided database covers (the caller decides then)."""
    cdef int i, best = 0
    cdef double v, best_v = -1e300
    if bearoff1_index(db, before.c[0]) < 0 or not board_race(before):
        return -1
    for i in range(n):
        v = _bo_result_value(db, &g.out[i])
        if v > best_v:
            best_v = v
            best = i
    return best


cdef class BearoffTables:
    """The loaded databases as one struct for nogil code: `&tables.db` (const BearoffDB*).

    Holds references to the arrays (often read-only memory maps) so the
    pointers stay valid as long as this object lives.
    """
    cdef BearoffDB db
    cdef object _arrays

    def __cinit__(self, int points, int checkers, rolls, mean, first=None, win=None,
                  cubeful=None):
        cdef const double[:, ::1] rv = rolls
        cdef const double[::1] mv = mean
        cdef const double[:, ::1] fv
        cdef const float[:, ::1] wv
        cdef const float[:, :, ::1] cv
        n1 = bo_n_positions(points, checkers)
        if rv.shape[0] != n1 or mv.shape[0] != n1:
            raise ValueError(f"a {points}-point, {checkers}-checker one-sided table has {n1} rows")
        self.db.points = points
        self.db.checkers = checkers
        self.db.k_cols = <int>rv.shape[1]
        self.db.n1 = n1
        self.db.rolls = &rv[0, 0]
        self.db.mean = &mv[0]
        self.db.first = NULL
        if first is not None:
            fv = first
            if fv.shape[0] != n1 or fv.shape[1] != rv.shape[1]:
                raise ValueError("the first-off table must have the shape of the rolls table")
            self.db.first = &fv[0, 0]
        self.db.two_checkers = 0
        self.db.n2 = 0
        self.db.win = NULL
        if win is not None:
            wv = win
            two = 0
            while two < BO_MAX_CHECKERS and bo_n_positions(6, two) < wv.shape[0]:
                two += 1
            if bo_n_positions(6, two) != wv.shape[0] or wv.shape[1] != wv.shape[0]:
                raise ValueError(f"a two-sided table is C(n + 6, 6) square, not {wv.shape}")
            self.db.two_checkers = two
            self.db.n2 = wv.shape[0]
            self.db.win = &wv[0, 0]
        self.db.cubeful = NULL
        if cubeful is not None:
            cv = cubeful
            if win is None or cv.shape[0] != CF_TABLES or cv.shape[1] != wv.shape[0] \
                    or cv.shape[2] != wv.shape[0]:
                raise ValueError("the cubeful tables must be three of the two-sided table's shape")
            self.db.cubeful = &cv[0, 0, 0]
        self._arrays = (rolls, mean, first, win, cubeful)

    @property
    def points(self):
        return self.db.points

    @property
    def checkers(self):
        return self.db.checkers

    @property
    def two_sided_checkers(self):
        return self.db.two_checkers

    def win(self, const int8_t[:, ::1] board):
        """Exact P(win) for the side on roll, or None outside the two-sided database."""
        cdef Board b
        _load_board(board, &b)
        cdef double w = bearoff2_win(&self.db, &b)
        return None if w < 0.0 else w

    @property
    def cubeful(self):
        """Whether the cubeful two-sided tables are loaded."""
        return self.db.cubeful != NULL

    def cubeful_equities(self, const int8_t[:, ::1] board):
        """(ND centred, ND owned, ND opponent owns): the exact money equities of the side
        on roll per unit of an unlimited cube, or None outside the cubeful database."""
        cdef Board b
        cdef double nd[CF_TABLES]
        _load_board(board, &b)
        if not bearoff2_cubeful(&self.db, &b, nd):
            return None
        return nd[CF_CENTRE], nd[CF_OWN], nd[CF_THEIRS]

    def race(self, const int8_t[:, ::1] board):
        """(P(win), P(win gammon), P(lose gammon)) approximated from the one-sided
        distributions, or None if a side is outside the one-sided database."""
        cdef Board b
        cdef double probs[3]
        _load_board(board, &b)
        cdef int64_t mine = bearoff1_index(&self.db, b.c[0])
        cdef int64_t theirs = bearoff1_index(&self.db, b.c[1])
        if mine < 0 or theirs < 0:
            return None
        bearoff_race_equity(&self.db, mine, theirs, b.c[0][0] == 0, b.c[1][0] == 0, probs)
        return probs[0], probs[1], probs[2]

    def choose(self, const int8_t[:, ::1] board, int die1, int die2):
        """The board (sides not switched) the databases play to, or None outside them."""
        cdef Board b
        _load_board(board, &b)
        _check_die(die1)
        _check_die(die2)
        cdef int n = generate_plays(_scratch, &b, die1, die2)
        if n < 0:
            raise RuntimeError("more distinct plays than the generator holds")
        cdef int i = bearoff_choose(&self.db, _scratch, n, &b)
        if i < 0:
            return None
        out = np.empty((2, 26), dtype=np.int8)
        cdef int8_t[:, ::1] v = out
        memcpy(&v[0, 0], &_scratch.out[i], 52)
        return out


def bearoff_index(const int8_t[::1] counts):
    """Index of a side with counts[i] checkers on point i + 1 (len(counts) points)."""
    cdef int8_t row[26]
    cdef int p, points = <int>counts.shape[0]
    if not 1 <= points <= BO_MAX_POINTS - 1:
        raise ValueError(f"1 to {BO_MAX_POINTS - 1} points, not {points}")
    memset(row, 0, 26)
    for p in range(points):
        row[p + 1] = counts[p]
    return bo_index(row, points)


def bearoff_position(int64_t index, int points, int checkers):
    """Counts on points 1..points of the position with this index (inverse of bearoff_index)."""
    if not 0 <= index < bo_n_positions(points, checkers):
        raise ValueError(f"index {index} is outside 0..{bo_n_positions(points, checkers) - 1}")
    cdef int8_t row[26]
    memset(row, 0, 26)
    bo_unrank(index, points, checkers, row)
    return np.array([row[p] for p in range(1, points + 1)], dtype=np.int8)


def bearoff_n_positions(int points, int checkers):
    """C(checkers + points, points)."""
    return bo_n_positions(points, checkers)
