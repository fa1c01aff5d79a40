/* The int16 evaluator (issue 54; NeuralNet.quantised(), evaluator "int16", the default where
   an AVX2 or AVX-512BW instance runs it: neural.default_evaluator): the
   plays of a roll valued from int16 hidden sums, with an activation that needs no division.

   - Hidden sums at TQ_SCALE (512) a unit, the rows of w1 likewise (tq_quantise_*, at
     load), added with int16 saturation (+-64, where the sigmoid is 0 or 1 to 1e-27).
   - A row times v: pmulhrsw of the row by v in Q(15 - s), shifted left by s (s = 0 for
     |v| < 1, the usual case, then the shift is skipped).
   - The activation, in Q14: sigmoid(|x|) on [0, 8) in 16 segments of width 1/2, each the
     quadratic through the sigmoid at its ends and middle (coefficients in Q14: so 1/2 at 0,
     and continuous), mirrored for x < 0 (1 - sigmoid), and 1 from |x| >= 8 (the sigmoid is
     0.99966 there).
   - The output layer: the activations times w2 in int16 (each output at its own scale,
     which keeps every int32 lane of the sums below from overflowing: _quantise_outputs)
     by pmaddwd, added in int32 lanes; each output's exact integer total, rounded to float
     once, times its scale's inverse plus its bias (tq_output_totals).
   - The 5 output sigmoids as the float path's (tf_sigmoid_many), taken by the caller
     (tq_sums stops before them): a batch of plays takes theirs together (nn_plays_probs).

   Three instances compute the same integers and the same floats: AVX-512BW (the hidden
   layer of up to 512 units in registers, its rows added in one pass), AVX2 (64 units at a
   time), and a scalar one for every other processor.  Every integer operation is exact, so
   each output's total is the same whatever the order of its additions, and the float steps
   after it are one and the same code: a seed gives the same numbers on every machine
   (tests/play/test_int16.py).  The pruning net's estimates for an int16 net go the
   same way, a batch of plays at a time (tq_estimate_batch, below). */

#define TQ_SCALE 512
#define TQ_ONE 16384                        /* 1.0 in Q14 */

/* The coefficients c0, c1, c2 (Q14) of segment k: as int16 (tq_coef), and as the low and
   high bytes repeated in both 128-bit lanes, for pshufb (tq_bytes). */
static short tq_coef[3][32] __attribute__((aligned(64)));
static unsigned char tq_bytes[6][32] __attribute__((aligned(32)));

static void tq_init_tables(void) {
    for (int k = 0; k < 16; k++) {
        double tn[3], yn[3], c[3] = {0, 0, 0};
        for (int i = 0; i < 3; i++) {       /* sigmoid((k + t) / 2) at t = 0, 1/2, 1 */
            tn[i] = 0.5 * i;
            yn[i] = 1.0 / (1.0 + exp(-(k + tn[i]) / 2.0));
        }
        for (int i = 0; i < 3; i++) {       /* the Lagrange basis, in monomials */
            int a = (i + 1) % 3, b = (i + 2) % 3;
            double d = (tn[i] - tn[a]) * (tn[i] - tn[b]);
            c[0] += yn[i] * tn[a] * tn[b] / d;
            c[1] -= yn[i] * (tn[a] + tn[b]) / d;
            c[2] += yn[i] / d;
        }
        for (int q = 0; q < 3; q++) {
            short v = (short)lrint(c[q] * TQ_ONE);
            unsigned short u = (unsigned short)v;
            tq_coef[q][k] = tq_coef[q][k + 16] = v;
            tq_bytes[2 * q][k] = tq_bytes[2 * q][k + 16] = (unsigned char)(u & 0xFF);
            tq_bytes[2 * q + 1][k] = tq_bytes[2 * q + 1][k + 16] = (unsigned char)(u >> 8);
        }
    }
}

/* lrint(x) for |x| < 2^31, inline (the library's lrint is a call): both round by the
   current mode, to nearest even. */
static inline long tq_lrint(double x) {
#if defined(__SSE2__)
    return _mm_cvtsd_si32(_mm_set_sd(x));
#else
    return lrint(x);
#endif
}

/* x as int16, rounded to nearest (even), saturated. */
static inline short tq_round(double x) {
    return (short)(x >= 32767.0 ? 32767 : x <= -32768.0 ? -32768 : tq_lrint(x));
}

/* qh[j] = h[j] * TQ_SCALE rounded to nearest (even) and saturated to int16, j < hp (a
   multiple of 8): a float hidden sum as the int16 evaluator's.  The product is exact in
   float as in double, and clamped before the conversion, so each unit is the number
   rounding its double would give. */
static void tq_quantise_sums(const float* h, int hp, short* qh) {
    int j = 0;
#if defined(__SSE2__)
    const __m128 lo = _mm_set1_ps(-32768.0f), hi = _mm_set1_ps(32767.0f), k = _mm_set1_ps(TQ_SCALE);
    for (; j + 8 <= hp; j += 8) {
        __m128 a = _mm_min_ps(_mm_max_ps(_mm_mul_ps(_mm_loadu_ps(h + j), k), lo), hi);
        __m128 b = _mm_min_ps(_mm_max_ps(_mm_mul_ps(_mm_loadu_ps(h + j + 4), k), lo), hi);
        _mm_storeu_si128((__m128i*)(qh + j), _mm_packs_epi32(_mm_cvtps_epi32(a), _mm_cvtps_epi32(b)));
    }
#endif
    for (; j < hp; j++) qh[j] = tq_round((double)h[j] * TQ_SCALE);
}

/* One evaluation's scaled rows (tf_rows.scaled) with their multipliers: `plain` those with
   |v| < 1, `shifted` the others.  Its added and subtracted rows are read from the tf_rows
   itself (row a at q1 + add[a] * hp), so that only these few need preparing. */
typedef struct {
    int n_plain, n_shifted;
    int plain[256], shifted[256];
    short vplain[256], vshifted[256];
    int shift[256];
} tq_scaled;

static inline void tq_prepare(const tf_rows* r, tq_scaled* t) {
    t->n_plain = t->n_shifted = 0;
    for (int a = 0; a < r->n_scaled; a++) {
        double v = r->val[a];
        if (fabs(v) * 32768.0 < 32767.0) {
            t->plain[t->n_plain] = r->scaled[a];
            t->vplain[t->n_plain++] = (short)tq_lrint(v * 32768.0);
        } else {
            int s = 1;
            while (s < 15 && fabs(v) * (double)(1 << (15 - s)) > 32767.0) s++;
            t->shifted[t->n_shifted] = r->scaled[a];
            t->vshifted[t->n_shifted] = (short)tq_lrint(v * (double)(1 << (15 - s)));
            t->shift[t->n_shifted++] = s;
        }
    }
}

/* z[o] = total[o] * s2inv[o] + b2[o], z[5..7] = 0: the output sums before their sigmoids,
   from each output's exact integer sum of products (any instance, any order: the same
   total), rounded to float once; compiled once (no contraction into FMA anywhere). */
static inline void tq_output_totals(const long long* total, const float* s2inv,
                                    const float* b2, float* z) {
    for (int o = 0; o < 5; o++) z[o] = (float)total[o] * s2inv[o] + b2[o];
    z[5] = z[6] = z[7] = 0.0f;
}

/* ---- The scalar instance: the reference, lane by lane. */
static inline short tq_sat(int x) { return (short)(x > 32767 ? 32767 : x < -32768 ? -32768 : x); }
static inline short tq_mulhrs(short a, short b) { return (short)(((int)a * b + 0x4000) >> 15); }

static inline short tq_act(short h) {
    int ab = h < 0 ? -(int)h : h;           /* 0..32768 */
    if (ab >= 4096) return (short)(h < 0 ? 0 : TQ_ONE);
    int seg = ab >> 8;
    short tq = (short)((ab & 255) << 7);
    short inner = (short)(tq_coef[1][seg] + tq_mulhrs(tq, tq_coef[2][seg]));
    short y = (short)(tq_coef[0][seg] + tq_mulhrs(tq, inner));
    return h < 0 ? (short)(TQ_ONE - y) : y;
}

/* The output layer's products of 32 activations h (units j..j + 31) added to total. */
static inline void tq_outputs_scalar(const short* h, const short* q2, int hp, int j,
                                     long long* total) {
    for (int o = 0; o < 5; o++) {
        const short* w = q2 + o * hp + j;
        long long s = 0;
        for (int u = 0; u < 32; u++) s += (int)h[u] * w[u];
        total[o] += s;
    }
}

static void tq_sums_scalar(const short* init, const short* q1, int hp, const tf_rows* r,
                           const short* q2, const float* s2inv, const float* b2, float* z) {
    tq_scaled t;
    long long total[5] = {0};
    short h[32];
    tq_prepare(r, &t);
    for (int j = 0; j < hp; j += 32) {
        for (int u = 0; u < 32; u++) {
            const short* col = q1 + j + u;
            short x = init[j + u];
            for (int a = 0; a < r->n_add; a++) x = tq_sat(x + col[(long)r->add[a] * hp]);
            for (int a = 0; a < r->n_sub; a++) x = tq_sat(x - col[(long)r->sub[a] * hp]);
            for (int a = 0; a < t.n_plain; a++)
                x = tq_sat(x + tq_mulhrs(col[(long)t.plain[a] * hp], t.vplain[a]));
            for (int a = 0; a < t.n_shifted; a++)
                x = tq_sat(x + (short)(unsigned short)((unsigned)(unsigned short)
                               tq_mulhrs(col[(long)t.shifted[a] * hp], t.vshifted[a]) << t.shift[a]));
            h[u] = tq_act(x);
        }
        tq_outputs_scalar(h, q2, hp, j, total);
    }
    tq_output_totals(total, s2inv, b2, z);
}

/* ---- The pruning net's estimates for int16 nets (_nn_prefilter.pxi nn_estimate_batch): a
   batch of plays, each the base's sums `init` plus and minus rows of `rows` (its estimate
   rows: a point's change from empty to n checkers, which reaches about 70) at TQ_EST_SCALE
   a unit, an add and a subtract at a time (a changed point's new and old rows come in pairs,
   so no partial sum strays far), doubled with saturation to TQ_SCALE for the activation,
   then the output layer as tq_sums'.  out[8 i + o] receives output o (out[8 i + 5..7]:
   sigmoid(0)), the batch's output sigmoids taken together at the end.  hp: a multiple of
   32.  The scalar instance and the AVX2 one (also on AVX-512 processors: a pruning net's
   32 units are two registers) give the same numbers. */
#define TQ_EST_SCALE 256

static void tq_estimate_batch_scalar(const short* init, const short* rows, int hp,
                                     const int* add, const int* sub, const tf_span* spans,
                                     int n, const short* q2, const float* s2inv,
                                     const float* b2, float* out) {
    for (int i = 0; i < n; i++) {
        const tf_span* e = &spans[i];
        int m = e->n_add > e->n_sub ? e->n_add : e->n_sub;
        long long total[5] = {0};
        short h[32];
        for (int j = 0; j < hp; j += 32) {
            for (int u = 0; u < 32; u++) {
                short x = init[j + u];
                for (int a = 0; a < m; a++) {
                    if (a < e->n_add) x = tq_sat(x + rows[(long)add[e->add0 + a] * hp + j + u]);
                    if (a < e->n_sub) x = tq_sat(x - rows[(long)sub[e->sub0 + a] * hp + j + u]);
                }
                h[u] = tq_act(tq_sat(2 * x));
            }
            tq_outputs_scalar(h, q2, hp, j, total);
        }
        tq_output_totals(total, s2inv, b2, out + 8 * i);
    }
    tf_sigmoid_many(out, out, 8L * n);
}

#if TF_HAVE_AVX2
/* ---- AVX2: 64 units (four registers of 16) at a time. */
#pragma GCC push_options
#pragma GCC target("avx2")
#define TQ_LOAD(p) _mm256_loadu_si256((const __m256i*)(p))

static inline __m256i tq_lookup(int q, __m256i ilo, __m256i ihi) {
    return _mm256_or_si256(_mm256_shuffle_epi8(*(const __m256i*)tq_bytes[2 * q], ilo),
                           _mm256_shuffle_epi8(*(const __m256i*)tq_bytes[2 * q + 1], ihi));
}

static inline __m256i tq_act_avx2(__m256i h) {
    __m256i big = _mm256_min_epu16(_mm256_abs_epi16(h), _mm256_set1_epi16(4096));
    __m256i beyond = _mm256_cmpeq_epi16(big, _mm256_set1_epi16(4096));
    __m256i ax = _mm256_min_epu16(big, _mm256_set1_epi16(4095));
    __m256i seg = _mm256_srli_epi16(ax, 8);
    /* pshufb indexes bytes: the low byte of a lane looks up the low-byte table, the high
       byte (index | 0x80 in the other: zero) the high-byte one */
    __m256i ilo = _mm256_or_si256(seg, _mm256_set1_epi16((short)0x8000));
    __m256i ihi = _mm256_or_si256(_mm256_slli_epi16(seg, 8), _mm256_set1_epi16(0x0080));
    __m256i tq = _mm256_slli_epi16(_mm256_and_si256(ax, _mm256_set1_epi16(255)), 7);
    __m256i inner = _mm256_add_epi16(tq_lookup(1, ilo, ihi), _mm256_mulhrs_epi16(tq, tq_lookup(2, ilo, ihi)));
    __m256i y = _mm256_add_epi16(tq_lookup(0, ilo, ihi), _mm256_mulhrs_epi16(tq, inner));
    y = _mm256_blendv_epi8(y, _mm256_set1_epi16(TQ_ONE), beyond);
    __m256i neg = _mm256_cmpgt_epi16(_mm256_setzero_si256(), h);
    return _mm256_blendv_epi8(y, _mm256_sub_epi16(_mm256_set1_epi16(TQ_ONE), y), neg);
}

/* The exact totals of the int32 lanes of acc[0..4] (lane l: units 16k + 2l, 16k + 2l + 1 of
   every k, whose sums _quantise_outputs keeps within int32: _widest_integer_sum), then
   tq_output_totals. */
static inline void tq_output_lanes_avx2(const __m256i* acc, const float* s2inv,
                                        const float* b2, float* z) {
    long long total[5];
    for (int o = 0; o < 5; o++) {
        __m256i w = _mm256_add_epi64(_mm256_cvtepi32_epi64(_mm256_castsi256_si128(acc[o])),
                                     _mm256_cvtepi32_epi64(_mm256_extracti128_si256(acc[o], 1)));
        __m128i v = _mm_add_epi64(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
        total[o] = _mm_cvtsi128_si64(v) + _mm_extract_epi64(v, 1);
    }
    tq_output_totals(total, s2inv, b2, z);
}

/* tq_output_lanes_avx2 for a layer of 32 units, whose whole sums _quantise_outputs keeps
   within int32 (_widest_integer_sum): the lanes added in int32 by horizontal adds, 5 outputs
   at once, then tq_output_totals' steps in float, 4 outputs at a time (the same operations:
   the same numbers). */
static inline void tq_output_lanes32_avx2(const __m256i* acc, const float* s2inv,
                                          const float* b2, float* z) {
    __m256i quads = _mm256_hadd_epi32(_mm256_hadd_epi32(acc[0], acc[1]),
                                      _mm256_hadd_epi32(acc[2], acc[3]));
    __m128i t = _mm_add_epi32(_mm256_castsi256_si128(quads), _mm256_extracti128_si256(quads, 1));
    __m128i l4 = _mm_add_epi32(_mm256_castsi256_si128(acc[4]), _mm256_extracti128_si256(acc[4], 1));
    l4 = _mm_hadd_epi32(l4, l4);
    l4 = _mm_hadd_epi32(l4, l4);
    _mm_storeu_ps(z, _mm_add_ps(_mm_mul_ps(_mm_cvtepi32_ps(t), _mm_loadu_ps(s2inv)),
                                _mm_loadu_ps(b2)));
    __m128 z4 = _mm_add_ss(_mm_mul_ss(_mm_cvtepi32_ps(l4), _mm_load_ss(s2inv + 4)),
                           _mm_load_ss(b2 + 4));
    _mm_storeu_ps(z + 4, _mm_move_ss(_mm_setzero_ps(), z4));      /* z[5..7] = 0 */
}

static inline __attribute__((always_inline)) void tq_block_avx2(
        const short* init, const short* q1, const tf_rows* r, const tq_scaled* t,
        const short* q2, int hp, int j, int nv, __m256i* acc) {
    __m256i h[4];
    for (int q = 0; q < nv; q++) h[q] = TQ_LOAD(init + j + 16 * q);
    for (int a = 0; a < r->n_add; a++) {
        const short* row = q1 + (long)r->add[a] * hp + j;
        for (int q = 0; q < nv; q++) h[q] = _mm256_adds_epi16(h[q], TQ_LOAD(row + 16 * q));
    }
    for (int a = 0; a < r->n_sub; a++) {
        const short* row = q1 + (long)r->sub[a] * hp + j;
        for (int q = 0; q < nv; q++) h[q] = _mm256_subs_epi16(h[q], TQ_LOAD(row + 16 * q));
    }
    for (int a = 0; a < t->n_plain; a++) {
        const short* row = q1 + (long)t->plain[a] * hp + j;
        __m256i m = _mm256_set1_epi16(t->vplain[a]);
        for (int q = 0; q < nv; q++)
            h[q] = _mm256_adds_epi16(h[q], _mm256_mulhrs_epi16(TQ_LOAD(row + 16 * q), m));
    }
    for (int a = 0; a < t->n_shifted; a++) {
        const short* row = q1 + (long)t->shifted[a] * hp + j;
        __m256i m = _mm256_set1_epi16(t->vshifted[a]);
        __m128i s = _mm_cvtsi32_si128(t->shift[a]);
        for (int q = 0; q < nv; q++)
            h[q] = _mm256_adds_epi16(h[q], _mm256_sll_epi16(_mm256_mulhrs_epi16(TQ_LOAD(row + 16 * q), m), s));
    }
    for (int q = 0; q < nv; q++) h[q] = tq_act_avx2(h[q]);
    for (int o = 0; o < 5; o++) {
        const short* w = q2 + o * hp + j;
        for (int q = 0; q < nv; q++)
            acc[o] = _mm256_add_epi32(acc[o], _mm256_madd_epi16(h[q], TQ_LOAD(w + 16 * q)));
    }
}

static void tq_sums_avx2(const short* init, const short* q1, int hp, const tf_rows* r,
                         const short* q2, const float* s2inv, const float* b2, float* z) {
    tq_scaled t;
    __m256i acc[5];
    int j = 0;
    tq_prepare(r, &t);
    for (int o = 0; o < 5; o++) acc[o] = _mm256_setzero_si256();
    for (; j + 64 <= hp; j += 64) tq_block_avx2(init, q1, r, &t, q2, hp, j, 4, acc);
    for (; j < hp; j += 32) tq_block_avx2(init, q1, r, &t, q2, hp, j, 2, acc);
    tq_output_lanes_avx2(acc, s2inv, b2, z);
}

static void tq_estimate_batch_avx2(const short* init, const short* rows, int hp,
                                   const int* add, const int* sub, const tf_span* spans,
                                   int n, const short* q2, const float* s2inv,
                                   const float* b2, float* out) {
    for (int i = 0; i < n; i++) {
        const tf_span* e = &spans[i];
        const int* ad = add + e->add0;
        const int* sb = sub + e->sub0;
        int both = e->n_add < e->n_sub ? e->n_add : e->n_sub, a;
        __m256i acc[5];
        for (int o = 0; o < 5; o++) acc[o] = _mm256_setzero_si256();
        for (int j = 0; j < hp; j += 32) {
            __m256i h0 = TQ_LOAD(init + j), h1 = TQ_LOAD(init + j + 16);
            /* the scalar instance's order: an add and a subtract at a time, then the rest */
            for (a = 0; a < both; a++) {
                const short* r = rows + (long)ad[a] * hp + j;
                const short* t = rows + (long)sb[a] * hp + j;
                h0 = _mm256_subs_epi16(_mm256_adds_epi16(h0, TQ_LOAD(r)), TQ_LOAD(t));
                h1 = _mm256_subs_epi16(_mm256_adds_epi16(h1, TQ_LOAD(r + 16)), TQ_LOAD(t + 16));
            }
            for (; a < e->n_add; a++) {
                const short* r = rows + (long)ad[a] * hp + j;
                h0 = _mm256_adds_epi16(h0, TQ_LOAD(r));
                h1 = _mm256_adds_epi16(h1, TQ_LOAD(r + 16));
            }
            for (a = both; a < e->n_sub; a++) {
                const short* t = rows + (long)sb[a] * hp + j;
                h0 = _mm256_subs_epi16(h0, TQ_LOAD(t));
                h1 = _mm256_subs_epi16(h1, TQ_LOAD(t + 16));
            }
            h0 = tq_act_avx2(_mm256_adds_epi16(h0, h0));
            h1 = tq_act_avx2(_mm256_adds_epi16(h1, h1));
            for (int o = 0; o < 5; o++) {
                const short* w = q2 + o * hp + j;
                acc[o] = _mm256_add_epi32(acc[o], _mm256_add_epi32(
                    _mm256_madd_epi16(h0, TQ_LOAD(w)), _mm256_madd_epi16(h1, TQ_LOAD(w + 16))));
            }
        }
        if (hp == 32) tq_output_lanes32_avx2(acc, s2inv, b2, out + 8 * i);
        else tq_output_lanes_avx2(acc, s2inv, b2, out + 8 * i);
    }
    tf_sigmoid_many(out, out, 8L * n);
}
#undef TQ_LOAD
#pragma GCC pop_options

/* ---- AVX-512BW: every hidden unit (at most TQ_MAX_ZMM * 32) in registers. */
#define TQ_MAX_ZMM 16
#pragma GCC push_options
#pragma GCC target("avx512bw,avx512vl,avx512f,avx2")
#define TQ_LOAD512(p) _mm512_loadu_si512((const void*)(p))

static inline __m512i tq_act_avx512(__m512i h) {
    __m512i ab = _mm512_abs_epi16(h);
    __mmask32 beyond = _mm512_cmpge_epu16_mask(ab, _mm512_set1_epi16(4096));
    __m512i ax = _mm512_min_epu16(ab, _mm512_set1_epi16(4095));
    __m512i seg = _mm512_srli_epi16(ax, 8);
    __m512i tq = _mm512_slli_epi16(_mm512_and_si512(ax, _mm512_set1_epi16(255)), 7);
    __m512i c0 = _mm512_permutexvar_epi16(seg, *(const __m512i*)tq_coef[0]);
    __m512i c1 = _mm512_permutexvar_epi16(seg, *(const __m512i*)tq_coef[1]);
    __m512i c2 = _mm512_permutexvar_epi16(seg, *(const __m512i*)tq_coef[2]);
    __m512i y = _mm512_add_epi16(c0, _mm512_mulhrs_epi16(tq, _mm512_add_epi16(c1, _mm512_mulhrs_epi16(tq, c2))));
    y = _mm512_mask_mov_epi16(y, beyond, _mm512_set1_epi16(TQ_ONE));
    __mmask32 neg = _mm512_cmpgt_epi16_mask(_mm512_setzero_si512(), h);
    return _mm512_mask_sub_epi16(y, neg, _mm512_set1_epi16(TQ_ONE), y);
}

static inline __attribute__((always_inline)) void tq_all_avx512(
        const short* init, const short* q1, const tf_rows* r, const tq_scaled* t,
        const short* q2, int hp, int nz, __m512i* acc) {
    __m512i h[TQ_MAX_ZMM];
    for (int q = 0; q < nz; q++) h[q] = TQ_LOAD512(init + 32 * q);
    for (int a = 0; a < r->n_add; a++) {
        const short* row = q1 + (long)r->add[a] * hp;
        for (int q = 0; q < nz; q++) h[q] = _mm512_adds_epi16(h[q], TQ_LOAD512(row + 32 * q));
    }
    for (int a = 0; a < r->n_sub; a++) {
        const short* row = q1 + (long)r->sub[a] * hp;
        for (int q = 0; q < nz; q++) h[q] = _mm512_subs_epi16(h[q], TQ_LOAD512(row + 32 * q));
    }
    for (int a = 0; a < t->n_plain; a++) {
        const short* row = q1 + (long)t->plain[a] * hp;
        __m512i m = _mm512_set1_epi16(t->vplain[a]);
        for (int q = 0; q < nz; q++)
            h[q] = _mm512_adds_epi16(h[q], _mm512_mulhrs_epi16(TQ_LOAD512(row + 32 * q), m));
    }
    for (int a = 0; a < t->n_shifted; a++) {
        const short* row = q1 + (long)t->shifted[a] * hp;
        __m512i m = _mm512_set1_epi16(t->vshifted[a]);
        __m128i s = _mm_cvtsi32_si128(t->shift[a]);
        for (int q = 0; q < nz; q++)
            h[q] = _mm512_adds_epi16(h[q], _mm512_sll_epi16(_mm512_mulhrs_epi16(TQ_LOAD512(row + 32 * q), m), s));
    }
    for (int q = 0; q < nz; q++) h[q] = tq_act_avx512(h[q]);
    /* lane l of the 16 (units 32k + 2l, 32k + 2l + 1): part of the AVX2 instance's lane
       l mod 8, so within int32 too */
    for (int q = 0; q < nz; q++)
        for (int o = 0; o < 5; o++)
            acc[o] = _mm512_add_epi32(acc[o],
                                      _mm512_madd_epi16(h[q], TQ_LOAD512(q2 + o * hp + 32 * q)));
}

/* (setup.py builds with -ffp-contract=off: tq_output_totals' product and sum are not fused
   into FMA, so the numbers are the other instances'.) */
static void tq_sums_avx512(const short* init, const short* q1, int hp, const tf_rows* r,
                           const short* q2, const float* s2inv, const float* b2, float* z) {
    tq_scaled t;
    __m512i acc[5];
    long long total[5];
    tq_prepare(r, &t);
    for (int o = 0; o < 5; o++) acc[o] = _mm512_setzero_si512();
    /* the usual widths as constants, so that the registers are named at compile time */
    if (hp == 320) tq_all_avx512(init, q1, r, &t, q2, hp, 10, acc);
    else if (hp == 128) tq_all_avx512(init, q1, r, &t, q2, hp, 4, acc);
    else tq_all_avx512(init, q1, r, &t, q2, hp, hp / 32, acc);
    for (int o = 0; o < 5; o++)
        total[o] = _mm512_reduce_add_epi64(_mm512_add_epi64(
            _mm512_cvtepi32_epi64(_mm512_castsi512_si256(acc[o])),
            _mm512_cvtepi32_epi64(_mm512_extracti64x4_epi64(acc[o], 1))));
    tq_output_totals(total, s2inv, b2, z);
}
#undef TQ_LOAD512
#pragma GCC pop_options
#endif

/* Which instance the int16 evaluator uses: 2 AVX-512BW, 1 AVX2, 0 scalar (tq_init). */
static int tq_level = 0;

static int tq_init(int allowed) {
    tq_init_tables();
#if TF_HAVE_AVX2
    __builtin_cpu_init();
    if (allowed >= 1 && __builtin_cpu_supports("avx2")) tq_level = 1;
    if (allowed >= 2 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl"))
        tq_level = 2;
#endif
    return tq_level;
}

/* The 5 output sums before their sigmoids, z[0..4] (z[5..7] = 0), from int16 sums `init`
   (hp units, a multiple of 32, at most 512) plus the rows of `r` in the int16 rows q1
   ([inputs][hp]); q2 [5][hp]: w2 times 1 / (s2inv[o] * TQ_ONE).  The sigmoids are the
   caller's (tf_sigmoid_many), so that a batch of plays can take theirs together. */
static void tq_sums(const short* init, const short* q1, int hp, const tf_rows* r,
                    const short* q2, const float* s2inv, const float* b2, float* z) {
#if TF_HAVE_AVX2
    if (tq_level == 2) { tq_sums_avx512(init, q1, hp, r, q2, s2inv, b2, z); return; }
    if (tq_level == 1) { tq_sums_avx2(init, q1, hp, r, q2, s2inv, b2, z); return; }
#endif
    tq_sums_scalar(init, q1, hp, r, q2, s2inv, b2, z);
}

/* The 5 outputs: tq_sums, then their sigmoids. */
static void tq_forward(const short* init, const short* q1, int hp, const tf_rows* r,
                       const short* q2, const float* s2inv, const float* b2, double* out) {
    float z[8];
    tq_sums(init, q1, hp, r, q2, s2inv, b2, z);
    tf_sigmoid_many(z, z, 8);
    for (int o = 0; o < 5; o++) out[o] = z[o];
}

/* The pruning net's outputs for a batch of plays, by int16 (tq_estimate_batch_*). */
static void tq_estimate_batch(const short* init, const short* rows, int hp, const int* add,
                              const int* sub, const tf_span* spans, int n, const short* q2,
                              const float* s2inv, const float* b2, float* out) {
#if TF_HAVE_AVX2
    if (tq_level >= 1) { tq_estimate_batch_avx2(init, rows, hp, add, sub, spans, n, q2, s2inv, b2, out); return; }
#endif
    tq_estimate_batch_scalar(init, rows, hp, add, sub, spans, n, q2, s2inv, b2, out);
}
