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
                cubeful_play=(False, False), int64_t[::1] control=None):
    """Play n_matches matches to `length` points from the score (score_a, score_b).

    Every Portes game starts from `board` (the starting position).  max_cube = 1 plays
    without the cube.  `tavli` (T1-T3, needs max_cube = 1): the games rotate Portes,
    Plakoto, Fevga, the variant games played by variant_player_a / _b (VPLAYER_*) under
    the option bits plakoto_options / fevga_options (the neural ones, 2 and 3, need
    plakoto_net and fevga_net); plakoto_draw_ends_game: P6's option,
    a draw is a game that nobody scores instead of a replay.  `cubeful_play` (A's, then
    B's): that player's 0-ply neural player picks its plays by cubeful equity at the match's
    cube and score (run_games).  Returns int64[N_MATCH_TALLIES]:
    matches won by A, games, sum of games squared, sum of final cubes, A's single /
    gammon (2 points) / backgammon wins, B's, games ended by a pass, points scored by A
    and by B, then per game type (Portes, Plakoto, Fevga) games decided, A's points, B's
    points and the sums of their squares, then Plakoto mother-rule wins of A and of B,
    and Plakoto draws (replayed; counted in the games).
    `control` (int64[2], see _control.pxi): the loop stops before a match once control[0]
    is set, returning the tallies of the matches played, and adds one to control[1] after
    each match.
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
    opt.scratch = NULL
    opt.first_roll_no_doubles = first_roll_no_doubles
    opt.backgammons = backgammons
    opt.bearoff = _tables_db(bearoff)
    opt.bearoff_play = bearoff_play
    opt.given_plies = 0
    opt.truncate_plies = 0
    opt.vr = False
    _set_filter(&opt, NN_1PLY_CANDIDATES, NN_1PLY_WINDOW)
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
    try:
        if player_a == PLAYER_NEURAL_1PLY or player_b == PLAYER_NEURAL_1PLY:
            opt.scratch = _new_movegen()
        if tavli:
            v = _new_vargen()
            if variant_player_a == VPLAYER_NEURAL_1PLY or variant_player_b == VPLAYER_NEURAL_1PLY:
                m.vnn.scratch = _new_vargen()
        with nogil:
            for i in range(n_matches):
                if stop_asked(ctl):
                    break
                play_match(g, v, &b, &opt, players, &m, &rng, &t[0])
                if t[MT_GAMES] < 0:
                    failed = True
                    break
                count_game(ctl)
    finally:
        free(g)
        free(v)
        free(m.vnn.scratch)
        free(opt.scratch)
    if failed:
        raise RuntimeError("a game did not finish (corrupt position?)")
    return tally
