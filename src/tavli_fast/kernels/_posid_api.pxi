# gnubg Position IDs for Python: encode, decode, and the legal results of a roll as ids.
# Included by _core.pyx after the kernels it wraps.

def encode_position_id(const int8_t[:, ::1] board):
    """gnubg Position ID (14 characters) of a board."""
    cdef Board b
    cdef char out[14]
    _load_board(board, &b)
    posid_encode(&b, out)
    return out[:14].decode("ascii")


def decode_position_id(str text):
    """(board int8[2, 26], 0) for a legal 14-character id, else (None, error code).

    Error codes are those of posid_decode; position.py words the messages.
    """
    cdef Board b
    if len(text) != 14 or not text.isascii():
        return None, 1
    cdef bytes raw = text.encode("ascii")
    cdef int err = posid_decode(raw, &b)
    if err:
        return None, err
    out = np.empty((2, 26), dtype=np.int8)
    cdef int8_t[:, ::1] v = out
    memcpy(&v[0, 0], b.c, 52)
    return out, 0


cdef extern from "Python.h":
    object PyUnicode_New(Py_ssize_t size, Py_UCS4 maxchar)
    void* PyUnicode_DATA(object o)
    bint PyUnicode_IS_COMPACT_ASCII(object o)


cdef extern from "Python.h":
    long PyLong_AsLongAndOverflow(object o, int* overflow) except? -1


cdef inline int _small_die(object die) noexcept:
    """The value of an exact int die 1..6, else 0 (bool, float, out of range...)."""
    cdef int overflow = 0
    cdef long v
    if type(die) is not int:
        return 0
    v = PyLong_AsLongAndOverflow(die, &overflow)
    if overflow or v < 1 or v > 6:
        return 0
    return <int>v


def legal_positions(position_id, die1, die2):
    """legal_positions(position_id: str, die1: int, die2: int) -> list[str]

    gnubg Position IDs of the distinct positions reachable with (die1, die2),
    seen from the mover (sides not switched).  A roll with no legal play gives
    [position_id]: the unchanged position.  `position_id` may also be an XGID
    (its own dice, if any, are ignored here: the dice given are played).
    Raises InvalidDiceError / InvalidPositionError (both ValueError).

    Defined in the core so that the common call costs no Python frame: the
    plain case (a valid 14-character id, dice 1..6) is answered here, anything
    else goes to game.movegen.legal_positions_checked, which words the error or
    reads the XGID (handed to the core when game.movegen is imported, which
    importing tavli_fast does: the core imports nothing of the package).
    """
    ids = legal_position_ids(position_id, die1, die2)
    if ids is None:
        return _legal_positions_checked(position_id, die1, die2)
    return ids


def _no_checked_path(position_id, die1, die2):
    raise RuntimeError("import tavli_fast before calling _core.legal_positions")


_legal_positions_checked = _no_checked_path


def set_legal_positions_checked(checked):
    """Where legal_positions sends everything but the plain case (game.movegen's
    legal_positions_checked: precise errors, XGIDs)."""
    global _legal_positions_checked
    _legal_positions_checked = checked


cpdef list legal_position_ids(position_id, die1, die2):
    """Position IDs of the distinct plays (sides not switched), or None.

    Decoding, generation and encoding happen here, each id written straight
    into a new str object.  None means "not the plain case" (bad dice, not a
    14-character id, a bad or finished position).
    """
    cdef Board b
    cdef int i, n
    cdef int d1 = _small_die(die1), d2 = _small_die(die2)
    if d1 == 0 or d2 == 0 or type(position_id) is not str:
        return None
    if len(<str>position_id) != 14 or not PyUnicode_IS_COMPACT_ASCII(position_id):
        return None
    if posid_decode(<const char*>PyUnicode_DATA(position_id), &b):
        return None
    if b.c[0][0] == 15 or b.c[1][0] == 15:
        return None
    n = generate_plays(_scratch, &b, d1, d2)
    if n < 0:
        raise RuntimeError("more distinct plays than the generator holds")
    # The opponent's part of the key is the same for every play that hits nothing.
    cdef int root_len, opp_len, my_len
    cdef uint64_t root_opp = posid_side_bits(b.c[1], &root_len)
    cdef uint64_t opp, mine
    cdef const Board* r
    cdef list out = PyList_New(n)        # its items are set below, once each
    for i in range(n):
        r = &_scratch.out[i]
        if r.c[1][25] == b.c[1][25]:
            opp, opp_len = root_opp, root_len
        else:
            opp = posid_side_bits(r.c[1], &opp_len)
        mine = posid_side_bits(r.c[0], &my_len)
        s = PyUnicode_New(14, 127)
        posid_from_bits(opp, opp_len, mine, <char*>PyUnicode_DATA(s))
        Py_INCREF(s)                    # PyList_SET_ITEM steals the reference
        PyList_SET_ITEM(out, i, s)
    return out
