# Neural evaluator for Plakoto and Fevga (issue 44): a net per game, its players and its
# TD(lambda) self-play trainer.  Included by _core.pyx after _variant_inputs.pxi (the
# inputs) and before _variant_game.pxi (whose game loop calls the players here).
#
# The machinery is the backgammon net's (_neural.pxi): the weights live in a NeuralNetC
# (float64, w1 input-major, and the float32 copy of the fast path), a full evaluation and
# the plays of a roll go through the vector kernel tf_forward of _nnsimd.pxi, the exact
# path through nn_forward, and training through nn_td_step.  Only the inputs and what
# the outputs mean are the variants' own.
#
# The inputs are described and encoded in _variant_inputs.pxi.
#
# Outputs (sigmoids), for the player on roll: P(win), P(win 2 points: the loser bore off
# none, or P5's mother rule), P(win by the mother rule), P(lose 2 points), P(lose by the
# mother rule): the backgammon net's five slots (gammon -> 2 points, backgammon ->
# mother), so nn_make_consistent and nn_swap_sides serve unchanged.  Fevga has no mother
# rule: its third and fifth outputs learn 0.  A Plakoto draw (P6) counts as half a win.
# Equity = 2 P(win) - 1 + P(win 2) - P(lose 2): the points a game (P7, F7).

cdef enum:
    VN_WIN_MOTHER = 2             # output slots the backgammon net uses for backgammons
    VN_LOSE_MOTHER = 4
    VN_HISTORY = 20000            # plies of a training game kept (VMAX_PLIES)


ctypedef struct VNet:
    NeuralNetC c                  # the weights; race and bearoff are always NULL
    int game                      # GAME_PLAKOTO or GAME_FEVGA


ctypedef struct VNPlayers:
    # What the neural players of the variant game loop need (_variant_game.pxi).
    const VNet* net[2]            # by game (GAME_PLAKOTO, GAME_FEVGA); NULL where none is given
    VarGen* scratch               # the 1-ply look's generator (NULL without a 1-ply player)


ctypedef struct VNBase:
    # The hidden sums shared by the plays of one roll: those of the position before the
    # play seen by the opponent (who is on roll after it), as NNBase in _neural.pxi.
    VNInputs x
    float h[NN_MAX_HIDDEN]
    uint32_t pinned               # the mover's pinned checkers (Plakoto), fixed during his turn


cdef inline uint32_t vn_other_pins(const Board* b, int game, uint32_t pinned) noexcept nogil:
    """Row 1's pinned checkers (its numbering), row 0's being `pinned` (Plakoto; else 0)."""
    return plakoto_pins_after(b, pinned) if game == GAME_PLAKOTO else 0


cdef void vn_probs(const VNet* net, const Board* b, uint32_t pinned, bint exact,
                   double* p) noexcept nogil:
    """Consistent probabilities for row 0 of `b`, about to roll; `pinned`: its pinned
    checkers.  `exact`: the float64 path (training's), else the fast one."""
    cdef VNInputs x
    cdef double hidden[NN_MAX_HIDDEN]
    cdef tf_rows r
    vn_encode(&x, net.game, b.c[0], b.c[1], pinned, vn_other_pins(b, net.game, pinned))
    vn_rows(&r, &x, NULL)
    if exact:
        nn_forward(&net.c, &r, hidden, p)
    else:
        tf_forward(net.c.fb1, net.c.fw1, net.c.hp, &r, net.c.fw2, net.c.fb2, p)
    nn_make_consistent(p)


cdef inline double vn_equity(const double* p) noexcept nogil:
    """Points a game for the side whose probabilities these are (P7, F7)."""
    return 2.0 * p[NN_WIN] - 1.0 + p[NN_WIN_GAMMON] - p[NN_LOSE_GAMMON]


cdef inline void vn_end_probs(int end, double* p) noexcept nogil:
    """The mover's exact probabilities after a play that ends the game (variant_end's code)."""
    memset(p, 0, NN_OUTPUTS * sizeof(double))
    if end == 4:
        p[NN_WIN] = 0.5                     # P6: a draw is worth nothing to either side
        return
    p[NN_WIN] = 1.0
    if end >= 2:
        p[NN_WIN_GAMMON] = 1.0
    if end == 3:
        p[VN_WIN_MOTHER] = 1.0


cdef void vn_base_prepare(const VNet* net, const Board* before, uint32_t pinned,
                          VNBase* base) noexcept nogil:
    """The base for evaluating the plays from `before` (row 0 about to move, `pinned` its
    pinned checkers)."""
    cdef tf_rows r
    base.pinned = pinned
    vn_encode(&base.x, net.game, before.c[1], before.c[0],
              vn_other_pins(before, net.game, pinned), pinned)
    vn_rows(&r, &base.x, NULL)
    tf_sums(net.c.fb1, net.c.fw1, net.c.hp, &r, base.h)


cdef void vn_play_probs(const VNet* net, const VNBase* base, const Board* after,
                        double* p) noexcept nogil:
    """Probabilities for the side that has just moved (row 0 of `after`, sides not
    switched): exact if the play ends the game, else the net's by the change of inputs
    from the base."""
    cdef VNInputs x
    cdef double q[NN_OUTPUTS]
    cdef tf_rows r
    cdef uint32_t his_pins = vn_other_pins(after, net.game, base.pinned)
    cdef int end = variant_end(after, net.game, base.pinned, his_pins)
    if end:
        vn_end_probs(end, p)
        return
    vn_encode(&x, net.game, after.c[1], after.c[0], his_pins, base.pinned)
    vn_rows(&r, &x, &base.x)
    tf_forward(base.h, net.c.fw1, net.c.hp, &r, net.c.fw2, net.c.fb2, q)
    nn_make_consistent(q)
    nn_swap_sides(q, p)


cdef int vn_best_play(const VNet* net, const VNBase* base, const Board* plays, int n,
                      double* best_probs) noexcept nogil:
    """Index of the play with the best 0-ply equity among plays[0:n] (the first of equals);
    its probabilities (for its mover) go to best_probs."""
    cdef int i, best = 0
    cdef double p[NN_OUTPUTS]
    cdef double v, best_v = -1e300
    memset(best_probs, 0, sizeof(p))
    for i in range(n):
        vn_play_probs(net, base, &plays[i], p)
        v = vn_equity(p)
        if v > best_v:
            best_v = v
            best = i
            memcpy(best_probs, p, sizeof(p))
    return best


cdef double vn_1ply_equity(const VNet* net, VarGen* scratch, int options, const Board* after,
                           uint32_t pinned) noexcept nogil:
    """The mover's equity after the play `after` (sides not switched; `pinned` his pinned
    checkers), as the mean over the opponent's 21 rolls of his best 0-ply reply."""
    cdef Board b = after[0]
    cdef VNBase base
    cdef double q[NN_OUTPUTS]
    cdef double total = 0.0
    cdef uint32_t his_pins = vn_other_pins(after, net.game, pinned)
    cdef int d1, d2, n, i
    board_switch(&b)
    vn_base_prepare(net, &b, his_pins, &base)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            n = generate_variant(scratch, &b, net.game, his_pins, options, d1, d2)
            if n < 0:
                n = scratch.g.n             # an overflow: judge the plays it holds
            i = vn_best_play(net, &base, scratch.g.out, n, q)
            total += vn_equity(q) * (1.0 if d1 == d2 else 2.0)
    return -total / 36.0


cdef int vn_choose(const VNet* net, const Board* before, const Board* plays, int n,
                   uint32_t pinned, VarGen* scratch, int options) noexcept nogil:
    """The neural players' play among plays[0:n] from `before`: the best by 0-ply equity,
    or with `scratch` (neural-1ply) the best by 1-ply equity among the few best by 0-ply
    (the backgammon player's move filter: NN_1PLY_CANDIDATES within NN_1PLY_WINDOW)."""
    cdef VNBase base
    cdef int i, j, m = 0, best
    cdef int cand[NN_MAX_CANDIDATES]
    cdef double eq[NN_MAX_CANDIDATES]
    cdef double p[NN_OUTPUTS]
    cdef double v, best_v
    if n == 1:
        return 0
    cand[0] = 0
    vn_base_prepare(net, before, pinned, &base)
    if scratch == NULL:
        return vn_best_play(net, &base, plays, n, p)
    for i in range(n):                      # the candidates, kept sorted by 0-ply equity
        vn_play_probs(net, &base, &plays[i], p)
        v = vn_equity(p)
        if m == NN_1PLY_CANDIDATES and v <= eq[m - 1]:
            continue
        j = m if m < NN_1PLY_CANDIDATES else m - 1
        while j > 0 and eq[j - 1] < v:
            eq[j] = eq[j - 1]
            cand[j] = cand[j - 1]
            j -= 1
        eq[j] = v
        cand[j] = i
        if m < NN_1PLY_CANDIDATES:
            m += 1
    best = cand[0]
    best_v = -1e300
    for j in range(m):
        if eq[j] < eq[0] - NN_1PLY_WINDOW:
            break
        if variant_end(&plays[cand[j]], net.game, pinned,
                       vn_other_pins(&plays[cand[j]], net.game, pinned)):
            v = eq[j]                       # the game is over: its value is exact
        else:
            v = vn_1ply_equity(net, scratch, options, &plays[cand[j]], pinned)
        if v > best_v:
            best_v = v
            best = cand[j]
    return best


# ---------------------------------------------------------------- TD(lambda) training

cdef int vn_train_game(VNet* net, VarGen* v, int options, Rng* rng, double lam,
                       double alpha, Board* hist, uint32_t* pins, double* targets,
                       int* plies) noexcept nogil:
    """One self-play game from the start (15 checkers on each 24-point; the first roll may
    be a double, T3), learnt by TD(lambda) in the forward view as nn_train_game does: the
    game is played by the 0-ply player with the weights fixed, then each position is moved
    towards its lambda-return G_t = (1 - lam) V(s_t+1) + lam G_t+1 (seen from its mover),
    the last one's being the result.  Returns the outcome for the first mover (V_WIN_SINGLE
    .. V_DRAW), or -1 if it did not end in VN_HISTORY plies or a roll overflowed."""
    cdef Board b
    cdef VNBase base
    cdef tf_rows r
    cdef VNInputs x
    cdef double ret[NN_OUTPUTS]
    cdef uint32_t pinned = 0, his_pins
    cdef int d1, d2, n, best, end = 0, side = 0, t, o, game = net.game
    memset(&b, 0, sizeof(Board))
    b.c[0][24] = 15
    b.c[1][24] = 15
    plies[0] = 0
    while not end:
        if plies[0] == VN_HISTORY:
            return -1
        rng_dice(rng, &d1, &d2)
        n = generate_variant(v, &b, game, pinned, options, d1, d2)
        if n < 0:
            return -1
        vn_base_prepare(net, &b, pinned, &base)
        best = vn_best_play(net, &base, v.g.out, n, targets + plies[0] * NN_OUTPUTS)
        hist[plies[0]] = b
        pins[plies[0]] = pinned
        plies[0] += 1
        b = v.g.out[best]
        his_pins = vn_other_pins(&b, game, pinned)
        end = variant_end(&b, game, pinned, his_pins)
        if not end:
            board_switch(&b)
            pinned = his_pins
            side ^= 1
    # The returns, last position first (its target is already the exact result).
    for t in range(plies[0] - 2, -1, -1):
        nn_swap_sides(targets + (t + 1) * NN_OUTPUTS, ret)
        for o in range(NN_OUTPUTS):
            targets[t * NN_OUTPUTS + o] = (1.0 - lam) * targets[t * NN_OUTPUTS + o] + lam * ret[o]
    for t in range(plies[0]):
        vn_encode(&x, game, hist[t].c[0], hist[t].c[1], pins[t],
                  vn_other_pins(&hist[t], game, pins[t]))
        vn_rows(&r, &x, NULL)
        nn_td_step(&net.c, &r, targets + t * NN_OUTPUTS, alpha)
    if end == 4:
        return V_DRAW
    if end == 1:
        return V_WIN_SINGLE if side == 0 else V_LOSE_SINGLE
    if end == 2:
        return V_WIN_DOUBLE if side == 0 else V_LOSE_DOUBLE
    return V_WIN_MOTHER if side == 0 else V_LOSE_MOTHER


# ---------------------------------------------------------------- Python API

VARIANT_NET_INPUTS = (VNP_INPUTS, VNF_INPUTS)     # by game code: Plakoto, Fevga
# Where each side's inputs start and where its units are (the layout at the top).
VARIANT_INPUT_UNITS = (
    {"side": VNP_SIDE, "pinned": VNP_PINNED, "mother": VNP_MOTHER, "exposed": VNP_EXPOSED,
     "bear_off": VNP_BEAR, "off": VNP_OFF, "pips": VNP_PIPS},
    {"side": VNF_SIDE, "runner": VNF_RUNNER, "prime": VNF_PRIME, "held": VNF_HELD,
     "trap": VNF_TRAP, "bear_off": VNF_BEAR, "off": VNF_OFF, "pips": VNF_PIPS},
)

cdef class VariantNet:
    """The Plakoto (game 0) or Fevga (game 1) net, whose weights this object owns.

    VariantNet(game, w1, b1, w2, b2): w1 (I, H) input-major with I = VARIANT_NET_INPUTS[game],
    b1 (H,), w2 (5, H), b2 (5,); the arrays are copied, `arrays()` returns copies.  Boards
    are int8[2, 26] in the Portes layout, row 0 on roll; `pinned` is row 0's pinned mask
    (bit p = its point p holding its pinned checker, Plakoto); row 1's is derived from the
    board, as the game loop does.  Outputs: the five probabilities described in
    _variant_neural.pxi for row 0, about to roll.
    """
    cdef VNet v
    cdef object _w1, _b1, _w2, _b2
    cdef float* _fast

    def __cinit__(self, int game, w1, b1, w2, b2):
        _check_variant(game, 0)
        w1 = np.array(w1, dtype=np.float64, order="C", copy=True)
        b1 = np.array(b1, dtype=np.float64, order="C", copy=True)
        w2 = np.array(w2, dtype=np.float64, order="C", copy=True)
        b2 = np.array(b2, dtype=np.float64, order="C", copy=True)
        cdef int n_in = vn_input_count(game)
        if w1.ndim != 2 or w1.shape[0] != n_in:
            raise ValueError(f"w1 must have shape ({n_in}, hidden) for this game, not {w1.shape}")
        h = w1.shape[1]
        if not 1 <= h <= NN_MAX_HIDDEN:
            raise ValueError(f"the hidden layer has 1 to {NN_MAX_HIDDEN} units, not {h}")
        if b1.shape != (h,) or w2.shape != (NN_OUTPUTS, h) or b2.shape != (NN_OUTPUTS,):
            raise ValueError(f"b1, w2, b2 must have shapes ({h},), (5, {h}), (5,)")
        for a in (w1, b1, w2, b2):
            if not np.all(np.isfinite(a)):
                raise ValueError("the weights must be finite numbers")
        cdef double[:, ::1] v1 = w1
        cdef double[::1] c1 = b1
        cdef double[:, ::1] v2 = w2
        cdef double[::1] c2 = b2
        self._w1, self._b1, self._w2, self._b2 = w1, b1, w2, b2
        self.v.game = game
        self.v.c.n_inputs = n_in
        self.v.c.n_hidden = <int>h
        self.v.c.w1 = &v1[0, 0]
        self.v.c.b1 = &c1[0]
        self.v.c.w2 = &v2[0, 0]
        self.v.c.b2 = &c2[0]
        self.v.c.race = NULL
        self.v.c.bearoff = NULL
        self.v.c.prune = NULL
        cdef int hp = (<int>h + 15) & ~15
        self._fast = <float*>_calloc64((n_in + 1 + NN_OUTPUTS) * hp * sizeof(float))
        if self._fast == NULL:
            raise MemoryError("cannot allocate the fast copy of the weights")
        self.v.c.hp = hp
        self.v.c.fw1 = self._fast
        self.v.c.fb1 = self._fast + n_in * hp
        self.v.c.fw2 = self.v.c.fb1 + hp
        self._sync()

    cdef void _sync(self) noexcept:
        """The float32 copy of every weight (nn_sync_fast without backgammon's point rows)."""
        cdef tf_rows r
        cdef int i
        _rows_clear(&r)
        for i in range(self.v.c.n_inputs):
            _rows_put(&r, i, 1.0)
        nn_sync_fast(&self.v.c, &r)

    def __dealloc__(self):
        free(self._fast)

    @property
    def game(self):
        return self.v.game

    @property
    def hidden(self):
        return self.v.c.n_hidden

    @property
    def n_inputs(self):
        return self.v.c.n_inputs

    def arrays(self):
        """Copies of (w1, b1, w2, b2)."""
        return self._w1.copy(), self._b1.copy(), self._w2.copy(), self._b2.copy()

    def evaluate_many(self, const int8_t[:, :, ::1] boards, const uint32_t[::1] pinned,
                      bint exact=False):
        """float64[n, 5]: the probabilities of each board for its row 0, about to roll."""
        cdef Py_ssize_t n = boards.shape[0], i
        if boards.shape[1] != 2 or boards.shape[2] != 26 or pinned.shape[0] != n:
            raise ValueError("boards (n, 2, 26) with one pinned mask each")
        out = np.empty((n, NN_OUTPUTS), dtype=np.float64)
        cdef double[:, ::1] o = out
        with nogil:
            for i in range(n):
                vn_probs(&self.v, <const Board*>&boards[i, 0, 0], pinned[i], exact, &o[i, 0])
        return out

    def play_probs(self, const int8_t[:, ::1] board, uint32_t pinned,
                   const int8_t[:, :, ::1] plays):
        """float64[n, 5]: each play's probabilities for the side that made it (exact for a
        play that ends the game), as the players value them; `plays` are results of `board`
        (sides not switched), `pinned` the mover's pinned mask."""
        cdef Board b
        cdef VNBase base
        cdef Py_ssize_t n = plays.shape[0], i
        _load_board(board, &b)
        if plays.shape[1] != 2 or plays.shape[2] != 26:
            raise ValueError("plays must have shape (n, 2, 26)")
        out = np.empty((n, NN_OUTPUTS), dtype=np.float64)
        cdef double[:, ::1] o = out
        with nogil:
            vn_base_prepare(&self.v, &b, pinned, &base)
            for i in range(n):
                vn_play_probs(&self.v, &base, <const Board*>&plays[i, 0, 0], &o[i, 0])
        return out

    def play_1ply_equities(self, const int8_t[:, ::1] board, uint32_t pinned,
                           const int8_t[:, :, ::1] plays, int options=0):
        """float64[n]: each play's 1-ply equity for its mover (exact for a play that ends the
        game): the mean over the opponent's 21 rolls of his best 0-ply reply."""
        cdef Py_ssize_t n = plays.shape[0], i
        cdef int end
        cdef double p[NN_OUTPUTS]
        cdef const Board* a
        _check_variant(self.v.game, options)
        if plays.shape[1] != 2 or plays.shape[2] != 26:
            raise ValueError("plays must have shape (n, 2, 26)")
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] o = out
        cdef VarGen* scratch = _new_vargen()
        try:
            with nogil:
                for i in range(n):
                    a = <const Board*>&plays[i, 0, 0]
                    end = variant_end(a, self.v.game, pinned, vn_other_pins(a, self.v.game, pinned))
                    if end:
                        vn_end_probs(end, p)
                        o[i] = vn_equity(p)
                    else:
                        o[i] = vn_1ply_equity(&self.v, scratch, options, a, pinned)
        finally:
            free(scratch)
        return out

    def choose(self, const int8_t[:, ::1] board, uint32_t pinned,
               const int8_t[:, :, ::1] plays, int ply=0, int options=0):
        """Index of the play (among `plays`, results of `board`) the neural player of
        `ply` 0 or 1 (neural-1ply) picks."""
        cdef Board b
        cdef int i
        _load_board(board, &b)
        _check_variant(self.v.game, options)
        if plays.shape[0] < 1 or plays.shape[1] != 2 or plays.shape[2] != 26:
            raise ValueError("plays must have shape (n >= 1, 2, 26)")
        cdef VarGen* scratch = _new_vargen() if ply == 1 else NULL
        try:
            with nogil:
                i = vn_choose(&self.v, &b, <const Board*>&plays[0, 0, 0], <int>plays.shape[0],
                              pinned, scratch, options)
        finally:
            free(scratch)
        return i

    def train(self, Py_ssize_t games, uint64_t[::1] rng_state, double alpha, double lam,
              int options=0):
        """Play `games` self-play games, updating these weights in place by TD(lambda)
        (vn_train_game).  rng_state: the 4 words of the generator's state, read and written
        back (a run resumes exactly).  Returns int64[9]: the seven outcome counts for the
        first mover (variant_games.OUTCOMES), games, plies."""
        if rng_state.shape[0] != 4:
            raise ValueError("rng_state has 4 words")
        if not alpha > 0.0:
            raise ValueError("alpha must be positive")
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda must be in [0, 1], got {lam!r}")
        _check_variant(self.v.game, options)
        counts = np.zeros(V_N_OUTCOMES + 2, dtype=np.int64)
        cdef int64_t[::1] c = counts
        cdef Rng rng
        cdef int k, plies, failed = 0
        cdef Py_ssize_t i
        for k in range(4):
            rng.s[k] = rng_state[k]
        cdef VarGen* v = _new_vargen()
        cdef Board* hist = <Board*>malloc(VN_HISTORY * sizeof(Board))
        cdef uint32_t* pins = <uint32_t*>malloc(VN_HISTORY * sizeof(uint32_t))
        cdef double* targets = <double*>malloc(VN_HISTORY * NN_OUTPUTS * sizeof(double))
        try:
            if hist == NULL or pins == NULL or targets == NULL:
                raise MemoryError()
            with nogil:
                for i in range(games):
                    k = vn_train_game(&self.v, v, options, &rng, lam, alpha, hist, pins,
                                      targets, &plies)
                    if k < 0:
                        failed = 1
                        break
                    c[k] += 1
                    c[V_N_OUTCOMES] += 1
                    c[V_N_OUTCOMES + 1] += plies
        finally:
            free(v)
            free(hist)
            free(pins)
            free(targets)
        for k in range(4):
            rng_state[k] = rng.s[k]
        if failed:
            raise RuntimeError("a training game did not finish")
        return counts


def variant_neural_inputs(int game, const int8_t[:, ::1] board, uint32_t pinned=0):
    """float64[I]: the dense inputs of the variant net of `game` for the board (row 0 on
    roll, `pinned` its pinned mask; row 1's pins derived from the board)."""
    cdef Board b
    _load_board(board, &b)
    _check_variant(game, 0)
    cdef int n = vn_input_count(game)
    cdef double x[VN_MAX_INPUTS]
    vn_inputs(x, game, b.c[0], b.c[1], pinned, vn_other_pins(&b, game, pinned))
    out = np.empty(n, dtype=np.float64)
    cdef double[::1] o = out
    cdef int i
    for i in range(n):
        o[i] = x[i]
    return out


cdef const VNet* _vnet_c(VariantNet net, int game) except? NULL:
    """The C view of `net` for `game`'s players (NULL for None); ValueError for a net of
    the other game."""
    if net is None:
        return NULL
    if net.v.game != game:
        raise ValueError(f"a {'Plakoto' if game == GAME_PLAKOTO else 'Fevga'} player needs "
                         f"that game's net, not the other's")
    return &net.v
