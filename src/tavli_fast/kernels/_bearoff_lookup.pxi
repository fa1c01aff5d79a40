# Lookups in the bear-off databases (nogil, for the players, rollouts and the cube),
# the BearoffTables that hold them, and the index helpers for Python.
# Included by _core.pyx after _bearoff.pxi (its index and enums).

ctypedef struct BearoffDB:
    int points                  # one-sided: points 1..points
    int checkers                # one-sided: at most this many checkers
    int k_cols                  # columns of rolls/first: k = 0 .. k_cols - 1
    int64_t n1                  # one-sided positions
    const double* rolls         # [n1][k_cols] P(exactly k rolls to bear off)
    const double* mean          # [n1] expected rolls
    const double* first         # [n1][k_cols] rolls until the first checker is off (15 on board), or NULL
    int two_checkers            # two-sided: at most this many a side on 6 points (0: none)
    int64_t n2
    const float* win            # [n2][n2]: win[opponent * n2 + on_roll] = P(on roll wins)
    const float* cubeful        # [3][n2][n2] money ND equities (CF_* tables), or NULL


cdef inline double bearoff2_win(const BearoffDB* db, const Board* b) noexcept nogil:
    """Exact P(side 0, on roll, wins) if both sides are inside the two-sided database, else -1."""
    cdef int mine, theirs
    if db.two_checkers == 0:
        return -1.0
    mine = bo_checkers_on(b.c[0], 6)
    theirs = bo_checkers_on(b.c[1], 6)
    if mine < 0 or theirs < 0 or mine > db.two_checkers or theirs > db.two_checkers:
        return -1.0
    return db.win[bo_index(b.c[1], 6) * db.n2 + bo_index(b.c[0], 6)]


cdef inline bint bearoff2_cubeful(const BearoffDB* db, const Board* b, double* nd) noexcept nogil:
    """The exact money ND equities of side 0, on roll (nd[CF_CENTRE], nd[CF_OWN],
    nd[CF_THEIRS], per unit of an unlimited cube), if both sides are inside the cubeful
    two-sided database; else False."""
    cdef int mine, theirs, k
    cdef int64_t at
    if db.cubeful == NULL:
        return False
    mine = bo_checkers_on(b.c[0], 6)
    theirs = bo_checkers_on(b.c[1], 6)
    if mine < 0 or theirs < 0 or mine > db.two_checkers or theirs > db.two_checkers:
        return False
    at = bo_index(b.c[1], 6) * db.n2 + bo_index(b.c[0], 6)
    for k in range(CF_TABLES):
        nd[k] = db.cubeful[k * db.n2 * db.n2 + at]
    return True


cdef inline int64_t bearoff1_index(const BearoffDB* db, const int8_t* row) noexcept nogil:
    """One-sided index of a side, or -1 if it is not inside the one-sided database."""
    cdef int total = bo_checkers_on(row, db.points)
    if total < 0 or total > db.checkers:
        return -1
    return bo_index(row, db.points)


cdef double bearoff_race_equity(const BearoffDB* db, int64_t on_roll, int64_t other,
                                bint on_roll_full, bint other_full, double* probs) noexcept nogil:
    """Approximate cubeless race from the two one-sided distributions (each side playing to
    bear off fastest, independently): probs = P(win), P(win gammon), P(lose gammon) for the
    side on roll; returns the equity.  `*_full`: that side still has all 15 on the board.

    One backward pass keeps the tails P(at least k rolls) as running sums, so a call
    costs O(rolls), not O(rolls^2): the bear-off player calls it for every candidate.
    """
    cdef const double* a = db.rolls + on_roll * db.k_cols
    cdef const double* b = db.rolls + other * db.k_cols
    cdef const double* fa = db.first + on_roll * db.k_cols if db.first != NULL else NULL
    cdef const double* fb = db.first + other * db.k_cols if db.first != NULL else NULL
    cdef bint gammons_for = other_full and fb != NULL
    cdef bint gammons_against = on_roll_full and fa != NULL
    cdef int k
    cdef double win = 0.0, wg = 0.0, lg = 0.0
    cdef double tail_b = 0.0, tail_fb = 0.0, tail_fa_next = 0.0
    for k in range(db.k_cols - 1, 0, -1):
        tail_b += b[k]                      # P(other needs >= k rolls)
        if gammons_for:
            tail_fb += fb[k]                # P(other's first checker needs >= k rolls)
        # I finish on my k-th roll, before the other side's k-th roll.
        win += a[k] * tail_b
        if gammons_for:
            wg += a[k] * tail_fb
        if gammons_against:
            # The other side finishes on its k-th roll, after my k-th: I have had k rolls.
            lg += b[k] * tail_fa_next       # P(my first checker needs >= k + 1 rolls)
            tail_fa_next += fa[k]
    probs[0] = win
    probs[1] = wg
    probs[2] = lg
    return 2.0 * win - 1.0 + wg - lg


cdef inline double _bo2_swapped(const BearoffDB* db, const Board* r) noexcept nogil:
    """P(side 1 of r, about to roll, wins); r is inside the two-sided database."""
    return db.win[bo_index(r.c[0], 6) * db.n2 + bo_index(r.c[1], 6)]


cdef double _bo_result_value(const BearoffDB* db, const Board* r) noexcept nogil:
    """How good the result r (sides not switched) is for its mover: higher is better.

    Exact win probability inside the two-sided database; else, when the
    opponent is in the one-sided database, the approximate race equity; else
    minus the expected rolls.
    """
    cdef double w
    cdef double probs[3]
    cdef int64_t mine, theirs
    if r.c[0][0] == 15:
        return 1e9                              # borne off: the game is won
    w = bearoff2_win(db, r)
    if w >= 0.0:
        # bearoff2_win wants the side on roll in row 0: here the opponent is next.
        return 1.0 - _bo2_swapped(db, r)
    mine = bearoff1_index(db, r.c[0])
    theirs = bearoff1_index(db, r.c[1])
    if theirs >= 0:
        return -bearoff_race_equity(db, theirs, mine, r.c[1][0] == 0, r.c[0][0] == 0, probs)
    return -db.mean[mine]


cdef int bearoff_choose(const BearoffDB* db, const MoveGen* g, int n, const Board* before) noexcept nogil:
    """Index in g.out[0:n] of the play the databases prefer, or -1 if `before` (side 0 to
    play) is not a pure bear-off the one-sided database covers (the caller decides then)."""
    cdef int i, best = 0
    cdef double v, best_v = -1e300
    if bearoff1_index(db, before.c[0]) < 0 or not board_race(before):
        return -1
    for i in range(n):
        v = _bo_result_value(db, &g.out[i])
        if v > best_v:
            best_v = v
            best = i
    return best


cdef class BearoffTables:
    """The loaded databases as one struct for nogil code: `&tables.db` (const BearoffDB*).

    Holds references to the arrays (often read-only memory maps) so the
    pointers stay valid as long as this object lives.
    """
    cdef BearoffDB db
    cdef object _arrays

    def __cinit__(self, int points, int checkers, rolls, mean, first=None, win=None,
                  cubeful=None):
        cdef const double[:, ::1] rv = rolls
        cdef const double[::1] mv = mean
        cdef const double[:, ::1] fv
        cdef const float[:, ::1] wv
        cdef const float[:, :, ::1] cv
        n1 = bo_n_positions(points, checkers)
        if rv.shape[0] != n1 or mv.shape[0] != n1:
            raise ValueError(f"a {points}-point, {checkers}-checker one-sided table has {n1} rows")
        self.db.points = points
        self.db.checkers = checkers
        self.db.k_cols = <int>rv.shape[1]
        self.db.n1 = n1
        self.db.rolls = &rv[0, 0]
        self.db.mean = &mv[0]
        self.db.first = NULL
        if first is not None:
            fv = first
            if fv.shape[0] != n1 or fv.shape[1] != rv.shape[1]:
                raise ValueError("the first-off table must have the shape of the rolls table")
            self.db.first = &fv[0, 0]
        self.db.two_checkers = 0
        self.db.n2 = 0
        self.db.win = NULL
        if win is not None:
            wv = win
            two = 0
            while two < BO_MAX_CHECKERS and bo_n_positions(6, two) < wv.shape[0]:
                two += 1
            if bo_n_positions(6, two) != wv.shape[0] or wv.shape[1] != wv.shape[0]:
                raise ValueError(f"a two-sided table is C(n + 6, 6) square, not {wv.shape}")
            self.db.two_checkers = two
            self.db.n2 = wv.shape[0]
            self.db.win = &wv[0, 0]
        self.db.cubeful = NULL
        if cubeful is not None:
            cv = cubeful
            if win is None or cv.shape[0] != CF_TABLES or cv.shape[1] != wv.shape[0] \
                    or cv.shape[2] != wv.shape[0]:
                raise ValueError("the cubeful tables must be three of the two-sided table's shape")
            self.db.cubeful = &cv[0, 0, 0]
        self._arrays = (rolls, mean, first, win, cubeful)

    @property
    def points(self):
        return self.db.points

    @property
    def checkers(self):
        return self.db.checkers

    @property
    def two_sided_checkers(self):
        return self.db.two_checkers

    def win(self, const int8_t[:, ::1] board):
        """Exact P(win) for the side on roll, or None outside the two-sided database."""
        cdef Board b
        _load_board(board, &b)
        cdef double w = bearoff2_win(&self.db, &b)
        return None if w < 0.0 else w

    @property
    def cubeful(self):
        """Whether the cubeful two-sided tables are loaded."""
        return self.db.cubeful != NULL

    def cubeful_equities(self, const int8_t[:, ::1] board):
        """(ND centred, ND owned, ND opponent owns): the exact money equities of the side
        on roll per unit of an unlimited cube, or None outside the cubeful database."""
        cdef Board b
        cdef double nd[CF_TABLES]
        _load_board(board, &b)
        if not bearoff2_cubeful(&self.db, &b, nd):
            return None
        return nd[CF_CENTRE], nd[CF_OWN], nd[CF_THEIRS]

    def race(self, const int8_t[:, ::1] board):
        """(P(win), P(win gammon), P(lose gammon)) approximated from the one-sided
        distributions, or None if a side is outside the one-sided database."""
        cdef Board b
        cdef double probs[3]
        _load_board(board, &b)
        cdef int64_t mine = bearoff1_index(&self.db, b.c[0])
        cdef int64_t theirs = bearoff1_index(&self.db, b.c[1])
        if mine < 0 or theirs < 0:
            return None
        bearoff_race_equity(&self.db, mine, theirs, b.c[0][0] == 0, b.c[1][0] == 0, probs)
        return probs[0], probs[1], probs[2]

    def choose(self, const int8_t[:, ::1] board, int die1, int die2):
        """The board (sides not switched) the databases play to, or None outside them."""
        cdef Board b
        _load_board(board, &b)
        _check_die(die1)
        _check_die(die2)
        cdef int n = generate_plays(_scratch, &b, die1, die2)
        if n < 0:
            raise RuntimeError("more distinct plays than the generator holds")
        cdef int i = bearoff_choose(&self.db, _scratch, n, &b)
        if i < 0:
            return None
        out = np.empty((2, 26), dtype=np.int8)
        cdef int8_t[:, ::1] v = out
        memcpy(&v[0, 0], &_scratch.out[i], 52)
        return out


def bearoff_index(const int8_t[::1] counts):
    """Index of a side with counts[i] checkers on point i + 1 (len(counts) points)."""
    cdef int8_t row[26]
    cdef int p, points = <int>counts.shape[0]
    if not 1 <= points <= BO_MAX_POINTS - 1:
        raise ValueError(f"1 to {BO_MAX_POINTS - 1} points, not {points}")
    memset(row, 0, 26)
    for p in range(points):
        row[p + 1] = counts[p]
    return bo_index(row, points)


def bearoff_position(int64_t index, int points, int checkers):
    """Counts on points 1..points of the position with this index (inverse of bearoff_index)."""
    if not 0 <= index < bo_n_positions(points, checkers):
        raise ValueError(f"index {index} is outside 0..{bo_n_positions(points, checkers) - 1}")
    cdef int8_t row[26]
    memset(row, 0, 26)
    bo_unrank(index, points, checkers, row)
    return np.array([row[p] for p in range(1, points + 1)], dtype=np.int8)


def bearoff_n_positions(int points, int checkers):
    """C(checkers + points, points)."""
    return bo_n_positions(points, checkers)
