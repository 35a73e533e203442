// See FineKeyer.h: the fine keyer's picture-wide steps (the fields, the guided filter, the rows, the matte), and its
// core compiled at each level.
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

/// Planes at chroma resolution (cw × ch) and on the fields' grid (gw × gh: 2×2 chroma samples a cell), and a row's.
enum { C_LUMA, C_0, C_1, C_2, C_DIFF, C_MATTE, C_GA, C_GB, C_S0, C_S1, C_S2, C_F0, C_F1, C_F2, C_NEAR, C_CORE, C_U, C_V, C_UA, C_UB, C_VA, C_VB, C_UFIT, C_VFIT, C_T0, C_T1,
       C_T2, C_T3, C_COUNT };
enum { G_N0, G_N1, G_N2, G_DEN, G_T0, G_T1, G_T2, G_T3, G_NEAR, G_BOX, G_COUNT };
enum { R_A, R_B, R_U, R_V, R_FIT, R_S0, R_S1, R_S2, R_F0, R_F1, R_F2, R_NEAR, R_CORE, R_ALPHA, R_Y, R_OU, R_OV, R_COUNT };

struct MWFineKeyer {
    int w, h, cw, ch, gw, gh;
    float *c[C_COUNT], *g[G_COUNT], *r[R_COUNT];
    /// The previous row's alpha, u and v (for its chroma row's average), and a row for the matte's filters.
    float *prev[3];
    uint8_t *line;
};

MWFineKeyer *mw_fine_create(int width, int height) {
    MWFineKeyer *k = calloc(1, sizeof *k);
    if (!k) return 0;
    k->w = width, k->h = height, k->cw = (width + 1) / 2, k->ch = (height + 1) / 2;
    k->gw = (k->cw + 1) / 2, k->gh = (k->ch + 1) / 2;
    int ok = 1;
    for (int i = 0; i < C_COUNT; i++) ok &= (k->c[i] = malloc(sizeof(float) * k->cw * k->ch)) != 0;
    for (int i = 0; i < G_COUNT; i++) ok &= (k->g[i] = malloc(sizeof(float) * k->gw * k->gh)) != 0;
    for (int i = 0; i < R_COUNT; i++) ok &= (k->r[i] = malloc(sizeof(float) * width)) != 0;
    for (int i = 0; i < 3; i++) ok &= (k->prev[i] = malloc(sizeof(float) * width)) != 0;
    ok &= (k->line = malloc(width > height ? width : height)) != 0;
    if (!ok) { mw_fine_free(k); return 0; }
    return k;
}

void mw_fine_free(MWFineKeyer *k) {
    if (!k) return;
    for (int i = 0; i < C_COUNT; i++) free(k->c[i]);
    for (int i = 0; i < G_COUNT; i++) free(k->g[i]);
    for (int i = 0; i < R_COUNT; i++) free(k->r[i]);
    for (int i = 0; i < 3; i++) free(k->prev[i]);
    free(k->line);
    free(k);
}

static inline int clampi(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

/// The mean over (2r + 1)² samples of a w × h plane, the edge repeated outside (separable: rows into tmp, then columns).
static void box(const float *src, float *dst, float *tmp, int w, int h, int r) {
    const float n = (float)(2 * r + 1);
    for (int y = 0; y < h; y++) {
        const float *s = src + (long)y * w;
        for (int x = 0; x < w; x++) {
            float sum = 0.f;
            for (int i = -r; i <= r; i++) sum += s[clampi(x + i, 0, w - 1)];
            tmp[(long)y * w + x] = sum / n;
        }
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float sum = 0.f;
            for (int i = -r; i <= r; i++) sum += tmp[(long)clampi(y + i, 0, h - 1) * w + x];
            dst[(long)y * w + x] = sum / n;
        }
    }
}

/// Step 1: each chroma sample's luma (its 2×2 pixels' mean, in 8-bit units), channels and colour difference.
static void chroma_colours(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in) {
    for (int cy = 0; cy < k->ch; cy++) {
        const uint8_t *y0 = in->plane[0] + (long)(2 * cy) * in->stride[0];
        const uint8_t *y1 = in->plane[0] + (long)(2 * cy + 1 < k->h ? 2 * cy + 1 : 2 * cy) * in->stride[0];
        const uint8_t *u = in->plane[1] + (long)cy * in->stride[1], *v = in->plane[2] + (long)cy * in->stride[2];
        for (int cx = 0; cx < k->cw; cx++) {
            int x0 = 2 * cx, x1 = 2 * cx + 1 < k->w ? 2 * cx + 1 : 2 * cx;
            long i = (long)cy * k->cw + cx;
            float luma = 0.25f * (float)(y0[x0] + y0[x1] + y1[x0] + y1[x1]);
            float yl = (luma - p->lumaZero) * p->lumaScale;
            float uu = ((float)u[cx] - 128.f) * p->chromaScale, vv = ((float)v[cx] - 128.f) * p->chromaScale, c[3];
            for (int j = 0; j < 3; j++) c[j] = k->c[C_0 + j][i] = yl + uu * p->perU[j] + vv * p->perV[j];
            k->c[C_LUMA][i] = luma;
            k->c[C_DIFF][i] = c[1] - (c[0] > c[2] ? c[0] : c[2]);
        }
    }
}

/// The grid's sums of the chosen samples' channels (G_N0 … G_N2) and their share (G_DEN), box-filtered by r cells.
static void grid_sums(MWFineKeyer *k, const uint8_t *chosen, int r) {
    int gw = k->gw, gh = k->gh;
    for (int i = 0; i < 4; i++) memset(k->g[G_N0 + i], 0, sizeof(float) * gw * gh);
    for (int cy = 0; cy < k->ch; cy++) {
        for (int cx = 0; cx < k->cw; cx++) {
            long i = (long)cy * k->cw + cx, g = (long)(cy / 2) * gw + cx / 2;
            if (!chosen[i]) continue;
            for (int j = 0; j < 3; j++) k->g[G_N0 + j][g] += 0.25f * k->c[C_0 + j][i];
            k->g[G_DEN][g] += 0.25f;
        }
    }
    for (int i = 0; i < 4; i++) box(k->g[G_N0 + i], k->g[G_N0 + i], k->g[G_BOX], gw, gh, r);
}

/// Normalized convolution's holes filled: where a cell saw no chosen sample, its sums box-filtered again (up to eight
/// times, each reaching r cells farther).
static void grid_fill(MWFineKeyer *k, int r) {
    long n = (long)k->gw * k->gh;
    for (int round = 0; round < 8; round++) {
        int missing = 0;
        for (long i = 0; i < n; i++) missing |= k->g[G_DEN][i] < 1e-3f;
        if (!missing) return;
        for (int j = 0; j < 4; j++) box(k->g[G_N0 + j], k->g[G_T0 + j], k->g[G_BOX], k->gw, k->gh, r);
        for (long i = 0; i < n; i++) {
            if (k->g[G_DEN][i] >= 1e-3f) continue;
            for (int j = 0; j < 4; j++) k->g[G_N0 + j][i] = k->g[G_T0 + j][i];
        }
    }
}

/// The field at chroma resolution (into c[first …]): the grid's means, bilinear between cell centres, `fallback`
/// where a cell saw nothing.
static void grid_to_chroma(MWFineKeyer *k, int first, const float fallback[3]) {
    int gw = k->gw, gh = k->gh;
    for (int cy = 0; cy < k->ch; cy++) {
        float gy = (cy - 0.5f) * 0.5f;
        int y0 = clampi((int)(gy < 0 ? -1 : gy), 0, gh - 1), y1 = clampi(y0 + 1, 0, gh - 1);
        float ty = gy < 0 ? 0.f : gy - (float)(int)gy;
        for (int cx = 0; cx < k->cw; cx++) {
            float gx = (cx - 0.5f) * 0.5f;
            int x0 = clampi((int)(gx < 0 ? -1 : gx), 0, gw - 1), x1 = clampi(x0 + 1, 0, gw - 1);
            float tx = gx < 0 ? 0.f : gx - (float)(int)gx;
            long a = (long)y0 * gw + x0, b = (long)y0 * gw + x1, c = (long)y1 * gw + x0, d = (long)y1 * gw + x1;
            for (int j = 0; j < 3; j++) {
                float v[4];
                long at[4] = {a, b, c, d};
                for (int q = 0; q < 4; q++) {
                    float den = k->g[G_DEN][at[q]];
                    v[q] = den > 1e-6f ? k->g[G_N0 + j][at[q]] / den : fallback[j];
                }
                float top = v[0] + (v[1] - v[0]) * tx, bottom = v[2] + (v[3] - v[2]) * tx;
                k->c[first + j][(long)cy * k->cw + cx] = top + (bottom - top) * ty;
            }
        }
    }
}

/// The tuned constants of the picture-wide steps (scripts/key-fine-model.py, then the C keyer's own scores): the
/// screen field's reach (cells of 2×2 chroma samples: 4 is about 16 pixels) and the foreground's (12), what counts as
/// clear screen (first against the key colour, then against the screen around it, which the light varies), opaque,
/// and the guided filters' ε (luma in 8-bit units against a matte or chroma) and the chroma line's tolerance.
enum { SCREEN_CELLS = 4, FORE_CELLS = 3, CORE_SAMPLES = 2 };
static const float CLEAR_KEY = 0.7f, CLEAR_LOCAL = 0.95f, OPAQUE = 0.98f, CORE_LEAST = 0.75f;
static const float MATTE_EPS = 8.f, CHROMA_EPS = 8.f, CHROMA_FIT = 0.02f;

/// The screen field from the samples `chosen` calls clear (into C_S0 …), and where the screen is near (G_NEAR: its
/// share of clear samples around, full from 5 %: the spill limit acts there, a green shirt far from it keeps its green).
static void screen_field(MWFineKeyer *k, const MWFineParams *p, const uint8_t *chosen) {
    long gn = (long)k->gw * k->gh;
    grid_sums(k, chosen, SCREEN_CELLS);
    for (long i = 0; i < gn; i++) k->g[G_NEAR][i] = k->g[G_DEN][i] >= 0.05f ? 1.f : k->g[G_DEN][i] / 0.05f;
    grid_fill(k, SCREEN_CELLS);
    grid_to_chroma(k, C_S0, p->key);
}

/// Steps 2 and 3: the screen field, where the screen is near, the colour-difference matte, the foreground field.
static void fields(MWFineKeyer *k, const MWFineParams *p) {
    long n = (long)k->cw * k->ch, gn = (long)k->gw * k->gh;
    uint8_t *chosen = (uint8_t *)k->c[C_T3];
    float keyDiff = p->key[1] - (p->key[0] > p->key[2] ? p->key[0] : p->key[2]);
    for (long i = 0; i < n; i++) chosen[i] = k->c[C_DIFF][i] > CLEAR_KEY * keyDiff;
    screen_field(k, p, chosen);
    for (long i = 0; i < n; i++) {
        float s0 = k->c[C_S0][i], s1 = k->c[C_S1][i], s2 = k->c[C_S2][i];
        chosen[i] = k->c[C_DIFF][i] > CLEAR_LOCAL * (s1 - (s0 > s2 ? s0 : s2));
    }
    screen_field(k, p, chosen);
    for (long i = 0; i < gn; i++) k->g[G_DEN][i] = 1.f, k->g[G_N0][i] = k->g[G_NEAR][i];
    const float none[3] = {0.f, 0.f, 0.f};
    grid_to_chroma(k, C_T0, none);
    memcpy(k->c[C_NEAR], k->c[C_T0], sizeof(float) * n);
    for (long i = 0; i < n; i++) {
        float s0 = k->c[C_S0][i], s1 = k->c[C_S1][i], s2 = k->c[C_S2][i];
        float ds = s1 - (s0 > s2 ? s0 : s2);
        float a = (1.f - k->c[C_DIFF][i] / (ds > 1e-3f ? ds : 1e-3f) - 0.05f) / 0.9f;
        k->c[C_MATTE][i] = a < 0.f ? 0.f : a > 1.f ? 1.f : a;
        chosen[i] = k->c[C_MATTE][i] >= OPAQUE;
    }
    grid_sums(k, chosen, FORE_CELLS);
    grid_fill(k, FORE_CELLS);
    // No opaque sample anywhere: the foreground is the screen (the projection then has no line and says nothing).
    grid_to_chroma(k, C_F0, p->key);
}

/// The solid core: 1 where every chroma sample within r of this one has a colour-difference matte of `least` or
/// more (spill's doubt inside a subject is not transparency), else 0.
static void solid_core(MWFineKeyer *k, float least, int r) {
    float *c = k->c[C_CORE], *t = k->c[C_T0];
    int w = k->cw, h = k->ch;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = 1.f;
            for (int i = -r; i <= r && v > 0.f; i++) v = k->c[C_MATTE][(long)y * w + clampi(x + i, 0, w - 1)] >= least ? v : 0.f;
            t[(long)y * w + x] = v;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = 1.f;
            for (int i = -r; i <= r && v > 0.f; i++) v = t[(long)clampi(y + i, 0, h - 1) * w + x] > 0.f ? v : 0.f;
            c[(long)y * w + x] = v;
        }
}

/// Step 4's coefficients: in each 3×3 window of chroma samples, the matte ≈ a·luma + b (least squares, ε 8), a and b
/// then averaged over 3×3 again.
static void guided(MWFineKeyer *k, const float *a, float eps, float *ga, float *gb, float *fit) {
    long n = (long)k->cw * k->ch;
    float *y = k->c[C_LUMA], *t0 = k->c[C_T0], *t1 = k->c[C_T1], *t2 = k->c[C_T2], *box_tmp = k->c[C_T3];
    for (long i = 0; i < n; i++) t0[i] = y[i] * a[i], t1[i] = y[i] * y[i];
    box(t0, t0, box_tmp, k->cw, k->ch, 1);
    box(t1, t1, box_tmp, k->cw, k->ch, 1);
    box(y, t2, box_tmp, k->cw, k->ch, 1);
    if (fit) {
        for (long i = 0; i < n; i++) fit[i] = a[i] * a[i];
        box(fit, fit, box_tmp, k->cw, k->ch, 1);
    }
    box(a, gb, box_tmp, k->cw, k->ch, 1);
    for (long i = 0; i < n; i++) {
        float my = t2[i], ma = gb[i];
        float cov = t0[i] - my * ma, var = t1[i] - my * my;
        ga[i] = cov / (var + eps);
        gb[i] = ma - ga[i] * my;
        if (fit) {
            // How well the line fits the window: its residual's spread against a tolerance (1 where it fits).
            float e = fit[i] - ma * ma - ga[i] * cov;
            e = e > 0.f ? sqrtf(e) / CHROMA_FIT : 0.f;
            fit[i] = e > 1.f ? 0.f : 1.f - e;
        }
    }
    box(ga, ga, box_tmp, k->cw, k->ch, 1);
    box(gb, gb, box_tmp, k->cw, k->ch, 1);
    if (fit) box(fit, fit, box_tmp, k->cw, k->ch, 1);
}

/// A chroma-resolution plane at luma row y, bilinear (centre-sited: 3/4 of the nearest sample, 1/4 of the next).
static void upsampled(const MWFineKeyer *k, const float *plane, int y, float *out) {
    int cy = y / 2, other = clampi(y % 2 ? cy + 1 : cy - 1, 0, k->ch - 1);
    const float *near = plane + (long)cy * k->cw, *far = plane + (long)other * k->cw;
    for (int x = 0; x < k->w; x++) {
        int cx = x / 2, ox = clampi(x % 2 ? cx + 1 : cx - 1, 0, k->cw - 1);
        float a = 0.75f * near[cx] + 0.25f * far[cx], b = 0.75f * near[ox] + 0.25f * far[ox];
        out[x] = 0.75f * a + 0.25f * b;
    }
}

/// A chroma-resolution plane at luma row y, each sample over its two pixels.
static void repeated(const MWFineKeyer *k, const float *plane, int y, float *out) {
    const float *row = plane + (long)(y / 2) * k->cw;
    for (int x = 0; x < k->w; x++) out[x] = row[x / 2];
}

/// u or v of a chroma plane, normalized (into C_T0 or C_T1).
static void normalized(MWFineKeyer *k, const MWFineParams *p, const uint8_t *plane, long stride, float *out) {
    for (int cy = 0; cy < k->ch; cy++)
        for (int cx = 0; cx < k->cw; cx++) out[(long)cy * k->cw + cx] = ((float)plane[(long)cy * stride + cx] - 128.f) * p->chromaScale;
}

static inline uint8_t byte_of(float x) { return x <= 0.f ? 0 : x >= 255.f ? 255 : (uint8_t)(x + 0.5f); }

/// One chroma row's u and v: the mean of its pixels' weighted by their alphas (by equal shares where none shows).
static void chroma_row(MWFineKeyer *k, const MWFineParams *p, const MWFineOutput *out, int cy, const float *rows[2][3]) {
    uint8_t *ou = out->plane[1] + (long)cy * out->stride[1], *ov = out->plane[2] + (long)cy * out->stride[2];
    for (int cx = 0; cx < k->cw; cx++) {
        int x0 = 2 * cx, x1 = 2 * cx + 1 < k->w ? 2 * cx + 1 : 2 * cx;
        float a = rows[0][0][x0] + rows[0][0][x1] + rows[1][0][x0] + rows[1][0][x1] + 4e-3f;
        float u = (rows[0][1][x0] + rows[0][1][x1] + rows[1][1][x0] + rows[1][1][x1]) / a;
        float v = (rows[0][2][x0] + rows[0][2][x1] + rows[1][2][x0] + rows[1][2][x1]) / a;
        ou[cx] = byte_of(128.f + u / p->chromaScale);
        ov[cx] = byte_of(128.f + v / p->chromaScale);
    }
}

/// A luma row's own u and v (a 4:4:4 output).
static void full_chroma_row(MWFineKeyer *k, const MWFineParams *p, const MWFineOutput *out, int y) {
    uint8_t *ou = out->plane[1] + (long)y * out->stride[1], *ov = out->plane[2] + (long)y * out->stride[2];
    for (int x = 0; x < k->w; x++) {
        float weight = k->r[R_ALPHA][x] + 1e-3f;
        ou[x] = byte_of(128.f + k->r[R_OU][x] / weight / p->chromaScale);
        ov[x] = byte_of(128.f + k->r[R_OV][x] / weight / p->chromaScale);
    }
}

/// A luma row's u and v brought to full resolution by luma where the window's chroma follows a line in luma (a
/// 4:2:0 edge between two colours), bilinear where it does not (more colours than two in the window).
static void guided_chroma(MWFineKeyer *k, const uint8_t *luma, int y) {
    float **r = k->r;
    for (int j = 0; j < 2; j++) {
        float *out = r[j ? R_V : R_U];
        upsampled(k, k->c[j ? C_VA : C_UA], y, out);
        upsampled(k, k->c[j ? C_VB : C_UB], y, r[R_ALPHA]);
        upsampled(k, k->c[j ? C_VFIT : C_UFIT], y, r[R_FIT]);
        upsampled(k, k->c[j ? C_V : C_U], y, r[R_Y]);
        for (int x = 0; x < k->w; x++) {
            float g = out[x] * (float)luma[x] + r[R_ALPHA][x];
            out[x] = r[R_FIT][x] * g + (1.f - r[R_FIT][x]) * r[R_Y][x];
        }
    }
}

/// Step 5 for every luma row, the rows' luma and alpha written, each chroma row's u and v once its two rows are done.
static void rows(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, MWFineCore core) {
    float **r = k->r;
    MWFineRow row = {0, r[R_A], r[R_B], r[R_U], r[R_V], {r[R_S0], r[R_S1], r[R_S2]}, {r[R_F0], r[R_F1], r[R_F2]},
                     r[R_NEAR], r[R_CORE], r[R_ALPHA], r[R_Y], r[R_OU], r[R_OV], k->w};
    for (int y = 0; y < k->h; y++) {
        upsampled(k, k->c[C_GA], y, r[R_A]);
        upsampled(k, k->c[C_GB], y, r[R_B]);
        const uint8_t *luma = in->plane[0] + (long)y * in->stride[0];
        guided_chroma(k, luma, y);
        for (int j = 0; j < 3; j++) repeated(k, k->c[C_S0 + j], y, r[R_S0 + j]), repeated(k, k->c[C_F0 + j], y, r[R_F0 + j]);
        repeated(k, k->c[C_NEAR], y, r[R_NEAR]);
        repeated(k, k->c[C_CORE], y, r[R_CORE]);
        row.luma = in->plane[0] + (long)y * in->stride[0];
        core(p, &row);
        uint8_t *oy = out->plane[0] + (long)y * out->stride[0], *oa = out->plane[3] + (long)y * out->stride[3];
        for (int x = 0; x < k->w; x++) oy[x] = byte_of(r[R_Y][x]), oa[x] = byte_of(r[R_ALPHA][x] * 255.f);
        if (out->fullChroma) {
            full_chroma_row(k, p, out, y);
            continue;
        }
        if (y % 2 == 0 && y + 1 < k->h) {
            for (int j = 0; j < 3; j++) memcpy(k->prev[j], r[j == 0 ? R_ALPHA : j == 1 ? R_OU : R_OV], sizeof(float) * k->w);
            continue;
        }
        const float *pair[2][3] = {{k->prev[0], k->prev[1], k->prev[2]}, {r[R_ALPHA], r[R_OU], r[R_OV]}};
        if (y % 2 == 0) for (int j = 0; j < 3; j++) pair[0][j] = pair[1][j];
        chroma_row(k, p, out, y / 2, pair);
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

/// See FineKeyer.h. The matte shrunk by `choke` pixels (a square's minimum) and softened over `feather` (a box twice: near a Gaussian).
void mw_fine_matte(const MWFineParams *p, uint8_t *alpha, long stride, int w, int h, uint8_t *line) {
    if (p->garbageCount > 0) garbage(p, alpha, stride, w, h, line);
    for (int pass = 0; pass < 3; pass++) {
        int r = pass == 0 ? p->choke : p->feather, mean = pass > 0;
        if (r <= 0) continue;
        for (int y = 0; y < h; y++) filter_line(alpha + (long)y * stride, 1, w, r, mean, line);
        for (int x = 0; x < w; x++) filter_line(alpha + x, stride, h, r, mean, line);
    }
}

int mw_fine_key(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, int level) {
    MWFineCore core = mw_fine_core(level);
    if (!core) return -1;
    chroma_colours(k, p, in);
    fields(k, p);
    solid_core(k, CORE_LEAST, CORE_SAMPLES);
    guided(k, k->c[C_MATTE], MATTE_EPS, k->c[C_GA], k->c[C_GB], 0);
    normalized(k, p, in->plane[1], in->stride[1], k->c[C_U]);
    normalized(k, p, in->plane[2], in->stride[2], k->c[C_V]);
    guided(k, k->c[C_U], CHROMA_EPS, k->c[C_UA], k->c[C_UB], k->c[C_UFIT]);
    guided(k, k->c[C_V], CHROMA_EPS, k->c[C_VA], k->c[C_VB], k->c[C_VFIT]);
    rows(k, p, in, out, core);
    mw_fine_matte(p, out->plane[3], out->stride[3], k->w, k->h, k->line);
    return 0;
}
