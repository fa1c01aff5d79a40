# The one-sided bear-off database: for each position of one side, the distribution of
# the rolls it needs to bear off (and of the first roll's), by dynamic programming over
# the index order of _bearoff.pxi (every play lowers the index).
# Included by _core.pyx after _bearoff.pxi (its index and enums).

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
