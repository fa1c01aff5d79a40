# Move generation (rules R7-R18): every distinct position the player on roll
# can reach with a roll, searched depth-first over a bitboard view of the board.
#
# Bit p of a mask stands for the mover's point p (bit 25 = the bar).  The
# opponent's made points never change during my turn (a hit only removes a
# blot), so the `blocked` mask is computed once per roll; my occupancy mask is
# updated move by move.  Each node also carries an exact 128-bit key of the
# position it reached (my counts on points 1..25 in 4-bit fields, plus a bit per
# opposing blot hit), so duplicate plays are merged without any hash collision.

cdef extern from *:
    """
    static inline int tf_ctz(unsigned int x) { return __builtin_ctz(x); }
    static inline int tf_clz(unsigned int x) { return __builtin_clz(x); }
    static inline int tf_ctz64(unsigned long long x) { return x ? __builtin_ctzll(x) : 64; }
    static inline int tf_clz64(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
    static inline int tf_popcount64(unsigned long long x) { return __builtin_popcountll(x); }
    """
    int tf_ctz(unsigned int x) noexcept nogil
    int tf_clz(unsigned int x) noexcept nogil
    int tf_ctz64(unsigned long long x) noexcept nogil
    int tf_clz64(unsigned long long x) noexcept nogil
    int tf_popcount64(unsigned long long x) noexcept nogil

from libc.string cimport memset, memcpy

cdef enum:
    MAX_RESULTS = 8192          # distinct plays of one roll kept at most
    TABLE_BITS = 14
    TABLE_SIZE = 1 << TABLE_BITS
    OUTSIDE_HOME = 0x3FFFF80    # bits 7..25: checkers that forbid bearing off
    SCORE_BOTH = 100            # a non-double using both dice

ctypedef struct Node:
    Board b
    uint32_t mine
    uint64_t klo                # counts of points 1..16, 4 bits each
    uint64_t khi                # counts of points 17..25, then hit bits 36..59

ctypedef struct MoveGen:
    uint32_t blocked
    int best                    # best score seen: dice used, larger die preferred
    int n                       # distinct results kept at `best`
    int overflow
    uint32_t stamp
    Board root                  # the board the plays in `out` were generated from
    Board* out                  # where results go: `own`, or a caller's larger buffer
    Board own[MAX_RESULTS]
    uint32_t outmine[MAX_RESULTS]   # occupancy mask of row 0 of each result
    uint64_t tlo[TABLE_SIZE]
    uint64_t thi[TABLE_SIZE]
    uint32_t tstamp[TABLE_SIZE]


cdef inline void _key_add(uint64_t* klo, uint64_t* khi, int p, int delta) noexcept nogil:
    if p <= 16:
        if delta > 0:
            klo[0] += (<uint64_t>1) << (4 * (p - 1))
        else:
            klo[0] -= (<uint64_t>1) << (4 * (p - 1))
    else:
        if delta > 0:
            khi[0] += (<uint64_t>1) << (4 * (p - 17))
        else:
            khi[0] -= (<uint64_t>1) << (4 * (p - 17))


cdef inline void node_init(Node* n, const Board* b) noexcept nogil:
    cdef int p
    n.b = b[0]
    n.mine = 0
    n.klo = 0
    n.khi = 0
    for p in range(1, 26):
        if b.c[0][p]:
            n.mine |= (<uint32_t>1) << p
            if p <= 16:
                n.klo |= (<uint64_t>b.c[0][p]) << (4 * (p - 1))
            else:
                n.khi |= (<uint64_t>b.c[0][p]) << (4 * (p - 17))


cdef inline uint32_t blocked_mask(const Board* b) noexcept nogil:
    """My points 1..24 that the opponent has made (R4, R7)."""
    cdef uint32_t m = 0
    cdef int p
    for p in range(1, 25):
        if b.c[1][25 - p] >= 2:
            m |= (<uint32_t>1) << p
    return m


cdef inline uint32_t movable_from(const Node* n, uint32_t blocked, int d) noexcept nogil:
    """Points from which a checker can legally move `d` pips now (R7, R12, R14-R17)."""
    cdef uint32_t mine = n.mine
    cdef uint32_t bar = (<uint32_t>1) << 25
    if mine == 0:
        return 0
    if mine & bar:
        # R12: nothing moves while a checker is on the bar.
        if blocked & ((<uint32_t>1) << (25 - d)):
            return 0
        return bar
    # Ordinary moves: source s > d whose landing point s - d is open.
    cdef uint32_t src = mine & ~(blocked << d) & ~((((<uint32_t>1) << (d + 1)) - 1))
    cdef int high
    if (mine & OUTSIDE_HOME) == 0:
        # R15: bear off from point d exactly.
        src |= mine & ((<uint32_t>1) << d)
        # R16: with nothing on point d or above, the highest checker bears off.
        high = 31 - tf_clz(mine)
        if high < d:
            src |= (<uint32_t>1) << high
    return src


cdef inline void board_move(Board* b, int s, int d) noexcept nogil:
    """Move one of my checkers from point s (25 = bar) by d pips; it is legal."""
    cdef int t = s - d
    b.c[0][s] -= 1
    if t <= 0:
        b.c[0][0] += 1
        return
    if b.c[1][25 - t] == 1:
        # R11: a blot hit goes to the bar.
        b.c[1][25 - t] = 0
        b.c[1][25] += 1
    b.c[0][t] += 1


cdef inline uint32_t mine_after(const Node* n, int s, int d) noexcept nogil:
    """My occupancy mask after moving a checker from s by d."""
    cdef uint32_t m = n.mine
    if n.b.c[0][s] == 1:
        m &= ~((<uint32_t>1) << s)
    if s - d > 0:
        m |= (<uint32_t>1) << (s - d)
    return m


cdef inline void key_after(const Node* n, int s, int d, uint64_t* klo, uint64_t* khi) noexcept nogil:
    """The exact key of the position after moving a checker from s by d."""
    cdef int t = s - d
    klo[0] = n.klo
    khi[0] = n.khi
    _key_add(klo, khi, s, -1)
    if t > 0:
        _key_add(klo, khi, t, 1)
        if n.b.c[1][25 - t] == 1:
            khi[0] |= (<uint64_t>1) << (35 + t)


cdef inline void node_move(Node* n, int s, int d) noexcept nogil:
    key_after(n, s, d, &n.klo, &n.khi)
    n.mine = mine_after(n, s, d)
    board_move(&n.b, s, d)


cdef inline Board* gen_slot(MoveGen* g, uint64_t klo, uint64_t khi, int score) noexcept nogil:
    """Room for a new distinct play with this key and score, or NULL.

    NULL when the play uses fewer (or smaller) dice than one already found, or
    when the same position is already listed.  A higher score restarts the list.
    """
    cdef uint64_t h
    cdef uint32_t i
    if score < g.best:
        return NULL
    if score > g.best:
        g.best = score
        g.n = 0
        g.stamp += 1
        if g.stamp == 0:
            memset(g.tstamp, 0, sizeof(g.tstamp))
            g.stamp = 1
    h = (klo * <uint64_t>0x9E3779B97F4A7C15ULL) ^ (khi * <uint64_t>0xC2B2AE3D27D4EB4FULL)
    i = <uint32_t>(h >> (64 - TABLE_BITS))
    while g.tstamp[i] == g.stamp:
        if g.tlo[i] == klo and g.thi[i] == khi:
            return NULL
        i = (i + 1) & (TABLE_SIZE - 1)
    if g.n >= MAX_RESULTS:
        g.overflow = 1
        return NULL
    g.tstamp[i] = g.stamp
    g.tlo[i] = klo
    g.thi[i] = khi
    g.n += 1
    return &g.out[g.n - 1]


cdef inline void gen_record(MoveGen* g, const Node* n, int score) noexcept nogil:
    cdef Board* slot = gen_slot(g, n.klo, n.khi, score)
    if slot != NULL:
        slot[0] = n.b
        g.outmine[g.n - 1] = n.mine


cdef inline void gen_record_move(MoveGen* g, const Node* n, int s, int d, int score) noexcept nogil:
    """Record the play that ends with one more move, building its board only if it is new."""
    cdef uint64_t klo, khi
    key_after(n, s, d, &klo, &khi)
    cdef Board* slot = gen_slot(g, klo, khi, score)
    if slot != NULL:
        slot[0] = n.b
        board_move(slot, s, d)
        g.outmine[g.n - 1] = mine_after(n, s, d)


cdef void _search_double(MoveGen* g, const Node* n, int d, int used, int max_src) noexcept nogil:
    # Sources never rise within a double: every play has such an ordering
    # (moving the higher checkers first never makes a later move illegal), so
    # each multiset of moves is tried once instead of up to 24 times.
    cdef uint32_t src
    cdef int s
    cdef Node child
    if used == 4:
        gen_record(g, n, 4)
        return
    src = movable_from(n, g.blocked, d) & ((((<uint32_t>1) << max_src) << 1) - 1)
    if src == 0:
        gen_record(g, n, used)
        return
    while src:
        s = 31 - tf_clz(src)
        src &= ~((<uint32_t>1) << s)
        if used == 3:
            gen_record_move(g, n, s, d, 4)
            continue
        child = n[0]
        node_move(&child, s, d)
        _search_double(g, &child, d, used + 1, s)


cdef void _search_pair(MoveGen* g, const Node* n, int first, int second) noexcept nogil:
    # Plays `first` then `second`; the caller tries both orders.
    cdef uint32_t src = movable_from(n, g.blocked, first)
    cdef uint32_t src2
    cdef int s, s2
    cdef Node child
    if src == 0:
        gen_record(g, n, 0)
        return
    while src:
        s = 31 - tf_clz(src)
        src &= ~((<uint32_t>1) << s)
        child = n[0]
        node_move(&child, s, first)
        src2 = movable_from(&child, g.blocked, second)
        if src2 == 0:
            # R10: one die only; the larger one wins when both are possible.
            gen_record(g, &child, 10 + first)
            continue
        while src2:
            s2 = 31 - tf_clz(src2)
            src2 &= ~((<uint32_t>1) << s2)
            gen_record_move(g, &child, s2, second, SCORE_BOTH)


cdef int generate_plays(MoveGen* g, const Board* b, int d1, int d2) noexcept nogil:
    """Fill g.out with the distinct positions reachable with (d1, d2); return how many.

    Sides are not switched.  When nothing can be played the single result is
    the unchanged board (R10, R13: the turn is lost).  Returns -1 on overflow.
    """
    cdef Node root
    node_init(&root, b)
    g.root = b[0]
    g.blocked = blocked_mask(b)
    g.best = -1
    g.n = 0
    g.overflow = 0
    if d1 == d2:
        _search_double(g, &root, d1, 0, 25)
    else:
        _search_pair(g, &root, d1, d2)
        _search_pair(g, &root, d2, d1)
    if g.overflow:
        return -1
    return g.n
