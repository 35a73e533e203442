// The kernel's scalar reference (level 0 of the table, KeyKernel.h): each exported function written again from
// its formulas, a block or a pixel at a time, with no vectors, no chunks and no padded copies, as dav1d and
// FFmpeg keep a C version of every assembly function. The kernel test (checkasm's habit) runs every level this
// CPU has against it, bit for bit. Float steps are the formulas' own, in the same order and in single precision,
// without fused multiply-add, so the reference is exact, not merely close.
#include "KeyBlock.h"
#include "KeyKernel.h"
#include "Levels.h"

#pragma clang fp contract(off)

static uint8_t min8(uint8_t a, uint8_t b) { return a < b ? a : b; }
static uint8_t max8(uint8_t a, uint8_t b) { return a > b ? a : b; }

// MARK: the span kernel (key_block: KeyBlock.h)

HIDDEN void mw_key_spans_ref(const MWKeyParams *params, const MWKeyRow *row, int fewEdges) {
    const long width = row->chromaWidth;
    for (long span = 0; span < width; span += 8) {
        int edges = 0;
        for (long k = span; k < span + 8 && k < width; k++) edges += (row->isEdge[k] & MW_EDGE) != 0;
        if (edges <= fewEdges) continue;
        for (long k = span; k < span + 8 && k < width; k++) {
            if (!(row->isEdge[k] & MW_EDGE)) continue;
            key_block(params, row, k, 0);
            row->isEdge[k] |= MW_KEYED;
        }
    }
}

HIDDEN void mw_key_blocks_ref(const MWKeyParams *params, const MWKeyRow *row) { key_blocks_with(params, row, 0); }

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
