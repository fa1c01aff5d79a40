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
    #include <string.h>
    static inline int tf_ctz(unsigned int x) { return __builtin_ctz(x); }
    static inline int tf_clz(unsigned int x) { return __builtin_clz(x); }
    static inline int tf_ctz64(unsigned long long x) { return x ? __builtin_ctzll(x) : 64; }
    static inline int tf_clz64(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
    static inline int tf_popcount64(unsigned long long x) { return __builtin_popcountll(x); }

    /* A play's key: my counts on points 1..16 in `lo`, 4 bits each; points 17..25 in `hi`,
       then a bit per opposing blot hit (bits 36..59).  KEY_LO[p] / KEY_HI[p] is one checker
       on point p (0 for p = 0, borne off), so a move is two additions, without a branch. */
    #define TF_U(k) (1ULL << (4 * (k)))
    static const uint64_t TF_KEY_LO[26] = {0, TF_U(0), TF_U(1), TF_U(2), TF_U(3), TF_U(4),
        TF_U(5), TF_U(6), TF_U(7), TF_U(8), TF_U(9), TF_U(10), TF_U(11), TF_U(12), TF_U(13),
        TF_U(14), TF_U(15), 0, 0, 0, 0, 0, 0, 0, 0, 0};
    static const uint64_t TF_KEY_HI[26] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        TF_U(0), TF_U(1), TF_U(2), TF_U(3), TF_U(4), TF_U(5), TF_U(6), TF_U(7), TF_U(8)};
    #undef TF_U
    /* the key of a result kept out of the table (no board has 15 checkers on every point) */
    #define TF_NO_KEY 0xFFFFFFFFFFFFFFFFULL

    /* The masks and key of a board row, eight points at a time on a little-endian machine
       (counts are 0..15, so a byte never carries into the next); plain loops elsewhere. */
    #if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    #define TF_ONES 0x0101010101010101ULL
    static inline uint64_t tf_load8(const int8_t* p) { uint64_t x; memcpy(&x, p, 8); return x; }
    /* bit i set when byte i of x is at least k (1 or 2) */
    static inline uint32_t tf_at_least(uint64_t x, uint64_t k) {
        uint64_t h = ((x + (0x80 - k) * TF_ONES) >> 7) & TF_ONES;
        return (uint32_t)((h * 0x0102040810204080ULL) >> 56);
    }
    /* bytes 0..7 of x (each below 16) as the 4-bit fields 0..7 */
    static inline uint64_t tf_nibbles(uint64_t x) {
        x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
        x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
        return (x | (x >> 16)) & 0xFFFFFFFFULL;
    }
    static inline void tf_row_key(const int8_t* row, uint32_t* mine, uint64_t* lo, uint64_t* hi) {
        uint64_t a = tf_load8(row + 1), b = tf_load8(row + 9), c = tf_load8(row + 17);
        *mine = (tf_at_least(a, 1) << 1) | (tf_at_least(b, 1) << 9) | (tf_at_least(c, 1) << 17)
                | ((uint32_t)(row[25] != 0) << 25);
        *lo = tf_nibbles(a) | (tf_nibbles(b) << 32);
        *hi = tf_nibbles(c) | ((uint64_t)row[25] << 32);
    }
    /* my checkers on points 7..25 (bar included): those that forbid bearing off */
    static inline int tf_outside(const int8_t* row) {
        return (int)(((tf_load8(row + 7) + tf_load8(row + 15)) * TF_ONES) >> 56)
               + row[23] + row[24] + row[25];
    }
    /* my points 1..24 where the opponent (row `opp`, its own numbering) has 2+ checkers
       (`blocked`) and exactly one (`blots`) */
    static inline void tf_opp_masks(const int8_t* opp, uint32_t* blocked, uint32_t* blots) {
        uint64_t a = __builtin_bswap64(tf_load8(opp + 17));    /* my points 1..8 */
        uint64_t b = __builtin_bswap64(tf_load8(opp + 9));     /* 9..16 */
        uint64_t c = __builtin_bswap64(tf_load8(opp + 1));     /* 17..24 */
        uint32_t two = (tf_at_least(a, 2) << 1) | (tf_at_least(b, 2) << 9) | (tf_at_least(c, 2) << 17);
        uint32_t one = (tf_at_least(a, 1) << 1) | (tf_at_least(b, 1) << 9) | (tf_at_least(c, 1) << 17);
        *blocked = two;
        *blots = one & ~two;
    }
    #else
    static inline void tf_row_key(const int8_t* row, uint32_t* mine, uint64_t* lo, uint64_t* hi) {
        int p;
        *mine = 0; *lo = 0; *hi = 0;
        for (p = 1; p <= 25; p++) {
            if (row[p]) *mine |= 1u << p;
            *lo += (uint64_t)row[p] * TF_KEY_LO[p];
            *hi += (uint64_t)row[p] * TF_KEY_HI[p];
        }
    }
    static inline int tf_outside(const int8_t* row) {
        int p, k = 0;
        for (p = 7; p <= 25; p++) k += row[p];
        return k;
    }
    static inline void tf_opp_masks(const int8_t* opp, uint32_t* blocked, uint32_t* blots) {
        int p;
        *blocked = 0; *blots = 0;
        for (p = 1; p <= 24; p++) {
            if (opp[25 - p] >= 2) *blocked |= 1u << p;
            else if (opp[25 - p] == 1) *blots |= 1u << p;
        }
    }
    #endif
    """
    int tf_ctz(unsigned int x) noexcept nogil
    int tf_clz(unsigned int x) noexcept nogil
    int tf_ctz64(unsigned long long x) noexcept nogil
    int tf_clz64(unsigned long long x) noexcept nogil
    int tf_popcount64(unsigned long long x) noexcept nogil
    const uint64_t* TF_KEY_LO
    const uint64_t* TF_KEY_HI
    const uint64_t TF_NO_KEY
    void tf_row_key(const int8_t* row, uint32_t* mine, uint64_t* lo, uint64_t* hi) noexcept nogil
    void tf_opp_masks(const int8_t* opp, uint32_t* blocked, uint32_t* blots) noexcept nogil
    int tf_outside(const int8_t* row) noexcept nogil

from libc.string cimport memset, memcpy
from libc.stdint cimport uint16_t

cdef enum:
    MAX_RESULTS = 8192          # distinct plays of one roll kept at most
    TABLE_BITS = 14             # the largest duplicate table: 2 x MAX_RESULTS slots
    TABLE_SIZE = 1 << TABLE_BITS
    TABLE_MIN_BITS = 6          # a roll's table starts at 64 slots (128 bytes: cleared per roll)
    OUTSIDE_HOME = 0x3FFFF80    # bits 7..25: checkers that forbid bearing off
    SCORE_BOTH = 100            # a non-double using both dice


ctypedef struct Node:
    Board b
    uint32_t mine
    uint64_t klo                # counts of points 1..16, 4 bits each
    uint64_t khi                # counts of points 17..25, then hit bits 36..59

ctypedef struct MoveGen:
    uint32_t blocked            # my points the opponent has made (R4, R7)
    uint32_t blots              # my points holding one opposing checker
    int best                    # best score seen: dice used, larger die preferred
    int n                       # distinct results kept at `best`
    int overflow
    int tbits                   # the duplicate table's size now: 1 << tbits slots
    int nkeyed                  # results in the table
    Board root                  # the board the plays in `out` were generated from
    Board* out                  # where results go: `own`, or a caller's larger buffer
    Board own[MAX_RESULTS]
    uint32_t outmine[MAX_RESULTS]   # occupancy mask of row 0 of each result
    uint64_t rlo[MAX_RESULTS]   # each result's key (rlo TF_NO_KEY: not in the table)
    uint64_t rhi[MAX_RESULTS]
    # Open addressing over the results' keys: 1 + the index of a result, 0 for empty.  Small
    # enough to stay in the L1 cache for ordinary rolls; it doubles as a roll's results grow.
    uint16_t slots[TABLE_SIZE]


cdef inline void _key_add(uint64_t* klo, uint64_t* khi, int p, int delta) noexcept nogil:
    if delta > 0:
        klo[0] += TF_KEY_LO[p]
        khi[0] += TF_KEY_HI[p]
    else:
        klo[0] -= TF_KEY_LO[p]
        khi[0] -= TF_KEY_HI[p]


cdef inline void node_init(Node* n, const Board* b) noexcept nogil:
    n.b = b[0]
    tf_row_key(&b.c[0][0], &n.mine, &n.klo, &n.khi)


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
    if t < 0:
        t = 0
    klo[0] = n.klo - TF_KEY_LO[s] + TF_KEY_LO[t]
    khi[0] = n.khi - TF_KEY_HI[s] + TF_KEY_HI[t]
    if t > 0 and n.b.c[1][25 - t] == 1:
        khi[0] |= (<uint64_t>1) << (35 + t)


cdef inline void node_move(Node* n, int s, int d) noexcept nogil:
    key_after(n, s, d, &n.klo, &n.khi)
    n.mine = mine_after(n, s, d)
    board_move(&n.b, s, d)


cdef inline uint32_t _table_home(uint64_t klo, uint64_t khi, int tbits) noexcept nogil:
    cdef uint64_t h = (klo * <uint64_t>0x9E3779B97F4A7C15ULL) ^ (khi * <uint64_t>0xC2B2AE3D27D4EB4FULL)
    return <uint32_t>(h >> (64 - tbits))


cdef inline int _table_find(const MoveGen* g, uint64_t klo, uint64_t khi) noexcept nogil:
    """The empty slot where this key goes, or -1 when a result with it is already listed."""
    cdef uint32_t mask = ((<uint32_t>1) << g.tbits) - 1
    cdef uint32_t i = _table_home(klo, khi, g.tbits)
    cdef int j
    while g.slots[i]:
        j = g.slots[i] - 1
        if g.rlo[j] == klo and g.rhi[j] == khi:
            return -1
        i = (i + 1) & mask
    return <int>i


cdef inline void _table_grow(MoveGen* g) noexcept nogil:
    cdef int j, i
    g.tbits += 1
    memset(g.slots, 0, sizeof(uint16_t) << g.tbits)
    for j in range(g.n):
        if g.rlo[j] != TF_NO_KEY:
            i = _table_find(g, g.rlo[j], g.rhi[j])
            g.slots[i] = <uint16_t>(j + 1)


cdef inline bint _gen_score(MoveGen* g, int score) noexcept nogil:
    """False when a play of this score is not kept; a higher score restarts the list (R10)."""
    if score < g.best:
        return False
    if score > g.best:
        g.best = score
        g.n = 0
        g.nkeyed = 0
        g.tbits = TABLE_MIN_BITS
        memset(g.slots, 0, sizeof(uint16_t) << TABLE_MIN_BITS)
    if g.n >= MAX_RESULTS:
        g.overflow = 1
        return False
    return True


cdef inline Board* gen_slot(MoveGen* g, uint64_t klo, uint64_t khi, int score) noexcept nogil:
    """Room for a new distinct play with this key and score, or NULL.

    NULL when the play uses fewer (or smaller) dice than one already found, or
    when the same position is already listed.  A higher score restarts the list.
    """
    cdef int i
    if not _gen_score(g, score):
        return NULL
    i = _table_find(g, klo, khi)
    if i < 0:
        return NULL
    if 2 * (g.nkeyed + 1) > (1 << g.tbits):
        _table_grow(g)
        i = _table_find(g, klo, khi)
    g.slots[i] = <uint16_t>(g.n + 1)
    g.rlo[g.n] = klo
    g.rhi[g.n] = khi
    g.nkeyed += 1
    g.n += 1
    return &g.out[g.n - 1]


cdef inline Board* gen_slot_unique(MoveGen* g, int score) noexcept nogil:
    """gen_slot for a play known to differ from every other (see _search_double)."""
    if not _gen_score(g, score):
        return NULL
    g.rlo[g.n] = TF_NO_KEY
    g.n += 1
    return &g.out[g.n - 1]


cdef inline void gen_record(MoveGen* g, const Node* n, int score) noexcept nogil:
    cdef Board* slot = gen_slot(g, n.klo, n.khi, score)
    if slot != NULL:
        slot[0] = n.b


cdef inline void gen_record_move(MoveGen* g, const Node* n, int s, int d, int score) noexcept nogil:
    """Record the play that ends with one more move, building its board only if it is new."""
    cdef uint64_t klo, khi
    if score < g.best:
        return
    key_after(n, s, d, &klo, &khi)
    cdef Board* slot = gen_slot(g, klo, khi, score)
    if slot != NULL:
        slot[0] = n.b
        board_move(slot, s, d)


cdef inline void double_record(MoveGen* g, const Node* n, int score, bint keyed) noexcept nogil:
    # Within a double, plays that bear nothing off are distinct (see _search_double).
    cdef Board* slot
    if keyed and n.b.c[0][0] != g.root.c[0][0]:
        gen_record(g, n, score)
        return
    slot = gen_slot_unique(g, score)
    if slot != NULL:
        slot[0] = n.b


cdef inline void double_record_move(MoveGen* g, const Node* n, int s, int d, int score,
                                    bint keyed) noexcept nogil:
    cdef Board* slot
    if keyed and (s - d <= 0 or n.b.c[0][0] != g.root.c[0][0]):
        gen_record_move(g, n, s, d, score)
        return
    slot = gen_slot_unique(g, score)
    if slot != NULL:
        slot[0] = n.b
        board_move(slot, s, d)


cdef void _search_double(MoveGen* g, const Node* n, int d, int used, int max_src,
                         bint keyed) noexcept nogil:
    # Sources never rise within a double: every play has such an ordering
    # (moving the higher checkers first never makes a later move illegal), so
    # each multiset of moves is tried once instead of up to 24 times.  Two such
    # multisets S != S' that bear nothing off also end on different boards: my
    # counts change by (S - d) - S, and S' - S would have to equal itself moved
    # by d pips, which no non-zero finite multiset does.  So only plays that bear
    # a checker off (where every point below 1 is the same "off") need the table,
    # and with four checkers or more outside my home board (`keyed` false) none can,
    # so the nodes need no keys.
    cdef uint32_t src
    cdef int s
    cdef Node child
    src = movable_from(n, g.blocked, d) & ((((<uint32_t>1) << max_src) << 1) - 1)
    if src == 0:
        double_record(g, n, used, keyed)
        return
    while src:
        s = 31 - tf_clz(src)
        src &= ~((<uint32_t>1) << s)
        if used == 3:
            double_record_move(g, n, s, d, 4, keyed)
            continue
        child = n[0]
        if keyed:
            node_move(&child, s, d)
        else:
            child.mine = mine_after(n, s, d)
            board_move(&child.b, s, d)
        _search_double(g, &child, d, used + 1, s, keyed)


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


# ---- plain rolls: no table at all
# With no checker on the bar and two or more outside my home board, no move of a
# non-double can enter or bear off, so a move (s by d) is legal exactly when I have a
# checker on s and point s - d > 0 is not made: legality no longer depends on the
# order of the moves, and which of the listed sequences first reaches each result
# follows from the masks alone.  Let a be the die played first in the first pass.
# - Two checkers moved (x by a, y by b), y - b != x, x - a != y: reached in both
#   passes; the first pass lists it, the second never does.
# - One checker run from z to z - a - b: reached by (a: z, b: z-a) [A], hitting on
#   z - a if a blot is there; by (a: z-b, b: z) [B] when I hold z - b; by
#   (b: z, a: z-b) [C], hitting on z - b if a blot is there; and by (b: z-a, a: z)
#   [D] when I hold z - a.  A comes first and is always new; B is A's play when
#   z - a is open and not a blot; C is new when it hits on z - b, else it repeats A
#   (z - a open, not a blot) or B (I hold z - b); D always repeats A.
# - A single die (R10): one result per source and die, each new.
# The player never holds a point with an opposing blot, so `clean` below (neither
# made nor a blot) covers "I hold it" for A's intermediate point.
# With one checker on the bar (`bar`) it enters first in both passes, and then no move
# can bear off (it stands outside home).  A play moving two checkers is then
# (enter with a, y by b) or (enter with b, y by a): those of the second pass are new
# too (their counts differ from every first-pass play).  The run z = 25 is A or C
# only (B and D would move before entering), so C repeats A when 25 - a is clean.

cdef inline uint32_t plain_movable(uint32_t mine, uint32_t blocked, int d) noexcept nogil:
    """movable_from with no checker on the bar and none able to bear off."""
    return mine & ~(blocked << d) & ~((((<uint32_t>1) << (d + 1)) - 1))


cdef inline void plain_record(MoveGen* g, int score, int s1, int d1, int s2, int d2) noexcept nogil:
    """Record the root board after (s1 by d1) and, if d2, (s2 by d2): a play known to be new."""
    cdef Board* slot = gen_slot_unique(g, score)
    if slot != NULL:
        slot[0] = g.root
        board_move(slot, s1, d1)
        if d2:
            board_move(slot, s2, d2)


cdef inline uint32_t plain_mine_after(const MoveGen* g, uint32_t mine, int s, int d) noexcept nogil:
    if g.root.c[0][s] == 1:
        mine &= ~((<uint32_t>1) << s)
    return mine | ((<uint32_t>1) << (s - d))


cdef inline uint32_t first_movable(uint32_t mine, uint32_t blocked, int d, bint bar) noexcept nogil:
    if bar:
        return 0 if (blocked >> (25 - d)) & 1 else (<uint32_t>1) << 25
    return plain_movable(mine, blocked, d)


cdef void _search_pair_plain(MoveGen* g, uint32_t mine, int a, int b, bint bar) noexcept nogil:
    cdef uint32_t blocked = g.blocked
    cdef uint32_t clean = ~(blocked | g.blots)
    cdef uint32_t src, src2
    cdef int p, q
    cdef Board* slot
    # The first pass: a then b.
    src = first_movable(mine, blocked, a, bar)
    if src == 0:
        # Nothing moves with a: the unchanged board, unless b moves (R10, R13).  The
        # second pass never records it: it ranks below any move it finds.
        slot = gen_slot_unique(g, 0)
        if slot != NULL:
            slot[0] = g.root
    while src:
        p = 31 - tf_clz(src)
        src &= ~((<uint32_t>1) << p)
        src2 = plain_movable(plain_mine_after(g, mine, p, a), blocked, b)
        if src2 == 0:
            plain_record(g, 10 + a, p, a, 0, 0)
            continue
        # B: (a: z-b, b: z) with z = p + b repeats A when z - a is clean.
        if (clean >> (p + b - a)) & 1:
            src2 &= ~((<uint32_t>1) << (p + b))
        while src2:
            q = 31 - tf_clz(src2)
            src2 &= ~((<uint32_t>1) << q)
            plain_record(g, SCORE_BOTH, p, a, q, b)
    # The second pass: b then a.  Off the bar only C can be new among its two-dice plays.
    src = first_movable(mine, blocked, b, bar)
    while src:
        p = 31 - tf_clz(src)
        src &= ~((<uint32_t>1) << p)
        src2 = plain_movable(plain_mine_after(g, mine, p, b), blocked, a)
        if src2 == 0:
            plain_record(g, 10 + b, p, b, 0, 0)
            continue
        if bar:
            while src2:
                q = 31 - tf_clz(src2)
                src2 &= ~((<uint32_t>1) << q)
                if q == p - b and ((g.blots >> q) & 1) == 0 and (clean >> (p - a)) & 1:
                    continue            # C repeats A
                plain_record(g, SCORE_BOTH, p, b, q, a)
            continue
        if ((src2 >> (p - b)) & 1) == 0:
            continue
        # C: (b: z, a: z-b) with z = p.
        if ((g.blots >> (p - b)) & 1) == 0:
            if ((clean >> (p - a)) & 1) or ((mine >> (p - b)) & 1):
                continue
        plain_record(g, SCORE_BOTH, p, b, p - b, a)


cdef int generate_plays(MoveGen* g, const Board* b, int d1, int d2) noexcept nogil:
    """Fill g.out with the distinct positions reachable with (d1, d2); return how many.

    Sides are not switched.  When nothing can be played the single result is
    the unchanged board (R10, R13: the turn is lost).  Returns -1 on overflow.
    """
    cdef Node root
    cdef int outside = tf_outside(&b.c[0][0])
    node_init(&root, b)
    g.root = b[0]
    tf_opp_masks(&b.c[1][0], &g.blocked, &g.blots)
    g.best = -1
    g.n = 0
    g.overflow = 0
    if d1 == d2:
        _search_double(g, &root, d1, 0, 25, outside < 4)
    elif b.c[0][25] == 1 or (b.c[0][25] == 0 and outside >= 2):
        _search_pair_plain(g, root.mine, d1, d2, b.c[0][25] == 1)
    else:
        _search_pair(g, &root, d1, d2)
        _search_pair(g, &root, d2, d1)
    if g.overflow:
        return -1
    return g.n
