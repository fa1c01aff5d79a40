# Helpers shared by the Python-facing wrappers (the *_api.pxi files): boards in and out,
# dice checks, the scratch move generator used while holding the GIL.
# Included by _core.pyx after the kernels it wraps.

cdef MoveGen* _new_movegen() except NULL:
    cdef MoveGen* g = <MoveGen*>calloc(1, sizeof(MoveGen))
    if g == NULL:
        raise MemoryError("cannot allocate the move generator's tables")
    g.out = g.own
    return g


# Scratch tables for the small calls below, used only while holding the GIL
# (the batch and game kernels allocate their own and release the GIL).
cdef MoveGen* _scratch = _new_movegen()


cdef int _check_board_shape(Py_ssize_t rows, Py_ssize_t points) except -1:
    if rows != 2 or points != 26:
        raise ValueError(f"a board has shape (2, 26), not ({rows}, {points})")
    return 0


cdef int _load_board(const int8_t[:, ::1] src, Board* b) except -1:
    _check_board_shape(src.shape[0], src.shape[1])
    memcpy(b.c, &src[0, 0], 52)
    return 0


cdef cnp.ndarray _int8_array(object a, int ndim):
    """`a` as an int8 numpy array of `ndim` dimensions in C order: itself when it is one
    (read through numpy's C API: the buffer protocol of a typed memoryview costs a small
    call a tenth of its time), else through a typed memoryview, whose errors a wrong
    buffer gets (ValueError, TypeError)."""
    cdef const int8_t[:, ::1] two
    cdef const int8_t[:, :, ::1] three
    if (cnp.PyArray_Check(a) and cnp.PyArray_NDIM(<cnp.ndarray>a) == ndim
            and cnp.PyArray_TYPE(<cnp.ndarray>a) == cnp.NPY_INT8
            and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>a)):
        return <cnp.ndarray>a
    if ndim == 2:
        two = a
        return np.asarray(two)
    three = a
    return np.asarray(three)


cdef int _check_die(int d) except -1:
    if d < 1 or d > 6:
        raise ValueError(f"a die shows 1 to 6, not {d}")
    return 0


cdef _results_array(MoveGen* g, int n):
    out = np.empty((n, 2, 26), dtype=np.int8)
    cdef int8_t[:, :, ::1] view = out
    if n:
        memcpy(&view[0, 0, 0], g.out, n * sizeof(Board))
    return out


cdef int64_t* _control_words(int64_t[::1] control) except? NULL:
    """The control words of a game loop (see _control.pxi), or NULL without them."""
    if control is None:
        return NULL
    if control.shape[0] < 2:
        raise ValueError("control holds two int64 words: the stop flag, the games played")
    return &control[0]


cdef int _start_rng(Rng* rng, uint64_t seed, uint64_t[::1] rng_state) except -1:
    """Seed `rng`, or start it from a saved state (four words, as _save_rng writes them)."""
    if rng_state is None:
        rng_seed(rng, seed)
        return 0
    if rng_state.shape[0] != 4:
        raise ValueError("rng_state holds the generator's four 64-bit words")
    if rng_state[0] == 0 and rng_state[1] == 0 and rng_state[2] == 0 and rng_state[3] == 0:
        rng_seed(rng, seed)  # a state not started yet: the seed's
        return 0
    memcpy(rng.s, &rng_state[0], sizeof(rng.s))
    return 0


cdef void _save_rng(const Rng* rng, uint64_t[::1] rng_state) noexcept:
    if rng_state is not None:
        memcpy(&rng_state[0], rng.s, sizeof(rng.s))
