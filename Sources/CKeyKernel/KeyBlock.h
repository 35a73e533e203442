// One edge block keyed a pixel at a time from GPUImage's formulas: the scalar reference's (KeyKernelRef.c) and,
// compiled at every level, `keyBlocks`' (KeyBlocks.c), which may take a keyed or kept pixel's alpha from the keyer's
// table instead of computing it. Float steps are the formulas' own, in the same order and in single precision,
// without fused multiply-add.
#ifndef MIXWRITE_KEY_BLOCK_H
#define MIXWRITE_KEY_BLOCK_H

#include <math.h>

#include "KeyKernel.h"
#include "Levels.h"

#pragma clang fp contract(off)

INLINE long clamp_index(long x, long n) { return x < 0 ? 0 : x >= n ? n - 1 : x; }

/// (f·(256 − a) + b·a + 128) / 256, a (0 … 256) the weight of b.
INLINE uint8_t mix(uint8_t f, uint8_t b, unsigned a) { return (uint8_t)((f * (256 - a) + b * a + 128) >> 8); }

/// 1.5·2²³: a float's step is 1 from 2²³ to 2²⁴, so x + WHOLE − WHOLE is x rounded to a whole number (to nearest,
/// ties to even, as the float unit rounds) for |x| < 2²², in two additions and no library call.
static const float WHOLE = 12582912.0f;

/// One channel of the RGBA8 texture: rounded to a whole 8-bit value and clamped to 0 … 255.
INLINE float texel(float x) {
    float whole = (x + WHOLE) - WHOLE;
    return whole < 0 ? 0 : whole > 255 ? 255 : whole;
}

/// GPUImage's alpha (0 … 256) of a pixel with luma y and GL_LINEAR chroma (u16, v16) in 1/16 steps.
INLINE int key_alpha(const MWKeyParams *p, int y, int u16, int v16) {
    float l = (float)(y - (int)p->lumaZero) * p->lumaScale;
    float du = (float)(u16 - 2048), dv = (float)(v16 - 2048);
    float r = texel(l + dv * p->perV[0]);
    float g = texel(l + du * p->perU[1] + dv * p->perV[1]);
    float b = texel(l + du * p->perU[2]);
    // Cr and Cb are linear in R − G and B − G: the squared distance from the key is a quadratic form of those.
    float rg = (r - g) - p->keyRG, bg = (b - g) - p->keyBG;
    float d = sqrtf(rg * (p->square[0] * rg + p->square[1] * bg) + p->square[2] * (bg * bg));
    if (p->hardEdge) return d < p->threshold ? 256 : 0;
    float t = d - p->threshold;
    t = t > 0 ? t : 0;
    t = t < 1 ? t : 1;
    // 256·(1 − smoothstep(0, 1, t)) = 256 − t²·(768 − 512·t), rounded once to a whole number: subtracted from
    // WHOLE + 256 (rounding 256 − s first and then to a whole number could round twice).
    return (int)(((WHOLE + 256) - t * t * (768 - 512 * t)) - WHOLE);
}

/// A keyed or kept pixel's alpha (0 or 256) from the keyer's table, looked up at the nearest whole chroma step,
/// or −1 where the table does not hold it. An entry holds for the lumas of its range when its margin is a chroma
/// step or more: within half a step of it the colour stays as far inside the keyed-out disc, or outside the soft
/// edge, as that margin (ChromaKeyBlend's `entry`), so the computed alpha is the entry's too. A soft entry
/// (no margin) never holds: its pixels are computed.
INLINE int table_alpha(const uint32_t *entries, uint8_t y, int u16, int v16) {
    uint32_t e = entries[((u16 + 8) >> 4) << 8 | ((v16 + 8) >> 4)];
    if ((e & (0x7Fu << 9)) == 0 || y < (uint8_t)(e >> 16) || y > (uint8_t)(e >> 24)) return -1;
    return (int)(e & 0x1FF);
}

/// GL_LINEAR at a pixel of block k, in 1/16 steps: 9/16 of its sample, 3/16 of the horizontal neighbour on its
/// side (dx) and of the vertical one (dy), 1/16 of the diagonal; samples beyond the row's ends are its ends'.
INLINE int linear(const uint8_t *const rows[3], long k, int dx, int dy, long width) {
    long side = clamp_index(dx ? k + 1 : k - 1, width);
    const uint8_t *own = rows[1], *other = rows[dy ? 2 : 0];
    return 9 * own[k] + 3 * own[side] + 3 * other[k] + other[side];
}

/// Keys block k of a row: its four pixels blended by their own alphas, its chroma the 2×2 average of theirs.
/// A picture of odd width has one pixel in its last block: the missing pixel is keyed as the luma beside it
/// and counts in the chroma's average, but is not written.
INLINE void key_block(const MWKeyParams *p, const MWKeyRow *row, long k, const int useTable) {
    const long width = row->chromaWidth;
    const uint8_t *fxLuma[2] = {row->lumaTop, row->lumaBottom}, *baseLuma[2] = {row->baseLumaTop, row->baseLumaBottom};
    uint8_t *outLuma[2] = {row->outTop, row->outBottom};
    int sumU = 0, sumV = 0;
    for (int dy = 0; dy < 2; dy++) {
        for (int dx = 0; dx < 2; dx++) {
            long x = 2 * k + dx, inside = x < row->lumaWidth ? x : row->lumaWidth - 1;
            int u = linear(row->fxU, k, dx, dy, width), v = linear(row->fxV, k, dx, dy, width);
            uint8_t y = fxLuma[dy][inside];
            int a = useTable && row->entries ? table_alpha(row->entries, y, u, v) : -1;
            if (a < 0) a = key_alpha(p, y, u, v);
            if (row->despill) {
                // fx's chroma with the key's cast removed (the alpha is the original colour's).
                uint16_t neutral = row->despill[((u + 8) >> 4) << 8 | ((v + 8) >> 4)];
                u = (neutral >> 8) * 16;
                v = (neutral & 0xFF) * 16;
            }
            sumU += u * (256 - a) + linear(row->baseU, k, dx, dy, width) * a;
            sumV += v * (256 - a) + linear(row->baseV, k, dx, dy, width) * a;
            if (x < row->lumaWidth) outLuma[dy][x] = mix(fxLuma[dy][x], baseLuma[dy][x], (unsigned)a);
        }
    }
    // Four pixels, 1/16 steps, weights out of 256: 16 384 in all.
    row->outU[k] = (uint8_t)((sumU + 8192) >> 14);
    row->outV[k] = (uint8_t)((sumV + 8192) >> 14);
}

/// Keys every edge block of `row` not keyed yet (marked `MW_EDGE` alone) and marks it keyed.
INLINE void key_blocks_with(const MWKeyParams *p, const MWKeyRow *row, const int useTable) {
    for (long k = 0; k < row->chromaWidth; k++) {
        if (row->isEdge[k] != MW_EDGE) continue;
        key_block(p, row, k, useTable);
        row->isEdge[k] |= MW_KEYED;
    }
}

#endif
