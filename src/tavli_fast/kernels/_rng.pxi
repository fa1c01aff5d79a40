# xoshiro256** (Blackman & Vigna), seeded through splitmix64.  The state is an
# explicit struct passed into nogil code: no global generator anywhere.

cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t _splitmix64(uint64_t* x) noexcept nogil:
    x[0] += <uint64_t>0x9E3779B97F4A7C15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    cdef uint64_t x = seed
    cdef int i
    for i in range(4):
        r.s[i] = _splitmix64(&x)


cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s[1] * 5, 7) * 9
    cdef uint64_t t = r.s[1] << 17
    r.s[2] ^= r.s[0]
    r.s[3] ^= r.s[1]
    r.s[1] ^= r.s[2]
    r.s[0] ^= r.s[3]
    r.s[2] ^= t
    r.s[3] = _rotl(r.s[3], 45)
    return result


cdef inline uint64_t rng_below(Rng* r, uint64_t n) noexcept nogil:
    """Exactly uniform integer in [0, n): reject the top sliver of the 64-bit range."""
    cdef uint64_t limit = (<uint64_t>0xFFFFFFFFFFFFFFFFULL) - ((<uint64_t>0xFFFFFFFFFFFFFFFFULL) % n + 1) % n
    cdef uint64_t x = rng_next(r)
    while x > limit:
        x = rng_next(r)
    return x % n


cdef inline void rng_dice(Rng* r, int* d1, int* d2) noexcept nogil:
    """One roll of two dice: the 36 ordered outcomes equally likely."""
    cdef int k = <int>rng_below(r, 36)
    d1[0] = k // 6 + 1
    d2[0] = k % 6 + 1
