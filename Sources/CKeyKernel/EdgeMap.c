// See KeyKernel.h: the edge map's row (ChromaKeyBlend's EdgeMap in MixWrite) for the same instruction sets as
// the span kernel (Levels.h). Its loops take 16 samples at a time in explicit vectors (written plainly, plain x86-64
// left the main loop scalar); the neighbourhood's simple loop the compiler vectorizes by itself.
#include "KeyKernel.h"
#include "Levels.h"
#include "Vectors.h"

INLINE uint8_t min8(uint8_t a, uint8_t b) { return a < b ? a : b; }
INLINE uint8_t max8(uint8_t a, uint8_t b) { return a > b ? a : b; }

INLINE void neighbourhood(const uint8_t *restrict p, uint8_t *restrict lows, uint8_t *restrict highs, long n,
                          const int level) {
    (void)level;
    if (n == 1) {
        lows[0] = highs[0] = p[0];
        return;
    }
    lows[0] = min8(p[0], p[1]);
    highs[0] = max8(p[0], p[1]);
    for (long x = 1; x < n - 1; x++) {
        lows[x] = min8(min8(p[x - 1], p[x]), p[x + 1]);
        highs[x] = max8(max8(p[x - 1], p[x]), p[x + 1]);
    }
    lows[n - 1] = min8(p[n - 2], p[n - 1]);
    highs[n - 1] = max8(p[n - 2], p[n - 1]);
}


/// max − min over three rows of neighbourhood maxima and minima, 16 samples from x.
INLINE u8x16 spread16(const uint8_t *const mins[3], const uint8_t *const maxs[3], long x) {
    u8x16 high = max_u8x16(max_u8x16(load_u8x16(maxs[0] + x), load_u8x16(maxs[1] + x)), load_u8x16(maxs[2] + x));
    u8x16 low = min_u8x16(min_u8x16(load_u8x16(mins[0] + x), load_u8x16(mins[1] + x)), load_u8x16(mins[2] + x));
    return high - low;
}

/// One block's verdict, as in the vector loop: 1 when it is an edge.
INLINE uint8_t edge_of(uint32_t e, uint8_t spread, uint8_t lumaMin, uint8_t lumaMax) {
    uint8_t margin = (uint8_t)((e >> 9) & 0x7F), low = (uint8_t)(e >> 16), high = (uint8_t)(e >> 24);
    uint8_t chromaHolds = margin > spread || spread == 0;
    uint8_t lumaHolds = lumaMin >= low && lumaMax <= high;
    return (chromaHolds & lumaHolds) ^ 1;
}

/// The smallest and largest luma of each block's pixels (one column of them in a picture of odd width's last block).
INLINE void luma_ranges(const MWEdgeRow *r) {
    const long width = r->width, pairs = r->lumaWidth / 2;
    const uint8_t *top = r->lumaTop, *bottom = r->lumaBottom;
    uint8_t *lumaMin = r->lumaMin, *lumaMax = r->lumaMax;
    // Two rows of 32 lumas, the smaller and larger of each column, then of each block's two columns (even and
    // odd bytes).
    long x = 0;
    for (; x + 16 <= pairs; x += 16) {
        u8x32 t = load_u8x32(top + 2 * x), b = load_u8x32(bottom + 2 * x);
        u8x32 lower = min_u8x32(t, b), upper = max_u8x32(t, b);
        u8x16 lo = min_u8x16(EVEN_OF_32(lower), ODD_OF_32(lower)), hi = max_u8x16(EVEN_OF_32(upper), ODD_OF_32(upper));
        memcpy(lumaMin + x, &lo, sizeof lo);
        memcpy(lumaMax + x, &hi, sizeof hi);
    }
    for (; x < pairs; x++) {
        lumaMin[x] = min8(min8(top[2 * x], top[2 * x + 1]), min8(bottom[2 * x], bottom[2 * x + 1]));
        lumaMax[x] = max8(max8(top[2 * x], top[2 * x + 1]), max8(bottom[2 * x], bottom[2 * x + 1]));
    }
    if (r->lumaWidth % 2 == 1) {
        x = width - 1;
        lumaMin[x] = min8(top[2 * x], bottom[2 * x]);
        lumaMax[x] = max8(top[2 * x], bottom[2 * x]);
    }
}

INLINE MWEdgeSummary edge_row(const MWEdgeRow *r, const int level) {
    (void)level;
    const long width = r->width;
    uint8_t *lumaMin = r->lumaMin, *lumaMax = r->lumaMax, *isEdge = r->isEdge;
    uint32_t *entries = r->entries;
    uint16_t *alpha = r->alpha;
    for (long x = 0; x < width; x++) entries[x] = r->table[(uint32_t)r->u[x] << 8 | r->v[x]];
    luma_ranges(r);
    long x = 0;
    const uint8_t *uMin[3] = {r->uMin[0], r->uMin[1], r->uMin[2]}, *uMax[3] = {r->uMax[0], r->uMax[1], r->uMax[2]};
    const uint8_t *vMin[3] = {r->vMin[0], r->vMin[1], r->vMin[2]}, *vMax[3] = {r->vMax[0], r->vMax[1], r->vMax[2]};
    u8x16 anyEdge = {0};
    u16x16 anyAlpha = {0}, allAlpha = ~(u16x16){0};
    for (; x + 16 <= width; x += 16) {
        u32x16 e;
        memcpy(&e, entries + x, sizeof e);
        u16x16 a = __builtin_convertvector(e & 0x1FF, u16x16);
        memcpy(alpha + x, &a, sizeof a);
        anyAlpha |= a;
        allAlpha &= a;
        u8x16 margin = __builtin_convertvector((e >> 9) & 0x7F, u8x16);
        u8x16 low = __builtin_convertvector((e >> 16) & 0xFF, u8x16), high = __builtin_convertvector(e >> 24, u8x16);
        u8x16 spread = max_u8x16(spread16(uMin, uMax, x), spread16(vMin, vMax, x));
        u8x16 chromaHolds = (u8x16)(margin > spread) | (u8x16)(spread == 0);
        u8x16 lumaHolds = (u8x16)(load_u8x16(lumaMin + x) >= low) & (u8x16)(load_u8x16(lumaMax + x) <= high);
        u8x16 edge = ~(chromaHolds & lumaHolds) & 1;
        memcpy(isEdge + x, &edge, sizeof edge);
        anyEdge |= edge;
    }
    uint8_t any = 0;
    uint16_t anyA = 0, allA = 0xFFFF;
    for (int i = 0; i < 16; i++) {
        any |= anyEdge[i];
        anyA |= anyAlpha[i];
        allA &= allAlpha[i];
    }
    for (; x < width; x++) {
        uint32_t e = entries[x];
        uint16_t a = (uint16_t)(e & 0x1FF);
        alpha[x] = a;
        anyA |= a;
        allA &= a;
        uint8_t uSpread = (uint8_t)(max8(max8(uMax[0][x], uMax[1][x]), uMax[2][x]) - min8(min8(uMin[0][x], uMin[1][x]), uMin[2][x]));
        uint8_t vSpread = (uint8_t)(max8(max8(vMax[0][x], vMax[1][x]), vMax[2][x]) - min8(min8(vMin[0][x], vMin[1][x]), vMin[2][x]));
        isEdge[x] = edge_of(e, max8(uSpread, vSpread), lumaMin[x], lumaMax[x]);
        any |= isEdge[x];
    }
    return (MWEdgeSummary){.hasEdges = any, .anyAlpha = anyA, .allAlpha = allA};
}

COMPILED_AT_LEVELS(void, neighbourhood, (const uint8_t *p, uint8_t *lows, uint8_t *highs, long n), p, lows, highs, n)
COMPILED_AT_LEVELS(MWEdgeSummary, edge_row, (const MWEdgeRow *r), r)
