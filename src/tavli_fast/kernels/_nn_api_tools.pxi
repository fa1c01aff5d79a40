# The net's Python face, continued (part of _neural.pxi, after _nn_api.pxi): the checks of
# the search settings NeuralNet's methods take (ply, prices, the reply and move filters),
# the search cache, and the module-level helpers (races, the inputs of boards, the fast
# sigmoid, the core generator's state).

cdef int _check_ply(int ply) except -1:
    if not 0 <= ply <= 2:
        raise ValueError(f"ply must be 0, 1 or 2, not {ply}")
    return 0


cdef int _price_pointers(const double[::1] prices, const double[::1] reply_prices,
                         const double** mine, const double** theirs) except -1:
    """Checked gammon prices (four each, or None) as the kernels take them (NULL: None)."""
    if ((prices is not None and prices.shape[0] != 4)
            or (reply_prices is not None and reply_prices.shape[0] != 4)):
        raise ValueError("gammon prices are four numbers")
    mine[0] = &prices[0] if prices is not None else NULL
    theirs[0] = &reply_prices[0] if reply_prices is not None else NULL
    return 0


#: The pre-filter's estimators by name (_nn_prefilter.pxi): the pruning net where the net has
#: one (else the slope), and the first-order estimate by the slope.
ESTIMATORS = {"prune": NN_EST_PRUNE, "slope": NN_EST_SLOPE}


cdef int _set_reply_filter(ReplyFilter* rf, object setting, str name,
                           int default_estimator=NN_REPLY_ESTIMATOR) except -1:
    """A pre-filter from (keep, margin) or (keep, margin, estimator), checked; None leaves
    the default.  Without an estimator, `default_estimator` (the use's own default:
    NN_REPLY_ESTIMATOR, NN_LUCK_ESTIMATOR), so that REPLY_FILTER and LUCK_FILTER given
    explicitly are the defaults."""
    if setting is None:
        return 0
    estimator = "prune" if default_estimator == NN_EST_PRUNE else "slope"
    try:
        if isinstance(setting, (tuple, list)) and len(setting) == 3:
            keep, margin, estimator = setting
        else:
            keep, margin = setting
    except (TypeError, ValueError):
        raise ValueError(f"{name} is (keep, margin) or (keep, margin, estimator), "
                         f"not {setting!r}") from None
    if isinstance(keep, bool) or not isinstance(keep, int) or not 0 <= keep <= NN_MAX_CANDIDATES:
        raise ValueError(f"{name} keeps 0 (every play) to {NN_MAX_CANDIDATES} plays, not {keep!r}")
    if (isinstance(margin, bool) or not isinstance(margin, (int, float))
            or not float(margin) >= 0.0 or margin == float("inf")):
        raise ValueError(f"{name}'s margin must be a finite equity >= 0, not {margin!r}")
    if not isinstance(estimator, str) or estimator not in ESTIMATORS:
        raise ValueError(f"{name}'s estimator is one of {sorted(ESTIMATORS)}, not {estimator!r}")
    rf.keep = keep
    rf.margin = margin
    rf.estimator = ESTIMATORS[estimator]
    return 0


cdef int _set_filters(MoveFilter* f, object filters) except -1:
    """The two move filters of a search from (candidates, window) pairs: candidates >= 0
    (0: no play goes deeper), window >= 0 (inf: any)."""
    try:
        pairs = [(c, w) for c, w in filters]
    except (TypeError, ValueError):
        raise ValueError(f"filters are (candidates, window) pairs, not {filters!r}") from None
    if len(pairs) != 2:
        raise ValueError(f"a search has two move filters (0 to 1 ply, 1 to 2 ply), not {len(pairs)}")
    for k, (count, window) in enumerate(pairs):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"a move filter keeps 0 or more candidates, not {count!r}")
        if (isinstance(window, bool) or not isinstance(window, (int, float))
                or not float(window) >= 0.0):
            raise ValueError(f"a move filter's window must be an equity >= 0, not {window!r}")
        f[k].candidates = <int>min(count, 1 << 30)
        f[k].window = float(window)
    return 0


cdef class SearchCache:
    """The search's cache of evaluated positions (_nn_cache.pxi): the 1- and 2-ply
    probabilities of the positions a 2-ply search values, keyed by their Position ID key,
    the depth and the gammon prices of the side on roll; `entries` slots (a power of two,
    at most 2**24; 64 bytes each), a new position replacing the one in its slot.  One
    cache serves one net at a time (handed another, it empties itself) and may be kept
    across searches, e.g. by a player through a game.  The numbers of a search are the
    same with a cache and without one.  Not for two threads at once."""
    cdef NNCache c

    def __cinit__(self, Py_ssize_t entries=1 << NN_CACHE_DEFAULT_BITS):
        if entries < 1 or entries > (1 << NN_CACHE_MAX_BITS) or entries & (entries - 1):
            raise ValueError(f"a search cache has a power of two entries, 1 to "
                             f"{1 << NN_CACHE_MAX_BITS}, not {entries}")
        self.c.entries = <NNCacheEntry*>calloc(entries, sizeof(NNCacheEntry))
        if self.c.entries == NULL:
            raise MemoryError("cannot allocate the search cache")
        self.c.mask = <uint64_t>(entries - 1)
        self.c.owner = NULL
        self.c.hits = 0
        self.c.misses = 0

    def __dealloc__(self):
        free(self.c.entries)

    @property
    def entries(self):
        return <Py_ssize_t>(self.c.mask + 1)

    @property
    def hits(self):
        """Look-ups answered from the cache since it was made or emptied."""
        return self.c.hits

    @property
    def misses(self):
        """Look-ups that had to search."""
        return self.c.misses

    def clear(self):
        """Forget every position (after changing the weights of the net it served)."""
        nn_cache_clear(&self.c)


cdef NNCache* _bound_cache(SearchCache cache, NeuralNet net):
    """The C cache of `cache` (None: NULL), emptied if it held another net's values."""
    if cache is None:
        return NULL
    nn_cache_bind(&cache.c, &net.c)
    return &cache.c

cdef int _input_count(object inputs) except -1:
    if inputs not in INPUT_COUNTS:
        raise ValueError(f"inputs is one of {INPUT_COUNTS}, not {inputs!r}")
    return <int>inputs


def races(const int8_t[:, :, ::1] boards):
    """bool[m]: whether each board (2, 26) has no contact left, the positions a race net
    evaluates (the test of the players and the cube, `rows_race`)."""
    cdef Py_ssize_t i, m = boards.shape[0]
    if boards.shape[1] != 2 or boards.shape[2] != 26:
        raise ValueError("boards must have shape (m, 2, 26)")
    out = np.empty(m, dtype=bool)
    cdef uint8_t[::1] o = out.view(np.uint8)
    with nogil:
        for i in range(m):
            o[i] = rows_race(&boards[i, 0, 0], &boards[i, 1, 0])
    return out


def neural_inputs_many(const int8_t[:, :, ::1] boards, inputs=NN_V2_INPUTS):
    """float32[m, inputs]: the dense inputs of each board (row 0 on roll) for a net of
    `inputs` inputs (INPUT_COUNTS: NeuralNet.n_inputs), GIL released."""
    cdef Py_ssize_t m = boards.shape[0], i
    cdef int n = _input_count(inputs), nf = n - NN_BASE_INPUTS
    cdef tf_rows r
    cdef double f[NN_FEATURE_INPUTS]
    cdef int a, j
    cdef double v
    if boards.shape[1] != 2 or boards.shape[2] != 26:
        raise ValueError("boards must have shape (m, 2, 26)")
    out = np.zeros((m, n), dtype=np.float32)
    cdef float[:, ::1] o = out
    with nogil:
        for i in range(m):
            _nn_rows(&r, &boards[i, 0, 0], &boards[i, 1, 0], f, nf)
            for a in range(_rows_count(&r)):
                v = _rows_item(&r, a, &j)
                o[i, j] = <float>v
    return out


def neural_inputs(const int8_t[:, ::1] board, bint features=True, inputs=None):
    """float64[203] (or [198] without the hand features; or [inputs] when `inputs`, one of
    INPUT_COUNTS, is given): the net's inputs for the board (row 0 on roll), dense."""
    cdef Board b
    cdef tf_rows r
    cdef double f[NN_FEATURE_INPUTS]
    cdef int a, i, n
    cdef double v
    n = _input_count(inputs) if inputs is not None else (NN_V2_INPUTS if features else NN_BASE_INPUTS)
    _load_board(board, &b)
    _nn_rows(&r, b.c[0], b.c[1], f, n - NN_BASE_INPUTS)
    out = np.zeros(n, dtype=np.float64)
    cdef double[::1] o = out
    for a in range(_rows_count(&r)):
        v = _rows_item(&r, a, &i)
        o[i] = v
    return out


def fast_sigmoid(x):
    """float32[n]: the fast path's sigmoid of each value of x (for its tests and benchmarks)."""
    cdef float[::1] xv = np.ascontiguousarray(x, dtype=np.float32).ravel()
    out = np.empty(xv.shape[0], dtype=np.float32)
    cdef float[::1] o = out
    if xv.shape[0]:
        tf_sigmoid_many(&xv[0], &o[0], xv.shape[0])
    return out


def rng_state(uint64_t seed):
    """uint64[4]: the core generator's state after seeding with `seed`."""
    cdef Rng rng
    rng_seed(&rng, seed)
    return np.array([rng.s[0], rng.s[1], rng.s[2], rng.s[3]], dtype=np.uint64)
