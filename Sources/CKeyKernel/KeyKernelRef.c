// The kernel's scalar reference (level 0 of the table, KeyKernel.h): each exported function written again from
// its formulas, a block or a pixel at a time, with no vectors, no chunks and no padded copies, as dav1d and
// FFmpeg keep a C version of every assembly function. The kernel test (checkasm's habit) runs every level this
// CPU has against it, bit for bit. Float steps are the formulas' own, in the same order and in single precision,
// without fused multiply-add, so the reference is exact, not merely close.
#include "KeyKernel.h"
#include "Levels.h"

#include <math.h>

#pragma clang fp contract(off)

static long clamp_index(long x, long n) { return x < 0 ? 0 : x >= n ? n - 1 : x; }
static uint8_t min8(uint8_t a, uint8_t b) { return a < b ? a : b; }
static uint8_t max8(uint8_t a, uint8_t b) { return a > b ? a : b; }

/// (f·(256 − a) + b·a + 128) / 256, a (0 … 256) the weight of b.
static uint8_t mix(uint8_t f, uint8_t b, unsigned a) { return (uint8_t)((f * (256 - a) + b * a + 128) >> 8); }

// MARK: the span kernel

/// One channel of the RGBA8 texture: rounded to a whole 8-bit value (to nearest, ties to even, as the float
/// unit rounds) and clamped to 0 … 255.
static float texel(float x) {
    float whole = rintf(x);
    return whole < 0 ? 0 : whole > 255 ? 255 : whole;
}

/// GPUImage's alpha (0 … 256) of a pixel with luma y and GL_LINEAR chroma (u16, v16) in 1/16 steps.
static int key_alpha(const MWKeyParams *p, int y, int u16, int v16) {
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
    // 1.5·2²³ + 256, where a float's step is 1 (rounding 256 − s first and then to a whole number could round twice).
    const float whole = 12582912.0f;
    return (int)(((whole + 256) - t * t * (768 - 512 * t)) - whole);
}

/// GL_LINEAR at a pixel of block k, in 1/16 steps: 9/16 of its sample, 3/16 of the horizontal neighbour on its
/// side (dx) and of the vertical one (dy), 1/16 of the diagonal; samples beyond the row's ends are its ends'.
static int linear(const uint8_t *const rows[3], long k, int dx, int dy, long width) {
    long side = clamp_index(dx ? k + 1 : k - 1, width);
    const uint8_t *own = rows[1], *other = rows[dy ? 2 : 0];
    return 9 * own[k] + 3 * own[side] + 3 * other[k] + other[side];
}

/// Keys block k of a row: its four pixels blended by their own alphas, its chroma the 2×2 average of theirs.
/// A picture of odd width has one pixel in its last block: the missing pixel is keyed as the luma beside it
/// and counts in the chroma's average, but is not written.
static void key_block(const MWKeyParams *p, const MWKeyRow *row, long k) {
    const long width = row->chromaWidth;
    const uint8_t *fxLuma[2] = {row->lumaTop, row->lumaBottom}, *baseLuma[2] = {row->baseLumaTop, row->baseLumaBottom};
    uint8_t *outLuma[2] = {row->outTop, row->outBottom};
    int sumU = 0, sumV = 0;
    for (int dy = 0; dy < 2; dy++) {
        for (int dx = 0; dx < 2; dx++) {
            long x = 2 * k + dx, inside = x < row->lumaWidth ? x : row->lumaWidth - 1;
            int u = linear(row->fxU, k, dx, dy, width), v = linear(row->fxV, k, dx, dy, width);
            int a = key_alpha(p, fxLuma[dy][inside], u, v);
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

HIDDEN void mw_key_spans_ref(const MWKeyParams *params, const MWKeyRow *row, int fewEdges) {
    const long width = row->chromaWidth;
    for (long span = 0; span < width; span += 8) {
        int edges = 0;
        for (long k = span; k < span + 8 && k < width; k++) edges += (row->isEdge[k] & MW_EDGE) != 0;
        if (edges <= fewEdges) continue;
        for (long k = span; k < span + 8 && k < width; k++) {
            if (!(row->isEdge[k] & MW_EDGE)) continue;
            key_block(params, row, k);
            row->isEdge[k] |= MW_KEYED;
        }
    }
}

HIDDEN void mw_key_blocks_ref(const MWKeyParams *params, const MWKeyRow *row) {
    for (long k = 0; k < row->chromaWidth; k++) {
        if (row->isEdge[k] != MW_EDGE) continue;
        key_block(params, row, k);
        row->isEdge[k] |= MW_KEYED;
    }
}

// MARK: the edge map

HIDDEN void mw_neighbourhood_ref(const uint8_t *p, uint8_t *lows, uint8_t *highs, long n) {
    for (long x = 0; x < n; x++) {
        uint8_t a = p[clamp_index(x - 1, n)], b = p[x], c = p[clamp_index(x + 1, n)];
        lows[x] = min8(min8(a, b), c);
        highs[x] = max8(max8(a, b), c);
    }
}

HIDDEN MWEdgeSummary mw_edge_row_ref(const MWEdgeRow *r) {
    MWEdgeSummary summary = {.hasEdges = 0, .anyAlpha = 0, .allAlpha = 0xFFFF};
    for (long x = 0; x < r->width; x++) {
        uint32_t e = r->table[(uint32_t)r->u[x] << 8 | r->v[x]];
        uint16_t alpha = (uint16_t)(e & 0x1FF);
        uint8_t margin = (e >> 9) & 0x7F, low = (uint8_t)(e >> 16), high = (uint8_t)(e >> 24);
        // The block's lumas (one column of them in a picture of odd width's last block).
        uint8_t lumaMin = 255, lumaMax = 0;
        for (long lx = 2 * x; lx < 2 * x + 2 && lx < r->lumaWidth; lx++) {
            lumaMin = min8(lumaMin, min8(r->lumaTop[lx], r->lumaBottom[lx]));
            lumaMax = max8(lumaMax, max8(r->lumaTop[lx], r->lumaBottom[lx]));
        }
        // The chroma's spread over the 3×3 neighbourhood, the larger of U's and V's.
        uint8_t spread = 0;
        const uint8_t *const *mins[2] = {r->uMin, r->vMin}, *const *maxs[2] = {r->uMax, r->vMax};
        for (int plane = 0; plane < 2; plane++) {
            uint8_t low3 = 255, high3 = 0;
            for (int row = 0; row < 3; row++) {
                low3 = min8(low3, mins[plane][row][x]);
                high3 = max8(high3, maxs[plane][row][x]);
            }
            spread = max8(spread, (uint8_t)(high3 - low3));
        }
        int holds = (margin > spread || spread == 0) && lumaMin >= low && lumaMax <= high;
        r->alpha[x] = alpha;
        r->isEdge[x] = (uint8_t)!holds;
        summary.hasEdges |= (uint8_t)!holds;
        summary.anyAlpha |= alpha;
        summary.allAlpha &= alpha;
    }
    return summary;
}

// MARK: the rest of the row

HIDDEN void mw_mix_rest_ref(const MWMixRow *r) {
    const uint8_t *fx[2] = {r->fxTop, r->fxBottom}, *base[2] = {r->baseTop, r->baseBottom};
    uint8_t *out[2] = {r->outTop, r->outBottom};
    for (long cx = 0; cx < r->chromaWidth; cx++) {
        if (r->kind[cx] & MW_KEYED) continue;
        uint16_t a = r->alpha[cx];
        r->outU[cx] = mix(r->fxU[cx], r->baseU[cx], a);
        r->outV[cx] = mix(r->fxV[cx], r->baseV[cx], a);
        for (long x = 2 * cx; x < 2 * cx + 2 && x < r->lumaWidth; x++) {
            for (int t = 0; t < 2; t++) out[t][x] = mix(fx[t][x], base[t][x], a);
        }
    }
}
