# The neural net's inputs (part of _neural.pxi): the hand features from bit masks of
# the board, and the sparse input rows the fast evaluator reads.

cdef inline double _nn_sigmoid(double x) noexcept nogil:
    return 1.0 / (1.0 + exp(-x))


ctypedef struct NNMasks:
    uint64_t occupied           # bit p: a checker on point p (1..24), bit 25: on the bar
    uint64_t made               # bit p: two or more checkers on point p
    uint64_t occupied_mirror    # the same in the opponent's numbering (bit 25 - p; bar = bit 0)
    uint64_t made_mirror


cdef extern from *:
    """
    /* Bits 0..25 of a side's row: bit i set where row[i] > 0 (occupied) and where
       row[i] > 1 (made), by byte compares on two overlapping 16-byte loads. */
    #if defined(__SSE2__)
    #include <emmintrin.h>
    static inline void tf_row_bits(const signed char* row, unsigned int* one, unsigned int* two) {
        __m128i lo = _mm_loadu_si128((const __m128i*)row);
        __m128i hi = _mm_loadu_si128((const __m128i*)(row + 10));
        __m128i z = _mm_setzero_si128(), u = _mm_set1_epi8(1);
        *one = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(lo, z))
             | (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(hi, z)) << 10;
        *two = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(lo, u))
             | (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(hi, u)) << 10;
    }
    /* Bits 0..25: bit i set where old[i] != new[i]. */
    static inline unsigned int tf_row_changes(const signed char* old, const signed char* new_) {
        unsigned int same =
            (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)old),
                                                       _mm_loadu_si128((const __m128i*)new_)))
          | (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(old + 10)),
                                                       _mm_loadu_si128((const __m128i*)(new_ + 10)))) << 10;
        return ~same & 0x3FFFFFFu;
    }
    #else
    static inline void tf_row_bits(const signed char* row, unsigned int* one, unsigned int* two) {
        unsigned int a = 0, b = 0;
        for (int i = 0; i < 26; i++) {
            a |= (unsigned)(row[i] > 0) << i;
            b |= (unsigned)(row[i] > 1) << i;
        }
        *one = a;
        *two = b;
    }
    static inline unsigned int tf_row_changes(const signed char* old, const signed char* new_) {
        unsigned int c = 0;
        for (int i = 0; i < 26; i++) c |= (unsigned)(old[i] != new_[i]) << i;
        return c;
    }
    #endif

    /* Bits 0..n-1 (n <= 32): bit k set where a[k] != b[k], two compares at a time (no
       branch a feature: which of them change is as good as random). */
    static inline unsigned int tf_changed_doubles(const double* a, const double* b, int n) {
        unsigned int c = 0;
        int k = 0;
    #if defined(__SSE2__)
        for (; k + 2 <= n; k += 2)
            c |= (unsigned)_mm_movemask_pd(_mm_cmpneq_pd(_mm_loadu_pd(a + k), _mm_loadu_pd(b + k))) << k;
    #endif
        for (; k < n; k++) c |= (unsigned)(a[k] != b[k]) << k;
        return c;
    }

    /* Input i changes by v: its row is added, subtracted or scaled (tf_rows, _nnsimd.pxi). */
    static inline void tf_put_row(tf_rows* r, int i, double v) {
        if (v == 1.0) r->add[r->n_add++] = i;
        else if (v == -1.0) r->sub[r->n_sub++] = i;
        else { r->scaled[r->n_scaled] = i; r->val[r->n_scaled++] = v; }
    }

    /* Bit p -> bit 25 - p, for bits 0..25. */
    static inline unsigned int tf_mirror26(unsigned int x) {
        x = __builtin_bswap32(x);
        x = (x & 0x0F0F0F0Fu) << 4 | ((x >> 4) & 0x0F0F0F0Fu);
        x = (x & 0x33333333u) << 2 | ((x >> 2) & 0x33333333u);
        x = (x & 0x55555555u) << 1 | ((x >> 1) & 0x55555555u);
        return x >> 6;
    }
    """
    void tf_row_bits(const int8_t* row, uint32_t* one, uint32_t* two) noexcept nogil
    uint32_t tf_row_changes(const int8_t* old, const int8_t* new) noexcept nogil
    uint32_t tf_mirror26(uint32_t x) noexcept nogil
    uint32_t tf_changed_doubles(const double* a, const double* b, int n) noexcept nogil
    void tf_put_row(tf_rows* r, int i, double v) noexcept nogil


cdef inline void _nn_masks(const int8_t* row, NNMasks* m) noexcept nogil:
    """A side's masks in both numberings, from its row (no loop over the points)."""
    cdef uint32_t one, two
    tf_row_bits(row, &one, &two)
    one &= 0x3FFFFFE                    # points 1..24 and the bar, not borne off
    two &= 0x1FFFFFE                    # made points: 1..24 only
    m.occupied = one
    m.made = two
    m.occupied_mirror = tf_mirror26(one)
    m.made_mirror = tf_mirror26(two)


cdef inline int _nn_shots(uint64_t blots, uint64_t made, uint64_t hitters,
                          int* loss) noexcept nogil:
    """Of the 36 rolls, how many let one checker from `hitters` land on `blots`, stopping
    only on points outside `made` (all masks in the blots' owner's numbering, where the
    hitters move up; bit 0 is the hitters' bar).  If `loss` is not NULL it receives the
    sum over the 36 rolls of the most pips a hit costs the owner (25 - the lowest point
    hit).  A double moves up to four steps, each landing spot checked before it must be
    open; the rolls are taken side by side, one a vector lane (tf_shot_rolls)."""
    cdef int lost = 0, count = 0
    if blots != 0:
        count = tf_shot_rolls(<uint32_t>blots, <uint32_t>made, <uint32_t>hitters, &lost)
    if loss != NULL:
        loss[0] = lost
    return count


cdef inline int _nn_escapes(int rear, uint64_t blocks, int reach) noexcept nogil:
    """Of the 36 rolls, how many let one checker on point `rear` get below the lowest of
    the points `blocks` at most `reach` pips in front of it (all in the mover's numbering,
    moving down), every landing spot open; 36 when no block is that near.  The rolls side
    by side, as for the shots (tf_escape_rolls)."""
    cdef uint64_t front = (blocks & (((<uint64_t>1) << rear) - 1)
                           & ~(((<uint64_t>1) << (rear - reach if rear > reach else 0)) - 1))
    cdef uint64_t target
    if front == 0:
        return 36
    target = (((<uint64_t>1) << tf_ctz64(front)) - 1) & ~blocks & ~(<uint64_t>1)
    return tf_escape_rolls(<uint32_t>1 << rear, <uint32_t>blocks, <uint32_t>target)


# The hand features' and the pips' fractions, k / d for the integers k they are made of, looked
# up instead of divided (a division costs as much as the rest of a feature): the same numbers,
# as the tables hold the same divisions.
cdef enum:
    NN_RATIO_SIZE = 400         # 0..399 covers 15 checkers x 26 pips
cdef double NN_BY6[NN_RATIO_SIZE]
cdef double NN_BY15[NN_RATIO_SIZE]
cdef double NN_BY36[NN_RATIO_SIZE]
cdef double NN_BY167[NN_RATIO_SIZE]
cdef double NN_BY864[NN_RATIO_SIZE * 3]     # the pip loss: up to 36 x 24


cdef void _nn_fill_ratios() noexcept nogil:
    cdef int k
    for k in range(NN_RATIO_SIZE):
        NN_BY6[k] = k / 6.0
        NN_BY15[k] = k / 15.0
        NN_BY36[k] = k / 36.0
        NN_BY167[k] = k / 167.0
    for k in range(NN_RATIO_SIZE * 3):
        NN_BY864[k] = k / (36.0 * 24.0)


_nn_fill_ratios()


cdef inline double _nn_ratio(const double* table, int size, int k, double d) noexcept nogil:
    """k / d by `table` (of `size` entries k / d, k = 0..size - 1), for either sign of k
    (the division rounds -k / d to -(k / d)); divided when k is out of its range."""
    if 0 <= k < size:
        return table[k]
    if -size < k < 0:
        return -table[-k]
    return k / d


# NN_WINDOW_ESCAPES[w]: of the 36 rolls, how many take a checker past every made point in the
# 6 pips in front of it, landing only on open points of the 12 in front, where bit j of w is
# the point 12 - j pips ahead (so `made >> (i - 12)` masked to 12 bits is the window of a
# checker on point i): the containment feature's table.
cdef uint8_t NN_WINDOW_ESCAPES[4096]


cdef void _nn_fill_window_escapes() noexcept nogil:
    # A checker on 25 with the window on points 13..24 (bit j: point 13 + j) and open points
    # below, so that every roll that passes the window lands on the board.
    cdef uint64_t w
    for w in range(4096):
        NN_WINDOW_ESCAPES[w] = <uint8_t>_nn_escapes(25, w << 13, 6)


_nn_fill_window_escapes()


cdef inline int _nn_containment(uint64_t blocks) noexcept nogil:
    """The fewest escaping rolls (NN_WINDOW_ESCAPES) of a checker on the points 15..24 or the
    bar facing the made points `blocks` (in its numbering, moving down)."""
    cdef int i, e, least = 36
    for i in range(15, 26):
        e = NN_WINDOW_ESCAPES[(blocks >> (i - 12)) & 0xFFF]
        if e < least:
            least = e
    return least


cdef inline void _nn_feature_values(const int8_t* on_roll, const int8_t* other,
                                    double* f, int nf) noexcept nogil:
    """The first `nf` hand features (NN_V2_FEATURES, + NN_EXTRA_FEATURES, + NN_TIMING_FEATURES),
    dense: f[k] is input NN_BASE_INPUTS + k."""
    cdef NNMasks m[2]
    _nn_masks(on_roll, &m[0])
    _nn_masks(other, &m[1])
    _nn_features_of_masks(m, on_roll, other, f, nf)


cdef inline void _nn_features_of_masks(const NNMasks* m, const int8_t* on_roll,
                                       const int8_t* other, double* f, int nf) noexcept nogil:
    """The first `nf` hand features from the masks of the side on roll (m[0]) and the other
    (m[1]), and their rows (the timing features count checkers)."""
    cdef uint64_t blots, run, home
    cdef int s, k, length, lost, open_points, q, p, broken, past
    cdef int rear[2]
    cdef const int8_t* row
    cdef uint32_t occupied
    cdef bint extra = nf > NN_V2_FEATURES
    cdef bint timing = nf > NN_V2_FEATURES + NN_EXTRA_FEATURES
    for s in range(2):
        # In side s's numbering the opponent's checkers are its mirror masks.
        blots = m[s].occupied & ~m[s].made & ~((<uint64_t>1) << 25)
        f[NN_SHOTS_UNIT - NN_BASE_INPUTS + 2 * s] = NN_BY36[_nn_shots(
            blots, m[s].made, m[1 - s].occupied_mirror, &lost if extra else NULL)]
        if extra:
            f[NN_PIPLOSS_UNIT - NN_BASE_INPUTS + 3 * s] = NN_BY864[lost]
        rear[s] = 63 - tf_clz64(m[s].occupied) if m[s].occupied else 0
        run = m[1 - s].made_mirror & (((<uint64_t>1) << rear[s]) - 1)
        length = 0
        for k in range(7):              # a side's 15 checkers make at most 7 points
            length += run != 0
            run &= run << 1
        f[NN_PRIME_UNIT - NN_BASE_INPUTS + 2 * s] = NN_BY6[length]
        if extra:
            f[NN_ESCAPE_UNIT - NN_BASE_INPUTS + 3 * s] = (
                NN_BY36[_nn_escapes(rear[s], m[1 - s].made_mirror, rear[s])] if rear[s] else 0.0)
            # Entering from the bar (25) with die d lands on 25 - d: points 19..24.
            home = m[1 - s].made_mirror & ((<uint64_t>0x3F) << 19)
            open_points = 6 - tf_popcount64(home)
            f[NN_DANCE_UNIT - NN_BASE_INPUTS + 3 * s] = (
                NN_BY36[(6 - open_points) * (6 - open_points)]
                if m[s].occupied & ((<uint64_t>1) << 25) else 0.0)
        if timing:
            f[NN_CONTAIN_UNIT - NN_BASE_INPUTS + 3 * s] = (
                NN_BY36[_nn_containment(m[1 - s].made_mirror)])
            # The opponent's rearmost checker on q (side s's numbering; 0 on its bar, 26 when
            # it has none left): a checker of side s on p >= q has p - q + 1 pips to go past it.
            q = tf_ctz64(m[1 - s].occupied_mirror) if m[1 - s].occupied else 26
            row = on_roll if s == 0 else other
            occupied = <uint32_t>m[s].occupied
            broken = past = 0
            while occupied:
                p = tf_ctz(occupied)
                occupied &= occupied - 1
                if p >= q:
                    broken += row[p] * (p - q + 1)
                else:
                    past += row[p] * p
            f[NN_BREAK_UNIT - NN_BASE_INPUTS + 3 * s] = _nn_ratio(NN_BY167, NN_RATIO_SIZE, broken, 167.0)
            f[NN_FREEPIP_UNIT - NN_BASE_INPUTS + 3 * s] = _nn_ratio(NN_BY167, NN_RATIO_SIZE, past, 167.0)
    # Contact: the opponent's rearmost checker (lowest in my numbering) is behind my rearmost.
    f[NN_CONTACT_UNIT - NN_BASE_INPUTS] = (
        1.0 if m[0].occupied and m[1].occupied and tf_ctz64(m[1].occupied_mirror) < rear[0]
        else 0.0)


cdef inline int _rows_count(const tf_rows* r) noexcept nogil:
    return r.n_add + r.n_sub + r.n_scaled


cdef inline double _rows_item(const tf_rows* r, int a, int* i) noexcept nogil:
    """The a-th input of `r` (0 <= a < _rows_count): its index goes to i, its value is returned."""
    if a < r.n_add:
        i[0] = r.add[a]
        return 1.0
    a -= r.n_add
    if a < r.n_sub:
        i[0] = r.sub[a]
        return -1.0
    a -= r.n_sub
    i[0] = r.scaled[a]
    return r.val[a]


# ---------------------------------------------------------------- the fast path

cdef inline void _rows_clear(tf_rows* r) noexcept nogil:
    r.n_add = r.n_sub = r.n_scaled = 0


cdef inline void _rows_put(tf_rows* r, int i, double v) noexcept nogil:
    """Input i changes by v: its row is added, subtracted or scaled."""
    tf_put_row(r, i, v)


cdef inline double nn_point_units(int n, double u0, double u1, double u2,
                                  double u3) noexcept nogil:
    """What n >= 1 checkers on a point weigh through its four inputs, given each input's
    value u0..u3 (a weight, a slope): the units n >= 1, n >= 2, n >= 3, and the spare
    unit times (n - 3) / 2 (the encoding described at the top)."""
    return (u0 + (u1 if n >= 2 else 0.0) + (u2 if n >= 3 else 0.0)
            + ((n - 3) * 0.5 * u3 if n > 3 else 0.0))


cdef inline double nn_point_share(int p, int n, double units, double pip,
                                  double off) noexcept nogil:
    """`units` (what n checkers on point p weigh through the point's own inputs: for the
    bar, p 25, its unit times n / 2) plus their share of the side's pip count (n p / 167)
    and of its borne-off input (-n / 15: the checkers on the points and bar are 15 less
    those borne off)."""
    return units + (p * n / 167.0 * pip - n / 15.0 * off)


cdef inline int nn_point_row(int side_rows, int p, int n) noexcept nogil:
    """The point row of n checkers (1..NN_POINT_COUNTS) on point p (1..24), among a side's
    point rows, which start at row `side_rows` of fw1."""
    return side_rows + NN_POINT_COUNTS * (p - 1) + n - 1


cdef inline void _nn_rows_side(tf_rows* r, const int8_t* row, int base, NNMasks* m,
                               int points) noexcept nogil:
    """The fast path's encoding of one side (the inputs described at the top, at `base`):
    the rows of its inputs go to `r`, its masks to `m`.  With `points` >= 0 (the index of
    this side's point rows, see nn_sync_points) an occupied point is one row; otherwise
    each point writes three candidate rows of its raw inputs and keeps as many as it has
    checkers (up to 3), with no branch per point."""
    cdef int p, n, u, na = r.n_add, ns = r.n_scaled, pips = 0
    cdef uint32_t occupied
    _nn_masks(row, m)
    if points >= 0:
        occupied = <uint32_t>m.occupied & 0x1FFFFFE
        while occupied:
            p = tf_ctz(occupied)
            occupied &= occupied - 1
            n = row[p]
            pips += p * n
            if n > NN_POINT_COUNTS:     # not a real position (evaluate_many takes any
                r.add[na] = nn_point_row(points, p, NN_POINT_COUNTS)   # array): 15, plus the spares
                r.scaled[ns] = base + 4 * (p - 1) + 3
                r.val[ns] = (n - NN_POINT_COUNTS) * 0.5
                ns += 1
            else:
                r.add[na] = nn_point_row(points, p, n)
            na += 1
    else:
        for p in range(1, 25):
            n = row[p] if row[p] > 0 else 0
            u = base + 4 * (p - 1)
            r.add[na] = u
            r.add[na + 1] = u + 1
            r.add[na + 2] = u + 2
            na += n if n < 3 else 3
            r.scaled[ns] = u + 3
            r.val[ns] = (n - 3) * 0.5
            ns += n > 3
            pips += p * n
    r.n_add = na
    r.n_scaled = ns
    n = row[BAR]
    if n > 0:
        pips += 25 * n
        _rows_put(r, base + NN_BAR_UNIT, n * 0.5)
    if row[OFF] > 0:
        _rows_put(r, base + NN_OFF_UNIT, _nn_ratio(NN_BY15, NN_RATIO_SIZE, row[OFF], 15.0))
    if pips > 0:
        _rows_put(r, base + NN_PIP_UNIT, _nn_ratio(NN_BY167, NN_RATIO_SIZE, pips, 167.0))


cdef inline int nn_features_of(const NeuralNetC* net) noexcept nogil:
    """How many hand features the net has (0, NN_V2_FEATURES, + NN_EXTRA_FEATURES, or
    NN_FEATURE_INPUTS)."""
    return net.n_inputs - NN_BASE_INPUTS


cdef inline int nn_point_rows(const NeuralNetC* net) noexcept nogil:
    """The index of `net`'s point rows in fw1 if they are fresh, else -1 (raw rows)."""
    return net.n_inputs if net.points_fresh else -1


cdef inline void _nn_rows(tf_rows* r, const int8_t* on_roll, const int8_t* other,
                          double* features, int nf, int points=-1) noexcept nogil:
    """The rows of the position (`on_roll` to play against `other`); with the first `nf`
    hand features, whose values also go to features[0:nf].  The raw inputs' rows, or with
    `points` >= 0 the point rows there (nn_point_rows: the fast path only)."""
    cdef NNMasks m[2]
    cdef int k
    _rows_clear(r)
    _nn_rows_side(r, on_roll, 0, &m[0], points)
    _nn_rows_side(r, other, NN_SIDE_INPUTS, &m[1],
                  points + NN_SIDE_POINT_ROWS if points >= 0 else -1)
    if nf > 0:
        _nn_features_of_masks(m, on_roll, other, features, nf)
        for k in range(nf):
            if features[k] != 0.0:
                _rows_put(r, NN_BASE_INPUTS + k, features[k])
