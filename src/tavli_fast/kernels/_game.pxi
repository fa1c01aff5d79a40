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
    TRUNCATED = 6               # stopped early: in the two-sided bear-off database, or
                                # after opt.truncate_plies plies (the net's estimate)
    PASSED = 7                  # every cube branch ended by a pass, and the game stopped there
    FAILED = -1

cdef enum:
    MAX_BRANCHES = 2            # cube branches followed through one game (no double / double, take)

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
    int given_plies             # plies whose dice were given with the position: never
                                # truncated, and their roll is no luck
    int truncate_plies          # > 0: stop after this many plies and count the net's
                                # cubeless estimate (fast but biased); needs `net`
    bint vr                     # sum each roll's luck by the net (variance reduction);
                                # needs `net` and `scratch`
    MoveFilter filter           # the 1-ply players' move filter (and the 2-ply player's first)
    MoveFilter filter2          # the 2-ply player's second filter (1 to 2 ply)
    ReplyFilter look[2]         # per side: its 1-ply look-ahead's pre-filter of the replies
    ReplyFilter luck            # the luck tables' pre-filter of the plays (opt.vr)
    NNCache* cache              # the 2-ply player's cache of evaluated positions, or NULL
    const NeuralNetC* net       # the neural players' net, or NULL
    const NeuralNetC* nets[2]   # per side: the net its neural players choose cubeless plays
                                # by (NULL: net; run_games' player_nets, to pit two nets)
    MoveGen* scratch            # a second generator for the look-ahead and the luck, or NULL
    # The doubling cube (R21-R25).  One game carries several cube histories at once
    # ("branches": a cubeful rollout follows no double and double/take on the same dice);
    # checker play is shared by them (cubeful play follows the first live branch).  Each branch starts from cube[k], seen by
    # player 0; decisions are made before each roll from ply 1 on (ply 0 is the roll the
    # position was rolled out with, or the opening roll).
    int n_branches              # 0: a cubeless game
    CubeState cube[MAX_BRANCHES]
    bint stop_on_pass           # end the game once every branch has passed (matches);
                                # else play on to the end for the cubeless figures
    bint cube_first_turn        # the side on roll at ply 0 makes its cube decision too (a
                                # position reached by a play, before the opponent's turn)
    bint cubeful_play[2]        # per side: the 0-ply neural player picks its play by
                                # cubeful equity at the live branch's cube (else cubeless)
    const _MDP* region          # match play: the bear-off region solved at this game's
                                # score (player 0 = its X), or NULL

ctypedef struct GameResult:
    int outcome                 # an Outcome
    int plies
    double win                  # P(player 0 wins): 0 or 1, exact in between when truncated
    double probs[NN_OUTPUTS]    # TRUNCATED: player 0's five probabilities where it stopped
    double luck[NN_OUTPUTS]     # with opt.vr: the summed luck of the rolls, player 0's view
    int points[MAX_BRANCHES]    # per branch: points player 0 won (< 0: lost), cube included
    double cf_points[MAX_BRANCHES]  # TRUNCATED with branches: each branch's exact cubeful
                                # result for player 0: money points (the cubeful bear-off
                                # database), match MWC (the solved region)
    int cube[MAX_BRANCHES]      # per branch: the cube's final value


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
                            const GameOptions* opt, Rng* rng, double* next_table,
                            const double* prices=NULL,
                            const double* reply_prices=NULL,
                            const CubeState* cube=NULL, int side=0,
                            NNMemo* memo=NULL) noexcept nogil:
    """Index in g.out[0:n] of the play `player` picks from `before`.  `next_table` (or NULL)
    receives the opponent's roll table when the 1-ply look made one, else next_table[0] = -1.
    `prices`: in a match, the mover's gammon prices for the neural players, and
    `reply_prices` the opponent's, for the replies of the 1-ply look (NULL: money).
    `cube`: the mover's cube, for the 0-ply neural player's cubeful checker play, and both
    neural players' inside the cubeful bear-off database or, in a match, the solved region
    (opt.region; `side`: the mover, player 0 or 1 of the game) (NULL: cubeless).  `memo`:
    the plays from `before` the luck's roll table valued this turn, for the 0-ply neural
    player (NULL: none)."""
    cdef int i, best = 0
    cdef double v, best_v
    cdef bint race
    cdef const NeuralNetC* net = opt.nets[side] if opt.nets[side] != NULL else opt.net
    if net != opt.net:          # the luck's table and memo are opt.net's values
        next_table = NULL
        memo = NULL
    if next_table != NULL:
        next_table[0] = -1.0
    if n == 1:
        return 0
    if player == PLAYER_RANDOM:
        return <int>rng_below(rng, <uint64_t>n)
    # Inside the cubeful bear-off database the exact cubeful choice beats the one-sided
    # database's (which races for the fewest rolls, cube or not).
    if (cube != NULL and has_probabilities(player) and opt.bearoff != NULL
            and opt.bearoff.cubeful != NULL and not cube_is_match(cube)
            and bearoff2_win(opt.bearoff, before) >= 0.0):
        return neural_choose_cubeful(opt, g, n, cube)
    if (cube != NULL and has_probabilities(player) and opt.region != NULL
            and cube_is_match(cube)):
        i = mdp_region_choose(opt.region, g, n, side, cube)
        if i >= 0:
            return i
    if opt.bearoff != NULL and (player == PLAYER_BEAROFF or opt.bearoff_play):
        i = bearoff_choose(opt.bearoff, g, n, before)
        if i >= 0:
            return i
    if player == PLAYER_NEURAL and cube != NULL:
        return neural_choose_cubeful(opt, g, n, cube)
    if player == PLAYER_NEURAL:
        return neural_choose(net, g, n, prices, memo)
    if player == PLAYER_NEURAL_1PLY:
        return neural_choose_1ply(net, g, n, opt.scratch, &opt.filter, next_table, prices,
                                  reply_prices, &opt.look[side])
    if player == PLAYER_NEURAL_2PLY:
        return neural_choose_2ply(net, g, n, opt.scratch, opt.filter, opt.filter2, opt.cache,
                                  prices, reply_prices)
    # Tesauro's rule (and gnubg's): race or contact weights by the position
    # before the move, the same for every candidate.
    race = player != PLAYER_GREEDY and board_race(before)
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


cdef inline void cube_switch(CubeState* s) noexcept nogil:
    """The cube seen by the other side (the turn passes)."""
    cdef int a = s.away_me
    s.away_me = s.away_opp
    s.away_opp = a
    if s.owner != CUBE_CENTRE:
        s.owner = CUBE_THEIRS if s.owner == CUBE_MINE else CUBE_MINE


cdef inline bint has_probabilities(int player) noexcept nogil:
    return player == PLAYER_NEURAL or player == PLAYER_NEURAL_1PLY or player == PLAYER_NEURAL_2PLY


cdef inline void cube_view(const Board* b, int player, const double* p, double x,
                           const CubeState* s, const BearoffDB* db,
                           CubeAnalysis* a) noexcept nogil:
    """How `player` judges the cube of `s` with the side on roll of `b` about to roll.

    Neural players: the exact equities of the cubeful bear-off database `db` where it
    answers (cube_analyse_exact), else the 0-ply model on the net's probabilities `p`
    (efficiency `x`).
    Players without probabilities use a pip-count rule (cube.py documents it): no cube
    action while there is contact; in a race, double with a lead of 8 % of its pip count
    (9 % to redouble), and the opponent takes while at most 12 % behind (Trice's 8-9-12
    rule); the post-Crawford trailer doubles at once.  The result is put in the model's
    terms (action, DT against DP) so that both kinds are played the same way.
    """
    cdef int mine, theirs, q
    cdef double lead
    if has_probabilities(player):
        if not cube_analyse_exact(db, b, s, a):
            cube_analyse(p, x, s, a)
        return
    a.can_double = cube_can_double(s)
    a.nd = 0.0
    a.dp = 1.0
    a.dt = 2.0                          # pass
    a.action = ACT_NO_DOUBLE_TAKE if a.can_double else ACT_CANNOT_DOUBLE
    if cube_is_match(s) and s.away_opp == 1 and a.can_double:
        a.action = ACT_DOUBLE_TAKE      # the post-Crawford trailer's free double
    if not board_race(b):
        a.dt = 0.0                      # contact: take
        return
    mine = theirs = 0
    for q in range(1, 26):
        mine += q * b.c[0][q]
        theirs += q * b.c[1][q]
    lead = (theirs - mine) / <double>max(mine, 1)
    if lead <= 0.12:
        a.dt = 0.0
    if a.can_double and lead >= (0.09 if s.owner == CUBE_MINE else 0.08):
        a.action = ACT_DOUBLE_TAKE


cdef inline bint wants_double(int action) noexcept nogil:
    return (action == ACT_DOUBLE_TAKE or action == ACT_DOUBLE_PASS
            or action == ACT_OPTIONAL_DOUBLE_PASS or action == ACT_DOUBLE_BEAVER)


cdef int cube_turn(const Board* b, int side, const GameOptions* opt, CubeState* s,
                   double* p, bint* have_p, GameLog* log=NULL) noexcept nogil:
    """The cube action before `side` rolls: double?, then take (or beaver) or pass.
    Returns the points the doubler wins by a pass, else 0.  `p` holds the net's
    probabilities for this board once `have_p` is set: one evaluation serves every
    branch and both players.  In a match, the neural players judge a position of the
    solved bear-off region (opt.region) by its exact values.  `log`: the actions are
    recorded there (_match_log.pxi)."""
    cdef CubeAnalysis mine, theirs, exact
    cdef int doubler = opt.players[side], taker = opt.players[side ^ 1]
    cdef double x = 0.0
    cdef bint solved
    if not cube_can_double(s):
        return 0
    solved = (opt.region != NULL and cube_is_match(s)
              and mdp_region_analysis(opt.region, b, side, s, opt.bearoff, &exact))
    if (has_probabilities(doubler) or has_probabilities(taker)) and not solved:
        x = cube_efficiency(b)
        if not have_p[0]:
            neural_probs(opt.net, b.c[0], b.c[1], p)
            have_p[0] = True
    if solved and has_probabilities(doubler):
        mine = exact
    else:
        cube_view(b, doubler, p, x, s, opt.bearoff, &mine)
    if not wants_double(mine.action):
        return 0
    if has_probabilities(taker) == has_probabilities(doubler):
        theirs = mine
    elif solved and has_probabilities(taker):
        theirs = exact
    else:
        cube_view(b, taker, p, x, s, opt.bearoff, &theirs)
    log_add(log, LOG_DOUBLE, side, 0, 0, 2 * s.value, 0, NULL)
    if theirs.dt > theirs.dp:
        log_add(log, LOG_DROP, side ^ 1, 0, 0, 0, 0, NULL)
        return s.value                      # pass: the doubler wins the cube's value
    if (s.beaver and not cube_is_match(s) and theirs.dt < 0.0
            and 4 * s.value <= s.max_value):
        s.value *= 4                        # R23 beaver: the taker redoubles, keeping the cube
        log_add(log, LOG_BEAVER, side ^ 1, 0, 0, s.value, 0, NULL)
    else:
        s.value *= 2
        log_add(log, LOG_TAKE, side ^ 1, 0, 0, 0, 0, NULL)
    s.owner = CUBE_THEIRS
    return 0


cdef inline int game_points(const Board* b, bint backgammons, const CubeState* s) noexcept nogil:
    """Points won by row 0, who has just borne off its last checker (R20, R23, R24)."""
    cdef int k = loser_result(b, backgammons)
    if s.jacoby and not cube_is_match(s) and s.owner == CUBE_CENTRE:
        k = 0                               # Jacoby: no gammons before the cube is turned
    return s.value * (k + 1)


cdef int neural_choose_cubeful(const GameOptions* opt, const MoveGen* g, int n,
                               const CubeState* cube) noexcept nogil:
    """Index of the play with the best cubeful 0-ply equity for the mover, whose cube is
    `cube`.  After each play the opponent is on roll with that cube: he judges it as the
    neural players do (the exact cubeful bear-off database where it answers, else the model on
    the net's probabilities) and takes the better of doubling (the mover then takes or passes,
    whichever costs less) and not doubling; the mover's value is the negative of his.  All
    the candidates share the cube, so the equities' scale (per unit of cube; in a match the
    score's normalised equity) is common to them."""
    cdef NNBase base
    cdef double p[NN_OUTPUTS]
    cdef double q[NN_OUTPUTS]
    cdef CubeState theirs = cube[0]
    cdef CubeAnalysis a
    cdef Board after
    cdef int i, best = 0
    cdef double v, best_v = -1e300
    cube_switch(&theirs)
    nn_base_prepare(opt.net, &g.root, &base)
    for i in range(n):
        nn_play_probs(opt.net, &base, &g.out[i], p)
        nn_swap_sides(p, q)
        after = g.out[i]
        board_switch(&after)
        cube_view(&after, PLAYER_NEURAL, q, cube_efficiency(&after), &theirs, opt.bearoff, &a)
        v = -min(a.dt, a.dp) if wants_double(a.action) else -a.nd
        if v > best_v:
            best_v = v
            best = i
    return best


cdef GameResult play_game(MoveGen* g, const Board* start, const GameOptions* opt, Rng* rng,
                          const int8_t* forced, int n_forced, GameLog* log=NULL) noexcept nogil:
    """Play one game from `start` (player 0 on roll) to its end or its truncation; `log`
    (or NULL) records its plays and cube actions (_match_log.pxi).  With luck adjustment,
    the plays a turn's luck table values are kept for the 0-ply neural player's choice
    (a memo: the same numbers; without its memory, the plays are evaluated again)."""
    cdef NNMemo* memo = <NNMemo*>malloc(sizeof(NNMemo)) if opt.vr else NULL
    cdef GameResult r = _play_game(g, start, opt, rng, forced, n_forced, log, memo)
    free(memo)
    return r


cdef GameResult _play_game(MoveGen* g, const Board* start, const GameOptions* opt, Rng* rng,
                           const int8_t* forced, int n_forced, GameLog* log,
                           NNMemo* memo) noexcept nogil:
    cdef Board b = start[0]
    cdef int side = 0
    cdef int d1, d2, n, k, passed
    cdef int alive = opt.n_branches
    cdef double p[NN_OUTPUTS]
    cdef bint have_p
    cdef double w
    cdef double table[NN_ROLLS * NN_OUTPUTS]   # the luck of the coming roll (opt.vr)
    cdef double prices[4]                       # the mover's gammon prices in a match
    cdef double reply_prices[4]                 # and its opponent's
    cdef const double* priced
    cdef CubeState theirs
    cdef const CubeState* live        # the cube of the mover's cubeful checker play, or NULL
    cdef GameResult r
    cdef CubeState cube[MAX_BRANCHES]
    cdef bint done[MAX_BRANCHES]
    cdef bint valued                  # `memo` holds the plays from `b` of this turn's table
    r.plies = 0
    r.outcome = FAILED
    r.win = 0.0
    memset(r.probs, 0, sizeof(r.probs))
    memset(r.luck, 0, sizeof(r.luck))
    table[0] = -1.0
    for k in range(opt.n_branches):
        cube[k] = opt.cube[k]
        done[k] = False
        r.points[k] = 0
        r.cube[k] = cube[k].value
    while r.plies < MAX_PLIES:
        # A game stops in the databases only with both sides inside the two-sided one: with
        # every cube branch passed none asks the cubeful one, and the game goes on for the
        # cubeless figures, which need the exact win probability where it stops.
        if (opt.truncate and opt.n_branches and r.plies >= opt.given_plies
                and opt.bearoff != NULL and bearoff2_win(opt.bearoff, &b) >= 0.0
                and truncate_cubeful(&b, side, opt, cube, done, &r)):
            return r
        if (opt.truncate and opt.n_branches == 0 and r.plies >= opt.given_plies
                and opt.bearoff != NULL):
            w = bearoff2_win(opt.bearoff, &b)
            if w >= 0.0:
                # Inside the database no gammon is possible: both sides have borne off.
                r.outcome = TRUNCATED
                r.win = w if side == 0 else 1.0 - w
                r.probs[NN_WIN] = r.win
                return r
        if opt.truncate_plies and r.plies >= opt.truncate_plies and r.plies >= opt.given_plies:
            truncate_by_net(&b, side, opt, &r)
            return r
        if r.plies > 0 or opt.cube_first_turn:
            have_p = False
            for k in range(opt.n_branches):
                if done[k]:
                    continue
                passed = cube_turn(&b, side, opt, &cube[k], p, &have_p, log)
                r.cube[k] = cube[k].value
                if passed:
                    done[k] = True
                    alive -= 1
                    r.points[k] = passed if side == 0 else -passed
            if alive == 0 and opt.n_branches and opt.stop_on_pass:
                r.outcome = PASSED
                return r
        roll_for_ply(rng, r.plies, opt.first_roll_no_doubles, forced, n_forced, &d1, &d2)
        valued = False
        if opt.vr and r.plies >= opt.given_plies:
            # The table is the one the previous 1-ply look made, or made now.  Either is a
            # function of the position alone, so the luck's mean over the rolls stays 0.
            valued = table[0] < 0.0 and memo != NULL
            if (table[0] >= 0.0
                    or nn_roll_table(opt.net, opt.scratch, &b, table, NULL, &opt.luck, memo) == 0):
                nn_add_luck(table, d1, d2, side == 1,
                            r.plies == 0 and opt.first_roll_no_doubles, r.luck)
        n = generate_plays(g, &b, d1, d2)
        if n < 0:
            return r
        # In a match with the cube the neural players value gammons at the score's prices
        # (by the first branch's cube: checker play is shared by the branches), the 1-ply
        # look the opponent's replies at his. The table's prices assume the cube, so matches
        # without it are played for money equity.
        priced = NULL
        if (opt.n_branches and cube_is_match(&cube[0]) and cube[0].max_value > 1
                and has_probabilities(opt.players[side])):
            gammon_prices(&cube[0], prices)
            theirs = cube[0]
            cube_switch(&theirs)
            gammon_prices(&theirs, reply_prices)
            priced = prices
        live = NULL
        if opt.cubeful_play[side]:
            for k in range(opt.n_branches):
                if not done[k]:
                    live = &cube[k]
                    break
        b = g.out[choose_play(g, &b, n, opt.players[side], opt, rng, table if opt.vr else NULL,
                              priced, reply_prices if priced != NULL else NULL, live, side,
                              memo if valued else NULL)]
        log_add(log, LOG_PLAY, side, d1, d2, 0, 0, &b)
        r.plies += 1
        if b.c[0][0] == 15:
            k = loser_result(&b, opt.backgammons)
            r.outcome = k if side == 0 else LOSE_SINGLE + k
            r.win = 1.0 if side == 0 else 0.0
            for k in range(opt.n_branches):
                if not done[k]:
                    passed = game_points(&b, opt.backgammons, &cube[k])
                    r.points[k] = passed if side == 0 else -passed
            return r
        board_switch(&b)
        for k in range(opt.n_branches):
            cube_switch(&cube[k])
        side ^= 1
    return r


cdef bint truncate_cubeful(const Board* b, int side, const GameOptions* opt,
                           const CubeState* cube, const bint* done, GameResult* r) noexcept nogil:
    """End a money game with cube branches at `b` (row 0 = `side`, about to decide its
    cube, from ply 1 on, and roll; both sides inside the two-sided database, as play_game
    checks) if the cubeful bear-off database answers every live branch: each branch scores
    its exact cubeful equity (after the proper cube action) times its cube, a branch that
    passed its points.  Returns False, changing nothing, otherwise."""
    cdef CubeAnalysis a[MAX_BRANCHES]
    cdef int k
    cdef double e, w
    if opt.bearoff == NULL:
        return False
    if cube_is_match(&cube[0]):
        return truncate_match(b, side, opt, cube, done, r)
    for k in range(opt.n_branches):
        if not done[k] and not cube_analyse_exact(opt.bearoff, b, &cube[k], &a[k]):
            return False
    w = bearoff2_win(opt.bearoff, b)
    for k in range(opt.n_branches):
        if done[k]:
            r.cf_points[k] = r.points[k]
            continue
        # Ply 0 has no cube action (its branches are the cube decisions rolled out), unless
        # the position was reached by a play (cube_first_turn).
        if (r.plies > 0 or opt.cube_first_turn) and wants_double(a[k].action):
            e = min(a[k].dt, a[k].dp)
        else:
            e = a[k].nd
        r.cf_points[k] = (e if side == 0 else -e) * cube[k].value
    r.outcome = TRUNCATED
    r.win = w if side == 0 else 1.0 - w
    r.probs[NN_WIN] = r.win
    return True


cdef bint truncate_match(const Board* b, int side, const GameOptions* opt,
                         const CubeState* cube, const bint* done, GameResult* r) noexcept nogil:
    """End a match game with cube branches at `b` (row 0 = `side`, about to decide its
    cube and roll) if the solved bear-off region (opt.region) holds every live branch:
    each scores player 0's exact MWC, after the proper cube action from ply 1 on.
    Returns False, changing nothing, otherwise."""
    cdef CubeAnalysis a
    cdef double e[MAX_BRANCHES]
    cdef int k
    cdef bint act = r.plies > 0 or opt.cube_first_turn
    if opt.region == NULL:
        return False
    for k in range(opt.n_branches):
        if done[k]:
            continue
        # Ply 0 has no cube action (its branches are the cube decisions rolled out).
        if act:
            e[k] = mdp_region_acting(opt.region, b, side, &cube[k])
        elif mdp_region_analysis(opt.region, b, side, &cube[k], opt.bearoff, &a):
            e[k] = a.mwc_nd
        else:
            e[k] = -1.0
        if e[k] < 0.0:
            return False
    for k in range(opt.n_branches):
        if done[k]:
            r.cf_points[k] = mwc_after(&opt.cube[0], r.points[k])
        else:
            r.cf_points[k] = e[k] if side == 0 else 1.0 - e[k]
    r.outcome = TRUNCATED
    r.win = bearoff2_win(opt.bearoff, b)
    if side == 1:
        r.win = 1.0 - r.win
    r.probs[NN_WIN] = r.win
    return True


cdef void truncate_by_net(const Board* b, int side, const GameOptions* opt,
                          GameResult* r) noexcept nogil:
    """End the game at `b` (row 0 = `side` on roll) with the net's 0-ply probabilities."""
    cdef double p[NN_OUTPUTS]
    neural_probs(opt.net, b.c[0], b.c[1], p)
    if side == 0:
        memcpy(r.probs, p, sizeof(p))
    else:
        nn_swap_sides(p, r.probs)
    r.outcome = TRUNCATED
    r.win = r.probs[NN_WIN]


cdef inline void game_figures(const GameResult* r, double* f) noexcept nogil:
    """The per-game values of the six reported figures (gammons include backgammons); a
    truncated game counts its probabilities where it stopped."""
    cdef int o = r.outcome, k
    if o == TRUNCATED:
        for k in range(NN_OUTPUTS):     # the figures' order is the net's
            f[k] = r.probs[k]
    else:
        f[FIG_WIN] = r.win
        f[FIG_WIN_GAMMON] = 1.0 if o == WIN_GAMMON or o == WIN_BACKGAMMON else 0.0
        f[FIG_WIN_BACKGAMMON] = 1.0 if o == WIN_BACKGAMMON else 0.0
        f[FIG_LOSE_GAMMON] = 1.0 if o == LOSE_GAMMON or o == LOSE_BACKGAMMON else 0.0
        f[FIG_LOSE_BACKGAMMON] = 1.0 if o == LOSE_BACKGAMMON else 0.0
    f[FIG_EQUITY] = (2.0 * f[FIG_WIN] - 1.0 + f[FIG_WIN_GAMMON] - f[FIG_LOSE_GAMMON]
                     + f[FIG_WIN_BACKGAMMON] - f[FIG_LOSE_BACKGAMMON])


cdef inline void luck_adjusted(const GameResult* r, const double* f, double* a) noexcept nogil:
    """The six figures with the game's luck taken off (variance reduction): each of the five
    probabilities less its luck, and the equity less the luck in equity."""
    cdef int k
    for k in range(NN_OUTPUTS):
        a[k] = f[k] - r.luck[k]
    a[FIG_EQUITY] = f[FIG_EQUITY] - (2.0 * r.luck[NN_WIN] + r.luck[NN_WIN_GAMMON]
                                     - r.luck[NN_LOSE_GAMMON] + r.luck[NN_WIN_BACKGAMMON]
                                     - r.luck[NN_LOSE_BACKGAMMON])


cdef inline void cube_figures(const GameResult* r, const GameOptions* opt, double* v,
                              double* cubeless) noexcept nogil:
    """Each branch's cubeful result for player 0 (money: points per unit of branch 0's
    starting cube; match: player 0's match winning chance after the game), and the game's
    cubeless result on the same scale (a dead cube at branch 0's starting value)."""
    cdef int k, points
    cdef const CubeState* s = &opt.cube[0]
    cdef bint match = cube_is_match(s)
    if r.outcome == TRUNCATED and opt.n_branches and (not match or opt.region != NULL):
        # Stopped in the cubeful bear-off database (money: exact cubeful points) or in the
        # solved region (match: exact MWCs); the cubeless result is the exact win
        # probability's (no gammons there).
        for k in range(opt.n_branches):
            v[k] = r.cf_points[k] if match else r.cf_points[k] / <double>s.value
        if match:
            cubeless[0] = r.win * mwc_after(s, s.value) + (1.0 - r.win) * mwc_after(s, -s.value)
        else:
            cubeless[0] = 2.0 * r.win - 1.0
        return
    for k in range(opt.n_branches):
        v[k] = mwc_after(s, r.points[k]) if match else r.points[k] / <double>s.value
    if r.outcome >= WIN_SINGLE and r.outcome <= LOSE_BACKGAMMON:
        points = r.outcome + 1 if r.outcome < LOSE_SINGLE else LOSE_SINGLE - r.outcome - 1
    else:
        points = 0
    cubeless[0] = mwc_after(s, points * s.value) if match else points
