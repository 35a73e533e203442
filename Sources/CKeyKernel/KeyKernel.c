// See KeyKernel.h. The maths is in 16-lane vectors of floats: one lane a luma pixel of the span's top or bottom
// row (even lanes each block's left pixel). Contraction of a·b + c into one FMA is off so that every build
// gives the same bits: a movie keyed on a machine with AVX2 and one without are the same movie.
#include "KeyKernel.h"

#include <stdatomic.h>
#include <string.h>

#pragma clang fp contract(off)
// Vectors wider than the baseline's registers never cross a call here (every helper is inlined), so the
// warning that their calling convention differs between targets does not apply.
#pragma clang diagnostic ignored "-Wpsabi"

typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
typedef int16_t v16s __attribute__((vector_size(32)));
typedef uint16_t v16w __attribute__((vector_size(32)));
typedef uint8_t v16b __attribute__((vector_size(16)));
typedef int32_t v8i __attribute__((vector_size(32)));
typedef int16_t v8s __attribute__((vector_size(16)));
typedef uint8_t v8b __attribute__((vector_size(8)));

#define INLINE static inline __attribute__((always_inline))

INLINE v16f vmin(v16f a, v16f b) {
    v16i m = a < b;
    return (v16f)(((v16i)a & m) | ((v16i)b & ~m));
}

INLINE v16f vmax(v16f a, v16f b) {
    v16i m = a > b;
    return (v16f)(((v16i)a & m) | ((v16i)b & ~m));
}

INLINE v16f splat(float x) { return (v16f){0} + x; }

INLINE v8s load8(const uint8_t *p) {
    v8b b;
    memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, v8s);
}

/// GL_LINEAR chroma of the span's 16 pixels on its top (out[0]) and bottom (out[1]) luma rows, in 1/16 steps:
/// 9/16 of the block's sample, 3/16 of the horizontal and of the vertical neighbour on the pixel's side, 1/16
/// diagonal. Vertical first (3 × the row + the row above or below), then each block's left pixel takes 3 × its
/// own column + the one on the left, its right pixel 3 × its own + the one on the right, interleaved.
INLINE void linear_chroma(const uint8_t *const rows[3], long cx, v16s out[2]) {
    const uint8_t *r = rows[1];
    v8s left = 3 * load8(r + cx - 1), centre = 3 * load8(r + cx), right = 3 * load8(r + cx + 1);
#pragma clang loop unroll(full)
    for (int dy = 0; dy < 2; dy++) {
        const uint8_t *o = rows[dy ? 2 : 0];
        v8s c = 3 * (centre + load8(o + cx));
        v8s even = c + left + load8(o + cx - 1), odd = c + right + load8(o + cx + 1);
        out[dy] = __builtin_shufflevector(even, odd, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    }
}

/// The nearest whole number (ties to even) of |x| < 2²², as an integer: x + 1.5·2²³ holds it in its low bits.
/// One addition (the float unit's own rounding); plain x86-64 has no rounding instruction for vectors.
INLINE v16i rounded(v16f x) { return (v16i)(x + 12582912.0f) - 0x4B400000; }

/// The same as a float: x + 1.5·2²³ − 1.5·2²³.
INLINE v16f nearest(v16f x) { return (x + 12582912.0f) - 12582912.0f; }

/// A channel of the RGBA8 texture: clamped to 0 … 255, rounded to a whole 8-bit value.
INLINE v16f texel(v16f x) { return nearest(vmin(vmax(x, splat(0)), splat(255))); }

/// GPUImage's alpha (0 … 256) of 16 pixels: 8-bit luma, chroma in 1/16 steps. In every YUV matrix red takes V
/// alone and blue U alone.
INLINE v16i key_alpha(const MWKeyParams *p, v16f y, v16f u16, v16f v16) {
    v16f du = u16 - 2048, dv = v16 - 2048;
    v16f l = (y - p->lumaZero) * p->lumaScale;
    v16f r = texel(l + dv * p->perV[0]);
    v16f g = texel(l + du * p->perU[1] + dv * p->perV[1]);
    v16f b = texel(l + du * p->perU[2]);
    v16f cr = r * p->crOf[0] + g * p->crOf[1] + b * p->crOf[2] - p->keyCr;
    v16f cb = r * p->cbOf[0] + g * p->cbOf[1] + b * p->cbOf[2] - p->keyCb;
    v16f d = __builtin_elementwise_sqrt(cr * cr + cb * cb);
    if (p->hardEdge) return (d < p->threshold) & 256;
    v16f t = vmin(vmax((d - p->threshold) * p->inverseSmoothing, splat(0)), splat(1));
    // 256·(1 − smoothstep) = 256 − t²·(768 − 512·t).
    return rounded(256 - t * t * (768 - 512 * t));
}

/// fx's chroma with the key's cast removed, lane by lane through the despill table.
INLINE void despill(v16s *u, v16s *v, const uint16_t *table) {
    v16s index = ((*u + 8) >> 4) << 8 | ((*v + 8) >> 4);
    v16s out;
    for (int i = 0; i < 16; i++) out[i] = (int16_t)table[(uint16_t)index[i]];
    *u = ((v16s)((v16w)out >> 8)) * 16;
    *v = (out & 0xFF) * 16;
}

/// Σ x·w over each block's two pixels (lanes 2k and 2k + 1), in 32 bits: one multiply-add of pairs (pmaddwd).
INLINE v8i dot_pairs(v16s x, v16s w) {
    v16i p = __builtin_convertvector(x, v16i) * __builtin_convertvector(w, v16i);
    return __builtin_shufflevector(p, p, 0, 2, 4, 6, 8, 10, 12, 14) + __builtin_shufflevector(p, p, 1, 3, 5, 7, 9, 11, 13, 15);
}

INLINE void store_bytes(uint8_t *p, v8i values, v8b mask) {
    v8b old;
    memcpy(&old, p, sizeof old);
    v8b new = (__builtin_convertvector(values, v8b) & mask) | (old & ~mask);
    memcpy(p, &new, sizeof new);
}

INLINE void store_weights(uint16_t *p, v16s values, v16w mask) {
    v16w old;
    memcpy(&old, p, sizeof old);
    v16w new = ((v16w)values & mask) | (old & ~mask);
    memcpy(p, &new, sizeof new);
}

/// Spans cx[0] … cx[n − 1] (n is 1 or 2, a constant once inlined). The alphas of all their luma rows are
/// computed one after another: each is a long chain of dependent steps (a square root among them), and
/// independent chains side by side keep the vector units busy while each waits.
INLINE void key_batch(const MWKeyParams *p, const MWKeyRow *row, const long cx[], const int n) {
    v16s u[4], v[4], a[4];
    v16f y[4];
#pragma clang loop unroll(full)
    for (int i = 0; i < n; i++) {
        linear_chroma(row->fxU, cx[i], &u[2 * i]);
        linear_chroma(row->fxV, cx[i], &v[2 * i]);
#pragma clang loop unroll(full)
        for (int dy = 0; dy < 2; dy++) {
            v16b lumas;
            memcpy(&lumas, (dy ? row->lumaBottom : row->lumaTop) + 2 * cx[i], sizeof lumas);
            y[2 * i + dy] = __builtin_convertvector(lumas, v16f);
        }
    }
#pragma clang loop unroll(full)
    for (int k = 0; k < 2 * n; k++) {
        a[k] = __builtin_convertvector(key_alpha(p, y[k], __builtin_convertvector(u[k], v16f), __builtin_convertvector(v[k], v16f)), v16s);
    }
#pragma clang loop unroll(full)
    for (int i = 0; i < n; i++) {
        v8i sumU = {0}, sumV = {0};
        v16s bu[2], bv[2];
        linear_chroma(row->baseU, cx[i], bu);
        linear_chroma(row->baseV, cx[i], bv);
#pragma clang loop unroll(full)
        for (int dy = 0; dy < 2; dy++) {
            int k = 2 * i + dy;
            if (row->despill) despill(&u[k], &v[k], row->despill);
            v16s kept = 256 - a[k];
            sumU += dot_pairs(u[k], kept) + dot_pairs(bu[dy], a[k]);
            sumV += dot_pairs(v[k], kept) + dot_pairs(bv[dy], a[k]);
        }
        v8b edges;
        memcpy(&edges, row->isEdge + cx[i], sizeof edges);
        v8b mask = (v8b)(edges != 0);
        v16w wide = __builtin_convertvector(__builtin_shufflevector(mask, mask, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7), v16w);
        wide = wide | wide << 8;
        // Four pixels, 1/16 units, alpha out of 256: 16 384 in all.
        store_bytes(row->outU + cx[i], (sumU + 8192) >> 14, mask);
        store_bytes(row->outV + cx[i], (sumV + 8192) >> 14, mask);
        store_weights(row->weightsTop + 2 * cx[i], a[2 * i], wide);
        store_weights(row->weightsBottom + 2 * cx[i], a[2 * i + 1], wide);
    }
}

INLINE void key_span(const MWKeyParams *p, const MWKeyRow *row, long cx) {
    const long one[1] = {cx};
    key_batch(p, row, one, 1);
}

/// Edge blocks in span cx … cx + 7 (one byte each, 1 for an edge, 0 not); fewer at the row's end.
INLINE int span_edges(const MWKeyRow *row, long cx) {
    if (cx + 8 <= row->chromaWidth) {
        uint64_t flags;
        memcpy(&flags, row->isEdge + cx, sizeof flags);
        return __builtin_popcountll(flags);
    }
    int count = 0;
    for (long k = cx; k < row->chromaWidth; k++) count += row->isEdge[k] != 0;
    return count;
}

typedef void (*span_kernel)(const MWKeyParams *, const MWKeyRow *, long);

/// A span at a row's ends: its samples copied with the edge sample repeated, keyed there as a span at cx 1, and
/// the edge blocks inside the row copied back.
static void key_span_padded(span_kernel kernel, const MWKeyParams *p, const MWKeyRow *row, long cx) {
    uint8_t chroma[12][10], lumas[2][18], edges[9] = {0}, outU[9], outV[9];
    uint16_t weights[2][18];
    MWKeyRow padded = *row;
    const uint8_t *const *planes[4] = {row->fxU, row->fxV, row->baseU, row->baseV};
    const uint8_t **into[4] = {padded.fxU, padded.fxV, padded.baseU, padded.baseV};
    for (int plane = 0; plane < 4; plane++) {
        for (int r = 0; r < 3; r++) {
            uint8_t *copy = chroma[plane * 3 + r];
            for (long i = 0; i < 10; i++) {
                long x = cx - 1 + i;
                copy[i] = planes[plane][r][x < 0 ? 0 : x >= row->chromaWidth ? row->chromaWidth - 1 : x];
            }
            into[plane][r] = copy;
        }
    }
    for (long i = 0; i < 16; i++) {
        long x = 2 * cx + i < row->lumaWidth ? 2 * cx + i : row->lumaWidth - 1;
        lumas[0][2 + i] = row->lumaTop[x];
        lumas[1][2 + i] = row->lumaBottom[x];
    }
    long inside = row->chromaWidth - cx < 8 ? row->chromaWidth - cx : 8;
    for (long k = 0; k < inside; k++) edges[1 + k] = row->isEdge[cx + k];
    padded.lumaTop = lumas[0];
    padded.lumaBottom = lumas[1];
    padded.isEdge = edges;
    padded.outU = outU;
    padded.outV = outV;
    padded.weightsTop = weights[0];
    padded.weightsBottom = weights[1];
    kernel(p, &padded, 1);
    for (long k = 0; k < inside; k++) {
        if (!edges[1 + k]) continue;
        row->outU[cx + k] = outU[1 + k];
        row->outV[cx + k] = outV[1 + k];
        for (long dx = 0; dx < 2 && 2 * (cx + k) + dx < row->lumaWidth; dx++) {
            row->weightsTop[2 * (cx + k) + dx] = weights[0][2 + 2 * k + dx];
            row->weightsBottom[2 * (cx + k) + dx] = weights[1][2 + 2 * k + dx];
        }
    }
}

/// Every span of the row with more than `fewEdges` edge blocks. The parameters are copied first: the row's
/// stores are bytes, which C lets alias anything, and a copy lets the compiler keep them in registers.
INLINE void key_spans(span_kernel kernel, const MWKeyParams *shared, const MWKeyRow *row, int fewEdges) {
    const MWKeyParams p = *shared;
    long pending[2];
    int count = 0;
    for (long cx = 0; cx < row->chromaWidth; cx += 8) {
        if (span_edges(row, cx) <= fewEdges) continue;
        if (cx >= 1 && cx + 9 <= row->chromaWidth) {
            pending[count++] = cx;
            if (count == 2) {
                key_batch(&p, row, pending, 2);
                count = 0;
            }
        } else {
            key_span_padded(kernel, &p, row, cx);
        }
    }
    if (count == 1) key_span(&p, row, pending[0]);
}

static void key_span_baseline(const MWKeyParams *p, const MWKeyRow *row, long cx) { key_span(p, row, cx); }
static void key_spans_baseline(const MWKeyParams *p, const MWKeyRow *row, int fewEdges) {
    key_spans(key_span_baseline, p, row, fewEdges);
}

#if defined(__x86_64__)
/// The kernel compiled for one instruction set: a span alone (for the row's ends) and a row's spans.
#define LEVEL(name, isa)                                                                                  \
    __attribute__((target(isa))) static void key_span_##name(const MWKeyParams *p, const MWKeyRow *row,  \
                                                             long cx) {                                  \
        key_span(p, row, cx);                                                                            \
    }                                                                                                    \
    __attribute__((target(isa))) static void key_spans_##name(const MWKeyParams *p, const MWKeyRow *row, \
                                                              int fewEdges) {                            \
        key_spans(key_span_##name, p, row, fewEdges);                                                    \
    }
LEVEL(v3, "arch=x86-64-v3")
LEVEL(v4, "arch=x86-64-v4")

static int best_level(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("x86-64-v4") ? 4 : __builtin_cpu_supports("x86-64-v3") ? 3 : 1;
}
#else
static int best_level(void) { return 0; }
#endif

int mw_key_best_level(void) {
    static _Atomic int best = -1;
    int level = atomic_load_explicit(&best, memory_order_relaxed);
    if (level < 0) {
        level = best_level();
        atomic_store_explicit(&best, level, memory_order_relaxed);
    }
    return level;
}

void mw_key_spans(int level, const MWKeyParams *params, const MWKeyRow *row, int fewEdges) {
#if defined(__x86_64__)
    switch (level) {
    case 4: key_spans_v4(params, row, fewEdges); return;
    case 3: key_spans_v3(params, row, fewEdges); return;
    }
#else
    (void)level;
#endif
    key_spans_baseline(params, row, fewEdges);
}
