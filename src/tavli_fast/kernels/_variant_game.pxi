# Whole Plakoto and Fevga games in C (RULES.md P5-P7, F7): players and the game loop.
# A separate path from Portes' _game.pxi.  Between turns the board is switched so that
# row 0 is always the player on roll; in Plakoto the mover's pinned mask is derived
# after every play from the board and the previous mover's (static) pins.

cdef enum:
    VPLAYER_RANDOM = 0
    VPLAYER_HEURISTIC = 1
    VPLAYER_NEURAL = 2          # the game's net, 0-ply (_variant_neural.pxi)
    VPLAYER_NEURAL_1PLY = 3     # the same with the 1-ply look
    VMAX_PLIES = 20000          # far beyond any real game; guards an endless loop

# How a game ended, for player 0 (the side on roll in the start board).
cdef enum:  # variant outcomes
    V_WIN_SINGLE = 0            # borne off, the loser has borne off some (1 point)
    V_WIN_DOUBLE = 1            # borne off, the loser none (2 points)
    V_WIN_MOTHER = 2            # Plakoto P5 (2 points)
    V_LOSE_SINGLE = 3
    V_LOSE_DOUBLE = 4
    V_LOSE_MOTHER = 5
    V_DRAW = 6                  # Plakoto P6: both mothers pinned
    V_FAILED = -1
    V_N_OUTCOMES = 7


cdef inline uint32_t plakoto_pins_after(const Board* b, uint32_t mover_pinned) noexcept nogil:
    """The opponent's pinned mask (bit = HIS point) after the mover's play: his lone
    checker under the mover's checkers, where the mover's is not the pinned one."""
    cdef uint32_t pins = 0
    cdef int t
    for t in range(1, 25):
        if b.c[1][25 - t] == 1 and b.c[0][t] > 0 and not ((mover_pinned >> t) & 1):
            pins |= (<uint32_t>1) << (25 - t)
    return pins


cdef inline int variant_end(const Board* b, int game, uint32_t mover_pinned, uint32_t opp_pinned) noexcept nogil:
    """After the mover's play: 0 = play on, 1 / 2 = the mover wins 1 / 2 points by bearing
    off, 3 = the mover wins by the mother rule (P5), 4 = draw (P6)."""
    if b.c[0][0] == 15:
        return 1 if b.c[1][0] > 0 else 2
    if game == GAME_PLAKOTO and (opp_pinned >> 24) & 1:
        if (mover_pinned >> 24) & 1:
            return 4
        if b.c[0][24] == 0:
            return 3
    return 0


cdef double plakoto_heuristic(const Board* r, uint32_t my_pinned) noexcept nogil:
    """Our Plakoto evaluation of a result, for the mover: race progress, pins made and
    suffered, points made, and lone checkers the opponent can still reach."""
    cdef double score = 0.0
    cdef int t, m, o, u, k, threatened
    for t in range(1, 25):
        m = r.c[0][t]
        o = r.c[1][25 - t]
        score -= m * t                              # my pips
        if m == 0:
            continue
        if (my_pinned >> t) & 1:
            score -= 6.0 + t * 0.5                  # my pinned checker, worse far from home
            continue
        if o == 1:
            score += 6.0 + (25 - t) * 0.5           # his pinned checker, worse far from his home
            if t == 1:
                score += 30.0                       # his mother
            continue
        if m >= 2:
            score += 2.0
        elif t > 6:
            # A lone checker of mine: can one of his (his point u+k) reach it (his point u)?
            u = 25 - t
            threatened = 0
            for k in range(1, 12):
                if u + k > 24:
                    break
                if r.c[1][u + k] > 0 and r.c[0][25 - (u + k)] == 0:
                    threatened = 1
                    break
            if threatened:
                score -= 4.0 + t * 0.4
    return score


cdef double fevga_heuristic(const Board* r) noexcept nogil:
    """Our Fevga evaluation of a result, for the mover: race progress, points held in
    front of his rearmost checkers (longest run counts most), and no tall stacks."""
    cdef double score = 0.0
    cdef int t, q, m, run = 0, best_run = 0, rear = 0
    for q in range(24, 0, -1):
        if r.c[1][q]:
            rear = q                                # his rearmost checker, his numbering
            break
    for t in range(1, 25):
        m = r.c[0][t]
        score -= m * t
        if m > 3:
            score -= (m - 3) * 0.5
    # Along his path (his points rear-1 down to 1): my held points and their longest run.
    for q in range(rear - 1, 0, -1):
        if r.c[0][fevga_across(q)]:
            score += 1.0
            run += 1
            if run > best_run:
                best_run = run
        else:
            run = 0
    score += 3.0 * best_run
    return score


cdef int variant_choose(VarGen* v, const Board* before, int n, int player, int game,
                        uint32_t my_pinned, int options, const VNPlayers* nn,
                        Rng* rng) noexcept nogil:
    """Index of the chosen result among v.g.out[0:n] (plays from `before`); `nn` holds the
    nets of the neural players (checked by the caller)."""
    cdef int i, best = 0, end
    cdef double s, best_score = -1e300
    cdef uint32_t opp_pins
    if player == VPLAYER_RANDOM or n == 1:
        return <int>rng_below(rng, n) if n > 1 else 0
    if player == VPLAYER_NEURAL or player == VPLAYER_NEURAL_1PLY:
        return vn_choose(nn.net[game], before, v.g.out, n, my_pinned,
                         nn.scratch if player == VPLAYER_NEURAL_1PLY else NULL, options)
    for i in range(n):
        if game == GAME_PLAKOTO:
            opp_pins = plakoto_pins_after(&v.g.out[i], my_pinned)
            end = variant_end(&v.g.out[i], game, my_pinned, opp_pins)
            s = plakoto_heuristic(&v.g.out[i], my_pinned)
        else:
            end = variant_end(&v.g.out[i], game, 0, 0)
            s = fevga_heuristic(&v.g.out[i])
        if end == 1 or end == 2 or end == 3:
            s += 1e6 + end
        elif end == 4:
            s += 1e3                                # a draw beats most plays, never a win
        if s > best_score:
            best_score = s
            best = i
    return best


cdef int play_variant_game(VarGen* v, const Board* start, uint32_t start_pinned, int game,
                           int options, const int* players, Rng* rng, int* plies,
                           const int8_t* forced, int n_forced,
                           const VNPlayers* nn=NULL, GameLog* log=NULL) noexcept nogil:
    """One game from `start` (player 0 on roll); returns its outcome for player 0.

    forced[2j:2j+2] (j < n_forced) are the dice of turn j (a 0 pair rolls normally): the
    stratified first rolls of a rollout and the common dice of the opening statistics.
    Any first roll may be a double (T3: the starter rolls both dice again).  `nn`: the
    nets of the neural players (VPLAYER_NEURAL*), NULL when there are none.  `log` (or
    NULL) records each play (_match_log.pxi)."""
    cdef Board b = start[0]
    cdef uint32_t pinned = start_pinned         # the mover's pinned checkers
    cdef uint32_t opp_pinned
    cdef int ply, side = 0, n, i, d1, d2, end
    for ply in range(VMAX_PLIES):
        roll_for_ply(rng, ply, False, forced, n_forced, &d1, &d2)
        n = generate_variant(v, &b, game, pinned, options, d1, d2)
        if n < 0:
            return V_FAILED
        i = variant_choose(v, &b, n, players[side], game, pinned, options, nn, rng)
        b = v.g.out[i]
        log_add(log, LOG_PLAY, side, d1, d2, 0, 0, &b)
        opp_pinned = plakoto_pins_after(&b, pinned) if game == GAME_PLAKOTO else 0
        end = variant_end(&b, game, pinned, opp_pinned)
        if end:
            plies[0] = ply + 1
            if end == 4:
                return V_DRAW
            if end == 1:
                return V_WIN_SINGLE if side == 0 else V_LOSE_SINGLE
            if end == 2:
                return V_WIN_DOUBLE if side == 0 else V_LOSE_DOUBLE
            return V_WIN_MOTHER if side == 0 else V_LOSE_MOTHER
        board_switch(&b)
        pinned = opp_pinned
        side = 1 - side
    plies[0] = VMAX_PLIES
    return V_FAILED
