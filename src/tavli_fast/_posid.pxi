# gnubg Position ID in C, for the hot paths (legal_positions returns thousands
# of ids a millisecond).  Spec: RULES.md "Conventions": an 80-bit key holding
# the player NOT on roll first; per side, from its ace point up to its bar, one
# 1 bit per checker then a 0 bit; little-endian bit order; base64, no padding.

cdef extern from *:
    ctypedef unsigned long long uint128 "unsigned __int128"

cdef const char* _B64 = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


cdef inline uint64_t posid_side_bits(const int8_t* row, uint32_t occupied, int* length) noexcept nogil:
    """One side's part of the key (at most 15 + 25 = 40 bits): per point 1..25, n ones then a zero.

    `occupied` has bit p set for the points holding checkers; only those are
    visited (an empty point is a lone zero bit).
    """
    cdef uint64_t bits = 0
    cdef int p, n, before = 0          # checkers on the points below p
    while occupied:
        p = tf_ctz(occupied)
        occupied &= occupied - 1
        n = row[p]
        bits |= (((<uint64_t>1) << n) - 1) << (p - 1 + before)
        before += n
    length[0] = 25 + before
    return bits


cdef inline uint32_t occupancy(const int8_t* row) noexcept nogil:
    cdef uint32_t m = 0
    cdef int p
    for p in range(1, 26):
        if row[p]:
            m |= (<uint32_t>1) << p
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
    cdef uint64_t opp = posid_side_bits(b.c[1], occupancy(b.c[1]), &opp_len)
    cdef uint64_t mine = posid_side_bits(b.c[0], occupancy(b.c[0]), &my_len)
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
    cdef int i, k, side, p, n, total, used = 0
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
    cdef uint32_t held[2]               # points each side holds, in MY numbering
    held[0] = 0
    held[1] = 0
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
                held[side] |= (<uint32_t>1) << (p if side == 0 else 25 - p)
            key >>= n + 1
        b.c[side][0] = <int8_t>(15 - total)
    if key != 0:
        return 8
    # Both colours on one of my points 1..24 (the bars, bits 25 and 0, may both hold checkers).
    if held[0] & held[1] & 0x1FFFFFE:
        return 4
    if b.c[0][0] == 15 and b.c[1][0] == 15:
        return 6
    return 0
