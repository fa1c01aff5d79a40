# Whole matches for Python: run_matches (backgammon, Portes, and the tavli match, T1-T3).
# Included by _core.pyx after the kernels it wraps.

def run_matches(const int8_t[:, ::1] board, Py_ssize_t n_matches, int length, int score_a,
                int score_b, bint post_crawford, int player_a, int player_b, uint64_t seed,
                bint first_roll_no_doubles, bint backgammons, int max_cube, bint winner_starts,
                MatchTableC met, BearoffTables bearoff=None, bint bearoff_play=True,
                NeuralNet net=None, bint tavli=False, int variant_player_a=VPLAYER_HEURISTIC,
                int variant_player_b=VPLAYER_HEURISTIC, int plakoto_options=0,
                int fevga_options=0, bint plakoto_draw_ends_game=False,
                VariantNet plakoto_net=None, VariantNet fevga_net=None,
                cubeful_play=(False, False), MatchBearoffRegions regions=None,
                int64_t[::1] control=None, bint record=False, reply_filter=None):
    """Play n_matches matches to `length` points from the score (score_a, score_b).

    Every Portes game starts from `board` (the starting position).  max_cube = 1 plays
    without the cube.  `tavli` (T1-T3, needs max_cube = 1): the games rotate Portes,
    Plakoto, Fevga, the variant games played by variant_player_a / _b (VPLAYER_*) under
    the option bits plakoto_options / fevga_options (the neural ones, 2 and 3, need
    plakoto_net and fevga_net); plakoto_draw_ends_game: P6's option,
    a draw is a game that nobody scores instead of a replay.  `cubeful_play` (A's, then
    B's): that player's 0-ply neural player picks its plays by cubeful equity at the match's
    cube and score (run_games).  `regions` (with `bearoff`): the neural players' cube in
    bear-offs of at most regions.checkers checkers a side is read from the game solved
    exactly at each score (built on a score's first game, kept by `regions` for the next
    calls).  Returns int64[N_MATCH_TALLIES]:
    matches won by A, games, sum of games squared, sum of final cubes, A's single /
    gammon (2 points) / backgammon wins, B's, games ended by a pass, points scored by A
    and by B, then per game type (Portes, Plakoto, Fevga) games decided, A's points, B's
    points and the sums of their squares, then Plakoto mother-rule wins of A and of B,
    and Plakoto draws (replayed; counted in the games).
    `control` (int64[2], see _control.pxi): the loop stops once control[0] is set, before
    a match or between two games of one (that match is then dropped), returning the tallies
    of the matches played, and adds one to control[1] after each match.
    `record`: also return the record of the matches played (the unfinished one dropped), as
    (tallies, entries): a structured array of LOG_ENTRY_DTYPE, one row a LogEntry
    (_match_log.pxi), which jobs/match_record.py turns into match records.
    `reply_filter` ((keep, margin) or (keep, margin, estimator); None: the default
    REPLY_FILTER): the pre-filter of the replies of the neural-1ply players' look-ahead in
    the Portes / backgammon games, as in run_games; one setting for both players (their
    sides change from game to game; the Plakoto and Fevga players have none).
    """
    cdef Board b
    _load_board(board, &b)
    for p in (player_a, player_b):
        _check_player(p, bearoff, net)
    if met is None or length < 1 or length > met.t.n:
        raise ValueError(f"a match of {length} points needs a match equity table that long")
    if not (0 <= score_a < length and 0 <= score_b < length):
        raise ValueError(f"score {score_a}-{score_b} is not one of a {length}-point match")
    if max_cube < 1:
        raise ValueError("max_cube must be at least 1")
    if tavli:
        if max_cube != 1:
            raise ValueError("a tavli match is played without the cube (T1): max_cube must be 1")
        for p in (variant_player_a, variant_player_b):
            _check_vplayer(p, plakoto_net is not None and fevga_net is not None)
        _check_variant(GAME_PLAKOTO, plakoto_options)
        _check_variant(GAME_FEVGA, fevga_options)
    cdef GameOptions opt
    cdef MatchOptions m
    cdef int players[2]
    players[0] = player_a
    players[1] = player_b
    opt.net = _net_c(net)
    opt.nets[0] = opt.nets[1] = NULL
    opt.scratch = NULL
    opt.region = NULL                   # play_match sets it for each game
    opt.first_roll_no_doubles = first_roll_no_doubles
    opt.backgammons = backgammons
    opt.bearoff = _tables_db(bearoff)
    opt.bearoff_play = bearoff_play
    opt.given_plies = 0
    opt.truncate_plies = 0
    opt.vr = False
    _set_filter(&opt, NN_1PLY_CANDIDATES, NN_1PLY_WINDOW)
    _set_reply_filter(&opt.look[0], reply_filter, "reply_filter")   # None: the default
    opt.look[1] = opt.look[0]
    m.length = length
    m.score[0] = score_a
    m.score[1] = score_b
    m.post_crawford = post_crawford
    m.max_cube = max_cube
    m.winner_starts = winner_starts
    m.met = &met.t
    m.tavli = tavli
    m.variant_players[0] = variant_player_a
    m.variant_players[1] = variant_player_b
    m.variant_options[0] = plakoto_options
    m.variant_options[1] = fevga_options
    m.draw_ends_game = plakoto_draw_ends_game
    if len(cubeful_play) != 2:
        raise ValueError("cubeful_play is a pair: A's, then B's")
    m.cubeful_play[0] = bool(cubeful_play[0])
    m.cubeful_play[1] = bool(cubeful_play[1])
    m.region_checkers = 0
    m.regions = NULL
    if regions is not None and max_cube > 1 and not tavli:
        if (bearoff is None or regions.checkers > bearoff.db.two_checkers
                or regions.length != length or regions.max_cube != max_cube
                or regions._met is not met):
            raise ValueError("the bear-off regions must be of this match (length, maximum "
                             "cube, table) and within the two-sided bear-off database")
        m.region_checkers = regions.checkers
        m.regions = regions.regions
    opt.cube_first_turn = False
    m.vnn.net[GAME_PLAKOTO] = _vnet_c(plakoto_net, GAME_PLAKOTO)
    m.vnn.net[GAME_FEVGA] = _vnet_c(fevga_net, GAME_FEVGA)
    m.vnn.scratch = NULL
    cdef int64_t* ctl = _control_words(control)
    tally = np.zeros(N_MATCH_TALLIES, dtype=np.int64)
    cdef int64_t[::1] t = tally
    cdef Rng rng
    rng_seed(&rng, seed)
    cdef MoveGen* g = _new_movegen()
    cdef VarGen* v = NULL
    cdef Py_ssize_t i
    cdef bint failed = False
    cdef int64_t before[N_MATCH_TALLIES]
    cdef GameLog log
    cdef GameLog* plog = &log if record else NULL
    cdef int64_t logged = 0
    cdef uint8_t[::1] raw
    memset(&log, 0, sizeof(GameLog))
    try:
        cache = _search_scratch(&opt, net, player_a, player_b)
        if tavli:
            v = _new_vargen()
            if variant_player_a == VPLAYER_NEURAL_1PLY or variant_player_b == VPLAYER_NEURAL_1PLY:
                m.vnn.scratch = _new_vargen()
        with nogil:
            for i in range(n_matches):
                if stop_asked(ctl):
                    break
                memcpy(before, &t[0], sizeof(before))
                logged = log.n
                if not play_match(g, v, &b, &opt, players, &m, &rng, &t[0], ctl, plog):
                    memcpy(&t[0], before, sizeof(before))   # the unfinished match: dropped
                    log.n = logged
                    break
                if t[MT_GAMES] < 0:
                    failed = True
                    break
                count_game(ctl)
        if record:
            if log.failed:
                raise MemoryError("out of memory for the record of the matches")
            if LOG_ENTRY_DTYPE.itemsize != sizeof(LogEntry):
                raise RuntimeError("LOG_ENTRY_DTYPE does not match the C LogEntry")
            entries = np.zeros(log.n, dtype=LOG_ENTRY_DTYPE)
            if log.n:
                raw = entries.view(np.uint8)
                memcpy(&raw[0], log.e, log.n * sizeof(LogEntry))
    finally:
        free(g)
        free(v)
        free(m.vnn.scratch)
        free(opt.scratch)
        free(log.e)
    if failed:
        raise RuntimeError("a game did not finish (corrupt position?)")
    return (tally, entries) if record else tally


#: The numpy layout of a LogEntry (_match_log.pxi), the rows run_matches(record=True) returns.
LOG_ENTRY_DTYPE = np.dtype([("kind", np.int8), ("side", np.int8), ("d1", np.int8),
                            ("d2", np.int8), ("a", np.int32), ("b", np.int32),
                            ("board", np.int8, (2, 26))], align=True)
LOG_KINDS = {"match": LOG_MATCH, "game": LOG_GAME, "play": LOG_PLAY, "double": LOG_DOUBLE,
             "take": LOG_TAKE, "beaver": LOG_BEAVER, "drop": LOG_DROP, "end": LOG_END}


cdef class MatchBearoffRegions:
    """The bear-off regions of a match's scores for run_matches: for each score (and the
    Crawford game), every pair of at most `checkers` checkers a side solved exactly at that
    score with the cube centred at 1 (_bearoff_match.pxi), built by run_matches on the
    score's first game and kept here for later calls (match_bearoff.py keeps one per
    process)."""
    cdef _MDP* regions
    cdef readonly int checkers, length, max_cube
    cdef readonly object _met

    def __cinit__(self, int checkers, int length, int max_cube, MatchTableC met):
        if met is None or not 1 <= length <= met.t.n:
            raise ValueError(f"a {length}-point match needs a match equity table that long")
        if not 1 <= checkers <= BO_MAX_CHECKERS:
            raise ValueError(f"checkers must be 1..{BO_MAX_CHECKERS}, not {checkers}")
        self.checkers = checkers
        self.length = length
        self.max_cube = max_cube
        self._met = met
        self.regions = <_MDP*>calloc(length * length * 2, sizeof(_MDP))
        if self.regions == NULL:
            raise MemoryError("cannot allocate the match's bear-off regions")

    def __dealloc__(self):
        cdef int i
        if self.regions != NULL:
            for i in range(self.length * self.length * 2):
                _mdp_free(&self.regions[i])
            free(self.regions)

    @property
    def solved(self):
        """How many scores' regions have been solved so far."""
        cdef int i, n = 0
        for i in range(self.length * self.length * 2):
            n += self.regions[i].n_states > 0
        return n
