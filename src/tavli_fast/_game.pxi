# The game loop: whole games played in C, from a start board to the end (R19-R20).

cdef enum:
    MAX_PLIES = 100000          # far beyond any real game; guards an endless loop

# How a game ended, for the player who started on roll (player 0).
cdef enum:  # outcomes
    WIN_SINGLE = 0
    WIN_GAMMON = 1
    WIN_BACKGAMMON = 2
    LOSE_SINGLE = 3
    LOSE_GAMMON = 4
    LOSE_BACKGAMMON = 5
    TRUNCATED = 6               # stopped in the two-sided bear-off database
    FAILED = -1

# Per-game figures summed by run_games (gammons include backgammons).
cdef enum:  # figures
    FIG_WIN = 0
    FIG_WIN_GAMMON = 1
    FIG_WIN_BACKGAMMON = 2
    FIG_LOSE_GAMMON = 3
    FIG_LOSE_BACKGAMMON = 4
    FIG_EQUITY = 5
    N_FIGURES = 6

ctypedef struct GameOptions:
    int players[2]
    bint first_roll_no_doubles  # R5 opening roll
    bint backgammons            # R20; off: a backgammon scores as a gammon
    const BearoffDB* bearoff    # loaded databases, or NULL
    bint bearoff_play           # pubeval and greedy play bear-offs by the databases
    bint truncate               # stop once both sides are inside the two-sided database
    int truncate_from_ply       # ... but never before this ply (dice given with the position)
    const NeuralNetC* net       # the neural players' net, or NULL
    MoveGen* scratch            # a second generator for the 1-ply look ahead, or NULL

ctypedef struct GameResult:
    int outcome                 # an Outcome
    int plies
    double win                  # P(player 0 wins): 0 or 1, exact in between when truncated


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


cdef inline int choose_play(MoveGen* g, const Board* before, int n, int player,
                            const GameOptions* opt, Rng* rng) noexcept nogil:
    """Index in g.out[0:n] of the play `player` picks from `before`."""
    cdef int i, best = 0
    cdef double v, best_v
    cdef bint race
    if n == 1:
        return 0
    if player == PLAYER_RANDOM:
        return <int>rng_below(rng, <uint64_t>n)
    if opt.bearoff != NULL and (player == PLAYER_BEAROFF or opt.bearoff_play):
        i = bearoff_choose(opt.bearoff, g, n, before)
        if i >= 0:
            return i
    if player == PLAYER_NEURAL:
        return neural_choose(opt.net, g, n)
    if player == PLAYER_NEURAL_1PLY:
        return neural_choose_1ply(opt.net, g, n, opt.scratch)
    # Tesauro's rule (and gnubg's): race or contact weights by the position
    # before the move, the same for every candidate.
    race = player != PLAYER_GREEDY and _pubeval_is_race(before)
    best_v = -1e300
    for i in range(n):
        if player == PLAYER_GREEDY:
            v = _greedy(&g.out[i])
        else:
            v = _pubeval_with_race(&g.out[i], race)
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


cdef GameResult play_game(MoveGen* g, const Board* start, const GameOptions* opt, Rng* rng,
                          const int8_t* forced, int n_forced) noexcept nogil:
    """Play one game from `start` (player 0 on roll) to its end or its truncation."""
    cdef Board b = start[0]
    cdef int side = 0
    cdef int d1, d2, n, k
    cdef double w
    cdef GameResult r
    r.plies = 0
    r.outcome = FAILED
    r.win = 0.0
    while r.plies < MAX_PLIES:
        if opt.truncate and r.plies >= opt.truncate_from_ply and opt.bearoff != NULL:
            w = bearoff2_win(opt.bearoff, &b)
            if w >= 0.0:
                # Inside the database no gammon is possible: both sides have borne off.
                r.outcome = TRUNCATED
                r.win = w if side == 0 else 1.0 - w
                return r
        roll_for_ply(rng, r.plies, opt.first_roll_no_doubles, forced, n_forced, &d1, &d2)
        n = generate_plays(g, &b, d1, d2)
        if n < 0:
            return r
        b = g.out[choose_play(g, &b, n, opt.players[side], opt, rng)]
        r.plies += 1
        if b.c[0][0] == 15:
            k = loser_result(&b, opt.backgammons)
            r.outcome = k if side == 0 else LOSE_SINGLE + k
            r.win = 1.0 if side == 0 else 0.0
            return r
        board_switch(&b)
        side ^= 1
    return r


cdef inline void game_figures(const GameResult* r, double* f) noexcept nogil:
    """The per-game values of the six reported figures (gammons include backgammons)."""
    cdef int o = r.outcome
    f[FIG_WIN] = r.win
    f[FIG_WIN_GAMMON] = 1.0 if o == WIN_GAMMON or o == WIN_BACKGAMMON else 0.0
    f[FIG_WIN_BACKGAMMON] = 1.0 if o == WIN_BACKGAMMON else 0.0
    f[FIG_LOSE_GAMMON] = 1.0 if o == LOSE_GAMMON or o == LOSE_BACKGAMMON else 0.0
    f[FIG_LOSE_BACKGAMMON] = 1.0 if o == LOSE_BACKGAMMON else 0.0
    f[FIG_EQUITY] = (2.0 * r.win - 1.0 + f[FIG_WIN_GAMMON] - f[FIG_LOSE_GAMMON]
                     + f[FIG_WIN_BACKGAMMON] - f[FIG_LOSE_BACKGAMMON])
