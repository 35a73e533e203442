// See KeyKernel.h: each row's blend outside the blocks keyed pixel by pixel, for the same instruction sets as the
// span kernel (Levels.h; Swift compiles the whole program for plain x86-64 alone: its vector loop ran 16 bytes at a
// time). A keyed block is written already, chroma and pixels; every other block blends by its alpha.
#include "KeyKernel.h"
#include "Levels.h"

#include <string.h>

typedef uint8_t b16 __attribute__((vector_size(16)));
typedef uint8_t b32 __attribute__((vector_size(32)));
typedef uint16_t w16 __attribute__((vector_size(32)));
typedef uint16_t w32 __attribute__((vector_size(64)));

/// (f·(256 − a) + b·a + 128) / 256, in 16 bits (at most 255·256 + 128): plain x86-64 multiplies 16-bit lanes in
/// one instruction, 32-bit ones not.
INLINE uint8_t mix1(uint8_t f, uint8_t b, uint16_t a) {
    return (uint8_t)((uint16_t)(f * (256 - a) + b * a + 128) >> 8);
}

/// mix1 on 32 bytes.
INLINE b32 mix32(b32 f, b32 b, w32 a) {
    w32 mixed = (__builtin_convertvector(f, w32) * (256 - a) + __builtin_convertvector(b, w32) * a + 128) >> 8;
    return __builtin_convertvector(mixed, b32);
}

INLINE b16 load16(const uint8_t *p) {
    b16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE b32 load32(const uint8_t *p) {
    b32 v;
    memcpy(&v, p, sizeof v);
    return v;
}

#define ALL 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, \
            29, 30, 31

/// 16 blocks' chroma, U in bytes 0–15 and V in 16–31, blended by the blocks' alphas.
INLINE b32 mix_chroma(const MWMixRow *r, long cx, w16 alpha) {
    b16 fu = load16(r->fxU + cx), fv = load16(r->fxV + cx), bu = load16(r->baseU + cx), bv = load16(r->baseV + cx);
    return mix32(__builtin_shufflevector(fu, fv, ALL), __builtin_shufflevector(bu, bv, ALL),
                 __builtin_shufflevector(alpha, alpha, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3,
                                         4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}

/// Bytes 0–15 (half 0) or 16–31 (half 1) of x.
INLINE b16 half(b32 x, const int h) {
    return h ? __builtin_shufflevector(x, x, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31)
             : __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

/// Writes `values` where `mask` is set.
INLINE void store16(uint8_t *p, b16 values, b16 mask) {
    b16 old;
    memcpy(&old, p, sizeof old);
    b16 new = (values & mask) | (old & ~mask);
    memcpy(p, &new, sizeof new);
}

INLINE void store32(uint8_t *p, b32 values, b32 mask) {
    b32 old;
    memcpy(&old, p, sizeof old);
    b32 new = (values & mask) | (old & ~mask);
    memcpy(p, &new, sizeof new);
}

/// Each of 16 blocks' values for its two pixels.
#define PAIRS 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15

INLINE void mix_rest(const MWMixRow *r, const int level) {
    (void)level;
    const long width = r->chromaWidth;
    const uint8_t *fx[2] = {r->fxTop, r->fxBottom}, *base[2] = {r->baseTop, r->baseBottom};
    uint8_t *out[2] = {r->outTop, r->outBottom};
    long cx = 0;
    // 16 blocks a step, while all their pixels are inside the row.
    for (; cx + 16 <= width && 2 * cx + 32 <= r->lumaWidth; cx += 16) {
        b16 kind;
        memcpy(&kind, r->kind + cx, sizeof kind);
        b16 keyed = (b16)((kind & MW_KEYED) != 0);
        uint64_t all[2];
        memcpy(all, &keyed, sizeof all);
        if ((all[0] & all[1]) == UINT64_MAX) continue;
        w16 alpha;
        memcpy(&alpha, r->alpha + cx, sizeof alpha);
        w32 blocks = __builtin_shufflevector(alpha, alpha, PAIRS);
        b32 uv = mix_chroma(r, cx, alpha);
        if ((all[0] | all[1]) == 0) {
            // Nothing keyed: every block by its alpha.
            b16 u = half(uv, 0), v = half(uv, 1);
            memcpy(r->outU + cx, &u, sizeof u);
            memcpy(r->outV + cx, &v, sizeof v);
            for (int t = 0; t < 2; t++) {
                b32 y = mix32(load32(fx[t] + 2 * cx), load32(base[t] + 2 * cx), blocks);
                memcpy(out[t] + 2 * cx, &y, sizeof y);
            }
            continue;
        }
        b16 open = ~keyed;
        store16(r->outU + cx, half(uv, 0), open);
        store16(r->outV + cx, half(uv, 1), open);
        b32 openPixels = __builtin_shufflevector(open, open, PAIRS);
        for (int t = 0; t < 2; t++) {
            store32(out[t] + 2 * cx, mix32(load32(fx[t] + 2 * cx), load32(base[t] + 2 * cx), blocks), openPixels);
        }
    }
    for (; cx < width; cx++) {
        if (r->kind[cx] & MW_KEYED) continue;
        const uint16_t a = r->alpha[cx];
        r->outU[cx] = mix1(r->fxU[cx], r->baseU[cx], a);
        r->outV[cx] = mix1(r->fxV[cx], r->baseV[cx], a);
        for (long x = 2 * cx; x < 2 * cx + 2 && x < r->lumaWidth; x++) {
            for (int t = 0; t < 2; t++) out[t][x] = mix1(fx[t][x], base[t][x], a);
        }
    }
}

#undef PAIRS
#undef ALL

COMPILED_AT_LEVELS(void, mix_rest, (const MWMixRow *row), row)

void mw_prefetch(const void *p, long n) {
    for (long i = 0; i < n; i += 64) __builtin_prefetch((const char *)p + i, 0, 2);
}
