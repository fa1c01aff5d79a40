# The inputs of the Plakoto and Fevga nets (issue 44): one encoder, vn_encode, writes the
# nonzero inputs of a position by increasing index; the full evaluation, the plays of a
# roll (by the change from a base), training and the dense array of the Python API all
# start from it.  Included by _core.pyx after _neural.pxi (the rows tf_rows and _rows_put)
# and before _variant_neural.pxi (the nets, their players and training).
#
# The net adds the rows of the nonzero inputs in the order of their indices (vn_rows),
# as it did from the dense array: a zero input adds nothing (x + 0 w == x), so writing the
# nonzero ones only leaves every float sum bit for bit as it was.  The masks below give
# each side's inputs in one pass over its occupied points rather than a pass per input.
#
# Inputs, dense, for side s = 0 (on roll) and 1 (the opponent), each in its own
# numbering, at base = side size * s:
#   base + 4 (p - 1) + u, point p = 1..24, n checkers of that side on p (a pinned one
#     counted): u = 0: n >= 1, u = 1: n >= 2, u = 2: n >= 3, u = 3: (n - 3) / 2 if n > 3
#     (the backgammon net's truncated unary encoding)
# Plakoto (VNP_SIDE = 125 a side, 250 in all):
#   + 96 + (p - 1): this side's checker is pinned on its point p (P2, P3)
#   + 120: mother: exactly one checker left on its 24-point, not pinned (P5: it can be caught)
#   + 121: exposed: its lone unpinned checkers with an unpinned opposing checker 1-6 pips
#          behind them (a direct shot to pin), / 3
#   + 122: may bear off: every checker home and none pinned (P4)
#   + 123: borne off / 15;  + 124: pip count / 360 (the starting count)
# Fevga (VNF_SIDE = 103 a side, 206 in all):
#   + 96: runner: the F4 rule still holds this side's start point (checkers there, none
#         borne off, none yet on points 1-11)
#   + 97: prime: the longest run of this side's points in the opponent's path in front of
#         his rearmost checker, / 6
#   + 98: held: how many of this side's points are in that path, / 12
#   + 99: trap: six points of this side in a row with every opposing checker behind them
#         (F6: the opponent must be set free)
#   + 100: may bear off;  + 101: borne off / 15;  + 102: pip count / 360

cdef enum:
    VN_POINT_UNITS = 96
    VNP_PINNED = 96
    VNP_MOTHER = 120
    VNP_EXPOSED = 121
    VNP_BEAR = 122
    VNP_OFF = 123
    VNP_PIPS = 124
    VNP_SIDE = 125
    VNP_INPUTS = 250
    VNF_RUNNER = 96
    VNF_PRIME = 97
    VNF_HELD = 98
    VNF_TRAP = 99
    VNF_BEAR = 100
    VNF_OFF = 101
    VNF_PIPS = 102
    VNF_SIDE = 103
    VNF_INPUTS = 206
    VN_MAX_INPUTS = 256

cdef double VN_START_PIPS = 360.0


ctypedef struct VNInputs:
    # The nonzero inputs of a position, by increasing index: what vn_encode writes (each
    # input at most once, so n <= vn_input_count <= VN_MAX_INPUTS).  The rows of the net
    # are added in this order (vn_rows), so the order fixes the float sums.
    int n
    int i[VN_MAX_INPUTS]
    double v[VN_MAX_INPUTS]


cdef inline int vn_input_count(int game) noexcept nogil:
    return VNP_INPUTS if game == GAME_PLAKOTO else VNF_INPUTS


ctypedef struct VNRowMasks:
    # One row's points 1..24 as bit masks, bit p = its point p: those it has checkers on
    # (a count > 0), those with exactly one, the empty ones (a count of 0).
    uint32_t pos, one, zero


cdef inline uint32_t _vn_reverse(uint32_t m) noexcept nogil:
    """Bit p of m (p = 1..24) to bit 25 - p: a point in the other side's numbering."""
    m &= BOARD_BITS
    m = ((m >> 1) & 0x55555555) | ((m & 0x55555555) << 1)
    m = ((m >> 2) & 0x33333333) | ((m & 0x33333333) << 2)
    m = ((m >> 4) & 0x0F0F0F0F) | ((m & 0x0F0F0F0F) << 4)
    m = ((m >> 8) & 0x00FF00FF) | ((m & 0x00FF00FF) << 8)
    m = (m >> 16) | (m << 16)                   # bit p -> 31 - p
    return m >> 6


cdef inline void _vn_row_masks(const int8_t* row, VNRowMasks* m) noexcept nogil:
    cdef int p, n
    cdef uint32_t pos = 0, one = 0, zero = 0
    for p in range(1, 25):
        n = row[p]
        pos |= (<uint32_t>(n > 0)) << p
        one |= (<uint32_t>(n == 1)) << p
        zero |= (<uint32_t>(n == 0)) << p
    m.pos, m.one, m.zero = pos, one, zero


cdef inline void _vn_flag(VNInputs* s, int i) noexcept nogil:
    s.i[s.n] = i
    s.v[s.n] = 1.0
    s.n += 1


cdef inline void _vn_put(VNInputs* s, int i, double v) noexcept nogil:
    """Input i is v (left out if 0)."""
    if v != 0.0:
        s.i[s.n] = i
        s.v[s.n] = v
        s.n += 1


cdef inline int _vn_points(VNInputs* s, int base, const int8_t* row,
                           uint32_t occupied) noexcept nogil:
    """The 96 point units of one side (`occupied`: its points with checkers); returns its
    pip count."""
    cdef int p, n, u, pips = 0
    while occupied:
        p = tf_ctz(occupied)
        occupied &= occupied - 1
        n = row[p]
        pips += p * n
        u = base + 4 * (p - 1)
        _vn_flag(s, u)
        if n >= 2:
            _vn_flag(s, u + 1)
            if n >= 3:
                _vn_flag(s, u + 2)
                if n > 3:
                    _vn_put(s, u + 3, (n - 3) * 0.5)
    return pips


cdef inline void _vn_plakoto_side(VNInputs* s, int base, const int8_t* me, const int8_t* him,
                                  const VNRowMasks* mm, const VNRowMasks* hm,
                                  uint32_t my_pins, uint32_t his_pins) noexcept nogil:
    """One side's Plakoto inputs (`me`, with masks mm, against `him`, masks hm), at
    base + 0 .. VNP_SIDE - 1."""
    cdef int t
    cdef uint32_t pinned = my_pins & BOARD_BITS, blots, his_movable, reach = 0
    cdef int pips = _vn_points(s, base, me, mm.pos)
    while pinned:
        t = tf_ctz(pinned)
        pinned &= pinned - 1
        _vn_flag(s, base + VNP_PINNED + t - 1)
    # My lone checkers, not pinned, on a point he has no checker on; his checkers that may
    # move (not pinned), in my numbering.
    blots = mm.one & _vn_reverse(hm.zero) & ~my_pins & BOARD_BITS
    his_movable = _vn_reverse(hm.pos) & ~_vn_reverse(his_pins)
    if me[24] == 1 and not ((my_pins >> 24) & 1):
        _vn_flag(s, base + VNP_MOTHER)
    # He moves up my numbering: his checker on my point t reaches t + 1 .. t + 6.
    for t in range(1, 7):
        reach |= his_movable << t
    _vn_put(s, base + VNP_EXPOSED, tf_popcount64(blots & reach & BOARD_BITS) / 3.0)
    if (mm.pos & ~HOME_BITS) == 0 and my_pins == 0:
        _vn_flag(s, base + VNP_BEAR)
    _vn_put(s, base + VNP_OFF, me[0] / 15.0)
    _vn_put(s, base + VNP_PIPS, pips / VN_START_PIPS)


cdef inline int _vn_longest_run(uint32_t m) noexcept nogil:
    cdef int r = 0
    while m:
        m &= m >> 1
        r += 1
    return r


cdef inline void _vn_fevga_side(VNInputs* s, int base, const int8_t* me,
                                const VNRowMasks* mm, const VNRowMasks* hm) noexcept nogil:
    """One side's Fevga inputs (`me`, with masks mm, against the side of masks hm), at
    base + 0 .. VNF_SIDE - 1."""
    cdef uint32_t mine = mm.pos, his = hm.pos, path
    cdef int rear, front, held, run
    cdef int pips = _vn_points(s, base, me, mine)
    if me[24] > 0 and me[0] == 0 and (mine & 0xFFE) == 0:
        _vn_flag(s, base + VNF_RUNNER)
    if his:
        # My points along his path, bit q = his point q, mine across it (fevga_across):
        # from his rearmost checker's point - 1 down to 1, how many, and the longest run of
        # consecutive ones; the same in front of his foremost checker (a trap if >= 6).
        path = ((mine >> 12) & 0x1FFE) | ((mine & 0x1FFE) << 12)
        rear = 31 - tf_clz(his)
        front = tf_ctz(his)
        held = tf_popcount64(path & ((<uint32_t>1 << rear) - 2))
        run = _vn_longest_run(path & ((<uint32_t>1 << rear) - 2))
        _vn_put(s, base + VNF_PRIME, run / 6.0)
        _vn_put(s, base + VNF_HELD, held / 12.0)
        if _vn_longest_run(path & ((<uint32_t>1 << front) - 2)) >= 6:
            _vn_flag(s, base + VNF_TRAP)
    if (mine & ~HOME_BITS) == 0:
        _vn_flag(s, base + VNF_BEAR)
    _vn_put(s, base + VNF_OFF, me[0] / 15.0)
    _vn_put(s, base + VNF_PIPS, pips / VN_START_PIPS)


cdef void vn_encode(VNInputs* s, int game, const int8_t* on_roll, const int8_t* other,
                    uint32_t pins_on_roll, uint32_t pins_other) noexcept nogil:
    """The nonzero inputs of `on_roll` to play against `other`, by increasing index;
    pins_*: each side's pinned checkers, bit p = its own point p (Plakoto)."""
    cdef VNRowMasks m0, m1
    _vn_row_masks(on_roll, &m0)
    _vn_row_masks(other, &m1)
    s.n = 0
    if game == GAME_PLAKOTO:
        _vn_plakoto_side(s, 0, on_roll, other, &m0, &m1, pins_on_roll, pins_other)
        _vn_plakoto_side(s, VNP_SIDE, other, on_roll, &m1, &m0, pins_other, pins_on_roll)
    else:
        _vn_fevga_side(s, 0, on_roll, &m0, &m1)
        _vn_fevga_side(s, VNF_SIDE, other, &m1, &m0)


cdef void vn_inputs(double* x, int game, const int8_t* on_roll, const int8_t* other,
                    uint32_t pins_on_roll, uint32_t pins_other) noexcept nogil:
    """The dense inputs x[0:vn_input_count(game)] (zeros to VN_MAX_INPUTS) of vn_encode."""
    cdef VNInputs s
    cdef int k
    vn_encode(&s, game, on_roll, other, pins_on_roll, pins_other)
    memset(x, 0, VN_MAX_INPUTS * sizeof(double))
    for k in range(s.n):
        x[s.i[k]] = s.v[k]


cdef inline void vn_rows(tf_rows* r, const VNInputs* x, const VNInputs* base) noexcept nogil:
    """The rows of the inputs x (base NULL), or of their change from base, by increasing
    index: the change of an input in both is x - base, of one in x only x, of one in base
    only 0 - base (the dense arrays' differences, bit for bit)."""
    cdef int a = 0, b = 0, nb
    cdef double d
    _rows_clear(r)
    if base == NULL:
        for a in range(x.n):
            _rows_put(r, x.i[a], x.v[a])
        return
    nb = base.n
    while a < x.n or b < nb:
        if b == nb or (a < x.n and x.i[a] < base.i[b]):
            _rows_put(r, x.i[a], x.v[a])
            a += 1
        elif a == x.n or base.i[b] < x.i[a]:
            _rows_put(r, base.i[b], 0.0 - base.v[b])
            b += 1
        else:
            d = x.v[a] - base.v[b]
            if d != 0.0:
                _rows_put(r, x.i[a], d)
            a += 1
            b += 1
