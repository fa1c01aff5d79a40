# The replies' pre-filter (part of _neural.pxi, issue 54): a cheap estimate of every play
# from one base, so that a roll table (the 1-ply look-ahead, the luck of a roll) values with
# the net only the few plays the estimate ranks best.  Two estimators, one mechanism:
#
# - the pruning net (NN_EST_PRUNE, where the net carries one: NeuralNetC.prune): a small net
#   on the raw inputs only, distilled from the net (training/prune_train.py), evaluated as
#   the net evaluates a roll's plays: its hidden sums at the base once, then for each play
#   the estimate rows of the points it changes (below), a narrow hidden layer and its five
#   outputs, a batch of plays at a time (nn_play_estimates).  It serves the bases the net
#   itself values (contact); a race base (the race net's class) is estimated by the slope,
#   which ranks races well;
# - the slope (NN_EST_SLOPE): at the base the mover's equity E is a smooth function of the
#   inputs x.  One pass back through the net gives its slope dE/dx_i for every raw input i;
#   a play changes a handful of them by v_i (the same changes nn_play_probs adds to the
#   hidden sums), so its estimate is sum_i v_i dE/dx_i, taken point by point from tables
#   (nn_slope_point).  The hand features are left out:
#   computing them for every play would cost most of what the estimate saves
#   (docs/performance.md), so it misses what only they see (shots, primes).
#
# Either only ranks: the plays it keeps (the best `keep`, and every one within `margin` of
# the keep-th) are valued by the net as before, and the best of those by the net is the
# table's play.  A play into another class (a bear-off valued by the databases, a race by
# the race net) has no estimate and is always kept.  Everything is deterministic, so a luck
# table built this way is still the same function of (position, roll) for the realised roll
# and for its mean: the luck stays unbiased (only its variance can grow).

# The defaults (bench/prefilter_strength.py, bench/ply1_cost.py, docs/performance.md):
# the luck tables keep the best NN_LUCK_KEEP plays of a roll by the pruning net's estimate
# (the slope in a race, or for a net without one), and any within NN_LUCK_MARGIN of the last
# of them (a worse play there only adds variance, never bias: it pays in SE per CPU-second;
# the pruning net keeping 8 gives the SE of the slope keeping 12 in about 0.85 of the time).
# The 1-ply look-ahead values the best NN_REPLY_KEEP replies of a roll by the pruning net
# (1.6 times faster, -0.0004 +- 0.0008 points a game against the exact search over 60,000
# paired games; by the slope, keeping 8 was -0.009 +- 0.006, so it was opt-in), and in its
# looks after the first the analogues of the best candidate's best replies
# (ReplyFilter.analogues, _nn_search.pxi).
cdef enum:
    NN_EST_SLOPE = 0            # the first-order estimate
    NN_EST_PRUNE = 1            # the pruning net where the net has one, else the slope
    NN_PRUNE_MAX_HIDDEN = 128   # the widest pruning net
    NN_SLOPE_WORDS = 4          # 64-bit words for a bit per raw input (NN_BASE_INPUTS, 198)
    NN_REPLY_KEEP = 8
    NN_REPLY_ESTIMATOR = NN_EST_PRUNE
    NN_LUCK_KEEP = 8
    NN_LUCK_ESTIMATOR = NN_EST_PRUNE
assert NN_BASE_INPUTS <= 64 * NN_SLOPE_WORDS

# The pruning net's estimate rows (NeuralNetC.erows): for side s (0: on roll, 1: has
# moved), point p (1..24, 25: the bar) and n = 1..15 checkers, row
# NN_SIDE_EST_ROWS s + 15 (p - 1) + n - 1 is the change of the hidden sums from no checker
# on p to n, its share of the pips and of the borne-off input included: a side's checkers
# on the points and bar add up to 15 less those borne off, so each input is a sum of
# per-point terms.  A play's estimate then adds at most two rows per changed point, where
# the raw inputs take up to four, a scaled pip row and a borne-off row (nn_play_estimates).
cdef enum:
    NN_EST_COUNTS = 15
    NN_SIDE_EST_ROWS = 25 * NN_EST_COUNTS
    NN_EST_ROWS = 2 * NN_SIDE_EST_ROWS

cdef extern from *:
    """
    /* The estimate rows of a side's changes from row `old` to row `new_` (rows: the side's
       first estimate row), in point order, appended to add[*n_add ..] (the count's new
       row) and sub[*n_sub ..] (its old one; one slot past each list is written).  Without a
       branch per point, whose outcome no predictor could guess.  0 where they do not apply:
       a count beyond 15, or a change of the borne-off checkers other than the points' loss. */
    static inline int tf_estimate_points(int* add, int* n_add, int* sub, int* n_sub,
                                         const signed char* old, const signed char* new_,
                                         int rows) {
        unsigned int changed = tf_row_changes(old, new_) & ~1u;
        int gained = 0, counts = 0, na = *n_add, ns = *n_sub;
        while (changed) {
            int p = __builtin_ctz(changed);
            changed &= changed - 1;
            int n0 = old[p], n1 = new_[p];
            counts |= n0 | n1;
            gained += n1 - n0;
            int u = rows + 15 * (p - 1) - 1;
            add[na] = u + n1;
            na += n1 != 0;
            sub[ns] = u + n0;
            ns += n0 != 0;
        }
        *n_add = na;
        *n_sub = ns;
        return (unsigned)counts <= 15 && new_[0] - old[0] == -gained;
    }
    """
    bint tf_estimate_points(int* add, int* n_add, int* sub, int* n_sub, const int8_t* old,
                            const int8_t* new, int rows) noexcept nogil


cdef void nn_estimate_rows(const NeuralNetC* net, float* out) noexcept nogil:
    """The estimate rows of `net` (raw inputs) into out[NN_EST_ROWS][hp] (padding units
    zero), each summed in float64 and rounded once."""
    cdef int s, p, n, j, u, h = net.n_hidden, hp = net.hp
    cdef const double* w
    cdef const double* pip
    cdef const double* off
    cdef float* row
    for s in range(2):
        pip = net.w1 + (NN_SIDE_INPUTS * s + NN_PIP_UNIT) * h
        off = net.w1 + (NN_SIDE_INPUTS * s + NN_OFF_UNIT) * h
        for p in range(1, 26):
            u = NN_SIDE_INPUTS * s + (NN_BAR_UNIT if p == 25 else 4 * (p - 1))
            w = net.w1 + u * h
            for n in range(1, NN_EST_COUNTS + 1):
                row = out + (NN_SIDE_EST_ROWS * s + NN_EST_COUNTS * (p - 1) + n - 1) * hp
                for j in range(h):
                    row[j] = <float>nn_point_share(
                        p, n, 0.5 * n * w[j] if p == 25 else
                        nn_point_units(n, w[j], w[h + j], w[2 * h + j], w[3 * h + j]),
                        pip[j], off[j])
                for j in range(h, hp):
                    row[j] = 0.0


cdef double NN_REPLY_MARGIN = 0.0
cdef double NN_LUCK_MARGIN = 0.0

ctypedef struct ReplyFilter:
    int keep                    # 0: every reply valued by the net (the exact search)
    double margin               # >= 0
    int estimator               # NN_EST_SLOPE or NN_EST_PRUNE
    bint analogues              # the 1-ply player's later looks value the analogues of the
                                # best candidate's best replies too (_nn_search.pxi; True
                                # but to measure what they change)


ctypedef struct NNSlope:
    # What the estimate of a base's plays needs, prepared once per base (nn_estimate_prepare).
    bint ready                  # computed for the base and prices below
    const double* prices        # the mover's gammon prices it was computed at (NULL: money)
    const NeuralNetC* prune     # the pruning net estimating, or NULL: the slope
    float g[NN_BASE_INPUTS]     # the slope: dE/dx_i at the base, for the mover (raw inputs),
                                # each computed when first asked for (nn_slope_at)
    uint64_t known[NN_SLOPE_WORDS]  # bit i: g[i] is computed
    const float* w1             # the slope's net's first-layer rows, hp floats apart
    int hp
    float dh[NN_MAX_HIDDEN]     # dE/d(hidden sum j) at the base: g[i] = sum_j w1[i][j] dh[j]
    float h[NN_PRUNE_MAX_HIDDEN]    # the pruning net's hidden sums at the base
    bint quantised              # the net is int16: the pruning net estimates by int16 too,
    short qh[NN_PRUNE_MAX_HIDDEN]   # from h at TQ_EST_SCALE (tq_estimate_batch)
    # The slope's point tables (nn_slope_point), like the pruning net's estimate rows: for
    # side k (0: on roll, 1: has moved) and point p (1..24, 25: the bar), points[k][p][n] is
    # the slope's change from no checker on p to n, its share of the pips and borne-off
    # inputs included; bit p of points_known[k]: computed.
    double points[2][26][16]
    uint32_t points_known[2]


cdef void nn_slope_prepare(const NNBase* base, const double* prices, NNSlope* s) noexcept nogil:
    """The slope of the mover's equity (gammons at `prices`, NULL: money) in the inputs
    of `base`'s net, at the base: back through the output sigmoids and the hidden
    sigmoids to the hidden sums here, to an input's row when the input is first asked for
    (nn_slope_at: a table's plays change only some of the inputs)."""
    cdef const NeuralNetC* net = base.net
    cdef int hp = net.hp, j, k
    cdef float a[NN_MAX_HIDDEN]
    cdef float* dh = s.dh
    cdef double q[NN_OUTPUTS]
    cdef double c[NN_OUTPUTS]
    cdef double z, t
    cdef const float* w
    for j in range(hp):
        a[j] = <float>_nn_sigmoid(base.h[j])
    for k in range(NN_OUTPUTS):
        z = net.fb2[k]
        w = net.fw2 + k * hp
        for j in range(hp):
            z += w[j] * a[j]
        q[k] = _nn_sigmoid(z)
    # The net values the position for the side now on roll (the opponent); the mover's
    # equity in its probabilities q: 1 - 2 q_win + c0 q_lose_gammon - c1 q_win_gammon
    # + c2 q_lose_bg - c3 q_win_bg (money: all prices 1).
    c[NN_WIN] = -2.0
    c[NN_WIN_GAMMON] = -(prices[1] if prices != NULL else 1.0)
    c[NN_WIN_BACKGAMMON] = -(prices[3] if prices != NULL else 1.0)
    c[NN_LOSE_GAMMON] = prices[0] if prices != NULL else 1.0
    c[NN_LOSE_BACKGAMMON] = prices[2] if prices != NULL else 1.0
    for k in range(NN_OUTPUTS):
        c[k] *= q[k] * (1.0 - q[k])
    for j in range(hp):
        t = 0.0
        for k in range(NN_OUTPUTS):
            t += c[k] * net.fw2[k * hp + j]
        dh[j] = <float>(t * a[j] * (1.0 - a[j]))
    s.w1 = net.fw1
    s.hp = hp
    memset(s.known, 0, sizeof(s.known))
    memset(s.points_known, 0, sizeof(s.points_known))
    s.prices = prices
    s.prune = NULL
    s.ready = True


cdef void nn_estimate_prepare(const NeuralNetC* net, const NNBase* base, const double* prices,
                              int estimator, NNSlope* s) noexcept nogil:
    """Prepare `s` to estimate the plays from `base` (of `net`, the top net): by the pruning
    net when `estimator` asks for it, `net` has one and the base is of `net`'s own class
    (its hidden sums at the base, the opponent on roll as for the net); else the slope."""
    cdef tf_rows r
    cdef double f[NN_FEATURE_INPUTS]
    cdef const NeuralNetC* pn = net.prune
    cdef int j
    if estimator == NN_EST_PRUNE and pn != NULL and base.net == net:
        _nn_rows(&r, base.before.c[1], base.before.c[0], f, 0, nn_point_rows(pn))
        tf_sums(pn.fb1, pn.fw1, pn.hp, &r, s.h)
        s.quantised = net.qw1 != NULL and pn.qerows != NULL
        if s.quantised:
            for j in range(pn.hp):
                s.qh[j] = tq_round(<double>s.h[j] * TQ_EST_SCALE)
        s.prices = prices
        s.prune = pn
        s.ready = True
    else:
        nn_slope_prepare(base, prices, s)


cdef inline float nn_slope_at(NNSlope* s, int i) noexcept nogil:
    """The slope in raw input i (s.g[i]), its row's sum taken on first use: sixteen lanes
    of partial sums, a loop the compiler vectorises without reordering sums, so an input
    gets the same number whenever it is asked for."""
    cdef const float* w
    cdef float acc[16]
    cdef double z
    cdef int j, l
    if not (s.known[i >> 6] >> (i & 63)) & 1:
        w = s.w1 + i * s.hp
        for l in range(16):
            acc[l] = 0.0
        for j in range(0, s.hp, 16):
            for l in range(16):
                acc[l] += w[j + l] * s.dh[j + l]
        z = 0.0
        for l in range(16):
            z += acc[l]
        s.g[i] = <float>z
        s.known[i >> 6] |= (<uint64_t>1) << (i & 63)
    return s.g[i]


cdef void nn_slope_point(NNSlope* s, int side, int p) noexcept nogil:
    """Compute s.points[side][p] from the slope in the point's inputs, the pips and the
    borne-off checkers (each input is a sum of per-point terms: a side's checkers on the
    points and bar add up to 15 less those borne off)."""
    cdef int first = NN_SIDE_INPUTS * side, n
    cdef double pip = nn_slope_at(s, first + NN_PIP_UNIT)
    cdef double off = nn_slope_at(s, first + NN_OFF_UNIT)
    cdef double g[4]
    cdef double* t = s.points[side][p]
    if p == 25:
        g[0] = nn_slope_at(s, first + NN_BAR_UNIT)
    else:
        for n in range(4):
            g[n] = nn_slope_at(s, first + 4 * (p - 1) + n)
    t[0] = 0.0
    for n in range(1, 16):
        t[n] = nn_point_share(p, n, 0.5 * n * g[0] if p == 25 else
                              nn_point_units(n, g[0], g[1], g[2], g[3]), pip, off)
    s.points_known[side] |= (<uint32_t>1) << p


cdef inline bint nn_slope_side(NNSlope* s, int side, const int8_t* old, const int8_t* new,
                               double* v) noexcept nogil:
    """Add to v the slope's change of one side from row `old` to row `new` by the point
    tables (nn_slope_point); False where they do not apply (a count beyond 15, or a change
    of the borne-off checkers other than the points' loss)."""
    cdef uint32_t changed = tf_row_changes(old, new) & ~(<uint32_t>1)
    cdef int p, n0, n1, gained = 0
    cdef const double* t
    while changed:
        p = tf_ctz(changed)
        changed &= changed - 1
        n0 = old[p]
        n1 = new[p]
        if <unsigned>(n0 | n1) > 15:
            return False
        if not (s.points_known[side] >> p) & 1:
            nn_slope_point(s, side, p)
        t = s.points[side][p]
        v[0] += t[n1] - t[n0]
        gained += n1 - n0
    return new[OFF] - old[OFF] == -gained


cdef inline double nn_rows_dot(const tf_rows* r, NNSlope* s) noexcept nogil:
    """sum_i v_i g_i over the input changes of `r` (raw inputs: the estimate leaves the
    hand features out)."""
    cdef int a
    cdef double v = 0.0
    for a in range(r.n_add):
        v += nn_slope_at(s, r.add[a])
    for a in range(r.n_sub):
        v -= nn_slope_at(s, r.sub[a])
    for a in range(r.n_scaled):
        v += r.val[a] * nn_slope_at(s, r.scaled[a])
    return v


cdef inline bint nn_estimate_unranked(const NeuralNetC* net, const NNBase* base,
                                     const Board* after) noexcept nogil:
    """Whether the estimate cannot rank the play to `after` (a won game, or one into
    another class): it gets +inf, so that it is always kept."""
    cdef double q[NN_OUTPUTS]
    return after.c[0][OFF] == 15 or (
        base.class_may_change and nn_class_net(net, after.c[1], after.c[0], q) != base.net)


cdef inline double nn_estimate_equity(double* q, const double* prices) noexcept nogil:
    """The mover's equity (at `prices`) in the pruning net's outputs q (for the side on
    roll after the play)."""
    cdef double p[NN_OUTPUTS]
    nn_make_consistent(q)
    nn_swap_sides(q, p)
    return nn_equity_priced(p, prices)


cdef double nn_play_estimate(const NeuralNetC* net, const NNBase* base, NNSlope* s,
                             const Board* after) noexcept nogil:
    """The estimate of the play to `after` (row 0 has moved, sides not switched) from
    `base`, for ranking: by the slope, the first-order change of the mover's equity (by
    its point tables, where they apply, else by the raw inputs' rows); by the pruning net,
    the mover's equity (at s.prices) by the raw inputs' rows (nn_play_estimates takes a
    roll's plays at once, by its estimate rows).  +inf for a play the estimate cannot rank
    (nn_estimate_unranked)."""
    cdef tf_rows r
    cdef double q[NN_OUTPUTS]
    cdef double v = 0.0
    if nn_estimate_unranked(net, base, after):
        return INFINITY
    if s.prune == NULL and nn_slope_side(s, 0, base.before.c[1], after.c[1], &v) and \
            nn_slope_side(s, 1, base.before.c[0], after.c[0], &v):
        return v
    _rows_clear(&r)
    _nn_delta_side(&r, base.before.c[1], after.c[1], 0)
    _nn_delta_side(&r, base.before.c[0], after.c[0], NN_SIDE_INPUTS)
    if s.prune == NULL:
        return nn_rows_dot(&r, s)
    tf_forward(s.h, s.prune.fw1, s.prune.hp, &r, s.prune.fw2, s.prune.fb2, q)
    return nn_estimate_equity(q, s.prices)


cdef enum:
    NN_EST_BATCH = 32           # plays a batch of the pruning net's estimates
    NN_EST_BATCH_ROWS = NN_EST_BATCH * 50 + 1   # at most one row added and one subtracted
                                                # per changed point and bar, of either side
                                                # (and the slot tf_estimate_points writes past)


cdef void nn_estimate_batch(NNSlope* s, const int* adds, const int* subs,
                            const tf_span* spans, const int* which, int m,
                            float* est) noexcept nogil:
    """est[which[k]] for the k < m plays of a batch of the pruning net's estimate rows
    (by int16 for an int16 net)."""
    cdef const NeuralNetC* pn = s.prune
    cdef float hidden[NN_EST_BATCH * NN_PRUNE_MAX_HIDDEN]
    cdef float out[NN_EST_BATCH * 8]
    cdef double q[NN_OUTPUTS]
    cdef int k, o
    if s.quantised:
        tq_estimate_batch(s.qh, pn.qerows, pn.hp, adds, subs, spans, m, pn.qew2, pn.qes2inv,
                          pn.fb2, out)
    else:
        tf_forward_batch(s.h, pn.erows, pn.hp, adds, subs, spans, m, pn.fw2, pn.fb2, hidden,
                         out)
    for k in range(m):
        for o in range(NN_OUTPUTS):
            q[o] = out[8 * k + o]
        est[which[k]] = <float>nn_estimate_equity(q, s.prices)


cdef void nn_play_estimates(const NeuralNetC* net, const NNBase* base, NNSlope* s,
                            const Board* plays, int n, float* est) noexcept nogil:
    """est[i]: the estimate of plays[i] for i < n, nn_play_estimate's but, by the pruning
    net, from its estimate rows where they apply, a batch at a time (tf_forward_batch):
    the same numbers up to float rounding (the pips and borne-off terms summed apart)."""
    cdef int adds[NN_EST_BATCH_ROWS]
    cdef int subs[NN_EST_BATCH_ROWS]
    cdef tf_span spans[NN_EST_BATCH]
    cdef int which[NN_EST_BATCH]
    cdef int i, m = 0, na = 0, ns = 0
    if s.prune == NULL or s.prune.erows == NULL:
        for i in range(n):
            est[i] = <float>nn_play_estimate(net, base, s, &plays[i])
        return
    for i in range(n):
        if nn_estimate_unranked(net, base, &plays[i]):
            est[i] = INFINITY
            continue
        spans[m].add0 = na
        spans[m].sub0 = ns
        if not (tf_estimate_points(adds, &na, subs, &ns, base.before.c[1], plays[i].c[1], 0)
                and tf_estimate_points(adds, &na, subs, &ns, base.before.c[0], plays[i].c[0],
                                       NN_SIDE_EST_ROWS)):
            na = spans[m].add0
            ns = spans[m].sub0
            est[i] = <float>nn_play_estimate(net, base, s, &plays[i])
            continue
        spans[m].n_add = na - spans[m].add0
        spans[m].n_sub = ns - spans[m].sub0
        which[m] = i
        m += 1
        if m == NN_EST_BATCH:
            nn_estimate_batch(s, adds, subs, spans, which, m, est)
            m = na = ns = 0
    if m:
        nn_estimate_batch(s, adds, subs, spans, which, m, est)


cdef bint nn_reply_cut(const NeuralNetC* net, const NNBase* base, NNSlope* s,
                       const Board* plays, int n, const double* prices, const ReplyFilter* rf,
                       float* est, float* cut, int* first) noexcept nogil:
    """Whether the pre-filter `rf` sorts out some of plays[0:n] (NULL or keep 0: none; nor
    when there are no more plays than it keeps).  If so, est[i] receives play i's estimate,
    `cut` the least estimate kept (the keep-th best less rf.margin: the plays whose estimate
    is below it are left out) and `first` the index of the best estimate (the first of
    equals).  `s` is prepared on first use (its `ready` cleared by the caller for each base;
    one caller's filter is the same for all the rolls of a base)."""
    cdef float top[NN_MAX_CANDIDATES + 1]
    cdef int i, j, m = 0, keep
    cdef float v
    if rf == NULL or rf.keep <= 0 or n <= rf.keep:
        return False
    keep = rf.keep
    if not s.ready or s.prices != prices:
        nn_estimate_prepare(net, base, prices, rf.estimator, s)
    # The keep best estimates, kept sorted in a short list.
    nn_play_estimates(net, base, s, plays, n, est)
    first[0] = 0
    for i in range(n):
        v = est[i]
        if v > est[first[0]]:
            first[0] = i
        if m == keep and v <= top[m - 1]:
            continue
        j = m if m < keep else m - 1
        while j > 0 and top[j - 1] < v:
            top[j] = top[j - 1]
            j -= 1
        top[j] = v
        if m < keep:
            m += 1
    cut[0] = top[keep - 1] - <float>rf.margin
    return True


cdef int nn_best_reply_probs(const NeuralNetC* net, const NNBase* base, NNSlope* s,
                             const Board* plays, int n, double* best_probs,
                             const double* prices, const ReplyFilter* rf,
                             NNMemo* memo=NULL) noexcept nogil:
    """Index of the play with the best 0-ply equity (the first of equals), gammons at
    `prices` (NULL: money), among plays[0:n] through the pre-filter `rf` (NULL or keep 0:
    every play by the net); its probabilities (for its mover) go to best_probs.  The plays
    whose estimates are the best rf.keep, or within rf.margin of the keep-th, are valued
    by the net (in their order), NN_BATCH at a time (nn_plays_probs).  The estimator is rf.estimator's
    (nn_reply_cut).  `memo` (NULL: none): the probabilities of the base's plays another
    roll of the same table has valued (_nn_cache.pxi: the same numbers)."""
    cdef float est[MAX_RESULTS]
    cdef float cut
    cdef int i = 0, j, k, first, best = 0
    cdef bint filtered = nn_reply_cut(net, base, s, plays, n, prices, rf, est, &cut, &first)
    cdef double e, best_v = -1e300
    cdef int kept[NN_BATCH]           # the plays valued, NN_BATCH at a time, in order
    cdef double p[NN_BATCH * NN_OUTPUTS]
    while i < n:
        k = 0
        while i < n and k < NN_BATCH:
            if not (filtered and est[i] < cut):
                kept[k] = i
                k += 1
            i += 1
        nn_memo_plays_probs(memo, net, base, plays, kept, k, p)
        for j in range(k):
            e = nn_equity_priced(&p[NN_OUTPUTS * j], prices)
            if e > best_v:
                best_v = e
                best = kept[j]
                memcpy(best_probs, &p[NN_OUTPUTS * j], NN_OUTPUTS * sizeof(double))
    return best


cdef int nn_best_play_probs(const NeuralNetC* net, const NNBase* base, const Board* plays,
                            int n, double* best_probs, const double* prices=NULL) noexcept nogil:
    """nn_best_reply_probs of every play: no pre-filter, no memo."""
    return nn_best_reply_probs(net, base, NULL, plays, n, best_probs, prices, NULL, NULL)


cdef int nn_best_play(const NeuralNetC* net, const NNBase* base, const Board* plays, int n,
                      double* best_equity) noexcept nogil:
    """Index of the play with the best 0-ply equity among plays[0:n] (the first of equals);
    its equity goes to best_equity."""
    cdef double p[NN_OUTPUTS]
    cdef int best = nn_best_play_probs(net, base, plays, n, p)
    best_equity[0] = nn_equity(p)
    return best
