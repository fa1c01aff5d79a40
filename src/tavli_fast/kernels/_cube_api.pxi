# The doubling cube for Python: the match table, cube decisions and analyses.
# Included by _core.pyx after the kernels it wraps.

cdef class MatchTableC:
    """A match equity table as the cube kernels read it (met.py builds it)."""
    cdef MatchTable t
    cdef object _pre, _post

    def __cinit__(self, pre, post):
        self._pre = np.ascontiguousarray(pre, dtype=np.float64)
        self._post = np.ascontiguousarray(post, dtype=np.float64)
        cdef Py_ssize_t n = self._post.shape[0]
        if self._pre.ndim != 2 or self._pre.shape[0] != n or self._pre.shape[1] != n or n < 1:
            raise ValueError("a match equity table is pre_crawford (n, n) and post_crawford (n,)")
        cdef const double[:, ::1] pre_v = self._pre
        cdef const double[::1] post_v = self._post
        self.t.n = <int>n
        self.t.pre = &pre_v[0, 0]
        self.t.post = &post_v[0]

    @property
    def size(self):
        return self.t.n


cdef int _cube_state(CubeState* s, int value, int owner, int max_value, bint jacoby,
                     bint beaver, int away_me, int away_opp, bint crawford,
                     MatchTableC met) except -1:
    if owner < CUBE_CENTRE or owner > CUBE_THEIRS:
        raise ValueError(f"unknown cube owner {owner}")
    if value < 1 or max_value < value:
        raise ValueError(f"bad cube value {value} (maximum {max_value})")
    s.value = value
    s.owner = owner
    s.max_value = max_value
    s.jacoby = jacoby
    s.beaver = beaver
    s.away_me = away_me
    s.away_opp = away_opp
    s.crawford = crawford
    s.met = NULL
    if away_me or away_opp:
        if met is None:
            raise ValueError("match play needs a match equity table")
        if away_me < 1 or away_opp < 1 or away_me > met.t.n or away_opp > met.t.n:
            raise ValueError(f"away counts {away_me}, {away_opp} outside the table (1..{met.t.n})")
        s.met = &met.t
    return 0


def match_mwc(MatchTableC met, int away_me, int away_opp, bint post):
    """MWC of the player `away_me` points from winning against `away_opp` (<= 0: won);
    `post`: the Crawford game has been played (read the post-Crawford table)."""
    if away_me > met.t.n or away_opp > met.t.n:
        raise ValueError(f"away counts {away_me}, {away_opp} outside the table (at most {met.t.n})")
    if away_me <= 0 and away_opp <= 0:
        raise ValueError("both players cannot have won")
    return met_mwc(&met.t, away_me, away_opp, post)


def cube_allows_double(int value, int owner, int max_value, bint jacoby, bint beaver,
                       int away_me, int away_opp, bint crawford, MatchTableC met=None):
    """R22-R25: may the side on roll double with this cube and score?"""
    cdef CubeState s
    _cube_state(&s, value, owner, max_value, jacoby, beaver, away_me, away_opp, crawford, met)
    return bool(cube_can_double(&s))


def cube_action_code(double nd, double dt, double dp, double win, double win_gammon,
                     bint can_double, bint beaver_money, bint jacoby_centred):
    """The proper cube action (an ACT_* code, cube.ACTIONS) from three cubeful equities."""
    return cube_action(nd, dt, dp, win, win_gammon, can_double, beaver_money, jacoby_centred)


def gammon_prices_of(int value, int away_me, int away_opp, MatchTableC met):
    """The match prices (win gammon, lose gammon, win backgammon, lose backgammon) of the side
    on roll at this score and cube, in units of a single game (money would be 1, 1, 1, 1)."""
    cdef CubeState s
    cdef double prices[4]
    _cube_state(&s, value, CUBE_CENTRE, max(value, 1), False, False, away_me, away_opp, False, met)
    gammon_prices(&s, prices)
    return (prices[0], prices[1], prices[2], prices[3])


def cube_efficiency_of(const int8_t[:, ::1] board):
    """The cube efficiency x of a position (CUBE.md: contact 0.76, race, bear-off 0.6)."""
    cdef Board b
    _load_board(board, &b)
    return cube_efficiency(&b)


def cube_analysis(const double[::1] probabilities, double x, int value, int owner,
                  int max_value, bint jacoby, bint beaver, int away_me, int away_opp,
                  bint crawford, MatchTableC met=None, const int8_t[:, ::1] board=None,
                  BearoffTables bearoff=None):
    """Cube analysis: (cubeless, nd, dt, dp, mwc_nd, mwc_dt, mwc_dp, action, can_double,
    exact).

    `probabilities`: the five cubeless probabilities of the side on roll.  `owner`: 0 centre,
    1 the side on roll, 2 the opponent.  away_me = away_opp = 0 is money play.  With
    `board` and `bearoff` (cubeful tables loaded), a money position in the cubeful bear-off
    database is answered exactly (exact = True); otherwise the 0-ply model.
    """
    cdef CubeState s
    cdef CubeAnalysis a
    cdef Board b
    if probabilities.shape[0] != 5:
        raise ValueError("five probabilities are needed")
    _cube_state(&s, value, owner, max_value, jacoby, beaver, away_me, away_opp, crawford, met)
    if board is not None:
        _load_board(board, &b)
    if board is None or not cube_analyse_exact(_tables_db(bearoff), &b, &s, &a):
        cube_analyse(&probabilities[0], x, &s, &a)
    return (a.cubeless, a.nd, a.dt, a.dp, a.mwc_nd, a.mwc_dt, a.mwc_dp, a.action,
            bool(a.can_double), bool(a.exact))



cdef int _bearoff_solve(const int8_t[:, ::1] board, int value, int owner, int max_value,
                        int away_me, int away_opp, bint crawford, MatchTableC met,
                        BearoffTables bearoff, int64_t budget, CubeState* s,
                        CubeSolve* out) except -2:
    """bearoff_cube_solve for Python: 1 solved, 0 over `budget`; precise errors else."""
    cdef Board b
    cdef int code
    cdef MoveGen* g
    if bearoff is None:
        raise ValueError("the exact cube solve needs the two-sided bear-off database")
    if budget < 0:
        raise ValueError(f"budget must be >= 0, not {budget}")
    _cube_state(s, value, owner, max_value, False, False, away_me, away_opp, crawford, met)
    _load_board(board, &b)
    g = _new_movegen()
    try:
        with nogil:
            code = bearoff_cube_solve(&bearoff.db, &b, s, g, budget, out)
    finally:
        free(g)
    if code == MDP_OUTSIDE:
        raise ValueError("not a game in progress with both sides inside the two-sided "
                         "bear-off database")
    if code == MDP_NO_MEMORY:
        raise MemoryError("out of memory solving the cubeful bear-off")
    if code == MDP_MOVEGEN:
        raise RuntimeError("move generator overflow in a bear-off position")
    return 1 if code == MDP_OK else 0


def bearoff_cube_solution(const int8_t[:, ::1] board, int value, int owner, int max_value,
                          int away_me, int away_opp, bint crawford, MatchTableC met,
                          BearoffTables bearoff, int64_t budget):
    """The exact cubeful solve of a position inside the two-sided bear-off database
    (_bearoff_match.pxi): (nd, dt, dp, win, can_double, n_me, n_opp) for the side on roll,
    MWCs in a match (away counts >= 1), points with the cube in money play (away counts
    0); None when it would hold more than `budget` values."""
    cdef CubeState s
    cdef CubeSolve m
    if not _bearoff_solve(board, value, owner, max_value, away_me, away_opp, crawford, met,
                          bearoff, budget, &s, &m):
        return None
    return (m.nd, m.dt, m.dp, m.win, bool(m.can_double), m.n_me, m.n_opp)


def cube_analysis_match_exact(const int8_t[:, ::1] board, int value, int owner, int max_value,
                              int away_me, int away_opp, bint crawford, MatchTableC met,
                              BearoffTables bearoff, int64_t budget):
    """Exact match-play cube analysis of a position inside the two-sided bear-off database:
    (cubeless, nd, dt, dp, mwc_nd, mwc_dt, mwc_dp, action, can_double, n_me, n_opp) as
    cube_analysis gives them, or None when the solve would hold more than `budget` values."""
    cdef CubeState s
    cdef CubeAnalysis a
    cdef CubeSolve m
    if away_me <= 0 or away_opp <= 0:
        raise ValueError("a match-play cube analysis needs a match score (away counts >= 1)")
    if not _bearoff_solve(board, value, owner, max_value, away_me, away_opp, crawford, met,
                          bearoff, budget, &s, &m):
        return None
    cube_analysis_from_solve(&m, &s, &a)
    return (a.cubeless, a.nd, a.dt, a.dp, a.mwc_nd, a.mwc_dt, a.mwc_dp, a.action,
            bool(a.can_double), m.n_me, m.n_opp)


cdef class MatchBearoffRegion:
    """Every pair of bear-off positions with at most `checkers` checkers a side, solved
    exactly (perfect checker and cube play) at one match score and starting cube, seen by
    the game's player 0 on roll (owner 0 centre, 1 player 0, 2 player 1).  The game loop
    reads it for the players' cube and for truncating cubeful match games
    (_bearoff_match.pxi); match_bearoff.py builds it once per score and process."""
    cdef _MDP d
    cdef object _met
    cdef int _checkers

    def __cinit__(self, BearoffTables bearoff, int checkers, int value, int owner,
                  int max_value, int away_me, int away_opp, bint crawford, MatchTableC met):
        cdef CubeState s
        cdef int64_t starts[2]
        cdef int code
        cdef MoveGen* g
        memset(&self.d, 0, sizeof(_MDP))
        if bearoff is None or bearoff.db.two_checkers == 0:
            raise ValueError("the solved region needs the two-sided bear-off database")
        if not 1 <= checkers <= bearoff.db.two_checkers:
            raise ValueError(f"checkers must be 1..{bearoff.db.two_checkers}, not {checkers}")
        if away_me <= 0 or away_opp <= 0:
            raise ValueError("the solved region is for a match score (away counts >= 1)")
        _cube_state(&s, value, owner, max_value, False, False, away_me, away_opp, crawford, met)
        self._met = met                 # the solve points into its table
        self._checkers = checkers
        starts[0] = starts[1] = -checkers
        g = _new_movegen()
        try:
            with nogil:
                code = _mdp_solve(&self.d, &bearoff.db, &s, starts, g, (<int64_t>1) << 62)
        finally:
            free(g)
        if code == MDP_NO_MEMORY:
            raise MemoryError("out of memory solving the match-play bear-off region")
        if code != MDP_OK:
            raise RuntimeError(f"solving the match-play bear-off region failed ({code})")

    def __dealloc__(self):
        _mdp_free(&self.d)

    @property
    def checkers(self):
        return self._checkers

    @property
    def pairs(self):
        """Position pairs solved (each in every cube state, both sides on roll)."""
        return self.d.side[0].n * self.d.side[1].n

    def cube_analysis(self, const int8_t[:, ::1] board, int side, int value, int owner,
                      BearoffTables bearoff):
        """The exact analysis of `board` (row 0 on roll, the game's player `side`) with the
        cube as that side sees it, as cube_analysis_match_exact gives it (without the
        position counts), or None when the region does not hold it."""
        cdef Board b
        cdef CubeState s
        cdef CubeAnalysis a
        if side not in (0, 1):
            raise ValueError(f"side is 0 or 1, not {side}")
        if bearoff is None:
            raise ValueError("the analysis needs the two-sided bear-off database")
        _load_board(board, &b)
        _cube_state(&s, value, owner, self.d.max_value, False, False, self.d.away[side],
                    self.d.away[side ^ 1], self.d.crawford, self._met)
        if not mdp_region_analysis(&self.d, &b, side, &s, _tables_db(bearoff), &a):
            return None
        return (a.cubeless, a.nd, a.dt, a.dp, a.mwc_nd, a.mwc_dt, a.mwc_dp, a.action,
                bool(a.can_double))
