# The record of matches played in the core, for tavli-match --save: an optional growable
# list of entries (each game's start, each play with its dice and the board after it, each
# cube action, each game's end) that the game loops append to when given one.  Python
# (jobs/match_record.py) turns the entries into match records.
# Included by _core.pyx before _game.pxi, whose loops write to it.

cdef enum:  # log entry kinds
    LOG_MATCH = 0       # a match starts: a, b = A's and B's points; d1 = post-Crawford
    LOG_GAME = 1        # a game starts: a = its type (0 Portes / backgammon, 1 Plakoto,
                        # 2 Fevga); side = its starter (0 A, 1 B); d1 = the Crawford game
    LOG_PLAY = 2        # side = the mover (0 the game's starter, 1 the other); d1, d2 the
                        # dice; board = after the play, the mover's view (sides not switched)
    LOG_DOUBLE = 3      # side = the doubler; a = the cube's new value
    LOG_TAKE = 4        # side = the taker
    LOG_BEAVER = 5      # side = the taker; a = the cube's new value
    LOG_DROP = 6        # side = the player who passed
    LOG_END = 7         # a game ends: side = the winner (0 A, 1 B, -1 a Plakoto draw);
                        # a = the points won

ctypedef struct LogEntry:
    int8_t kind
    int8_t side
    int8_t d1
    int8_t d2
    int a
    int b
    Board board

ctypedef struct GameLog:
    LogEntry* e
    int64_t n
    int64_t cap
    bint failed                 # out of memory: the log is incomplete


cdef inline void log_add(GameLog* log, int kind, int side, int d1, int d2, int a, int b,
                         const Board* board) noexcept nogil:
    """Append an entry (`board` may be NULL); a failed allocation marks the log failed."""
    cdef LogEntry* grown
    cdef int64_t cap
    if log == NULL or log.failed:
        return
    if log.n == log.cap:
        cap = log.cap * 2 if log.cap else 1024
        grown = <LogEntry*>realloc(log.e, cap * sizeof(LogEntry))
        if grown == NULL:
            log.failed = True
            return
        log.e = grown
        log.cap = cap
    log.e[log.n].kind = kind
    log.e[log.n].side = side
    log.e[log.n].d1 = d1
    log.e[log.n].d2 = d2
    log.e[log.n].a = a
    log.e[log.n].b = b
    if board != NULL:
        log.e[log.n].board = board[0]
    else:
        memset(&log.e[log.n].board, 0, sizeof(Board))
    log.n += 1
