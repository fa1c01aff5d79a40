# Backgammon move generation for Python: one board and roll, and batches (GIL released).
# Included by _core.pyx after the kernels it wraps.

def generate(const int8_t[:, ::1] board, int die1, int die2):
    """Distinct boards reachable with (die1, die2), sides not switched: int8[n, 2, 26].

    When no die can be played the one result is the unchanged board.
    """
    cdef Board b
    _load_board(board, &b)
    _check_die(die1)
    _check_die(die2)
    cdef int n = generate_plays(_scratch, &b, die1, die2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    return _results_array(_scratch, n)


cdef int _check_batch(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice) except -1:
    cdef Py_ssize_t j
    if boards.shape[1] != 2 or boards.shape[2] != 26 or dice.shape[1] != 2:
        raise ValueError("boards must be (m, 2, 26) and dice (k, 2)")
    for j in range(dice.shape[0]):
        _check_die(dice[j, 0])
        _check_die(dice[j, 1])
    return 0


def count_batch(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice):
    """Numbers of distinct plays for every board x roll: int64[m, k]."""
    cdef Py_ssize_t m = boards.shape[0], k = dice.shape[0], i, j
    _check_batch(boards, dice)
    counts = np.zeros((m, k), dtype=np.int64)
    cdef int64_t[:, ::1] cv = counts
    cdef MoveGen* g = _new_movegen()
    cdef int n, bad = 0
    try:
        with nogil:
            for i in range(m):
                for j in range(k):
                    n = generate_plays(g, <const Board*>&boards[i, 0, 0], dice[j, 0], dice[j, 1])
                    if n < 0:
                        bad = 1
                    cv[i, j] = n
    finally:
        free(g)
    if bad:
        raise RuntimeError("more distinct plays than the generator holds")
    return counts


def generate_batch(const int8_t[:, :, ::1] boards, const int8_t[:, ::1] dice):
    """All plays of every board x roll in one call.

    Returns (results int8[T, 2, 26], offsets int64[m*k + 1]); the plays of
    board i with roll j are results[offsets[i*k + j]:offsets[i*k + j + 1]].
    """
    cdef Py_ssize_t m = boards.shape[0], k = dice.shape[0], i, j
    _check_batch(boards, dice)
    offsets = np.zeros(m * k + 1, dtype=np.int64)
    cdef int64_t[::1] ov = offsets
    cdef MoveGen* g = _new_movegen()
    cdef Board* buf = NULL
    cdef Board* grown
    cdef Py_ssize_t total = 0, cap = 0
    cdef int n, bad = 0
    try:
        with nogil:
            for i in range(m):
                for j in range(k):
                    # Results are written straight into the growing buffer.
                    if total + MAX_RESULTS > cap:
                        cap = 2 * cap + MAX_RESULTS
                        grown = <Board*>realloc(buf, cap * sizeof(Board))
                        if grown == NULL:
                            bad = 2
                            break
                        buf = grown
                    g.out = &buf[total]
                    n = generate_plays(g, <const Board*>&boards[i, 0, 0], dice[j, 0], dice[j, 1])
                    if n < 0:
                        bad = 1
                        break
                    total += n
                    ov[i * k + j + 1] = total
                if bad:
                    break
        if bad == 1:
            raise RuntimeError("more distinct plays than the generator holds")
        if bad == 2:
            raise MemoryError("out of memory collecting plays")
        results = _adopt_boards(buf, total)
        buf = NULL                      # the array owns it now
        return results, offsets
    finally:
        free(g)
        free(buf)
