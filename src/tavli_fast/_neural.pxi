# Neural evaluator (issue 5): a one-hidden-layer net that estimates, for the
# player ON ROLL (before rolling), five cubeless probabilities, and its TD(0)
# self-play trainer.  Included by _core.pyx after _bearoff.pxi.
#
# Inputs (NN_INPUTS = 2 x 99), side 0 = the player on roll, side 1 = the
# opponent, each side in its own numbering; for side s, base = 99 s:
#   base + 4 (p - 1) + u, point p = 1..24, n checkers of that side on p:
#       u = 0: n >= 1,  u = 1: n >= 2,  u = 2: n >= 3,  u = 3: (n - 3) / 2 if n > 3
#     (TD-Gammon's idea: a blot, a made point and a spare are different things)
#   base + 96: checkers on the bar / 2
#   base + 97: checkers borne off / 15
#   base + 98: pip count / 167 (a race feature; 167 is the starting count)
# A net may also have NN_FEATURE_INPUTS hand features after these (its w1 has
# 203 rows instead of 198), cheap bit-mask sums of what the raw counts only
# show the net slowly; for side s (its own numbering), at 198 + 2 s:
#   + 0: shots: the fraction of the opponent's 36 rolls that could hit a blot
#        of side s (one checker moving, through points s has not made;
#        ignoring that checkers on the bar must enter first)
#   + 1: the longest run of points the opponent has made in front of side s's
#        rearmost checker, / 6 (a prime of 6 holds it completely)
#   202: contact: 1 while some checker of one side must still pass one of the
#        other's, 0 in a pure race
# A net may have NN_EXTRA_FEATURES more (w1 with 209 rows, issue 13), for side s at 203 + 3 s:
#   + 0: escapes: the fraction of its 36 rolls that let side s's rearmost checker pass
#        the opponent's made points in front of it (one checker, landing on open points;
#        1 when none is in front)
#   + 1: pip loss: of the opponent's 36 rolls, the mean over the rolls of the most pips a
#        hit of one of side s's blots would cost it (a blot on point p loses 25 - p), / 24
#   + 2: dance: while side s has checkers on the bar, the fraction of its 36 rolls that
#        enter none of them (both dice on made points), else 0
# A net may have NN_TIMING_FEATURES more (w1 with 215 rows, issue 13), for side s at 209 + 3 s:
#   + 0: containment: the fewest, over the points 15..24 and the bar a checker of side s
#        could stand on, of the 36 rolls that take it past every point the opponent has made
#        in the 6 pips in front of it (one checker, landing on open points: the made points
#        up to 12 pips ahead count), / 36: how well the opponent's blocks would hold side s's
#        checkers there, wherever its back checkers stand (escapes sees the rearmost only)
#   + 1: break contact: the pips side s's checkers must move to get past the opponent's
#        rearmost checker (one on p against the rearmost on q <= p: p - q + 1), / 167
#   + 2: free pips: the pips of side s's checkers already past the opponent's rearmost, / 167
#        (its timing: what it can move before it must break the points behind)
# (gnubg's nets have inputs of the same ideas; these are our own definitions.)
# Few inputs are non-zero (about 40), so the first layer adds up the weight
# rows of the active inputs only: w1 is stored input-major, [NN_INPUTS][H].
#
# Both evaluation paths take the inputs from one encoder (`_nn_rows`), as lists of rows
# to add (inputs equal to 1), to subtract, and to scale by a value:
# - exact: float64, the reference (`neural_probs_exact`, training's gradient step);
# - fast: a float32 copy of the weights, hidden units padded to a multiple of 16, summed
#   with the vector kernels of _nnsimd.pxi and a fast sigmoid.  A full evaluation adds
#   one precomputed row per occupied point (its "point row": the sum of the rows its
#   checkers switch on, nn_sync_points) instead of up to four.  All the plays of a roll
#   are evaluated against one base: the hidden sums of the position before the move are
#   computed once (`nn_base_prepare`), and each play adds only the rows of the inputs it
#   changes (a few points, the bar, borne off, pips, the hand features).  Outputs agree
#   with the exact path to about 1e-6 (tests/test_neural.py holds them within 1e-4).
#   The players, the 1-ply look-ahead and training's choice of play all use it.
#
# Position classes (issue 13, as gnubg splits them): a net may carry the bear-off databases,
# which then value every position where both sides are bearing off (`nn_bearoff_probs`), and a
# race net, which evaluates the other positions with no contact left (`rows_race`); the net
# itself evaluates the rest.  `nn_class_net` picks the net; a base (`NNBase`) belongs to the
# class of the position before the move, and a play into another class is valued afresh.
#
# Outputs (sigmoids): P(win), P(win gammon), P(win backgammon),
# P(lose gammon), P(lose backgammon); gammons include backgammons.  The
# evaluation clamps them to be consistent (backgammon <= gammon <= win, and
# the same for losses against 1 - win); training works on the raw outputs.

from libc.math cimport exp

include "_nnsimd.pxi"

cdef enum:
    NN_OUTPUTS = 5
    NN_SIDE_INPUTS = 99
    NN_BASE_INPUTS = 198
    NN_V2_FEATURES = 5          # the hand features of net v2
    NN_EXTRA_FEATURES = 6       # issue 13's: escapes, pip loss, dance, for each side
    NN_TIMING_FEATURES = 6      # issue 13's second set: containment, break contact, free pips
    NN_FEATURE_INPUTS = 17      # the most features a net has
    NN_V2_INPUTS = 203
    NN_EXTRA_INPUTS = 209       # with issue 13's first set of features
    NN_INPUTS = 215             # the most a net has: base inputs plus all the features
    NN_SHOTS_UNIT = 198
    NN_PRIME_UNIT = 199
    NN_CONTACT_UNIT = 202
    NN_ESCAPE_UNIT = 203
    NN_PIPLOSS_UNIT = 204
    NN_DANCE_UNIT = 205
    NN_CONTAIN_UNIT = 209
    NN_BREAK_UNIT = 210
    NN_FREEPIP_UNIT = 211
    NN_MAX_HIDDEN = 1024
    NN_BAR_UNIT = 96
    NN_OFF_UNIT = 97
    NN_PIP_UNIT = 98
    NN_POINT_COUNTS = 15            # the fast path's point rows: for each side and point,
    NN_SIDE_POINT_ROWS = 24 * NN_POINT_COUNTS   # one per count of checkers, 1..15
    NN_POINT_ROWS = 2 * NN_SIDE_POINT_ROWS

cdef enum:  # output indices
    NN_WIN = 0
    NN_WIN_GAMMON = 1
    NN_WIN_BACKGAMMON = 2
    NN_LOSE_GAMMON = 3
    NN_LOSE_BACKGAMMON = 4

# The 1-ply move filter (like gnubg's): candidates that get the 1-ply look are at most
# `candidates` of them, and only those whose 0-ply equity is within `window` of the best
# (the rest are clearly worse).  NN_MAX_CANDIDATES bounds `candidates`.
cdef enum:
    NN_1PLY_CANDIDATES = 5      # the default number of candidates
    NN_MAX_CANDIDATES = 16
    NN_ROLLS = 21               # distinct rolls; a roll table holds NN_ROLLS x NN_OUTPUTS
cdef double NN_1PLY_WINDOW = 0.16

ctypedef struct MoveFilter:
    int candidates              # 1..NN_MAX_CANDIDATES
    double window               # equity window below the best 0-ply play, >= 0

ctypedef struct NeuralNetC:
    int n_inputs                # NN_BASE_INPUTS, NN_V2_INPUTS, NN_EXTRA_INPUTS or NN_INPUTS
                                # (the features it has)
    int n_hidden
    double* w1                  # [n_inputs][n_hidden]: the weights leaving input i, contiguous
    double* b1                  # [n_hidden]
    double* w2                  # [NN_OUTPUTS][n_hidden]
    double* b2                  # [NN_OUTPUTS]
    # The fast path's float32 copy, always equal to (float) of the weights above
    # (nn_sync_fast; training refreshes what each step changes).  Hidden units are
    # padded to hp, a multiple of 16; padding units have zero weights.
    int hp
    float* fw1                  # [n_inputs + NN_POINT_ROWS][hp]: the rows of w1, then the
                                # point rows (below)
    bint points_fresh           # the point rows equal the sums of w1's rows they stand for
    float* fb1                  # [hp]
    float* fw2                  # [NN_OUTPUTS][hp]
    float fb2[NN_OUTPUTS]
    # The race net (issue 13), or NULL: positions with no contact left (rows_race) are
    # evaluated by it, the others by this net.  It has no race net of its own.
    const NeuralNetC* race
    # The bear-off databases, or NULL: positions where both sides are bearing off are
    # valued by them (nn_bearoff_probs) instead of by a net, as gnubg values its bear-off class.
    const BearoffDB* bearoff

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
    hit).  Branch-free over the rolls: a roll that hits nothing adds 25 - 25 to the loss
    (the blots are on points 1..24, so bit 25 stands in for "no hit")."""
    cdef int a, b, k, count = 0, lost = 0
    cdef uint64_t step, hit, via, none = (<uint64_t>1) << 25
    if loss != NULL:
        loss[0] = 0
    if blots == 0:
        return 0
    for a in range(1, 7):
        # a-a: up to four steps of a, each landing spot checked before it must be open.
        step = hitters
        hit = 0
        for k in range(4):
            step = step << a
            hit |= step & blots
            step &= ~made
        count += hit != 0
        if loss != NULL:
            lost += 25 - tf_ctz64(hit | none)
        for b in range(a + 1, 7):
            via = ((hitters << a) & ~made) << b | ((hitters << b) & ~made) << a
            hit = ((hitters << a) | (hitters << b) | via) & blots
            count += 2 * (hit != 0)
            if loss != NULL:
                lost += 2 * (25 - tf_ctz64(hit | none))
    if loss != NULL:
        loss[0] = lost
    return count


cdef inline int _nn_escapes(int rear, uint64_t blocks, int reach) noexcept nogil:
    """Of the 36 rolls, how many let one checker on point `rear` get below the lowest of
    the points `blocks` at most `reach` pips in front of it (all in the mover's numbering,
    moving down), every landing spot open; 36 when no block is that near."""
    cdef uint64_t front = (blocks & (((<uint64_t>1) << rear) - 1)
                           & ~(((<uint64_t>1) << (rear - reach if rear > reach else 0)) - 1))
    cdef uint64_t start = (<uint64_t>1) << rear, target, step, hit, via
    cdef int a, b, k, count = 0
    if front == 0:
        return 36
    target = (((<uint64_t>1) << tf_ctz64(front)) - 1) & ~blocks & ~(<uint64_t>1)
    for a in range(1, 7):
        step = start
        hit = 0
        for k in range(4):
            step = (step >> a) & ~blocks
            hit |= step & target
        count += hit != 0
        for b in range(a + 1, 7):
            via = (((start >> a) & ~blocks) >> b) | (((start >> b) & ~blocks) >> a)
            count += 2 * ((((start >> a) | (start >> b) | via) & target) != 0)
    return count


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
        f[NN_SHOTS_UNIT - NN_BASE_INPUTS + 2 * s] = _nn_shots(
            blots, m[s].made, m[1 - s].occupied_mirror, &lost if extra else NULL) / 36.0
        if extra:
            f[NN_PIPLOSS_UNIT - NN_BASE_INPUTS + 3 * s] = lost / (36.0 * 24.0)
        rear[s] = 63 - tf_clz64(m[s].occupied) if m[s].occupied else 0
        run = m[1 - s].made_mirror & (((<uint64_t>1) << rear[s]) - 1)
        length = 0
        for k in range(7):              # a side's 15 checkers make at most 7 points
            length += run != 0
            run &= run << 1
        f[NN_PRIME_UNIT - NN_BASE_INPUTS + 2 * s] = length / 6.0
        if extra:
            f[NN_ESCAPE_UNIT - NN_BASE_INPUTS + 3 * s] = (
                _nn_escapes(rear[s], m[1 - s].made_mirror, rear[s]) / 36.0 if rear[s] else 0.0)
            # Entering from the bar (25) with die d lands on 25 - d: points 19..24.
            home = m[1 - s].made_mirror & ((<uint64_t>0x3F) << 19)
            open_points = 6 - tf_popcount64(home)
            f[NN_DANCE_UNIT - NN_BASE_INPUTS + 3 * s] = (
                (6 - open_points) * (6 - open_points) / 36.0
                if m[s].occupied & ((<uint64_t>1) << 25) else 0.0)
        if timing:
            f[NN_CONTAIN_UNIT - NN_BASE_INPUTS + 3 * s] = (
                _nn_containment(m[1 - s].made_mirror) / 36.0)
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
            f[NN_BREAK_UNIT - NN_BASE_INPUTS + 3 * s] = broken / 167.0
            f[NN_FREEPIP_UNIT - NN_BASE_INPUTS + 3 * s] = past / 167.0
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


cdef void nn_forward(const NeuralNetC* net, const tf_rows* r, double* hidden,
                     double* out) noexcept nogil:
    """Raw outputs by the exact float64 path (sigmoids, not yet made consistent) for the
    inputs `r`; `hidden` receives the activations."""
    cdef int a, i, j, o, h = net.n_hidden
    cdef const double* row
    cdef double v, s
    memcpy(hidden, net.b1, h * sizeof(double))
    for a in range(_rows_count(r)):
        v = _rows_item(r, a, &i)
        row = net.w1 + i * h
        if v == 1.0:                # most inputs are 0/1 flags: skip the multiply
            for j in range(h):
                hidden[j] += row[j]
        else:
            for j in range(h):
                hidden[j] += v * row[j]
    for j in range(h):
        hidden[j] = _nn_sigmoid(hidden[j])
    for o in range(NN_OUTPUTS):
        row = net.w2 + o * h
        s = net.b2[o]
        for j in range(h):
            s += row[j] * hidden[j]
        out[o] = _nn_sigmoid(s)


cdef inline void nn_make_consistent(double* p) noexcept nogil:
    """Clamp so that backgammon <= gammon <= win and the same for losses (<= 1 - win)."""
    if p[NN_WIN_GAMMON] > p[NN_WIN]:
        p[NN_WIN_GAMMON] = p[NN_WIN]
    if p[NN_WIN_BACKGAMMON] > p[NN_WIN_GAMMON]:
        p[NN_WIN_BACKGAMMON] = p[NN_WIN_GAMMON]
    if p[NN_LOSE_GAMMON] > 1.0 - p[NN_WIN]:
        p[NN_LOSE_GAMMON] = 1.0 - p[NN_WIN]
    if p[NN_LOSE_BACKGAMMON] > p[NN_LOSE_GAMMON]:
        p[NN_LOSE_BACKGAMMON] = p[NN_LOSE_GAMMON]


cdef inline double nn_equity(const double* p) noexcept nogil:
    """Cubeless money equity of consistent probabilities (gammons include backgammons)."""
    return (2.0 * p[NN_WIN] - 1.0 + p[NN_WIN_GAMMON] - p[NN_LOSE_GAMMON]
            + p[NN_WIN_BACKGAMMON] - p[NN_LOSE_BACKGAMMON])


cdef inline double nn_equity_priced(const double* p, const double* prices) noexcept nogil:
    """The equity with gammons and backgammons at their prices (a match score's, see
    _cube.pxi gammon_prices: win gammon, lose gammon, win bg, lose bg); NULL: money."""
    if prices == NULL:
        return nn_equity(p)
    return (2.0 * p[NN_WIN] - 1.0 + prices[0] * p[NN_WIN_GAMMON] - prices[1] * p[NN_LOSE_GAMMON]
            + prices[2] * p[NN_WIN_BACKGAMMON] - prices[3] * p[NN_LOSE_BACKGAMMON])


cdef inline void nn_swap_sides(const double* p, double* q) noexcept nogil:
    """The same probabilities seen by the other player."""
    q[NN_WIN] = 1.0 - p[NN_WIN]
    q[NN_WIN_GAMMON] = p[NN_LOSE_GAMMON]
    q[NN_WIN_BACKGAMMON] = p[NN_LOSE_BACKGAMMON]
    q[NN_LOSE_GAMMON] = p[NN_WIN_GAMMON]
    q[NN_LOSE_BACKGAMMON] = p[NN_WIN_BACKGAMMON]


cdef bint nn_bearoff_probs(const NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                           double* p) noexcept nogil:
    """If `net` has the bear-off databases and both sides have every checker on their home
    boards: p = the probabilities for `on_roll` by the databases, and True.  Exact inside the
    two-sided database (where both sides have borne off checkers, so no gammon is left);
    beyond it, the race of the two one-sided distributions (`bearoff_race_equity`, gammons
    from the rolls to the first checker off).  No backgammon is possible.  Else False."""
    cdef const BearoffDB* db = net.bearoff
    cdef int mine, theirs
    cdef double q[3]
    if db == NULL:
        return False
    mine = bo_checkers_on(on_roll, 6)
    theirs = bo_checkers_on(other, 6)
    if mine <= 0 or theirs <= 0 or mine > db.checkers or theirs > db.checkers:
        return False
    memset(p, 0, NN_OUTPUTS * sizeof(double))
    if mine <= db.two_checkers and theirs <= db.two_checkers:
        p[NN_WIN] = db.win[bo_index(other, 6) * db.n2 + bo_index(on_roll, 6)]
        return True
    bearoff_race_equity(db, bo_index(on_roll, db.points), bo_index(other, db.points),
                        on_roll[OFF] == 0, other[OFF] == 0, q)
    p[NN_WIN] = q[0]
    p[NN_WIN_GAMMON] = q[1]
    p[NN_LOSE_GAMMON] = q[2]
    return True


cdef inline const NeuralNetC* nn_class_net(const NeuralNetC* net, const int8_t* on_roll,
                                          const int8_t* other, double* p) noexcept nogil:
    """The net that evaluates the position (`on_roll` to play against `other`): the race net
    when there is one and no contact is left, else `net` itself; or NULL when the bear-off
    databases have valued it into `p`.  One contact test, none without a race net and
    databases."""
    if (net.race == NULL and net.bearoff == NULL) or not rows_race(on_roll, other):
        return net
    if nn_bearoff_probs(net, on_roll, other, p):
        return NULL
    return net.race if net.race != NULL else net


cdef inline bint nn_race_reachable(const Board* before) noexcept nogil:
    """Whether a play from `before` (row 0 to move) could leave no contact: every checker
    of the mover must end on or below 24 - (the opponent's rearmost point; a hit only moves
    that further back), and the pips that needs are at most 24, the most a roll moves."""
    cdef int p, line, need = 0
    p = 25
    while p > 0 and before.c[1][p] == 0:
        p -= 1
    line = 24 - p
    for p in range(line + 1 if line >= 0 else 1, 26):
        need += before.c[0][p] * (p - line)
    return need <= 24


cdef void neural_probs_exact(const NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                             double* p) noexcept nogil:
    """Consistent probabilities for `on_roll`, about to roll against `other`, in float64:
    the reference the fast path is tested against."""
    cdef tf_rows r
    cdef double f[NN_FEATURE_INPUTS]
    cdef double hidden[NN_MAX_HIDDEN]
    net = nn_class_net(net, on_roll, other, p)
    if net == NULL:
        return
    _nn_rows(&r, on_roll, other, f, nn_features_of(net))
    nn_forward(net, &r, hidden, p)
    nn_make_consistent(p)


# ---------------------------------------------------------------- the fast path

cdef inline void _rows_clear(tf_rows* r) noexcept nogil:
    r.n_add = r.n_sub = r.n_scaled = 0


cdef inline void _rows_put(tf_rows* r, int i, double v) noexcept nogil:
    """Input i changes by v: its row is added, subtracted or scaled."""
    if v == 1.0:
        r.add[r.n_add] = i
        r.n_add += 1
    elif v == -1.0:
        r.sub[r.n_sub] = i
        r.n_sub += 1
    else:
        r.scaled[r.n_scaled] = i
        r.val[r.n_scaled] = v
        r.n_scaled += 1


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
        _rows_put(r, base + NN_OFF_UNIT, row[OFF] / 15.0)
    if pips > 0:
        _rows_put(r, base + NN_PIP_UNIT, pips / 167.0)


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


cdef inline void _nn_probs_of(const NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                              double* p) noexcept nogil:
    """The fast path's evaluation by `net` itself (no choice of class)."""
    cdef tf_rows r
    cdef double f[NN_FEATURE_INPUTS]
    _nn_rows(&r, on_roll, other, f, nn_features_of(net), nn_point_rows(net))
    tf_forward(net.fb1, net.fw1, net.hp, &r, net.fw2, net.fb2, p)
    nn_make_consistent(p)


cdef void neural_probs(const NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                       double* p) noexcept nogil:
    """Consistent probabilities for `on_roll`, about to roll against `other` (fast path)."""
    net = nn_class_net(net, on_roll, other, p)
    if net != NULL:
        _nn_probs_of(net, on_roll, other, p)


ctypedef struct NNBase:
    # The hidden sums shared by all the plays from one position (`before`, its mover in
    # row 0).  A play is evaluated with the opponent on roll, so the sums are those of
    # (on roll = before.c[1], other = before.c[0]).
    Board before
    const NeuralNetC* net       # the net of `before`'s class (nn_class_net), whose sums these are
    bint class_may_change       # a play may reach another class: a race from contact (when
                                # there is a race net or databases), or a bear-off (when there
                                # are databases and the side not moving has every checker home:
                                # a play cannot bring its checkers home, only hit them)
    int nf                      # the net's hand features
    double feat[NN_FEATURE_INPUTS]
    float h[NN_MAX_HIDDEN]


cdef void nn_base_prepare(const NeuralNetC* net, const Board* before, NNBase* base) noexcept nogil:
    """The base for evaluating the plays from `before` (row 0 about to move)."""
    cdef tf_rows r
    # The net of the position's class (a bear-off's plays are valued by the databases, so
    # whether it is one needs no look-up here).
    cdef const NeuralNetC* own = (
        net.race if net.race != NULL and rows_race(before.c[1], before.c[0]) else net)
    base.class_may_change = (
        (own == net and (net.race != NULL or net.bearoff != NULL) and nn_race_reachable(before))
        or (net.bearoff != NULL and bo_checkers_on(before.c[1], 6) > 0))
    net = base.net = own
    base.before = before[0]
    base.nf = nn_features_of(net)
    _nn_rows(&r, before.c[1], before.c[0], base.feat, base.nf, nn_point_rows(net))
    tf_sums(net.fb1, net.fw1, net.hp, &r, base.h)


cdef inline void _nn_delta_side(tf_rows* r, const int8_t* old, const int8_t* new,
                                int base) noexcept nogil:
    """The input changes of one side (its inputs at `base`) from row `old` to row `new`:
    only the points whose counts differ (in order, found by one compare), then borne off
    and pips."""
    cdef int p, k, n0, n1, u, spare, dpips = 0
    cdef uint32_t changed = tf_row_changes(old, new) & ~(<uint32_t>1)
    while changed:
        p = tf_ctz(changed)
        changed &= changed - 1
        n0 = old[p]
        n1 = new[p]
        dpips += p * (n1 - n0)
        if p == BAR:
            _rows_put(r, base + NN_BAR_UNIT, 0.5 * (n1 - n0))
            continue
        u = base + 4 * (p - 1)
        for k in range(3):                  # the units n >= 1, n >= 2, n >= 3
            if (n1 > k) != (n0 > k):
                _rows_put(r, u + k, 1.0 if n1 > k else -1.0)
        spare = (n1 - 3 if n1 > 3 else 0) - (n0 - 3 if n0 > 3 else 0)
        if spare:
            _rows_put(r, u + 3, 0.5 * spare)
    if old[OFF] != new[OFF]:
        _rows_put(r, base + NN_OFF_UNIT, (new[OFF] - old[OFF]) / 15.0)
    if dpips:
        _rows_put(r, base + NN_PIP_UNIT, dpips / 167.0)


cdef void nn_play_probs(const NeuralNetC* net, const NNBase* base, const Board* after,
                        double* p) noexcept nogil:
    """Probabilities for the side that has just moved (row 0 of `after`, sides not
    switched), from the base of the position it moved from (fast path).  A play into a
    bear-off is valued by the databases, if `net` has them; one that breaks contact is
    evaluated afresh by the race net, if `net` has one."""
    cdef tf_rows r
    cdef double q[NN_OUTPUTS]
    cdef double f[NN_FEATURE_INPUTS]
    cdef int k
    if after.c[0][OFF] == 15:
        nn_won_probs(after, True, p)
        return
    if base.class_may_change:
        net = nn_class_net(net, after.c[1], after.c[0], q)
        if net != base.net:             # the databases (NULL) or another net value it afresh
            if net != NULL:
                _nn_probs_of(net, after.c[1], after.c[0], q)
            nn_swap_sides(q, p)
            return
    net = base.net
    _rows_clear(&r)
    _nn_delta_side(&r, base.before.c[1], after.c[1], 0)                # now on roll
    _nn_delta_side(&r, base.before.c[0], after.c[0], NN_SIDE_INPUTS)   # has moved
    if base.nf:
        _nn_feature_values(after.c[1], after.c[0], f, base.nf)
        for k in range(base.nf):
            if f[k] != base.feat[k]:
                _rows_put(&r, NN_BASE_INPUTS + k, f[k] - base.feat[k])
    tf_forward(base.h, net.fw1, net.hp, &r, net.fw2, net.fb2, q)
    nn_make_consistent(q)
    nn_swap_sides(q, p)


cdef inline double nn_play_equity(const NeuralNetC* net, const NNBase* base,
                                  const Board* after) noexcept nogil:
    cdef double p[NN_OUTPUTS]
    nn_play_probs(net, base, after, p)
    return nn_equity(p)


cdef int nn_best_play_probs(const NeuralNetC* net, const NNBase* base, const Board* plays,
                            int n, double* best_probs, const double* prices=NULL) noexcept nogil:
    """Index of the play with the best 0-ply equity among plays[0:n] (the first of equals),
    gammons at `prices` (NULL: money); its probabilities (for its mover) go to best_probs."""
    cdef int i, best = 0
    cdef double v, best_v = -1e300
    cdef double p[NN_OUTPUTS]
    for i in range(n):
        nn_play_probs(net, base, &plays[i], p)
        v = nn_equity_priced(p, prices)
        if v > best_v:
            best_v = v
            best = i
            memcpy(best_probs, p, sizeof(p))
    return best


cdef int nn_best_play(const NeuralNetC* net, const NNBase* base, const Board* plays, int n,
                      double* best_equity) noexcept nogil:
    """Index of the play with the best 0-ply equity among plays[0:n] (the first of equals);
    its equity goes to best_equity."""
    cdef double p[NN_OUTPUTS]
    cdef int best = nn_best_play_probs(net, base, plays, n, p)
    best_equity[0] = nn_equity(p)
    return best


cdef inline int nn_roll_index(int d1, int d2) noexcept nogil:
    """Row of the roll (d1, d2) in a roll table: the rolls a <= b in the order 11, 12, .., 66."""
    cdef int a = d1 if d1 < d2 else d2, b = d1 if d1 > d2 else d2
    return (a - 1) * (14 - a) // 2 + (b - a)


cdef int nn_roll_table(const NeuralNetC* net, MoveGen* g, const Board* before,
                       double* table, const double* prices=NULL) noexcept nogil:
    """For each of the 21 rolls of the side on roll of `before` (row 0), the probabilities
    (its view) after its best 0-ply play, gammons at its `prices` (NULL: money):
    table[nn_roll_index(d1, d2) * NN_OUTPUTS + k].  One base serves all 21 rolls.
    Returns 0, or -1 if a roll has more plays than the generator `g` holds (the table is
    then incomplete)."""
    cdef NNBase base
    cdef int d1, d2, n
    nn_base_prepare(net, before, &base)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            n = generate_plays(g, before, d1, d2)
            if n < 0:
                return -1
            nn_best_play_probs(net, &base, g.out, n, table + nn_roll_index(d1, d2) * NN_OUTPUTS,
                               prices)
    return 0


cdef inline double nn_roll_table_equity(const double* table) noexcept nogil:
    """The mean over the 36 rolls of the equities in a roll table (doubles count once,
    the others twice): the 1-ply value of the position for its side on roll."""
    cdef int d1, d2
    cdef double v, total = 0.0
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            v = nn_equity(table + nn_roll_index(d1, d2) * NN_OUTPUTS)
            total += v if d1 == d2 else 2.0 * v
    return total / 36.0


cdef void nn_roll_table_mean(const double* table, double* mean,
                             bint no_doubles=False) noexcept nogil:
    """The mean over the 36 rolls of the probabilities in a roll table (doubles count once,
    the others twice); with `no_doubles`, over the 30 non-double rolls the R5 opening
    roll is drawn from."""
    cdef int a, b, k
    cdef double w
    cdef const double* row
    memset(mean, 0, NN_OUTPUTS * sizeof(double))
    for a in range(1, 7):
        for b in range(a, 7):
            if no_doubles:
                w = 0.0 if a == b else 2.0 / 30.0
            else:
                w = (1.0 if a == b else 2.0) / 36.0
            row = table + nn_roll_index(a, b) * NN_OUTPUTS
            for k in range(NN_OUTPUTS):
                mean[k] += w * row[k]


cdef void nn_add_luck(const double* table, int d1, int d2, bint swap, bint no_doubles,
                      double* luck) noexcept nogil:
    """Add the luck of the roll (d1, d2) to `luck`: the probabilities after the best play for
    these dice minus their mean over the rolls the dice were drawn from (the 36, or the 30
    non-doubles of the R5 opening roll: measured against all 36, the opening's luck would
    not average to zero and would bias the adjusted result), from the table of the side on
    roll; with `swap`, seen by its opponent (win and loss exchanged, so each difference
    changes sign or moves to the opposite figure)."""
    cdef int k
    cdef double mean[NN_OUTPUTS]
    cdef double d[NN_OUTPUTS]
    cdef const double* row = table + nn_roll_index(d1, d2) * NN_OUTPUTS
    nn_roll_table_mean(table, mean, no_doubles)
    for k in range(NN_OUTPUTS):
        d[k] = row[k] - mean[k]
    if swap:
        luck[NN_WIN] -= d[NN_WIN]
        luck[NN_WIN_GAMMON] += d[NN_LOSE_GAMMON]
        luck[NN_WIN_BACKGAMMON] += d[NN_LOSE_BACKGAMMON]
        luck[NN_LOSE_GAMMON] += d[NN_WIN_GAMMON]
        luck[NN_LOSE_BACKGAMMON] += d[NN_WIN_BACKGAMMON]
    else:
        for k in range(NN_OUTPUTS):
            luck[k] += d[k]


cdef inline void nn_won_probs(const Board* after, bint backgammons, double* p) noexcept nogil:
    """The exact outcome for row 0, which has just borne off its last checker (R20)."""
    cdef int q
    p[NN_WIN] = 1.0
    p[NN_WIN_GAMMON] = 1.0 if after.c[1][OFF] == 0 else 0.0
    p[NN_WIN_BACKGAMMON] = 0.0
    p[NN_LOSE_GAMMON] = 0.0
    p[NN_LOSE_BACKGAMMON] = 0.0
    if backgammons and after.c[1][OFF] == 0:
        # The loser's points 19..24 are the winner's home board; 25 is the bar.
        for q in range(19, 26):
            if after.c[1][q]:
                p[NN_WIN_BACKGAMMON] = 1.0
                break


cdef void nn_after_probs(const NeuralNetC* net, const Board* after, double* p,
                         bint exact) noexcept nogil:
    """Probabilities for the side that has just moved (row 0 of `after`, sides not
    switched), by one evaluation of the board alone (fast, or float64 when `exact`)."""
    cdef double q[NN_OUTPUTS]
    if after.c[0][OFF] == 15:
        nn_won_probs(after, True, p)
        return
    if exact:
        neural_probs_exact(net, after.c[1], after.c[0], q)      # the opponent is on roll
    else:
        neural_probs(net, after.c[1], after.c[0], q)
    nn_swap_sides(q, p)


cdef void neural_after_probs(const NeuralNetC* net, const Board* after, double* p) noexcept nogil:
    """Probabilities for the side that has just moved (row 0 of `after`, sides not switched)."""
    nn_after_probs(net, after, p, False)


cdef double neural_1ply_equity(const NeuralNetC* net, MoveGen* g, const Board* after,
                               double* table, const double* prices=NULL,
                               const double* reply_prices=NULL) noexcept nogil:
    """1-ply equity of a post-move board for its mover: the mean over the opponent's 21
    rolls of the opponent's best 0-ply reply, seen from the mover.  In a match the mover
    values gammons at its `prices` and the opponent picks replies at its `reply_prices`
    (both NULL: money).  Uses `g` for the replies (not the generator holding the mover's
    own candidates).  If `table` is not NULL it receives the opponent's roll table
    (nn_roll_table, for the luck of his next roll), and table[0] is set to -1 when there
    is none (the game is over, or a roll has more plays than `g` holds: the value is then
    the 0-ply one)."""
    cdef Board opp
    cdef double local[NN_ROLLS * NN_OUTPUTS]
    cdef double* t = table if table != NULL else local
    cdef double theirs[NN_OUTPUTS]
    cdef double mine[NN_OUTPUTS]
    t[0] = -1.0
    if after.c[0][OFF] != 15:
        memcpy(opp.c[0], after.c[1], 26)
        memcpy(opp.c[1], after.c[0], 26)
        if nn_roll_table(net, g, &opp, t, reply_prices) == 0:
            if prices == NULL:
                return -nn_roll_table_equity(t)     # money, summed as it always was
            nn_roll_table_mean(t, theirs)
            nn_swap_sides(theirs, mine)
            return nn_equity_priced(mine, prices)
        t[0] = -1.0
    neural_after_probs(net, after, mine)
    return nn_equity_priced(mine, prices)


cdef int neural_choose(const NeuralNetC* net, const MoveGen* g, int n,
                       const double* prices=NULL) noexcept nogil:
    """Index of the play with the best 0-ply equity among g.out[0:n] (generated from g.root),
    gammons at `prices` in a match (NULL: money)."""
    cdef NNBase base
    cdef double p[NN_OUTPUTS]
    nn_base_prepare(net, &g.root, &base)
    return nn_best_play_probs(net, &base, g.out, n, p, prices)


cdef int neural_choose_1ply(const NeuralNetC* net, const MoveGen* g, int n, MoveGen* scratch,
                            const MoveFilter* filt, double* next_table,
                            const double* prices=NULL,
                            const double* reply_prices=NULL) noexcept nogil:
    """Index of the best play by 1-ply equity among the few best by 0-ply (the move filter
    `filt` keeps the cost at a handful of 21-roll looks a move).  In a match, gammons at the
    mover's `prices` and replies picked at the opponent's `reply_prices` (NULL: money).
    If `next_table` is not NULL it receives the opponent's roll table after the chosen play
    (from its 1-ply look; next_table[0] = -1 when there is none): the luck of his next roll
    comes free."""
    cdef NNBase base
    cdef int i, j, m = 0, best
    cdef int cap = filt.candidates
    cdef int cand[NN_MAX_CANDIDATES]
    cdef double eq[NN_MAX_CANDIDATES]
    cdef double table[NN_ROLLS * NN_OUTPUTS]
    cdef double p[NN_OUTPUTS]
    cdef double v, best_v
    cand[0] = 0
    if next_table != NULL:
        next_table[0] = -1.0
    nn_base_prepare(net, &g.root, &base)
    # The top candidates by 0-ply equity, kept sorted (insertion into a short list).
    for i in range(n):
        nn_play_probs(net, &base, &g.out[i], p)
        v = nn_equity_priced(p, prices)
        if m == cap and v <= eq[m - 1]:
            continue
        j = m if m < cap else m - 1
        while j > 0 and eq[j - 1] < v:
            eq[j] = eq[j - 1]
            cand[j] = cand[j - 1]
            j -= 1
        eq[j] = v
        cand[j] = i
        if m < cap:
            m += 1
    best = cand[0]
    if m == 1:
        return best
    best_v = -1e300
    for j in range(m):
        if eq[j] < eq[0] - filt.window:
            break
        v = neural_1ply_equity(net, scratch, &g.out[cand[j]], table, prices, reply_prices)
        if v > best_v:
            best_v = v
            best = cand[j]
            if next_table != NULL:
                memcpy(next_table, table, sizeof(table))
    return best


# ---------------------------------------------------------------- TD(0) training

cdef void nn_sync_points(NeuralNetC* net) noexcept nogil:
    """The point rows: for side s, point p, n = 1..15 checkers there, fw1 row
    nn_point_row(n_inputs + NN_SIDE_POINT_ROWS s, p, n) is the sum of the rows of the inputs that n
    checkers switch on (n >= 1, n >= 2, n >= 3, and the spare unit times (n - 3) / 2),
    summed in float64 and rounded once.  A full evaluation then adds one row per occupied
    point instead of up to four (the plays of a roll still change the raw inputs' rows)."""
    cdef int s, p, n, j, u, h = net.n_hidden, hp = net.hp
    cdef float* row
    cdef const double* w
    for s in range(2):
        for p in range(1, 25):
            u = NN_SIDE_INPUTS * s + 4 * (p - 1)
            w = net.w1 + u * h
            for n in range(1, NN_POINT_COUNTS + 1):
                row = net.fw1 + nn_point_row(net.n_inputs + NN_SIDE_POINT_ROWS * s, p, n) * hp
                for j in range(h):
                    row[j] = <float>(w[j] + (w[h + j] if n >= 2 else 0.0)
                                     + (w[2 * h + j] if n >= 3 else 0.0)
                                     + ((n - 3) * 0.5 * w[3 * h + j] if n > 3 else 0.0))
    net.points_fresh = True


cdef void nn_sync_fast(NeuralNetC* net, const tf_rows* rows) noexcept nogil:
    """Copy the float64 weights into the fast path's float32 copy: the biases, the output
    layer, and the rows of w1 of the inputs in `rows` (all rows, and the point rows, when
    `rows` is NULL; a training step's rows leave the point rows stale, so that training
    evaluates by the raw rows throughout, and `train` renews them at its end)."""
    cdef int i, a, j, o, h = net.n_hidden, hp = net.hp
    cdef int n = net.n_inputs if rows == NULL else _rows_count(rows)
    for j in range(h):
        net.fb1[j] = <float>net.b1[j]
    for o in range(NN_OUTPUTS):
        net.fb2[o] = <float>net.b2[o]
        for j in range(h):
            net.fw2[o * hp + j] = <float>net.w2[o * h + j]
    for a in range(n):
        i = a
        if rows != NULL:
            _rows_item(rows, a, &i)
        for j in range(h):
            net.fw1[i * hp + j] = <float>net.w1[i * h + j]
    if rows == NULL:
        nn_sync_points(net)
    else:
        net.points_fresh = False


cdef void nn_td_update(NeuralNetC* net, const int8_t* on_roll, const int8_t* other,
                       const double* target, double alpha) noexcept nogil:
    """One gradient step moving the raw outputs for (on_roll to play) towards `target`.

    Cross-entropy loss on each sigmoid output, so the output error is simply
    target - output (no vanishing gradient when an output saturates).  The step is
    taken in float64 (the exact path); the fast path's copy of what it changed is then
    refreshed, so it always equals the weights rounded to float32 and a resumed run
    (whose copy is made afresh from the saved weights) continues bit for bit.
    """
    cdef tf_rows x
    cdef double f[NN_FEATURE_INPUTS]
    _nn_rows(&x, on_roll, other, f, nn_features_of(net))
    nn_td_step(net, &x, target, alpha)


cdef void nn_td_step(NeuralNetC* net, const tf_rows* x, const double* target,
                     double alpha) noexcept nogil:
    """The gradient step of nn_td_update for the inputs `x`, whatever encoded them (the
    Plakoto and Fevga nets of _variant_neural.pxi share it)."""
    cdef double hidden[NN_MAX_HIDDEN]
    cdef double dh[NN_MAX_HIDDEN]
    cdef double out[NN_OUTPUTS]
    cdef double delta[NN_OUTPUTS]
    cdef int a, i, j, o, h = net.n_hidden
    cdef double s, v
    cdef double* row
    nn_forward(net, x, hidden, out)
    for o in range(NN_OUTPUTS):
        delta[o] = alpha * (target[o] - out[o])
    for j in range(h):
        s = 0.0
        for o in range(NN_OUTPUTS):
            s += delta[o] * net.w2[o * h + j]
        dh[j] = s * hidden[j] * (1.0 - hidden[j])
    for o in range(NN_OUTPUTS):
        row = net.w2 + o * h
        for j in range(h):
            row[j] += delta[o] * hidden[j]
        net.b2[o] += delta[o]
    for j in range(h):
        net.b1[j] += dh[j]
    for a in range(_rows_count(x)):
        v = _rows_item(x, a, &i)
        row = net.w1 + i * h
        for j in range(h):
            row[j] += v * dh[j]
    nn_sync_fast(net, x)


cdef int nn_train_game(NeuralNetC* net, MoveGen* g, Rng* rng, double alpha, double lam,
                       bint backgammons, int8_t* hist, double* targets, int cap,
                       int* plies) noexcept nogil:
    """One self-play game from the start, learning by TD(0) or, with `lam` > 0, TD(lambda).

    Each side plays the play with the best 0-ply equity.  The one-step target of a
    position is the value of the position chosen (seen from the mover), or the real result
    when the play wins.  TD(0) (`lam` 0) moves the net towards it after every ply.
    TD(lambda) is the forward view, offline: the game is played with the weights fixed,
    then each position (of `cap` at most, kept in `hist` and `targets`) is moved towards
    its lambda-return, G_t = (1 - lam) * target_t + lam * G_t+1 (G_t+1 seen from the
    other side), G of the last position being the result.  lam 1 learns from the results
    alone.  Returns the outcome for the first mover (WIN_SINGLE .. LOSE_BACKGAMMON
    numbering: 0-2 wins, 3-5 losses), or -1 if the game did not end.
    """
    cdef Board b
    cdef NNBase base
    cdef double target[NN_OUTPUTS]
    cdef double ret[NN_OUTPUTS]
    cdef double v
    cdef int8_t tmp[26]
    cdef int d1, d2, n, best, side = 0, k, t, o
    cdef int limit = 100000 if lam == 0.0 else cap
    board_start(&b)
    plies[0] = 0
    while plies[0] < limit:
        rng_dice(rng, &d1, &d2)
        while plies[0] == 0 and d1 == d2:       # R5: no double on the opening play
            rng_dice(rng, &d1, &d2)
        n = generate_plays(g, &b, d1, d2)
        if n < 0:
            return -1
        nn_base_prepare(net, &b, &base)
        best = nn_best_play(net, &base, g.out, n, &v)
        nn_play_probs(net, &base, &g.out[best], target)
        if g.out[best].c[0][OFF] == 15:
            nn_won_probs(&g.out[best], backgammons, target)
        if lam == 0.0:
            nn_td_update(net, b.c[0], b.c[1], target, alpha)
        else:
            memcpy(hist + plies[0] * 52, b.c, 52)
            memcpy(targets + plies[0] * NN_OUTPUTS, target, sizeof(target))
        b = g.out[best]
        plies[0] += 1
        if b.c[0][OFF] == 15:
            k = <int>(target[NN_WIN_GAMMON] + target[NN_WIN_BACKGAMMON])
            if lam != 0.0:
                # The returns, last position first (each from its own mover's side).
                for t in range(plies[0] - 2, -1, -1):
                    nn_swap_sides(targets + (t + 1) * NN_OUTPUTS, ret)
                    for o in range(NN_OUTPUTS):
                        targets[t * NN_OUTPUTS + o] = ((1.0 - lam) * targets[t * NN_OUTPUTS + o]
                                                       + lam * ret[o])
                for t in range(plies[0]):
                    nn_td_update(net, hist + t * 52, hist + t * 52 + 26,
                                 targets + t * NN_OUTPUTS, alpha)
            return k if side == 0 else 3 + k
        memcpy(tmp, b.c[0], 26)                 # switch sides: the opponent is on roll
        memcpy(b.c[0], b.c[1], 26)
        memcpy(b.c[1], tmp, 26)
        side ^= 1
    return -1


# ---------------------------------------------------------------- supervised training data

cdef int nn_sample_game(const NeuralNetC* net, MoveGen* g, Rng* rng, double explore,
                        int8_t* out, int8_t* results, Py_ssize_t cap,
                        Py_ssize_t* count) noexcept nogil:
    """One 0-ply self-play game from the start, appending every position before a roll after
    the opening one (row 0 on roll, 52 bytes each) to `out` while `count` < `cap`.  With
    probability `explore` a turn plays a uniformly random legal play instead of the best: the
    positions then cover more than the net's own style of play.  If `results` is not NULL,
    results[i] receives the game's outcome for the side on roll of position i (0-2: it wins
    single, gammon, backgammon; 3-5: it loses so), or -1 when a random play came later in the
    game (the outcome is then not the net's own).  Returns 0, or -1 if the game did not end
    or a roll had more plays than `g` holds."""
    cdef Board b
    cdef NNBase base
    cdef double v
    cdef double won[NN_OUTPUTS]
    cdef int8_t tmp[26]
    cdef int d1, d2, n, best, plies = 0, last_random = 0, k
    cdef Py_ssize_t first = count[0], i
    board_start(&b)
    while plies < 100000:
        if plies > 0 and count[0] < cap:
            memcpy(out + count[0] * 52, b.c, 52)
            count[0] += 1
        rng_dice(rng, &d1, &d2)
        while plies == 0 and d1 == d2:          # R5: no double on the opening play
            rng_dice(rng, &d1, &d2)
        n = generate_plays(g, &b, d1, d2)
        if n < 0:
            return -1
        if explore > 0.0 and <double>rng_below(rng, 1000000) < explore * 1000000.0:
            best = <int>rng_below(rng, <uint64_t>n)
            last_random = plies
        else:
            nn_base_prepare(net, &b, &base)
            best = nn_best_play(net, &base, g.out, n, &v)
        b = g.out[best]
        plies += 1
        if b.c[0][OFF] == 15:
            if results != NULL:
                # Position i was recorded before ply i - first + 1; the winner moved last.
                nn_won_probs(&b, True, won)
                k = <int>(won[NN_WIN_GAMMON] + won[NN_WIN_BACKGAMMON])
                for i in range(first, count[0]):
                    if i - first + 1 <= last_random:
                        results[i] = -1
                    elif (i - first + 1) % 2 == (plies - 1) % 2:
                        results[i] = k
                    else:
                        results[i] = 3 + k
            return 0
        memcpy(tmp, b.c[0], 26)                 # switch sides: the opponent is on roll
        memcpy(b.c[0], b.c[1], 26)
        memcpy(b.c[1], tmp, 26)
    return -1


cdef int nn_1ply_probs(const NeuralNetC* net, MoveGen* g, const Board* before,
                       double* p) noexcept nogil:
    """The 1-ply probabilities of `before` for its side on roll (row 0, before rolling): the
    mean over the 36 rolls of its probabilities after its best 0-ply play.  Returns 0, or -1
    if a roll has more plays than `g` holds."""
    cdef double t[NN_ROLLS * NN_OUTPUTS]
    if nn_roll_table(net, g, before, t) < 0:
        return -1
    nn_roll_table_mean(t, p)
    return 0


cdef int nn_2ply_probs(const NeuralNetC* net, MoveGen* g, MoveGen* g2, const Board* before,
                       double* p) noexcept nogil:
    """The 2-ply probabilities of `before` for its side on roll: the mean over its 36 rolls
    of the 1-ply probabilities (nn_1ply_probs for the opponent, seen from this side) after
    its best 0-ply play.  `g` generates its plays, `g2` the look-ahead.  Returns 0, or -1 if
    a roll has more plays than a generator holds."""
    cdef NNBase base
    cdef Board opp
    cdef double q[NN_OUTPUTS]
    cdef double r[NN_OUTPUTS]
    cdef int a, b, k, n, best
    cdef double w
    nn_base_prepare(net, before, &base)
    memset(p, 0, NN_OUTPUTS * sizeof(double))
    for a in range(1, 7):
        for b in range(a, 7):
            n = generate_plays(g, before, a, b)
            if n < 0:
                return -1
            best = nn_best_play_probs(net, &base, g.out, n, q)
            if g.out[best].c[0][OFF] == 15:
                nn_won_probs(&g.out[best], True, q)
            else:
                memcpy(opp.c[0], g.out[best].c[1], 26)
                memcpy(opp.c[1], g.out[best].c[0], 26)
                if nn_1ply_probs(net, g2, &opp, r) < 0:
                    return -1
                nn_swap_sides(r, q)
            w = (1.0 if a == b else 2.0) / 36.0
            for k in range(NN_OUTPUTS):
                p[k] += w * q[k]
    return 0


cdef inline void board_start(Board* b) noexcept nogil:
    """The starting position (R3): 2 on the 24-point, 5 on 13, 3 on 8, 5 on 6, each side."""
    cdef int s
    memset(b.c, 0, 52)
    for s in range(2):
        b.c[s][24] = 2
        b.c[s][13] = 5
        b.c[s][8] = 3
        b.c[s][6] = 5


# ---------------------------------------------------------------- Python API

NEURAL_INPUTS = NN_V2_INPUTS                # the raw inputs and v2's hand features
NEURAL_EXTENDED_INPUTS = NN_EXTRA_INPUTS    # ... and issue 13's escapes, pip loss, dance
NEURAL_TIMING_INPUTS = NN_INPUTS            # ... and its containment, break contact, free pips
NEURAL_BASE_INPUTS = NN_BASE_INPUTS
NEURAL_OUTPUTS = NN_OUTPUTS
FILTER_CANDIDATES = NN_1PLY_CANDIDATES      # the 1-ply move filter's defaults and bound
FILTER_WINDOW = NN_1PLY_WINDOW
MAX_FILTER_CANDIDATES = NN_MAX_CANDIDATES
INPUT_COUNTS = (NN_BASE_INPUTS, NN_V2_INPUTS, NN_EXTRA_INPUTS, NN_INPUTS)   # a net's input sizes

cdef class NeuralNet:
    """A neural evaluator whose weights this object owns (float64, C order), with the
    C view `&net.c` for nogil code.

    NeuralNet(w1, b1, w2, b2, race=None, bearoff=None): w1 (I, H) input-major, b1 (H,),
    w2 (5, H), b2 (5,), where I is 198 (the raw inputs), 203 (with v2's hand features), 209
    (with issue 13's first set too) or 215 (and its second).  The arrays are copied;
    `arrays()` returns copies of the current weights.
    `race`: a NeuralNet without a race net of its own, which then evaluates every position
    with no contact left (the class gnubg's race net covers), this one the others.
    `bearoff`: the bear-off databases (BearoffTables), which then value every position where
    both sides are bearing off (`nn_bearoff_probs`), before either net.
    """
    cdef NeuralNetC c
    cdef object _w1, _b1, _w2, _b2
    cdef NeuralNet _race
    cdef BearoffTables _bearoff
    cdef float* _fast              # the fast path's float32 copy (one block)

    def __cinit__(self, w1, b1, w2, b2, NeuralNet race=None, BearoffTables bearoff=None):
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
        self._fast = <float*>calloc((self.c.n_inputs + NN_POINT_ROWS + 1 + NN_OUTPUTS) * hp,
                                    sizeof(float))
        if self._fast == NULL:
            raise MemoryError("cannot allocate the fast copy of the weights")
        self.c.hp = hp
        self.c.fw1 = self._fast
        self.c.fb1 = self._fast + (self.c.n_inputs + NN_POINT_ROWS) * hp
        self.c.fw2 = self.c.fb1 + hp
        nn_sync_fast(&self.c, NULL)
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

    def __dealloc__(self):
        free(self._fast)

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

    def play_equities(self, const int8_t[:, ::1] board, const int8_t[:, :, ::1] plays):
        """float64[n]: the 0-ply equity of each of `plays` (post-move boards, sides not
        switched) for its mover, evaluated as the players do: as changes to the hidden
        sums of `board`, the position they were played from (row 0 to move).  Any boards
        are accepted; the closer they are to `board`, the fewer inputs change.  (With the
        bear-off databases, a board whose row 1 is all home while `board`'s is not is valued
        by the net: a play cannot bring the other side home.)"""
        cdef Board b
        cdef NNBase* base
        cdef Py_ssize_t i, n = plays.shape[0]
        _load_board(board, &b)
        if plays.shape[1] != 2 or plays.shape[2] != 26:
            raise ValueError("plays must have shape (n, 2, 26)")
        out = np.empty(n, dtype=np.float64)
        cdef double[::1] o = out
        base = <NNBase*>calloc(1, sizeof(NNBase))
        if base == NULL:
            raise MemoryError()
        try:
            with nogil:
                nn_base_prepare(&self.c, &b, base)
                for i in range(n):
                    o[i] = nn_play_equity(&self.c, base, <const Board*>&plays[i, 0, 0])
        finally:
            free(base)
        return out

    def move_equity(self, const int8_t[:, ::1] board, int ply=0, bint exact=False,
                    const double[::1] prices=None, const double[::1] reply_prices=None):
        """Cubeless equity of a post-move board for its mover (row 0, sides not switched),
        at 0 or 1 ply; `exact` (0 ply only) evaluates by the float64 reference.  In a match,
        `prices` are the mover's gammon prices (cube.gammon_prices) and `reply_prices` the
        opponent's, at which the 1-ply look picks his replies (None: money)."""
        cdef Board b
        cdef MoveGen* g
        cdef double v
        cdef double p[NN_OUTPUTS]
        cdef const double* mine = NULL
        cdef const double* theirs = NULL
        _load_board(board, &b)
        if ((prices is not None and prices.shape[0] != 4)
                or (reply_prices is not None and reply_prices.shape[0] != 4)):
            raise ValueError("gammon prices are four numbers")
        if prices is not None:
            mine = &prices[0]
        if reply_prices is not None:
            theirs = &reply_prices[0]
        if ply == 0:
            nn_after_probs(&self.c, &b, p, exact)
            return nn_equity_priced(p, mine)
        if ply != 1:
            raise ValueError(f"ply must be 0 or 1, not {ply}")
        if exact:
            raise ValueError("the exact path evaluates at 0 ply only")
        if (mine == NULL) != (theirs == NULL):
            raise ValueError("the 1-ply look needs both sides' gammon prices, or neither")
        g = _new_movegen()
        try:
            with nogil:
                v = neural_1ply_equity(&self.c, g, &b, NULL, mine, theirs)
        finally:
            free(g)
        return v

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
        on roll (row 0, before rolling).  1: the mean over the 36 rolls of its 0-ply
        probabilities after its best play; 2: the same with the position after each best
        play valued at 1 ply (about 20 times the work).  GIL released.  The games must be in
        progress."""
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
        cdef MoveGen* g2 = NULL
        try:
            g2 = _new_movegen()
            with nogil:
                for i in range(m):
                    if plies == 1:
                        failed = nn_1ply_probs(&self.c, g, <const Board*>&boards[i, 0, 0], &o[i, 0])
                    else:
                        failed = nn_2ply_probs(&self.c, g, g2, <const Board*>&boards[i, 0, 0],
                                               &o[i, 0])
                    if failed:
                        break
        finally:
            free(g)
            free(g2)
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
