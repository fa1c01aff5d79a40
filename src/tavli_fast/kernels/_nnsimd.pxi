# Single-precision vector kernels of the fast neural evaluator (_neural.pxi): the
# hidden-layer row sums, a fast sigmoid, and the output layer fused with the hidden
# sigmoids; and the hand features' counts over the 21 rolls (integers, one roll a lane
# with AVX2).  Included by _neural.pxi; the kernels themselves are in _nnkernel.h, and the
# opt-in int16 evaluator's (NeuralNet.as_quantised) in _nnquant.h.
#
# The hidden units are taken 32 at a time (16 for a remainder), their sums held in
# registers while the rows of all the active inputs are added, then passed through the
# sigmoid straight into the output sums: the hidden layer never goes to memory.
#
# The kernels are built twice where the compiler allows it (GCC on x86_64): for the
# x86_64 baseline (SSE2, no -march flag) and for AVX2.  The AVX2 ones are used when the
# processor has AVX2, unless TAVLI_FAST_SIMD=baseline is set when tavli_fast is imported.
# Both give bit-identical results (tested), so a seed gives the same numbers everywhere.

cdef extern from *:
    """
    /* The sparse first-layer inputs of one evaluation, in three lists so that the inner
       loops need no test: rows added (input 1), rows subtracted (a change from 1 to 0),
       and rows times a value. */
    typedef struct {
        int n_add, n_sub, n_scaled;
        int add[256];
        int sub[256];
        int scaled[256];
        double val[256];
    } tf_rows;

    /* One evaluation of a batch (tf_forward_batch): where its rows start in the batch's
       lists of added and subtracted rows, and how many it has in each. */
    typedef struct { int add0, n_add, sub0, n_sub; } tf_span;

    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
    #include <immintrin.h>      /* before any target pragma: the int16 evaluator's intrinsics */
    #endif
    #include <math.h>

    static const float tf_zeros[8] = {0};

    static inline void tf_scaled_values(const tf_rows* r, float* vals) {
        for (int a = 0; a < r->n_scaled; a++) vals[a] = (float)r->val[a];
    }

    /* The rolls of the hand features' counts, one a lane (_nnkernel.h shot_rolls): the
       15 non-doubles a < b (and an idle lane), the 6 doubles (and two idle lanes). */
    static const unsigned tf_pair_a[16] __attribute__((aligned(32))) =
        {1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 1};
    static const unsigned tf_pair_b[16] __attribute__((aligned(32))) =
        {2, 3, 4, 5, 6, 3, 4, 5, 6, 4, 5, 6, 5, 6, 6, 1};
    static const int tf_pair_live[16] __attribute__((aligned(32))) =
        {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0};
    static const unsigned tf_double_die[8] __attribute__((aligned(32))) = {1, 2, 3, 4, 5, 6, 1, 1};
    static const int tf_double_live[8] __attribute__((aligned(32))) = {-1, -1, -1, -1, -1, -1, 0, 0};

    #define TF_SFX base
    #include "kernels/_nnkernel.h"
    #undef TF_SFX

    #if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
    #define TF_HAVE_AVX2 1
    #pragma GCC push_options
    #pragma GCC target("avx2")
    #define TF_SFX avx2
    #include "kernels/_nnkernel.h"
    #undef TF_SFX
    #pragma GCC pop_options
    #else
    #define TF_HAVE_AVX2 0
    #endif

    /* 1 when the AVX2 kernels are used; set once, at import (tf_simd_init). */
    static int tf_simd_avx2 = 0;

    static int tf_simd_init(int allow_avx2) {
    #if TF_HAVE_AVX2
        __builtin_cpu_init();
        tf_simd_avx2 = allow_avx2 && __builtin_cpu_supports("avx2");
    #endif
        return tf_simd_avx2;
    }

    static void tf_sums(const float* init, const float* w1, int hp, const tf_rows* r, float* h) {
    #if TF_HAVE_AVX2
        if (tf_simd_avx2) { sums_avx2(init, w1, hp, r, h); return; }
    #endif
        sums_base(init, w1, hp, r, h);
    }

    static void tf_forward(const float* init, const float* w1, int hp, const tf_rows* r,
                           const float* w2, const float* b2, double* out) {
    #if TF_HAVE_AVX2
        if (tf_simd_avx2) { forward_avx2(init, w1, hp, r, w2, b2, out); return; }
    #endif
        forward_base(init, w1, hp, r, w2, b2, out);
    }

    static void tf_forward_batch(const float* init, const float* w1, int hp, const int* add,
                                 const int* sub, const tf_span* spans, int n, const float* w2,
                                 const float* b2, float* hidden, float* out) {
    #if TF_HAVE_AVX2
        if (tf_simd_avx2) { forward_batch_avx2(init, w1, hp, add, sub, spans, n, w2, b2, hidden, out); return; }
    #endif
        forward_batch_base(init, w1, hp, add, sub, spans, n, w2, b2, hidden, out);
    }

    static int tf_shot_rolls(unsigned blots, unsigned made, unsigned hitters, int* loss) {
    #if TF_HAVE_AVX2
        if (tf_simd_avx2) return shot_rolls_avx2(blots, made, hitters, loss);
    #endif
        return shot_rolls_base(blots, made, hitters, loss);
    }

    static int tf_escape_rolls(unsigned start, unsigned blocks, unsigned target) {
    #if TF_HAVE_AVX2
        if (tf_simd_avx2) return escape_rolls_avx2(start, blocks, target);
    #endif
        return escape_rolls_base(start, blocks, target);
    }

    static void tf_sigmoid_many(const float* x, float* y, long n) {
    #if TF_HAVE_AVX2
        if (tf_simd_avx2) { sigmoid_many_avx2(x, y, n); return; }
    #endif
        sigmoid_many_base(x, y, n);
    }

    #include "kernels/_nnquant.h"
    """
    ctypedef struct tf_rows:
        int n_add, n_sub, n_scaled
        int add[256]
        int sub[256]
        int scaled[256]
        double val[256]
    ctypedef struct tf_span:
        int add0, n_add, sub0, n_sub
    int tf_simd_init(int allow_avx2) noexcept nogil
    void tf_sums(const float* init, const float* w1, int hp, const tf_rows* r,
                 float* h) noexcept nogil
    void tf_forward(const float* init, const float* w1, int hp, const tf_rows* r,
                    const float* w2, const float* b2, double* out) noexcept nogil
    void tf_sigmoid_many(const float* x, float* y, long n) noexcept nogil
    void tf_forward_batch(const float* init, const float* w1, int hp, const int* add,
                          const int* sub, const tf_span* spans, int n, const float* w2,
                          const float* b2, float* hidden, float* out) noexcept nogil
    int tf_shot_rolls(uint32_t blots, uint32_t made, uint32_t hitters, int* loss) noexcept nogil
    int tf_escape_rolls(uint32_t start, uint32_t blocks, uint32_t target) noexcept nogil
    int tq_init(int allowed) noexcept nogil
    enum: TQ_EST_SCALE
    short tq_round(double x) noexcept nogil
    void tq_quantise_sums(const float* h, int hp, short* qh) noexcept nogil
    void tq_sums(const short* init, const short* q1, int hp, const tf_rows* r,
                 const short* q2, const float* s2inv, const float* b2, float* z) noexcept nogil
    void tq_forward(const short* init, const short* q1, int hp, const tf_rows* r,
                    const short* q2, const float* s2inv, const float* b2, double* out) noexcept nogil
    void tq_estimate_batch(const short* init, const short* rows, int hp, const int* add,
                           const int* sub, const tf_span* spans, int n, const short* q2,
                           const float* s2inv, const float* b2, float* out) noexcept nogil


import os as _os

# Which kernels this process uses: "avx2" or "baseline" (see above).  TAVLI_FAST_SIMD=avx2
# keeps the int16 evaluator (_nnquant.h) to its AVX2 instance, =baseline to its scalar one.
_SIMD_ALLOWED = {"baseline": 0, "avx2": 1}.get(_os.environ.get("TAVLI_FAST_SIMD", ""), 2)
SIMD_KERNELS = "avx2" if tf_simd_init(_SIMD_ALLOWED > 0) else "baseline"
# The int16 evaluator's instance: "avx512", "avx2" or "baseline" (its scalar one).
INT16_KERNELS = ("baseline", "avx2", "avx512")[tq_init(_SIMD_ALLOWED)]
