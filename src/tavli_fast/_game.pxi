# The game loop: whole games played in C, from a start board to the end (R19-R20).

cdef enum:
    MAX_PLIES = 100000          # far beyond any real game; guards an endless loop

# Outcomes for the player who started on roll (player 0).
cdef enum Outcome:
    WIN_SINGLE = 0
    WIN_GAMMON = 1
    WIN_BACKGAMMON = 2
    LOSE_SINGLE = 3
    LOSE_GAMMON = 4
    LOSE_BACKGAMMON = 5


cdef inline void board_switch(Board* b) noexcept nogil:
    cdef int8_t tmp[26]
    memcpy(tmp, b.c[0], 26)
    memcpy(b.c[0], b.c[1], 26)
    memcpy(b.c[1], tmp, 26)


cdef inline int loser_result(const Board* b, bint backgammons) noexcept nogil:
    """Value of a finished game (row 0 has borne off all): 0 single, 1 gammon, 2 backgammon (R20)."""
    cdef int p
    if b.c[1][0] > 0:
        return 0
    if backgammons:
        # The loser's points 19..24 are the winner's home board; 25 is the bar.
        for p in range(19, 26):
            if b.c[1][p]:
                return 2
    return 1


cdef inline int choose_play(MoveGen* g, const Board* before, int n, int player, Rng* rng) noexcept nogil:
    """Index in g.out[0:n] of the play `player` picks from `before`."""
    cdef int i, best = 0
    cdef double v, best_v
    cdef bint race
    if n == 1:
        return 0
    if player == PLAYER_RANDOM:
        return <int>rng_below(rng, <uint64_t>n)
    # Tesauro's rule (and gnubg's): race or contact weights by the position
    # before the move, the same for every candidate.
    race = player == PLAYER_PUBEVAL and _pubeval_is_race(before)
    best_v = -1e300
    for i in range(n):
        if player == PLAYER_PUBEVAL:
            v = _pubeval_with_race(&g.out[i], race)
        else:
            v = _greedy(&g.out[i])
        if v > best_v:
            best_v = v
            best = i
    return best


cdef inline void roll_for_ply(Rng* rng, int ply, bint first_roll_no_doubles,
                              const int8_t* forced, int n_forced, int* d1, int* d2) noexcept nogil:
    """The dice of ply `ply` (0 = the first turn of the game)."""
    if ply < n_forced and forced[2 * ply] != 0:
        d1[0] = forced[2 * ply]
        d2[0] = forced[2 * ply + 1]
        return
    rng_dice(rng, d1, d2)
    # R5: the opening play never uses a double (ties are re-rolled).
    while ply == 0 and first_roll_no_doubles and d1[0] == d2[0]:
        rng_dice(rng, d1, d2)


cdef int play_game(MoveGen* g, const Board* start, const int* players, Rng* rng,
                   bint first_roll_no_doubles, bint backgammons,
                   const int8_t* forced, int n_forced, int* plies_out) noexcept nogil:
    """Play one game; return its Outcome for player 0 (on roll in `start`), or -1 on error."""
    cdef Board b = start[0]
    cdef int side = 0
    cdef int plies = 0
    cdef int d1, d2, n, k
    while plies < MAX_PLIES:
        roll_for_ply(rng, plies, first_roll_no_doubles, forced, n_forced, &d1, &d2)
        n = generate_plays(g, &b, d1, d2)
        if n < 0:
            return -1
        b = g.out[choose_play(g, &b, n, players[side], rng)]
        plies += 1
        if b.c[0][0] == 15:
            plies_out[0] = plies
            k = loser_result(&b, backgammons)
            return k if side == 0 else LOSE_SINGLE + k
        board_switch(&b)
        side ^= 1
    return -1
