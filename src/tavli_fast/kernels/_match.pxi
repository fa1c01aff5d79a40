# Whole matches (R24-R25): games to N points in the C game loop, with the Crawford rule,
# and the tavli match (T1-T3): games rotating Portes, Plakoto, Fevga, no cube.
# Included by _core.pyx after _game.pxi and _variant_game.pxi; match.py is its Python face.

cdef enum:  # per-match tallies summed by run_matches, all integers
    MT_WINS_A = 0               # matches won by player A
    MT_GAMES = 1                # games played
    MT_GAMES_SQ = 2             # sum over matches of games squared (for the SE)
    MT_CUBE = 3                 # sum over games of the final cube value
    MT_SINGLE_A = 4             # games won by A: single, gammon, backgammon (exclusive)
    MT_GAMMON_A = 5
    MT_BACKGAMMON_A = 6
    MT_SINGLE_B = 7
    MT_GAMMON_B = 8
    MT_BACKGAMMON_B = 9
    MT_PASSES = 10              # games that ended by a pass
    MT_POINTS_A = 11            # points scored by A, by B (a match's last game counts in full)
    MT_POINTS_B = 12
    # Per game type k (0 Portes, 1 Plakoto, 2 Fevga), five tallies from MT_TYPE + 5 k:
    # games decided, A's points, B's points, the sums of their squares (for the SEs).
    MT_TYPE = 13
    MT_MOTHER_A = 28            # Plakoto games won by the mother rule (P5), by A, by B
    MT_MOTHER_B = 29
    MT_DRAWS = 30               # Plakoto games drawn (P6) and replayed
    N_MATCH_TALLIES = 31
    N_GAME_TYPES = 3

ctypedef struct MatchOptions:
    int length
    int score[2]                # points already won by A (0) and B (1)
    bint post_crawford          # the Crawford game has been played already
    int max_cube                # 1: no cube
    bint winner_starts          # Portes / tavli: the previous game's winner starts (T3)
    const MatchTable* met
    bint tavli                  # T2: games rotate Portes, Plakoto, Fevga (needs max_cube 1)
    int variant_players[2]      # A's and B's players in Plakoto and Fevga (VPLAYER_*)
    int variant_options[2]      # the core option bits of Plakoto, of Fevga
    bint draw_ends_game         # P6 option: a Plakoto draw is a game nobody scores, not replayed
    VNPlayers vnn               # the variant nets of the neural players (VPLAYER_NEURAL*)
    bint cubeful_play[2]        # A's and B's 0-ply neural players play by cubeful equity
    int region_checkers         # > 0: the neural players judge their cube in bear-offs of at
                                # most this many checkers a side by the game solved at its
                                # score (_bearoff_match.pxi), built on first use of a score
    _MDP* regions               # [(starter's away - 1) * length + other's away - 1][crawford]:
                                # n_states 0 not built yet, -1 could not be built


cdef inline int tavli_variant_game(VarGen* v, int kind, int starter, const MatchOptions* m,
                                   Rng* rng, GameLog* log=NULL) noexcept nogil:
    """One Plakoto (kind 1) or Fevga (kind 2) game of a tavli match from the start, the
    starter on roll (his first roll may be a double, T3); its outcome for the starter.
    `log` (or NULL) records its plays."""
    cdef Board start
    cdef int players[2]
    cdef int plies = 0
    memset(&start, 0, sizeof(Board))
    start.c[0][24] = 15
    start.c[1][24] = 15
    players[0] = m.variant_players[starter]
    players[1] = m.variant_players[starter ^ 1]
    return play_variant_game(v, &start, 0, GAME_PLAKOTO if kind == 1 else GAME_FEVGA,
                             m.variant_options[kind - 1], players, rng, &plies, NULL, 0,
                             &m.vnn, log)


cdef const _MDP* match_region(const MatchOptions* m, const BearoffDB* db, MoveGen* g,
                              const CubeState* s) noexcept nogil:
    """The bear-off region solved at the score of `s` (the starter's view, cube 1 centred),
    built on first use with the move generator `g`; NULL without regions or if it could
    not be built (out of memory: the model answers then)."""
    cdef _MDP* d
    cdef int64_t starts[2]
    if m.regions == NULL or db == NULL or db.two_checkers < m.region_checkers:
        return NULL
    d = &m.regions[((s.away_me - 1) * m.length + s.away_opp - 1) * 2 + (1 if s.crawford else 0)]
    if d.n_states == 0:
        starts[0] = starts[1] = -m.region_checkers
        if _mdp_solve(d, db, s, starts, g, (<int64_t>1) << 62) != MDP_OK:
            _mdp_free(d)
            d.n_states = -1
    return d if d.n_states > 0 else NULL


cdef bint play_match(MoveGen* g, VarGen* v, const Board* start, GameOptions* opt,
                     const int* players, const MatchOptions* m, Rng* rng,
                     int64_t* tally, const int64_t* control=NULL,
                     GameLog* log=NULL) noexcept nogil:
    """Play one match between players[0] (A) and players[1] (B) and add it to `tally`.
    Returns False if the run's stop flag (`control`, _control.pxi) came up between two of
    its games: the match was left unfinished, and `tally` holds a part of it.

    Each game starts at `start` with its starter on roll: the winner of the opening roll
    (R5, a fair coin), or with `winner_starts` the previous game's winner.  The starter's
    view of the cube and score goes into opt.cube[0]; a pass ends the game at once.
    With `tavli` (T1-T3; `v` a variant generator) the games rotate Portes, Plakoto, Fevga,
    without the cube; a Plakoto draw (P6) is replayed with the same starter and counts as
    no game in the rotation, or with `draw_ends_game` ends that game with no points and
    the same starter for the next.
    `log` (or NULL) records the match: its start, each game's start, plays, cube actions and
    end (_match_log.pxi).
    """
    cdef int score[2]
    cdef int starter = <int>rng_below(rng, 2), winner, k, points, games = 0, kind = 0, vo
    cdef bint crawford_done = m.post_crawford, crawford
    cdef GameResult r
    score[0] = m.score[0]
    score[1] = m.score[1]
    opt.n_branches = 1
    opt.stop_on_pass = True
    opt.truncate = False
    log_add(log, LOG_MATCH, 0, 1 if m.post_crawford else 0, 0, score[0], score[1], NULL)
    while score[0] < m.length and score[1] < m.length:
        if games and stop_asked(control):
            return False
        if kind != 0:
            log_add(log, LOG_GAME, starter, 0, 0, kind, 0, NULL)
            vo = tavli_variant_game(v, kind, starter, m, rng, log)
            if vo == V_FAILED:
                tally[MT_GAMES] = -1
                return True
            if vo == V_DRAW:
                log_add(log, LOG_END, -1, 0, 0, 0, 0, NULL)
                tally[MT_DRAWS] += 1
                tally[MT_CUBE] += 1             # a game without the cube: its cube is 1
                games += 1
                if m.draw_ends_game:
                    kind = (kind + 1) % N_GAME_TYPES
                continue
            winner = starter if vo < V_LOSE_SINGLE else starter ^ 1
            k = vo if vo < V_LOSE_SINGLE else vo - V_LOSE_SINGLE  # single, double, mother
            points = 1 if k == V_WIN_SINGLE else 2
            tally[(MT_SINGLE_A if winner == 0 else MT_SINGLE_B) + (0 if k == 0 else 1)] += 1
            if k == V_WIN_MOTHER:
                tally[MT_MOTHER_A + winner] += 1
            tally[MT_CUBE] += 1
        else:
            crawford = False
            if m.length - score[0] == 1 or m.length - score[1] == 1:
                crawford = not crawford_done
                crawford_done = True
            opt.players[0] = players[starter]
            opt.players[1] = players[starter ^ 1]
            opt.cubeful_play[0] = m.cubeful_play[starter]
            opt.cubeful_play[1] = m.cubeful_play[starter ^ 1]
            opt.cube[0].value = 1
            opt.cube[0].owner = CUBE_CENTRE
            opt.cube[0].max_value = m.max_cube
            opt.cube[0].jacoby = False
            opt.cube[0].beaver = False
            opt.cube[0].away_me = m.length - score[starter]
            opt.cube[0].away_opp = m.length - score[starter ^ 1]
            opt.cube[0].crawford = crawford
            opt.cube[0].met = m.met
            opt.region = NULL
            if has_probabilities(opt.players[0]) or has_probabilities(opt.players[1]):
                opt.region = match_region(m, opt.bearoff, g, &opt.cube[0])
            log_add(log, LOG_GAME, starter, 1 if crawford else 0, 0, 0, 0, NULL)
            r = play_game(g, start, opt, rng, NULL, 0, log)
            if r.outcome == FAILED:
                tally[MT_GAMES] = -1
                return True
            points = r.points[0]
            winner = starter if points > 0 else starter ^ 1
            points = points if points > 0 else -points
            tally[MT_CUBE] += r.cube[0]
            if r.outcome == PASSED:
                tally[MT_PASSES] += 1
            else:
                k = r.outcome if r.outcome < LOSE_SINGLE else r.outcome - LOSE_SINGLE
                tally[(MT_SINGLE_A if winner == 0 else MT_SINGLE_B) + k] += 1
        log_add(log, LOG_END, winner, 0, 0, points, 0, NULL)
        score[winner] += points
        tally[MT_POINTS_A + winner] += points
        tally[MT_TYPE + 5 * kind] += 1
        tally[MT_TYPE + 5 * kind + 1 + winner] += points
        tally[MT_TYPE + 5 * kind + 3 + winner] += points * points
        games += 1
        if m.tavli:
            kind = (kind + 1) % N_GAME_TYPES
        if m.winner_starts:
            starter = winner
        else:
            starter = <int>rng_below(rng, 2)
    tally[MT_WINS_A] += 1 if score[0] >= m.length else 0
    tally[MT_GAMES] += games
    tally[MT_GAMES_SQ] += games * games
    return True
