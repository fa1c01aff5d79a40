# The replies' pre-filter (part of _neural.pxi, issue 54): a cheap estimate of every play
# from one base, so that a roll table (the 1-ply look-ahead, the luck of a roll) values with
# the net only the few plays the estimate ranks best.  Two estimators, one mechanism:
#
# - the pruning net (NN_EST_PRUNE, where the net carries one: NeuralNetC.prune): a small net
#   on the raw inputs only, distilled from the net (training/prune_train.py), evaluated as
#   the net evaluates a roll's plays: its hidden sums at the base once, then for each play
#   the rows of the inputs the play changes, a narrow hidden layer and its five outputs.
#   It serves the bases the net itself values (contact); a race base (the race net's
#   class) is estimated by the slope, which ranks races well;
# - the slope (NN_EST_SLOPE): at the base the mover's equity E is a smooth function of the
#   inputs x.  One pass back through the net gives its slope dE/dx_i for every raw input i;
#   a play changes a handful of them by v_i (the same changes nn_play_probs adds to the
#   hidden sums), so its estimate is sum_i v_i dE/dx_i.  The hand features are left out:
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
# the luck tables keep the best NN_LUCK_KEEP plays of a roll by the estimate, and any
# within NN_LUCK_MARGIN of the last of them (a worse play there only adds variance, never
# bias: it pays in SE per CPU-second).  The 1-ply look-ahead values the best NN_REPLY_KEEP
# replies of a roll by the pruning net (1.6 times faster, -0.0004 +- 0.0008 points a game
# against the exact search over 60,000 paired games; by the slope, keeping 8 was
# -0.009 +- 0.006, so it was opt-in).
cdef enum:
    NN_EST_SLOPE = 0            # the first-order estimate
    NN_EST_PRUNE = 1            # the pruning net where the net has one, else the slope
    NN_PRUNE_MAX_HIDDEN = 128   # the widest pruning net
    NN_SLOPE_WORDS = 4          # 64-bit words for a bit per raw input (NN_BASE_INPUTS, 198)
    NN_REPLY_KEEP = 8
    NN_REPLY_ESTIMATOR = NN_EST_PRUNE
    NN_LUCK_KEEP = 12
    NN_LUCK_ESTIMATOR = NN_EST_SLOPE
assert NN_BASE_INPUTS <= 64 * NN_SLOPE_WORDS
cdef double NN_REPLY_MARGIN = 0.0
cdef double NN_LUCK_MARGIN = 0.0

ctypedef struct ReplyFilter:
    int keep                    # 0: every reply valued by the net (the exact search)
    double margin               # >= 0
    int estimator               # NN_EST_SLOPE or NN_EST_PRUNE


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
    if estimator == NN_EST_PRUNE and pn != NULL and base.net == net:
        _nn_rows(&r, base.before.c[1], base.before.c[0], f, 0, nn_point_rows(pn))
        tf_sums(pn.fb1, pn.fw1, pn.hp, &r, s.h)
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


cdef double nn_play_estimate(const NeuralNetC* net, const NNBase* base, NNSlope* s,
                             const Board* after) noexcept nogil:
    """The estimate of the play to `after` (row 0 has moved, sides not switched) from
    `base`, for ranking: by the pruning net, the mover's equity (at s.prices); by the
    slope, the first-order change of it.  +inf for a play the estimate cannot rank (a won
    game, or one into another class), so that it is always kept."""
    cdef tf_rows r
    cdef double q[NN_OUTPUTS]
    cdef double p[NN_OUTPUTS]
    if after.c[0][OFF] == 15:
        return INFINITY
    if base.class_may_change and nn_class_net(net, after.c[1], after.c[0], q) != base.net:
        return INFINITY
    _rows_clear(&r)
    _nn_delta_side(&r, base.before.c[1], after.c[1], 0)
    _nn_delta_side(&r, base.before.c[0], after.c[0], NN_SIDE_INPUTS)
    if s.prune == NULL:
        return nn_rows_dot(&r, s)
    tf_forward(s.h, s.prune.fw1, s.prune.hp, &r, s.prune.fw2, s.prune.fb2, q)
    nn_make_consistent(q)
    nn_swap_sides(q, p)
    return nn_equity_priced(p, s.prices)


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
    first[0] = 0
    for i in range(n):
        v = <float>nn_play_estimate(net, base, s, &plays[i])
        est[i] = v
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
    """nn_best_play_probs through the pre-filter `rf` (NULL or keep 0: every play by the
    net): the plays whose estimates are the best rf.keep, or within rf.margin of the
    keep-th, are valued by the net (in their order), and the best of them by the net is
    returned, its probabilities in best_probs.  The estimator is rf.estimator's
    (nn_reply_cut).  `memo` (NULL: none): the probabilities of the base's plays another
    roll of the same table has valued (_nn_cache.pxi: the same numbers)."""
    cdef float est[MAX_RESULTS]
    cdef float cut
    cdef int i, first, best = 0
    cdef bint filtered = nn_reply_cut(net, base, s, plays, n, prices, rf, est, &cut, &first)
    cdef double e, best_v = -1e300
    cdef double p[NN_OUTPUTS]
    for i in range(n):
        if filtered and est[i] < cut:
            continue
        nn_memo_probs(memo, net, base, &plays[i], p)
        e = nn_equity_priced(p, prices)
        if e > best_v:
            best_v = e
            best = i
            memcpy(best_probs, p, sizeof(p))
    return best
