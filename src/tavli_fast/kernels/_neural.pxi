# Neural evaluator (issue 5): a one-hidden-layer net that estimates, for the
# player ON ROLL (before rolling), five cubeless probabilities, and its TD(0)
# self-play trainer.  Included by _core.pyx after _bearoff.pxi.
#
# Inputs (NN_INPUTS = 2 x 99), side 0 = the player on roll, side 1 = the
# opponent, each side in its own numbering; for side s, base = 99 s:
#   base + 4 (p - 1) + u, point p = 1..24, n checkers of that side on p:
#       u = 0: n >= 1,  u = 1: n >= 2,  u = 2: n >= 3,  u = 3: (n - 3) / 2 if n > 3
#     (TD-Gammon's idea: a blot, a made point and a spare are different things)
#   base + 96: checkers on the bar / 2
#   base + 97: checkers borne off / 15
#   base + 98: pip count / 167 (a race feature; 167 is the starting count)
# A net may also have NN_FEATURE_INPUTS hand features after these (its w1 has
# 203 rows instead of 198), cheap bit-mask sums of what the raw counts only
# show the net slowly; for side s (its own numbering), at 198 + 2 s:
#   + 0: shots: the fraction of the opponent's 36 rolls that could hit a blot
#        of side s (one checker moving, through points s has not made;
#        ignoring that checkers on the bar must enter first)
#   + 1: the longest run of points the opponent has made in front of side s's
#        rearmost checker, / 6 (a prime of 6 holds it completely)
#   202: contact: 1 while some checker of one side must still pass one of the
#        other's, 0 in a pure race
# A net may have NN_EXTRA_FEATURES more (w1 with 209 rows, issue 13), for side s at 203 + 3 s:
#   + 0: escapes: the fraction of its 36 rolls that let side s's rearmost checker pass
#        the opponent's made points in front of it (one checker, landing on open points;
#        1 when none is in front)
#   + 1: pip loss: of the opponent's 36 rolls, the mean over the rolls of the most pips a
#        hit of one of side s's blots would cost it (a blot on point p loses 25 - p), / 24
#   + 2: dance: while side s has checkers on the bar, the fraction of its 36 rolls that
#        enter none of them (both dice on made points), else 0
# A net may have NN_TIMING_FEATURES more (w1 with 215 rows, issue 13), for side s at 209 + 3 s:
#   + 0: containment: the fewest, over the points 15..24 and the bar a checker of side s
#        could stand on, of the 36 rolls that take it past every point the opponent has made
#        in the 6 pips in front of it (one checker, landing on open points: the made points
#        up to 12 pips ahead count), / 36: how well the opponent's blocks would hold side s's
#        checkers there, wherever its back checkers stand (escapes sees the rearmost only)
#   + 1: break contact: the pips side s's checkers must move to get past the opponent's
#        rearmost checker (one on p against the rearmost on q <= p: p - q + 1), / 167
#   + 2: free pips: the pips of side s's checkers already past the opponent's rearmost, / 167
#        (its timing: what it can move before it must break the points behind)
# (gnubg's nets have inputs of the same ideas; these are our own definitions.)
# Few inputs are non-zero (about 40), so the first layer adds up the weight
# rows of the active inputs only: w1 is stored input-major, [NN_INPUTS][H].
#
# Both evaluation paths take the inputs from one encoder (`_nn_rows`), as lists of rows
# to add (inputs equal to 1), to subtract, and to scale by a value:
# - exact: float64, the reference (`neural_probs_exact`, training's gradient step);
# - fast: a float32 copy of the weights, hidden units padded to a multiple of 16, summed
#   with the vector kernels of _nnsimd.pxi and a fast sigmoid.  A full evaluation adds
#   one precomputed row per occupied point (its "point row": the sum of the rows its
#   checkers switch on, nn_sync_points) instead of up to four.  All the plays of a roll
#   are evaluated against one base: the hidden sums of the position before the move are
#   computed once (`nn_base_prepare`), and each play adds only the rows of the inputs it
#   changes (a few points, the bar, borne off, pips, the hand features).  Outputs agree
#   with the exact path to about 1e-6 (tests/play/test_neural.py holds them within 1e-4).
#   The players, the 1-ply look-ahead and training's choice of play all use it.
#
# Position classes (issue 13, as gnubg splits them): a net may carry the bear-off databases,
# which then value every position where both sides are bearing off (`nn_bearoff_probs`), and a
# race net, which evaluates the other positions with no contact left (`rows_race`); the net
# itself evaluates the rest.  `nn_class_net` picks the net; a base (`NNBase`) belongs to the
# class of the position before the move, and a play into another class is valued afresh.
#
# Outputs (sigmoids): P(win), P(win gammon), P(win backgammon),
# P(lose gammon), P(lose backgammon); gammons include backgammons.  The
# evaluation clamps them to be consistent (backgammon <= gammon <= win, and
# the same for losses against 1 - win); training works on the raw outputs.

from libc.math cimport exp, NAN, INFINITY, isnan, lrint

cdef extern from "<stdlib.h>":
    void* aligned_alloc(size_t alignment, size_t size) noexcept nogil


cdef void* _calloc64(size_t size) noexcept nogil:
    """Zeroed memory that starts on a 64-byte line (free() frees it), or NULL."""
    cdef size_t rounded = (size + 63) & ~(<size_t>63)
    cdef void* p = aligned_alloc(64, rounded)
    if p != NULL:
        memset(p, 0, rounded)
    return p

include "_nnsimd.pxi"

cdef enum:
    NN_OUTPUTS = 5
    NN_SIDE_INPUTS = 99
    NN_BASE_INPUTS = 198
    NN_V2_FEATURES = 5          # the hand features of net v2
    NN_EXTRA_FEATURES = 6       # issue 13's: escapes, pip loss, dance, for each side
    NN_TIMING_FEATURES = 6      # issue 13's second set: containment, break contact, free pips
    NN_FEATURE_INPUTS = 17      # the most features a net has
    NN_V2_INPUTS = 203
    NN_EXTRA_INPUTS = 209       # with issue 13's first set of features
    NN_INPUTS = 215             # the most a net has: base inputs plus all the features
    NN_SHOTS_UNIT = 198
    NN_PRIME_UNIT = 199
    NN_CONTACT_UNIT = 202
    NN_ESCAPE_UNIT = 203
    NN_PIPLOSS_UNIT = 204
    NN_DANCE_UNIT = 205
    NN_CONTAIN_UNIT = 209
    NN_BREAK_UNIT = 210
    NN_FREEPIP_UNIT = 211
    NN_MAX_HIDDEN = 1024
    NN_BAR_UNIT = 96
    NN_OFF_UNIT = 97
    NN_PIP_UNIT = 98
    NN_POINT_COUNTS = 15            # the fast path's point rows: for each side and point,
    NN_SIDE_POINT_ROWS = 24 * NN_POINT_COUNTS   # one per count of checkers, 1..15
    NN_POINT_ROWS = 2 * NN_SIDE_POINT_ROWS

cdef enum:  # output indices
    NN_WIN = 0
    NN_WIN_GAMMON = 1
    NN_WIN_BACKGAMMON = 2
    NN_LOSE_GAMMON = 3
    NN_LOSE_BACKGAMMON = 4

# The 1-ply move filter (like gnubg's): candidates that get the 1-ply look are at most
# `candidates` of them, and only those whose 0-ply equity is within `window` of the best
# (the rest are clearly worse).  NN_MAX_CANDIDATES bounds `candidates`.
cdef enum:
    NN_1PLY_CANDIDATES = 5      # the default number of candidates
    NN_MAX_CANDIDATES = 16
    NN_ROLLS = 21               # distinct rolls; a roll table holds NN_ROLLS x NN_OUTPUTS
cdef double NN_1PLY_WINDOW = 0.16
# The 2-ply search's second filter (issue 54): of the plays looked at 1 ply, at most
# NN_2PLY_CANDIDATES, those within NN_2PLY_WINDOW of the best by 1 ply, are looked at 2 ply.
cdef enum:
    NN_2PLY_CANDIDATES = 3
cdef double NN_2PLY_WINDOW = 0.10

ctypedef struct MoveFilter:
    int candidates              # 1..NN_MAX_CANDIDATES
    double window               # equity window below the best 0-ply play, >= 0

ctypedef struct NeuralNetC:
    int n_inputs                # NN_BASE_INPUTS, NN_V2_INPUTS, NN_EXTRA_INPUTS or NN_INPUTS
                                # (the features it has)
    int n_hidden
    double* w1                  # [n_inputs][n_hidden]: the weights leaving input i, contiguous
    double* b1                  # [n_hidden]
    double* w2                  # [NN_OUTPUTS][n_hidden]
    double* b2                  # [NN_OUTPUTS]
    # The fast path's float32 copy, always equal to (float) of the weights above
    # (nn_sync_fast; training refreshes what each step changes).  Hidden units are
    # padded to hp, a multiple of 16; padding units have zero weights.
    int hp
    float* fw1                  # [n_inputs + NN_POINT_ROWS][hp]: the rows of w1, then the
                                # point rows (below)
    bint points_fresh           # the point rows equal the sums of w1's rows they stand for
    float* fb1                  # [hp]
    float* fw2                  # [NN_OUTPUTS][hp]
    float fb2[NN_OUTPUTS]
    # The race net (issue 13), or NULL: positions with no contact left (rows_race) are
    # evaluated by it, the others by this net.  It has no race net of its own.
    const NeuralNetC* race
    # The bear-off databases, or NULL: positions where both sides are bearing off are
    # valued by them (nn_bearoff_probs) instead of by a net, as gnubg values its bear-off class.
    const BearoffDB* bearoff
    # The pruning net (issue 54), or NULL: a small net on the raw inputs that the replies'
    # pre-filter may rank a roll's plays by (_nn_prefilter.pxi).  It has no race net,
    # databases or pruning net of its own.
    const NeuralNetC* prune
    # A pruning net's estimate rows (_nn_prefilter.pxi nn_estimate_rows), or NULL: built when
    # it is attached to a net, cleared by any change of its weights (nn_sync_fast).
    const float* erows
    # The same rows for the estimates of int16 nets (_nnquant.h tq_estimate_batch), at
    # TQ_EST_SCALE, and the output layer as the int16 evaluator's (qew2, qes2inv), or NULL:
    # built with erows when the hidden layer is a multiple of 32 units.
    const short* qerows
    const short* qew2
    float qes2inv[NN_OUTPUTS]
    # The int16 evaluator's weights (_nnquant.h; NeuralNet.as_quantised()), or NULL: the rows of
    # fw1 at TQ_SCALE, and w2 as int16 with out = sigmoid(qs2inv[o] * sum + b2[o]).
    const short* qw1
    const short* qw2
    float qs2inv[NN_OUTPUTS]

include "_nn_inputs.pxi"
include "_nn_eval.pxi"
include "_nn_cache.pxi"
include "_nn_prefilter.pxi"
include "_nn_search.pxi"
include "_nn_train.pxi"
include "_nn_api.pxi"
include "_nn_api_tools.pxi"
