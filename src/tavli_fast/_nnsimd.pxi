# Single-precision vector kernels of the fast neural evaluator (_neural.pxi): the
# hidden-layer row sums, a fast sigmoid, and the output layer fused with the hidden
# sigmoids.  Included by _neural.pxi.
#
# The hidden units are taken 16 at a time, their sums held in registers while the rows
# of all the active inputs are added, then passed through the sigmoid straight into
# the output sums: the hidden layer never goes to memory.
#
# Written with GCC/Clang generic vectors of 4 floats: on any x86_64 they compile to
# SSE2 (no -march flag needed), elsewhere to the native SIMD or to scalar code.  Every
# sum is taken in an order fixed by this code (4 lanes, then lane 0 + 1 + 2 + 3), so
# the results do not depend on the compiler's choices or the machine: the same seed
# gives the same numbers.  The compiler may not contract a * b + c into one FMA here
# either, since the baseline x86_64 target has no FMA instruction.
#
# Fast sigmoid: 1 / (1 + 2^t) with t = -x log2(e), 2^t = 2^floor(t) (exponent bits)
# times a degree-5 polynomial for 2^f on [0, 1), fitted by us to a relative error of
# 7.5e-8 (Lawson's iteration on the relative error).  t is clamped to [-100, 100], where
# the sigmoid is 0 or 1 to within 1e-30.  tests/test_neural.py measures the error.

cdef extern from *:
    """
    typedef float tf_v4 __attribute__((vector_size(16)));
    typedef int tf_v4i __attribute__((vector_size(16)));
    /* The same vector for loads and stores at any float address. */
    typedef float tf_v4u __attribute__((vector_size(16), aligned(4), may_alias));
    #define TF_LOAD(p) (*(const tf_v4u*)(p))
    #define TF_STORE(p, v) (*(tf_v4u*)(p) = (v))

    static inline tf_v4 tf_select(tf_v4i m, tf_v4 a, tf_v4 b) {   /* m ? a : b, lane by lane */
        return (tf_v4)((m & (tf_v4i)a) | (~m & (tf_v4i)b));
    }

    static inline tf_v4 tf_exp2_v4(tf_v4 t) {
        const tf_v4 lo = {-100.0f, -100.0f, -100.0f, -100.0f};
        const tf_v4 hi = {100.0f, 100.0f, 100.0f, 100.0f};
        t = tf_select(t < lo, lo, t);
        t = tf_select(t > hi, hi, t);
        tf_v4i i = __builtin_convertvector(t, tf_v4i);           /* rounds towards 0 */
        i += (tf_v4i)(__builtin_convertvector(i, tf_v4) > t);    /* -1: floor for t < 0 */
        tf_v4 f = t - __builtin_convertvector(i, tf_v4);         /* in [0, 1) */
        tf_v4 p = 0.00187757661f * f + 0.00898934025f;
        p = p * f + 0.0558263179f;
        p = p * f + 0.240153617f;
        p = p * f + 0.693153073f;
        p = p * f + 0.999999925f;
        return (tf_v4)((tf_v4i)p + (i << 23));                  /* times 2^i */
    }

    static inline tf_v4 tf_sigmoid_v4(tf_v4 x) {
        return 1.0f / (1.0f + tf_exp2_v4(x * -1.44269504f));
    }

    static inline float tf_hsum(tf_v4 a) {
        return (a[0] + a[1]) + (a[2] + a[3]);
    }

    /* The sparse first-layer inputs of one evaluation, in three lists so that the inner
       loops need no test: rows added (input 1), rows subtracted (a change from 1 to 0),
       and rows times a value. */
    typedef struct {
        int n_add, n_sub, n_scaled;
        int add[256];
        int sub[256];
        int scaled[256];
        float val[256];
    } tf_rows;

    /* Hidden units j..j+15: init[j..] plus the rows of `r` (w1 is [inputs][hp]). */
    static inline void tf_block(const float* init, const float* w1, int hp, const tf_rows* r,
                                int j, tf_v4* h) {
        tf_v4 h0 = TF_LOAD(init + j), h1 = TF_LOAD(init + j + 4);
        tf_v4 h2 = TF_LOAD(init + j + 8), h3 = TF_LOAD(init + j + 12);
        const float* w = w1 + j;
        for (int a = 0; a < r->n_add; a++) {
            const float* row = w + (long)r->add[a] * hp;
            h0 += TF_LOAD(row); h1 += TF_LOAD(row + 4);
            h2 += TF_LOAD(row + 8); h3 += TF_LOAD(row + 12);
        }
        for (int a = 0; a < r->n_sub; a++) {
            const float* row = w + (long)r->sub[a] * hp;
            h0 -= TF_LOAD(row); h1 -= TF_LOAD(row + 4);
            h2 -= TF_LOAD(row + 8); h3 -= TF_LOAD(row + 12);
        }
        for (int a = 0; a < r->n_scaled; a++) {
            const float* row = w + (long)r->scaled[a] * hp;
            float v = r->val[a];
            h0 += v * TF_LOAD(row); h1 += v * TF_LOAD(row + 4);
            h2 += v * TF_LOAD(row + 8); h3 += v * TF_LOAD(row + 12);
        }
        h[0] = h0; h[1] = h1; h[2] = h2; h[3] = h3;
    }

    /* h[0:hp] = init + the rows of `r`; hp is a multiple of 16. */
    static void tf_sums(const float* init, const float* w1, int hp, const tf_rows* r, float* h) {
        tf_v4 b[4];
        for (int j = 0; j < hp; j += 16) {
            tf_block(init, w1, hp, r, j, b);
            TF_STORE(h + j, b[0]); TF_STORE(h + j + 4, b[1]);
            TF_STORE(h + j + 8, b[2]); TF_STORE(h + j + 12, b[3]);
        }
    }

    /* The 5 outputs: out[o] = sigmoid(b2[o] + sum_j w2[o][j] sigmoid(hidden sum j)), the
       hidden sums being init + the rows of `r`, one block of 16 units at a time, kept in
       registers; w2 is [5][hp], padding units have zero weights. */
    static void tf_forward(const float* init, const float* w1, int hp, const tf_rows* r,
                           const float* w2, const float* b2, double* out) {
        tf_v4 a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0};
        tf_v4 b[4];
        for (int j = 0; j < hp; j += 16) {
            tf_block(init, w1, hp, r, j, b);
            for (int q = 0; q < 4; q++) {
                tf_v4 s = tf_sigmoid_v4(b[q]);
                int at = j + 4 * q;
                a0 += s * TF_LOAD(w2 + at);
                a1 += s * TF_LOAD(w2 + hp + at);
                a2 += s * TF_LOAD(w2 + 2 * hp + at);
                a3 += s * TF_LOAD(w2 + 3 * hp + at);
                a4 += s * TF_LOAD(w2 + 4 * hp + at);
            }
        }
        tf_v4 z = {tf_hsum(a0) + b2[0], tf_hsum(a1) + b2[1], tf_hsum(a2) + b2[2],
                   tf_hsum(a3) + b2[3]};
        tf_v4 z4 = {tf_hsum(a4) + b2[4], 0.0f, 0.0f, 0.0f};
        z = tf_sigmoid_v4(z);
        z4 = tf_sigmoid_v4(z4);
        out[0] = z[0]; out[1] = z[1]; out[2] = z[2]; out[3] = z[3]; out[4] = z4[0];
    }

    /* y[i] = fast sigmoid of x[i] (for tests and benchmarks of the approximation). */
    static void tf_sigmoid_many(const float* x, float* y, long n) {
        long i = 0;
        for (; i + 4 <= n; i += 4) TF_STORE(y + i, tf_sigmoid_v4(TF_LOAD(x + i)));
        if (i < n) {
            tf_v4 t = {0};
            for (long k = 0; k < n - i; k++) t[k] = x[i + k];
            t = tf_sigmoid_v4(t);
            for (long k = 0; k < n - i; k++) y[i + k] = t[k];
        }
    }
    """
    ctypedef struct tf_rows:
        int n_add, n_sub, n_scaled
        int add[256]
        int sub[256]
        int scaled[256]
        float val[256]
    void tf_sums(const float* init, const float* w1, int hp, const tf_rows* r,
                 float* h) noexcept nogil
    void tf_forward(const float* init, const float* w1, int hp, const tf_rows* r,
                    const float* w2, const float* b2, double* out) noexcept nogil
    void tf_sigmoid_many(const float* x, float* y, long n) noexcept nogil
