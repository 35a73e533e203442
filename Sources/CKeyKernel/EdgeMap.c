// See KeyKernel.h: the edge map's row (ChromaKeyBlend's EdgeMap in MixWrite) for the same instruction sets as
// the span kernel (Levels.h). Its loops take 16 samples at a time in explicit vectors (written plainly, plain x86-64
// left the main loop scalar); the neighbourhood's simple loop the compiler vectorizes by itself.
#include "KeyKernel.h"

#include <string.h>

#include "Levels.h"

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

typedef uint8_t b16 __attribute__((vector_size(16)));
typedef uint8_t b32 __attribute__((vector_size(32)));
typedef uint16_t w16 __attribute__((vector_size(32)));
typedef uint32_t u16x __attribute__((vector_size(64)));

INLINE b16 load16(const uint8_t *p) {
    b16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE b16 bmin(b16 a, b16 b) { return (a & (b16)(a < b)) | (b & (b16)(a >= b)); }
INLINE b16 bmax(b16 a, b16 b) { return (a & (b16)(a > b)) | (b & (b16)(a <= b)); }
INLINE b32 bmin32(b32 a, b32 b) { return (a & (b32)(a < b)) | (b & (b32)(a >= b)); }
INLINE b32 bmax32(b32 a, b32 b) { return (a & (b32)(a > b)) | (b & (b32)(a <= b)); }

/// The even bytes (each block's left pixel) and the odd ones (its right pixel) of 32.
#define EVEN(v) __builtin_shufflevector(v, v, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
#define ODD(v) __builtin_shufflevector(v, v, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)

/// max − min over three rows of neighbourhood maxima and minima, 16 samples from x.
INLINE b16 spread16(const uint8_t *const mins[3], const uint8_t *const maxs[3], long x) {
    b16 high = bmax(bmax(load16(maxs[0] + x), load16(maxs[1] + x)), load16(maxs[2] + x));
    b16 low = bmin(bmin(load16(mins[0] + x), load16(mins[1] + x)), load16(mins[2] + x));
    return high - low;
}

/// One block's verdict, as in the vector loop: 1 when it is an edge.
INLINE uint8_t edge_of(uint32_t e, uint8_t spread, uint8_t lumaMin, uint8_t lumaMax) {
    uint8_t margin = (uint8_t)((e >> 9) & 0x7F), low = (uint8_t)(e >> 16), high = (uint8_t)(e >> 24);
    uint8_t chromaHolds = margin > spread || spread == 0;
    uint8_t lumaHolds = lumaMin >= low && lumaMax <= high;
    return (chromaHolds & lumaHolds) ^ 1;
}

INLINE MWEdgeSummary edge_row(const MWEdgeRow *r, const int level) {
    (void)level;
    const long width = r->width, pairs = r->lumaWidth / 2;
    const uint8_t *top = r->lumaTop, *bottom = r->lumaBottom;
    uint8_t *lumaMin = r->lumaMin, *lumaMax = r->lumaMax, *isEdge = r->isEdge;
    uint32_t *entries = r->entries;
    uint16_t *alpha = r->alpha;
    for (long x = 0; x < width; x++) entries[x] = r->table[(uint32_t)r->u[x] << 8 | r->v[x]];
    // The lumas of each block's pixels: two rows of 32 lumas, the smaller and larger of each column, then of each
    // block's two columns (even and odd bytes).
    long x = 0;
    for (; x + 16 <= pairs; x += 16) {
        b32 t, b;
        memcpy(&t, top + 2 * x, sizeof t);
        memcpy(&b, bottom + 2 * x, sizeof b);
        b32 lower = bmin32(t, b), upper = bmax32(t, b);
        b16 lo = bmin(EVEN(lower), ODD(lower)), hi = bmax(EVEN(upper), ODD(upper));
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
    const uint8_t *uMin[3] = {r->uMin[0], r->uMin[1], r->uMin[2]}, *uMax[3] = {r->uMax[0], r->uMax[1], r->uMax[2]};
    const uint8_t *vMin[3] = {r->vMin[0], r->vMin[1], r->vMin[2]}, *vMax[3] = {r->vMax[0], r->vMax[1], r->vMax[2]};
    b16 anyEdge = {0};
    w16 anyAlpha = {0}, allAlpha = ~(w16){0};
    for (x = 0; x + 16 <= width; x += 16) {
        u16x e;
        memcpy(&e, entries + x, sizeof e);
        w16 a = __builtin_convertvector(e & 0x1FF, w16);
        memcpy(alpha + x, &a, sizeof a);
        anyAlpha |= a;
        allAlpha &= a;
        b16 margin = __builtin_convertvector((e >> 9) & 0x7F, b16);
        b16 low = __builtin_convertvector((e >> 16) & 0xFF, b16), high = __builtin_convertvector(e >> 24, b16);
        b16 spread = bmax(spread16(uMin, uMax, x), spread16(vMin, vMax, x));
        b16 chromaHolds = (b16)(margin > spread) | (b16)(spread == 0);
        b16 lumaHolds = (b16)(load16(lumaMin + x) >= low) & (b16)(load16(lumaMax + x) <= high);
        b16 edge = ~(chromaHolds & lumaHolds) & 1;
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
