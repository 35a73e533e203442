// See FineKeyer.h: the fine keyer's picture-wide steps (colours at chroma resolution, the fields on their grid, which
// tiles are plain screen or plain subject) and each remaining tile's (the fields there, the colour-difference matte,
// the guided filters, the rows through the core), the matte's refinements, and the core compiled at each level.
#include "FineKeyer.h"
#include "FineCore.h"
#include "Levels.h"
#include "Vectors.h"

#include <stdlib.h>
#include <string.h>

#pragma clang fp contract(off)

COMPILED_AT_LEVELS(void, fine_core, (const MWFineParams *p, const MWFineRow *row), p, row)
HIDDEN void mw_fine_core_ref(const MWFineParams *p, const MWFineRow *row);

MWFineCore mw_fine_core(int level) {
    static const MWFineCore cores[5] = {mw_fine_core_ref, mw_fine_core_1, mw_fine_core_2, mw_fine_core_3, mw_fine_core_4};
    return level >= 0 && level <= mw_key_best_level() ? cores[level] : 0;
}

/// The tuned constants (scripts/key-fine-model.py, then the C keyer's own scores): the screen field's reach (cells of
/// CELL × CELL chroma samples, 8 × 8 pixels: 2 reaches about 16 pixels) and the foreground's, what counts as clear screen (first against the key
/// colour, then against the screen around it, which the light varies), opaque, the solid core's least matte and
/// reach, the guided filters' ε (luma in 8-bit units against a matte or chroma) and the chroma line's tolerance, and
/// how far a plain screen tile's luma may stray from the screen's.
enum { CELL = 4, SCREEN_CELLS = 2, FORE_CELLS = 1, CORE_SAMPLES = 2 };
static const float CLEAR_KEY = 0.65f, CLEAR_SATURATION = 0.8f, CLEAR_LOCAL = 0.95f, OPAQUE = 0.98f, CORE_LEAST = 0.75f;
static const float MATTE_EPS = 8.f, CHROMA_EPS = 8.f, CHROMA_FIT = 0.02f, SCREEN_LUMA = 0.02f;

/// A tile: TILE × TILE chroma samples, worked in a window APRON samples wider on each side (the guided filters' two
/// box filters and the core's reach need them), WIN samples square.
enum { TILE = 8, APRON = 3, WIN = TILE + 2 * APRON, WIN_N = WIN * WIN };

/// Planes at chroma resolution (cw × ch), on the fields' grid (gw × gh: CELL × CELL samples a cell), a window's, a
/// tile's. The grid's sums and means are of luma and chroma (y, u, v: the channels are linear in them).
enum { C_LUMA, C_DIFF, C_COUNT };
enum { G_NY, G_NU, G_NV, G_DEN, G_S0, G_S1, G_S2, G_F0, G_F1, G_F2, G_NEAR, G_YS, G_MMIN, G_MMAX, G_LMIN, G_LMAX, G_TMP,
       G_COUNT };
enum { W_LUMA, W_DIFF, W_S0, W_S1, W_S2, W_F0, W_F1, W_F2, W_NEAR, W_MATTE, W_CORE, W_MY, W_MYY, W_GA, W_GB, W_U, W_V,
       W_UA, W_UB, W_VA, W_VB, W_UFIT, W_VFIT, W_T0, W_T3, W_COUNT };
/// A tile's planes at its pixels (rows as wide as the tile, PIX × PIX at most): the core's inputs and outputs.
enum { P_A, P_B, P_U, P_V, P_MY, P_T, P_FIT, P_BIL, P_S0, P_S1, P_S2, P_F0, P_F1, P_F2, P_NEAR, P_CORE, P_ALPHA, P_Y, P_OU, P_OV,
       P_COUNT };
enum { PIX = 2 * TILE, PIX_N = PIX * PIX };

/// One thread's tiles' scratch: a window's planes and its place, the tile's pixel planes, its luma and its place
/// (pixels px0, py0 on, pn × pm).
typedef struct {
    float win[W_COUNT][WIN_N];
    float px[P_COUNT][PIX_N];
    uint8_t luma[PIX_N];
    int wx, wy, ww, wh, px0, py0, pn, pm;
} Tile;

enum { WORKERS = 2 };

struct MWFineKeyer {
    int w, h, cw, ch, gw, gh;
    float *c[C_COUNT], *g[G_COUNT], *pyramid;
    /// A row of sums per sample column (y, u, v, count; the matte's least and most), a row of thresholds.
    float *sums, *cells;
    Tile tiles[WORKERS];
    /// The matte's scratch line; each pixel column's least and most luma over a cell's rows; each cell's foreground
    /// colour in bytes (luma, u, v: a plain screen tile's).
    uint8_t *line, *lumaLow, *lumaHigh, *foreY, *foreU, *foreV;
    /// The clean plate (mw_fine_plate), or NULL: its channels at chroma resolution (denoised) and each cell's mean.
    float *plate[3], *plateCells[3];
};

MWFineKeyer *mw_fine_create(int width, int height) {
    MWFineKeyer *k = calloc(1, sizeof *k);
    if (!k) return 0;
    k->w = width, k->h = height, k->cw = (width + 1) / 2, k->ch = (height + 1) / 2;
    k->gw = (k->cw + CELL - 1) / CELL, k->gh = (k->ch + CELL - 1) / CELL;
    long gn = (long)k->gw * k->gh;
    int ok = 1;
    for (int i = 0; i < C_COUNT; i++) ok &= (k->c[i] = malloc(sizeof(float) * k->cw * k->ch)) != 0;
    for (int i = 0; i < G_COUNT; i++) ok &= (k->g[i] = malloc(sizeof(float) * gn)) != 0;
    ok &= (k->pyramid = malloc(sizeof(float) * 8 * (k->gw + 2) * (k->gh + 2))) != 0;
    ok &= (k->sums = malloc(sizeof(float) * 6 * CELL * k->gw)) != 0;
    ok &= (k->cells = malloc(sizeof(float) * CELL * k->gw)) != 0;
    ok &= (k->line = malloc(width > height ? width : height)) != 0;
    ok &= (k->lumaLow = malloc(2 * CELL * k->gw)) != 0 && (k->lumaHigh = malloc(2 * CELL * k->gw)) != 0;
    ok &= (k->foreY = malloc(gn)) != 0 && (k->foreU = malloc(gn)) != 0 && (k->foreV = malloc(gn)) != 0;
    if (!ok) { mw_fine_free(k); return 0; }
    return k;
}

void mw_fine_free(MWFineKeyer *k) {
    if (!k) return;
    for (int i = 0; i < C_COUNT; i++) free(k->c[i]);
    for (int i = 0; i < G_COUNT; i++) free(k->g[i]);
    free(k->pyramid);
    free(k->sums);
    free(k->cells);
    free(k->line);
    free(k->lumaLow);
    free(k->lumaHigh);
    free(k->foreY);
    free(k->foreU);
    free(k->foreV);
    for (int i = 0; i < 3; i++) free(k->plate[i]), free(k->plateCells[i]);
    free(k);
}

INLINE int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
INLINE float clampf(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
INLINE uint8_t byte_of(float x) { return x <= 0.f ? 0 : x >= 255.f ? 255 : (uint8_t)(x + 0.5f); }
INLINE float difference(float c0, float c1, float c2) { return c1 - (c0 > c2 ? c0 : c2); }

/// The colour-difference matte: 1 − D / D(screen) (`inverse`: 1 / D(screen)), stretched from 0.05 … 0.95 to 0 … 1.
INLINE float colour_matte(float diff, float inverse) { return clampf((1.f - diff * inverse - 0.05f) / 0.9f); }
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

/// The mean over (2r + 1)² samples of a w × h plane, the edge repeated outside (rows into tmp, then columns).
INLINE void box(const float *src, float *dst, float *tmp, int w, int h, int r) {
    if (r == 1 && w >= 2 && h >= 2) { box3(src, dst, tmp, w, h, 1); return; }
    for (int y = 0; y < h; y++) box_line(src + (long)y * w, 1, w, r, tmp + (long)y * w, 1);
    for (int x = 0; x < w; x++) box_line(tmp + x, w, h, r, dst + x, w);
}

/// Step 1: each chroma sample's luma (its 2×2 pixels' mean, in 8-bit units) and colour difference; each cell's least
/// and most pixel luma.
INLINE void chroma_colours(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in) {
    // Sizes in locals: a byte's store may alias any field of k, which would keep these loops from being vectorized.
    int w = k->w, even = w / 2;
    uint8_t *restrict low = k->lumaLow, *restrict high = k->lumaHigh;
    for (int cy = 0; cy < k->ch; cy++) {
        const uint8_t *restrict y0 = in->plane[0] + (long)(2 * cy) * in->stride[0];
        const uint8_t *restrict y1 = in->plane[0] + (long)(2 * cy + 1 < k->h ? 2 * cy + 1 : 2 * cy) * in->stride[0];
        const uint8_t *restrict u = in->plane[1] + (long)cy * in->stride[1], *restrict v = in->plane[2] + (long)cy * in->stride[2];
        float *restrict luma = k->c[C_LUMA] + (long)cy * k->cw, *restrict diff = k->c[C_DIFF] + (long)cy * k->cw;
        if (cy % CELL == 0) memset(low, 255, w), memset(high, 0, w);
        for (int x = 0; x < w; x++) {
            uint8_t a = y0[x] < y1[x] ? y0[x] : y1[x], b = y0[x] < y1[x] ? y1[x] : y0[x];
            low[x] = a < low[x] ? a : low[x], high[x] = b > high[x] ? b : high[x];
        }
        for (int cx = 0; cx < even; cx++) luma[cx] = 0.25f * (float)(y0[2 * cx] + y0[2 * cx + 1] + y1[2 * cx] + y1[2 * cx + 1]);
        // The last sample of an odd width has one pixel across.
        if (even < k->cw) luma[even] = 0.25f * (float)(2 * y0[2 * even] + 2 * y1[2 * even]);
        for (int cx = 0; cx < k->cw; cx++) {
            float yl = (luma[cx] - p->lumaZero) * p->lumaScale;
            float uu = ((float)u[cx] - 128.f) * p->chromaScale, vv = ((float)v[cx] - 128.f) * p->chromaScale;
            float a = yl + uu * p->perU[0] + vv * p->perV[0], b = yl + uu * p->perU[1] + vv * p->perV[1];
            float c = yl + uu * p->perU[2] + vv * p->perV[2];
            diff[cx] = difference(a, b, c);
        }
        if (cy % CELL != CELL - 1 && cy != k->ch - 1) continue;
        float *lmin = k->g[G_LMIN] + (long)(cy / CELL) * k->gw, *lmax = k->g[G_LMAX] + (long)(cy / CELL) * k->gw;
        for (int gx = 0; gx < k->gw; gx++) {
            uint8_t a = 255, b = 0;
            for (int x = 2 * CELL * gx; x < 2 * CELL * (gx + 1) && x < k->w; x++) a = low[x] < a ? low[x] : a, b = high[x] > b ? high[x] : b;
            lmin[gx] = a, lmax[gx] = b;
        }
    }
}

/// Each sample's cell's screen difference in grid row gy (scaled; `inverse`: its inverse, scaled) into a row of samples.
INLINE void cell_row(const MWFineKeyer *k, int gy, float scale, int inverse, float *out) {
    const long g = (long)gy * k->gw;
    for (int gx = 0; gx < k->gw; gx++) {
        float ds = difference(k->g[G_S0][g + gx], k->g[G_S1][g + gx], k->g[G_S2][g + gx]);
        float v = inverse ? scale * inverse_of(ds) : scale * ds;
        for (int i = CELL * gx; i < CELL * gx + CELL; i++) out[i] = v;
    }
}

/// Which samples a pass of the fields sums: clear against the key colour, clear against the screen field there, opaque.
enum { CLEAR_AGAINST_KEY, CLEAR_AGAINST_FIELD, OPAQUE_SAMPLES };

/// Each sample column's sums over `rows` rows from cy0 (y, u, v, count; for the opaque pass also the least and most
/// matte) of the samples `pass` picks against `limit` (a row of thresholds, or of the screen's inverse difference):
/// into sy … high. Against the key a clear sample is also as saturated for its luma as the key (CLEAR_SATURATION of
/// the key's D / Y: light scales both, a translucent grey or smoke over the screen lowers D alone). Written once a
/// column, the rows' loop inside (unrolled for a whole cell's rows).
INLINE void column_sums(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass, const float *restrict limit, int cy0, const int rows,
                        float *restrict sy, float *restrict su, float *restrict sv, float *restrict sn, float *restrict low,
                        float *restrict high) {
    const int cw = k->cw;
    const float *d[CELL], *l[CELL];
    const uint8_t *u[CELL], *v[CELL];
    float perLuma = 0.f;
    if (pass == CLEAR_AGAINST_KEY) {
        float keyLuma = p->luma[0] * p->key[0] + p->luma[1] * p->key[1] + p->luma[2] * p->key[2];
        perLuma = CLEAR_SATURATION * difference(p->key[0], p->key[1], p->key[2]) / (keyLuma > 0.05f ? keyLuma : 0.05f) * p->lumaScale;
    }
    for (int r = 0; r < rows; r++) {
        long cy = cy0 + r;
        d[r] = k->c[C_DIFF] + cy * cw, l[r] = k->c[C_LUMA] + cy * cw;
        u[r] = in->plane[1] + cy * in->stride[1], v[r] = in->plane[2] + cy * in->stride[2];
    }
    for (int cx = 0; cx < cw; cx++) {
        float y = 0.f, uu = 0.f, vv = 0.f, n = 0.f, lo = 1.f, hi = 0.f;
        for (int r = 0; r < rows; r++) {
            float a;
            if (pass == OPAQUE_SAMPLES) {
                float m = colour_matte(d[r][cx], limit[cx]);
                lo = m < lo ? m : lo, hi = m > hi ? m : hi;
                a = m >= OPAQUE ? 1.f : 0.f;
            } else {
                a = d[r][cx] > limit[cx] && d[r][cx] > perLuma * (l[r][cx] - p->lumaZero) ? 1.f : 0.f;
            }
            y += a * l[r][cx], uu += a * (float)u[r][cx], vv += a * (float)v[r][cx], n += a;
        }
        sy[cx] = y, su[cx] = uu, sv[cx] = vv, sn[cx] = n;
        if (pass == OPAQUE_SAMPLES) low[cx] = lo, high[cx] = hi;
    }
}

/// The sums' scratch rows ready for a pass: the columns past the picture's last (a cell's) add nothing; against the
/// key, one threshold everywhere.
INLINE void begin_sums(MWFineKeyer *k, const MWFineParams *p, int pass) {
    int gw = k->gw, cw = k->cw;
    float *sy = k->sums, *su = sy + CELL * gw, *sv = su + CELL * gw, *sn = sv + CELL * gw, *low = sn + CELL * gw, *high = low + CELL * gw;
    for (int cx = cw; cx < CELL * gw; cx++) sy[cx] = su[cx] = sv[cx] = sn[cx] = 0.f, low[cx] = 1.f, high[cx] = 0.f;
    float keyDiff = difference(p->key[0], p->key[1], p->key[2]);
    if (pass == CLEAR_AGAINST_KEY)
        for (int cx = 0; cx < cw; cx++) k->cells[cx] = CLEAR_KEY * keyDiff;
}

/// Grid row gy's sums (G_NY … G_NV, G_DEN: shares of a cell) of the y, u and v of the samples `pass` picks; for the
/// opaque pass also each cell's least and most colour-difference matte (G_MMIN, G_MMAX). Each sample column summed
/// over the cell's rows, then each cell's columns.
INLINE void cell_row_sums(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass, int gy) {
    int gw = k->gw;
    float share = 1.f / (CELL * CELL);
    float *restrict sy = k->sums, *restrict su = sy + CELL * gw, *restrict sv = su + CELL * gw, *restrict sn = sv + CELL * gw;
    float *restrict low = sn + CELL * gw, *restrict high = low + CELL * gw;
    if (pass != CLEAR_AGAINST_KEY) cell_row(k, gy, pass == CLEAR_AGAINST_FIELD ? CLEAR_LOCAL : 1.f, pass == OPAQUE_SAMPLES, k->cells);
    int rows = k->ch - CELL * gy;
    if (rows >= CELL) column_sums(k, p, in, pass, k->cells, CELL * gy, CELL, sy, su, sv, sn, low, high);
    else column_sums(k, p, in, pass, k->cells, CELL * gy, rows, sy, su, sv, sn, low, high);
    long at = (long)gy * gw;
    // The columns' sums of luma (8-bit units) and chroma (bytes) to the grid's, as y, u and v (offset and scaled).
    for (int gx = 0; gx < gw; gx++) {
        const int c = CELL * gx;
        float count = sn[c] + sn[c + 1] + sn[c + 2] + sn[c + 3];
        k->g[G_NY][at + gx] = share * p->lumaScale * (sy[c] + sy[c + 1] + sy[c + 2] + sy[c + 3] - p->lumaZero * count);
        k->g[G_NU][at + gx] = share * p->chromaScale * (su[c] + su[c + 1] + su[c + 2] + su[c + 3] - 128.f * count);
        k->g[G_NV][at + gx] = share * p->chromaScale * (sv[c] + sv[c + 1] + sv[c + 2] + sv[c + 3] - 128.f * count);
        k->g[G_DEN][at + gx] = share * count;
        if (pass != OPAQUE_SAMPLES) continue;
        float lo = low[c], hi = high[c];
        for (int i = 1; i < CELL; i++) lo = low[c + i] < lo ? low[c + i] : lo, hi = high[c + i] > hi ? high[c + i] : hi;
        k->g[G_MMIN][at + gx] = lo, k->g[G_MMAX][at + gx] = hi;
    }
}

/// The grid's sums box-filtered by r cells.
INLINE void box_sums(MWFineKeyer *k, int r) {
    for (int i = 0; i < 4; i++) box(k->g[G_NY + i], k->g[G_NY + i], k->g[G_TMP], k->gw, k->gh, r);
}

/// A pass's sums over the whole grid, box-filtered by r cells.
INLINE void grid_sums(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass, int r) {
    begin_sums(k, p, pass);
    for (int gy = 0; gy < k->gh; gy++) cell_row_sums(k, p, in, pass, gy);
    box_sums(k, r);
}

/// One cell's means (y, u, v) from its sums (n: y, u, v, share), leaning to `outer` (its parent's means) as its share
/// falls under 0.001.
INLINE void cell_means(const float n[4], const float outer[3], float out[3]) {
    float own = n[3] >= 1e-3f ? 1.f : n[3] / 1e-3f, inverse = own > 0.f ? own / n[3] : 0.f;
    for (int j = 0; j < 3; j++) out[j] = own > 0.f ? inverse * n[j] + (1.f - own) * outer[j] : outer[j];
}

/// Normalized convolution's means, as the screen's or the foreground's channels (into g[first …]): the grid's sums
/// (G_NY …) over their share where a cell saw enough, else its parent's in a pyramid of 2×2 sums (push-pull: a hole
/// takes the colour of what is nearest at the coarsest level that sees any; none at all: `fallback`). The pyramid
/// above the grid holds each cell's four sums together; the grid's own level is read and written in its planes.
INLINE void grid_means(MWFineKeyer *k, const MWFineParams *p, int first, const float fallback[3]) {
    int w[24], h[24], levels = 2, gw = k->gw, gh = k->gh;
    long at[24];
    float *pyr = k->pyramid;
    const float *sums[4] = {k->g[G_NY], k->g[G_NU], k->g[G_NV], k->g[G_DEN]};
    w[1] = (gw + 1) / 2, h[1] = (gh + 1) / 2, at[1] = 0;
    for (int y = 0; y < h[1]; y++)
        for (int x = 0; x < w[1]; x++) {
            float *out = pyr + 4L * (y * w[1] + x);
            for (int j = 0; j < 4; j++) {
                const float *g = sums[j];
                int x1 = 2 * x + 1 < gw ? 2 * x + 1 : -1, y1 = 2 * y + 1 < gh ? 2 * y + 1 : -1;
                float top = g[(long)(2 * y) * gw + 2 * x] + (x1 >= 0 ? g[(long)(2 * y) * gw + x1] : 0.f);
                float bottom = y1 >= 0 ? g[(long)y1 * gw + 2 * x] + (x1 >= 0 ? g[(long)y1 * gw + x1] : 0.f) : 0.f;
                out[j] = top + bottom;
            }
        }
    while (w[levels - 1] > 1 || h[levels - 1] > 1) {
        int l = levels++;
        w[l] = (w[l - 1] + 1) / 2, h[l] = (h[l - 1] + 1) / 2, at[l] = at[l - 1] + 4L * w[l - 1] * h[l - 1];
        for (int y = 0; y < h[l]; y++)
            for (int x = 0; x < w[l]; x++) {
                float *out = pyr + at[l] + 4L * (y * w[l] + x);
                for (int j = 0; j < 4; j++) out[j] = 0.f;
                for (int q = 0; q < 4; q++) {
                    int cx = 2 * x + (q & 1), cy = 2 * y + (q >> 1);
                    if (cx >= w[l - 1] || cy >= h[l - 1]) continue;
                    const float *in = pyr + at[l - 1] + 4L * (cy * w[l - 1] + cx);
                    for (int j = 0; j < 4; j++) out[j] += in[j];
                }
            }
    }
    for (int l = levels - 1; l >= 1; l--)
        for (int y = 0; y < h[l]; y++)
            for (int x = 0; x < w[l]; x++) {
                float *cell = pyr + at[l] + 4L * (y * w[l] + x);
                cell_means(cell, l + 1 < levels ? pyr + at[l + 1] + 4L * ((y / 2) * w[l + 1] + x / 2) : fallback, cell);
            }
    float *out[3] = {k->g[first], k->g[first + 1], k->g[first + 2]};
    for (int y = 0; y < gh; y++)
        for (int x = 0; x < gw; x++) {
            long i = (long)y * gw + x;
            float n[4] = {sums[0][i], sums[1][i], sums[2][i], sums[3][i]}, m[3];
            cell_means(n, pyr + 4L * ((y / 2) * w[1] + x / 2), m);
            for (int j = 0; j < 3; j++) out[j][i] = m[0] + m[1] * p->perU[j] + m[2] * p->perV[j];
        }
}

/// The key colour's luma and chroma (the means where nothing is seen).
INLINE void key_yuv(const MWFineParams *p, float out[3]) {
    const float *c = p->key;
    out[0] = p->luma[0] * c[0] + p->luma[1] * c[1] + p->luma[2] * c[2];
    out[1] = p->toU[0] * c[0] + p->toU[1] * c[1] + p->toU[2] * c[2];
    out[2] = p->toV[0] * c[0] + p->toV[1] * c[1] + p->toV[2] * c[2];
}

/// Step 2: the screen field (g[G_S0 …]) from the samples `pass` calls clear, and where the screen is near (G_NEAR:
/// its share of clear samples around, full from 5 %: the spill limit acts there, a green shirt far from it keeps
/// its green).
INLINE void screen_field(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass) {
    long gn = (long)k->gw * k->gh;
    float key[3];
    key_yuv(p, key);
    grid_sums(k, p, in, pass, SCREEN_CELLS);
    for (long i = 0; i < gn; i++) k->g[G_NEAR][i] = k->g[G_DEN][i] >= 0.05f ? 1.f : k->g[G_DEN][i] / 0.05f;
    grid_means(k, p, G_S0, key);
}

/// Steps 2 and 3 on the grid: the screen field (clear against the key, then against the screen there), the foreground
/// field from the samples the colour-difference matte (1 − D / D(the cell's screen), stretched) calls opaque.
INLINE void fields(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in) {
    float key[3];
    key_yuv(p, key);
    if (k->plate[0]) {
        // A clean plate is the screen: its cells' means; where the screen is near, by the samples clear against it.
        long gn = (long)k->gw * k->gh;
        for (int j = 0; j < 3; j++) memcpy(k->g[G_S0 + j], k->plateCells[j], sizeof(float) * gn);
        grid_sums(k, p, in, CLEAR_AGAINST_FIELD, SCREEN_CELLS);
        for (long i = 0; i < gn; i++) k->g[G_NEAR][i] = k->g[G_DEN][i] >= 0.05f ? 1.f : k->g[G_DEN][i] / 0.05f;
    } else {
        screen_field(k, p, in, CLEAR_AGAINST_KEY);
        screen_field(k, p, in, CLEAR_AGAINST_FIELD);
    }
    grid_sums(k, p, in, OPAQUE_SAMPLES, FORE_CELLS);
    // No opaque sample anywhere: the foreground is the screen (the projection then has no line and says nothing).
    grid_means(k, p, G_F0, key);
}

/// A grid field at window samples rx … rx + rw − 1, ry … ry + rh − 1 (into win[first …], `count` channels from
/// g[from …]): bilinear between cell centres, each grid row the samples reach interpolated along x once, then between
/// rows.
INLINE void field_to_window(MWFineKeyer *k, Tile *t, int from, int count, int first, int rx, int ry, int rw, int rh) {
    int x0[WIN], x1[WIN], y0[WIN], y1[WIN];
    float tx[WIN], ty[WIN], across[WIN / CELL + 3][WIN];
    for (int x = 0; x < rw; x++) {
        float gx = (t->wx + rx + x - 0.5f * (CELL - 1)) / CELL;
        x0[x] = clampi((int)(gx < 0 ? -1 : gx), 0, k->gw - 1), x1[x] = clampi(x0[x] + 1, 0, k->gw - 1);
        tx[x] = gx < 0 ? 0.f : gx - (float)(int)gx;
    }
    for (int y = 0; y < rh; y++) {
        float gy = (t->wy + ry + y - 0.5f * (CELL - 1)) / CELL;
        y0[y] = clampi((int)(gy < 0 ? -1 : gy), 0, k->gh - 1), y1[y] = clampi(y0[y] + 1, 0, k->gh - 1);
        ty[y] = gy < 0 ? 0.f : gy - (float)(int)gy;
    }
    int lo = y0[0], rows = y1[rh - 1] - lo + 1;
    for (int j = 0; j < count; j++) {
        for (int g = 0; g < rows; g++) {
            const float *row = k->g[from + j] + (long)(lo + g) * k->gw;
            for (int x = 0; x < rw; x++) across[g][x] = row[x0[x]] + (row[x1[x]] - row[x0[x]]) * tx[x];
        }
        for (int y = 0; y < rh; y++) {
            const float *a = across[y0[y] - lo], *b = across[y1[y] - lo];
            float *out = t->win[first + j] + (ry + y) * t->ww + rx;
            for (int x = 0; x < rw; x++) out[x] = a[x] + (b[x] - a[x]) * ty[y];
        }
    }
}

/// The window's own planes: the samples' luma and colour difference, u and v, the screen field and the colour-
/// difference matte by it; the foreground field and where the screen is near at the tile's samples.
INLINE void load_window(MWFineKeyer *k, Tile *t, const MWFineParams *p, const MWFineInput *in) {
    for (int y = 0; y < t->wh; y++) {
        long from = (long)(t->wy + y) * k->cw + t->wx;
        memcpy(t->win[W_LUMA] + y * t->ww, k->c[C_LUMA] + from, sizeof(float) * t->ww);
        memcpy(t->win[W_DIFF] + y * t->ww, k->c[C_DIFF] + from, sizeof(float) * t->ww);
        const uint8_t *u = in->plane[1] + (long)(t->wy + y) * in->stride[1] + t->wx;
        const uint8_t *v = in->plane[2] + (long)(t->wy + y) * in->stride[2] + t->wx;
        for (int x = 0; x < t->ww; x++) {
            t->win[W_U][y * t->ww + x] = ((float)u[x] - 128.f) * p->chromaScale;
            t->win[W_V][y * t->ww + x] = ((float)v[x] - 128.f) * p->chromaScale;
        }
    }
    if (k->plate[0]) {
        for (int j = 0; j < 3; j++)
            for (int y = 0; y < t->wh; y++)
                memcpy(t->win[W_S0 + j] + y * t->ww, k->plate[j] + (long)(t->wy + y) * k->cw + t->wx, sizeof(float) * t->ww);
    } else {
        field_to_window(k, t, G_S0, 3, W_S0, 0, 0, t->ww, t->wh);
    }
    int rx = t->px0 / 2 - t->wx, ry = t->py0 / 2 - t->wy, rw = (t->pn + 1) / 2, rh = (t->pm + 1) / 2;
    field_to_window(k, t, G_F0, 3, W_F0, rx, ry, rw, rh);
    field_to_window(k, t, G_NEAR, 1, W_NEAR, rx, ry, rw, rh);
    for (int i = 0; i < t->ww * t->wh; i++) {
        float ds = difference(t->win[W_S0][i], t->win[W_S1][i], t->win[W_S2][i]);
        t->win[W_MATTE][i] = colour_matte(t->win[W_DIFF][i], inverse_of(ds));
    }
}

/// The solid core: 1 where every sample within CORE_SAMPLES of this one has a colour-difference matte of
/// CORE_LEAST or more (spill's doubt inside a subject is not transparency), else 0.
INLINE void solid_core(Tile *t) {
    float *c = t->win[W_CORE], *rows = t->win[W_T0];
    const float *m = t->win[W_MATTE];
    int w = t->ww, h = t->wh, r = CORE_SAMPLES;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = 1.f;
            for (int i = -r; i <= r; i++) v = m[y * w + clampi(x + i, 0, w - 1)] >= CORE_LEAST ? v : 0.f;
            rows[y * w + x] = v;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = 1.f;
            for (int i = -r; i <= r; i++) v = rows[clampi(y + i, 0, h - 1) * w + x] > 0.f ? v : 0.f;
            c[y * w + x] = v;
        }
}

/// box() over the window, its rows' ends mended only where the window is cut by the picture's side (elsewhere the
/// guided filters' two boxes and the upsampling reach no sample of its two outer columns).
INLINE void window_box(Tile *t, const float *src, float *dst) {
    if (t->ww >= 2 && t->wh >= 2) box3(src, dst, t->win[W_T3], t->ww, t->wh, t->ww < WIN);
    else box(src, dst, t->win[W_T3], t->ww, t->wh, 1);
}

/// Step 4's coefficients over the window: in each 3×3 window of samples, `a` ≈ ga·luma + gb (least squares, ε), both
/// then averaged over 3×3 again; `fit` (if asked) how well that line fits (1 − its residual's spread / CHROMA_FIT).
/// Luma's own means (W_MY, W_MYY: of luma and its square) are the window's, made once.
INLINE void guided(Tile *t, const float *a, float eps, float *ga, float *gb, float *fit) {
    int w = t->ww, h = t->wh, n = w * h;
    const float *y = t->win[W_LUMA], *my = t->win[W_MY], *myy = t->win[W_MYY];
    float *t0 = t->win[W_T0];
    for (int i = 0; i < n; i++) t0[i] = y[i] * a[i];
    window_box(t, t0, t0);
    if (fit) {
        for (int i = 0; i < n; i++) fit[i] = a[i] * a[i];
        window_box(t, fit, fit);
    }
    window_box(t, a, gb);
    for (int i = 0; i < n; i++) {
        float ma = gb[i];
        float cov = t0[i] - my[i] * ma, var = myy[i] - my[i] * my[i];
        ga[i] = cov / (var + eps);
        gb[i] = ma - ga[i] * my[i];
        if (fit) {
            float e = fit[i] - ma * ma - ga[i] * cov;
            e = e > 0.f ? sqrtf(e) / CHROMA_FIT : 0.f;
            fit[i] = e > 1.f ? 0.f : 1.f - e;
        }
    }
    window_box(t, ga, ga);
    window_box(t, gb, gb);
    if (fit) window_box(t, fit, fit);
}

/// The three guided filters (the matte; u and v with their fit) over the window, luma's means made once for them.
INLINE void guided_filters(Tile *t) {
    int w = t->ww, h = t->wh, n = w * h;
    float *y = t->win[W_LUMA], *myy = t->win[W_MYY];
    for (int i = 0; i < n; i++) myy[i] = y[i] * y[i];
    window_box(t, myy, myy);
    window_box(t, y, t->win[W_MY]);
    guided(t, t->win[W_MATTE], MATTE_EPS, t->win[W_GA], t->win[W_GB], 0);
    guided(t, t->win[W_U], CHROMA_EPS, t->win[W_UA], t->win[W_UB], t->win[W_UFIT]);
    guided(t, t->win[W_V], CHROMA_EPS, t->win[W_VA], t->win[W_VB], t->win[W_VFIT]);
}

typedef float f32x8 __attribute__((vector_size(32)));

INLINE f32x8 load_f32x8(const float *p) {
    f32x8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/// A whole tile away from the window's edge (its samples and one more each side inside it): its rows of pixels are
/// made eight samples at a time.
INLINE int inner_tile(const Tile *t) {
    int c0 = t->px0 / 2 - t->wx, r0 = t->py0 / 2 - t->wy;
    return TILE == 8 && t->pn == PIX && t->pm == PIX && c0 >= 1 && c0 + TILE < t->ww && r0 >= 1 && r0 + TILE < t->wh;
}

/// A window plane at the tile's pixels (into out), bilinear (centre-sited: 3/4 of the nearest sample, 1/4 of the
/// next), the window's edge repeated: each row's samples between the two nearest rows first, then along the row.
INLINE void upsampled(const Tile *t, const float *plane, float *out) {
    int n = t->pn, c0 = t->px0 / 2 - t->wx, columns = (n + 1) / 2 + 2;
    float v[TILE + 2];
    if (inner_tile(t)) {
        for (int j = 0; j < PIX; j++) {
            int cy = (t->py0 + j) / 2 - t->wy, other = j % 2 ? cy + 1 : cy - 1;
            const float *near = plane + cy * t->ww + c0 - 1, *far = plane + other * t->ww + c0 - 1;
            f32x8 v0 = 0.75f * load_f32x8(near) + 0.25f * load_f32x8(far);
            f32x8 v1 = 0.75f * load_f32x8(near + 1) + 0.25f * load_f32x8(far + 1);
            f32x8 v2 = 0.75f * load_f32x8(near + 2) + 0.25f * load_f32x8(far + 2);
            f32x8 even = 0.75f * v1 + 0.25f * v0, odd = 0.75f * v1 + 0.25f * v2;
            f32x16 row = __builtin_shufflevector(even, odd, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
            memcpy(out + j * PIX, &row, sizeof row);
        }
        return;
    }
    for (int j = 0; j < t->pm; j++) {
        int y = t->py0 + j, cy = y / 2 - t->wy, other = clampi(y % 2 ? cy + 1 : cy - 1, 0, t->wh - 1);
        const float *near = plane + cy * t->ww, *far = plane + other * t->ww;
        for (int i = 0; i < columns; i++) {
            int c = clampi(c0 - 1 + i, 0, t->ww - 1);
            v[i] = 0.75f * near[c] + 0.25f * far[c];
        }
        float *o = out + j * n;
        for (int i = 0; i + 1 < n; i += 2) {
            o[i] = 0.75f * v[i / 2 + 1] + 0.25f * v[i / 2];
            o[i + 1] = 0.75f * v[i / 2 + 1] + 0.25f * v[i / 2 + 2];
        }
        if (n % 2) o[n - 1] = 0.75f * v[n / 2 + 1] + 0.25f * v[n / 2];
    }
}

/// A window plane at the tile's pixels, each sample over its 2 × 2 pixels.
INLINE void repeated(const Tile *t, const float *plane, float *out) {
    int n = t->pn, c0 = t->px0 / 2 - t->wx;
    for (int j = 0; j < t->pm; j++) {
        float *o = out + j * n;
        if (j % 2) { memcpy(o, o - n, sizeof(float) * n); continue; }
        const float *row = plane + ((t->py0 + j) / 2 - t->wy) * t->ww + c0;
        if (n == PIX && TILE == 8) {
            f32x8 r = load_f32x8(row);
            f32x16 pairs = __builtin_shufflevector(r, r, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
            memcpy(o, &pairs, sizeof pairs);
            continue;
        }
        for (int i = 0; i < n; i++) o[i] = row[i / 2];
    }
}

/// The tile's u and v brought to full resolution by luma where the window's chroma follows a line in luma (a 4:2:0
/// edge between two colours), bilinear where it does not (more colours than two in the window).
INLINE void guided_chroma(Tile *t) {
    int n = t->pn * t->pm;
    float *b = t->px[P_T], *f = t->px[P_FIT], *bilinear = t->px[P_BIL];
    for (int j = 0; j < 2; j++) {
        float *out = t->px[j ? P_V : P_U];
        upsampled(t, t->win[j ? W_VA : W_UA], out);
        upsampled(t, t->win[j ? W_VB : W_UB], b);
        upsampled(t, t->win[j ? W_VFIT : W_UFIT], f);
        upsampled(t, t->win[j ? W_V : W_U], bilinear);
        for (int i = 0; i < n; i++) {
            float g = out[i] * (float)t->luma[i] + b[i];
            out[i] = f[i] * g + (1.f - f[i]) * bilinear[i];
        }
    }
}

/// One chroma sample's u and v written: the mean of its pixels' weighted by their alphas (equal shares where none
/// shows: the core's weights are alpha + 0.001).
INLINE void chroma_sample(const MWFineParams *p, const float *rows[2][3], int i0, int i1, uint8_t *u, uint8_t *v) {
    float a = rows[0][0][i0] + rows[0][0][i1] + rows[1][0][i0] + rows[1][0][i1] + 4e-3f;
    float uu = (rows[0][1][i0] + rows[0][1][i1] + rows[1][1][i0] + rows[1][1][i1]) / a;
    float vv = (rows[0][2][i0] + rows[0][2][i1] + rows[1][2][i0] + rows[1][2][i1]) / a;
    *u = byte_of(128.f + uu / p->chromaScale);
    *v = byte_of(128.f + vv / p->chromaScale);
}

/// The core's results laid over the base (4:2:0): each as the picture would hold it (bytes), then overlay's formula
/// by its alpha (a chroma sample's the mean of its pixels'), as AlphaBlendKernel.h lays a whole picture.
INLINE void laid_tile(Tile *t, const MWFineParams *p, const MWFineOutput *out) {
    int n = t->pn, m = t->pm;
    const float *alpha = t->px[P_ALPHA], *ly = t->px[P_Y], *cu = t->px[P_OU], *cv = t->px[P_OV];
    uint8_t a8[PIX_N];
    for (int j = 0; j < m; j++) {
        long y = t->py0 + j;
        uint8_t *oy = out->plane[0] + y * out->stride[0] + t->px0;
        const uint8_t *by = out->base[0] + y * out->baseStride[0] + t->px0;
        for (int i = 0; i < n; i++) {
            a8[j * n + i] = byte_of(alpha[j * n + i] * 255.f);
            oy[i] = mw_over(byte_of(ly[j * n + i]), by[i], a8[j * n + i]);
        }
    }
    for (int j = 0; j < m; j += 2) {
        int j1 = j + 1 < m ? j + 1 : j;
        const float *rows[2][3] = {{alpha + j * n, cu + j * n, cv + j * n}, {alpha + j1 * n, cu + j1 * n, cv + j1 * n}};
        long cy = (t->py0 + j) >> 1, cx0 = t->px0 >> 1;
        uint8_t *ou = out->plane[1] + cy * out->stride[1] + cx0, *ov = out->plane[2] + cy * out->stride[2] + cx0;
        const uint8_t *bu = out->base[1] + cy * out->baseStride[1] + cx0, *bv = out->base[2] + cy * out->baseStride[2] + cx0;
        for (int i = 0; i < n; i += 2) {
            int i1 = i + 1 < n ? i + 1 : i;
            uint8_t u, v;
            chroma_sample(p, rows, i, i1, &u, &v);
            uint32_t av = ((uint32_t)a8[j * n + i] + a8[j * n + i1] + a8[j1 * n + i] + a8[j1 * n + i1]) >> 2;
            ou[i >> 1] = mw_over(u, bu[i >> 1], av), ov[i >> 1] = mw_over(v, bv[i >> 1], av);
        }
    }
}

/// The core's results written: luma and alpha, and u and v (each sample's pixels' weighted mean; with full chroma
/// each pixel's own).
INLINE void write_tile(Tile *t, const MWFineParams *p, const MWFineOutput *out) {
    int n = t->pn, m = t->pm, sub = out->fullChroma ? 0 : 1;
    const float *alpha = t->px[P_ALPHA], *ly = t->px[P_Y], *cu = t->px[P_OU], *cv = t->px[P_OV];
    if (out->base[0]) { laid_tile(t, p, out); return; }
    for (int j = 0; j < m; j++) {
        long y = t->py0 + j;
        uint8_t *oy = out->plane[0] + y * out->stride[0] + t->px0, *oa = out->plane[3] + y * out->stride[3] + t->px0;
        for (int i = 0; i < n; i++) oy[i] = byte_of(ly[j * n + i]), oa[i] = byte_of(alpha[j * n + i] * 255.f);
    }
    for (int j = 0; j < m; j += 1 + sub) {
        int j1 = sub && j + 1 < m ? j + 1 : j;
        const float *rows[2][3] = {{alpha + j * n, cu + j * n, cv + j * n}, {alpha + j1 * n, cu + j1 * n, cv + j1 * n}};
        long cy = (t->py0 + j) >> sub;
        uint8_t *ou = out->plane[1] + cy * out->stride[1] + (t->px0 >> sub), *ov = out->plane[2] + cy * out->stride[2] + (t->px0 >> sub);
        for (int i = 0; i < n; i += 1 + sub) chroma_sample(p, rows, i, sub && i + 1 < n ? i + 1 : i, ou + (i >> sub), ov + (i >> sub));
    }
}

/// Step 5 over the tile's pixels: their inputs (luma; the guided filters', the fields and the solid core brought to
/// them), the core once over them all, its results written.
INLINE void tile_pixels(Tile *t, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, MWFineCore core) {
    int n = t->pn, m = t->pm;
    float (*q)[PIX_N] = t->px;
    for (int j = 0; j < m; j++) memcpy(t->luma + j * n, in->plane[0] + (long)(t->py0 + j) * in->stride[0] + t->px0, n);
    upsampled(t, t->win[W_GA], q[P_A]);
    upsampled(t, t->win[W_GB], q[P_B]);
    upsampled(t, t->win[W_MY], q[P_MY]);
    guided_chroma(t);
    for (int j = 0; j < 3; j++) repeated(t, t->win[W_S0 + j], q[P_S0 + j]), repeated(t, t->win[W_F0 + j], q[P_F0 + j]);
    repeated(t, t->win[W_NEAR], q[P_NEAR]);
    repeated(t, t->win[W_CORE], q[P_CORE]);
    MWFineRow row = {t->luma, q[P_A], q[P_B], q[P_U], q[P_V], q[P_MY], {q[P_S0], q[P_S1], q[P_S2]}, {q[P_F0], q[P_F1], q[P_F2]},
                     q[P_NEAR], q[P_CORE], q[P_ALPHA], q[P_Y], q[P_OU], q[P_OV], (long)n * m};
    core(p, &row);
    write_tile(t, p, out);
}

/// Steps 3 to 5 for a tile that is neither plain screen nor plain subject: its window's planes, the solid core, the
/// guided filters, then its pixels.
INLINE void mixed_tile(MWFineKeyer *k, Tile *t, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out,
                       MWFineCore core, int tx, int ty) {
    t->px0 = 2 * TILE * tx, t->py0 = 2 * TILE * ty;
    t->pn = clampi(t->px0 + 2 * TILE, 0, k->w) - t->px0, t->pm = clampi(t->py0 + 2 * TILE, 0, k->h) - t->py0;
    load_window(k, t, p, in);
    solid_core(t);
    guided_filters(t);
    tile_pixels(t, p, in, out, core);
}

/// The window of tile (tx, ty): its samples and APRON more each side, within the picture.
INLINE void place_window(MWFineKeyer *k, Tile *t, int tx, int ty) {
    t->wx = clampi(TILE * tx - APRON, 0, k->cw), t->wy = clampi(TILE * ty - APRON, 0, k->ch);
    t->ww = clampi(TILE * tx + TILE + APRON, 0, k->cw) - t->wx, t->wh = clampi(TILE * ty + TILE + APRON, 0, k->ch) - t->wy;
}

enum { MIXED, SCREEN, SOLID };

/// What a tile is: plain screen (its window's colour-difference matte 0 and every pixel's luma the screen's there),
/// plain subject (its window's matte 1: each pixel farther than APRON samples from anything else, so its colour is
/// its own, spill's limit acting only nearer the edge), or neither.
INLINE int tile_kind(const MWFineKeyer *k, Tile *t, const MWFineParams *p, int tx, int ty) {
    // The cells over the window (a little more than it: a tile is called plain only when it surely is).
    int zero = 1, one = 1;
    for (int gy = t->wy / CELL; gy <= (t->wy + t->wh - 1) / CELL; gy++)
        for (int gx = t->wx / CELL; gx <= (t->wx + t->ww - 1) / CELL; gx++) {
            long g = (long)gy * k->gw + gx;
            zero &= k->g[G_MMAX][g] <= 0.f, one &= k->g[G_MMIN][g] >= 1.f;
        }
    if (one) return SOLID;
    if (!zero) return MIXED;
    // Every pixel's luma near the screen's there (no strand thinner than chroma over it).
    float spread = SCREEN_LUMA / p->lumaScale;
    for (int gy = TILE * ty / CELL; gy <= (TILE * ty + TILE - 1) / CELL && gy < k->gh; gy++)
        for (int gx = TILE * tx / CELL; gx <= (TILE * tx + TILE - 1) / CELL && gx < k->gw; gx++) {
            long g = (long)gy * k->gw + gx;
            if (k->g[G_LMIN][g] < k->g[G_YS][g] - spread || k->g[G_LMAX][g] > k->g[G_YS][g] + spread) return MIXED;
        }
    return SCREEN;
}

/// memset and memcpy a tile's row: of a constant length (stores the compiler writes in place of a call) when whole.
INLINE void fill(uint8_t *p, uint8_t v, int n, const int whole) {
    if (n == whole) memset(p, v, whole); else memset(p, v, n);
}
INLINE void copy(uint8_t *p, const uint8_t *from, int n, const int whole) {
    if (n == whole) memcpy(p, from, whole); else memcpy(p, from, n);
}

/// Pixels x0 … x1 − 1, y0 … y1 − 1 of a 4:2:0 picture's three planes copied (y0 and x0 even).
INLINE void copy_tile(uint8_t *const to[3], const long toStride[3], const uint8_t *const from[3], const long fromStride[3], int x0,
                      int x1, int y0, int y1) {
    for (int y = y0; y < y1; y++) copy(to[0] + (long)y * toStride[0] + x0, from[0] + (long)y * fromStride[0] + x0, x1 - x0, 2 * TILE);
    for (int cy = y0 / 2; cy < (y1 + 1) / 2; cy++)
        for (int j = 1; j < 3; j++)
            copy(to[j] + (long)cy * toStride[j] + x0 / 2, from[j] + (long)cy * fromStride[j] + x0 / 2, (x1 + 1) / 2 - x0 / 2, TILE);
}

/// A plain tile written: screen (alpha 0, the colour the foreground field has there, so no green bleeds when the
/// picture is scaled or its chroma averaged) or subject (alpha 1, its own colour). Laid over a base: base's pixels or
/// fx's.
INLINE void plain_tile(const MWFineKeyer *k, const MWFineInput *in, const MWFineOutput *out, int kind, int tx, int ty) {
    int x0 = 2 * TILE * tx, x1 = clampi(x0 + 2 * TILE, 0, k->w), y0 = 2 * TILE * ty, y1 = clampi(y0 + 2 * TILE, 0, k->h);
    int sub = out->fullChroma ? 0 : 1, span = 2 * CELL;
    if (out->base[0]) {
        copy_tile(out->plane, out->stride, kind == SOLID ? in->plane : out->base, kind == SOLID ? in->stride : out->baseStride, x0, x1, y0, y1);
        return;
    }
    for (int y = y0; y < y1; y++) fill(out->plane[3] + (long)y * out->stride[3] + x0, kind == SOLID ? 255 : 0, x1 - x0, 2 * TILE);
    if (kind == SOLID) { copy_tile(out->plane, out->stride, in->plane, in->stride, x0, x1, y0, y1); return; }
    for (int y = y0; y < y1; y++) {
        uint8_t *oy = out->plane[0] + (long)y * out->stride[0];
        long g = (long)(y / span) * k->gw;
        uint8_t *ou = out->plane[1] + (long)(y >> sub) * out->stride[1], *ov = out->plane[2] + (long)(y >> sub) * out->stride[2];
        for (int x = x0; x < x1; x += span) {
            int n = x + span < x1 ? span : x1 - x, gx = x / span;
            fill(oy + x, k->foreY[g + gx], n, 2 * CELL);
            if (sub && y % 2) continue;
            if (sub) fill(ou + (x >> 1), k->foreU[g + gx], (n + 1) >> 1, CELL), fill(ov + (x >> 1), k->foreV[g + gx], (n + 1) >> 1, CELL);
            else fill(ou + x, k->foreU[g + gx], n, 2 * CELL), fill(ov + x, k->foreV[g + gx], n, 2 * CELL);
        }
    }
}

/// Step 6: outside every garbage rectangle, alpha 0.
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

/// Each cell's screen luma and the foreground field's colour as 8-bit luma, u and v (a plain screen tile's).
INLINE void cell_colours(MWFineKeyer *k, const MWFineParams *p) {
    for (long i = 0; i < (long)k->gw * k->gh; i++) {
        const float s[3] = {k->g[G_S0][i], k->g[G_S1][i], k->g[G_S2][i]}, f[3] = {k->g[G_F0][i], k->g[G_F1][i], k->g[G_F2][i]};
        k->g[G_YS][i] = p->lumaZero + (p->luma[0] * s[0] + p->luma[1] * s[1] + p->luma[2] * s[2]) / p->lumaScale;
        k->foreY[i] = byte_of(p->lumaZero + (p->luma[0] * f[0] + p->luma[1] * f[1] + p->luma[2] * f[2]) / p->lumaScale);
        k->foreU[i] = byte_of(128.f + (p->toU[0] * f[0] + p->toU[1] * f[1] + p->toU[2] * f[2]) / p->chromaScale);
        k->foreV[i] = byte_of(128.f + (p->toV[0] * f[0] + p->toV[1] * f[1] + p->toV[2] * f[2]) / p->chromaScale);
    }
}

/// See FineKeyer.h. The plate's channels at each chroma sample (its 2 × 2 pixels' luma), box-filtered over 3 × 3
/// samples (the noise a plate keeps after its pictures' mean: the light it carries is smooth), and each cell's mean.
int mw_fine_plate(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *plate) {
    for (int i = 0; i < 3; i++) free(k->plate[i]), free(k->plateCells[i]), k->plate[i] = k->plateCells[i] = 0;
    if (!plate) return 0;
    long n = (long)k->cw * k->ch, gn = (long)k->gw * k->gh;
    float *tmp = malloc(sizeof(float) * n);
    int ok = tmp != 0;
    for (int i = 0; i < 3; i++) {
        ok &= (k->plate[i] = malloc(sizeof(float) * n)) != 0;
        ok &= (k->plateCells[i] = calloc(gn, sizeof(float))) != 0;
    }
    if (!ok) {
        free(tmp);
        mw_fine_plate(k, p, 0);
        return -1;
    }
    for (int cy = 0; cy < k->ch; cy++) {
        const uint8_t *y0 = plate->plane[0] + (long)(2 * cy) * plate->stride[0];
        const uint8_t *y1 = plate->plane[0] + (long)(2 * cy + 1 < k->h ? 2 * cy + 1 : 2 * cy) * plate->stride[0];
        const uint8_t *u = plate->plane[1] + (long)cy * plate->stride[1], *v = plate->plane[2] + (long)cy * plate->stride[2];
        for (int cx = 0; cx < k->cw; cx++) {
            int x1 = 2 * cx + 1 < k->w ? 2 * cx + 1 : 2 * cx;
            float luma = 0.25f * (float)(y0[2 * cx] + y0[x1] + y1[2 * cx] + y1[x1]);
            float yl = (luma - p->lumaZero) * p->lumaScale;
            float uu = ((float)u[cx] - 128.f) * p->chromaScale, vv = ((float)v[cx] - 128.f) * p->chromaScale;
            for (int j = 0; j < 3; j++) k->plate[j][(long)cy * k->cw + cx] = yl + uu * p->perU[j] + vv * p->perV[j];
        }
    }
    for (int j = 0; j < 3; j++) {
        float *c = k->plate[j], *cells = k->plateCells[j];
        box(c, c, tmp, k->cw, k->ch, 1);
        for (int cy = 0; cy < k->ch; cy++)
            for (int cx = 0; cx < k->cw; cx++) cells[(long)(cy / CELL) * k->gw + cx / CELL] += c[(long)cy * k->cw + cx];
        for (int gy = 0; gy < k->gh; gy++)
            for (int gx = 0; gx < k->gw; gx++) {
                int rows = clampi(k->ch - CELL * gy, 1, CELL), cols = clampi(k->cw - CELL * gx, 1, CELL);
                cells[(long)gy * k->gw + gx] /= (float)(rows * cols);
            }
    }
    free(tmp);
    return 0;
}

/// The picture-wide steps (see mw_fine_prepare), compiled at each level.
INLINE void fine_prepare(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int level) {
    (void)level;
    chroma_colours(k, p, in);
    fields(k, p, in);
    cell_colours(k, p);
}
COMPILED_AT_LEVELS(void, fine_prepare, (MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in), k, p, in)

int mw_fine_prepare(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int level) {
    typedef void (*Prepare)(MWFineKeyer *, const MWFineParams *, const MWFineInput *);
    static const Prepare prepare[5] = {mw_fine_prepare_1, mw_fine_prepare_1, mw_fine_prepare_2, mw_fine_prepare_3, mw_fine_prepare_4};
    if (level < 0 || level > mw_key_best_level()) return -1;
    prepare[level](k, p, in);
    return 0;
}

/// A part's tiles (see mw_fine_tiles), compiled at each level with every step it takes.
INLINE void fine_tiles(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, MWFineCore core,
                       int part, int parts, int level) {
    (void)level;
    Tile *t = &k->tiles[part];
    for (int ty = part; ty * TILE < k->ch; ty += parts)
        for (int tx = 0; tx * TILE < k->cw; tx++) {
            place_window(k, t, tx, ty);
            int kind = tile_kind(k, t, p, tx, ty);
            // With full chroma a subject's own tile is upsampled as any (its colour's resolution is the point).
            if (kind == MIXED || (kind != SCREEN && out->fullChroma)) mixed_tile(k, t, p, in, out, core, tx, ty);
            else plain_tile(k, in, out, kind, tx, ty);
        }
}
COMPILED_AT_LEVELS(void, fine_tiles, (MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out,
                                      MWFineCore core, int part, int parts), k, p, in, out, core, part, parts)

int mw_fine_tiles(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, int level, int part,
                  int parts) {
    typedef void (*Tiles)(MWFineKeyer *, const MWFineParams *, const MWFineInput *, const MWFineOutput *, MWFineCore, int, int);
    static const Tiles tiles[5] = {mw_fine_tiles_1, mw_fine_tiles_1, mw_fine_tiles_2, mw_fine_tiles_3, mw_fine_tiles_4};
    MWFineCore core = mw_fine_core(level);
    if (!core || part < 0 || part >= WORKERS || parts > WORKERS || (out->base[0] && out->fullChroma)) return -1;
    tiles[level](k, p, in, out, core, part, parts);
    return 0;
}

int mw_fine_key(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, int level) {
    if (mw_fine_prepare(k, p, in, level) != 0 || mw_fine_tiles(k, p, in, out, level, 0, 1) != 0) return -1;
    if (!out->base[0]) {
        mw_fine_matte(p, out->plane[3], out->stride[3], k->w, k->h, k->line);
        if (mw_matte_feather(out->plane, out->stride, k->w, k->h, out->fullChroma ? 0 : 1, p->feather) != 0) return -1;
    }
    return 0;
}
