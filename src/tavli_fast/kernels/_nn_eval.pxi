# Evaluating the net (part of _neural.pxi): the forward pass, consistent
# probabilities, the position classes (race net, bear-off databases), and the
# incremental evaluation of the plays of one roll from a shared base.

cdef void nn_forward(const NeuralNetC* net, const tf_rows* r, double* hidden,
                     double* out) noexcept nogil:
    """Raw outputs by the exact float64 path (sigmoids, not yet made consistent) for the
    inputs `r`; `hidden` receives the activations."""
    cdef int a, i, j, o, h = net.n_hidden
    cdef const double* row
    cdef double v, s
    memcpy(hidden, net.b1, h * sizeof(double))
    for a in range(_rows_count(r)):
        v = _rows_item(r, a, &i)
        row = net.w1 + i * h
        if v == 1.0:                # most inputs are 0/1 flags: skip the multiply
            for j in range(h):
                hidden[j] += row[j]
        else:
            for j in range(h):
                hidden[j] += v * row[j]
    for j in range(h):
        hidden[j] = _nn_sigmoid(hidden[j])
    for o in range(NN_OUTPUTS):
        row = net.w2 + o * h
        s = net.b2[o]
        for j in range(h):
            s += row[j] * hidden[j]
        out[o] = _nn_sigmoid(s)


cdef inline void nn_make_consistent(double* p) noexcept nogil:
    """Clamp so that backgammon <= gammon <= win and the same for losses (<= 1 - win)."""
    if p[NN_WIN_GAMMON] > p[NN_WIN]:
        p[NN_WIN_GAMMON] = p[NN_WIN]
    if p[NN_WIN_BACKGAMMON] > p[NN_WIN_GAMMON]:
        p[NN_WIN_BACKGAMMON] = p[NN_WIN_GAMMON]
    if p[NN_LOSE_GAMMON] > 1.0 - p[NN_WIN]:
        p[NN_LOSE_GAMMON] = 1.0 - p[NN_WIN]
    if p[NN_LOSE_BACKGAMMON] > p[NN_LOSE_GAMMON]:
        p[NN_LOSE_BACKGAMMON] = p[NN_LOSE_GAMMON]


cdef inline double nn_equity(const double* p) noexcept nogil:
    """Cubeless money equity of consistent probabilities (gammons include backgammons)."""
    return (2.0 * p[NN_WIN] - 1.0 + p[NN_WIN_GAMMON] - p[NN_LOSE_GAMMON]
            + p[NN_WIN_BACKGAMMON] - p[NN_LOSE_BACKGAMMON])


cdef inline double nn_equity_priced(const double* p, const double* prices) noexcept nogil:
    """The equity with gammons and backgammons at their prices (a match score's, see
    _cube.pxi gammon_prices: win gammon, lose gammon, win bg, lose bg); NULL: money."""
    if prices == NULL:
        return nn_equity(p)
    return (2.0 * p[NN_WIN] - 1.0 + prices[0] * p[NN_WIN_GAMMON] - prices[1] * p[NN_LOSE_GAMMON]
            + prices[2] * p[NN_WIN_BACKGAMMON] - prices[3] * p[NN_LOSE_BACKGAMMON])


cdef inline void nn_swap_sides(const double* p, double* q) noexcept nogil:
    """The same probabilities seen by the other player."""
    q[NN_WIN] = 1.0 - p[NN_WIN]
    q[NN_WIN_GAMMON] = p[NN_LOSE_GAMMON]
    q[NN_WIN_BACKGAMMON] = p[NN_LOSE_BACKGAMMON]
    q[NN_LOSE_GAMMON] = p[NN_WIN_GAMMON]
    q[NN_LOSE_BACKGAMMON] = p[NN_WIN_BACKGAMMON]


cdef bint nn_bearoff_probs(const NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                           double* p) noexcept nogil:
    """If `net` has the bear-off databases and both sides have every checker on their home
    boards: p = the probabilities for `on_roll` by the databases, and True.  Exact inside the
    two-sided database (where both sides have borne off checkers, so no gammon is left);
    beyond it, the race of the two one-sided distributions (`bearoff_race_equity`, gammons
    from the rolls to the first checker off).  No backgammon is possible.  Else False."""
    cdef const BearoffDB* db = net.bearoff
    cdef int mine, theirs
    cdef double q[3]
    if db == NULL:
        return False
    mine = bo_checkers_on(on_roll, 6)
    theirs = bo_checkers_on(other, 6)
    if mine <= 0 or theirs <= 0 or mine > db.checkers or theirs > db.checkers:
        return False
    memset(p, 0, NN_OUTPUTS * sizeof(double))
    if mine <= db.two_checkers and theirs <= db.two_checkers:
        p[NN_WIN] = db.win[bo_index(other, 6) * db.n2 + bo_index(on_roll, 6)]
        return True
    bearoff_race_equity(db, bo_index(on_roll, db.points), bo_index(other, db.points),
                        on_roll[OFF] == 0, other[OFF] == 0, q)
    p[NN_WIN] = q[0]
    p[NN_WIN_GAMMON] = q[1]
    p[NN_LOSE_GAMMON] = q[2]
    return True


cdef inline const NeuralNetC* nn_class_net(const NeuralNetC* net, const int8_t* on_roll,
                                          const int8_t* other, double* p) noexcept nogil:
    """The net that evaluates the position (`on_roll` to play against `other`): the race net
    when there is one and no contact is left, else `net` itself; or NULL when the bear-off
    databases have valued it into `p`.  One contact test, none without a race net and
    databases."""
    if (net.race == NULL and net.bearoff == NULL) or not rows_race(on_roll, other):
        return net
    if nn_bearoff_probs(net, on_roll, other, p):
        return NULL
    return net.race if net.race != NULL else net


cdef inline bint nn_race_reachable(const Board* before) noexcept nogil:
    """Whether a play from `before` (row 0 to move) could leave no contact: every checker
    of the mover must end on or below 24 - (the opponent's rearmost point; a hit only moves
    that further back), and the pips that needs are at most 24, the most a roll moves."""
    cdef int p, line, need = 0
    p = 25
    while p > 0 and before.c[1][p] == 0:
        p -= 1
    line = 24 - p
    for p in range(line + 1 if line >= 0 else 1, 26):
        need += before.c[0][p] * (p - line)
    return need <= 24


cdef void neural_probs_exact(const NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                             double* p) noexcept nogil:
    """Consistent probabilities for `on_roll`, about to roll against `other`, in float64:
    the reference the fast path is tested against."""
    cdef tf_rows r
    cdef double f[NN_FEATURE_INPUTS]
    cdef double hidden[NN_MAX_HIDDEN]
    net = nn_class_net(net, on_roll, other, p)
    if net == NULL:
        return
    _nn_rows(&r, on_roll, other, f, nn_features_of(net))
    nn_forward(net, &r, hidden, p)
    nn_make_consistent(p)


cdef inline void _nn_probs_of(const NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                              double* p) noexcept nogil:
    """The fast path's evaluation by `net` itself (no choice of class)."""
    cdef tf_rows r
    cdef double f[NN_FEATURE_INPUTS]
    cdef float h[NN_MAX_HIDDEN]
    cdef short qh[NN_MAX_HIDDEN]
    _nn_rows(&r, on_roll, other, f, nn_features_of(net), nn_point_rows(net))
    if net.qw1 != NULL:         # the int16 evaluator: the position's own sums, as a base's
        tf_sums(net.fb1, net.fw1, net.hp, &r, h)
        tq_quantise_sums(h, net.hp, qh)
        _rows_clear(&r)
        tq_forward(qh, net.qw1, net.hp, &r, net.qw2, net.qs2inv, net.fb2, p)
    else:
        tf_forward(net.fb1, net.fw1, net.hp, &r, net.fw2, net.fb2, p)
    nn_make_consistent(p)


cdef void neural_probs(const NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                       double* p) noexcept nogil:
    """Consistent probabilities for `on_roll`, about to roll against `other` (fast path)."""
    net = nn_class_net(net, on_roll, other, p)
    if net != NULL:
        _nn_probs_of(net, on_roll, other, p)


ctypedef struct NNBase:
    # The hidden sums shared by all the plays from one position (`before`, its mover in
    # row 0).  A play is evaluated with the opponent on roll, so the sums are those of
    # (on roll = before.c[1], other = before.c[0]).
    Board before
    const NeuralNetC* net       # the net of `before`'s class (nn_class_net), whose sums these are
    bint class_may_change       # a play may reach another class: a race from contact (when
                                # there is a race net or databases), or a bear-off (when there
                                # are databases and the side not moving has every checker home:
                                # a play cannot bring its checkers home, only hit them)
    int nf                      # the net's hand features
    double feat[NN_FEATURE_INPUTS]
    float h[NN_MAX_HIDDEN]
    short qh[NN_MAX_HIDDEN]     # h at TQ_SCALE, for a net with the int16 evaluator (net.qw1)


cdef void nn_base_prepare(const NeuralNetC* net, const Board* before, NNBase* base) noexcept nogil:
    """The base for evaluating the plays from `before` (row 0 about to move)."""
    cdef tf_rows r
    # The net of the position's class (a bear-off's plays are valued by the databases, so
    # whether it is one needs no look-up here).
    cdef const NeuralNetC* own = (
        net.race if net.race != NULL and rows_race(before.c[1], before.c[0]) else net)
    base.class_may_change = (
        (own == net and (net.race != NULL or net.bearoff != NULL) and nn_race_reachable(before))
        or (net.bearoff != NULL and bo_checkers_on(before.c[1], 6) > 0))
    net = base.net = own
    base.before = before[0]
    base.nf = nn_features_of(net)
    _nn_rows(&r, before.c[1], before.c[0], base.feat, base.nf, nn_point_rows(net))
    tf_sums(net.fb1, net.fw1, net.hp, &r, base.h)
    if net.qw1 != NULL:
        tq_quantise_sums(base.h, net.hp, base.qh)


cdef extern from *:
    """
    /* The input changes of a side's points between two boards (_nn_delta_side), in C so
       that a point's changes are two vector stores.  tf_point_deltas[n0][n1]: the changes
       of a point whose count goes from n0 to n1, as putting them one by one (tf_put_row,
       _nn_inputs.pxi) would sort them: the point's units (0..3) whose rows are added, then those
       subtracted, each in unit order (unused slots 0, so all four are written and the
       count advanced), and the spare unit's change when it is not +-1 (0: none). */
    typedef struct {
        int add[4];
        int sub[4];
        int n_add, n_sub;
        double scaled;
    } tf_point_delta;

    static void tf_point_delta_of(int n0, int n1, tf_point_delta* e) {
        memset(e, 0, sizeof *e);
        for (int k = 0; k < 4; k++) {
            double v;
            if (k < 3)              /* the units n >= 1, n >= 2, n >= 3 */
                v = (n1 > k) == (n0 > k) ? 0.0 : n1 > k ? 1.0 : -1.0;
            else                    /* the spare checkers, halved */
                v = 0.5 * ((n1 > 3 ? n1 - 3 : 0) - (n0 > 3 ? n0 - 3 : 0));
            if (v == 1.0) e->add[e->n_add++] = k;
            else if (v == -1.0) e->sub[e->n_sub++] = k;
            else if (v != 0.0) e->scaled = v;
        }
    }

    static tf_point_delta tf_point_deltas[16][16];

    static void tf_fill_point_deltas(void) {
        for (int n0 = 0; n0 < 16; n0++)
            for (int n1 = 0; n1 < 16; n1++) tf_point_delta_of(n0, n1, &tf_point_deltas[n0][n1]);
    }

    /* Four row numbers u + k[0..3] to dst (the lists hold 256: two sides' 26 points and
       the features never come near). */
    static inline void tf_put4(int* dst, int u, const int* k) {
    #if defined(__SSE2__)
        _mm_storeu_si128((__m128i*)dst, _mm_add_epi32(_mm_set1_epi32(u), _mm_loadu_si128((const __m128i*)k)));
    #else
        for (int i = 0; i < 4; i++) dst[i] = u + k[i];
    #endif
    }

    /* The changes of the points 1..25 (bar_unit: the bar's unit) from row `old` to row
       `new_` of a side whose inputs start at `base`, in point order; returns the change of
       the side's pips. */
    static inline __attribute__((always_inline)) int tf_delta_points(
            tf_rows* r, const signed char* old, const signed char* new_, int base, int bar_unit) {
        unsigned int changed = tf_row_changes(old, new_) & ~1u;
        int dpips = 0;
        while (changed) {
            int p = __builtin_ctz(changed);
            changed &= changed - 1;
            int n0 = old[p], n1 = new_[p];
            dpips += p * (n1 - n0);
            if (p == 25) {
                tf_put_row(r, base + bar_unit, 0.5 * (n1 - n0));
                continue;
            }
            int u = base + 4 * (p - 1);
            tf_point_delta beyond;
            const tf_point_delta* e = &beyond;
            if ((unsigned)(n0 | n1) < 16) e = &tf_point_deltas[n0][n1];
            else tf_point_delta_of(n0, n1, &beyond);    /* over 15 checkers: any board */
            tf_put4(r->add + r->n_add, u, e->add);
            r->n_add += e->n_add;
            tf_put4(r->sub + r->n_sub, u, e->sub);
            r->n_sub += e->n_sub;
            if (e->scaled != 0.0) {
                r->scaled[r->n_scaled] = u + 3;
                r->val[r->n_scaled++] = e->scaled;
            }
        }
        return dpips;
    }
    """
    void tf_fill_point_deltas() noexcept nogil
    int tf_delta_points(tf_rows* r, const int8_t* old, const int8_t* new, int base,
                        int bar_unit) noexcept nogil

tf_fill_point_deltas()


cdef inline void _nn_delta_side(tf_rows* r, const int8_t* old, const int8_t* new,
                                int base) noexcept nogil:
    """The input changes of one side (its inputs at `base`) from row `old` to row `new`:
    only the points whose counts differ (in order, found by one compare; tf_delta_points),
    then borne off and pips."""
    cdef int dpips = tf_delta_points(r, old, new, base, NN_BAR_UNIT)
    if old[OFF] != new[OFF]:
        _rows_put(r, base + NN_OFF_UNIT, _nn_ratio(NN_BY15, NN_RATIO_SIZE, new[OFF] - old[OFF], 15.0))
    if dpips:
        _rows_put(r, base + NN_PIP_UNIT, _nn_ratio(NN_BY167, NN_RATIO_SIZE, dpips, 167.0))


cdef bint nn_play_begin(const NeuralNetC* net, const NNBase* base, const Board* after,
                        double* p, float* z) noexcept nogil:
    """nn_play_probs up to the output sigmoids of the int16 evaluator: True when `p` holds the
    play's probabilities; False when the int16 evaluator left its output sums in z[0..7]
    (tq_sums), whose sigmoids nn_play_end takes to `p`."""
    cdef tf_rows r
    cdef double q[NN_OUTPUTS]
    cdef double f[NN_FEATURE_INPUTS]
    cdef int k
    cdef uint32_t changed
    if after.c[0][OFF] == 15:
        nn_won_probs(after, True, p)
        return True
    if base.class_may_change:
        net = nn_class_net(net, after.c[1], after.c[0], q)
        if net != base.net:             # the databases (NULL) or another net value it afresh
            if net != NULL:
                _nn_probs_of(net, after.c[1], after.c[0], q)
            nn_swap_sides(q, p)
            return True
    net = base.net
    _rows_clear(&r)
    _nn_delta_side(&r, base.before.c[1], after.c[1], 0)                # now on roll
    _nn_delta_side(&r, base.before.c[0], after.c[0], NN_SIDE_INPUTS)   # has moved
    if base.nf:
        _nn_feature_values(after.c[1], after.c[0], f, base.nf)
        changed = tf_changed_doubles(f, base.feat, base.nf)
        while changed:
            k = tf_ctz(changed)
            changed &= changed - 1
            _rows_put(&r, NN_BASE_INPUTS + k, f[k] - base.feat[k])
    if net.qw1 != NULL:
        tq_sums(base.qh, net.qw1, net.hp, &r, net.qw2, net.qs2inv, net.fb2, z)
        return False
    tf_forward(base.h, net.fw1, net.hp, &r, net.fw2, net.fb2, q)
    nn_make_consistent(q)
    nn_swap_sides(q, p)
    return True


cdef inline void nn_play_end(const float* y, double* p) noexcept nogil:
    """The probabilities `p` of a play from the sigmoids y[0..4] of nn_play_begin's sums."""
    cdef double q[NN_OUTPUTS]
    cdef int o
    for o in range(NN_OUTPUTS):
        q[o] = y[o]
    nn_make_consistent(q)
    nn_swap_sides(q, p)


cdef void nn_play_probs(const NeuralNetC* net, const NNBase* base, const Board* after,
                        double* p) noexcept nogil:
    """Probabilities for the side that has just moved (row 0 of `after`, sides not
    switched), from the base of the position it moved from (fast path).  A play into a
    bear-off is valued by the databases, if `net` has them; one that breaks contact is
    evaluated afresh by the race net, if `net` has one."""
    cdef float z[8]
    if not nn_play_begin(net, base, after, p, z):
        tf_sigmoid_many(z, z, 8)
        nn_play_end(z, p)


cdef enum:
    NN_BATCH = 32       # the plays whose output sigmoids nn_plays_probs takes together


cdef void nn_plays_probs(const NeuralNetC* net, const NNBase* base, const Board* plays,
                         const int* which, int k, double* probs) noexcept nogil:
    """probs[5 j + o] = nn_play_probs of plays[which[j]] (which NULL: plays[j]), j < k <=
    NN_BATCH: the same numbers, but the int16 evaluator's output sigmoids of the k plays
    are taken together, so that one play's need not wait for the last one's."""
    cdef float z[NN_BATCH * 8]
    cdef int waiting[NN_BATCH]
    cdef int j, m = 0
    for j in range(k):
        if not nn_play_begin(net, base, &plays[which[j] if which != NULL else j],
                             &probs[NN_OUTPUTS * j], &z[8 * m]):
            waiting[m] = j
            m += 1
    if m:
        tf_sigmoid_many(z, z, 8 * m)
        for j in range(m):
            nn_play_end(&z[8 * j], &probs[NN_OUTPUTS * waiting[j]])
