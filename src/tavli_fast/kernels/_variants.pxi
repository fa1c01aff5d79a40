# Move generation for Plakoto and Fevga (RULES.md P1-P7, F1-F7 with R7-R10,
# R14-R17): the search shared by both games.  Each game's own rules are in
# _plakoto.pxi and _fevga.pxi: which points a checker may move from with a die,
# and (Fevga) which ends of a play are allowed or preferred.
#
# Boards use the Portes layout (int8[2][26], row 0 the player on roll, row 1 the
# opponent, each in its own numbering, 0 = borne off); index 25 (the bar) is
# always 0, as neither game has a bar.  Nobody is hit, so the opponent's row
# never changes during my turn: a result is fixed by my counts alone, and the
# exact key of a node is my counts on points 1..24 in 4-bit fields (the
# key layout of _movegen.pxi without its hit bits).  Plakoto pins need no key
# of their own: the opponent's checker on a point is pinned after my play
# exactly when it is alone there, I have checkers there and mine is not the
# pinned one; the Python layer derives the pin lists that way.

cdef enum:
    GAME_PLAKOTO = 0
    GAME_FEVGA = 1
    # Option bits (rules.py PlakotoRules / FevgaRules).
    OPT_PINNED_HOME_COUNTS = 1      # P4 option
    OPT_RUNNER_TO_QUARTER = 2       # F4 option
    OPT_QUARTER_EACH_MOVE = 4       # F5 option
    OPT_PRIME_NEVER_BUILT = 8       # F6 option
    HOME_BITS = 0x7E                # my points 1..6
    BOARD_BITS = 0x1FFFFFE          # my points 1..24
    QUARTER_BITS = 0x1F80000        # my points 19..24 (F5)
    START_BIT = 1 << 24

ctypedef struct VarGen:
    MoveGen g                   # result list and duplicate table, as in Portes
    int game
    int options
    uint32_t blocked            # my points closed to me all turn long (P3, F3)
    uint32_t pinned             # Plakoto: my points holding my pinned checker (P2)
    uint32_t early_mark         # Fevga F4: my points a runner must reach
    int prefixes                # record shorter plays too (a play's end can be refused)
    int all_orders              # doubles: try every order of the four moves
    int trapped_at_start        # Fevga F6: the opponent starts the turn behind my prime
    int ntraps
    uint32_t traps[19]          # Fevga F6: six-point windows with every opposing checker behind


cdef inline void vkey_after(const Node* n, int s, int d, uint64_t* klo, uint64_t* khi) noexcept nogil:
    """The key after moving my checker from s by d (no hit bits in these games)."""
    klo[0] = n.klo
    khi[0] = n.khi
    _key_add(klo, khi, s, -1)
    if s - d > 0:
        _key_add(klo, khi, s - d, 1)


cdef inline void vboard_move(Board* b, int s, int d) noexcept nogil:
    """Move my checker from s by d; it is legal.  Nothing is hit in these games."""
    b.c[0][s] -= 1
    if s - d > 0:
        b.c[0][s - d] += 1
    else:
        b.c[0][0] += 1


cdef inline void vnode_move(Node* n, int s, int d) noexcept nogil:
    vkey_after(n, s, d, &n.klo, &n.khi)
    n.mine = mine_after(n, s, d)
    vboard_move(&n.b, s, d)


cdef inline uint32_t bear_off_sources(uint32_t mine, uint32_t movable, int d) noexcept nogil:
    """R15-R17 for a side allowed to bear off: points from which die d bears a checker off."""
    cdef uint32_t src = movable & ((<uint32_t>1) << d)
    cdef int high = 31 - tf_clz(mine)
    if high < d:
        src |= movable & ((<uint32_t>1) << high)
    return src


cdef inline uint32_t var_movable(const VarGen* v, const Node* n, int d) noexcept nogil:
    if v.game == GAME_PLAKOTO:
        return plakoto_movable(v, n, d)
    return fevga_movable(v, n, d)


cdef inline int var_score(const VarGen* v, uint32_t mine, int score) noexcept nogil:
    """The final score of a play ending with my occupancy `mine`, or -1 if it is not a play.

    Scores rank plays as R10 does (dice used, then the larger die), times two; Fevga's F6
    adds one for a play that frees a trapped opponent, so those win among equals.
    """
    if v.game == GAME_PLAKOTO:
        return 2 * score
    return fevga_score(v, mine, score)


cdef inline void var_record(VarGen* v, const Node* n, int score) noexcept nogil:
    cdef Board* slot
    if 2 * score + 1 < v.g.best:
        return
    score = var_score(v, n.mine, score)
    if score < 0:
        return
    slot = gen_slot(&v.g, n.klo, n.khi, score)
    if slot != NULL:
        slot[0] = n.b
        v.g.outmine[v.g.n - 1] = n.mine


cdef inline void var_record_move(VarGen* v, const Node* n, int s, int d, int score) noexcept nogil:
    """Record the play ending with one more move, building its board only if it is new."""
    cdef uint64_t klo, khi
    cdef uint32_t mine
    cdef Board* slot
    if 2 * score + 1 < v.g.best:
        return
    mine = mine_after(n, s, d)
    score = var_score(v, mine, score)
    if score < 0:
        return
    vkey_after(n, s, d, &klo, &khi)
    slot = gen_slot(&v.g, klo, khi, score)
    if slot != NULL:
        slot[0] = n.b
        vboard_move(slot, s, d)
        v.g.outmine[v.g.n - 1] = mine


cdef void _vsearch_double(VarGen* v, const Node* n, int d, int used, int max_src) noexcept nogil:
    # As in _movegen.pxi, sources never rise within a double unless `all_orders`
    # (Fevga's runner and per-move start-quarter rules make the order matter).
    cdef uint32_t src
    cdef int s
    cdef Node child
    if used == 4:
        var_record(v, n, 4)
        return
    src = var_movable(v, n, d) & ((((<uint32_t>1) << max_src) << 1) - 1)
    if src == 0:
        var_record(v, n, used)
        return
    while src:
        s = 31 - tf_clz(src)
        src &= ~((<uint32_t>1) << s)
        if used == 3:
            var_record_move(v, n, s, d, 4)
            continue
        child = n[0]
        vnode_move(&child, s, d)
        _vsearch_double(v, &child, d, used + 1, 25 if v.all_orders else s)
    if v.prefixes:
        var_record(v, n, used)


cdef void _vsearch_pair(VarGen* v, const Node* n, int first, int second) noexcept nogil:
    # Plays `first` then `second`; the caller tries both orders.
    cdef uint32_t src = var_movable(v, n, first)
    cdef uint32_t src2
    cdef int s, s2
    cdef Node child
    if src == 0:
        var_record(v, n, 0)
        return
    while src:
        s = 31 - tf_clz(src)
        src &= ~((<uint32_t>1) << s)
        child = n[0]
        vnode_move(&child, s, first)
        src2 = var_movable(v, &child, second)
        while src2:
            s2 = 31 - tf_clz(src2)
            src2 &= ~((<uint32_t>1) << s2)
            var_record_move(v, &child, s2, second, SCORE_BOTH)
        # R10: one die only; the larger one wins when both are possible.
        var_record(v, &child, 10 + first)
    if v.prefixes:
        var_record(v, n, 0)


cdef int generate_variant(VarGen* v, const Board* b, int game, uint32_t pinned,
                          int options, int d1, int d2) noexcept nogil:
    """Fill v.g.out with the distinct positions reachable with (d1, d2); return how many.

    `pinned`: Plakoto, my points holding my pinned checker (bit p = point p).  Sides are
    not switched.  When nothing can be played the single result is the unchanged board.
    Returns -1 on overflow.
    """
    cdef Node root
    node_init(&root, b)
    v.game = game
    v.options = options
    v.g.best = -1
    v.g.n = 0
    v.g.overflow = 0
    if game == GAME_PLAKOTO:
        plakoto_setup(v, b, pinned)
    else:
        fevga_setup(v, b, root.mine)
    if d1 == d2:
        _vsearch_double(v, &root, d1, 0, 25)
    else:
        _vsearch_pair(v, &root, d1, d2)
        _vsearch_pair(v, &root, d2, d1)
    if v.g.overflow:
        return -1
    if v.g.n == 0:
        # Every play's end was refused (Fevga F5/F6 on a position already in breach):
        # the turn is lost.
        v.g.out[0] = b[0]
        v.g.n = 1
    return v.g.n
