# Exact cube decisions at a match score inside the two-sided bear-off database (R21-R25).
# Included by _core.pyx after _cube.pxi (its match table, cube state and actions).
#
# For one position pair at one score, the cubeful game is solved by dynamic programming
# over every pair reachable from it, every cube value and owner: both sides play checkers
# and cube perfectly (double, take or pass, redouble), and the game ends in the match
# equity table's values at the score after it (a cube that wins the match for a side is
# dead by itself: doubling it gains that side nothing, and the rules forbid it, R25 and
# cube_can_double).  Values are match winning chances (MWC) of the side on roll.
#
# The player on roll in the query is X (away_me), the other Y (away_opp); the score does
# not change within the game, so each side's point of view is fixed.  A side's reachable
# positions are numbered by increasing database index (a play lowers the index, so every
# result of a position is numbered below it; number 0 is "all borne off").  Cube states:
# 0 is the query's (its value and owner, centred or not), and level k >= 1 (value
# 2^k x the query's) owned by X is 1 + 2 (k - 1), owned by Y the next.  For each pair and
# cube state the table holds the value of the side on roll *after* its own cube action
# (what the side that just played faces):
#     A = ND                              when it may not double,
#     A = max(ND, min(DP, DT))            when it may (DP: the cube's value won now; DT:
#                                         ND at the next level, the cube the taker's),
#     ND = 1/36 sum over rolls of the best play's value (1 - the opponent's A after it,
#          or the match equity of a won game once the play bears the last checker off).
# A pair is solved after every pair its plays reach: for each of X's positions (rising)
# and each of Y's (rising), first Y on roll at (y, x), which needs X on roll at (x, y' <
# y), then X on roll at (x, y), which needs Y on roll at (y, x' < x).
#
# The same solve runs for money play (no match table): values are then points won by the
# side on roll (the opponent's negated), a game won at cube c is worth c, and the cube
# stops only at its maximum (R23).  The tests use it to check the solve against the
# cubeful money database, which another program (_bearoff_cubeful.pxi) solves.

cdef enum:
    MDP_MAX_LEVELS = 12         # cube levels solved at most (2^11 x the cube: beyond any table)
    MDP_MAX_STATES = 1 + 2 * (MDP_MAX_LEVELS - 1)
    MDP_OK = 1
    MDP_TOO_BIG = 0             # over the caller's budget: not solved
    MDP_NO_MEMORY = -1
    MDP_OUTSIDE = -2            # not a match position inside the two-sided database
    MDP_MOVEGEN = -3            # the move generator overflowed (cannot happen in a bear-off)

ctypedef struct CubeSolve:
    double nd, dt, dp           # the side on roll's no double, double/take, double/pass:
                                # MWCs in a match, points in money play (cube included)
    double win                  # its exact cubeless P(win)
    bint can_double
    int64_t n_me, n_opp         # positions reachable for each side (the DP has n_me x n_opp pairs)

ctypedef struct _MDPSide:       # one side's reachable positions
    int64_t n                   # how many (local ids 0..n-1, by rising database index)
    int32_t* off                # off[local * 21 + r] .. off[local * 21 + r + 1]: its plays
    int32_t* res                # the results' local ids
    int8_t* checkers            # checkers left on the board

ctypedef struct _MDP:           # the game being solved
    const MatchTable* met       # NULL: money play
    double total                # the two sides' values add up to this: 1 (MWC) or 0 (points)
    int away[2]                 # X's and Y's points to go
    bint post                   # the scores after this game are post-Crawford ones
    bint crawford               # this is the Crawford game: no cube
    int max_value               # R23
    int n_states
    int value[MDP_MAX_STATES]   # the cube's value in each state
    int owner[MDP_MAX_STATES]   # 0 centre, 1 X, 2 Y
    int doubled[2][MDP_MAX_STATES]  # the state after X (0) or Y (1) doubles, or -1: may not
    _MDPSide side[2]
    float* acting[2]            # acting[P][(own * n_other + other) * n_states + state]: P on roll


cdef inline double _mdp_win(const _MDP* d, int p, int points) noexcept nogil:
    """Side p's value once it wins `points` in this game: its MWC, or the points (money)."""
    if d.met == NULL:
        return points
    return met_mwc(d.met, d.away[p] - points, d.away[p ^ 1], d.post)


cdef inline bint _mdp_may_double(const _MDP* d, int p, int value) noexcept nogil:
    """R22-R25 for side p at a cube of `value` it may turn (owner aside): not the Crawford
    game, below the maximum cube, and in a match only while a win of `value` leaves it
    points to go (else the double gains it nothing: it is the post-Crawford leader, or
    the cube already wins it the match)."""
    if d.crawford or 2 * value > d.max_value:
        return False
    return d.met == NULL or d.away[p] > value


cdef void _mdp_free_side(_MDPSide* s) noexcept nogil:
    free(s.off)
    free(s.res)
    free(s.checkers)
    s.off = NULL
    s.res = NULL
    s.checkers = NULL


cdef int _mdp_side(const BearoffDB* db, int64_t start, MoveGen* g, int32_t* local,
                   _MDPSide* s) noexcept nogil:
    """Number the positions reachable from `start` and list their plays (local ids).
    start < 0: every position of at most -start checkers (local id = database index: a
    play never adds a checker, so they are closed under play).  `local` is scratch of
    db.n2 entries.  Returns MDP_OK or an error code."""
    cdef Board b
    cdef int64_t* stack = NULL
    cdef int64_t top = 0, idx, k, t, cap = 0, total = 0
    cdef int r, d1, d2, w, i, cnt, p
    cdef int32_t* grown
    s.n = 0
    s.off = NULL
    s.res = NULL
    s.checkers = NULL
    for k in range(db.n2):
        local[k] = -1
    stack = <int64_t*>malloc(db.n2 * sizeof(int64_t))
    if stack == NULL:
        return MDP_NO_MEMORY
    if start < 0:
        start = bo_n_positions(6, <int>(-start)) - 1
        for k in range(start + 1):
            local[k] = 0
    else:
        # Mark what is reachable (depth first), then number it by rising index.
        local[start] = 0
        stack[top] = start
        top += 1
    while top > 0:
        top -= 1
        idx = stack[top]
        bo_side_board(&b, idx, 6, db.two_checkers)
        for r in range(BO_ROLLS):
            bo_roll(r, &d1, &d2, &w)
            cnt = generate_plays(g, &b, d1, d2)
            if cnt <= 0:
                free(stack)
                return MDP_MOVEGEN
            for i in range(cnt):
                k = bo_index(g.out[i].c[0], 6)
                if local[k] < 0:
                    local[k] = 0
                    stack[top] = k
                    top += 1
    free(stack)
    for k in range(db.n2):
        if local[k] == 0:
            local[k] = <int32_t>s.n
            s.n += 1
    s.off = <int32_t*>malloc((s.n * BO_ROLLS + 1) * sizeof(int32_t))
    s.checkers = <int8_t*>malloc(s.n * sizeof(int8_t))
    if s.off == NULL or s.checkers == NULL:
        _mdp_free_side(s)
        return MDP_NO_MEMORY
    s.off[0] = 0
    for k in range(start + 1):
        if local[k] < 0:
            continue
        bo_side_board(&b, k, 6, db.two_checkers)
        s.checkers[local[k]] = <int8_t>(15 - b.c[0][0])
        for r in range(BO_ROLLS):
            bo_roll(r, &d1, &d2, &w)
            cnt = generate_plays(g, &b, d1, d2)
            if total + cnt > cap:
                cap = 2 * cap + cnt + 1024
                grown = <int32_t*>realloc(s.res, cap * sizeof(int32_t))
                if grown == NULL:
                    _mdp_free_side(s)
                    return MDP_NO_MEMORY
                s.res = grown
            for i in range(cnt):
                s.res[total + i] = local[bo_index(g.out[i].c[0], 6)]
            total += cnt
            s.off[local[k] * BO_ROLLS + r + 1] = <int32_t>total
    return MDP_OK


cdef void _mdp_cube_states(_MDP* d, const CubeState* s) noexcept nogil:
    """The cube states from the query's up to the level where nobody may double (at least
    one level up, for the double/take figure), and who may double in each."""
    cdef int levels = 1, k, p, st, v
    cdef bint any_double = True
    while any_double and levels < MDP_MAX_LEVELS:
        v = s.value << (levels - 1)
        any_double = False
        for p in range(2):
            if _mdp_may_double(d, p, v):
                any_double = True
        if any_double:
            levels += 1
    if levels < 2:
        levels = 2
    d.n_states = 1 + 2 * (levels - 1)
    d.value[0] = s.value
    d.owner[0] = 0 if s.owner == CUBE_CENTRE else (1 if s.owner == CUBE_MINE else 2)
    for k in range(1, levels):
        for p in range(2):
            st = 1 + 2 * (k - 1) + p
            d.value[st] = s.value << k
            d.owner[st] = 1 + p
    for st in range(d.n_states):
        k = 0 if st == 0 else 1 + (st - 1) // 2
        for p in range(2):
            v = d.value[st]
            if (k + 1 < levels and (d.owner[st] == 0 or d.owner[st] == 1 + p)
                    and _mdp_may_double(d, p, v)):
                d.doubled[p][st] = 1 + 2 * k + (p ^ 1)     # level k + 1, the other side's
            else:
                d.doubled[p][st] = -1


cdef void _mdp_no_double(const _MDP* d, int p, int64_t mine, int64_t theirs,
                         double* nd) noexcept nogil:
    """ND of side p on roll at (mine, theirs) in every cube state: each roll's best play,
    chosen for each cube state apart (cubeful checker play)."""
    cdef const _MDPSide* me = &d.side[p]
    cdef const float* opp = d.acting[p ^ 1]
    cdef int64_t n_me = me.n
    cdef int r, d1, d2, w, st, ns = d.n_states
    cdef int64_t t, q
    cdef const float* row
    cdef double best[MDP_MAX_STATES]
    cdef double won[MDP_MAX_STATES]
    cdef double v
    cdef int mult = 2 if d.side[p ^ 1].checkers[theirs] == 15 else 1   # R20: a gammon
    for st in range(ns):
        nd[st] = 0.0
        won[st] = _mdp_win(d, p, mult * d.value[st])
    for r in range(BO_ROLLS):
        bo_roll(r, &d1, &d2, &w)
        for st in range(ns):
            best[st] = -1e300
        for t in range(me.off[mine * BO_ROLLS + r], me.off[mine * BO_ROLLS + r + 1]):
            q = me.res[t]
            if q == 0:                  # the last checker borne off: the game is won
                for st in range(ns):
                    if won[st] > best[st]:
                        best[st] = won[st]
                continue
            row = opp + (theirs * n_me + q) * ns
            for st in range(ns):
                v = d.total - row[st]
                if v > best[st]:
                    best[st] = v
        for st in range(ns):
            nd[st] += w * best[st]
    for st in range(ns):
        nd[st] /= 36.0


cdef void _mdp_store(const _MDP* d, int p, int64_t mine, int64_t theirs,
                     const double* nd) noexcept nogil:
    """Side p's values after its own cube action at (mine, theirs), from its ND values."""
    cdef int st, up, ns = d.n_states
    cdef double v, take
    cdef float* out = d.acting[p] + (mine * d.side[p ^ 1].n + theirs) * ns
    for st in range(ns):
        v = nd[st]
        up = d.doubled[p][st]
        if up >= 0:
            take = min(nd[up], _mdp_win(d, p, d.value[st]))    # the taker's choice
            if take > v:
                v = take
        out[st] = <float>v


cdef void _mdp_free(_MDP* d) noexcept nogil:
    cdef int p
    for p in range(2):
        _mdp_free_side(&d.side[p])
        free(d.acting[p])
        d.acting[p] = NULL


cdef int _mdp_solve(_MDP* d, const BearoffDB* db, const CubeState* s, const int64_t* starts,
                    MoveGen* g, int64_t budget) noexcept nogil:
    """Number both sides' positions from `starts` (see _mdp_side), then solve every pair in
    every cube state from `s` (seen by X, on roll).  `d` is zeroed here; _mdp_free it."""
    cdef int32_t* local = NULL
    cdef int64_t x, y, n_pairs
    cdef int p, code
    cdef double nd[MDP_MAX_STATES]
    memset(d, 0, sizeof(_MDP))
    d.met = s.met if cube_is_match(s) else NULL
    d.total = 1.0 if cube_is_match(s) else 0.0
    d.away[0] = s.away_me
    d.away[1] = s.away_opp
    d.post = cube_after_crawford(s)
    d.crawford = s.crawford
    d.max_value = s.max_value
    _mdp_cube_states(d, s)
    local = <int32_t*>malloc(db.n2 * sizeof(int32_t))
    if local == NULL:
        return MDP_NO_MEMORY
    for p in range(2):
        code = _mdp_side(db, starts[p], g, local, &d.side[p])
        if code != MDP_OK:
            free(local)
            return code
    free(local)
    n_pairs = d.side[0].n * d.side[1].n
    if 2 * n_pairs * d.n_states > budget:
        return MDP_TOO_BIG
    for p in range(2):
        d.acting[p] = <float*>malloc(n_pairs * d.n_states * sizeof(float))
        if d.acting[p] == NULL:
            return MDP_NO_MEMORY
    for x in range(1, d.side[0].n):
        for y in range(1, d.side[1].n):
            _mdp_no_double(d, 1, y, x, nd)
            _mdp_store(d, 1, y, x, nd)
            _mdp_no_double(d, 0, x, y, nd)
            _mdp_store(d, 0, x, y, nd)
    return MDP_OK


cdef int bearoff_cube_solve(const BearoffDB* db, const Board* b, const CubeState* s,
                            MoveGen* g, int64_t budget, CubeSolve* out) noexcept nogil:
    """Solve the cubeful game from `b` (row 0 on roll, before its cube action) with the
    cube and score of `s` (a match, or money play: then `out` holds points, not MWCs);
    fill `out` and return MDP_OK.  MDP_TOO_BIG when the tables would hold more than
    `budget` values (nothing solved), MDP_OUTSIDE when `b` is not a game in progress
    inside the two-sided database.  `g` is a move generator the solve may use."""
    cdef _MDP d
    cdef int64_t starts[2]
    cdef int p, code
    cdef double nd[MDP_MAX_STATES]
    if db == NULL or db.two_checkers == 0 or (cube_is_match(s) and s.met == NULL):
        return MDP_OUTSIDE
    for p in range(2):
        code = bo_checkers_on(b.c[p], 6)
        if code <= 0 or code > db.two_checkers:
            return MDP_OUTSIDE
        starts[p] = bo_index(b.c[p], 6)
    code = _mdp_solve(&d, db, s, starts, g, budget)
    if code != MDP_OK:
        _mdp_free(&d)
        return code
    # The query's pair is the last solved: each side's start has the highest number.
    _mdp_no_double(&d, 0, d.side[0].n - 1, d.side[1].n - 1, nd)
    out.nd = nd[0]
    out.dt = nd[1 + 1]                      # level 1, owned by Y (the taker)
    out.dp = _mdp_win(&d, 0, d.value[0])
    out.can_double = d.doubled[0][0] >= 0
    out.win = bearoff2_win(db, b)
    out.n_me = d.side[0].n
    out.n_opp = d.side[1].n
    _mdp_free(&d)
    return MDP_OK


cdef void cube_analysis_from_solve(const CubeSolve* m, const CubeState* s,
                                      CubeAnalysis* out) noexcept nogil:
    """A CubeAnalysis (EMG on the cube's scale as cube_analyse gives it, MWCs, action) from
    an exact match solve."""
    cdef double win = mwc_after(s, s.value), lose = mwc_after(s, -s.value)
    cdef double span = win - lose
    out.cubeless = 2.0 * m.win - 1.0        # no gammon inside the database
    out.x = 0.0
    out.exact = True
    out.can_double = m.can_double
    out.mwc_nd = m.nd
    out.mwc_dt = m.dt
    out.mwc_dp = m.dp
    out.dp = 1.0
    out.nd = (2.0 * m.nd - (win + lose)) / span
    out.dt = (2.0 * m.dt - (win + lose)) / span
    out.action = cube_action(out.nd, out.dt, out.dp, m.win, 0.0, out.can_double, False, False)


# ---------------------------------------------------------------- a solved region
# For games at one score (a cubeful rollout's), one solve of every pair with at most k
# checkers a side serves every game that gets there: its players' cube decisions and the
# truncated games' values are lookups.  X is the game's player 0.

cdef inline int mdp_state_of(const _MDP* d, int side, const CubeState* s) noexcept nogil:
    """The table's state of the cube `s` as `side` (0: X), on roll, sees it; -1 if the
    table has none (another score or starting cube)."""
    cdef int owner = 0, level = 0, v = d.value[0], st
    if s.away_me != d.away[side] or s.away_opp != d.away[side ^ 1] or s.crawford != d.crawford:
        return -1
    if s.owner == CUBE_MINE:
        owner = 1 + side
    elif s.owner == CUBE_THEIRS:
        owner = 2 - side
    if s.value == v and owner == d.owner[0]:
        return 0
    while v < s.value:
        v *= 2
        level += 1
    if v != s.value or level == 0 or owner == 0:
        return -1
    st = 1 + 2 * (level - 1) + owner - 1
    return st if st < d.n_states else -1


cdef inline bint mdp_region_pair(const _MDP* d, const Board* b, int side, int64_t* mine,
                                 int64_t* theirs) noexcept nogil:
    """The region's positions of the side on roll (`side`) and of its opponent, if both
    are inside the region (a prefix of the database's indices) with checkers left."""
    cdef int64_t i = bo_index(b.c[0], 6), j = bo_index(b.c[1], 6)
    if bo_checkers_on(b.c[0], 6) <= 0 or bo_checkers_on(b.c[1], 6) <= 0:
        return False
    if i >= d.side[side].n or j >= d.side[side ^ 1].n:
        return False
    mine[0] = i
    theirs[0] = j
    return True


cdef bint mdp_region_analysis(const _MDP* d, const Board* b, int side, const CubeState* s,
                              const BearoffDB* db, CubeAnalysis* out) noexcept nogil:
    """The exact cube analysis of `b` (row 0, player `side`, on roll) from the solved
    region, and True; False when the region does not hold it."""
    cdef int64_t i, j
    cdef int st = mdp_state_of(d, side, s), up
    cdef double nd[MDP_MAX_STATES]
    cdef CubeSolve m
    if st < 0 or not mdp_region_pair(d, b, side, &i, &j):
        return False
    _mdp_no_double(d, side, i, j, nd)
    up = d.doubled[side][st]
    m.nd = nd[st]
    m.dt = nd[up] if up >= 0 else nd[st]
    m.dp = _mdp_win(d, side, d.value[st])
    m.can_double = up >= 0
    m.win = bearoff2_win(db, b)
    cube_analysis_from_solve(&m, s, out)
    return True


cdef inline double mdp_region_acting(const _MDP* d, const Board* b, int side,
                                     const CubeState* s) noexcept nogil:
    """The value (MWC) of the side on roll after its own proper cube action, from the
    region; -1 when the region does not hold it."""
    cdef int64_t i, j
    cdef int st = mdp_state_of(d, side, s)
    if st < 0 or not mdp_region_pair(d, b, side, &i, &j):
        return -1.0
    return d.acting[side][(i * d.side[side ^ 1].n + j) * d.n_states + st]


cdef int mdp_region_choose(const _MDP* d, const MoveGen* g, int n, int side,
                           const CubeState* cube) noexcept nogil:
    """Index in g.out[0:n] of the play with the best exact MWC for the mover (the game's
    player `side`, whose cube is `cube`) when the region holds every result, else -1:
    cubeful checker play by the solve (each result faces the opponent's proper cube
    action, or wins the game)."""
    cdef int st = mdp_state_of(d, side, cube), i, best = -1, mult
    cdef int64_t mine, theirs
    cdef double v, best_v = -1e300
    cdef const Board* r
    if st < 0:
        return -1
    for i in range(n):
        r = &g.out[i]
        theirs = bo_index(r.c[1], 6)
        if theirs >= d.side[side ^ 1].n or bo_checkers_on(r.c[1], 6) <= 0:
            return -1
        if r.c[0][0] == 15:
            mult = 2 if d.side[side ^ 1].checkers[theirs] == 15 else 1
            v = _mdp_win(d, side, mult * d.value[st])
        else:
            mine = bo_index(r.c[0], 6)
            if mine >= d.side[side].n or bo_checkers_on(r.c[0], 6) <= 0:
                return -1
            v = d.total - d.acting[side ^ 1][(theirs * d.side[side].n + mine) * d.n_states + st]
        if v > best_v:
            best_v = v
            best = i
    return best
