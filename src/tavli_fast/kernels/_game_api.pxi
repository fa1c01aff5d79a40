# Whole backgammon games for Python: run_games (rollouts, VR, cubeful games), one
# player's choice, the first rolls and the raw generator output (for tests).
# Included by _core.pyx after the kernels it wraps.

cdef const BearoffDB* _tables_db(BearoffTables tables):
    return &tables.db if tables is not None else NULL


cdef const NeuralNetC* _net_c(NeuralNet net):
    return &net.c if net is not None else NULL


cdef int _check_player(int player, BearoffTables bearoff, NeuralNet net) except -1:
    """A known player kind, with the data it needs."""
    if player < PLAYER_RANDOM or player > PLAYER_NEURAL_2PLY:
        raise ValueError(f"unknown player kind {player}")
    if player == PLAYER_BEAROFF and bearoff is None:
        raise ValueError("the bearoff player needs the bear-off databases")
    if has_probabilities(player) and net is None:
        raise ValueError("the neural players need a NeuralNet")
    return 0


cdef int _set_filter(GameOptions* opt, int candidates, double window) except -1:
    """The 1-ply move filter, checked; the 2-ply player's second filter and the replies' and
    luck tables' pre-filters at their defaults, and no cache yet (_search_scratch makes it)."""
    if not 1 <= candidates <= NN_MAX_CANDIDATES:
        raise ValueError(f"the move filter keeps 1 to {NN_MAX_CANDIDATES} candidates, not {candidates}")
    if not window >= 0.0:
        raise ValueError(f"the move filter's window must be >= 0, not {window}")
    opt.filter.candidates = candidates
    opt.filter.window = window
    opt.filter2.candidates = NN_2PLY_CANDIDATES
    opt.filter2.window = NN_2PLY_WINDOW
    opt.cache = NULL
    opt.look[0].keep = NN_REPLY_KEEP
    opt.look[0].margin = NN_REPLY_MARGIN
    opt.look[0].estimator = NN_REPLY_ESTIMATOR
    opt.look[0].analogues = True
    opt.look[1] = opt.look[0]
    opt.luck.keep = NN_LUCK_KEEP
    opt.luck.margin = NN_LUCK_MARGIN
    opt.luck.estimator = NN_LUCK_ESTIMATOR
    opt.luck.analogues = True           # (a luck table has no candidates)
    return 0


cdef SearchCache _search_scratch(GameOptions* opt, NeuralNet net, int player0, int player1,
                                 bint luck=False):
    """The look-ahead's generator (opt.scratch, for the 1- and 2-ply players and the luck
    of the rolls) and, for a 2-ply player, its cache (returned: the caller keeps it alive
    while the games run); the caller frees opt.scratch."""
    cdef SearchCache cache = None
    cdef bint two = player0 == PLAYER_NEURAL_2PLY or player1 == PLAYER_NEURAL_2PLY
    if luck or two or player0 == PLAYER_NEURAL_1PLY or player1 == PLAYER_NEURAL_1PLY:
        opt.scratch = _new_movegen()
    if two:
        cache = SearchCache()
        opt.cache = _bound_cache(cache, net)
    return cache


cdef int _set_side_filters(ReplyFilter* look, object setting) except -1:
    """Both sides' look-ahead pre-filters from one (keep, margin) or a pair of them."""
    if (isinstance(setting, (tuple, list)) and len(setting) == 2
            and all(isinstance(x, (tuple, list)) for x in setting)):
        _set_reply_filter(&look[0], setting[0], "reply_filter")
        _set_reply_filter(&look[1], setting[1], "reply_filter")
    else:
        _set_reply_filter(&look[0], setting, "reply_filter")
        look[1] = look[0]
    return 0


def run_games(const int8_t[:, ::1] board, Py_ssize_t n_games, int player0, int player1,
              uint64_t seed, bint first_roll_no_doubles, bint backgammons,
              const int8_t[:, ::1] first_dice=None, BearoffTables bearoff=None,
              bint bearoff_play=True, bint truncate=False, int given_plies=0,
              double[::1] per_game_equity=None, NeuralNet net=None, cube_branches=None,
              MatchTableC met=None, int truncate_plies=0, double[::1] vr_moments=None,
              double[::1] per_game_luck=None, int filter_candidates=NN_1PLY_CANDIDATES,
              double filter_window=NN_1PLY_WINDOW, double[::1] per_game_cubeful=None,
              bint cube_first_turn=False, cubeful_play=(False, False),
              MatchBearoffRegion match_region=None,
              int64_t[::1] control=None, uint64_t[::1] rng_state=None,
              double[::1] moments_into=None, reply_filter=None, luck_filter=None,
              player_nets=None, reply_analogues=(True, True)):
    """Play n_games games from `board`; player0 is on roll first.

    Returns (counts int64[9], moments float64[12]):
    counts = win_single, win_gammon, win_backgammon, lose_single, lose_gammon,
    lose_backgammon (exclusive outcomes of finished games, for player 0),
    truncated games, plies_sum, plies_sumsq;
    moments = the sums, then the sums of squares, of the per-game figures win,
    win_gammon, win_backgammon, lose_gammon, lose_backgammon, equity (gammons
    include backgammons; a truncated game counts its exact win probability).
    first_dice[i, 2j:2j+2] forces roll j of game i (a 0 pair rolls normally).
    `bearoff`: loaded databases (BearoffTables), used by the `bearoff` player,
    by pubeval/greedy when `bearoff_play`, and for truncation when `truncate`.
    `given_plies`: the first plies whose dice were given with the position (0 or 1):
    they are never truncated (a given roll must be played, not averaged away) and
    their roll is no luck.
    `truncate_plies` > 0: stop each game after that many plies and count the net's
    0-ply probabilities there (fast, but biased by the net's errors); needs `net`.
    `vr_moments` (float64[12]), if given, turns on variance reduction (needs `net`): every
    roll's luck is measured by the net (the probabilities after the best 0-ply play for the
    rolled dice less their mean over the 36 rolls, reusing a 1-ply player's look at the
    opponent's rolls), and the sums, then the sums of squares, of the six figures less the
    game's luck are added to it.  `per_game_luck` (float64[n_games]), with it, receives
    each game's luck in equity for player 0 (the luck-adjusted equity is
    per_game_equity - per_game_luck).
    `filter_candidates`, `filter_window`: the 1-ply move filter (at most that many
    candidates, within that equity of the best 0-ply play; 1..16 and >= 0).
    `reply_filter`, `luck_filter` ((keep, margin) or (keep, margin, estimator), None: the
    defaults REPLY_FILTER, LUCK_FILTER): the pre-filter of the replies of the 1-ply
    look-ahead and of the plays of the luck tables (_nn_prefilter.pxi): only the best `keep`
    by the estimator ("prune": the net's pruning net where it has one; "slope": the
    first-order estimate; without one, REPLY_ESTIMATOR, LUCK_ESTIMATOR), and those within
    `margin` of the keep-th, are valued by the net; keep 0 values every play (exact).
    `reply_filter` may also be a pair of them, player 0's then player 1's.
    `reply_analogues` (a pair, player 0's then player 1's): that side's 1-ply player values,
    in its looks after the first, the analogues of the best candidate's best replies even
    where the pre-filter would not keep them (_nn_search.pxi); False only to measure what
    that changes.
    `player_nets` (a pair of NeuralNets, player 0's then player 1's; cubeless games only):
    the nets each side's neural players choose their plays by (the luck and truncation stay
    `net`'s): two nets, or a net's two evaluators (NeuralNet.as_quantised), played against
    each other on the same dice.
    `per_game_equity`, if given (float64[n_games]), receives each game's
    cubeless equity for player 0: paired comparisons (common random numbers)
    need the games one by one, not only their sums.
    `net`: the NeuralNet of the neural players (required when one plays).
    `per_game_cubeful` (float64[n_games], with `cube_branches`) receives each game's cubeful
    result of the first branch for player 0 (as in `cube`'s sums: paired comparisons).
    `cube_first_turn`: player 0 makes a cube decision before his first roll too (the
    position was reached by a play; without it ply 0's cube is the branches' own).
    `cubeful_play` (a pair, player 0's then player 1's): with `cube_branches`, that side's
    0-ply neural player picks its plays by cubeful equity at its cube (the first live
    branch's), else by cubeless equity.
    `cube_branches`: play with the doubling cube, following up to two cube histories on
    the same games: a sequence of tuples (value, owner, max_value, jacoby, beaver, away_me,
    away_opp, crawford), each a starting cube seen by player 0 (owner 0 centre, 1 player
    0, 2 player 1; away 0 = money), with `met` for a match.  Games are then never
    truncated, and a third array is returned, cube = [sum_0, sum_1, sumsq_0, sumsq_1,
    sum_d, sumsq_d, cube_0, cube_1, sum_cl, sumsq_cl]: per branch k the sums of each
    game's cubeful result for player 0 (money: points per unit of branch 0's starting
    cube; match: MWC) and of its square, the same for d = result_1 - result_0 (paired),
    the sums of the final cube values, and the same two sums of the cubeless result on
    that scale (a dead cube at branch 0's value).
    `control` (int64[2], see _control.pxi): before each game the loop looks at control[0]
    and stops once it is set, returning the sums of the games played so far; after each game
    it adds one to control[1].  The games played are then the sum of counts[0:7].
    `rng_state` (uint64[4]): start the dice from this saved state instead of `seed` (all
    zeros: from `seed`), and save the state there at the end; with `moments_into`
    (float64[12]: the moments are summed into it, and it is the array returned) a run cut
    into several calls gives the numbers of one call bit for bit.
    """
    cdef Board b
    _load_board(board, &b)
    cdef GameOptions opt
    opt.players[0] = player0
    opt.players[1] = player1
    for p in (player0, player1):
        _check_player(p, bearoff, net)
    opt.net = _net_c(net)
    opt.nets[0] = opt.nets[1] = NULL
    if player_nets is not None:
        if len(player_nets) != 2 or not all(isinstance(x, NeuralNet) for x in player_nets):
            raise ValueError("player_nets is a pair of NeuralNets: player 0's, then player 1's")
        if cube_branches is not None:
            raise ValueError("player_nets are for cubeless games")
        opt.nets[0] = _net_c(player_nets[0])
        opt.nets[1] = _net_c(player_nets[1])
    opt.scratch = NULL
    opt.first_roll_no_doubles = first_roll_no_doubles
    opt.backgammons = backgammons
    opt.bearoff = _tables_db(bearoff)
    opt.bearoff_play = bearoff_play
    opt.truncate = truncate
    opt.given_plies = given_plies
    opt.truncate_plies = truncate_plies
    opt.vr = vr_moments is not None
    _set_filter(&opt, filter_candidates, filter_window)
    _set_side_filters(opt.look, reply_filter)
    if not isinstance(reply_analogues, (tuple, list)) or len(reply_analogues) != 2:
        raise ValueError("reply_analogues is a pair: player 0's, then player 1's")
    opt.look[0].analogues = bool(reply_analogues[0])
    opt.look[1].analogues = bool(reply_analogues[1])
    _set_reply_filter(&opt.luck, luck_filter, "luck_filter", NN_LUCK_ESTIMATOR)
    opt.n_branches = 0
    opt.stop_on_pass = False
    opt.cube_first_turn = cube_first_turn
    if len(cubeful_play) != 2:
        raise ValueError("cubeful_play is a pair: player 0's, then player 1's")
    opt.cubeful_play[0] = bool(cubeful_play[0])
    opt.cubeful_play[1] = bool(cubeful_play[1])
    opt.region = &match_region.d if match_region is not None else NULL
    if (opt.vr or truncate_plies > 0) and net is None:
        raise ValueError("variance reduction and truncation after N plies need a NeuralNet")
    if truncate_plies < 0:
        raise ValueError(f"truncate_plies must be >= 0, not {truncate_plies}")
    if opt.vr and vr_moments.shape[0] != 2 * N_FIGURES:
        raise ValueError(f"vr_moments must have {2 * N_FIGURES} entries")
    if per_game_luck is not None and (not opt.vr or per_game_luck.shape[0] != n_games):
        raise ValueError("per_game_luck needs vr_moments and n_games entries")
    if cube_branches is not None:
        if not 1 <= len(cube_branches) <= MAX_BRANCHES:
            raise ValueError(f"one or two cube branches, not {len(cube_branches)}")
        for i, branch in enumerate(cube_branches):
            if len(branch) != 8:
                raise ValueError("a cube branch is (value, owner, max_value, jacoby, beaver, "
                                 "away_me, away_opp, crawford)")
            _cube_state(&opt.cube[i], branch[0], branch[1], branch[2], branch[3], branch[4],
                        branch[5], branch[6], branch[7], met)
        opt.n_branches = len(cube_branches)
    if truncate and (bearoff is None or bearoff.db.two_checkers == 0):
        raise ValueError("truncation needs the two-sided bear-off database")
    if (truncate and cube_branches is not None and not opt.cube[0].away_me
            and bearoff.db.cubeful == NULL):
        raise ValueError("truncating a cubeful rollout needs the cubeful bear-off database")
    if match_region is not None and (cube_branches is None or not opt.cube[0].away_me
                                     or bearoff is None
                                     or mdp_state_of(opt.region, 0, &opt.cube[0]) < 0):
        raise ValueError("match_region is for cubeful match games at its score and cube, "
                         "with the two-sided bear-off database")
    if per_game_equity is not None and per_game_equity.shape[0] != n_games:
        raise ValueError("per_game_equity must have n_games entries")
    if per_game_cubeful is not None and (cube_branches is None
                                         or per_game_cubeful.shape[0] != n_games):
        raise ValueError("per_game_cubeful needs cube_branches and n_games entries")
    cdef double* cubefuls = &per_game_cubeful[0] if per_game_cubeful is not None and n_games else NULL
    cdef double* equities = &per_game_equity[0] if per_game_equity is not None and n_games else NULL
    cdef int n_forced = 0
    if first_dice is not None:
        if first_dice.shape[0] != n_games or first_dice.shape[1] % 2:
            raise ValueError("first_dice must be (n_games, 2k)")
        n_forced = first_dice.shape[1] // 2
        for i in range(n_games):
            for j in range(first_dice.shape[1]):
                if first_dice[i, j] < 0 or first_dice[i, j] > 6:
                    raise ValueError("forced dice must be 1..6 (or 0 for a normal roll)")
    counts = np.zeros(9, dtype=np.int64)
    if moments_into is not None and moments_into.shape[0] != 2 * N_FIGURES:
        raise ValueError(f"moments_into must have {2 * N_FIGURES} entries")
    moments = (np.zeros(2 * N_FIGURES, dtype=np.float64) if moments_into is None
               else np.asarray(moments_into))
    cube_moments = np.zeros(10, dtype=np.float64)
    cdef int64_t[::1] c = counts
    cdef double[::1] m = moments
    cdef double[::1] cm = cube_moments
    cdef double v[MAX_BRANCHES]
    cdef double cubeless
    cdef double f[N_FIGURES]
    cdef double a[N_FIGURES]
    cdef double* lucks = &per_game_luck[0] if per_game_luck is not None and n_games else NULL
    cdef Rng rng
    _start_rng(&rng, seed, rng_state)
    cdef int64_t* ctl = _control_words(control)
    cdef MoveGen* g = _new_movegen()
    cdef Py_ssize_t gi
    cdef int k, failed = 0
    cdef GameResult r
    cdef const int8_t* forced = NULL
    try:
        cache = _search_scratch(&opt, net, player0, player1, opt.vr)
        with nogil:
            for gi in range(n_games):
                if stop_asked(ctl):
                    break
                if n_forced:
                    forced = &first_dice[gi, 0]
                r = play_game(g, &b, &opt, &rng, forced, n_forced)
                if r.outcome == FAILED:
                    failed = 1
                    break
                if opt.n_branches:
                    cube_figures(&r, &opt, v, &cubeless)
                    if cubefuls != NULL:
                        cubefuls[gi] = v[0]
                    cm[8] += cubeless
                    cm[9] += cubeless * cubeless
                    for k in range(opt.n_branches):
                        cm[k] += v[k]
                        cm[2 + k] += v[k] * v[k]
                        cm[6 + k] += r.cube[k]
                    if opt.n_branches == 2:
                        cm[4] += v[1] - v[0]
                        cm[5] += (v[1] - v[0]) * (v[1] - v[0])
                c[r.outcome] += 1
                c[7] += r.plies
                c[8] += <int64_t>r.plies * r.plies
                game_figures(&r, f)
                if equities != NULL:
                    equities[gi] = f[FIG_EQUITY]
                for k in range(N_FIGURES):
                    m[k] += f[k]
                    m[N_FIGURES + k] += f[k] * f[k]
                if opt.vr:
                    luck_adjusted(&r, f, a)
                    if lucks != NULL:
                        lucks[gi] = f[FIG_EQUITY] - a[FIG_EQUITY]
                    for k in range(N_FIGURES):
                        vr_moments[k] += a[k]
                        vr_moments[N_FIGURES + k] += a[k] * a[k]
                count_game(ctl)
    finally:
        free(g)
        free(opt.scratch)
    _save_rng(&rng, rng_state)
    if failed:
        raise RuntimeError("a game did not finish (corrupt position?)")
    if opt.n_branches:
        return counts, moments, cube_moments
    return counts, moments


def choose(const int8_t[:, ::1] board, int die1, int die2, int player, uint64_t seed,
           BearoffTables bearoff=None, bint bearoff_play=True, NeuralNet net=None,
           int filter_candidates=NN_1PLY_CANDIDATES, double filter_window=NN_1PLY_WINDOW,
           const double[::1] prices=None, const double[::1] reply_prices=None,
           reply_filter=None, bint reply_analogues=True):
    """The board (sides not switched) that `player` moves to with (die1, die2); the 1-ply
    player uses the move filter (filter_candidates, filter_window), the replies'
    pre-filter (reply_filter) and the analogue replies (reply_analogues) as in run_games.
    `prices`: the mover's gammon prices (win gammon, lose gammon, win bg, lose bg) that the
    neural players use in a match (gammon_prices_of); `reply_prices`: the opponent's, at
    which the 1-ply look picks his replies (both None: money; the 1-ply player needs both
    or neither)."""
    cdef Board b
    cdef Rng rng
    cdef GameOptions opt
    cdef int i
    _load_board(board, &b)
    _check_die(die1)
    _check_die(die2)
    _check_player(player, bearoff, net)
    opt.nets[0] = opt.nets[1] = NULL
    opt.bearoff = _tables_db(bearoff)
    opt.bearoff_play = bearoff_play
    opt.truncate = False
    opt.truncate_plies = 0
    opt.vr = False
    _set_filter(&opt, filter_candidates, filter_window)
    _set_reply_filter(&opt.look[0], reply_filter, "reply_filter")
    opt.look[0].analogues = reply_analogues
    opt.n_branches = 0
    opt.cube_first_turn = False
    opt.cubeful_play[0] = opt.cubeful_play[1] = False
    opt.region = NULL
    opt.net = _net_c(net)
    opt.scratch = NULL
    rng_seed(&rng, seed)
    cdef int n = generate_plays(_scratch, &b, die1, die2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    cache = _search_scratch(&opt, net, player, player)
    try:
        if ((prices is not None and prices.shape[0] != 4)
                or (reply_prices is not None and reply_prices.shape[0] != 4)):
            raise ValueError("gammon prices are four numbers")
        if (player in (PLAYER_NEURAL_1PLY, PLAYER_NEURAL_2PLY)
                and (prices is None) != (reply_prices is None)):
            raise ValueError("the look-ahead players need both sides' gammon prices, or neither")
        i = choose_play(_scratch, &b, n, player, &opt, &rng, NULL,
                        &prices[0] if prices is not None else NULL,
                        &reply_prices[0] if reply_prices is not None else NULL)
    finally:
        free(opt.scratch)
    out = np.empty((2, 26), dtype=np.int8)
    cdef int8_t[:, ::1] v = out
    memcpy(&v[0, 0], &_scratch.out[i], 52)
    return out


def first_rolls(uint64_t seed, Py_ssize_t n, bint first_roll_no_doubles):
    """The opening rolls of n games as the game loop draws them: int8[n, 2].

    Uses the same code path as run_games (for the R5 tests); each row is one
    game's first roll from a generator seeded with `seed` and advanced in turn.
    """
    cdef Rng rng
    cdef int d1, d2
    cdef Py_ssize_t i
    rng_seed(&rng, seed)
    out = np.empty((n, 2), dtype=np.int8)
    cdef int8_t[:, ::1] v = out
    for i in range(n):
        roll_for_ply(&rng, 0, first_roll_no_doubles, NULL, 0, &d1, &d2)
        v[i, 0] = d1
        v[i, 1] = d2
    return out


def rng_outputs(uint64_t seed, Py_ssize_t n):
    """The first n outputs of the core generator for `seed` (pinned by a golden test)."""
    cdef Rng rng
    rng_seed(&rng, seed)
    out = np.empty(n, dtype=np.uint64)
    cdef uint64_t[::1] v = out
    cdef Py_ssize_t i
    for i in range(n):
        v[i] = rng_next(&rng)
    return out
