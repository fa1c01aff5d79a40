# Backgammon move generation for Python: one board and roll, and batches (GIL released).
# Included by _core.pyx after the kernels it wraps.

cdef extern from *:
    """
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    #if defined(__linux__) && defined(MREMAP_MAYMOVE)
    #define TF_MAPPED_RESULTS 1
    #endif
    /* generate_batch's result buffer, `size` bytes (grown or shrunk from `old`).  On Linux,
       mapped memory that asks for transparent huge pages, resized by mremap, which copies
       nothing: a fault on every fresh 4 KiB page cost more than generating the plays that
       fill it.  Elsewhere realloc. */
    static void* tf_results_resize(void* p, size_t old, size_t size) {
    #ifdef TF_MAPPED_RESULTS
        void* q = p ? mremap(p, old, size, MREMAP_MAYMOVE)
                    : mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (q == MAP_FAILED) return NULL;
    #ifdef MADV_HUGEPAGE
        if (size > old) madvise(q, size, MADV_HUGEPAGE);
    #endif
        return q;
    #else
        (void)old;
        return realloc(p, size);
    #endif
    }
    static void tf_results_free(void* p, size_t size) {
    #ifdef TF_MAPPED_RESULTS
        if (p) munmap(p, size);
    #else
        (void)size;
        free(p);
    #endif
    }
    """
    void* tf_results_resize(void* p, size_t old, size_t size) noexcept nogil
    void tf_results_free(void* p, size_t size) noexcept nogil

from cpython.pycapsule cimport PyCapsule_GetContext, PyCapsule_SetContext

cdef enum:
    HUGE_PAGE = 1 << 21         # results buffers are sized in whole 2 MiB pages
    BATCH_GUESS = 16            # plays a (board, roll) at first: 11.5 on the benchmark mix
    BATCH_FIRST_MAX = 1 << 22   # boards reserved at first at most (218 MB of address space)


cdef size_t _results_bytes(Py_ssize_t boards) noexcept nogil:
    cdef size_t size = <size_t>boards * sizeof(Board)
    if size >= HUGE_PAGE:
        size = (size + HUGE_PAGE - 1) & ~(<size_t>HUGE_PAGE - 1)
    return size


cdef void _free_results(object capsule) noexcept:
    tf_results_free(PyCapsule_GetPointer(capsule, NULL),
                    <size_t>PyCapsule_GetContext(capsule))


cdef object _adopt_boards(Board* buf, size_t size, Py_ssize_t total):
    """An int8[total, 2, 26] array over the results buffer (`size` bytes), which it frees
    when collected.

    Large results are handed over instead of copied (a copy of tens of MB costs
    as much as generating them).
    """
    cdef cnp.npy_intp dims[3]
    cdef Board* shrunk
    if total == 0:
        tf_results_free(buf, size)
        return np.empty((0, 2, 26), dtype=np.int8)
    shrunk = <Board*>tf_results_resize(buf, size, total * sizeof(Board))   # give back the tail
    if shrunk != NULL:
        buf = shrunk
        size = total * sizeof(Board)
    dims[0] = total
    dims[1] = 2
    dims[2] = 26
    arr = cnp.PyArray_SimpleNewFromData(3, dims, cnp.NPY_INT8, buf)
    capsule = PyCapsule_New(buf, NULL, <PyCapsule_Destructor>_free_results)
    PyCapsule_SetContext(capsule, <void*>size)
    cnp.set_array_base(arr, capsule)
    return arr


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
    cdef size_t size = 0, bigger
    cdef int n, bad = 0
    try:
        with nogil:
            for i in range(m):
                for j in range(k):
                    # Results are written straight into the growing buffer.
                    if total + MAX_RESULTS > cap:
                        bigger = _results_bytes(max(2 * cap, min(m * k * BATCH_GUESS, BATCH_FIRST_MAX))
                                                + MAX_RESULTS)
                        grown = <Board*>tf_results_resize(buf, size, bigger)
                        if grown == NULL:
                            bad = 2
                            break
                        buf = grown
                        size = bigger
                        cap = size // sizeof(Board)
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
        results = _adopt_boards(buf, size, total)
        buf = NULL                      # the array owns it now
        return results, offsets
    finally:
        free(g)
        tf_results_free(buf, size)
