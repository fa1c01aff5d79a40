# gnubg Position ID in C, for the hot paths (legal_positions returns thousands
# of ids a millisecond).  Spec: RULES.md "Conventions": an 80-bit key holding
# the player NOT on roll first; per side, from its ace point up to its bar, one
# 1 bit per checker then a 0 bit; little-endian bit order; base64, no padding.

cdef extern from *:
    ctypedef unsigned long long uint128 "unsigned __int128"

cdef const char* _B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


# The key of two consecutive points holding a and b checkers (0..15 each), indexed by
# a + 16 b: a ones, a zero, b ones, a zero; and its length a + b + 2.  Filled at import.
cdef uint32_t _PAIR_BITS[256]
cdef uint8_t _PAIR_LENGTH[256]


cdef void _init_pair_table() noexcept:
    cdef int a, b
    for a in range(16):
        for b in range(16):
            _PAIR_BITS[a + 16 * b] = (((<uint32_t>1) << a) - 1) | ((((<uint32_t>1) << b) - 1) << (a + 1))
            _PAIR_LENGTH[a + 16 * b] = <uint8_t>(a + b + 2)


_init_pair_table()


cdef inline uint64_t posid_side_bits(const int8_t* row, int* length) noexcept nogil:
    """One side's part of the key (at most 15 + 25 = 40 bits): per point 1..25, n ones then a
    zero; two points at a time by table, with no branch."""
    cdef uint64_t bits = 0
    cdef int p, i, at = 0
    for p in range(1, 25, 2):
        i = (row[p] & 15) | ((row[p + 1] & 15) << 4)
        bits |= (<uint64_t>_PAIR_BITS[i]) << at
        at += _PAIR_LENGTH[i]
    bits |= (((<uint64_t>1) << (row[BAR] & 15)) - 1) << at     # point 25, the bar
    length[0] = at + (row[BAR] & 15) + 1
    return bits


cdef inline uint32_t occupancy(const int8_t* row) noexcept nogil:
    """Bit p set for the points 1..25 holding checkers (no branch per point)."""
    cdef uint32_t m = 0
    cdef int p
    for p in range(1, 26):
        m |= (<uint32_t>(row[p] != 0)) << p
    return m


cdef inline void posid_from_bits(uint64_t opp, int opp_len, uint64_t mine, char* out) noexcept nogil:
    """Base64 of the 80-bit key made of the opponent's bits, then mine."""
    cdef uint64_t lo = opp | (mine << opp_len)
    cdef uint64_t hi = mine >> (64 - opp_len) if opp_len < 64 else 0
    cdef uint32_t v
    cdef uint8_t key[12]
    cdef int i
    for i in range(8):
        key[i] = <uint8_t>(lo >> (8 * i))
    key[8] = <uint8_t>hi
    key[9] = <uint8_t>(hi >> 8)
    key[10] = 0
    key[11] = 0
    # Bytes go to base64 three at a time, most significant first.
    for i in range(4):
        v = (<uint32_t>key[3 * i] << 16) | (<uint32_t>key[3 * i + 1] << 8) | key[3 * i + 2]
        out[4 * i] = _B64[(v >> 18) & 63]
        out[4 * i + 1] = _B64[(v >> 12) & 63]
        if i < 3:
            out[4 * i + 2] = _B64[(v >> 6) & 63]
            out[4 * i + 3] = _B64[v & 63]


cdef inline void posid_encode(const Board* b, char* out) noexcept nogil:
    """Write the 14-character Position ID of `b` (side 0 on roll) to out[0..13]."""
    cdef int opp_len, my_len
    cdef uint64_t opp = posid_side_bits(b.c[1], &opp_len)
    cdef uint64_t mine = posid_side_bits(b.c[0], &my_len)
    posid_from_bits(opp, opp_len, mine, out)


# Sextet value of each byte, -1 for a character outside the alphabet; filled
# once at import and only read afterwards.
cdef int8_t _B64_VALUE[256]


cdef void _init_b64_table() noexcept:
    cdef int i
    for i in range(256):
        _B64_VALUE[i] = -1
    for i in range(64):
        _B64_VALUE[<uint8_t>_B64[i]] = <int8_t>i


_init_b64_table()


cdef inline int posid_decode(const char* s, Board* b) noexcept nogil:
    """Decode 14 characters into `b`; 0 if it is a legal position, else an error code.

    Error codes: 1 bad character, 2 the key ends before both sides are complete,
    3 more than 15 checkers for the opponent, 7 for the player on roll, 4 both
    colours on one point, 5 padding bits of the last character set, 8 bits set
    after the end of the key, 6 both sides have borne off all 15.
    position.py words the messages.
    """
    cdef int i, err
    cdef int sext[14]
    cdef uint32_t v
    cdef uint128 key = 0
    for i in range(14):
        sext[i] = _B64_VALUE[<uint8_t>s[i]]
        if sext[i] < 0:
            return 1
    for i in range(4):
        v = (<uint32_t>sext[4 * i] << 18) | (<uint32_t>sext[4 * i + 1] << 12)
        if i < 3:
            v |= (<uint32_t>sext[4 * i + 2] << 6) | <uint32_t>sext[4 * i + 3]
        elif v & 0xFFFF:
            return 5                      # the 4 padding bits of the last character
        key |= (<uint128>((v >> 16) & 0xFF)) << (24 * i)
        if i < 3:
            key |= (<uint128>((v >> 8) & 0xFF)) << (24 * i + 8)
            key |= (<uint128>(v & 0xFF)) << (24 * i + 16)
    memset(b, 0, sizeof(Board))
    if not _posid_checkers(<uint64_t>key, <uint64_t>(key >> 64), b):
        # Something is wrong with the key: the point-by-point reading says exactly what.
        err = _posid_points(key, b)
        if err:
            return err
    return _posid_check_board(b)


cdef inline bint _posid_checkers(uint64_t lo, uint64_t hi, Board* b) noexcept nogil:
    """The fast reading of a well-formed 80-bit key (lo: bits 0..63, hi: 64..79) into `b`
    (zeroed): each 1 bit is a checker on the point given by the number of 0 bits before
    it (0..24: the opponent's points 1..25, 25..49: mine).  False, with `b` left to be
    read again, when the key is not well formed (more than 30 or 15 checkers, a 1 bit
    after the 50th 0 bit)."""
    cdef int k = 0, z, q, side, total[2]
    cdef uint64_t word
    cdef int base
    total[0] = total[1] = 0
    for base in range(0, 128, 64):
        word = lo if base == 0 else hi
        while word:
            q = base + tf_ctz64(word)
            word &= word - 1
            z = q - k                       # the 0 bits before this 1 bit
            k += 1
            if z >= 50 or k > 30:
                return False
            side = 1 if z < 25 else 0
            b.c[side][z + 1 if side == 1 else z - 24] += 1
            total[side] += 1
    if total[0] > 15 or total[1] > 15:
        return False
    b.c[0][0] = <int8_t>(15 - total[0])
    b.c[1][0] = <int8_t>(15 - total[1])
    return True


cdef inline int _posid_points(uint128 key, Board* b) noexcept nogil:
    """The reading point by point, with the first error found (codes 2, 3, 7, 8)."""
    cdef int side, p, n, total, used = 0
    memset(b, 0, sizeof(Board))
    for side in range(1, -1, -1):
        total = 0
        for p in range(1, 26):
            # Trailing ones of the key are this point's checkers.
            n = tf_ctz64(~(<uint64_t>key))
            total += n
            if total > 15:
                return 3 if side == 1 else 7
            used += n + 1
            if used > 80:
                return 2
            if n:
                b.c[side][p] = <int8_t>n
            key >>= n + 1
        b.c[side][0] = <int8_t>(15 - total)
    if key != 0:
        return 8
    return 0


cdef inline int _posid_check_board(const Board* b) noexcept nogil:
    """Codes 4 and 6 for a board read from a key."""
    cdef int p, both = 0
    for p in range(1, 25):                  # my point p is their point 25 - p
        both |= (b.c[0][p] != 0) & (b.c[1][25 - p] != 0)
    # Both colours on one of my points 1..24 (the bars may both hold checkers).
    if both:
        return 4
    if b.c[0][0] == 15 and b.c[1][0] == 15:
        return 6
    return 0
