# The Python face of the net (part of _neural.pxi): NeuralNet and the module-level
# constants neural.py and the tests use (the checks of its search settings, the search cache
# and the module-level helpers: _nn_api_tools.pxi).

# ---------------------------------------------------------------- Python API

NEURAL_INPUTS = NN_V2_INPUTS                # the raw inputs and v2's hand features
NEURAL_EXTENDED_INPUTS = NN_EXTRA_INPUTS    # ... and the escapes, pip loss, dance features
NEURAL_TIMING_INPUTS = NN_INPUTS            # ... and its containment, break contact, free pips
NEURAL_BASE_INPUTS = NN_BASE_INPUTS
NEURAL_OUTPUTS = NN_OUTPUTS
FILTER_CANDIDATES = NN_1PLY_CANDIDATES      # the 1-ply move filter's defaults and bound
FILTER_WINDOW = NN_1PLY_WINDOW
MAX_FILTER_CANDIDATES = NN_MAX_CANDIDATES
# The default pre-filters (_nn_prefilter.pxi), (keep, margin), of the replies of the 1-ply
# look-ahead and of the plays of the luck tables; keep 0 values every play by the net.
REPLY_FILTER = (NN_REPLY_KEEP, NN_REPLY_MARGIN)
LUCK_FILTER = (NN_LUCK_KEEP, NN_LUCK_MARGIN)
# Their estimators (ESTIMATORS' names): "prune", the net's pruning net where it has one.
REPLY_ESTIMATOR = "prune" if NN_REPLY_ESTIMATOR == NN_EST_PRUNE else "slope"
LUCK_ESTIMATOR = "prune" if NN_LUCK_ESTIMATOR == NN_EST_PRUNE else "slope"
FILTER_2PLY_CANDIDATES = NN_2PLY_CANDIDATES     # the 2-ply search's second filter
FILTER_2PLY_WINDOW = NN_2PLY_WINDOW
#: The move filters of a 2-ply search: (candidates, window) from 0 to 1 ply, then 1 to 2 ply.
FILTERS_2PLY = ((NN_1PLY_CANDIDATES, NN_1PLY_WINDOW), (NN_2PLY_CANDIDATES, NN_2PLY_WINDOW))
MAX_PLY = 2                                 # the deepest search
INPUT_COUNTS = (NN_BASE_INPUTS, NN_V2_INPUTS, NN_EXTRA_INPUTS, NN_INPUTS)   # a net's input sizes


def set_look_bound(bint enabled):
    """Whether the 1-ply player's looks at its later candidates stop once they cannot beat
    the best (nn_1ply_equity_above; on by default, the same choices and numbers either
    way).  Returns the previous setting.  For the tests and benchmarks that compare the
    two: it is process-wide, so set it only where no game is being played."""
    global nn_look_bound
    previous = nn_look_bound
    nn_look_bound = enabled
    return previous


cdef double _widest_integer_sum(const short* q, int hp) noexcept nogil:
    """The largest magnitude the int16 kernels' int32 sums of one output's products can
    reach, over activations in [0, 1] (Q14: at most TQ_ONE), in units of TQ_ONE: the larger
    of the positive and the negative weights' sums of each AVX2 lane (units 16k + 2l and
    16k + 2l + 1 of every k; an AVX-512 lane holds part of one), and of the whole layer when
    it has 32 units (the pruning net's estimates add their lanes in int32)."""
    cdef double pos[9]
    cdef double neg[9]
    cdef double widest = 0.0
    cdef int i, l
    for l in range(9):
        pos[l] = neg[l] = 0.0
    for i in range(hp):
        l = (i % 16) // 2
        if q[i] > 0:
            pos[l] += q[i]
            pos[8] += q[i]
        else:
            neg[l] -= q[i]
            neg[8] -= q[i]
    for l in range(9 if hp == 32 else 8):
        widest = max(widest, pos[l], neg[l])
    return widest


cdef void _quantise_outputs(const float* fw2, int hp, short* q2, float* s2inv) noexcept nogil:
    """The int16 output layer (_nnquant.h) of the float32 one fw2 [5][hp]: each output's
    weights at the largest scale at which every weight fits in int16 and 32 units' products
    (every activation at most TQ_ONE) sum below 2^31 (the rule the evaluator's strength was
    measured with), lowered if need be until no int32 sum of the kernels can overflow
    (_widest_integer_sum; the shipped nets never needed it), so that each output's total
    is exact; s2inv[o] undoes the scale."""
    cdef int i, j, o
    cdef double scale, block, widest, largest, limit = 2147483647.0 / 16384.0
    for o in range(NN_OUTPUTS):
        widest = largest = 1e-30
        for j in range(0, hp, 32):
            block = 0.0
            for i in range(j, j + 32):
                block += fabs(fw2[o * hp + i])
                largest = max(largest, fabs(fw2[o * hp + i]))
            widest = max(widest, block)
        scale = min(limit / widest, 32767.0 / largest)
        while True:
            for j in range(hp):
                q2[o * hp + j] = tq_round(fw2[o * hp + j] * scale)
            widest = _widest_integer_sum(q2 + o * hp, hp)
            if widest <= limit:
                break
            scale *= limit / widest * (1.0 - 1e-6)
        s2inv[o] = <float>(1.0 / (scale * 16384.0))


cdef class NeuralNet:
    """A neural evaluator whose weights this object owns (float64, C order), with the
    C view `&net.c` for nogil code.

    NeuralNet(w1, b1, w2, b2, race=None, bearoff=None, prune=None): w1 (I, H) input-major, b1 (H,),
    w2 (5, H), b2 (5,), where I is 198 (the raw inputs), 203 (with v2's hand features), 209
    (with the escapes, pip loss and dance features too) or 215 (and the timing features).  The arrays are copied;
    `arrays()` returns copies of the current weights.
    `race`: a NeuralNet without a race net of its own, which then evaluates every position
    with no contact left (the class gnubg's race net covers), this one the others.
    `bearoff`: the bear-off databases (BearoffTables), which then value every position where
    both sides are bearing off (`nn_bearoff_probs`), before either net.
    `prune`: a pruning net (a NeuralNet on the 198 raw inputs, at most 128 hidden units, with
    nothing attached), which the replies' pre-filter then ranks the plays of a roll by
    (_nn_prefilter.pxi, estimator "prune").
    `quantised`: evaluate by the int16 evaluator (_nnquant.h: int16 weights and hidden sums,
    an activation without division; a multiple of 32 hidden units, at most 512), whose
    probabilities differ from the float32 path's by about 1e-3 (docs/performance.md); the
    race net keeps its own setting (`as_quantised` makes both).  Such a net is not trained.
    """
    cdef NeuralNetC c
    cdef object _w1, _b1, _w2, _b2
    cdef NeuralNet _race
    cdef NeuralNet _prune
    cdef BearoffTables _bearoff
    cdef float* _fast              # the fast path's float32 copy (one block)
    cdef float* _erows             # as a pruning net, its estimate rows (c.erows), or NULL
    cdef short* _qerows            # and their int16 copy with its output layer (c.qerows), or NULL
    cdef short* _q                 # the int16 evaluator's weights, or NULL

    def __cinit__(self, w1, b1, w2, b2, NeuralNet race=None, BearoffTables bearoff=None,
                  NeuralNet prune=None, bint quantised=False):
        w1 = np.array(w1, dtype=np.float64, order="C", copy=True)
        b1 = np.array(b1, dtype=np.float64, order="C", copy=True)
        w2 = np.array(w2, dtype=np.float64, order="C", copy=True)
        b2 = np.array(b2, dtype=np.float64, order="C", copy=True)
        if w1.ndim != 2 or w1.shape[0] not in INPUT_COUNTS:
            raise ValueError(f"w1 must have shape (I, hidden) with I one of {INPUT_COUNTS}, "
                             f"not {w1.shape}")
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
        self.c.n_inputs = <int>w1.shape[0]
        self.c.n_hidden = <int>h
        self.c.w1 = &v1[0, 0]
        self.c.b1 = &c1[0]
        self.c.w2 = &v2[0, 0]
        self.c.b2 = &c2[0]
        self._w1, self._b1, self._w2, self._b2 = w1, b1, w2, b2
        cdef int hp = (<int>h + 15) & ~15
        self._fast = <float*>_calloc64((self.c.n_inputs + NN_POINT_ROWS + 1 + NN_OUTPUTS) * hp
                                       * sizeof(float))
        if self._fast == NULL:
            raise MemoryError("cannot allocate the fast copy of the weights")
        self.c.hp = hp
        self.c.fw1 = self._fast
        self.c.fb1 = self._fast + (self.c.n_inputs + NN_POINT_ROWS) * hp
        self.c.fw2 = self.c.fb1 + hp
        nn_sync_fast(&self.c, NULL)
        self.c.qw1 = self.c.qw2 = NULL
        if quantised:
            self._quantise()
        self.c.race = NULL
        self.c.bearoff = NULL
        if bearoff is not None:
            if bearoff.db.points < 6:
                raise ValueError("the bear-off databases must cover the 6 home points")
            self._bearoff = bearoff
            self.c.bearoff = &bearoff.db
        if race is not None:
            if race._race is not None:
                raise ValueError("a race net has no race net of its own")
            self._race = race
            self.c.race = &race.c
        self.c.prune = NULL
        if prune is not None:
            if prune.c.n_inputs != NN_BASE_INPUTS or prune.c.n_hidden > NN_PRUNE_MAX_HIDDEN:
                raise ValueError(f"a pruning net has the {NN_BASE_INPUTS} raw inputs and at most "
                                 f"{NN_PRUNE_MAX_HIDDEN} hidden units, not {prune.c.n_inputs} "
                                 f"and {prune.c.n_hidden}")
            if prune._race is not None or prune._bearoff is not None or prune._prune is not None:
                raise ValueError("a pruning net has no race net, databases or pruning net of its own")
            prune._estimate_rows()
            self._prune = prune
            self.c.prune = &prune.c

    def __dealloc__(self):
        free(self._fast)
        free(self._erows)
        free(self._qerows)
        free(self._q)

    cdef _estimate_rows(self):
        """Build this net's estimate rows (c.erows), as the pruning net of another, unless
        they are built and its weights unchanged since: other threads may be reading them.
        With a multiple of 32 hidden units, their int16 copy too (c.qerows: the estimates of
        int16 nets)."""
        cdef Py_ssize_t i
        if self.c.erows != NULL:
            return
        if self._erows == NULL:
            self._erows = <float*>_calloc64(NN_EST_ROWS * self.c.hp * sizeof(float))
            if self._erows == NULL:
                raise MemoryError("cannot allocate the pruning net's estimate rows")
        nn_estimate_rows(&self.c, self._erows)
        if self.c.hp % 32 == 0:         # the int16 copy, for the estimates of int16 nets
            if self._qerows == NULL:
                self._qerows = <short*>_calloc64((NN_EST_ROWS + NN_OUTPUTS) * self.c.hp
                                                 * sizeof(short))
                if self._qerows == NULL:
                    raise MemoryError("cannot allocate the pruning net's int16 estimate rows")
            for i in range(NN_EST_ROWS * self.c.hp):
                self._qerows[i] = tq_round(<double>self._erows[i] * TQ_EST_SCALE)
            _quantise_outputs(self.c.fw2, self.c.hp, self._qerows + NN_EST_ROWS * self.c.hp,
                              self.c.qes2inv)
            self.c.qew2 = self._qerows + NN_EST_ROWS * self.c.hp
            self.c.qerows = self._qerows
        self.c.erows = self._erows

    cdef _quantise(self):
        """The int16 evaluator's weights (_nnquant.h) from the float32 copy: w1's rows at
        TQ_SCALE, the output layer by _quantise_outputs."""
        cdef int hp = self.c.hp, rows = self.c.n_inputs + NN_POINT_ROWS, i
        if hp % 32 or hp > 512:
            raise ValueError(f"the int16 evaluator takes a multiple of 32 hidden units, at most "
                             f"512 (padded to a multiple of 16: {hp})")
        self._q = <short*>_calloc64((rows * hp + NN_OUTPUTS * hp) * sizeof(short))
        if self._q == NULL:
            raise MemoryError("cannot allocate the int16 weights")
        for i in range(rows * hp):
            self._q[i] = tq_round(<double>self.c.fw1[i] * 512.0)
        _quantise_outputs(self.c.fw2, hp, self._q + rows * hp, self.c.qs2inv)
        self.c.qw1 = self._q
        self.c.qw2 = self._q + rows * hp

    @property
    def quantised(self):
        """Whether this net evaluates by the int16 evaluator (not said of its race net)."""
        return self.c.qw1 != NULL

    def as_quantised(self):
        """This net, and its race net, by the int16 evaluator (new objects; the same
        databases and pruning net, whose weights stay float32: for an int16 net it estimates
        by int16 copies of its estimate rows, tq_estimate_batch)."""
        race = self._race.as_quantised() if self._race is not None else None
        return NeuralNet(self._w1, self._b1, self._w2, self._b2, race=race,
                         bearoff=self._bearoff, prune=self._prune, quantised=True)

    @property
    def hidden(self):
        return self.c.n_hidden

    @property
    def n_inputs(self):
        return self.c.n_inputs

    @property
    def race(self):
        """The race net (a NeuralNet), or None."""
        return self._race

    @property
    def prune(self):
        """The pruning net (a NeuralNet) of the replies' pre-filter, or None."""
        return self._prune

    @property
    def bearoff(self):
        """The bear-off databases (BearoffTables) that value bear-offs, or None."""
        return self._bearoff

    def arrays(self):
        """Copies of (w1, b1, w2, b2) (of this net, not of its race net)."""
        return self._w1.copy(), self._b1.copy(), self._w2.copy(), self._b2.copy()

    def evaluate(self, const int8_t[:, ::1] board, bint exact=False):
        """float64[5]: P(win), P(win gammon), P(win backgammon), P(lose gammon),
        P(lose backgammon) for row 0, on roll (before rolling), made consistent.
        By the fast float32 path, or the float64 reference when `exact`."""
        cdef Board b
        _load_board(board, &b)
        out = np.empty(NN_OUTPUTS, dtype=np.float64)
        cdef double[::1] o = out
        if exact:
            neural_probs_exact(&self.c, b.c[0], b.c[1], &o[0])
        else:
            neural_probs(&self.c, b.c[0], b.c[1], &o[0])
        return out

    def evaluate_many(self, const int8_t[:, :, ::1] boards, bint exact=False):
        """float64[m, 5]: `evaluate` of every board, GIL released."""
        cdef Py_ssize_t i, m = boards.shape[0]
        if boards.shape[1] != 2 or boards.shape[2] != 26:
            raise ValueError("boards must have shape (m, 2, 26)")
        out = np.empty((m, NN_OUTPUTS), dtype=np.float64)
        cdef double[:, ::1] o = out
        with nogil:
            for i in range(m):
                if exact:
                    neural_probs_exact(&self.c, &boards[i, 0, 0], &boards[i, 1, 0], &o[i, 0])
                else:
                    neural_probs(&self.c, &boards[i, 0, 0], &boards[i, 1, 0], &o[i, 0])
        return out

    def play_equities(self, board, plays):
        """float64[n]: the 0-ply equity of each of `plays` (post-move boards, sides not
        switched) for its mover, evaluated as the players do: as changes to the hidden
        sums of `board`, the position they were played from (row 0 to move).  Any boards
        are accepted; the closer they are to `board`, the fewer inputs change.  (With the
        bear-off databases, a board whose row 1 is all home while `board`'s is not is valued
        by the net: a play cannot bring the other side home.)"""
        # The arrays read through numpy's C API, the base on the stack and the result made
        # by the C API: a call of a roll's few plays would otherwise spend a fifth of its
        # time outside the net.
        cdef cnp.ndarray before = _int8_array(board, 2), after = _int8_array(plays, 3)
        cdef Board b
        cdef NNBase base
        cdef double p[NN_BATCH * NN_OUTPUTS]
        cdef cnp.npy_intp n = after.shape[0]
        cdef Py_ssize_t i, j, k
        cdef const Board* ps = <const Board*>cnp.PyArray_DATA(after)
        cdef double* o
        _check_board_shape(before.shape[0], before.shape[1])
        if after.shape[1] != 2 or after.shape[2] != 26:
            raise ValueError("plays must have shape (n, 2, 26)")
        memcpy(b.c, cnp.PyArray_DATA(before), 52)
        out = cnp.PyArray_EMPTY(1, &n, cnp.NPY_FLOAT64, 0)
        o = <double*>cnp.PyArray_DATA(out)
        with nogil:
            nn_base_prepare(&self.c, &b, &base)
            i = 0
            while i < n:
                k = min(NN_BATCH, n - i)
                nn_plays_probs(&self.c, &base, &ps[i], NULL, <int>k, p)
                for j in range(k):
                    o[i + j] = nn_equity(&p[NN_OUTPUTS * j])
                i += k
        return out

    def play_estimates(self, const int8_t[:, ::1] board, const int8_t[:, :, ::1] plays,
                       const double[::1] prices=None, str estimator="slope"):
        """float64[n]: the replies' pre-filter's estimate (_nn_prefilter.pxi) of each of
        `plays` (post-move boards, sides not switched) played from `board` (row 0 to move),
        gammons at `prices` (None: money): by the "slope", the change of the mover's
        equity the slope at `board` predicts; by "prune", the mover's equity by the pruning
        net (ValueError if this net has none; a race `board` is estimated by the slope);
        +inf for a play it cannot rank (a won game, or one into another class of position).
        The numbers the pre-filter ranks by: single precision."""
        cdef Board b
        cdef NNBase* base
        cdef NNSlope* s
        cdef const double* mine = NULL
        cdef const double* unused = NULL
        cdef Py_ssize_t n = plays.shape[0]
        _load_board(board, &b)
        _price_pointers(prices, None, &mine, &unused)
        if plays.shape[1] != 2 or plays.shape[2] != 26:
            raise ValueError("plays must have shape (n, 2, 26)")
        if estimator not in ESTIMATORS:
            raise ValueError(f"estimator is one of {sorted(ESTIMATORS)}, not {estimator!r}")
        if estimator == "prune" and self._prune is None:
            raise ValueError("this net has no pruning net")
        cdef int how = ESTIMATORS[estimator]
        out = np.empty(n, dtype=np.float32)
        cdef float[::1] o = out
        base = <NNBase*>calloc(1, sizeof(NNBase))
        s = <NNSlope*>calloc(1, sizeof(NNSlope))
        try:
            if base == NULL or s == NULL:
                raise MemoryError()
            with nogil:
                nn_base_prepare(&self.c, &b, base)
                nn_estimate_prepare(&self.c, base, mine, how, s)
                if n:
                    nn_play_estimates(&self.c, base, s, <const Board*>&plays[0, 0, 0], <int>n,
                                      &o[0])
        finally:
            free(base)
            free(s)
        return out.astype(np.float64)

    def roll_table(self, const int8_t[:, ::1] board, reply_filter=(0, 0.0),
                   const double[::1] prices=None):
        """float64[21, 5]: for each roll of row 0 (before rolling), in the order 11, 12, ..,
        16, 22, .., 66, its probabilities after its best 0-ply play (gammons at `prices`,
        None: money), the plays first pre-filtered by `reply_filter` ((keep, margin) or
        (keep, margin, estimator), the estimator "prune" (the default: the pruning net where
        the net has one) or "slope"; keep 0: every play valued by the net), as the 1-ply
        look-ahead and the luck tables build them (nn_roll_table)."""
        cdef Board b
        cdef MoveGen* g
        cdef ReplyFilter rf
        cdef int failed = 0
        cdef const double* mine = NULL
        cdef const double* unused = NULL
        _load_board(board, &b)
        _price_pointers(prices, None, &mine, &unused)
        rf.keep = 0
        rf.margin = 0.0
        rf.estimator = NN_EST_PRUNE
        rf.analogues = True             # (a roll table has no candidates)
        _set_reply_filter(&rf, reply_filter, "reply_filter")
        if b.c[0][OFF] == 15 or b.c[1][OFF] == 15:
            raise ValueError("the game is over: there is no roll to play")
        out = np.empty((NN_ROLLS, NN_OUTPUTS), dtype=np.float64)
        cdef double[:, ::1] o = out
        g = _new_movegen()
        try:
            with nogil:
                failed = nn_roll_table(&self.c, g, &b, &o[0, 0], mine, &rf)
        finally:
            free(g)
        if failed:
            raise RuntimeError("more distinct plays than the generator holds")
        return out

    def move_equity(self, const int8_t[:, ::1] board, int ply=0, bint exact=False,
                    const double[::1] prices=None, const double[::1] reply_prices=None,
                    SearchCache cache=None):
        """Cubeless equity of a post-move board for its mover (row 0, sides not switched),
        at 0, 1 or 2 ply (nn_ply_probs: k ply values the opponent's roll and then his best
        play's position at k - 1 ply); `exact` (0 ply only) evaluates by the float64
        reference.  In a match, `prices` are the mover's gammon prices (cube.gammon_prices)
        and `reply_prices` the opponent's, at which the look-ahead picks his replies (None:
        money).  `cache`: a SearchCache the 2-ply search keeps its positions in (None: none;
        the numbers are the same either way)."""
        cdef Board b
        cdef MoveGen* g
        cdef double v
        cdef double p[NN_OUTPUTS]
        cdef const double* mine = NULL
        cdef const double* theirs = NULL
        cdef NNCache* c
        _load_board(board, &b)
        _price_pointers(prices, reply_prices, &mine, &theirs)
        _check_ply(ply)
        if ply == 0:
            nn_after_probs(&self.c, &b, p, exact)
            return nn_equity_priced(p, mine)
        if exact:
            raise ValueError("the exact path evaluates at 0 ply only")
        if (mine == NULL) != (theirs == NULL):
            raise ValueError("the look-ahead needs both sides' gammon prices, or neither")
        c = _bound_cache(cache, self)
        g = _new_movegen()
        try:
            with nogil:
                if ply == 1:
                    v = neural_1ply_equity(&self.c, g, &b, NULL, mine, theirs)
                else:
                    v = nn_move_equity(&self.c, g, c, &b, ply, mine, theirs)
        finally:
            free(g)
        return v

    def probabilities(self, const int8_t[:, ::1] board, int ply=0, SearchCache cache=None,
                      const double[::1] prices=None, const double[::1] reply_prices=None):
        """float64[5]: the `ply`-ply probabilities (0, 1 or 2) of `board` for its side on roll
        (row 0, before rolling; the game in progress): 0 is `evaluate`; k >= 1 the mean over
        its 36 rolls of the (k - 1)-ply probabilities after its best 0-ply play (nn_ply_probs).
        In a match the side on roll picks its plays at its gammon `prices`, its opponent at
        `reply_prices` (None: money).  `cache`: a SearchCache to keep the searched positions
        in (None: none)."""
        cdef Board b
        cdef MoveGen* g
        cdef int failed = 0
        cdef const double* mine = NULL
        cdef const double* theirs = NULL
        cdef NNCache* c
        _load_board(board, &b)
        _price_pointers(prices, reply_prices, &mine, &theirs)
        _check_ply(ply)
        if b.c[0][OFF] == 15 or b.c[1][OFF] == 15:
            raise ValueError("the game is over: there is nothing to evaluate")
        out = np.empty(NN_OUTPUTS, dtype=np.float64)
        cdef double[::1] o = out
        c = _bound_cache(cache, self)
        g = _new_movegen()
        try:
            with nogil:
                failed = nn_ply_probs(&self.c, g, c, &b, ply, &o[0], mine, theirs)
        finally:
            free(g)
        if failed:
            raise RuntimeError("a roll had more plays than the generator holds")
        return out

    def rank_plays(self, const int8_t[:, ::1] board, const int8_t[:, :, ::1] plays, int ply=1,
                   filters=None, SearchCache cache=None, bint incremental=False,
                   const double[::1] prices=None, const double[::1] reply_prices=None):
        """The plays of one roll from `board` (post-move boards, sides not switched) valued as
        the search does (nn_rank_plays): all at 0 ply; through the move filters `filters`
        ((candidates, window) pairs: the first picks, by 0 ply, the plays looked at 1 ply,
        the second, by 1 ply, those looked at 2 ply; None: FILTERS_2PLY) the best at 1 and
        2 ply, as far as `ply` (0, 1 or 2).  `incremental`: the 0-ply values as changes to
        `board`'s hidden sums (the players' way) instead of each play evaluated afresh.
        Returns (float64[ply + 1, n]: equity k-ply of play i for its mover, NaN where not
        looked at; int64[n]: the plays best first by the deepest ply that reached them).
        In a match, `prices`/`reply_prices` as for move_equity.  `cache`: a SearchCache for
        the 2-ply look (None: none; the same numbers)."""
        cdef Board b
        cdef MoveGen* g
        cdef MoveFilter f[2]
        cdef Py_ssize_t i, n = plays.shape[0]
        cdef const double* mine = NULL
        cdef const double* theirs = NULL
        cdef NNCache* c
        cdef int* order
        _load_board(board, &b)
        if plays.shape[1] != 2 or plays.shape[2] != 26:
            raise ValueError("plays must have shape (n, 2, 26)")
        if n == 0:
            raise ValueError("there are no plays to rank")
        _price_pointers(prices, reply_prices, &mine, &theirs)
        _check_ply(ply)
        if ply and (mine == NULL) != (theirs == NULL):
            raise ValueError("the look-ahead needs both sides' gammon prices, or neither")
        _set_filters(f, FILTERS_2PLY if filters is None else filters)
        eq = np.empty((ply + 1, n), dtype=np.float64)
        ranked = np.empty(n, dtype=np.int64)
        cdef double[:, ::1] e = eq
        cdef int64_t[::1] r = ranked
        c = _bound_cache(cache, self)
        order = <int*>malloc(n * sizeof(int))
        g = _new_movegen()
        try:
            if order == NULL:
                raise MemoryError()
            with nogil:
                nn_rank_plays(&self.c, &b if incremental else NULL, <const Board*>&plays[0, 0, 0],
                              <int>n, ply, f, g, c, &e[0, 0], order, mine, theirs)
                for i in range(n):
                    r[i] = order[i]
        finally:
            free(g)
            free(order)
        return eq, ranked

    def selfplay_positions(self, Py_ssize_t games, uint64_t[::1] rng_state,
                           double explore=0.0, bint outcomes=False):
        """int8[m, 2, 26]: the positions before each roll (row 0 on roll; the opening
        position excluded) of `games` 0-ply self-play games, GIL released.  `explore`: the
        chance that a turn plays a random legal play instead of the best.  rng_state: the
        4 words of the generator's state, read and written back (as for `train`).  With
        `outcomes`, returns (positions, int8[m]): each game's result for the side on roll of
        each position (0-2 it wins single/gammon/backgammon, 3-5 it loses so; -1 where a
        random play came later in that game)."""
        if rng_state.shape[0] != 4:
            raise ValueError("rng_state has 4 words")
        if not 0.0 <= explore <= 1.0:
            raise ValueError(f"explore is a probability, not {explore}")
        cdef Py_ssize_t cap = 128 * games + 1024, count = 0, i
        out = np.empty((cap, 2, 26), dtype=np.int8)
        res = np.empty(cap, dtype=np.int8)
        cdef int8_t[:, :, ::1] o = out
        cdef int8_t[::1] rv = res
        cdef int8_t* results = &rv[0] if outcomes else NULL
        cdef Rng rng
        cdef int k, failed = 0
        for k in range(4):
            rng.s[k] = rng_state[k]
        cdef MoveGen* g = _new_movegen()
        try:
            with nogil:
                for i in range(games):
                    if nn_sample_game(&self.c, g, &rng, explore, &o[0, 0, 0], results, cap,
                                      &count) < 0:
                        failed = 1
                        break
        finally:
            free(g)
        for k in range(4):
            rng_state[k] = rng.s[k]
        if failed:
            raise RuntimeError("a self-play game did not finish")
        if outcomes:
            return out[:count].copy(), res[:count].copy()
        return out[:count].copy()

    def probs_1ply_many(self, const int8_t[:, :, ::1] boards):
        """float64[m, 5]: the 1-ply probabilities of each board for its side on roll (row 0,
        before rolling): the mean over the 36 rolls of its 0-ply probabilities after its best
        play.  GIL released.  The games must be in progress."""
        return self.probs_many(boards, 1)

    def probs_many(self, const int8_t[:, :, ::1] boards, int plies=1):
        """float64[m, 5]: the `plies`-ply probabilities (1 or 2) of each board for its side
        on roll (row 0, before rolling; `probabilities` of each, money, no cache).  1: the
        mean over the 36 rolls of its 0-ply probabilities after its best play; 2: the same
        with the position after each best play valued at 1 ply (about 20 times the work).
        GIL released.  The games must be in progress."""
        cdef Py_ssize_t i, m = boards.shape[0]
        cdef int failed = 0
        if plies not in (1, 2):
            raise ValueError(f"plies is 1 or 2, not {plies}")
        if boards.shape[1] != 2 or boards.shape[2] != 26:
            raise ValueError("boards must have shape (m, 2, 26)")
        for i in range(m):
            if boards[i, 0, OFF] == 15 or boards[i, 1, OFF] == 15:
                raise ValueError(f"board {i}: the game is over")
        out = np.empty((m, NN_OUTPUTS), dtype=np.float64)
        cdef double[:, ::1] o = out
        cdef MoveGen* g = _new_movegen()
        try:
            with nogil:
                for i in range(m):
                    failed = nn_ply_probs(&self.c, g, NULL, <const Board*>&boards[i, 0, 0], plies,
                                          &o[i, 0])
                    if failed:
                        break
        finally:
            free(g)
        if failed:
            raise RuntimeError("a roll had more plays than the generator holds")
        return out

    def train(self, Py_ssize_t games, uint64_t[::1] rng_state, double alpha,
              bint backgammons=True, double lam=0.0):
        """Play `games` self-play games, updating these weights in place by TD(0) or, with
        `lam` in (0, 1], TD(lambda) (see nn_train_game).

        rng_state: the 4 words of the xoshiro256** state, read and written back
        (so a run can be checkpointed and resumed exactly).  Returns int64[8]:
        the six outcome counts for the first mover, games, plies.
        """
        if rng_state.shape[0] != 4:
            raise ValueError("rng_state has 4 words")
        if not alpha > 0.0:
            raise ValueError("alpha must be positive")
        if not 0.0 <= lam <= 1.0:
            raise ValueError(f"lambda must be in [0, 1], got {lam!r}")
        if self._race is not None or self._bearoff is not None:
            raise ValueError("TD training updates one net; this one has a race net or databases")
        if self.quantised:
            raise ValueError("a net with the int16 evaluator is not trained (train the float one)")
        counts = np.zeros(8, dtype=np.int64)
        cdef int64_t[::1] c = counts
        cdef Rng rng
        cdef int k, plies, failed = 0
        cdef Py_ssize_t i
        # TD(lambda)'s record of a game; a game longer than this fails (none comes near it).
        cdef int cap = 4096
        for k in range(4):
            rng.s[k] = rng_state[k]
        cdef MoveGen* g = _new_movegen()
        cdef int8_t* hist = <int8_t*>malloc(cap * 52)
        cdef double* targets = <double*>malloc(cap * NN_OUTPUTS * sizeof(double))
        # Training evaluates by the raw rows from its first step (a resumed run exactly as
        # an unbroken one); the point rows are renewed when it ends.
        self.c.points_fresh = False
        try:
            if hist == NULL or targets == NULL:
                raise MemoryError()
            with nogil:
                for i in range(games):
                    k = nn_train_game(&self.c, g, &rng, alpha, lam, backgammons, hist, targets,
                                      cap, &plies)
                    if k < 0:
                        failed = 1
                        break
                    c[k] += 1
                    c[6] += 1
                    c[7] += plies
        finally:
            free(g)
            free(hist)
            free(targets)
            nn_sync_points(&self.c)
        for k in range(4):
            rng_state[k] = rng.s[k]
        if failed:
            raise RuntimeError("a training game did not finish")
        return counts
