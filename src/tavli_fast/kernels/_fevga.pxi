# Fevga (RULES.md F1-F6): which points a checker may move from with a die, and
# which ends of a play are refused (F5) or preferred (F6).  Both sides move the
# same way; my point p is the opponent's point across(p) = ((p + 11) % 24) + 1.


cdef inline int fevga_across(int p) noexcept nogil:
    return ((p + 11) % 24) + 1


cdef inline bint fevga_runner_may_leave(const VarGen* v, const Node* n) noexcept nogil:
    """F4: a checker may leave my 24 if none has left it yet, or one has reached the mark."""
    return n.b.c[0][24] == 15 or n.b.c[0][0] > 0 or (n.mine & v.early_mark) != 0


cdef inline void fevga_setup(VarGen* v, const Board* b, uint32_t mine) noexcept nogil:
    """The masks fixed for the whole turn: points closed to me (F3) and the F6 windows."""
    cdef int q, low, lowest = 25
    cdef uint32_t blocked = 0, window
    for q in range(1, 25):
        if b.c[1][q]:
            blocked |= (<uint32_t>1) << fevga_across(q)
            if q < lowest:
                lowest = q
    v.blocked = blocked
    v.pinned = 0
    v.early_mark = (<uint32_t>0x1FFE) if (v.options & OPT_RUNNER_TO_QUARTER) else (<uint32_t>0xFFE)
    # F6: six consecutive points of the opponent's path (his low..low+5) with every one of
    # his checkers on the board above them.
    v.ntraps = 0
    for low in range(1, 20):
        if low + 5 >= lowest:
            break
        window = 0
        for q in range(low, low + 6):
            window |= (<uint32_t>1) << fevga_across(q)
        v.traps[v.ntraps] = window
        v.ntraps += 1
    v.trapped_at_start = fevga_trapped(v, mine)
    # Sources may rise within a double once the runner rule can no longer change (F4);
    # judging F5 after every move also makes the order matter.
    v.all_orders = (v.options & OPT_QUARTER_EACH_MOVE) != 0 or not (
        b.c[0][0] > 0 or (mine & v.early_mark) != 0)
    v.prefixes = 1


cdef inline bint fevga_trapped(const VarGen* v, uint32_t mine) noexcept nogil:
    """F6: do my checkers on `mine` hold a window with all of the opponent's behind it?"""
    cdef int i
    for i in range(v.ntraps):
        if (mine & v.traps[i]) == v.traps[i]:
            return True
    return False


cdef inline uint32_t fevga_movable(const VarGen* v, const Node* n, int d) noexcept nogil:
    """Points from which one of my checkers can move `d` pips now (R7, R14-R17, F3-F5)."""
    cdef uint32_t mine = n.mine
    cdef uint32_t movable = mine
    cdef uint32_t src, each, after
    cdef int s
    if (mine & START_BIT) and not fevga_runner_may_leave(v, n):
        movable &= ~START_BIT
    src = movable & ~(v.blocked << d) & ~((((<uint32_t>1) << (d + 1)) - 1))
    if (mine & ~HOME_BITS) == 0:
        src |= bear_off_sources(mine, movable, d)
    if (v.options & OPT_QUARTER_EACH_MOVE) and ((mine | (src >> d)) & QUARTER_BITS) == QUARTER_BITS:
        # F5 option: no single move may complete my hold on points 19-24.
        each = src
        while each:
            s = 31 - tf_clz(each)
            each &= ~((<uint32_t>1) << s)
            after = mine_after(n, s, d)
            if (after & QUARTER_BITS) == QUARTER_BITS:
                src &= ~((<uint32_t>1) << s)
    return src


cdef inline int fevga_score(const VarGen* v, uint32_t mine, int score) noexcept nogil:
    """F5, F6: -1 for a play whose end is refused; else 2 x score, + 1 if it frees the opponent."""
    cdef bint trapped
    if (mine & QUARTER_BITS) == QUARTER_BITS:
        return -1                                   # F5: not with all of 19-24 held
    if v.ntraps == 0:
        return 2 * score
    trapped = fevga_trapped(v, mine)
    if trapped and not v.trapped_at_start and (v.options & OPT_PRIME_NEVER_BUILT):
        return -1                                   # F6 option: no such prime built
    if v.trapped_at_start and not trapped:
        return 2 * score + 1                        # F6: open the prime if you can
    return 2 * score
