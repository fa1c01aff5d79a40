# The search's cache of evaluated positions (part of _neural.pxi, issue 54): the 1- and
# 2-ply probabilities of positions before the roll, keyed by the position's 80-bit
# Position ID key (posid_side_bits), the depth, and the gammon prices the two sides chose
# their plays at.  A direct-mapped table of a power-of-two size: a new entry replaces
# whatever held its slot, so the memory is bounded and nothing is ever freed in a search.
#
# Only values computed from the position itself are stored (a node's look-ahead, never a
# play's 0-ply value, which the players compute as a change to their parent's hidden sums
# and so differs from a fresh evaluation in the last float32 digits): a hit returns the
# very numbers the search would have computed, so a search gives the same answers with
# the cache and without it (tests/play/test_search.py).
#
# A cache belongs to one net: nn_cache_bind empties it when it is handed another.  The
# values are those of the weights when they were stored: empty it after changing them.

cdef enum:
    NN_CACHE_DEFAULT_BITS = 16          # 65,536 entries of 64 bytes: 4 MiB
    NN_CACHE_MAX_BITS = 24

ctypedef struct NNCacheEntry:
    uint64_t lo                 # the Position ID key's low 64 bits
    uint64_t tag                # its high 16 bits, the depth (bits 16-23), bit 24 set when used
    uint64_t prices             # a hash of both sides' gammon prices (0: money)
    double p[NN_OUTPUTS]        # the probabilities for the side on roll

ctypedef struct NNCache:
    NNCacheEntry* entries
    uint64_t mask               # entries - 1
    const void* owner           # the net whose values are stored
    uint64_t hits
    uint64_t misses

ctypedef struct NNCacheKey:
    uint64_t lo
    uint64_t tag
    uint64_t prices
    uint64_t slot


cdef inline uint64_t nn_mix64(uint64_t x) noexcept nogil:
    """A 64-bit finaliser (xor-shift-multiply): every input bit moves every output bit."""
    x ^= x >> 30
    x *= <uint64_t>0xbf58476d1ce4e5b9ULL
    x ^= x >> 27
    x *= <uint64_t>0x94d049bb133111ebULL
    x ^= x >> 31
    return x


cdef inline uint64_t nn_prices_hash(const double* prices) noexcept nogil:
    """0 for money (NULL), else a non-zero hash of the four gammon prices' bits."""
    cdef uint64_t h = 0x9e3779b97f4a7c15ULL, bits
    cdef int k
    if prices == NULL:
        return 0
    for k in range(4):
        memcpy(&bits, &prices[k], 8)
        h = nn_mix64(h ^ bits)
    return h | 1


cdef inline void nn_cache_key(const NNCache* cache, const Board* b, int plies,
                              const double* prices, const double* reply_prices,
                              NNCacheKey* key) noexcept nogil:
    """The key of `b` (row 0 on roll) valued at `plies` with its side on roll choosing at
    `prices` and the other side at `reply_prices` (a 2-ply value depends on both), and its
    slot in `cache`."""
    cdef int opp_len, my_len
    cdef uint64_t opp = posid_side_bits(b.c[1], &opp_len)
    cdef uint64_t mine = posid_side_bits(b.c[0], &my_len)
    key.lo = opp | (mine << opp_len)
    key.tag = ((mine >> (64 - opp_len) if opp_len < 64 else 0) | (<uint64_t>plies << 16)
               | (<uint64_t>1 << 24))
    key.prices = nn_prices_hash(prices) ^ nn_mix64(nn_prices_hash(reply_prices) + 1)
    if prices == NULL and reply_prices == NULL:
        key.prices = 0
    key.slot = nn_mix64(key.lo ^ nn_mix64(key.tag ^ key.prices)) & cache.mask


cdef inline bint nn_cache_find(NNCache* cache, const NNCacheKey* key, double* p) noexcept nogil:
    """Whether `cache` holds `key`; its probabilities go to `p` if so."""
    cdef NNCacheEntry* e = &cache.entries[key.slot]
    if e.lo == key.lo and e.tag == key.tag and e.prices == key.prices:
        memcpy(p, e.p, NN_OUTPUTS * sizeof(double))
        cache.hits += 1
        return True
    cache.misses += 1
    return False


cdef inline void nn_cache_store(NNCache* cache, const NNCacheKey* key,
                                const double* p) noexcept nogil:
    cdef NNCacheEntry* e = &cache.entries[key.slot]
    e.lo = key.lo
    e.tag = key.tag
    e.prices = key.prices
    memcpy(e.p, p, NN_OUTPUTS * sizeof(double))


cdef inline void nn_cache_clear(NNCache* cache) noexcept nogil:
    memset(cache.entries, 0, (cache.mask + 1) * sizeof(NNCacheEntry))
    cache.hits = 0
    cache.misses = 0


cdef inline void nn_cache_bind(NNCache* cache, const NeuralNetC* net) noexcept nogil:
    """Empty `cache` unless it already holds the values of `net`."""
    if cache != NULL and cache.owner != <const void*>net:
        nn_cache_clear(cache)
        cache.owner = <const void*>net


# A roll table's memo of its plays' probabilities (issue 54): the 21 rolls of a table share
# one base, and a play of one roll often reaches the very board a play of another roll
# reaches (one checker moved 7 pips by 6-1, 5-2 or 4-3; 1-1 played as 3 and 1).  From the
# same base the same board gets the same probabilities, so the second is looked up, not
# evaluated again: the table's numbers are those it had without the memo.  Only the plays
# the net values go in (the pre-filter's estimates cost less than looking them up), keyed
# by the whole board: a hash of its 52 bytes to find it, the bytes to be sure.  A memo
# holds the plays of one table: nn_memo_reset empties it for the next base; when it is
# full, plays not in it are simply evaluated.
cdef enum:
    NN_MEMO_BITS = 11           # 2,048 slots: at most half full
    NN_MEMO_ENTRIES = 1024      # plays kept (a 1-ply look's table values about 110)

ctypedef struct NNMemoEntry:
    Board board
    double p[NN_OUTPUTS]

ctypedef struct NNMemo:
    int n
    uint16_t slots[1 << NN_MEMO_BITS]   # 1 + an entry's index, 0 for empty
    NNMemoEntry e[NN_MEMO_ENTRIES]


cdef inline void nn_memo_reset(NNMemo* memo) noexcept nogil:
    if memo != NULL:
        memo.n = 0
        memset(memo.slots, 0, sizeof(memo.slots))


cdef inline uint32_t nn_board_slot(const Board* b) noexcept nogil:
    """A slot of the memo for board `b`: a hash of its 52 bytes."""
    cdef uint64_t w[7]
    w[6] = 0
    memcpy(w, b, sizeof(Board))
    return <uint32_t>(nn_mix64((w[0] + w[1] * <uint64_t>0x9E3779B97F4A7C15ULL)
                               ^ (w[2] + w[3] * <uint64_t>0xC2B2AE3D27D4EB4FULL)
                               ^ (w[4] + (w[5] ^ (w[6] << 7)) * <uint64_t>0x165667B19E3779F9ULL))
                      >> (64 - NN_MEMO_BITS))


cdef inline bint nn_memo_find(NNMemo* memo, const Board* after, double* p) noexcept nogil:
    """Whether board `after` is in the memo (NULL: no memo); if so, its probabilities go
    to `p`."""
    cdef uint32_t slot
    cdef NNMemoEntry* e
    if memo == NULL:
        return False
    slot = nn_board_slot(after)
    while memo.slots[slot]:
        e = &memo.e[memo.slots[slot] - 1]
        if memcmp(&e.board, after, sizeof(Board)) == 0:
            memcpy(p, e.p, NN_OUTPUTS * sizeof(double))
            return True
        slot = (slot + 1) & ((1 << NN_MEMO_BITS) - 1)
    return False


cdef inline void nn_memo_keep(NNMemo* memo, const Board* after, const double* p) noexcept nogil:
    """Store board `after` (not in the memo) and its probabilities `p` while there is room
    (memo NULL: nothing)."""
    cdef uint32_t slot
    cdef NNMemoEntry* e
    if memo == NULL or memo.n >= NN_MEMO_ENTRIES:
        return
    slot = nn_board_slot(after)
    while memo.slots[slot]:
        slot = (slot + 1) & ((1 << NN_MEMO_BITS) - 1)
    e = &memo.e[memo.n]
    memo.n += 1
    memo.slots[slot] = <uint16_t>memo.n
    e.board = after[0]
    memcpy(e.p, p, NN_OUTPUTS * sizeof(double))


cdef inline void nn_memo_probs(NNMemo* memo, const NeuralNetC* net, const NNBase* base,
                               const Board* after, double* p) noexcept nogil:
    """nn_play_probs(net, base, after, p), from the memo when the board is in it (NULL:
    no memo), else evaluated and stored while there is room."""
    if not nn_memo_find(memo, after, p):
        nn_play_probs(net, base, after, p)
        nn_memo_keep(memo, after, p)


cdef void nn_memo_plays_probs(NNMemo* memo, const NeuralNetC* net, const NNBase* base,
                              const Board* plays, const int* which, int k,
                              double* probs) noexcept nogil:
    """nn_memo_probs of plays[which[j]] (which NULL: plays[j]) to probs[5 j ..], j < k <=
    NN_BATCH (memo NULL: nn_plays_probs): those not in the memo valued together
    (nn_plays_probs), then stored in order, as one at a time would (the plays are distinct,
    so none finds another's entry)."""
    cdef int asked[NN_BATCH]
    cdef bint known[NN_BATCH]
    cdef double q[NN_BATCH * NN_OUTPUTS]
    cdef int j, i, fresh = 0
    if memo == NULL:
        nn_plays_probs(net, base, plays, which, k, probs)
        return
    for j in range(k):
        i = which[j] if which != NULL else j
        known[j] = nn_memo_find(memo, &plays[i], &probs[NN_OUTPUTS * j])
        if not known[j]:
            asked[fresh] = i
            fresh += 1
    if fresh == 0:
        return
    nn_plays_probs(net, base, plays, asked, fresh, q)
    fresh = 0
    for j in range(k):
        if not known[j]:
            memcpy(&probs[NN_OUTPUTS * j], &q[NN_OUTPUTS * fresh], NN_OUTPUTS * sizeof(double))
            nn_memo_keep(memo, &plays[asked[fresh]], &probs[NN_OUTPUTS * j])
            fresh += 1
