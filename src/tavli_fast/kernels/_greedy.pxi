# "greedy": a hand-made one-ply heuristic evaluation (included by _core.pyx).
#
# _greedy(b) scores the position b AFTER a move for the side that has just
# moved (row 0, "me"; row 1 = the opponent, who rolls next; sides not
# switched).  Higher is better for me.  The score is in rough pip units.
# It is our own design; it needs no parity with any other program.
#
# Contact positions (some checker still has to pass an enemy checker):
#   + (opponent pips - my pips)   a hit puts the opponent's checker back to
#                                 the bar: the further it had come, the more
#                                 pips it costs him (the pip count weighs the
#                                 hit by how far the hit checker had come);
#   + 4 per opponent checker on the bar (the tempo of a hit);
#   + a value per made point (>= 2 of my checkers), by point: the home board
#     and the 4..9 "prime" region most (5-point 8, 6-point 7, 4- and 7-points
#     6, ...), anchors in the opponent's home board (his 5-point, my 20,
#     the best: 6) and little elsewhere;
#   + a prime bonus for 3+ consecutive made points on my points 2..12 while
#     the opponent still has a checker back (on the bar or in my home board /
#     bar point region): 2, 5, 9, 14 for lengths 3, 4, 5, 6+;
#   - for each blot (single checker of mine on points 1..24): the chance of
#     being hit times what it costs, shots / 36 * (1.5 + 0.35 * (25 - p)) *
#     (1 + 0.15 * opponent's made home-board points), 25 - p being the pips
#     the blot loses when hit.  shots = number of the 36 rolls
#     that reach the blot from an opponent checker (or his bar) 1..12 pips
#     behind it, by one die, both dice, or a double's 3rd/4th step (blocks on
#     the way are ignored), so a direct shot (1..6 pips away, 11..17 rolls)
#     weighs far more than an indirect one (7..12 pips away, 1..6 rolls), and
#     a blot in my home board (larger 25 - p) costs more than one far back;
#   - 1 per checker beyond 3 on one point (stacking);
#   + 3 per checker of mine borne off.
#   The weights were set by hand and then the blot cost was tuned in a few
#   thousand-game matches against pubeval: with the heavier blot cost
#   4 + (25 - p) greedy won ~38% of its games against pubeval, with this one
#   ~43% (3000 games, +-0.9%).
# Races (no contact):
#   + 30 per checker borne off (dominant: bear off as many as possible),
#   - my pip count (with the same dice, fewer pips = less wastage),
#   - 0.4 per checker per home-board boundary it still has to cross
#     (bring checkers home first), - 0.5 per checker beyond 3 on a point of
#     my home board and - 0.5 per empty point of 4, 5, 6 while I still have
#     at least 6 checkers on the board (spread, avoid gaps).
# All 15 of my checkers off: GREEDY_WIN (1e6), better than anything else.
#
# The shot table (4096 entries, one per set of distances 1..12) is built at
# import; one evaluation is two passes over the 24 points and a table lookup
# per blot, no allocation.

from libc.stdint cimport int8_t, uint8_t, uint32_t

cdef double GREEDY_WIN = 1.0e6

# Value of a made point (>= 2 checkers) by my point number 1..24.
cdef double _GREEDY_POINT[25]
_GREEDY_POINT[:] = [
    0.0,
    2.0, 3.0, 4.0, 6.0, 8.0, 7.0,          # home board 1..6
    6.0, 4.0, 3.0, 2.0, 1.5, 1.0,          # bar point 7, outfield 8..12
    1.0, 1.0, 1.0, 1.0, 1.0, 2.0,          # 13..17, 18 = his bar point
    3.0, 6.0, 5.0, 3.0, 2.0, 1.5,          # anchors: his 6, 5, 4, 3, 2, 1-points
]

# Bonus by length of the longest run of made points among my points 2..12.
cdef double _GREEDY_PRIME[12]
_GREEDY_PRIME[:] = [0.0, 0.0, 0.0, 2.0, 5.0, 9.0, 14.0, 14.0, 14.0, 14.0, 14.0, 14.0]

# _GREEDY_SHOTS[m]: rolls (of 36) hitting a blot that has opponent checkers
# at the distances d whose bit d - 1 is set in m (d = 1..12).
cdef uint8_t _GREEDY_SHOTS[4096]


cdef void _greedy_build_tables() noexcept:
    cdef int m, a, c, count
    cdef bint hit
    for m in range(4096):
        count = 0
        for a in range(1, 7):
            for c in range(1, 7):
                hit = (m >> (a - 1)) & 1 or (m >> (c - 1)) & 1 or (m >> (a + c - 1)) & 1
                if a == c and not hit:
                    hit = (3 * a <= 12 and (m >> (3 * a - 1)) & 1) or \
                          (4 * a <= 12 and (m >> (4 * a - 1)) & 1)
                if hit:
                    count += 1
        _GREEDY_SHOTS[m] = count


_greedy_build_tables()


cdef inline double _greedy_race(const Board* b, int my_pips) noexcept nogil:
    cdef int p, n, left
    cdef double s = 30.0 * b.c[0][OFF] - my_pips
    left = 15 - b.c[0][OFF]
    for p in range(7, 25):
        n = b.c[0][p]
        if n:
            s -= 0.4 * n * ((p - 1) // 6)
    for p in range(1, 7):
        n = b.c[0][p]
        if n > 3:
            s -= 0.5 * (n - 3)
        elif n == 0 and p >= 4 and left >= 6:
            s -= 0.5
    return s


cdef extern from *:
    """
    static inline int tavli_greedy_ctz(unsigned int x) { return __builtin_ctz(x); }
    static inline int tavli_greedy_top(unsigned int x) { return x ? 32 - __builtin_clz(x) : 0; }
    """
    int tavli_greedy_ctz(unsigned int x) nogil     # x != 0
    int tavli_greedy_top(unsigned int x) nogil     # index + 1 of the highest set bit, 0 if none


cdef inline double _greedy(const Board* b) noexcept nogil:
    """Heuristic score of b (after a move) for row 0, the side that just moved."""
    cdef int p, q, n
    cdef int my_pips = 0, opp_pips = 0, opp_home = 0, stacked = 0
    cdef int my_back, opp_back
    cdef uint32_t opp_occ = 0          # bit q - 1: opponent on his point q (25 = bar)
    cdef uint32_t my_occ = 0           # bit p - 1: me on my point p (25 = bar)
    cdef uint32_t made = 0             # bit p: my point p made
    cdef uint32_t blot = 0             # bit p: a single checker of mine on point p
    cdef uint32_t run
    cdef int length
    cdef double s, blots = 0.0, points = 0.0

    if b.c[0][OFF] >= 15:
        return GREEDY_WIN

    # Branch-free passes: counts -> pips and bit masks.
    for q in range(1, 26):
        n = b.c[1][q]
        opp_pips += q * n
        opp_occ |= (<uint32_t>(n != 0)) << (q - 1)
    for q in range(1, 7):
        opp_home += b.c[1][q] >= 2
    for p in range(1, 26):
        n = b.c[0][p]
        my_pips += p * n
        my_occ |= (<uint32_t>(n != 0)) << (p - 1)
    opp_back = tavli_greedy_top(opp_occ)
    my_back = tavli_greedy_top(my_occ)

    # Same contact test as pubeval (and gnubg's ClassifyPosition).
    if my_back == 0 or opp_back == 0 or my_back + opp_back <= 24:
        return _greedy_race(b, my_pips)

    for p in range(1, 25):
        n = b.c[0][p]
        made |= (<uint32_t>(n >= 2)) << p
        blot |= (<uint32_t>(n == 1)) << p
        stacked += (n - 3) if n > 3 else 0
    run = made
    while run:
        p = tavli_greedy_ctz(run)
        points += _GREEDY_POINT[p]
        run &= run - 1
    run = blot
    while run:
        p = tavli_greedy_ctz(run)
        # distances 1..12 behind p at which the opponent has a checker
        blots += _GREEDY_SHOTS[(opp_occ >> (25 - p)) & 0xFFF] * (1.5 + 0.35 * (25 - p))
        run &= run - 1

    s = ((opp_pips - my_pips) + 4.0 * b.c[1][BAR] + 3.0 * b.c[0][OFF]
         + points - stacked - blots * (1.0 + 0.15 * opp_home) / 36.0)

    # Prime on my points 2..12, worth something while he still has a checker
    # on the bar or on my points 1..7 (his points 18..25).
    if opp_back >= 18:
        run = made & 0x1FFC
        length = 0
        while run:
            run &= run >> 1
            length += 1
        s += _GREEDY_PRIME[length]
    return s


def greedy_score(const int8_t[:, ::1] board):
    """Heuristic ("greedy" player) score of a position after a move.

    board: int8 array (2, 26); row 0 = the side that has just moved (the score
    is for that side), row 1 = the opponent, sides NOT switched.  Higher is
    better for row 0; 1e6 when all 15 of row 0's checkers are off.
    """
    cdef Board b
    _evaluators_load_board(board, &b)
    return _greedy(&b)


def _greedy_shots(distances):
    """Rolls (of 36) that hit a blot from opponent checkers at the given
    distances 1..12 (blocks ignored): the table behind the blot penalty,
    exposed for tests."""
    cdef int m = 0
    for d in distances:
        if not 1 <= d <= 12:
            raise ValueError(f"a distance is 1..12, not {d}")
        m |= 1 << (d - 1)
    return _GREEDY_SHOTS[m]
