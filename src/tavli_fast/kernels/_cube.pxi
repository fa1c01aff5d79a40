# The doubling cube at 0-ply (rules R21-R25): cubeful equities, the proper cube action, and
# the cube decisions players make in games.  The model is the one ../shared/CUBE.md states
# (GNU Backgammon 1.08's): Janowski's live/dead cube interpolation with a cube efficiency x
# by position class for money play, and Thyssen's generalisation to match play over a match
# equity table.  Included by _core.pyx after _neural.pxi; cube.py is its Python face.
#
# Everything is seen by the side on roll, before it rolls.  Probabilities p[0..4] are
# P(win), P(win gammon), P(win backgammon), P(lose gammon), P(lose backgammon), gammons
# including backgammons (the neural net's outputs).  Equities are per unit of the current
# cube; match winning chances (MWC) are the side on roll's.

from libc.math cimport fabs

cdef enum:  # who owns the cube, seen by the side on roll
    CUBE_CENTRE = 0
    CUBE_MINE = 1
    CUBE_THEIRS = 2

cdef enum:  # the proper cube action (cube.py words it, gnubg's sentences)
    ACT_NO_DOUBLE_TAKE = 0
    ACT_DOUBLE_TAKE = 1
    ACT_DOUBLE_PASS = 2
    ACT_TOO_GOOD_PASS = 3
    ACT_TOO_GOOD_TAKE = 4
    ACT_OPTIONAL_DOUBLE_TAKE = 5
    ACT_OPTIONAL_DOUBLE_PASS = 6
    ACT_NO_DOUBLE_BEAVER = 7
    ACT_DOUBLE_BEAVER = 8
    ACT_CANNOT_DOUBLE = 9

cdef enum:
    CUBE_MAX_LEVELS = 16        # cube levels of the cash-point recursion (2**16 > any away)

cdef double CUBE_OPTIONAL_EPS = 1e-5   # "optional": equities this close are equal
# The cubeful bear-off database is solved for an unlimited cube.  With the R23 maximum it
# is used where at least this many doublings remain (cube 1 or 2 at the maximum 64): the
# capped game's exact ND and DT differ from it by at most 1.3e-4 and 1.7e-3 there (all
# 25M pairs of the 9-checker database; docs/cube.md).  Closer to the maximum, the model.
cdef int CUBE_EXACT_DOUBLINGS = 5
cdef double CUBE_X_CONTACT = 0.76      # cube efficiency of contact (and crashed) positions
cdef double CUBE_X_BEAROFF = 0.6       # both sides bearing off
cdef double CUBE_X_RACE_MIN = 0.6      # race: 0.6 + 0.0025 pips, within [0.6, 0.8]
cdef double CUBE_X_RACE_MAX = 0.8
cdef double CUBE_X_RACE_SLOPE = 0.0025


ctypedef struct MatchTable:
    int n                       # the longest away count it holds
    const double* pre           # pre[(a - 1) * n + (b - 1)]: MWC of a-away against b-away
    const double* post          # post[b - 1]: MWC of the b-away trailer after the Crawford game

ctypedef struct CubeState:
    int value                   # the cube's value c (1, 2, 4, ...)
    int owner                   # CUBE_CENTRE / CUBE_MINE / CUBE_THEIRS
    int max_value               # R23: no double above this value
    bint jacoby                 # money: gammons count only once the cube has been turned
    bint beaver                 # money: the taker may redouble at once, keeping the cube
    int away_me                 # points the side on roll needs; 0 in money play
    int away_opp
    bint crawford               # this game is the Crawford game (no cube)
    const MatchTable* met       # match play only

ctypedef struct CubeAnalysis:
    double cubeless             # money: cubeless equity; match: normalised (gammon prices)
    double nd, dt, dp           # cubeful equities per unit of the current cube
    double mwc_nd, mwc_dt, mwc_dp   # match play only
    double x                    # the cube efficiency used (0 when exact)
    int action                  # ACT_*
    bint can_double
    bint exact                  # from the cubeful bear-off database, not the model


# ---------------------------------------------------------------- match equities

cdef inline double met_mwc(const MatchTable* t, int away_me, int away_opp, bint post) noexcept nogil:
    """MWC of a player `away_me` from winning against `away_opp`; `post` reads the
    post-Crawford table where one side is 1-away (the Crawford game has been played)."""
    if away_me <= 0:
        return 1.0
    if away_opp <= 0:
        return 0.0
    if post and away_me == 1:
        return 1.0 - t.post[away_opp - 1]
    if post and away_opp == 1:
        return t.post[away_me - 1]
    return t.pre[(away_me - 1) * t.n + away_opp - 1]


cdef inline bint cube_is_match(const CubeState* s) noexcept nogil:
    return s.away_me > 0


cdef inline bint cube_after_crawford(const CubeState* s) noexcept nogil:
    """Scores after this game come from the post-Crawford table: someone is 1-away now
    (this is the Crawford game or a later one)."""
    return s.away_me == 1 or s.away_opp == 1


cdef inline double mwc_after(const CubeState* s, int points) noexcept nogil:
    """MWC of the side on roll once this game ends with it winning `points` (< 0: losing)."""
    if points >= 0:
        return met_mwc(s.met, s.away_me - points, s.away_opp, cube_after_crawford(s))
    return met_mwc(s.met, s.away_me, s.away_opp + points, cube_after_crawford(s))


# ---------------------------------------------------------------- who may double

cdef bint cube_can_double(const CubeState* s) noexcept nogil:
    """R22-R25: may the side on roll double now?"""
    if s.owner == CUBE_THEIRS or 2 * s.value > s.max_value:
        return False
    if cube_is_match(s):
        if s.crawford or s.away_me <= s.value:
            return False            # Crawford game; or a win of c already wins the match
        if s.away_me == 1:
            return False            # the post-Crawford leader
    return True


cdef inline bint cube_dead(const CubeState* s) noexcept nogil:
    """Match play: the cube can no longer change hands usefully."""
    if s.crawford:
        return True
    if s.away_me <= s.value and s.away_opp <= s.value:
        return True
    return s.away_me == 2 and s.away_opp == 2


# ---------------------------------------------------------------- cube efficiency

cdef double cube_efficiency(const Board* b) noexcept nogil:
    """x by position class (CUBE.md): contact 0.76, bear-off 0.6, race 0.6 + 0.0025 pips."""
    cdef int p, side, pips = 0
    cdef bint home = True
    if not board_race(b):
        return CUBE_X_CONTACT
    for side in range(2):
        for p in range(7, 26):
            if b.c[side][p]:
                home = False
    if home:
        return CUBE_X_BEAROFF
    for p in range(1, 26):
        pips += p * b.c[0][p]
    return min(CUBE_X_RACE_MAX, max(CUBE_X_RACE_MIN, CUBE_X_RACE_MIN + CUBE_X_RACE_SLOPE * pips))


# ---------------------------------------------------------------- money play

cdef inline double _ratio(double part, double whole) noexcept nogil:
    return part / whole if whole > 0.0 else 0.0


cdef double money_cubeful(const double* p, double x, int owner, bint jacoby_now) noexcept nogil:
    """Cubeful money equity per cube unit: (1 - x) dead + x live.  `jacoby_now`: the
    Jacoby rule is in force (centred cube), so gammons do not count."""
    cdef double win = p[0], k = 0.0 if jacoby_now else 1.0
    cdef double big_w = 1.0 + _ratio(p[1] + p[2], win)
    cdef double big_l = 1.0 + _ratio(p[3] + p[4], 1.0 - win)
    cdef double dead = 2.0 * win - 1.0 + k * (p[1] - p[3]) + k * (p[2] - p[4])
    cdef double tp = (big_l - 0.5) / (big_w + big_l + 0.5)
    cdef double cp = (big_l + 1.0) / (big_w + big_l + 0.5)
    cdef double low = -1.0 if jacoby_now else -big_l     # the outer pieces, flat under Jacoby
    cdef double high = 1.0 if jacoby_now else big_w
    cdef double live
    if owner == CUBE_CENTRE:
        if win < tp:
            live = low + (-1.0 - low) * win / tp
        elif win < cp:
            live = -1.0 + 2.0 * (win - tp) / (cp - tp)
        else:
            live = 1.0 + (high - 1.0) * (win - cp) / (1.0 - cp)
    elif owner == CUBE_MINE:
        if win < cp:
            live = -big_l + (1.0 + big_l) * win / cp
        else:
            live = 1.0 + (big_w - 1.0) * (win - cp) / (1.0 - cp)
    else:
        if win < tp:
            live = -big_l + (big_l - 1.0) * win / tp
        else:
            live = -1.0 + (big_w + 1.0) * (win - tp) / (1.0 - tp)
    return (1.0 - x) * dead + x * live


# ---------------------------------------------------------------- match play

ctypedef struct _Ratios:
    double g0, bg0              # the side on roll's wins: gammon (not bg), backgammon shares
    double g1, bg1              # the opponent's wins, the same


cdef inline void _ratios(const double* p, _Ratios* r) noexcept nogil:
    r.g0 = _ratio(p[1] - p[2], p[0])
    r.bg0 = _ratio(p[2], p[0])
    r.g1 = _ratio(p[3] - p[4], 1.0 - p[0])
    r.bg1 = _ratio(p[4], 1.0 - p[0])


cdef inline double _win_avg(const MatchTable* t, int a, int b, bint post, int c,
                            double g, double bg) noexcept nogil:
    """Gammon-weighted MWC of the a-away player winning c, 2c or 3c points against b-away."""
    return ((1.0 - g - bg) * met_mwc(t, a - c, b, post) + g * met_mwc(t, a - 2 * c, b, post)
            + bg * met_mwc(t, a - 3 * c, b, post))


cdef inline double _lose_avg(const MatchTable* t, int a, int b, bint post, int c,
                             double g, double bg) noexcept nogil:
    """Gammon-weighted MWC of the a-away player losing c, 2c or 3c points to b-away."""
    return ((1.0 - g - bg) * met_mwc(t, a, b - c, post) + g * met_mwc(t, a, b - 2 * c, post)
            + bg * met_mwc(t, a, b - 3 * c, post))


cdef void _cash_points(const CubeState* s, const _Ratios* r, double* cp_me, double* cp_opp) noexcept nogil:
    """Live cash points of both sides at the current cube (Thyssen's recursion): from the
    highest cube level both can still usefully reach, where the doubled cube would be dead,
    down to the current level.  cp[0] is the side on roll's, cp[1] the opponent's."""
    cdef const MatchTable* t = s.met
    cdef bint post = cube_after_crawford(s)
    cdef int a = s.away_me, b = s.away_opp, i = a - 1, j = b - 1
    cdef int n = 0, level = s.value, prime
    cdef double cp[2][CUBE_MAX_LEVELS]
    cdef double dp, dtw, dtl, rdp
    while i >= 2 * level and j >= 2 * level and n < CUBE_MAX_LEVELS - 1:
        level *= 2
        n += 1
    while n >= 0:
        if i < 2 * level or j < 2 * level:
            # Dead doubled cube.  A doubler close to the end against a far opponent
            # faces an immediate free redouble: the stake is then 2C' = 4C.
            prime = 2 * level if (i < 2 * level and j >= 2 * level) else level
            dp = met_mwc(t, a - level, b, post)
            dtw = _win_avg(t, a, b, post, 2 * prime, r.g0, r.bg0)
            dtl = _lose_avg(t, a, b, post, 2 * prime, r.g1, r.bg1)
            cp[0][n] = (dtl - dp) / (dtl - dtw)
            prime = 2 * level if (j < 2 * level and i >= 2 * level) else level
            dp = 1.0 - met_mwc(t, a, b - level, post)
            dtw = 1.0 - _lose_avg(t, a, b, post, 2 * prime, r.g1, r.bg1)
            dtl = 1.0 - _win_avg(t, a, b, post, 2 * prime, r.g0, r.bg0)
            cp[1][n] = (dtl - dp) / (dtl - dtw)
        else:
            # Live: I cash at the point where the opponent, redoubling from its own cash
            # point one level up, makes my take worth exactly my cash.
            dp = met_mwc(t, a - level, b, post)
            dtw = _win_avg(t, a, b, post, 2 * level, r.g0, r.bg0)
            rdp = met_mwc(t, a, b - 2 * level, post)
            cp[0][n] = 1.0 - cp[1][n + 1] * (dp - dtw) / (rdp - dtw)
            dp = 1.0 - met_mwc(t, a, b - level, post)
            dtw = 1.0 - _lose_avg(t, a, b, post, 2 * level, r.g1, r.bg1)
            rdp = 1.0 - met_mwc(t, a - 2 * level, b, post)
            cp[1][n] = 1.0 - cp[0][n + 1] * (dp - dtw) / (rdp - dtw)
        level //= 2
        n -= 1
    cp_me[0] = cp[0][0]
    cp_opp[0] = cp[1][0]


cdef void gammon_prices(const CubeState* s, double* prices) noexcept nogil:
    """The match prices of a gammon and a backgammon at the current cube, for the side on
    roll: prices[0] its gammon, [1] the opponent's, [2] its extra for a backgammon, [3] the
    opponent's (in units of a single game, so money play would be 1, 1, 1, 1)."""
    cdef const MatchTable* t = s.met
    cdef bint post = cube_after_crawford(s)
    cdef int a = s.away_me, b = s.away_opp, c = s.value
    cdef double win = met_mwc(t, a - c, b, post), lose = met_mwc(t, a, b - c, post)
    cdef double span = win - lose
    prices[0] = max(0.0, 2.0 * (met_mwc(t, a - 2 * c, b, post) - win) / span)
    prices[1] = max(0.0, 2.0 * (lose - met_mwc(t, a, b - 2 * c, post)) / span)
    prices[2] = max(0.0, 2.0 * (met_mwc(t, a - 3 * c, b, post) - met_mwc(t, a - 2 * c, b, post)) / span)
    prices[3] = max(0.0, 2.0 * (met_mwc(t, a, b - 2 * c, post) - met_mwc(t, a, b - 3 * c, post)) / span)


cdef double match_cubeless(const double* p, const CubeState* s) noexcept nogil:
    """Normalised cubeless equity U at the current cube: gammons weighted by their prices."""
    cdef double prices[4]
    gammon_prices(s, prices)
    return (2.0 * p[0] - 1.0 + p[1] * prices[0] - p[3] * prices[1] + p[2] * prices[2]
            - p[4] * prices[3])


cdef double match_cubeful_mwc(const double* p, double x, const CubeState* s) noexcept nogil:
    """Cubeful MWC of the side on roll with the cube as `s` has it: (1 - x) dead + x live."""
    cdef const MatchTable* t = s.met
    cdef bint post = cube_after_crawford(s)
    cdef int a = s.away_me, b = s.away_opp, c = s.value
    cdef double win = met_mwc(t, a - c, b, post), lose = met_mwc(t, a, b - c, post)
    cdef double dead = ((win - lose) * match_cubeless(p, s) + (win + lose)) / 2.0
    cdef double live, cp_me, cp_opp, tg, opp_tg, win_avg, lose_avg
    cdef _Ratios r
    if cube_dead(s):
        return dead
    _ratios(p, &r)
    _cash_points(s, &r, &cp_me, &cp_opp)
    tg = cp_me
    opp_tg = 1.0 - cp_opp
    win_avg = _win_avg(t, a, b, post, c, r.g0, r.bg0)
    lose_avg = _lose_avg(t, a, b, post, c, r.g1, r.bg1)
    # Strict comparisons: a piece of zero width (a cash point at 0 or 1) is skipped.
    if s.owner != CUBE_MINE and p[0] < opp_tg:
        live = lose_avg + (lose - lose_avg) * p[0] / opp_tg
    elif s.owner == CUBE_CENTRE and p[0] < tg:
        live = lose + (win - lose) * (p[0] - opp_tg) / (tg - opp_tg)
    elif s.owner == CUBE_MINE and p[0] < tg:
        live = lose_avg + (win - lose_avg) * p[0] / tg
    elif s.owner == CUBE_THEIRS:
        live = (lose + (win_avg - lose) * (p[0] - opp_tg) / (1.0 - opp_tg)
                if opp_tg < 1.0 else win_avg)
    else:
        live = win + (win_avg - win) * (p[0] - tg) / (1.0 - tg) if tg < 1.0 else win_avg
    return (1.0 - x) * dead + x * live


# ---------------------------------------------------------------- the decision

cdef int cube_action(double nd, double dt, double dp, double win, double win_gammon,
                     bint can_double, bint beaver_money, bint jacoby_centred) noexcept nogil:
    """gnubg's proper cube action from the three cubeful equities (CUBE.md, "Decisions")."""
    cdef bint too_good_possible = win_gammon > 0.0
    if not can_double:
        return ACT_CANNOT_DOUBLE
    if dt >= nd and dp >= nd:
        if dp > dt:
            if beaver_money and -2.0 <= dt <= 0.0:
                return ACT_NO_DOUBLE_BEAVER if 2.0 * dt < nd else ACT_DOUBLE_BEAVER
            if fabs(dt - nd) <= CUBE_OPTIONAL_EPS:
                return ACT_OPTIONAL_DOUBLE_TAKE
            if win <= 0.0:
                return ACT_NO_DOUBLE_TAKE
            return ACT_DOUBLE_TAKE
        if fabs(nd - dp) <= CUBE_OPTIONAL_EPS and too_good_possible and not jacoby_centred:
            return ACT_OPTIONAL_DOUBLE_PASS
        return ACT_DOUBLE_PASS
    if nd > dt:
        if dt > dp and too_good_possible:
            return ACT_TOO_GOOD_PASS
        if nd > dp >= dt and too_good_possible:
            return ACT_TOO_GOOD_TAKE
        if beaver_money and -2.0 <= dt <= 0.0 and 2.0 * dt < nd:
            return ACT_NO_DOUBLE_BEAVER
        return ACT_NO_DOUBLE_TAKE
    # dt >= nd > dp
    return ACT_TOO_GOOD_PASS if too_good_possible else ACT_DOUBLE_PASS


cdef void cube_analyse(const double* p, double x, const CubeState* s, CubeAnalysis* out) noexcept nogil:
    """ND, DT, DP (and in a match their MWCs) and the proper action at 0-ply."""
    cdef CubeState doubled = s[0]
    cdef double win, lose, span
    doubled.value = 2 * s.value
    doubled.owner = CUBE_THEIRS
    out.x = x
    out.can_double = cube_can_double(s)
    out.dp = 1.0
    if cube_is_match(s):
        win = mwc_after(s, s.value)
        lose = mwc_after(s, -s.value)
        span = win - lose
        out.cubeless = match_cubeless(p, s)
        out.mwc_nd = match_cubeful_mwc(p, x, s)
        out.mwc_dt = match_cubeful_mwc(p, x, &doubled)
        out.mwc_dp = win
        out.nd = (2.0 * out.mwc_nd - (win + lose)) / span
        out.dt = (2.0 * out.mwc_dt - (win + lose)) / span
    else:
        out.cubeless = 2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4]
        out.nd = money_cubeful(p, x, s.owner, s.jacoby and s.owner == CUBE_CENTRE)
        out.dt = 2.0 * money_cubeful(p, x, CUBE_THEIRS, False)
        out.mwc_nd = out.mwc_dt = out.mwc_dp = 0.0
    out.exact = False
    out.action = cube_action(out.nd, out.dt, out.dp, p[0], p[1], out.can_double,
                             s.beaver and not cube_is_match(s),
                             s.jacoby and s.owner == CUBE_CENTRE and not cube_is_match(s))


cdef inline int cube_doublings_left(const CubeState* s) noexcept nogil:
    """How many more times the cube can be doubled before its maximum (R23)."""
    cdef int k = 0, v = s.value
    while 2 * v <= s.max_value:
        v *= 2
        k += 1
    return k


cdef bint cube_analyse_exact(const BearoffDB* db, const Board* b, const CubeState* s,
                             CubeAnalysis* out) noexcept nogil:
    """Money play in the cubeful two-sided bear-off database: ND, DT, DP and the action
    from its exact equities (perfect checker and cube play on both sides), and True.
    False, leaving `out` alone, in a match, outside the database, or with the cube
    between one and CUBE_EXACT_DOUBLINGS doublings below its maximum (the model's
    domain then).  No gammon is possible there, so the Jacoby rule changes nothing."""
    cdef double nd[CF_TABLES]
    cdef double win
    cdef int left
    if db == NULL or cube_is_match(s) or not bearoff2_cubeful(db, b, nd):
        return False
    left = cube_doublings_left(s)
    if 0 < left < CUBE_EXACT_DOUBLINGS:
        return False
    win = bearoff2_win(db, b)
    out.cubeless = 2.0 * win - 1.0
    out.x = 0.0
    out.exact = True
    out.can_double = cube_can_double(s)
    out.dp = 1.0
    out.mwc_nd = out.mwc_dt = out.mwc_dp = 0.0
    if left == 0:
        out.nd = out.cubeless           # the cube is dead at its maximum
        out.dt = out.nd
    else:
        out.nd = nd[CF_CENTRE if s.owner == CUBE_CENTRE else
                    (CF_OWN if s.owner == CUBE_MINE else CF_THEIRS)]
        out.dt = 2.0 * nd[CF_THEIRS]
    out.action = cube_action(out.nd, out.dt, out.dp, win, 0.0, out.can_double, s.beaver, False)
    return True
