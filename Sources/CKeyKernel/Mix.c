// See KeyKernel.h: each row's blend outside the blocks keyed pixel by pixel, for the same instruction sets as the
// span kernel (Levels.h; Swift compiles the whole program for plain x86-64 alone: its vector loop ran 16 bytes at a
// time). A keyed block is written already, chroma and pixels; every other block blends by its alpha.
#include "KeyKernel.h"
#include "Levels.h"
#include "Vectors.h"


/// (f·(256 − a) + b·a + 128) / 256, in 16 bits (at most 255·256 + 128): plain x86-64 multiplies 16-bit lanes in
/// one instruction, 32-bit ones not.
INLINE uint8_t mix1(uint8_t f, uint8_t b, uint16_t a) {
    return (uint8_t)((uint16_t)(f * (256 - a) + b * a + 128) >> 8);
}

/// mix1 on 32 bytes.
INLINE u8x32 mix32(u8x32 f, u8x32 b, u16x32 a) {
    u16x32 mixed = (__builtin_convertvector(f, u16x32) * (256 - a) + __builtin_convertvector(b, u16x32) * a + 128) >> 8;
    return __builtin_convertvector(mixed, u8x32);
}

#define ALL LOW_16, HIGH_16

/// 16 blocks' chroma, U in bytes 0–15 and V in 16–31, blended by the blocks' alphas.
INLINE u8x32 mix_chroma(const MWMixRow *r, long cx, u16x16 alpha) {
    u8x16 fu = load_u8x16(r->fxU + cx), fv = load_u8x16(r->fxV + cx), bu = load_u8x16(r->baseU + cx), bv = load_u8x16(r->baseV + cx);
    return mix32(__builtin_shufflevector(fu, fv, ALL), __builtin_shufflevector(bu, bv, ALL),
                 __builtin_shufflevector(alpha, alpha, LOW_16, LOW_16));
}

/// Bytes 0–15 (half 0) or 16–31 (half 1) of x.
INLINE u8x16 half(u8x32 x, const int h) {
    return h ? __builtin_shufflevector(x, x, HIGH_16) : __builtin_shufflevector(x, x, LOW_16);
}

INLINE void mix_rest(const MWMixRow *r, const int level) {
    (void)level;
    const long width = r->chromaWidth;
    const uint8_t *fx[2] = {r->fxTop, r->fxBottom}, *base[2] = {r->baseTop, r->baseBottom};
    uint8_t *out[2] = {r->outTop, r->outBottom};
    long cx = 0;
    // 16 blocks a step, while all their pixels are inside the row.
    for (; cx + 16 <= width && 2 * cx + 32 <= r->lumaWidth; cx += 16) {
        u8x16 kind;
        memcpy(&kind, r->kind + cx, sizeof kind);
        u8x16 keyed = (u8x16)((kind & MW_KEYED) != 0);
        uint64_t all[2];
        memcpy(all, &keyed, sizeof all);
        if ((all[0] & all[1]) == UINT64_MAX) continue;
        u16x16 alpha;
        memcpy(&alpha, r->alpha + cx, sizeof alpha);
        u16x32 blocks = __builtin_shufflevector(alpha, alpha, PAIRS_OF_16);
        u8x32 uv = mix_chroma(r, cx, alpha);
        if ((all[0] | all[1]) == 0) {
            // Nothing keyed: every block by its alpha.
            u8x16 u = half(uv, 0), v = half(uv, 1);
            memcpy(r->outU + cx, &u, sizeof u);
            memcpy(r->outV + cx, &v, sizeof v);
            for (int t = 0; t < 2; t++) {
                u8x32 y = mix32(load_u8x32(fx[t] + 2 * cx), load_u8x32(base[t] + 2 * cx), blocks);
                memcpy(out[t] + 2 * cx, &y, sizeof y);
            }
            continue;
        }
        u8x16 open = ~keyed;
        store_u8x16_masked(r->outU + cx, half(uv, 0), open);
        store_u8x16_masked(r->outV + cx, half(uv, 1), open);
        u8x32 openPixels = __builtin_shufflevector(open, open, PAIRS_OF_16);
        for (int t = 0; t < 2; t++) {
            store_u8x32_masked(out[t] + 2 * cx, mix32(load_u8x32(fx[t] + 2 * cx), load_u8x32(base[t] + 2 * cx), blocks), openPixels);
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

#undef ALL

COMPILED_AT_LEVELS(void, mix_rest, (const MWMixRow *row), row)

void mw_prefetch(const void *p, long n) {
    for (long i = 0; i < n; i += 64) __builtin_prefetch((const char *)p + i, 0, 2);
}
