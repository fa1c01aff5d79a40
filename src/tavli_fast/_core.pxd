# Declarations shared by the kernels of _core.pyx and its included .pxi files.
from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t, int64_t

# Board layout, used everywhere (Python Position stores the same int8[2][26]):
#   side 0 = the player on roll ("me"), side 1 = the opponent;
#   each side in its OWN numbering: index 0 = borne off, 1..24 = points, 25 = bar.
#   My point p is the opponent's point 25 - p.
cdef enum:
    OFF = 0
    BAR = 25

ctypedef struct Board:
    int8_t c[2][26]

# Per-board masks in the MOVER's numbering (bit p = point p, bit 25 = bar).
ctypedef struct Masks:
    uint32_t mine       # points where I have >= 1 checker (bits 1..25)
    uint32_t blocked    # my points held by >= 2 opposing checkers (closed to me)
    uint32_t blot       # my points holding exactly one opposing checker

ctypedef struct Rng:
    uint64_t s[4]       # xoshiro256** state

# Player kinds understood by the game loop.
cpdef enum PlayerKind:
    PLAYER_RANDOM = 0
    PLAYER_PUBEVAL = 1
    PLAYER_GREEDY = 2
    PLAYER_BEAROFF = 3          # pubeval, but perfect by the bear-off databases in bear-offs
    PLAYER_NEURAL = 4           # best 0-ply equity by the neural net
    PLAYER_NEURAL_1PLY = 5      # best 1-ply equity among the best few 0-ply plays
    PLAYER_NEURAL_2PLY = 6      # best 2-ply equity among the best few 1-ply plays (issue 54)
