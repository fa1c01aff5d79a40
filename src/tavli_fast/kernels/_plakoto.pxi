# Plakoto (RULES.md P1-P4): which points a checker may move from with a die.
# The opponent moves the other way round, as in Portes: my point p is his 25 - p.


cdef inline void plakoto_setup(VarGen* v, const Board* b, uint32_t pinned) noexcept nogil:
    """The masks fixed for the whole turn: my pinned checkers and the points closed to me."""
    cdef int p, theirs
    cdef uint32_t blocked = 0
    for p in range(1, 25):
        theirs = b.c[1][25 - p]
        # P3: two or more of theirs, or theirs on top of my pinned checker.
        if theirs >= 2 or (theirs >= 1 and (pinned >> p) & 1):
            blocked |= (<uint32_t>1) << p
    v.blocked = blocked
    v.pinned = pinned
    v.prefixes = 0
    v.all_orders = 0
    v.trapped_at_start = 0


cdef inline uint32_t plakoto_movable(const VarGen* v, const Node* n, int d) noexcept nogil:
    """Points from which one of my checkers can move `d` pips now (R7, R14-R17, P2-P4)."""
    cdef uint32_t mine = n.mine
    cdef uint32_t movable = mine & ~v.pinned            # P2: a pinned checker never moves
    cdef uint32_t src = movable & ~(v.blocked << d) & ~((((<uint32_t>1) << (d + 1)) - 1))
    # P4: bear off with every checker home and none of them pinned (or, as an option,
    # with a pinned one in the home board counting as home).  A pinned checker still
    # counts as the highest checker for R16.
    if (mine & ~HOME_BITS) == 0 and (v.pinned == 0 or (v.options & OPT_PINNED_HOME_COUNTS)):
        src |= bear_off_sources(mine, movable, d)
    return src
