# Look-ahead with the net (part of _neural.pxi): roll tables, the luck of a roll
# (variance reduction), the 0- and 1-ply players, and 1-/2-ply probabilities.

cdef inline int nn_roll_index(int d1, int d2) noexcept nogil:
    """Row of the roll (d1, d2) in a roll table: the rolls a <= b in the order 11, 12, .., 66."""
    cdef int a = d1 if d1 < d2 else d2, b = d1 if d1 > d2 else d2
    return (a - 1) * (14 - a) // 2 + (b - a)


cdef int nn_roll_table(const NeuralNetC* net, MoveGen* g, const Board* before,
                       double* table, const double* prices=NULL,
                       const ReplyFilter* rf=NULL, NNMemo* memo=NULL) noexcept nogil:
    """For each of the 21 rolls of the side on roll of `before` (row 0), the probabilities
    (its view) after its best 0-ply play, gammons at its `prices` (NULL: money):
    table[nn_roll_index(d1, d2) * NN_OUTPUTS + k].  One base serves all 21 rolls.  With
    the pre-filter `rf` (_nn_prefilter.pxi; NULL or keep 0: none), the best play of those
    its estimator (the pruning net or the slope) keeps.  Returns 0, or -1 if a roll has
    more plays than the generator `g` holds (the table is then incomplete).  The plays
    several rolls reach are valued once, by a memo (_nn_cache.pxi): the caller's `memo` if
    given, which then holds the probabilities of the plays the table valued (from this
    base) when it returns, else one of its own."""
    cdef NNBase base
    cdef NNSlope slope
    cdef int d1, d2, n
    # Without the memory for a memo of its own, every play is computed, to the same numbers.
    cdef NNMemo* own = <NNMemo*>malloc(sizeof(NNMemo)) if memo == NULL else NULL
    if memo == NULL:
        memo = own
    slope.ready = False
    nn_memo_reset(memo)
    nn_base_prepare(net, before, &base)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            n = generate_plays(g, before, d1, d2)
            if n < 0:
                free(own)
                return -1
            nn_best_reply_probs(net, &base, &slope, g.out, n,
                                table + nn_roll_index(d1, d2) * NN_OUTPUTS, prices, rf, memo)
    free(own)
    return 0


cdef inline double nn_roll_table_equity(const double* table) noexcept nogil:
    """The mean over the 36 rolls of the equities in a roll table (doubles count once,
    the others twice): the 1-ply value of the position for its side on roll."""
    cdef int d1, d2
    cdef double v, total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            v = nn_equity(table + nn_roll_index(d1, d2) * NN_OUTPUTS)
            total += v if d1 == d2 else 2.0 * v
    return total / 36.0


cdef void nn_roll_table_mean(const double* table, double* mean,
                             bint no_doubles=False) noexcept nogil:
    """The mean over the 36 rolls of the probabilities in a roll table (doubles count once,
    the others twice); with `no_doubles`, over the 30 non-double rolls the R5 opening
    roll is drawn from."""
    cdef int a, b, k
    cdef double w
    cdef const double* row
    memset(mean, 0, NN_OUTPUTS * sizeof(double))
    for a in range(1, 7):
        for b in range(a, 7):
            if no_doubles:
                w = 0.0 if a == b else 2.0 / 30.0
            else:
                w = (1.0 if a == b else 2.0) / 36.0
            row = table + nn_roll_index(a, b) * NN_OUTPUTS
            for k in range(NN_OUTPUTS):
                mean[k] += w * row[k]


cdef void nn_add_luck(const double* table, int d1, int d2, bint swap, bint no_doubles,
                      double* luck) noexcept nogil:
    """Add the luck of the roll (d1, d2) to `luck`: the probabilities after the best play for
    these dice minus their mean over the rolls the dice were drawn from (the 36, or the 30
    non-doubles of the R5 opening roll: measured against all 36, the opening's luck would
    not average to zero and would bias the adjusted result), from the table of the side on
    roll; with `swap`, seen by its opponent (win and loss exchanged, so each difference
    changes sign or moves to the opposite figure)."""
    cdef int k
    cdef double mean[NN_OUTPUTS]
    cdef double d[NN_OUTPUTS]
    cdef const double* row = table + nn_roll_index(d1, d2) * NN_OUTPUTS
    nn_roll_table_mean(table, mean, no_doubles)
    for k in range(NN_OUTPUTS):
        d[k] = row[k] - mean[k]
    if swap:
        luck[NN_WIN] -= d[NN_WIN]
        luck[NN_WIN_GAMMON] += d[NN_LOSE_GAMMON]
        luck[NN_WIN_BACKGAMMON] += d[NN_LOSE_BACKGAMMON]
        luck[NN_LOSE_GAMMON] += d[NN_WIN_GAMMON]
        luck[NN_LOSE_BACKGAMMON] += d[NN_WIN_BACKGAMMON]
    else:
        for k in range(NN_OUTPUTS):
            luck[k] += d[k]


cdef inline void nn_won_probs(const Board* after, bint backgammons, double* p) noexcept nogil:
    """The exact outcome for row 0, which has just borne off its last checker (R20)."""
    cdef int q
    p[NN_WIN] = 1.0
    p[NN_WIN_GAMMON] = 1.0 if after.c[1][OFF] == 0 else 0.0
    p[NN_WIN_BACKGAMMON] = 0.0
    p[NN_LOSE_GAMMON] = 0.0
    p[NN_LOSE_BACKGAMMON] = 0.0
    if backgammons and after.c[1][OFF] == 0:
        # The loser's points 19..24 are the winner's home board; 25 is the bar.
        for q in range(19, 26):
            if after.c[1][q]:
                p[NN_WIN_BACKGAMMON] = 1.0
                break


cdef void nn_after_probs(const NeuralNetC* net, const Board* after, double* p,
                         bint exact) noexcept nogil:
    """Probabilities for the side that has just moved (row 0 of `after`, sides not
    switched), by one evaluation of the board alone (fast, or float64 when `exact`)."""
    cdef double q[NN_OUTPUTS]
    if after.c[0][OFF] == 15:
        nn_won_probs(after, True, p)
        return
    if exact:
        neural_probs_exact(net, after.c[1], after.c[0], q)      # the opponent is on roll
    else:
        neural_probs(net, after.c[1], after.c[0], q)
    nn_swap_sides(q, p)


cdef void neural_after_probs(const NeuralNetC* net, const Board* after, double* p) noexcept nogil:
    """Probabilities for the side that has just moved (row 0 of `after`, sides not switched)."""
    nn_after_probs(net, after, p, False)


cdef double neural_1ply_equity(const NeuralNetC* net, MoveGen* g, const Board* after,
                               double* table, const double* prices=NULL,
                               const double* reply_prices=NULL,
                               const ReplyFilter* rf=NULL) noexcept nogil:
    """1-ply equity of a post-move board for its mover: the mean over the opponent's 21
    rolls of the opponent's best 0-ply reply (of those the pre-filter `rf` keeps; NULL:
    of all), seen from the mover.  In a match the mover
    values gammons at its `prices` and the opponent picks replies at its `reply_prices`
    (both NULL: money).  Uses `g` for the replies (not the generator holding the mover's
    own candidates).  If `table` is not NULL it receives the opponent's roll table
    (nn_roll_table, for the luck of his next roll), and table[0] is set to -1 when there
    is none (the game is over, or a roll has more plays than `g` holds: the value is then
    the 0-ply one)."""
    cdef Board opp
    cdef double local[NN_ROLLS * NN_OUTPUTS]
    cdef double* t = table if table != NULL else local
    cdef double theirs[NN_OUTPUTS]
    cdef double mine[NN_OUTPUTS]
    t[0] = -1.0
    if after.c[0][OFF] != 15:
        memcpy(opp.c[0], after.c[1], 26)
        memcpy(opp.c[1], after.c[0], 26)
        if nn_roll_table(net, g, &opp, t, reply_prices, rf) == 0:
            if prices == NULL:
                return -nn_roll_table_equity(t)     # money, summed as it always was
            nn_roll_table_mean(t, theirs)
            nn_swap_sides(theirs, mine)
            return nn_equity_priced(mine, prices)
        t[0] = -1.0
    neural_after_probs(net, after, mine)
    return nn_equity_priced(mine, prices)


# The 1-ply look of a candidate that is not the best so far needs no exact value: only
# whether it beats the best.  One reply of each roll valued first bounds it (the opponent's
# best reply of a roll is at least that reply, so the mover's equity, the mean of the rows,
# is at most the mean with those), and the other replies are valued roll by roll only while
# the bound still beats the best (nn_1ply_equity_above).  The first reply of a roll is its
# analogue of the best candidate's best reply: the reply that leaves the opponent's
# checkers where that one left them (his checkers stand where they stood before both
# candidates, unless one of them hit; the mover's blocks decide whether the same play is
# still legal).  It is found by comparing rows, so it costs no estimate, and it is usually
# as good a reply here as there: most later candidates are cut by these rows alone.  A
# roll without one starts from the reply the pre-filter's estimate ranks best.  With a
# pre-filter (ReplyFilter.analogues), the analogues are valued even when the estimate would
# not keep them: a later candidate's replies are the kept ones and the analogues, so its
# opponent only plays better (docs/performance.md, "The best candidate's replies").
cdef bint nn_look_bound = True    # off only to compare (_core.set_look_bound)

cdef enum:
    NN_LOOK_CAP = 24            # kept replies of a roll held back; those beyond are valued
                                # at once, with the best-estimated one

ctypedef struct NNLook:
    Board held[NN_ROLLS][NN_LOOK_CAP]   # the kept replies of each roll not yet valued
    int index[NN_ROLLS][NN_LOOK_CAP]    # their indices among the roll's plays
    int n_held[NN_ROLLS]
    int best[NN_ROLLS]                  # the index of the roll's best reply so far
    double best_e[NN_ROLLS]             # and its equity (for the opponent)
    int8_t best_own[NN_ROLLS][32]       # and the opponent's checkers after it (26 used)
    bint deferred[NN_ROLLS]             # the roll's plays not yet estimated (its
                                        # analogue valued instead)
    NNMemo memo


cdef inline void _nn_look_offer(NNLook* look, int r, int i, const double* p, double e,
                                double* row, const Board* reply) noexcept nogil:
    """Reply i of roll r (the board `reply`), valued: it becomes the roll's row if it is
    better than the row's reply, or as good and before it (nn_best_reply_probs takes the
    first of equals)."""
    if e > look.best_e[r] or (e == look.best_e[r] and i < look.best[r]):
        look.best_e[r] = e
        look.best[r] = i
        memcpy(row, p, NN_OUTPUTS * sizeof(double))
        memcpy(look.best_own[r], reply.c[0], 26)


cdef inline void _nn_look_roll(const NeuralNetC* net, const NNBase* base, NNSlope* slope,
                               const MoveGen* g, int n, const ReplyFilter* rf, NNLook* look,
                               int r, double* row, float* est) noexcept nogil:
    """The kept replies of roll r (g.out[0:n]): the best-estimated one valued now (any one
    when none is estimated), the others held for later (those beyond NN_LOOK_CAP valued
    now too)."""
    cdef double p[NN_OUTPUTS]
    cdef float cut
    cdef int i, first
    cdef bint filtered = nn_reply_cut(net, base, slope, g.out, n, NULL, rf, est, &cut, &first)
    if not filtered:
        first = 0
    look.n_held[r] = 0
    look.deferred[r] = False
    for i in range(n):
        if filtered and est[i] < cut:
            continue
        if i != first and look.n_held[r] < NN_LOOK_CAP:
            look.held[r][look.n_held[r]] = g.out[i]
            look.index[r][look.n_held[r]] = i
            look.n_held[r] += 1
            continue
        nn_memo_probs(&look.memo, net, base, &g.out[i], p)
        _nn_look_offer(look, r, i, p, nn_equity(p), row, &g.out[i])


cdef inline double _nn_look_equity(const NNLook* look) noexcept nogil:
    """-nn_roll_table_equity of the look's table, from the rows' equities it keeps
    (best_e: each row's nn_equity), in the same order: the same bits."""
    cdef int d1, d2
    cdef double v, total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            v = look.best_e[nn_roll_index(d1, d2)]
            total += v if d1 == d2 else 2.0 * v
    return -(total / 36.0)


cdef double nn_1ply_equity_above(const NeuralNetC* net, MoveGen* g, const Board* after,
                                 double* table, const ReplyFilter* rf, double floor,
                                 NNLook* look, const int8_t* targets=NULL) noexcept nogil:
    """The mover's 1-ply equity of `after` (money: the bound needs the opponent to choose by
    the mover's equity) when it is above `floor`, with its table; otherwise some value at
    most `floor` (the table then incomplete), with fewer evaluations.  The opponent's
    replies to a roll are those the pre-filter `rf` keeps and, with `targets`, the roll's
    analogues: targets[32 r: 32 r + 26] is his row after his best reply to roll r of the
    best candidate, and an analogue a play of r that leaves his checkers so.  Without
    targets, neural_1ply_equity(net, g, after, table, NULL, NULL, rf) to the same bits
    (and with them too when every reply is kept).  The analogues are valued first; then,
    for each roll without one, the reply with the best estimate (any one of the kept
    replies when none is estimated), the rolls of weight 2 first; then the other kept
    replies roll by roll in the same order, stopping as soon as the mover's equity with
    the rows so far (each row only rises as replies are valued, so this bounds the value
    from above) is at most `floor`."""
    cdef Board opp
    cdef NNBase base
    cdef NNSlope slope
    cdef double local[NN_ROLLS * NN_OUTPUTS]
    cdef double* t = table if table != NULL else local
    cdef double* row
    cdef double p[NN_OUTPUTS]
    cdef double held[NN_BATCH * NN_OUTPUTS]
    cdef float est[MAX_RESULTS]
    cdef double v
    cdef int d1, d2, r, n, i, k, k0, m, pass_
    cdef bint found
    if after.c[0][OFF] == 15:
        return neural_1ply_equity(net, g, after, table, NULL, NULL, rf)
    t[0] = -1.0
    memcpy(opp.c[0], after.c[1], 26)
    memcpy(opp.c[1], after.c[0], 26)
    slope.ready = False
    nn_memo_reset(&look.memo)
    nn_base_prepare(net, &opp, &base)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            r = nn_roll_index(d1, d2)
            row = t + r * NN_OUTPUTS
            n = generate_plays(g, &opp, d1, d2)
            if n < 0:       # as neural_1ply_equity: the 0-ply value, no table
                t[0] = -1.0
                neural_after_probs(net, after, p)
                return nn_equity(p)
            look.best[r] = n
            look.best_e[r] = -1e300
            if targets != NULL:
                found = False
                for i in range(n):
                    if tf_row_changes(g.out[i].c[0], targets + 32 * r) == 0:
                        nn_memo_probs(&look.memo, net, &base, &g.out[i], p)
                        _nn_look_offer(look, r, i, p, nn_equity(p), row, &g.out[i])
                        found = True
                if found:
                    look.deferred[r] = True
                    look.n_held[r] = 0
                    continue
            _nn_look_roll(net, &base, &slope, g, n, rf, look, r, row, est)
    v = _nn_look_equity(look)
    for pass_ in range(4):      # 0-1: the deferred rolls (weight 2, then the doubles);
                                # 2-3: the held replies, in the same order
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                if v <= floor:
                    return v
                r = nn_roll_index(d1, d2)
                if (d1 == d2) != (pass_ & 1):
                    continue
                row = t + r * NN_OUTPUTS
                if pass_ < 2:
                    if not look.deferred[r]:
                        continue
                    n = generate_plays(g, &opp, d1, d2)
                    _nn_look_roll(net, &base, &slope, g, n, rf, look, r, row, est)
                elif look.n_held[r] == 0:
                    continue
                else:
                    k0 = 0
                    while k0 < look.n_held[r]:      # one batch: NN_LOOK_CAP <= NN_BATCH
                        m = min(NN_BATCH, look.n_held[r] - k0)
                        nn_memo_plays_probs(&look.memo, net, &base, &look.held[r][k0], NULL, m,
                                            held)
                        for k in range(m):
                            _nn_look_offer(look, r, look.index[r][k0 + k],
                                           &held[NN_OUTPUTS * k],
                                           nn_equity(&held[NN_OUTPUTS * k]), row,
                                           &look.held[r][k0 + k])
                        k0 += m
                v = _nn_look_equity(look)
    return v


cdef int neural_choose(const NeuralNetC* net, const MoveGen* g, int n,
                       const double* prices=NULL, NNMemo* memo=NULL) noexcept nogil:
    """Index of the play with the best 0-ply equity among g.out[0:n] (generated from g.root),
    gammons at `prices` in a match (NULL: money).  `memo` (NULL: none): the probabilities
    of plays from g.root the luck's roll table has just valued (nn_roll_table), the same
    numbers as evaluating them again."""
    cdef NNBase base
    cdef double p[NN_OUTPUTS]
    nn_base_prepare(net, &g.root, &base)
    # Without a filter (rf NULL) this is nn_best_play_probs, through the memo if any.
    return nn_best_reply_probs(net, &base, NULL, g.out, n, p, prices, NULL, memo)


cdef int neural_choose_1ply(const NeuralNetC* net, const MoveGen* g, int n, MoveGen* scratch,
                            const MoveFilter* filt, double* next_table,
                            const double* prices=NULL,
                            const double* reply_prices=NULL,
                            const ReplyFilter* rf=NULL) noexcept nogil:
    """Index of the best play by 1-ply equity among the few best by 0-ply (the move filter
    `filt` keeps the cost at a handful of 21-roll looks a move; the pre-filter `rf` the
    replies each look values by the net, NULL: all).  In money play the looks after the
    first are bounded (nn_1ply_equity_above) and, with rf.analogues, their replies
    include the analogues of the best candidate's best replies.  In a match, gammons at
    the mover's `prices` and replies picked at the opponent's `reply_prices` (NULL:
    money), every look in full over the kept replies.
    If `next_table` is not NULL it receives the opponent's roll table after the chosen play
    (from its 1-ply look; next_table[0] = -1 when there is none): the luck of his next roll
    comes free."""
    cdef NNBase base
    cdef int i, i0, j, k, m = 0, best
    cdef int cap = filt.candidates
    cdef int cand[NN_MAX_CANDIDATES]
    cdef double eq[NN_MAX_CANDIDATES]
    cdef double table[NN_ROLLS * NN_OUTPUTS]
    cdef double p[NN_BATCH * NN_OUTPUTS]
    cdef double v, best_v
    cdef NNLook* look
    cdef int8_t targets[NN_ROLLS][32]   # the best candidate's best replies (NNLook.best_own)
    cdef bint analogues = rf == NULL or rf.analogues
    cdef bint targeted = False          # targets hold a whole look's
    cand[0] = 0
    if next_table != NULL:
        next_table[0] = -1.0
    nn_base_prepare(net, &g.root, &base)
    # The top candidates by 0-ply equity, kept sorted (insertion into a short list); the
    # plays valued NN_BATCH at a time.
    i0 = 0
    while i0 < n:
        k = min(NN_BATCH, n - i0)
        nn_plays_probs(net, &base, &g.out[i0], NULL, k, p)
        for i in range(i0, i0 + k):
            v = nn_equity_priced(&p[NN_OUTPUTS * (i - i0)], prices)
            if m == cap and v <= eq[m - 1]:
                continue
            j = m if m < cap else m - 1
            while j > 0 and eq[j - 1] < v:
                eq[j] = eq[j - 1]
                cand[j] = cand[j - 1]
                j -= 1
            eq[j] = v
            cand[j] = i
            if m < cap:
                m += 1
        i0 += k
    best = cand[0]
    if m == 1 or (eq[1] < eq[0] - filt.window and next_table == NULL):
        # One play within the window: its 1-ply look could not change the choice (it is
        # still made when the caller wants the table, the luck of the next roll).
        return best
    best_v = -1e300
    # In money play a look need only show whether it beats the best so far (with the bound
    # off, _core.set_look_bound, each is made in full: the same choice and table).
    look = (<NNLook*>malloc(sizeof(NNLook)) if prices == NULL
            and reply_prices == NULL else NULL)
    for j in range(m):
        if eq[j] < eq[0] - filt.window:
            break
        if look != NULL:
            v = nn_1ply_equity_above(net, scratch, &g.out[cand[j]], table, rf,
                                     best_v if nn_look_bound else -INFINITY, look,
                                     &targets[0][0] if targeted and analogues else NULL)
        else:
            v = neural_1ply_equity(net, scratch, &g.out[cand[j]], table, prices,
                                   reply_prices, rf)
        if v > best_v:
            best_v = v
            best = cand[j]
            # A look without a table (the candidate wins at once, or a roll has more plays
            # than the generator holds) has no best reply for every roll.
            targeted = look != NULL and table[0] != -1.0
            if targeted:
                memcpy(targets, look.best_own, sizeof(targets))
            if next_table != NULL:
                memcpy(next_table, table, sizeof(table))
    free(look)
    return best


cdef int nn_ply_probs(const NeuralNetC* net, MoveGen* g, NNCache* cache, const Board* before,
                     int plies, double* p, const double* prices=NULL,
                     const double* reply_prices=NULL) noexcept nogil:
    """The `plies`-ply probabilities of `before` for its side on roll (row 0, before rolling;
    the game in progress).  0: the net's evaluation; k >= 1: the mean over its 36 rolls of
    its (k-1)-ply probabilities after its best 0-ply play of the roll (the (k-1)-ply ones of
    the position its opponent then rolls from, seen from this side): 1 ply averages the
    best plays' 0-ply values, 2 ply looks two rolls ahead, as gnubg numbers its plies.  The
    side on roll chooses its plays at its gammon `prices`, its opponent at `reply_prices`
    (NULL: money).  `g` generates every level's plays (a level copies out its best play
    before the next one runs).  `cache` (or NULL) keeps the values of the positions of 1
    ply and more (_nn_cache.pxi, bound to `net` by the caller).  Returns 0, or -1 if a roll
    has more plays than `g` holds."""
    cdef NNBase base
    cdef NNCacheKey key
    cdef Board opp
    cdef double q[NN_OUTPUTS]
    cdef double r[NN_OUTPUTS]
    cdef int a, b, k, n, best
    cdef double w
    if plies <= 0:
        neural_probs(net, before.c[0], before.c[1], p)
        return 0
    if cache != NULL:
        nn_cache_key(cache, before, plies, prices, reply_prices, &key)
        if nn_cache_find(cache, &key, p):
            return 0
    nn_base_prepare(net, before, &base)
    memset(p, 0, NN_OUTPUTS * sizeof(double))
    for a in range(1, 7):
        for b in range(a, 7):
            n = generate_plays(g, before, a, b)
            if n < 0:
                return -1
            best = nn_best_play_probs(net, &base, g.out, n, q, prices)
            if plies > 1 and g.out[best].c[0][OFF] != 15:
                memcpy(opp.c[0], g.out[best].c[1], 26)
                memcpy(opp.c[1], g.out[best].c[0], 26)
                if nn_ply_probs(net, g, cache, &opp, plies - 1, r, reply_prices, prices) < 0:
                    return -1
                nn_swap_sides(r, q)
            w = (1.0 if a == b else 2.0) / 36.0
            for k in range(NN_OUTPUTS):
                p[k] += w * q[k]
    if cache != NULL:
        nn_cache_store(cache, &key, p)
    return 0


cdef double nn_move_equity(const NeuralNetC* net, MoveGen* g, NNCache* cache, const Board* after,
                           int plies, const double* prices=NULL,
                           const double* reply_prices=NULL) noexcept nogil:
    """The `plies`-ply equity of a post-move board for its mover (row 0, sides not switched):
    the opponent's `plies`-ply probabilities of the position he rolls from (nn_ply_probs,
    his plays chosen at `reply_prices`, the mover's at `prices`), seen from the mover, with
    gammons at the mover's `prices` (both NULL: money).  0 ply, a won game, or a roll with
    more plays than `g` holds: the 0-ply value."""
    cdef Board opp
    cdef double theirs[NN_OUTPUTS]
    cdef double mine[NN_OUTPUTS]
    if plies > 0 and after.c[0][OFF] != 15:
        memcpy(opp.c[0], after.c[1], 26)
        memcpy(opp.c[1], after.c[0], 26)
        if nn_ply_probs(net, g, cache, &opp, plies, theirs, reply_prices, prices) == 0:
            nn_swap_sides(theirs, mine)
            return nn_equity_priced(mine, prices)
    neural_after_probs(net, after, mine)
    return nn_equity_priced(mine, prices)


cdef int nn_keep_best(const double* values, int* order, int m, const MoveFilter* filt) noexcept nogil:
    """Sort order[0:m] by values[order[j]], best first (equals keep their order), and return
    how many of them the move filter `filt` keeps: at most filt.candidates, those within
    filt.window of the best."""
    cdef int i, j, t, kept
    for i in range(1, m):
        t = order[i]
        j = i
        while j > 0 and values[order[j - 1]] < values[t]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = t
    kept = 0
    while (kept < m and kept < filt.candidates
           and (kept == 0 or values[order[kept]] >= values[order[0]] - filt.window)):
        kept += 1
    return kept


cdef int nn_rank_plays(const NeuralNetC* net, const Board* root, const Board* plays, int n,
                       int plies, const MoveFilter* filters, MoveGen* scratch, NNCache* cache,
                       double* eq, int* order, const double* prices=NULL,
                       const double* reply_prices=NULL, bint choice_only=False) noexcept nogil:
    """The plays[0:n] of one roll valued at 0 ply, and deeper as far as `plies` (0-2) through
    gnubg-style move filters: every play at 0 ply; the plays filters[0] keeps of those
    (the best by 0 ply) at 1 ply; of those, the ones filters[1] keeps (the best by 1 ply) at
    2 ply.  eq[k * n + i]: play i's k-ply equity for its mover, NaN where it was not
    looked at (k <= plies).  `root`: the board the plays were made from, their 0-ply
    values computed as changes to its hidden sums (the players' way), or NULL: each play
    evaluated afresh.  `order` receives n indices, the plays best first by the deepest ply
    that reached them (then by the ply above).  Gammons at the mover's `prices`, replies
    chosen at `reply_prices` (NULL: money).  `scratch`: the generator of the look-ahead
    (not the one holding `plays`).  `choice_only`: only the best play is wanted, so a
    filter that keeps a single play ends the search (its deeper values stay NaN).  Returns
    the index of the best play."""
    cdef NNBase base
    cdef int i, j, k, m
    cdef double p[NN_OUTPUTS]
    for i in range(n):
        order[i] = i
        for k in range(1, plies + 1):
            eq[k * n + i] = NAN
    if root != NULL:
        nn_base_prepare(net, root, &base)
    for i in range(n):
        if root != NULL:
            nn_play_probs(net, &base, &plays[i], p)
        else:
            neural_after_probs(net, &plays[i], p)
        eq[i] = nn_equity_priced(p, prices)
    m = n
    for k in range(1, plies + 1):
        m = nn_keep_best(eq + (k - 1) * n, order, m, &filters[k - 1])
        if choice_only and m == 1:
            break
        for j in range(m):
            i = order[j]
            if k == 1:
                eq[n + i] = neural_1ply_equity(net, scratch, &plays[i], NULL, prices, reply_prices)
            else:
                eq[k * n + i] = nn_move_equity(net, scratch, cache, &plays[i], k, prices,
                                               reply_prices)
    nn_keep_best(eq + plies * n, order, m, &filters[0])
    return order[0]


cdef int neural_choose_2ply(const NeuralNetC* net, const MoveGen* g, int n, MoveGen* scratch,
                            MoveFilter first, MoveFilter second, NNCache* cache,
                            const double* prices=NULL,
                            const double* reply_prices=NULL) noexcept nogil:
    """Index of the best play by 2-ply equity among g.out[0:n] (generated from g.root): the
    plays the move filter `first` keeps by 0 ply (the 1-ply players' filter) are looked at
    1 ply, those `second` keeps of them by 1 ply at 2 ply (nn_rank_plays, the 0-ply values
    as changes to g.root's hidden sums, as the other neural players make them).  `cache`
    (or NULL) keeps the searched positions, bound to `net` by the caller.  In a match,
    gammons at the mover's `prices`, replies at `reply_prices` (NULL: money).  Should memory
    run out, the 0-ply choice."""
    cdef MoveFilter filters[2]
    cdef double* eq = <double*>malloc(3 * n * sizeof(double))
    cdef int* order = <int*>malloc(n * sizeof(int))
    cdef int best
    filters[0] = first
    filters[1] = second
    if eq != NULL and order != NULL:
        best = nn_rank_plays(net, &g.root, g.out, n, 2, filters, scratch, cache, eq, order,
                             prices, reply_prices, True)
    else:
        best = neural_choose(net, g, n, prices)
    free(eq)
    free(order)
    return best
