# Training the net (part of _neural.pxi): TD self-play updates and the sampling of
# positions for supervised targets.

# ---------------------------------------------------------------- TD(0) training

cdef void nn_sync_points(NeuralNetC* net) noexcept nogil:
    """The point rows: for side s, point p, n = 1..15 checkers there, fw1 row
    nn_point_row(n_inputs + NN_SIDE_POINT_ROWS s, p, n) is the sum of the rows of the inputs that n
    checkers switch on (n >= 1, n >= 2, n >= 3, and the spare unit times (n - 3) / 2),
    summed in float64 and rounded once.  A full evaluation then adds one row per occupied
    point instead of up to four (the plays of a roll still change the raw inputs' rows)."""
    cdef int s, p, n, j, u, h = net.n_hidden, hp = net.hp
    cdef float* row
    cdef const double* w
    for s in range(2):
        for p in range(1, 25):
            u = NN_SIDE_INPUTS * s + 4 * (p - 1)
            w = net.w1 + u * h
            for n in range(1, NN_POINT_COUNTS + 1):
                row = net.fw1 + nn_point_row(net.n_inputs + NN_SIDE_POINT_ROWS * s, p, n) * hp
                for j in range(h):
                    row[j] = <float>nn_point_units(n, w[j], w[h + j], w[2 * h + j], w[3 * h + j])
    net.points_fresh = True


cdef void nn_sync_fast(NeuralNetC* net, const tf_rows* rows) noexcept nogil:
    """Copy the float64 weights into the fast path's float32 copy: the biases, the output
    layer, and the rows of w1 of the inputs in `rows` (all rows, and the point rows, when
    `rows` is NULL; a training step's rows leave the point rows stale, so that training
    evaluates by the raw rows throughout, and `train` renews them at its end)."""
    cdef int i, a, j, o, h = net.n_hidden, hp = net.hp
    cdef int n = net.n_inputs if rows == NULL else _rows_count(rows)
    net.erows = NULL                    # built from the weights before this change
    net.qerows = NULL
    for j in range(h):
        net.fb1[j] = <float>net.b1[j]
    for o in range(NN_OUTPUTS):
        net.fb2[o] = <float>net.b2[o]
        for j in range(h):
            net.fw2[o * hp + j] = <float>net.w2[o * h + j]
    for a in range(n):
        i = a
        if rows != NULL:
            _rows_item(rows, a, &i)
        for j in range(h):
            net.fw1[i * hp + j] = <float>net.w1[i * h + j]
    if rows == NULL:
        nn_sync_points(net)
    else:
        net.points_fresh = False


cdef void nn_td_update(NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                       const double* target, double alpha) noexcept nogil:
    """One gradient step moving the raw outputs for (on_roll to play) towards `target`.

    Cross-entropy loss on each sigmoid output, so the output error is simply
    target - output (no vanishing gradient when an output saturates).  The step is
    taken in float64 (the exact path); the fast path's copy of what it changed is then
    refreshed, so it always equals the weights rounded to float32 and a resumed run
    (whose copy is made afresh from the saved weights) continues bit for bit.
    """
    cdef tf_rows x
    cdef double f[NN_FEATURE_INPUTS]
    _nn_rows(&x, on_roll, other, f, nn_features_of(net))
    nn_td_step(net, &x, target, alpha)


cdef void nn_td_step(NeuralNetC* net, const tf_rows* x, const double* target,
                     double alpha) noexcept nogil:
    """The gradient step of nn_td_update for the inputs `x`, whatever encoded them (the
    Plakoto and Fevga nets of _variant_neural.pxi share it)."""
    cdef double hidden[NN_MAX_HIDDEN]
    cdef double dh[NN_MAX_HIDDEN]
    cdef double out[NN_OUTPUTS]
    cdef double delta[NN_OUTPUTS]
    cdef int a, i, j, o, h = net.n_hidden
    cdef double s, v
    cdef double* row
    nn_forward(net, x, hidden, out)
    for o in range(NN_OUTPUTS):
        delta[o] = alpha * (target[o] - out[o])
    for j in range(h):
        s = 0.0
        for o in range(NN_OUTPUTS):
            s += delta[o] * net.w2[o * h + j]
        dh[j] = s * hidden[j] * (1.0 - hidden[j])
    for o in range(NN_OUTPUTS):
        row = net.w2 + o * h
        for j in range(h):
            row[j] += delta[o] * hidden[j]
        net.b2[o] += delta[o]
    for j in range(h):
        net.b1[j] += dh[j]
    for a in range(_rows_count(x)):
        v = _rows_item(x, a, &i)
        row = net.w1 + i * h
        for j in range(h):
            row[j] += v * dh[j]
    nn_sync_fast(net, x)


cdef int nn_train_game(NeuralNetC* net, MoveGen* g, Rng* rng, double alpha, double lam,
                       bint backgammons, int8_t* hist, double* targets, int cap,
                       int* plies) noexcept nogil:
    """One self-play game from the start, learning by TD(0) or, with `lam` > 0, TD(lambda).

    Each side plays the play with the best 0-ply equity.  The one-step target of a
    position is the value of the position chosen (seen from the mover), or the real result
    when the play wins.  TD(0) (`lam` 0) moves the net towards it after every ply.
    TD(lambda) is the forward view, offline: the game is played with the weights fixed,
    then each position (of `cap` at most, kept in `hist` and `targets`) is moved towards
    its lambda-return, G_t = (1 - lam) * target_t + lam * G_t+1 (G_t+1 seen from the
    other side), G of the last position being the result.  lam 1 learns from the results
    alone.  Returns the outcome for the first mover (WIN_SINGLE .. LOSE_BACKGAMMON
    numbering: 0-2 wins, 3-5 losses), or -1 if the game did not end.
    """
    cdef Board b
    cdef NNBase base
    cdef double target[NN_OUTPUTS]
    cdef double ret[NN_OUTPUTS]
    cdef double v
    cdef int8_t tmp[26]
    cdef int d1, d2, n, best, side = 0, k, t, o
    cdef int limit = 100000 if lam == 0.0 else cap
    board_start(&b)
    plies[0] = 0
    while plies[0] < limit:
        rng_dice(rng, &d1, &d2)
        while plies[0] == 0 and d1 == d2:       # R5: no double on the opening play
            rng_dice(rng, &d1, &d2)
        n = generate_plays(g, &b, d1, d2)
        if n < 0:
            return -1
        nn_base_prepare(net, &b, &base)
        best = nn_best_play(net, &base, g.out, n, &v)
        nn_play_probs(net, &base, &g.out[best], target)
        if g.out[best].c[0][OFF] == 15:
            nn_won_probs(&g.out[best], backgammons, target)
        if lam == 0.0:
            nn_td_update(net, b.c[0], b.c[1], target, alpha)
        else:
            memcpy(hist + plies[0] * 52, b.c, 52)
            memcpy(targets + plies[0] * NN_OUTPUTS, target, sizeof(target))
        b = g.out[best]
        plies[0] += 1
        if b.c[0][OFF] == 15:
            k = <int>(target[NN_WIN_GAMMON] + target[NN_WIN_BACKGAMMON])
            if lam != 0.0:
                # The returns, last position first (each from its own mover's side).
                for t in range(plies[0] - 2, -1, -1):
                    nn_swap_sides(targets + (t + 1) * NN_OUTPUTS, ret)
                    for o in range(NN_OUTPUTS):
                        targets[t * NN_OUTPUTS + o] = ((1.0 - lam) * targets[t * NN_OUTPUTS + o]
                                                       + lam * ret[o])
                for t in range(plies[0]):
                    nn_td_update(net, hist + t * 52, hist + t * 52 + 26,
                                 targets + t * NN_OUTPUTS, alpha)
            return k if side == 0 else 3 + k
        memcpy(tmp, b.c[0], 26)                 # switch sides: the opponent is on roll
        memcpy(b.c[0], b.c[1], 26)
        memcpy(b.c[1], tmp, 26)
        side ^= 1
    return -1


# ---------------------------------------------------------------- supervised training data

cdef int nn_sample_game(const NeuralNetC* net, MoveGen* g, Rng* rng, double explore,
                        int8_t* out, int8_t* results, Py_ssize_t cap,
                        Py_ssize_t* count) noexcept nogil:
    """One 0-ply self-play game from the start, appending every position before a roll after
    the opening one (row 0 on roll, 52 bytes each) to `out` while `count` < `cap`.  With
    probability `explore` a turn plays a uniformly random legal play instead of the best: the
    positions then cover more than the net's own style of play.  If `results` is not NULL,
    results[i] receives the game's outcome for the side on roll of position i (0-2: it wins
    single, gammon, backgammon; 3-5: it loses so), or -1 when a random play came later in the
    game (the outcome is then not the net's own).  Returns 0, or -1 if the game did not end
    or a roll had more plays than `g` holds."""
    cdef Board b
    cdef NNBase base
    cdef double v
    cdef double won[NN_OUTPUTS]
    cdef int8_t tmp[26]
    cdef int d1, d2, n, best, plies = 0, last_random = 0, k
    cdef Py_ssize_t first = count[0], i
    board_start(&b)
    while plies < 100000:
        if plies > 0 and count[0] < cap:
            memcpy(out + count[0] * 52, b.c, 52)
            count[0] += 1
        rng_dice(rng, &d1, &d2)
        while plies == 0 and d1 == d2:          # R5: no double on the opening play
            rng_dice(rng, &d1, &d2)
        n = generate_plays(g, &b, d1, d2)
        if n < 0:
            return -1
        if explore > 0.0 and <double>rng_below(rng, 1000000) < explore * 1000000.0:
            best = <int>rng_below(rng, <uint64_t>n)
            last_random = plies
        else:
            nn_base_prepare(net, &b, &base)
            best = nn_best_play(net, &base, g.out, n, &v)
        b = g.out[best]
        plies += 1
        if b.c[0][OFF] == 15:
            if results != NULL:
                # Position i was recorded before ply i - first + 1; the winner moved last.
                nn_won_probs(&b, True, won)
                k = <int>(won[NN_WIN_GAMMON] + won[NN_WIN_BACKGAMMON])
                for i in range(first, count[0]):
                    if i - first + 1 <= last_random:
                        results[i] = -1
                    elif (i - first + 1) % 2 == (plies - 1) % 2:
                        results[i] = k
                    else:
                        results[i] = 3 + k
            return 0
        memcpy(tmp, b.c[0], 26)                 # switch sides: the opponent is on roll
        memcpy(b.c[0], b.c[1], 26)
        memcpy(b.c[1], tmp, 26)
    return -1


cdef inline void board_start(Board* b) noexcept nogil:
    """The starting position (R3): 2 on the 24-point, 5 on 13, 3 on 8, 5 on 6, each side."""
    cdef int s
    memset(b.c, 0, 52)
    for s in range(2):
        b.c[s][24] = 2
        b.c[s][13] = 5
        b.c[s][8] = 3
        b.c[s][6] = 5
