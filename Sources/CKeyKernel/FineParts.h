// What the fine keyer's files share (not part of the target's public header): its tuned constants, its scratch by
// name (the keyer's planes at chroma resolution, on the fields' grid, a tile's window and its pixels), and the small
// helpers every step uses. The steps: FineFields.h (1 to 3, the picture-wide fields on their grid), FinePlate.c (a clean
// plate as the screen), FineWindow.h (a mixed tile's window: the fields brought to it, the solid core, the guided
// filters, its pixels through the core), FineTiles.h (what each tile is, plain tiles written as they are),
// FineSteady.c (6: the matte over the frames), FineMatte.c (7: garbage and choke); FineKeyer.c compiles them at each
// level, FineKeyerRef.c as the scalar reference.
#ifndef MIXWRITE_FINE_PARTS_H
#define MIXWRITE_FINE_PARTS_H

#include "FineKeyer.h"
#include "FineCore.h"
#include "Levels.h"

#include <stdlib.h>
#include <string.h>

#pragma clang fp contract(off)

// The tuned constants, chosen on the tune half of research/key-truth-set.py.
enum {
    CELL = 4,            ///< a field's cell: CELL × CELL chroma samples (8 × 8 pixels in 4:2:0)
    SCREEN_CELLS = 2,    ///< the screen field's reach, in cells (about 16 pixels)
    FORE_CELLS = 1,      ///< the foreground field's reach, in cells
    CORE_SAMPLES = 2,    ///< the solid core's reach, in chroma samples
};
static const float CLEAR_KEY = 0.65f;         ///< clear screen: a colour difference at least this share of the key colour's
static const float CLEAR_SATURATION = 0.8f;   ///< clear screen: a colour difference for its luma at least this share of the key's
static const float CLEAR_LOCAL = 0.95f;       ///< clear screen, second pass: at least this share of the screen field's colour difference there
static const float OPAQUE = 0.98f;            ///< a colour-difference matte from which a sample is opaque subject (alpha)
static const float CORE_LEAST = 0.75f;        ///< the solid core's least matte (alpha)
static const float MATTE_EPS = 0.5f;          ///< the matte's guided filter's ε (luma in 8-bit units, against alpha)
static const float CHROMA_EPS = 0.25f;        ///< the chroma's guided filter's ε (luma in 8-bit units, against chroma)
static const float CHROMA_FIT = 0.04f;        ///< a window's chroma follows luma's line where it fits within this (chroma units)
static const float SCREEN_LUMA = 0.02f;       ///< a plain screen tile's luma strays at most this far from the screen's (luma units)

/// A tile: TILE × TILE chroma samples, worked in a window APRON samples wider on each side (the guided filters' two
/// box filters and the core's reach need them), WIN samples square; its pixels PIX × PIX at most.
enum { TILE = 8, APRON = 3, WIN = TILE + 2 * APRON, WIN_N = WIN * WIN, PIX = 2 * TILE, PIX_N = PIX * PIX };

/// The fields' grid (gw × gh cells): a pass's sums of y, u, v and their share of a cell (the channels are linear in
/// them), the screen field and the foreground field (channels), where the screen is near (0 … 1), each cell's screen
/// luma (8-bit units), its least and most colour-difference matte, its least and most pixel luma, and scratch.
typedef struct {
    float *sum[4], *screen[3], *fore[3], *near, *screenLuma, *matteLow, *matteHigh, *lumaLow, *lumaHigh, *scratch;
} Grid;
enum { GRID_PLANES = 17 };

/// A tile's window (ww × wh samples of WIN × WIN): the samples' luma (8-bit units) and colour difference, the screen
/// and foreground fields and where the screen is near, the colour-difference matte and the solid core, luma's means
/// (of luma and its square), the guided filters' coefficients (the matte's; u's and v's with their fit), u and v, and
/// scratch for the filters and the boxes.
typedef struct {
    float luma[WIN_N], diff[WIN_N], screen[3][WIN_N], fore[3][WIN_N], near[WIN_N], matte[WIN_N], core[WIN_N];
    float meanLuma[WIN_N], meanLuma2[WIN_N], guideA[WIN_N], guideB[WIN_N], u[WIN_N], v[WIN_N];
    float uA[WIN_N], uB[WIN_N], vA[WIN_N], vB[WIN_N], uFit[WIN_N], vFit[WIN_N], scratch[WIN_N], boxScratch[WIN_N];
} Window;

/// A tile's planes at its pixels (rows as wide as the tile): the core's inputs (the guided filter's a and b, u and v,
/// luma's mean, the fields, where the screen is near, the solid core), scratch for the chroma's upsampling, and the
/// core's outputs (alpha, luma, alpha-weighted u and v).
typedef struct {
    float a[PIX_N], b[PIX_N], u[PIX_N], v[PIX_N], meanLuma[PIX_N], scratch[PIX_N], fit[PIX_N], bilinear[PIX_N];
    float screen[3][PIX_N], fore[3][PIX_N], near[PIX_N], core[PIX_N];
    float alpha[PIX_N], y[PIX_N], outU[PIX_N], outV[PIX_N];
} Pixels;

/// Where a tile is: its window (chroma samples wx, wy on, ww × wh) and its pixels (px0, py0 on, pn × pm).
typedef struct {
    int wx, wy, ww, wh, px0, py0, pn, pm;
} Place;

/// One thread's tiles' scratch: the tile's place, its window's planes, its pixel planes and its luma. Each step is
/// handed the place and the planes it reads and writes, never the whole.
typedef struct {
    Place at;
    Window win;
    Pixels px;
    uint8_t luma[PIX_N];
} Tile;

/// One thread's scratch for the fields' rows of cells (FineFields.h): a row of sums per sample column (y, u, v, count;
/// the matte's least and most), a row of thresholds, each pixel column's least and most luma over a cell's rows.
typedef struct {
    float *sums, *cells;
    uint8_t *columnLow, *columnHigh;
} Rows;

enum { WORKERS = 2 };

struct MWFineKeyer {
    int w, h, cw, ch, gw, gh;
    /// Each chroma sample's luma (its 2 × 2 pixels' mean, 8-bit units) and colour difference.
    float *luma, *diff;
    Grid grid;
    /// The grid's planes in one block; the push-pull pyramid above the grid.
    float *gridPlanes, *pyramid;
    Rows rows[WORKERS];
    Tile tiles[WORKERS];
    /// The matte's scratch line; each cell's foreground colour in bytes (luma, u, v: a plain screen tile's).
    uint8_t *line, *foreY, *foreU, *foreV;
    /// The clean plate (mw_fine_plate), or NULL: its channels at chroma resolution (denoised) and each cell's mean.
    float *plate[3], *plateCells[3];
};

INLINE int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
INLINE float clampf(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
INLINE uint8_t byte_of(float x) { return x <= 0.f ? 0 : x >= 255.f ? 255 : (uint8_t)(x + 0.5f); }
INLINE float difference(float c0, float c1, float c2) { return c1 - (c0 > c2 ? c0 : c2); }

/// A chroma sample's alpha as it is laid (4:2:0): the mean of its 2 × 2 pixels' bytes in `a8` (rows of n), rows j and
/// j1, columns i and i1 (the last row or column repeated at the picture's edge), rounded down.
INLINE uint32_t sample_alpha(const uint8_t *a8, int n, int j, int j1, int i, int i1) {
    return ((uint32_t)a8[j * n + i] + a8[j * n + i1] + a8[j1 * n + i] + a8[j1 * n + i1]) >> 2;
}

/// A chroma sample's channels from its luma (its pixels' mean, 8-bit units) and its u and v bytes (FineKeyer.h's
/// c[k] = (Y − lumaZero)·lumaScale + u·perU[k] + v·perV[k]).
INLINE void sample_channels(const MWFineParams *p, float luma, uint8_t u, uint8_t v, float c[3]) {
    float yl = (luma - p->lumaZero) * p->lumaScale;
    float uu = ((float)u - 128.f) * p->chromaScale, vv = ((float)v - 128.f) * p->chromaScale;
    for (int j = 0; j < 3; j++) c[j] = yl + uu * p->perU[j] + vv * p->perV[j];
}

/// The colour-difference matte: 1 − D / D(screen) (`inverse`: 1 / D(screen)), its ends kneed. (A stretch from
/// 0.05 … 0.95 to 0 … 1, as before, took 0.05 × (1 − x) off every translucent pixel as it cleared the screen's noise:
/// smoke at 0.19 read 0.10 after the core's own floor, a 0.36 glass disc 0.32.)
INLINE float colour_matte(float diff, float inverse) { return fine_knee(1.f - diff * inverse, 0.05f, 0.05f); }
INLINE float inverse_of(float screenDiff) { return 1.f / (screenDiff > 1e-3f ? screenDiff : 1e-3f); }

/// The mean over 2r + 1 samples of n, `step` apart, the edge repeated outside, into out (a running sum).
INLINE void box_line(const float *src, long step, int n, int r, float *out, long outStep) {
    float sum = 0.f, scale = 1.f / (float)(2 * r + 1);
    for (int i = -r; i <= r; i++) sum += src[clampi(i, 0, n - 1) * step];
    for (int i = 0; i < n; i++) {
        out[i * outStep] = sum * scale;
        sum += src[clampi(i + r + 1, 0, n - 1) * step] - src[clampi(i - r, 0, n - 1) * step];
    }
}

/// The mean over 3 × 3 samples of a w × h plane (w, h ≥ 2), the edge repeated outside: along rows into tmp (the whole
/// plane as one line, then each row's ends mended), then between rows (loops the compiler vectorizes). Unless `mend`,
/// each row's first and last sample are left as the line made them (a window whose edge columns no used sample
/// reaches).
INLINE void box3(const float *src, float *dst, float *restrict tmp, int w, int h, int mend) {
    const float third = 1.f / 3.f;
    int n = w * h;
    for (int i = 1; i < n - 1; i++) tmp[i] = (src[i - 1] + src[i] + src[i + 1]) * third;
    tmp[0] = (2.f * src[0] + src[1]) * third, tmp[n - 1] = (src[n - 2] + 2.f * src[n - 1]) * third;
    for (int y = 0; y < h && mend; y++) {
        const float *s = src + (long)y * w;
        float *o = tmp + (long)y * w;
        o[0] = (2.f * s[0] + s[1]) * third;
        o[w - 1] = (s[w - 2] + 2.f * s[w - 1]) * third;
    }
    for (int x = 0; x < w; x++) dst[x] = (tmp[x] + tmp[x] + tmp[w + x]) * third;
    for (int i = w; i < n - w; i++) dst[i] = (tmp[i - w] + tmp[i] + tmp[i + w]) * third;
    for (int i = n - w; i < n; i++) dst[i] = (tmp[i - w] + tmp[i] + tmp[i]) * third;
}

/// `box_line` down each of n columns (n ≤ BOX_COLUMNS) of a w-wide plane h rows high from src, into dst: each column's
/// running sum the same as box_line's, a row of them added at a time (loads and stores along rows, a loop the compiler
/// vectorizes), so the same bits.
enum { BOX_COLUMNS = 16 };
INLINE void box_columns(const float *restrict src, float *restrict dst, int w, int h, int r, const int n) {
    float sum[BOX_COLUMNS], scale = 1.f / (float)(2 * r + 1);
    for (int j = 0; j < n; j++) sum[j] = 0.f;
    for (int i = -r; i <= r; i++) {
        const float *row = src + (long)clampi(i, 0, h - 1) * w;
        for (int j = 0; j < n; j++) sum[j] += row[j];
    }
    for (int y = 0; y < h; y++) {
        const float *in = src + (long)clampi(y + r + 1, 0, h - 1) * w, *out = src + (long)clampi(y - r, 0, h - 1) * w;
        float *d = dst + (long)y * w;
        for (int j = 0; j < n; j++) d[j] = sum[j] * scale, sum[j] += in[j] - out[j];
    }
}

/// The mean over (2r + 1)² samples of a w × h plane, the edge repeated outside (rows into tmp, then columns, BOX_COLUMNS
/// at a time).
INLINE void box(const float *src, float *dst, float *tmp, int w, int h, int r) {
    if (r == 1 && w >= 2 && h >= 2) { box3(src, dst, tmp, w, h, 1); return; }
    for (int y = 0; y < h; y++) box_line(src + (long)y * w, 1, w, r, tmp + (long)y * w, 1);
    int x = 0;
    for (; x + BOX_COLUMNS <= w; x += BOX_COLUMNS) box_columns(tmp + x, dst + x, w, h, r, BOX_COLUMNS);
    if (x < w) box_columns(tmp + x, dst + x, w, h, r, w - x);
}

/// Step 6's state (FineSteady.c): the last picture's matte as keyed (before step 6) and its fx's planes (luma w × h,
/// chroma cw × ch), and whether there is one.
struct MWFineSteady {
    int w, h, cw, ch, has;
    uint8_t *alpha, *fx[3];
};

/// How far fx's 3 × 3 sums (of Y; of U and V at their samples) may change before a pixel is its own alone: their
/// mean's change 0.04 of the range (chosen on the tune half of research/key-truth-set.py).
enum { STEADY_SPAN = 92 };

/// The absolute change of a plane (w × h) from its last picture's (`last`, rows of w), summed over the 3 × 3 samples
/// around (x, y), the edge repeated outside.
INLINE int steady_change(const uint8_t *plane, long stride, const uint8_t *last, int w, int h, int x, int y) {
    int xs[3] = {x > 0 ? x - 1 : 0, x, x < w - 1 ? x + 1 : w - 1}, sum = 0;
    for (int dy = -1; dy <= 1; dy++) {
        int r = clampi(y + dy, 0, h - 1);
        const uint8_t *q = plane + (long)r * stride, *l = last + (long)r * w;
        for (int i = 0; i < 3; i++) sum += (int)q[xs[i]] - (int)l[xs[i]];
    }
    return sum < 0 ? -sum : sum;
}

/// n / (2 · STEADY_SPAN) rounded to the nearest, halves away from zero, for |n| ≤ 255 · STEADY_SPAN: |n| + 92 ≤ 23552
/// times 91181 (2²⁴ / 184 rounded up) and shifted gives the quotient exactly over that range (FineSteadyTests checks
/// every value).
INLINE int half_span_rounded(int n) {
    int m = n < 0 ? -n : n, q = (int)(((unsigned)(m + STEADY_SPAN) * 91181u) >> 24);
    return n < 0 ? -q : q;
}

/// Step 6 at pixel (x, y) of a picture that follows the kept one, whose matte is `own` (step 5's byte): kept as the
/// last picture's for the next, and moved towards the last picture's by (1 − c / 92) / 2 where c, fx's largest change
/// (Y at the pixel, U and V at its sample), is below 92.
INLINE uint8_t steady_pixel(MWFineSteady *s, const MWFineInput *fx, int x, int y, int own) {
    uint8_t *kept = s->alpha + (long)y * s->w + x;
    int before = *kept;
    *kept = (uint8_t)own;
    if (before == own) return (uint8_t)own;
    int c = steady_change(fx->plane[0], fx->stride[0], s->fx[0], s->w, s->h, x, y);
    int u = steady_change(fx->plane[1], fx->stride[1], s->fx[1], s->cw, s->ch, x >> 1, y >> 1);
    int v = steady_change(fx->plane[2], fx->stride[2], s->fx[2], s->cw, s->ch, x >> 1, y >> 1);
    c = c > u ? c : u, c = c > v ? c : v;
    int weight = c < STEADY_SPAN ? STEADY_SPAN - c : 0;
    return (uint8_t)(own + half_span_rounded((before - own) * weight));
}

/// Step 6 on a run of n matte bytes from (x0, y), in place: each byte the last picture's differs from goes through
/// `steady_pixel` (compared eight at a time, so plain screen and plain subject, the same as the last picture's, are left
/// as they are whatever fx did); without `filter` (no picture kept before it) the run is only kept for the next.
INLINE void steady_run(MWFineSteady *s, const MWFineInput *fx, uint8_t *run, int x0, int y, int n, int filter) {
    uint8_t *kept = s->alpha + (long)y * s->w + x0;
    if (!filter) { memcpy(kept, run, n); return; }
    for (int i0 = 0; i0 < n; i0 += 8) {
        int m = n - i0 < 8 ? n - i0 : 8;
        if (m == 8 && memcmp(run + i0, kept + i0, 8) == 0) continue;
        for (int i = i0; i < i0 + m; i++) run[i] = steady_pixel(s, fx, x0 + i, y, run[i]);
    }
}

/// A pass of the picture-wide steps (a part's rows of cells, then the grid's) and a part's tiles at each level, and as
/// the scalar reference (FineKeyerRef.c).
DECLARE_LEVELS(void, fine_rows, (MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass, int part, int parts))
DECLARE_LEVELS(void, fine_grid, (MWFineKeyer *k, const MWFineParams *p, int pass))
DECLARE_LEVELS(void, fine_tiles, (MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out,
                                  MWFineCore core, int part, int parts))

#endif
