// The fine keyer's step 7 (FineKeyer.h) on any matte: garbage rectangles and choke (the feather is Feather.c's).
#include "FineParts.h"

/// Step 7: outside every garbage rectangle, alpha 0.
static void garbage(const MWFineParams *p, uint8_t *alpha, long stride, int w, int h, uint8_t *line) {
    for (int y = 0; y < h; y++) {
        uint8_t *row = alpha + (long)y * stride;
        memset(line, 0, w);
        for (int i = 0; i < p->garbageCount; i++) {
            const int32_t *g = p->garbage + 4 * i;
            if (y < g[1] || y >= g[1] + g[3]) continue;
            int x0 = clampi(g[0], 0, w), x1 = clampi(g[0] + g[2], 0, w);
            if (x1 > x0) memset(line + x0, 1, x1 - x0);
        }
        for (int x = 0; x < w; x++) row[x] = line[x] ? row[x] : 0;
    }
}

/// The minimum (choke) or mean over 2r + 1 samples of n, `step` bytes apart, the edge repeated.
static void filter_line(uint8_t *p, long step, int n, int r, int mean, uint8_t *scratch) {
    for (int i = 0; i < n; i++) scratch[i] = p[i * step];
    for (int i = 0; i < n; i++) {
        int lo = 255, sum = 0;
        for (int j = -r; j <= r; j++) {
            int v = scratch[clampi(i + j, 0, n - 1)];
            lo = v < lo ? v : lo;
            sum += v;
        }
        p[i * step] = mean ? (uint8_t)((sum + r) / (2 * r + 1)) : (uint8_t)lo;
    }
}

/// See FineKeyer.h. The matte shrunk by `choke` pixels (a square's minimum); the feather is mw_matte_feather's.
void mw_fine_matte(const MWFineParams *p, uint8_t *alpha, long stride, int w, int h, uint8_t *line) {
    if (p->garbageCount > 0) garbage(p, alpha, stride, w, h, line);
    if (p->choke <= 0) return;
    for (int y = 0; y < h; y++) filter_line(alpha + (long)y * stride, 1, w, p->choke, 0, line);
    for (int x = 0; x < w; x++) filter_line(alpha + x, stride, h, p->choke, 0, line);
}
