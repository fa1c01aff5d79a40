/* The float32 kernels of the fast neural evaluator, written once over a vector of 8 floats.

   _nnsimd.pxi includes this file twice: once for the x86_64 baseline (SSE2: a vector of 8
   is two registers of 4) and, with GCC on x86_64, once more under
   `#pragma GCC target("avx2")` (one register of 8).  TF_SFX names the instance.  Every
   operation is lane by lane and every sum over lanes is taken in the order written here,
   and FMA is not enabled in either instance, so both compute bit-identical numbers.

   Fast sigmoid: 1 / (1 + 2^t) with t = -x log2(e); 2^t is 2^floor(t) (added to the
   exponent bits) times a degree-5 polynomial for 2^f on [0, 1), fitted by us to a relative
   error of 7.5e-8 (Lawson's iteration on the relative error).  t is clamped to
   [-100, 100], where the sigmoid is 0 or 1 to within 1e-30. */

#define TF_CAT2(a, b) a##_##b
#define TF_CAT(a, b) TF_CAT2(a, b)
#define TF_(name) TF_CAT(name, TF_SFX)

#ifdef __AVX2__
#define TF_LANES 8
#else
#define TF_LANES 4
#endif
#define TF_PARTS (8 / TF_LANES)

typedef float TF_(n) __attribute__((vector_size(4 * TF_LANES)));
typedef int TF_(ni) __attribute__((vector_size(4 * TF_LANES)));
/* The same register for loads and stores at any float address. */
typedef float TF_(nu) __attribute__((vector_size(4 * TF_LANES), aligned(4), may_alias));
/* A vector of 8 floats: TF_PARTS registers. */
typedef struct { TF_(n) p[TF_PARTS]; } TF_(v8);

/* t clamped to [-100, 100], and floor(t): by the instructions where the instance has
   them (max/min: SSE, round: AVX), else by compares; the results are the same numbers
   (t is never NaN: the hidden sums are finite). */
static inline TF_(n) TF_(nclamp)(TF_(n) t) {
    const TF_(n) zero = {0};
    const TF_(n) lo = zero - 100.0f, hi = zero + 100.0f;
#if defined(__AVX2__)
    return __builtin_ia32_minps256(__builtin_ia32_maxps256(t, lo), hi);
#elif defined(__SSE2__)
    return __builtin_ia32_minps(__builtin_ia32_maxps(t, lo), hi);
#else
    TF_(ni) m = t < lo;
    t = (TF_(n))((m & (TF_(ni))lo) | (~m & (TF_(ni))t));
    m = t > hi;
    return (TF_(n))((m & (TF_(ni))hi) | (~m & (TF_(ni))t));
#endif
}

static inline TF_(ni) TF_(nfloor)(TF_(n) t, TF_(n)* floored) {
#if defined(__AVX2__)
    *floored = __builtin_ia32_roundps256(t, 0x09);             /* floor, no exceptions */
    return __builtin_convertvector(*floored, TF_(ni));
#else
    TF_(ni) i = __builtin_convertvector(t, TF_(ni));          /* rounds towards 0 */
    i += (TF_(ni))(__builtin_convertvector(i, TF_(n)) > t);   /* -1: floor for t < 0 */
    *floored = __builtin_convertvector(i, TF_(n));
    return i;
#endif
}

static inline TF_(n) TF_(nsigmoid)(TF_(n) x) {
    TF_(n) t = TF_(nclamp)(x * -1.44269504f), ft;
    TF_(ni) i = TF_(nfloor)(t, &ft);
    TF_(n) f = t - ft;                                          /* in [0, 1) */
    TF_(n) p = 0.00187757661f * f + 0.00898934025f;
    p = p * f + 0.0558263179f;
    p = p * f + 0.240153617f;
    p = p * f + 0.693153073f;
    p = p * f + 0.999999925f;
    p = (TF_(n))((TF_(ni))p + (i << 23));                    /* times 2^i */
    return 1.0f / (1.0f + p);
}

static inline TF_(v8) TF_(load)(const float* x) {
    TF_(v8) r;
    for (int k = 0; k < TF_PARTS; k++) r.p[k] = *(const TF_(nu)*)(x + k * TF_LANES);
    return r;
}

static inline void TF_(store)(float* x, TF_(v8) a) {
    for (int k = 0; k < TF_PARTS; k++) *(TF_(nu)*)(x + k * TF_LANES) = a.p[k];
}

static inline TF_(v8) TF_(add)(TF_(v8) a, TF_(v8) b) {
    for (int k = 0; k < TF_PARTS; k++) a.p[k] += b.p[k];
    return a;
}

static inline TF_(v8) TF_(sub)(TF_(v8) a, TF_(v8) b) {
    for (int k = 0; k < TF_PARTS; k++) a.p[k] -= b.p[k];
    return a;
}

static inline TF_(v8) TF_(add_scaled)(TF_(v8) a, float v, TF_(v8) b) {   /* a + v * b */
    for (int k = 0; k < TF_PARTS; k++) a.p[k] += v * b.p[k];
    return a;
}

static inline TF_(v8) TF_(add_product)(TF_(v8) a, TF_(v8) b, TF_(v8) c) {   /* a + b * c */
    for (int k = 0; k < TF_PARTS; k++) a.p[k] += b.p[k] * c.p[k];
    return a;
}

static inline TF_(v8) TF_(sigmoid)(TF_(v8) a) {
    for (int k = 0; k < TF_PARTS; k++) a.p[k] = TF_(nsigmoid)(a.p[k]);
    return a;
}

static inline float TF_(hsum)(TF_(v8) a) {
    float l[8];
    TF_(store)(l, a);
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/* z[o] = hsum(acc[o]) + b2[o] for the 5 outputs (z[5..7]: anything finite).  With AVX2
   by horizontal adds, which pair the lanes as hsum does (lanes 0+1, 2+3, then those two,
   then the halves), so the sums are the same numbers; the baseline one output at a time. */
static inline void TF_(hsum5)(const TF_(v8)* acc, const float* b2, float* z) {
#if defined(__AVX2__)
    typedef float f4 __attribute__((vector_size(16)));
    TF_(n) pairs01 = __builtin_ia32_haddps256(acc[0].p[0], acc[1].p[0]);
    TF_(n) pairs23 = __builtin_ia32_haddps256(acc[2].p[0], acc[3].p[0]);
    TF_(n) pairs4 = __builtin_ia32_haddps256(acc[4].p[0], acc[4].p[0]);
    TF_(n) quads = __builtin_ia32_haddps256(pairs01, pairs23);   /* o = lane, then o + 4 */
    TF_(n) quads4 = __builtin_ia32_haddps256(pairs4, pairs4);
    f4 b = {b2[0], b2[1], b2[2], b2[3]};
    f4 lo = __builtin_shufflevector(quads, quads, 0, 1, 2, 3);
    f4 hi = __builtin_shufflevector(quads, quads, 4, 5, 6, 7);
    f4 sums = (lo + hi) + b;
    f4 sum4 = (__builtin_shufflevector(quads4, quads4, 0, 1, 2, 3)
               + __builtin_shufflevector(quads4, quads4, 4, 5, 6, 7)) + b2[4];
    *(f4 __attribute__((aligned(4), may_alias))*)z = sums;
    *(f4 __attribute__((aligned(4), may_alias))*)(z + 4) = sum4;
#else
    for (int o = 0; o < 5; o++) z[o] = TF_(hsum)(acc[o]) + b2[o];
    z[5] = z[6] = z[7] = 0.0f;
#endif
}

/* Hidden units j..j+8nv-1 (nv = 2 or 4, a constant once inlined) into h[0..nv-1]:
   init[j..] plus the rows add[0:na], less the rows sub[0:ns], plus the rows scaled[a]
   times vals[a] for a < nsc (w1 is [inputs][hp]).  Each vector is its own chain of
   additions, so a block of 32 units keeps four (eight with SSE2) of them in flight while
   the rows load; each unit's sum is still taken in the order of the rows, so the width of
   a block does not change a bit of the result. */
static inline void TF_(block_lists)(const float* init, const float* w1, int hp,
                                    const int* add, int na, const int* sub, int ns,
                                    const int* scaled, const float* vals, int nsc,
                                    int j, int nv, TF_(v8)* h) {
    const float* w = w1 + j;
    for (int q = 0; q < nv; q++) h[q] = TF_(load)(init + j + 8 * q);
    for (int a = 0; a < na; a++) {
        const float* row = w + (long)add[a] * hp;
        for (int q = 0; q < nv; q++) h[q] = TF_(add)(h[q], TF_(load)(row + 8 * q));
    }
    for (int a = 0; a < ns; a++) {
        const float* row = w + (long)sub[a] * hp;
        for (int q = 0; q < nv; q++) h[q] = TF_(sub)(h[q], TF_(load)(row + 8 * q));
    }
    for (int a = 0; a < nsc; a++) {
        const float* row = w + (long)scaled[a] * hp;
        for (int q = 0; q < nv; q++) h[q] = TF_(add_scaled)(h[q], vals[a], TF_(load)(row + 8 * q));
    }
}

/* block_lists over the rows of `r`; vals[a] is (float) r->val[a], converted once by the
   caller rather than once per block. */
static inline void TF_(block)(const float* init, const float* w1, int hp, const tf_rows* r,
                              const float* vals, int j, int nv, TF_(v8)* h) {
    TF_(block_lists)(init, w1, hp, r->add, r->n_add, r->sub, r->n_sub, r->scaled, vals,
                     r->n_scaled, j, nv, h);
}

/* h[0:hp] = init + the rows of `r`; hp is a multiple of 16. */
static void TF_(sums)(const float* init, const float* w1, int hp, const tf_rows* r, float* h) {
    TF_(v8) b[4];
    float vals[256];
    int j = 0;
    tf_scaled_values(r, vals);
    for (; j + 32 <= hp; j += 32) {
        TF_(block)(init, w1, hp, r, vals, j, 4, b);
        for (int q = 0; q < 4; q++) TF_(store)(h + j + 8 * q, b[q]);
    }
    for (; j < hp; j += 16) {
        TF_(block)(init, w1, hp, r, vals, j, 2, b);
        for (int q = 0; q < 2; q++) TF_(store)(h + j + 8 * q, b[q]);
    }
}

/* The hidden units j..j+8nv-1 of `forward`, through the sigmoid into the 5 output sums. */
static inline void TF_(forward_block)(const float* init, const float* w1, int hp,
                                      const tf_rows* r, const float* vals, const float* w2,
                                      int j, int nv, TF_(v8)* acc) {
    TF_(v8) b[4];
    TF_(block)(init, w1, hp, r, vals, j, nv, b);
    for (int q = 0; q < nv; q++) {
        TF_(v8) s = TF_(sigmoid)(b[q]);
        for (int o = 0; o < 5; o++) acc[o] = TF_(add_product)(acc[o], s, TF_(load)(w2 + o * hp + j + 8 * q));
    }
}

/* The 5 outputs: out[o] = sigmoid(b2[o] + sum_j w2[o][j] sigmoid(hidden sum j)), the hidden
   sums being init + the rows of `r`, a block of units at a time, kept in registers; w2 is
   [5][hp], padding units have zero weights. */
static void TF_(forward)(const float* init, const float* w1, int hp, const tf_rows* r,
                         const float* w2, const float* b2, double* out) {
    TF_(v8) acc[5];
    float vals[256];
    int j = 0;
    for (int o = 0; o < 5; o++) acc[o] = TF_(load)(tf_zeros);
    tf_scaled_values(r, vals);
    for (; j + 32 <= hp; j += 32) TF_(forward_block)(init, w1, hp, r, vals, w2, j, 4, acc);
    for (; j < hp; j += 16) TF_(forward_block)(init, w1, hp, r, vals, w2, j, 2, acc);
    float z[8];
    TF_(hsum5)(acc, b2, z);
    TF_(store)(z, TF_(sigmoid)(TF_(load)(z)));
    for (int o = 0; o < 5; o++) out[o] = z[o];
}

/* `forward` for a batch of n evaluations sharing init, w1, w2 and b2, each with added and
   subtracted rows only: evaluation i adds the rows add[spans[i].add0 ..] (n_add of them)
   and subtracts sub[spans[i].sub0 ..] (n_sub).  Its 5 outputs go to out[8 i ..] as floats.
   Every evaluation takes forward's operations in forward's order, so it gets forward's
   numbers; in three passes over the batch (the hidden sums through the sigmoid into
   hidden[i hp ..], the output sums, the output sigmoid) the evaluations' chains of
   dependent operations overlap, where one forward at a time waits on each in turn. */
static void TF_(forward_batch)(const float* init, const float* w1, int hp, const int* add,
                               const int* sub, const tf_span* spans, int n, const float* w2,
                               const float* b2, float* hidden, float* out) {
    TF_(v8) b[4], acc[5];
    for (int i = 0; i < n; i++) {
        const tf_span* e = &spans[i];
        float* h = hidden + (long)i * hp;
        int j = 0, nv;
        for (; j < hp; j += 8 * nv) {
            nv = j + 32 <= hp ? 4 : 2;
            if (nv == 4)
                TF_(block_lists)(init, w1, hp, add + e->add0, e->n_add, sub + e->sub0, e->n_sub,
                                 NULL, NULL, 0, j, 4, b);
            else
                TF_(block_lists)(init, w1, hp, add + e->add0, e->n_add, sub + e->sub0, e->n_sub,
                                 NULL, NULL, 0, j, 2, b);
            for (int q = 0; q < nv; q++) TF_(store)(h + j + 8 * q, TF_(sigmoid)(b[q]));
        }
    }
    for (int i = 0; i < n; i++) {
        const float* h = hidden + (long)i * hp;
        for (int o = 0; o < 5; o++) acc[o] = TF_(load)(tf_zeros);
        for (int j = 0; j < hp; j += 8)
            for (int o = 0; o < 5; o++)
                acc[o] = TF_(add_product)(acc[o], TF_(load)(h + j), TF_(load)(w2 + o * hp + j));
        TF_(hsum5)(acc, b2, out + 8 * i);
    }
    for (int i = 0; i < n; i++) TF_(store)(out + 8 * i, TF_(sigmoid)(TF_(load)(out + 8 * i)));
}

/* y[i] = the fast sigmoid of x[i] (for the tests and benchmarks of the approximation). */
static void TF_(sigmoid_many)(const float* x, float* y, long n) {
    float t[8];
    long i = 0;
    for (; i + 8 <= n; i += 8) TF_(store)(y + i, TF_(sigmoid)(TF_(load)(x + i)));
    for (; i < n; i += 8) {
        long m = n - i < 8 ? n - i : 8;
        for (long k = 0; k < 8; k++) t[k] = k < m ? x[i + k] : 0.0f;
        TF_(store)(t, TF_(sigmoid)(TF_(load)(t)));
        for (long k = 0; k < m; k++) y[i + k] = t[k];
    }
}

/* The hand features' counts over the 21 rolls (_nn_inputs.pxi _nn_shots, _nn_escapes).
   Masks are of bits 0..25 and only move by shifts of up to 24 pips away from the bits they
   are tested against, so 32-bit words give the integers of 64-bit ones exactly.  With AVX2
   the rolls go side by side, one a lane: the 15 non-doubles in two vectors of 8 (tf_pair_*,
   the 16th lane idle), the 6 doubles in a third (tf_double_*); the baseline takes them one
   by one (its variable shifts would be lane by lane anyway).  Both count the same integers. */
#if defined(__AVX2__)
typedef unsigned int TF_(u8) __attribute__((vector_size(32)));
typedef int TF_(i8) __attribute__((vector_size(32)));
typedef float TF_(f8) __attribute__((vector_size(32)));

/* 25 - the index of the lowest set bit of each lane of x (non-zero, below 2^31), by the
   exponent of that bit converted to float (exact for a power of two); 0 in idle lanes. */
#define TF_LOST(x, live) \
    ((25 - (((TF_(i8))__builtin_convertvector((TF_(i8))((x) & -(x)), TF_(f8)) >> 23) - 127)) & (live))
#define TF_SUM8(v) ((((v)[0] + (v)[1]) + ((v)[2] + (v)[3])) + (((v)[4] + (v)[5]) + ((v)[6] + (v)[7])))

/* How many of the 36 rolls let a checker of `hitters` (moving up) land on `blots`, stopping
   only on points outside `made`; *loss = the sum over them of 25 - the lowest point hit. */
static inline int TF_(shot_rolls)(unsigned blots, unsigned made, unsigned hitters, int* loss) {
    const TF_(u8) zero = {0};
    const TF_(u8) b = zero + blots, open = zero + ~made, h = zero + hitters;
    const TF_(u8) none = zero + (1u << 25);
    TF_(i8) hits2 = {0}, lost2 = {0}, hits1, lost1;
    TF_(u8) hit, step;
    for (int k = 0; k < 2; k++) {
        TF_(u8) da = *(const TF_(u8)*)(tf_pair_a + 8 * k), db = *(const TF_(u8)*)(tf_pair_b + 8 * k);
        TF_(i8) live = *(const TF_(i8)*)(tf_pair_live + 8 * k);
        TF_(u8) ha = h << da, hb = h << db;
        hit = (ha | hb | ((ha & open) << db) | ((hb & open) << da)) & b;
        hits2 -= (TF_(i8))(hit != 0) & live;
        step = hit | none;
        lost2 += TF_LOST(step, live);
    }
    const TF_(u8) d = *(const TF_(u8)*)tf_double_die;
    const TF_(i8) live = *(const TF_(i8)*)tf_double_live;
    step = h;
    hit = zero;
    for (int k = 0; k < 4; k++) {           /* each landing spot open before the next step */
        step = step << d;
        hit |= step & b;
        step &= open;
    }
    hits1 = -((TF_(i8))(hit != 0) & live);
    step = hit | none;
    lost1 = TF_LOST(step, live);
    /* one sum over the lanes each: a non-double's lanes count twice (integers: exact) */
    const TF_(i8) lost = lost2 + lost2 + lost1, hits = hits2 + hits2 + hits1;
    *loss = TF_SUM8(lost);
    return TF_SUM8(hits);
}

/* How many of the 36 rolls take one checker from `start` (one bit; moving down) onto
   `target`, every landing spot outside `blocks`. */
static inline int TF_(escape_rolls)(unsigned start, unsigned blocks, unsigned target) {
    const TF_(u8) zero = {0};
    const TF_(u8) s = zero + start, open = zero + ~blocks, t = zero + target;
    TF_(i8) hits2 = {0}, hits1;
    TF_(u8) hit, step;
    for (int k = 0; k < 2; k++) {
        TF_(u8) da = *(const TF_(u8)*)(tf_pair_a + 8 * k), db = *(const TF_(u8)*)(tf_pair_b + 8 * k);
        TF_(i8) live = *(const TF_(i8)*)(tf_pair_live + 8 * k);
        TF_(u8) sa = s >> da, sb = s >> db;
        hit = (sa | sb | ((sa & open) >> db) | ((sb & open) >> da)) & t;
        hits2 -= (TF_(i8))(hit != 0) & live;
    }
    const TF_(u8) d = *(const TF_(u8)*)tf_double_die;
    step = s;
    hit = zero;
    for (int k = 0; k < 4; k++) {
        step = (step >> d) & open;
        hit |= step & t;
    }
    hits1 = -((TF_(i8))(hit != 0) & *(const TF_(i8)*)tf_double_live);
    hits1 += hits2 + hits2;
    return TF_SUM8(hits1);
}
#undef TF_LOST
#undef TF_SUM8
#else
static inline int TF_(shot_rolls)(unsigned blots, unsigned made, unsigned hitters, int* loss) {
    unsigned step, hit, via, none = 1u << 25;
    int count = 0, lost = 0;
    for (unsigned a = 1; a <= 6; a++) {
        step = hitters;
        hit = 0;
        for (int k = 0; k < 4; k++) {
            step <<= a;
            hit |= step & blots;
            step &= ~made;
        }
        count += hit != 0;
        lost += 25 - __builtin_ctz(hit | none);
        for (unsigned b = a + 1; b <= 6; b++) {
            via = ((hitters << a) & ~made) << b | ((hitters << b) & ~made) << a;
            hit = ((hitters << a) | (hitters << b) | via) & blots;
            count += 2 * (hit != 0);
            lost += 2 * (25 - __builtin_ctz(hit | none));
        }
    }
    *loss = lost;
    return count;
}

static inline int TF_(escape_rolls)(unsigned start, unsigned blocks, unsigned target) {
    unsigned step, hit, via;
    int count = 0;
    for (unsigned a = 1; a <= 6; a++) {
        step = start;
        hit = 0;
        for (int k = 0; k < 4; k++) {
            step = (step >> a) & ~blocks;
            hit |= step & target;
        }
        count += hit != 0;
        for (unsigned b = a + 1; b <= 6; b++) {
            via = ((start >> a) & ~blocks) >> b | ((start >> b) & ~blocks) >> a;
            count += 2 * (((start >> a | start >> b | via) & target) != 0);
        }
    }
    return count;
}
#endif

#undef TF_LANES
#undef TF_PARTS
