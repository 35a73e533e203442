// The fine keyer's steps 3 to 5 for a tile that is neither plain screen nor plain subject (FineKeyer.h): the fields
// brought from their grid (or the clean plate) to the tile's window, the colour-difference matte, the solid core, the
// guided filters (the matte, and u and v with how well they follow luma), those brought to the tile's pixels, the
// core (FineCore.h) over them, and its results written (or laid over a base as they are made). INLINE functions,
// compiled at each level by FineKeyer.c and as the scalar reference by FineKeyerRef.c.
#ifndef MIXWRITE_FINE_WINDOW_H
#define MIXWRITE_FINE_WINDOW_H

#include "FineParts.h"
#include "Vectors.h"

#pragma clang fp contract(off)

/// A grid field at window samples rx … rx + rw − 1, ry … ry + rh − 1 (`count` channels from the grid's planes `from`
/// into the window's planes `to`): bilinear between cell centres, each grid row the samples reach interpolated along x once, then between
/// rows.
INLINE void field_to_window(const MWFineKeyer *k, Tile *t, float *const *from, int count, float (*to)[WIN_N], int rx, int ry, int rw,
                            int rh) {
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
            const float *row = from[j] + (long)(lo + g) * k->gw;
            for (int x = 0; x < rw; x++) across[g][x] = row[x0[x]] + (row[x1[x]] - row[x0[x]]) * tx[x];
        }
        for (int y = 0; y < rh; y++) {
            const float *a = across[y0[y] - lo], *b = across[y1[y] - lo];
            float *out = to[j] + (ry + y) * t->ww + rx;
            for (int x = 0; x < rw; x++) out[x] = a[x] + (b[x] - a[x]) * ty[y];
        }
    }
}

/// The window's own planes: the samples' luma and colour difference, u and v, the screen field and the colour-
/// difference matte by it; the foreground field and where the screen is near at the tile's samples.
INLINE void load_window(MWFineKeyer *k, Tile *t, const MWFineParams *p, const MWFineInput *in) {
    for (int y = 0; y < t->wh; y++) {
        long from = (long)(t->wy + y) * k->cw + t->wx;
        memcpy(t->win.luma + y * t->ww, k->luma + from, sizeof(float) * t->ww);
        memcpy(t->win.diff + y * t->ww, k->diff + from, sizeof(float) * t->ww);
        const uint8_t *u = in->plane[1] + (long)(t->wy + y) * in->stride[1] + t->wx;
        const uint8_t *v = in->plane[2] + (long)(t->wy + y) * in->stride[2] + t->wx;
        for (int x = 0; x < t->ww; x++) {
            t->win.u[y * t->ww + x] = ((float)u[x] - 128.f) * p->chromaScale;
            t->win.v[y * t->ww + x] = ((float)v[x] - 128.f) * p->chromaScale;
        }
    }
    if (k->plate[0]) {
        for (int j = 0; j < 3; j++)
            for (int y = 0; y < t->wh; y++)
                memcpy(t->win.screen[j] + y * t->ww, k->plate[j] + (long)(t->wy + y) * k->cw + t->wx, sizeof(float) * t->ww);
    } else {
        field_to_window(k, t, k->grid.screen, 3, t->win.screen, 0, 0, t->ww, t->wh);
    }
    int rx = t->px0 / 2 - t->wx, ry = t->py0 / 2 - t->wy, rw = (t->pn + 1) / 2, rh = (t->pm + 1) / 2;
    field_to_window(k, t, k->grid.fore, 3, t->win.fore, rx, ry, rw, rh);
    field_to_window(k, t, &k->grid.near, 1, &t->win.near, rx, ry, rw, rh);
    for (int i = 0; i < t->ww * t->wh; i++) {
        float ds = difference(t->win.screen[0][i], t->win.screen[1][i], t->win.screen[2][i]);
        t->win.matte[i] = colour_matte(t->win.diff[i], inverse_of(ds));
    }
}

/// The solid core: 1 where every sample within CORE_SAMPLES of this one has a colour-difference matte of
/// CORE_LEAST or more (spill's doubt inside a subject is not transparency), else 0.
INLINE void solid_core(Tile *t) {
    float *c = t->win.core, *rows = t->win.scratch;
    const float *m = t->win.matte;
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
    if (t->ww >= 2 && t->wh >= 2) box3(src, dst, t->win.boxScratch, t->ww, t->wh, t->ww < WIN);
    else box(src, dst, t->win.boxScratch, t->ww, t->wh, 1);
}

/// Step 4's coefficients over the window: in each 3×3 window of samples, `a` ≈ ga·luma + gb (least squares, ε), both
/// then averaged over 3×3 again; `fit` (if asked) how well that line fits (1 − its residual's spread / CHROMA_FIT).
/// Luma's own means (of luma and its square) are the window's, made once.
INLINE void guided(Tile *t, const float *a, float eps, float *ga, float *gb, float *fit) {
    int w = t->ww, h = t->wh, n = w * h;
    const float *y = t->win.luma, *my = t->win.meanLuma, *myy = t->win.meanLuma2;
    float *t0 = t->win.scratch;
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
    float *y = t->win.luma, *myy = t->win.meanLuma2;
    for (int i = 0; i < n; i++) myy[i] = y[i] * y[i];
    window_box(t, myy, myy);
    window_box(t, y, t->win.meanLuma);
    guided(t, t->win.matte, MATTE_EPS, t->win.guideA, t->win.guideB, 0);
    guided(t, t->win.u, CHROMA_EPS, t->win.uA, t->win.uB, t->win.uFit);
    guided(t, t->win.v, CHROMA_EPS, t->win.vA, t->win.vB, t->win.vFit);
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
    float *b = t->px.scratch, *f = t->px.fit, *bilinear = t->px.bilinear;
    for (int j = 0; j < 2; j++) {
        float *out = (j ? t->px.v : t->px.u);
        upsampled(t, (j ? t->win.vA : t->win.uA), out);
        upsampled(t, (j ? t->win.vB : t->win.uB), b);
        upsampled(t, (j ? t->win.vFit : t->win.uFit), f);
        upsampled(t, (j ? t->win.v : t->win.u), bilinear);
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
INLINE void laid_tile(Tile *t, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out) {
    int n = t->pn, m = t->pm, filter = out->steady && out->follows && out->steady->has;
    const float *alpha = t->px.alpha, *ly = t->px.y, *cu = t->px.outU, *cv = t->px.outV;
    uint8_t a8[PIX_N];
    for (int j = 0; j < m; j++) {
        long y = t->py0 + j;
        uint8_t *oy = out->plane[0] + y * out->stride[0] + t->px0;
        const uint8_t *by = out->base[0] + y * out->baseStride[0] + t->px0;
        for (int i = 0; i < n; i++) a8[j * n + i] = byte_of(alpha[j * n + i] * 255.f);
        // Step 6 (the matte of a run steadied) before it is laid: only where the last picture's differs.
        if (out->steady) steady_run(out->steady, in, a8 + j * n, t->px0, (int)y, n, filter);
        for (int i = 0; i < n; i++) oy[i] = mw_over(byte_of(ly[j * n + i]), by[i], a8[j * n + i]);
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
            uint32_t av = sample_alpha(a8, n, j, j1, i, i1);
            ou[i >> 1] = mw_over(u, bu[i >> 1], av), ov[i >> 1] = mw_over(v, bv[i >> 1], av);
        }
    }
}

/// The core's results written: luma and alpha, and u and v (each sample's pixels' weighted mean; with full chroma
/// each pixel's own).
INLINE void write_tile(Tile *t, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out) {
    int n = t->pn, m = t->pm, sub = out->fullChroma ? 0 : 1;
    const float *alpha = t->px.alpha, *ly = t->px.y, *cu = t->px.outU, *cv = t->px.outV;
    if (out->base[0]) { laid_tile(t, p, in, out); return; }
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
    Pixels *q = &t->px;
    for (int j = 0; j < m; j++) memcpy(t->luma + j * n, in->plane[0] + (long)(t->py0 + j) * in->stride[0] + t->px0, n);
    upsampled(t, t->win.guideA, q->a);
    upsampled(t, t->win.guideB, q->b);
    upsampled(t, t->win.meanLuma, q->meanLuma);
    guided_chroma(t);
    for (int j = 0; j < 3; j++) repeated(t, t->win.screen[j], q->screen[j]), repeated(t, t->win.fore[j], q->fore[j]);
    repeated(t, t->win.near, q->near);
    repeated(t, t->win.core, q->core);
    MWFineRow row = {t->luma, q->a, q->b, q->u, q->v, q->meanLuma, {q->screen[0], q->screen[1], q->screen[2]}, {q->fore[0], q->fore[1], q->fore[2]},
                     q->near, q->core, q->alpha, q->y, q->outU, q->outV, (long)n * m};
    core(p, &row);
    write_tile(t, p, in, out);
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

#endif
