# The cubeful two-sided bear-off database: money equities with the cube, both sides
# playing checkers and cube perfectly.
# Included by _core.pyx after _bearoff.pxi (its index and enums).

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
