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
typedef uint32_t v16u __attribute__((vector_size(64)));
typedef int16_t v16s __attribute__((vector_size(32)));
typedef uint16_t v16w __attribute__((vector_size(32)));
typedef uint8_t v16b __attribute__((vector_size(16)));
typedef float v8f __attribute__((vector_size(32)));
typedef uint32_t v8u __attribute__((vector_size(32)));
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

/// The nearest whole number, ties to even, for |x| < 2²²: the adder's own rounding (SSE2 has no round).
INLINE v16f nearest(v16f x) { return (x + 8388608.0f) - 8388608.0f; }


INLINE v8s load8(const uint8_t *p) {
    v8b b;
    memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, v8s);
}

/// GL_LINEAR chroma of the span's 16 pixels on its top (dy 0) or bottom luma row, in 1/16 steps: 9/16 of the
/// block's sample, 3/16 of the horizontal and of the vertical neighbour on the pixel's side, 1/16 diagonal.
INLINE v16s linear_chroma(const uint8_t *const rows[3], long cx, int dy) {
    const uint8_t *r = rows[1], *o = dy ? rows[2] : rows[0];
    v8s left = 3 * load8(r + cx - 1) + load8(o + cx - 1);
    v8s centre = 3 * load8(r + cx) + load8(o + cx);
    v8s right = 3 * load8(r + cx + 1) + load8(o + cx + 1);
    v16s c = __builtin_shufflevector(centre, centre, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    v16s side = __builtin_shufflevector(left, right, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    return 3 * c + side;
}

/// A channel of the RGBA8 texture: clamped to 0 … 255, rounded to a whole 8-bit value.
INLINE v16f texel(v16f x) { return nearest(vmin(vmax(x, splat(0)), splat(255))); }

/// GPUImage's alpha (0 … 256, whole numbers) of 16 pixels: 8-bit luma, chroma in 1/16 steps.
INLINE v16f key_alpha(const MWKeyParams *p, v16f y, v16f u16, v16f v16) {
    v16f du = u16 - 2048, dv = v16 - 2048;
    v16f l = (y - p->lumaZero) * p->lumaScale;
    v16f r = texel(l + du * p->perU[0] + dv * p->perV[0]);
    v16f g = texel(l + du * p->perU[1] + dv * p->perV[1]);
    v16f b = texel(l + du * p->perU[2] + dv * p->perV[2]);
    v16f cr = r * p->crOf[0] + g * p->crOf[1] + b * p->crOf[2] - p->keyCr;
    v16f cb = r * p->cbOf[0] + g * p->cbOf[1] + b * p->cbOf[2] - p->keyCb;
    v16f d = __builtin_elementwise_sqrt(cr * cr + cb * cb);
    if (p->hardEdge) return (v16f)((v16i)(d < p->threshold) & (v16i)splat(256));
    v16f t = vmin(vmax((d - p->threshold) * p->inverseSmoothing, splat(0)), splat(1));
    return nearest((1 - t * t * (3 - 2 * t)) * 256);
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

INLINE void key_span(const MWKeyParams *p, const MWKeyRow *row, long cx) {
    v8i sumU = {0}, sumV = {0};
    v16s alphas[2];
#pragma clang loop unroll(full)
    for (int dy = 0; dy < 2; dy++) {
        v16b lumas;
        memcpy(&lumas, (dy ? row->lumaBottom : row->lumaTop) + 2 * cx, sizeof lumas);
        v16s u = linear_chroma(row->fxU, cx, dy), v = linear_chroma(row->fxV, cx, dy);
        v16f exact = key_alpha(p, __builtin_convertvector(lumas, v16f), __builtin_convertvector(u, v16f),
                               __builtin_convertvector(v, v16f));
        v16s a = __builtin_convertvector(__builtin_convertvector(exact, v16i), v16s);
        if (row->despill) despill(&u, &v, row->despill);
        v16s kept = 256 - a;
        sumU += dot_pairs(u, kept) + dot_pairs(linear_chroma(row->baseU, cx, dy), a);
        sumV += dot_pairs(v, kept) + dot_pairs(linear_chroma(row->baseV, cx, dy), a);
        alphas[dy] = a;
    }
    v8b edges;
    memcpy(&edges, row->isEdge + cx, sizeof edges);
    v8b mask = (v8b)(edges != 0);
    v16w wide = __builtin_convertvector(__builtin_shufflevector(mask, mask, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7), v16w);
    wide = wide | wide << 8;
    // Four pixels, 1/16 units, alpha out of 256: 16 384 in all.
    store_bytes(row->outU + cx, (sumU + 8192) >> 14, mask);
    store_bytes(row->outV + cx, (sumV + 8192) >> 14, mask);
    store_weights(row->weightsTop + 2 * cx, alphas[0], wide);
    store_weights(row->weightsBottom + 2 * cx, alphas[1], wide);
}

static void key_span_baseline(const MWKeyParams *p, const MWKeyRow *row, long cx) { key_span(p, row, cx); }

#if defined(__x86_64__)
__attribute__((target("arch=x86-64-v3")))
static void key_span_v3(const MWKeyParams *p, const MWKeyRow *row, long cx) { key_span(p, row, cx); }

__attribute__((target("arch=x86-64-v4")))
static void key_span_v4(const MWKeyParams *p, const MWKeyRow *row, long cx) { key_span(p, row, cx); }

static int best_level(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("x86-64-v4") ? 4 : __builtin_cpu_supports("x86-64-v3") ? 3 : 1;
}
#else
static int best_level(void) { return 0; }
#endif

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

int mw_key_best_level(void) {
    static _Atomic int best = -1;
    int level = atomic_load_explicit(&best, memory_order_relaxed);
    if (level < 0) {
        level = best_level();
        atomic_store_explicit(&best, level, memory_order_relaxed);
    }
    return level;
}

void mw_key_span(int level, const MWKeyParams *params, const MWKeyRow *row, long cx) {
    span_kernel kernel = key_span_baseline;
#if defined(__x86_64__)
    if (level == 4) kernel = key_span_v4;
    if (level == 3) kernel = key_span_v3;
#else
    (void)level;
#endif
    if (cx >= 1 && cx + 9 <= row->chromaWidth) {
        kernel(params, row, cx);
    } else {
        key_span_padded(kernel, params, row, cx);
    }
}
