# Plakoto and Fevga for Python: their move generators and whole games (run_variant_games).
# Included by _core.pyx after the kernels it wraps.

cdef VarGen* _new_vargen() except NULL:
    cdef VarGen* v = <VarGen*>calloc(1, sizeof(VarGen))
    if v == NULL:
        raise MemoryError("cannot allocate the move generator's tables")
    v.g.out = v.g.own
    return v


cdef VarGen* _vscratch = _new_vargen()


cdef int _check_variant(int game, int options) except -1:
    if game != GAME_PLAKOTO and game != GAME_FEVGA:
        raise ValueError(f"game must be 0 (Plakoto) or 1 (Fevga), not {game}")
    if options < 0 or options > 15:
        raise ValueError(f"options must be a 4-bit mask, not {options}")
    return 0


def variant_generate(const int8_t[:, ::1] board, int game, uint32_t pinned, int options,
                     int die1, int die2):
    """Plakoto (game 0) or Fevga (game 1): distinct boards reachable with (die1, die2).

    `board` is int8[2, 26] in the Portes layout with empty bars; `pinned` has bit p set
    for my point p holding my pinned checker (Plakoto).  Sides not switched: int8[n, 2, 26].
    When nothing can be played the one result is the unchanged board.
    """
    cdef Board b
    _load_board(board, &b)
    _check_die(die1)
    _check_die(die2)
    _check_variant(game, options)
    cdef int n = generate_variant(_vscratch, &b, game, pinned, options, die1, die2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    return _results_array(&_vscratch.g, n)


def variant_count_batch(const int8_t[:, :, ::1] boards, const uint32_t[::1] pinned, int game,
                        int options, const int8_t[:, ::1] dice):
    """Numbers of distinct Plakoto / Fevga plays for every board x roll: int64[m, k]."""
    cdef Py_ssize_t m = boards.shape[0], k = dice.shape[0], i, j
    _check_batch(boards, dice)
    _check_variant(game, options)
    if pinned.shape[0] != m:
        raise ValueError("one pinned mask per board")
    counts = np.zeros((m, k), dtype=np.int64)
    cdef int64_t[:, ::1] cv = counts
    cdef VarGen* v = _new_vargen()
    cdef int n, bad = 0
    try:
        with nogil:
            for i in range(m):
                for j in range(k):
                    n = generate_variant(v, <const Board*>&boards[i, 0, 0], game, pinned[i],
                                         options, dice[j, 0], dice[j, 1])
                    if n < 0:
                        bad = 1
                    cv[i, j] = n
    finally:
        free(v)
    if bad:
        raise RuntimeError("more distinct plays than the generator holds")
    return counts


cdef int _check_vplayer(int p, bint have_net) except -1:
    if p < VPLAYER_RANDOM or p > VPLAYER_NEURAL_1PLY:
        raise ValueError(f"a variant player is 0 (random), 1 (heuristic), 2 (neural) or "
                         f"3 (neural-1ply), not {p}")
    if p >= VPLAYER_NEURAL and not have_net:
        raise ValueError("a neural variant player needs the game's VariantNet")
    return 0


def run_variant_games(const int8_t[:, ::1] board, uint32_t pinned, int game, int options,
                      Py_ssize_t n_games, int player0, int player1, uint64_t seed,
                      const int8_t[:, ::1] first_dice=None, int8_t[::1] outcomes=None,
                      VariantNet net=None, int64_t[::1] control=None):
    """Play n_games Plakoto (game 0) / Fevga (game 1) games from `board`; player 0 on roll.

    Players: 0 random (uniform over the distinct results), 1 heuristic, 2 neural and
    3 neural-1ply (they need `net`, the game's VariantNet).  `pinned`: the
    pinned mask of the side on roll (Plakoto).  Returns int64[9]: the counts of the
    outcomes win single, win double, win by the mother rule, lose single, lose double,
    lose by the mother rule, draw (for player 0), then the sum and the sum of squares
    of the plies.  first_dice[i, 2j:2j+2] forces roll j of game i (a 0 pair rolls
    normally), as in run_games.  `outcomes`, if given (int8[n_games]), receives each
    game's outcome code (0-6 as above): paired comparisons need the games one by one.
    The same seed (and dice) gives the same games.  `control` (int64[2], see _control.pxi):
    the loop stops before a game once control[0] is set (the counts are then those of the
    games played: counts[0:7] sum to them) and adds one to control[1] after each game.
    """
    cdef Board b
    _load_board(board, &b)
    _check_variant(game, options)
    for p in (player0, player1):
        _check_vplayer(p, net is not None)
    cdef VNPlayers nn
    nn.net[GAME_PLAKOTO] = nn.net[GAME_FEVGA] = NULL
    nn.net[game] = _vnet_c(net, game)
    nn.scratch = NULL
    cdef int players[2]
    players[0] = player0
    players[1] = player1
    cdef int n_forced = 0
    cdef Py_ssize_t i, j
    if first_dice is not None:
        if first_dice.shape[0] != n_games or first_dice.shape[1] % 2:
            raise ValueError("first_dice must be (n_games, 2k)")
        n_forced = first_dice.shape[1] // 2
        for i in range(n_games):
            for j in range(first_dice.shape[1]):
                if first_dice[i, j] < 0 or first_dice[i, j] > 6:
                    raise ValueError("first_dice values must be 0 (roll) or 1..6")
    if outcomes is not None and outcomes.shape[0] != n_games:
        raise ValueError("outcomes must have n_games entries")
    counts = np.zeros(V_N_OUTCOMES + 2, dtype=np.int64)
    cdef int64_t[::1] cv = counts
    cdef VarGen* v = _new_vargen()
    cdef Rng rng
    cdef int outcome, plies = 0, failed = 0
    cdef const int8_t* forced = NULL
    cdef bint keep = outcomes is not None
    cdef int64_t* ctl = _control_words(control)
    rng_seed(&rng, seed)
    try:
        if player0 == VPLAYER_NEURAL_1PLY or player1 == VPLAYER_NEURAL_1PLY:
            nn.scratch = _new_vargen()
        with nogil:
            for i in range(n_games):
                if stop_asked(ctl):
                    break
                if n_forced:
                    forced = &first_dice[i, 0]
                outcome = play_variant_game(v, &b, pinned, game, options, players, &rng, &plies,
                                            forced, n_forced, &nn)
                if outcome < 0:
                    failed = 1
                    break
                cv[outcome] += 1
                cv[V_N_OUTCOMES] += plies
                cv[V_N_OUTCOMES + 1] += <int64_t>plies * plies
                if keep:
                    outcomes[i] = <int8_t>outcome
                count_game(ctl)
    finally:
        free(v)
        free(nn.scratch)
    if failed:
        raise RuntimeError("a game did not end (or overflowed the generator): a rules bug")
    return counts
