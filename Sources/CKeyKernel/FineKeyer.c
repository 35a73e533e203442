// See FineKeyer.h: the fine keyer's picture-wide steps (colours at chroma resolution, the fields on their grid, which
// tiles are plain screen or plain subject) and each remaining tile's (the fields there, the colour-difference matte,
// the guided filters, the rows through the core), the matte's refinements, and the core compiled at each level.
#include "FineKeyer.h"
#include "FineCore.h"
#include "Levels.h"

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
static const float CLEAR_KEY = 0.7f, CLEAR_LOCAL = 0.95f, OPAQUE = 0.98f, CORE_LEAST = 0.75f;
static const float MATTE_EPS = 8.f, CHROMA_EPS = 8.f, CHROMA_FIT = 0.02f, SCREEN_LUMA = 0.02f;

/// A tile: TILE × TILE chroma samples, worked in a window APRON samples wider on each side (the guided filters' two
/// box filters and the core's reach need them), WIN samples square.
enum { TILE = 8, APRON = 3, WIN = TILE + 2 * APRON, WIN_N = WIN * WIN };

/// Planes at chroma resolution (cw × ch), on the fields' grid (gw × gh: CELL × CELL samples a cell), a window's, a row's.
enum { C_LUMA, C_0, C_1, C_2, C_DIFF, C_MATTE, C_COUNT };
enum { G_N0, G_N1, G_N2, G_DEN, G_S0, G_S1, G_S2, G_F0, G_F1, G_F2, G_NEAR, G_YS, G_FY, G_FU, G_FV, G_MMIN, G_MMAX, G_LMIN, G_LMAX,
       G_TMP, G_COUNT };
enum { W_LUMA, W_DIFF, W_S0, W_S1, W_S2, W_F0, W_F1, W_F2, W_NEAR, W_MATTE, W_CORE, W_GA, W_GB, W_U, W_V,
       W_UA, W_UB, W_VA, W_VB, W_UFIT, W_VFIT, W_T0, W_T1, W_T2, W_T3, W_COUNT };
enum { R_A, R_B, R_U, R_V, R_FIT, R_T, R_S0, R_S1, R_S2, R_F0, R_F1, R_F2, R_NEAR, R_CORE, R_ALPHA, R_Y, R_OU, R_OV, R_COUNT };
enum { ROW = 2 * TILE };

/// One thread's tiles' scratch: a window's planes, a row's, the even row's chroma, and the window's place.
typedef struct {
    float win[W_COUNT][WIN_N];
    float r[R_COUNT][ROW], chroma[3][ROW];
    int wx, wy, ww, wh;
} Tile;

enum { WORKERS = 2 };

struct MWFineKeyer {
    int w, h, cw, ch, gw, gh;
    float *c[C_COUNT], *g[G_COUNT], *pyramid, *cells;
    Tile tiles[WORKERS];
    uint8_t *line, *chosen;
};

MWFineKeyer *mw_fine_create(int width, int height) {
    MWFineKeyer *k = calloc(1, sizeof *k);
    if (!k) return 0;
    k->w = width, k->h = height, k->cw = (width + 1) / 2, k->ch = (height + 1) / 2;
    k->gw = (k->cw + CELL - 1) / CELL, k->gh = (k->ch + CELL - 1) / CELL;
    int ok = 1;
    for (int i = 0; i < C_COUNT; i++) ok &= (k->c[i] = malloc(sizeof(float) * k->cw * k->ch)) != 0;
    for (int i = 0; i < G_COUNT; i++) ok &= (k->g[i] = malloc(sizeof(float) * k->gw * k->gh)) != 0;
    ok &= (k->pyramid = malloc(sizeof(float) * 8 * (k->gw + 2) * (k->gh + 2))) != 0;
    ok &= (k->line = malloc(width > height ? width : height)) != 0;
    ok &= (k->chosen = malloc((size_t)k->cw * k->ch)) != 0;
    ok &= (k->cells = malloc(sizeof(float) * k->cw)) != 0;
    if (!ok) { mw_fine_free(k); return 0; }
    return k;
}

void mw_fine_free(MWFineKeyer *k) {
    if (!k) return;
    for (int i = 0; i < C_COUNT; i++) free(k->c[i]);
    for (int i = 0; i < G_COUNT; i++) free(k->g[i]);
    free(k->pyramid);
    free(k->line);
    free(k->chosen);
    free(k->cells);
    free(k);
}

static inline int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }
static inline float clampf(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
static inline uint8_t byte_of(float x) { return x <= 0.f ? 0 : x >= 255.f ? 255 : (uint8_t)(x + 0.5f); }
static inline float difference(float c0, float c1, float c2) { return c1 - (c0 > c2 ? c0 : c2); }

/// The colour-difference matte: 1 − D / D(screen) (`inverse`: 1 / D(screen)), stretched from 0.05 … 0.95 to 0 … 1.
static inline float colour_matte(float diff, float inverse) { return clampf((1.f - diff * inverse - 0.05f) / 0.9f); }
static inline float inverse_of(float screenDiff) { return 1.f / (screenDiff > 1e-3f ? screenDiff : 1e-3f); }

/// The mean over 2r + 1 samples of n, `step` apart, the edge repeated outside, into out (a running sum).
static void box_line(const float *src, long step, int n, int r, float *out, long outStep) {
    float sum = 0.f, scale = 1.f / (float)(2 * r + 1);
    for (int i = -r; i <= r; i++) sum += src[clampi(i, 0, n - 1) * step];
    for (int i = 0; i < n; i++) {
        out[i * outStep] = sum * scale;
        sum += src[clampi(i + r + 1, 0, n - 1) * step] - src[clampi(i - r, 0, n - 1) * step];
    }
}

/// The mean over 3 × 3 samples of a w × h plane (w, h ≥ 2), the edge repeated outside: rows into tmp, then whole rows
/// of tmp at once (loops the compiler vectorizes).
static void box3(const float *src, float *dst, float *restrict tmp, int w, int h) {
    const float third = 1.f / 3.f;
    for (int y = 0; y < h; y++) {
        const float *s = src + (long)y * w;
        float *restrict o = tmp + (long)y * w;
        o[0] = (2.f * s[0] + s[1]) * third;
        for (int x = 1; x < w - 1; x++) o[x] = (s[x - 1] + s[x] + s[x + 1]) * third;
        o[w - 1] = (s[w - 2] + 2.f * s[w - 1]) * third;
    }
    for (int y = 0; y < h; y++) {
        const float *restrict a = tmp + (long)(y > 0 ? y - 1 : 0) * w, *restrict b = tmp + (long)y * w;
        const float *restrict c = tmp + (long)(y + 1 < h ? y + 1 : y) * w;
        float *o = dst + (long)y * w;
        for (int x = 0; x < w; x++) o[x] = (a[x] + b[x] + c[x]) * third;
    }
}

/// The mean over (2r + 1)² samples of a w × h plane, the edge repeated outside (rows into tmp, then columns).
static void box(const float *src, float *dst, float *tmp, int w, int h, int r) {
    if (r == 1 && w >= 2 && h >= 2) { box3(src, dst, tmp, w, h); return; }
    for (int y = 0; y < h; y++) box_line(src + (long)y * w, 1, w, r, tmp + (long)y * w, 1);
    for (int x = 0; x < w; x++) box_line(tmp + x, w, h, r, dst + x, w);
}

/// Step 1: each chroma sample's luma (its 2×2 pixels' mean, in 8-bit units), channels and colour difference.
static void chroma_colours(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in) {
    for (int cy = 0; cy < k->ch; cy++) {
        const uint8_t *restrict y0 = in->plane[0] + (long)(2 * cy) * in->stride[0];
        const uint8_t *restrict y1 = in->plane[0] + (long)(2 * cy + 1 < k->h ? 2 * cy + 1 : 2 * cy) * in->stride[0];
        const uint8_t *restrict u = in->plane[1] + (long)cy * in->stride[1], *restrict v = in->plane[2] + (long)cy * in->stride[2];
        long at = (long)cy * k->cw;
        float *restrict luma = k->c[C_LUMA] + at, *restrict c0 = k->c[C_0] + at, *restrict c1 = k->c[C_1] + at;
        float *restrict c2 = k->c[C_2] + at, *restrict diff = k->c[C_DIFF] + at;
        int even = k->w / 2;
        float *restrict lmin = k->g[G_LMIN] + (long)(cy / CELL) * k->gw, *restrict lmax = k->g[G_LMAX] + (long)(cy / CELL) * k->gw;
        if (cy % CELL == 0)
            for (int gx = 0; gx < k->gw; gx++) lmin[gx] = 255.f, lmax[gx] = 0.f;
        for (int x = 0; x < k->w; x++) {
            float a = (float)(y0[x] < y1[x] ? y0[x] : y1[x]), b = (float)(y0[x] < y1[x] ? y1[x] : y0[x]);
            int gx = x / (2 * CELL);
            lmin[gx] = a < lmin[gx] ? a : lmin[gx], lmax[gx] = b > lmax[gx] ? b : lmax[gx];
        }
        for (int cx = 0; cx < k->cw; cx++) {
            int x1 = cx < even ? 2 * cx + 1 : 2 * cx;
            float l = 0.25f * (float)(y0[2 * cx] + y0[x1] + y1[2 * cx] + y1[x1]);
            float yl = (l - p->lumaZero) * p->lumaScale;
            float uu = ((float)u[cx] - 128.f) * p->chromaScale, vv = ((float)v[cx] - 128.f) * p->chromaScale;
            float a = yl + uu * p->perU[0] + vv * p->perV[0], b = yl + uu * p->perU[1] + vv * p->perV[1];
            float c = yl + uu * p->perU[2] + vv * p->perV[2];
            luma[cx] = l, c0[cx] = a, c1[cx] = b, c2[cx] = c;
            diff[cx] = difference(a, b, c);
        }
    }
}

/// The grid's sums of the chosen samples' channels (G_N0 … G_N2) and their share (G_DEN), box-filtered by r cells.
static void grid_sums(MWFineKeyer *k, const uint8_t *chosen, int r) {
    int gw = k->gw, gh = k->gh, cw = k->cw;
    const float share = 1.f / (CELL * CELL);
    for (int gy = 0; gy < gh; gy++) {
        float *restrict n0 = k->g[G_N0] + (long)gy * gw, *restrict n1 = k->g[G_N1] + (long)gy * gw;
        float *restrict n2 = k->g[G_N2] + (long)gy * gw, *restrict den = k->g[G_DEN] + (long)gy * gw;
        memset(n0, 0, sizeof(float) * gw), memset(n1, 0, sizeof(float) * gw), memset(n2, 0, sizeof(float) * gw);
        memset(den, 0, sizeof(float) * gw);
        for (int cy = CELL * gy; cy < CELL * gy + CELL && cy < k->ch; cy++) {
            long at = (long)cy * cw;
            const uint8_t *restrict m = chosen + at;
            const float *restrict c0 = k->c[C_0] + at, *restrict c1 = k->c[C_1] + at, *restrict c2 = k->c[C_2] + at;
            for (int gx = 0; gx < gw; gx++) {
                float s0 = 0.f, s1 = 0.f, s2 = 0.f, sd = 0.f;
                for (int cx = CELL * gx; cx < CELL * gx + CELL && cx < cw; cx++) {
                    float a = (float)m[cx];
                    s0 += a * c0[cx], s1 += a * c1[cx], s2 += a * c2[cx], sd += a;
                }
                n0[gx] += share * s0, n1[gx] += share * s1, n2[gx] += share * s2, den[gx] += share * sd;
            }
        }
    }
    for (int i = 0; i < 4; i++) box(k->g[G_N0 + i], k->g[G_N0 + i], k->g[G_TMP], gw, gh, r);
}

/// Normalized convolution's means (into g[first …]): the grid's sums over their share where a cell saw enough, else
/// its parent's in a pyramid of 2×2 sums (push-pull: a hole takes the colour of what is nearest at the coarsest
/// level that sees any; none at all: `fallback`).
static void grid_means(MWFineKeyer *k, int first, const float fallback[3]) {
    int w[24], h[24], levels = 1;
    long at[24];
    float *pyr = k->pyramid;
    w[0] = k->gw, h[0] = k->gh, at[0] = 0;
    for (long i = 0; i < (long)w[0] * h[0]; i++)
        for (int j = 0; j < 4; j++) pyr[4 * i + j] = k->g[G_N0 + j][i];
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
    for (int l = levels - 1; l >= 0; l--)
        for (int y = 0; y < h[l]; y++)
            for (int x = 0; x < w[l]; x++) {
                float *cell = pyr + at[l] + 4L * (y * w[l] + x);
                const float *parent = l + 1 < levels ? pyr + at[l + 1] + 4L * ((y / 2) * w[l + 1] + x / 2) : 0;
                float own = cell[3] >= 1e-3f ? 1.f : cell[3] / 1e-3f;
                for (int j = 0; j < 3; j++) {
                    float outer = parent ? parent[j] : fallback[j];
                    cell[j] = own > 0.f ? own * (cell[j] / cell[3]) + (1.f - own) * outer : outer;
                }
            }
    for (long i = 0; i < (long)w[0] * h[0]; i++)
        for (int j = 0; j < 3; j++) k->g[first + j][i] = pyr[4 * i + j];
}

/// Step 2: the screen field (g[G_S0 …]) from the samples `chosen` calls clear, and where the screen is near (G_NEAR:
/// its share of clear samples around, full from 5 %: the spill limit acts there, a green shirt far from it keeps
/// its green).
static void screen_field(MWFineKeyer *k, const MWFineParams *p, const uint8_t *chosen) {
    long gn = (long)k->gw * k->gh;
    grid_sums(k, chosen, SCREEN_CELLS);
    for (long i = 0; i < gn; i++) k->g[G_NEAR][i] = k->g[G_DEN][i] >= 0.05f ? 1.f : k->g[G_DEN][i] / 0.05f;
    grid_means(k, G_S0, p->key);
}

/// Each sample's cell's value of `f` (the screen field's difference, scaled) into a row of samples.
static void cell_row(const MWFineKeyer *k, int cy, float scale, int inverse, float *out) {
    const long g = (long)(cy / CELL) * k->gw;
    for (int gx = 0; gx < k->gw; gx++) {
        float ds = difference(k->g[G_S0][g + gx], k->g[G_S1][g + gx], k->g[G_S2][g + gx]);
        float v = inverse ? scale * inverse_of(ds) : scale * ds;
        for (int i = CELL * gx; i < CELL * gx + CELL && i < k->cw; i++) out[i] = v;
    }
}

/// Steps 2 and 3 on the grid: the screen field (clear against the key, then against the screen there), the
/// colour-difference matte at each sample (C_MATTE: 1 − D / D(its cell's screen), stretched), the foreground field
/// from the opaque.
static void fields(MWFineKeyer *k, const MWFineParams *p) {
    long n = (long)k->cw * k->ch;
    uint8_t *chosen = k->chosen;
    float keyDiff = difference(p->key[0], p->key[1], p->key[2]), *row = k->cells;
    for (long i = 0; i < n; i++) chosen[i] = k->c[C_DIFF][i] > CLEAR_KEY * keyDiff;
    screen_field(k, p, chosen);
    for (int cy = 0; cy < k->ch; cy++) {
        cell_row(k, cy, CLEAR_LOCAL, 0, row);
        const float *restrict d = k->c[C_DIFF] + (long)cy * k->cw;
        uint8_t *restrict m = chosen + (long)cy * k->cw;
        for (int cx = 0; cx < k->cw; cx++) m[cx] = d[cx] > row[cx];
    }
    screen_field(k, p, chosen);
    for (int cy = 0; cy < k->ch; cy++) {
        cell_row(k, cy, 1.f, 1, row);
        const float *restrict d = k->c[C_DIFF] + (long)cy * k->cw;
        float *restrict matte = k->c[C_MATTE] + (long)cy * k->cw;
        uint8_t *restrict m = chosen + (long)cy * k->cw;
        for (int cx = 0; cx < k->cw; cx++) {
            matte[cx] = colour_matte(d[cx], row[cx]);
            m[cx] = matte[cx] >= OPAQUE;
        }
    }
    for (int gy = 0; gy < k->gh; gy++)
        for (int gx = 0; gx < k->gw; gx++) {
            float lo = 1.f, hi = 0.f;
            for (int cy = CELL * gy; cy < CELL * gy + CELL && cy < k->ch; cy++)
                for (int cx = CELL * gx; cx < CELL * gx + CELL && cx < k->cw; cx++) {
                    float m = k->c[C_MATTE][(long)cy * k->cw + cx];
                    lo = m < lo ? m : lo, hi = m > hi ? m : hi;
                }
            k->g[G_MMIN][gy * k->gw + gx] = lo, k->g[G_MMAX][gy * k->gw + gx] = hi;
        }
    grid_sums(k, chosen, FORE_CELLS);
    // No opaque sample anywhere: the foreground is the screen (the projection then has no line and says nothing).
    grid_means(k, G_F0, p->key);
}

/// A grid field at the window's samples (into win[first …], `count` channels from g[from …]): bilinear between cell
/// centres.
static void field_to_window(MWFineKeyer *k, Tile *t, int from, int count, int first) {
    int x0[WIN], x1[WIN];
    float tx[WIN];
    for (int x = 0; x < t->ww; x++) {
        float gx = (t->wx + x - 0.5f * (CELL - 1)) / CELL;
        x0[x] = clampi((int)(gx < 0 ? -1 : gx), 0, k->gw - 1), x1[x] = clampi(x0[x] + 1, 0, k->gw - 1);
        tx[x] = gx < 0 ? 0.f : gx - (float)(int)gx;
    }
    for (int y = 0; y < t->wh; y++) {
        float gy = (t->wy + y - 0.5f * (CELL - 1)) / CELL;
        int y0 = clampi((int)(gy < 0 ? -1 : gy), 0, k->gh - 1), y1 = clampi(y0 + 1, 0, k->gh - 1);
        float ty = gy < 0 ? 0.f : gy - (float)(int)gy;
        for (int j = 0; j < count; j++) {
            const float *top = k->g[from + j] + (long)y0 * k->gw, *bottom = k->g[from + j] + (long)y1 * k->gw;
            float *out = t->win[first + j] + y * t->ww;
            for (int x = 0; x < t->ww; x++) {
                float a = top[x0[x]] + (top[x1[x]] - top[x0[x]]) * tx[x], b = bottom[x0[x]] + (bottom[x1[x]] - bottom[x0[x]]) * tx[x];
                out[x] = a + (b - a) * ty;
            }
        }
    }
}

/// The window's own planes: the samples' luma and colour difference, u and v, the fields, the colour-difference matte
/// by the field's screen.
static void load_window(MWFineKeyer *k, Tile *t, const MWFineParams *p, const MWFineInput *in) {
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
    field_to_window(k, t, G_S0, 3, W_S0);
    field_to_window(k, t, G_F0, 3, W_F0);
    field_to_window(k, t, G_NEAR, 1, W_NEAR);
    for (int i = 0; i < t->ww * t->wh; i++) {
        float ds = difference(t->win[W_S0][i], t->win[W_S1][i], t->win[W_S2][i]);
        t->win[W_MATTE][i] = colour_matte(t->win[W_DIFF][i], inverse_of(ds));
    }
}

/// The solid core: 1 where every sample within CORE_SAMPLES of this one has a colour-difference matte of
/// CORE_LEAST or more (spill's doubt inside a subject is not transparency), else 0.
static void solid_core(Tile *t) {
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

/// Step 4's coefficients over the window: in each 3×3 window of samples, `a` ≈ ga·luma + gb (least squares, ε), both
/// then averaged over 3×3 again; `fit` (if asked) how well that line fits (1 − its residual's spread / CHROMA_FIT).
static void guided(MWFineKeyer *k, Tile *t, const float *a, float eps, float *ga, float *gb, float *fit) {
    int w = t->ww, h = t->wh, n = w * h;
    float *y = t->win[W_LUMA], *t0 = t->win[W_T0], *t1 = t->win[W_T1], *t2 = t->win[W_T2], *tmp = t->win[W_T3];
    for (int i = 0; i < n; i++) t0[i] = y[i] * a[i], t1[i] = y[i] * y[i];
    box(t0, t0, tmp, w, h, 1);
    box(t1, t1, tmp, w, h, 1);
    box(y, t2, tmp, w, h, 1);
    if (fit) {
        for (int i = 0; i < n; i++) fit[i] = a[i] * a[i];
        box(fit, fit, tmp, w, h, 1);
    }
    box(a, gb, tmp, w, h, 1);
    for (int i = 0; i < n; i++) {
        float my = t2[i], ma = gb[i];
        float cov = t0[i] - my * ma, var = t1[i] - my * my;
        ga[i] = cov / (var + eps);
        gb[i] = ma - ga[i] * my;
        if (fit) {
            float e = fit[i] - ma * ma - ga[i] * cov;
            e = e > 0.f ? sqrtf(e) / CHROMA_FIT : 0.f;
            fit[i] = e > 1.f ? 0.f : 1.f - e;
        }
    }
    box(ga, ga, tmp, w, h, 1);
    box(gb, gb, tmp, w, h, 1);
    if (fit) box(fit, fit, tmp, w, h, 1);
}

/// A window plane at luma row y, pixels x0 … x0 + n − 1, bilinear (centre-sited: 3/4 of the nearest sample, 1/4 of
/// the next), the window's edge repeated.
static void upsampled(const MWFineKeyer *k, Tile *t, const float *plane, int y, int x0, int n, float *out) {
    int cy = y / 2 - t->wy, other = clampi(y % 2 ? cy + 1 : cy - 1, 0, t->wh - 1);
    const float *near = plane + cy * t->ww, *far = plane + other * t->ww;
    for (int i = 0; i < n; i++) {
        int x = x0 + i, cx = x / 2 - t->wx, ox = clampi(x % 2 ? cx + 1 : cx - 1, 0, t->ww - 1);
        float a = 0.75f * near[cx] + 0.25f * far[cx], b = 0.75f * near[ox] + 0.25f * far[ox];
        out[i] = 0.75f * a + 0.25f * b;
    }
}

/// A window plane at luma row y, each sample over its two pixels.
static void repeated(const MWFineKeyer *k, Tile *t, const float *plane, int y, int x0, int n, float *out) {
    const float *row = plane + (y / 2 - t->wy) * t->ww;
    for (int i = 0; i < n; i++) out[i] = row[(x0 + i) / 2 - t->wx];
}

/// A row's u and v brought to full resolution by luma where the window's chroma follows a line in luma (a 4:2:0 edge
/// between two colours), bilinear where it does not (more colours than two in the window).
static void guided_chroma(MWFineKeyer *k, Tile *t, const uint8_t *luma, int y, int x0, int n) {
    for (int j = 0; j < 2; j++) {
        float *out = t->r[j ? R_V : R_U];
        upsampled(k, t, t->win[j ? W_VA : W_UA], y, x0, n, out);
        upsampled(k, t, t->win[j ? W_VB : W_UB], y, x0, n, t->r[R_T]);
        upsampled(k, t, t->win[j ? W_VFIT : W_UFIT], y, x0, n, t->r[R_FIT]);
        upsampled(k, t, t->win[j ? W_V : W_U], y, x0, n, t->r[R_Y]);
        for (int i = 0; i < n; i++) {
            float g = out[i] * (float)luma[i] + t->r[R_T][i], f = t->r[R_FIT][i];
            out[i] = f * g + (1.f - f) * t->r[R_Y][i];
        }
    }
}

/// One chroma sample's u and v written: the mean of its pixels' weighted by their alphas (equal shares where none
/// shows: the core's weights are alpha + 0.001).
static void chroma_sample(const MWFineParams *p, const float *rows[2][3], int i0, int i1, uint8_t *u, uint8_t *v) {
    float a = rows[0][0][i0] + rows[0][0][i1] + rows[1][0][i0] + rows[1][0][i1] + 4e-3f;
    float uu = (rows[0][1][i0] + rows[0][1][i1] + rows[1][1][i0] + rows[1][1][i1]) / a;
    float vv = (rows[0][2][i0] + rows[0][2][i1] + rows[1][2][i0] + rows[1][2][i1]) / a;
    *u = byte_of(128.f + uu / p->chromaScale);
    *v = byte_of(128.f + vv / p->chromaScale);
}

/// Step 5 over one luma row of a tile (pixels x0 … x0 + n − 1): the row's inputs, the core, its luma and alpha (and
/// with full chroma its u and v) written.
static void tile_row(MWFineKeyer *k, Tile *t, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, MWFineCore core,
                     int y, int x0, int n) {
    float (*r)[ROW] = t->r;
    const uint8_t *luma = in->plane[0] + (long)y * in->stride[0] + x0;
    upsampled(k, t, t->win[W_GA], y, x0, n, r[R_A]);
    upsampled(k, t, t->win[W_GB], y, x0, n, r[R_B]);
    guided_chroma(k, t, luma, y, x0, n);
    for (int j = 0; j < 3; j++) repeated(k, t, t->win[W_S0 + j], y, x0, n, r[R_S0 + j]), repeated(k, t, t->win[W_F0 + j], y, x0, n, r[R_F0 + j]);
    repeated(k, t, t->win[W_NEAR], y, x0, n, r[R_NEAR]);
    repeated(k, t, t->win[W_CORE], y, x0, n, r[R_CORE]);
    MWFineRow row = {luma, r[R_A], r[R_B], r[R_U], r[R_V], {r[R_S0], r[R_S1], r[R_S2]}, {r[R_F0], r[R_F1], r[R_F2]},
                     r[R_NEAR], r[R_CORE], r[R_ALPHA], r[R_Y], r[R_OU], r[R_OV], n};
    core(p, &row);
    uint8_t *oy = out->plane[0] + (long)y * out->stride[0] + x0, *oa = out->plane[3] + (long)y * out->stride[3] + x0;
    for (int i = 0; i < n; i++) oy[i] = byte_of(r[R_Y][i]), oa[i] = byte_of(r[R_ALPHA][i] * 255.f);
    if (!out->fullChroma) return;
    uint8_t *ou = out->plane[1] + (long)y * out->stride[1] + x0, *ov = out->plane[2] + (long)y * out->stride[2] + x0;
    const float *rows[2][3] = {{r[R_ALPHA], r[R_OU], r[R_OV]}, {r[R_ALPHA], r[R_OU], r[R_OV]}};
    for (int i = 0; i < n; i++) chroma_sample(p, rows, i, i, ou + i, ov + i);
}

/// Steps 3 to 5 for a tile that is neither plain screen nor plain subject: its window's planes, the solid core, the
/// guided filters, then its rows.
static void mixed_tile(MWFineKeyer *k, Tile *t, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out,
                       MWFineCore core, int tx, int ty) {
    load_window(k, t, p, in);
    solid_core(t);
    guided(k, t, t->win[W_MATTE], MATTE_EPS, t->win[W_GA], t->win[W_GB], 0);
    guided(k, t, t->win[W_U], CHROMA_EPS, t->win[W_UA], t->win[W_UB], t->win[W_UFIT]);
    guided(k, t, t->win[W_V], CHROMA_EPS, t->win[W_VA], t->win[W_VB], t->win[W_VFIT]);
    int x0 = 2 * TILE * tx, x1 = clampi(x0 + 2 * TILE, 0, k->w), y0 = 2 * TILE * ty, y1 = clampi(y0 + 2 * TILE, 0, k->h);
    for (int y = y0; y < y1; y++) {
        tile_row(k, t, p, in, out, core, y, x0, x1 - x0);
        if (out->fullChroma) continue;
        if (y % 2 == 0 && y + 1 < y1) {
            for (int j = 0; j < 3; j++) memcpy(t->chroma[j], t->r[j == 0 ? R_ALPHA : j == 1 ? R_OU : R_OV], sizeof(float) * ROW);
            continue;
        }
        const float *rows[2][3] = {{t->chroma[0], t->chroma[1], t->chroma[2]}, {t->r[R_ALPHA], t->r[R_OU], t->r[R_OV]}};
        if (y % 2 == 0) for (int j = 0; j < 3; j++) rows[0][j] = rows[1][j];
        uint8_t *ou = out->plane[1] + (long)(y / 2) * out->stride[1], *ov = out->plane[2] + (long)(y / 2) * out->stride[2];
        for (int cx = x0 / 2; cx < (x1 + 1) / 2; cx++) {
            int i0 = 2 * cx - x0, i1 = 2 * cx + 1 < x1 ? i0 + 1 : i0;
            chroma_sample(p, rows, i0, i1, ou + cx, ov + cx);
        }
    }
}

/// The window of tile (tx, ty): its samples and APRON more each side, within the picture.
static void place_window(MWFineKeyer *k, Tile *t, int tx, int ty) {
    t->wx = clampi(TILE * tx - APRON, 0, k->cw), t->wy = clampi(TILE * ty - APRON, 0, k->ch);
    t->ww = clampi(TILE * tx + TILE + APRON, 0, k->cw) - t->wx, t->wh = clampi(TILE * ty + TILE + APRON, 0, k->ch) - t->wy;
}

enum { MIXED, SCREEN, SOLID };

/// What a tile is: plain screen (its window's colour-difference matte 0 and every pixel's luma the screen's there),
/// plain subject (its window's matte 1, no screen near), or neither.
static int tile_kind(const MWFineKeyer *k, Tile *t, const MWFineParams *p, int tx, int ty) {
    // The cells over the window (a little more than it: a tile is called plain only when it surely is).
    int zero = 1, one = 1, near = 0;
    for (int gy = t->wy / CELL; gy <= (t->wy + t->wh - 1) / CELL; gy++)
        for (int gx = t->wx / CELL; gx <= (t->wx + t->ww - 1) / CELL; gx++) {
            long g = (long)gy * k->gw + gx;
            zero &= k->g[G_MMAX][g] <= 0.f, one &= k->g[G_MMIN][g] >= 1.f, near |= k->g[G_NEAR][g] > 0.f;
        }
    if (one) return near ? MIXED : SOLID;
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

/// A plain tile written: screen (alpha 0, the colour the foreground field has there, so no green bleeds when the
/// picture is scaled or its chroma averaged) or subject (alpha 1, its own colour).
static void plain_tile(const MWFineKeyer *k, const MWFineInput *in, const MWFineOutput *out, int kind, int tx, int ty) {
    int x0 = 2 * TILE * tx, x1 = clampi(x0 + 2 * TILE, 0, k->w), y0 = 2 * TILE * ty, y1 = clampi(y0 + 2 * TILE, 0, k->h);
    int sub = out->fullChroma ? 0 : 1, span = 2 * CELL;
    for (int y = y0; y < y1; y++) {
        uint8_t *oa = out->plane[3] + (long)y * out->stride[3], *oy = out->plane[0] + (long)y * out->stride[0];
        memset(oa + x0, kind == SOLID ? 255 : 0, x1 - x0);
        if (kind == SOLID) { memcpy(oy + x0, in->plane[0] + (long)y * in->stride[0] + x0, x1 - x0); continue; }
        const float *fy = k->g[G_FY] + (long)(y / span) * k->gw, *fu = k->g[G_FU] + (long)(y / span) * k->gw;
        const float *fv = k->g[G_FV] + (long)(y / span) * k->gw;
        for (int x = x0; x < x1; x++) oy[x] = (uint8_t)fy[x / span];
        if (sub && y % 2) continue;
        uint8_t *ou = out->plane[1] + (long)(y >> sub) * out->stride[1], *ov = out->plane[2] + (long)(y >> sub) * out->stride[2];
        for (int x = x0 >> sub; x < (x1 + sub) >> sub; x++) ou[x] = (uint8_t)fu[(x << sub) / span], ov[x] = (uint8_t)fv[(x << sub) / span];
    }
    if (kind != SOLID) return;
    for (int cy = y0 / 2; cy < (y1 + 1) / 2; cy++)
        for (int j = 1; j < 3; j++)
            memcpy(out->plane[j] + (long)cy * out->stride[j] + x0 / 2, in->plane[j] + (long)cy * in->stride[j] + x0 / 2, (x1 + 1) / 2 - x0 / 2);
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

/// The minimum (choke) or mean (feather) over 2r + 1 samples of n, `step` bytes apart, the edge repeated.
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

/// See FineKeyer.h. The matte shrunk by `choke` pixels (a square's minimum) and softened over `feather` (a box twice:
/// near a Gaussian).
void mw_fine_matte(const MWFineParams *p, uint8_t *alpha, long stride, int w, int h, uint8_t *line) {
    if (p->garbageCount > 0) garbage(p, alpha, stride, w, h, line);
    for (int pass = 0; pass < 3; pass++) {
        int r = pass == 0 ? p->choke : p->feather, mean = pass > 0;
        if (r <= 0) continue;
        for (int y = 0; y < h; y++) filter_line(alpha + (long)y * stride, 1, w, r, mean, line);
        for (int x = 0; x < w; x++) filter_line(alpha + x, stride, h, r, mean, line);
    }
}

/// Each cell's screen luma and the foreground field's colour as 8-bit luma, u and v (a plain screen tile's).
static void cell_colours(MWFineKeyer *k, const MWFineParams *p) {
    for (long i = 0; i < (long)k->gw * k->gh; i++) {
        const float s[3] = {k->g[G_S0][i], k->g[G_S1][i], k->g[G_S2][i]}, f[3] = {k->g[G_F0][i], k->g[G_F1][i], k->g[G_F2][i]};
        k->g[G_YS][i] = p->lumaZero + (p->luma[0] * s[0] + p->luma[1] * s[1] + p->luma[2] * s[2]) / p->lumaScale;
        k->g[G_FY][i] = byte_of(p->lumaZero + (p->luma[0] * f[0] + p->luma[1] * f[1] + p->luma[2] * f[2]) / p->lumaScale);
        k->g[G_FU][i] = byte_of(128.f + (p->toU[0] * f[0] + p->toU[1] * f[1] + p->toU[2] * f[2]) / p->chromaScale);
        k->g[G_FV][i] = byte_of(128.f + (p->toV[0] * f[0] + p->toV[1] * f[1] + p->toV[2] * f[2]) / p->chromaScale);
    }
}

void mw_fine_prepare(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in) {
    chroma_colours(k, p, in);
    fields(k, p);
    cell_colours(k, p);
}

int mw_fine_tiles(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, int level, int part,
                  int parts) {
    MWFineCore core = mw_fine_core(level);
    if (!core || part < 0 || part >= WORKERS || parts > WORKERS) return -1;
    Tile *t = &k->tiles[part];
    for (int ty = part; ty * TILE < k->ch; ty += parts)
        for (int tx = 0; tx * TILE < k->cw; tx++) {
            place_window(k, t, tx, ty);
            int kind = tile_kind(k, t, p, tx, ty);
            // With full chroma a subject's own tile is upsampled as any (its colour's resolution is the point).
            if (kind == MIXED || (kind == SOLID && out->fullChroma)) mixed_tile(k, t, p, in, out, core, tx, ty);
            else plain_tile(k, in, out, kind, tx, ty);
        }
    return 0;
}

int mw_fine_key(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, int level) {
    mw_fine_prepare(k, p, in);
    if (mw_fine_tiles(k, p, in, out, level, 0, 1) != 0) return -1;
    mw_fine_matte(p, out->plane[3], out->stride[3], k->w, k->h, k->line);
    return 0;
}
