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
INLINE void field_to_window(const MWFineKeyer *k, const Place *at, float *const *from, int count, float (*to)[WIN_N], int rx, int ry,
                            int rw, int rh) {
    int x0[WIN], x1[WIN], y0[WIN], y1[WIN];
    float tx[WIN], ty[WIN], across[WIN / CELL + 3][WIN];
    for (int x = 0; x < rw; x++) {
        float gx = (at->wx + rx + x - 0.5f * (CELL - 1)) / CELL;
        x0[x] = clampi((int)(gx < 0 ? -1 : gx), 0, k->gw - 1), x1[x] = clampi(x0[x] + 1, 0, k->gw - 1);
        tx[x] = gx < 0 ? 0.f : gx - (float)(int)gx;
    }
    for (int y = 0; y < rh; y++) {
        float gy = (at->wy + ry + y - 0.5f * (CELL - 1)) / CELL;
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
            float *out = to[j] + (ry + y) * at->ww + rx;
            for (int x = 0; x < rw; x++) out[x] = a[x] + (b[x] - a[x]) * ty[y];
        }
    }
}

/// The window's own planes: the samples' luma and colour difference, u and v, the screen field and the colour-
/// difference matte by it; the foreground field and where the screen is near at the tile's samples.
INLINE void load_window(const MWFineKeyer *k, const Place *at, Window *win, const MWFineParams *p, const MWFineInput *in) {
    for (int y = 0; y < at->wh; y++) {
        long from = (long)(at->wy + y) * k->cw + at->wx;
        memcpy(win->luma + y * at->ww, k->luma + from, sizeof(float) * at->ww);
        memcpy(win->diff + y * at->ww, k->diff + from, sizeof(float) * at->ww);
        const uint8_t *u = in->plane[1] + (long)(at->wy + y) * in->stride[1] + at->wx;
        const uint8_t *v = in->plane[2] + (long)(at->wy + y) * in->stride[2] + at->wx;
        for (int x = 0; x < at->ww; x++) {
            win->u[y * at->ww + x] = ((float)u[x] - 128.f) * p->chromaScale;
            win->v[y * at->ww + x] = ((float)v[x] - 128.f) * p->chromaScale;
        }
    }
    if (k->plate[0]) {
        for (int j = 0; j < 3; j++)
            for (int y = 0; y < at->wh; y++)
                memcpy(win->screen[j] + y * at->ww, k->plate[j] + (long)(at->wy + y) * k->cw + at->wx, sizeof(float) * at->ww);
    } else {
        field_to_window(k, at, k->grid.screen, 3, win->screen, 0, 0, at->ww, at->wh);
    }
    int rx = at->px0 / 2 - at->wx, ry = at->py0 / 2 - at->wy, rw = (at->pn + 1) / 2, rh = (at->pm + 1) / 2;
    field_to_window(k, at, k->grid.fore, 3, win->fore, rx, ry, rw, rh);
    field_to_window(k, at, &k->grid.near, 1, &win->near, rx, ry, rw, rh);
    for (int i = 0; i < at->ww * at->wh; i++) {
        float ds = difference(win->screen[0][i], win->screen[1][i], win->screen[2][i]);
        win->matte[i] = colour_matte(win->diff[i], inverse_of(ds));
    }
}

/// The solid core: 1 where every sample within CORE_SAMPLES of this one has a colour-difference matte of
/// CORE_LEAST or more (spill's doubt inside a subject is not transparency), else 0.
INLINE void solid_core(const Place *at, const float *m, float *c, float *rows) {
    int w = at->ww, h = at->wh, r = CORE_SAMPLES;
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
INLINE void window_box(const Place *at, const float *src, float *dst, float *scratch) {
    if (at->ww >= 2 && at->wh >= 2) box3(src, dst, scratch, at->ww, at->wh, at->ww < WIN);
    else box(src, dst, scratch, at->ww, at->wh, 1);
}

/// Step 4's coefficients over the window: in each 3×3 window of samples, `a` ≈ ga·luma + gb (least squares, ε), both
/// then averaged over 3×3 again; `fit` (if asked) how well that line fits (1 − its residual's spread / CHROMA_FIT).
/// Luma's own means (of luma and its square) are the window's, made once.
INLINE void guided(const Place *at, Window *win, const float *a, float eps, float *ga, float *gb, float *fit) {
    int n = at->ww * at->wh;
    const float *y = win->luma, *my = win->meanLuma, *myy = win->meanLuma2;
    float *t0 = win->scratch, *boxes = win->boxScratch;
    for (int i = 0; i < n; i++) t0[i] = y[i] * a[i];
    window_box(at, t0, t0, boxes);
    if (fit) {
        for (int i = 0; i < n; i++) fit[i] = a[i] * a[i];
        window_box(at, fit, fit, boxes);
    }
    window_box(at, a, gb, boxes);
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
    window_box(at, ga, ga, boxes);
    window_box(at, gb, gb, boxes);
    if (fit) window_box(at, fit, fit, boxes);
}

/// The three guided filters (the matte; u and v with their fit) over the window, luma's means made once for them.
INLINE void guided_filters(const Place *at, Window *win) {
    int n = at->ww * at->wh;
    float *y = win->luma, *myy = win->meanLuma2;
    for (int i = 0; i < n; i++) myy[i] = y[i] * y[i];
    window_box(at, myy, myy, win->boxScratch);
    window_box(at, y, win->meanLuma, win->boxScratch);
    guided(at, win, win->matte, MATTE_EPS, win->guideA, win->guideB, 0);
    guided(at, win, win->u, CHROMA_EPS, win->uA, win->uB, win->uFit);
    guided(at, win, win->v, CHROMA_EPS, win->vA, win->vB, win->vFit);
}

typedef float f32x8 __attribute__((vector_size(32)));

INLINE f32x8 load_f32x8(const float *p) {
    f32x8 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/// A whole tile away from the window's edge (its samples and one more each side inside it): its rows of pixels are
/// made eight samples at a time.
INLINE int inner_tile(const Place *at) {
    int c0 = at->px0 / 2 - at->wx, r0 = at->py0 / 2 - at->wy;
    return TILE == 8 && at->pn == PIX && at->pm == PIX && c0 >= 1 && c0 + TILE < at->ww && r0 >= 1 && r0 + TILE < at->wh;
}

/// A window plane at the tile's pixels (into out), bilinear (centre-sited: 3/4 of the nearest sample, 1/4 of the
/// next), the window's edge repeated: each row's samples between the two nearest rows first, then along the row.
INLINE void upsampled(const Place *at, const float *plane, float *out) {
    int n = at->pn, c0 = at->px0 / 2 - at->wx, columns = (n + 1) / 2 + 2;
    float v[TILE + 2];
    if (inner_tile(at)) {
        for (int j = 0; j < PIX; j++) {
            int cy = (at->py0 + j) / 2 - at->wy, other = j % 2 ? cy + 1 : cy - 1;
            const float *near = plane + cy * at->ww + c0 - 1, *far = plane + other * at->ww + c0 - 1;
            f32x8 v0 = 0.75f * load_f32x8(near) + 0.25f * load_f32x8(far);
            f32x8 v1 = 0.75f * load_f32x8(near + 1) + 0.25f * load_f32x8(far + 1);
            f32x8 v2 = 0.75f * load_f32x8(near + 2) + 0.25f * load_f32x8(far + 2);
            f32x8 even = 0.75f * v1 + 0.25f * v0, odd = 0.75f * v1 + 0.25f * v2;
            f32x16 row = __builtin_shufflevector(even, odd, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
            memcpy(out + j * PIX, &row, sizeof row);
        }
        return;
    }
    for (int j = 0; j < at->pm; j++) {
        int y = at->py0 + j, cy = y / 2 - at->wy, other = clampi(y % 2 ? cy + 1 : cy - 1, 0, at->wh - 1);
        const float *near = plane + cy * at->ww, *far = plane + other * at->ww;
        for (int i = 0; i < columns; i++) {
            int c = clampi(c0 - 1 + i, 0, at->ww - 1);
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
INLINE void repeated(const Place *at, const float *plane, float *out) {
    int n = at->pn, c0 = at->px0 / 2 - at->wx;
    for (int j = 0; j < at->pm; j++) {
        float *o = out + j * n;
        if (j % 2) { memcpy(o, o - n, sizeof(float) * n); continue; }
        const float *row = plane + ((at->py0 + j) / 2 - at->wy) * at->ww + c0;
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
INLINE void guided_chroma(const Place *at, const Window *win, Pixels *px, const uint8_t *luma) {
    int n = at->pn * at->pm;
    float *b = px->scratch, *f = px->fit, *bilinear = px->bilinear;
    for (int j = 0; j < 2; j++) {
        float *out = (j ? px->v : px->u);
        upsampled(at, (j ? win->vA : win->uA), out);
        upsampled(at, (j ? win->vB : win->uB), b);
        upsampled(at, (j ? win->vFit : win->uFit), f);
        upsampled(at, (j ? win->v : win->u), bilinear);
        for (int i = 0; i < n; i++) {
            float g = out[i] * (float)luma[i] + b[i];
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
INLINE void laid_tile(const Place *at, const Pixels *px, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out) {
    int n = at->pn, m = at->pm, filter = out->steady && out->follows && out->steady->has;
    const float *alpha = px->alpha, *ly = px->y, *cu = px->outU, *cv = px->outV;
    uint8_t a8[PIX_N];
    for (int j = 0; j < m; j++) {
        long y = at->py0 + j;
        uint8_t *oy = out->plane[0] + y * out->stride[0] + at->px0;
        const uint8_t *by = out->base[0] + y * out->baseStride[0] + at->px0;
        for (int i = 0; i < n; i++) a8[j * n + i] = byte_of(alpha[j * n + i] * 255.f);
        // Step 6 (the matte of a run steadied) before it is laid: only where the last picture's differs.
        if (out->steady) steady_run(out->steady, in, a8 + j * n, at->px0, (int)y, n, filter);
        for (int i = 0; i < n; i++) oy[i] = mw_over(byte_of(ly[j * n + i]), by[i], a8[j * n + i]);
    }
    for (int j = 0; j < m; j += 2) {
        int j1 = j + 1 < m ? j + 1 : j;
        const float *rows[2][3] = {{alpha + j * n, cu + j * n, cv + j * n}, {alpha + j1 * n, cu + j1 * n, cv + j1 * n}};
        long cy = (at->py0 + j) >> 1, cx0 = at->px0 >> 1;
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
INLINE void write_tile(const Place *at, const Pixels *px, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out) {
    int n = at->pn, m = at->pm, sub = out->fullChroma ? 0 : 1;
    const float *alpha = px->alpha, *ly = px->y, *cu = px->outU, *cv = px->outV;
    if (out->base[0]) { laid_tile(at, px, p, in, out); return; }
    for (int j = 0; j < m; j++) {
        long y = at->py0 + j;
        uint8_t *oy = out->plane[0] + y * out->stride[0] + at->px0, *oa = out->plane[3] + y * out->stride[3] + at->px0;
        for (int i = 0; i < n; i++) oy[i] = byte_of(ly[j * n + i]), oa[i] = byte_of(alpha[j * n + i] * 255.f);
    }
    for (int j = 0; j < m; j += 1 + sub) {
        int j1 = sub && j + 1 < m ? j + 1 : j;
        const float *rows[2][3] = {{alpha + j * n, cu + j * n, cv + j * n}, {alpha + j1 * n, cu + j1 * n, cv + j1 * n}};
        long cy = (at->py0 + j) >> sub;
        uint8_t *ou = out->plane[1] + cy * out->stride[1] + (at->px0 >> sub), *ov = out->plane[2] + cy * out->stride[2] + (at->px0 >> sub);
        for (int i = 0; i < n; i += 1 + sub) chroma_sample(p, rows, i, sub && i + 1 < n ? i + 1 : i, ou + (i >> sub), ov + (i >> sub));
    }
}

/// Step 5 over the tile's pixels: their inputs (luma; the guided filters', the fields and the solid core brought to
/// them), the core once over them all, its results written.
INLINE void tile_pixels(const Place *at, const Window *win, Pixels *q, uint8_t *luma, const MWFineParams *p, const MWFineInput *in,
                        const MWFineOutput *out, MWFineCore core) {
    int n = at->pn, m = at->pm;
    for (int j = 0; j < m; j++) memcpy(luma + j * n, in->plane[0] + (long)(at->py0 + j) * in->stride[0] + at->px0, n);
    upsampled(at, win->guideA, q->a);
    upsampled(at, win->guideB, q->b);
    upsampled(at, win->meanLuma, q->meanLuma);
    guided_chroma(at, win, q, luma);
    for (int j = 0; j < 3; j++) repeated(at, win->screen[j], q->screen[j]), repeated(at, win->fore[j], q->fore[j]);
    repeated(at, win->near, q->near);
    repeated(at, win->core, q->core);
    MWFineRow row = {luma, q->a, q->b, q->u, q->v, q->meanLuma, {q->screen[0], q->screen[1], q->screen[2]}, {q->fore[0], q->fore[1], q->fore[2]},
                     q->near, q->core, q->alpha, q->y, q->outU, q->outV, (long)n * m};
    core(p, &row);
    write_tile(at, q, p, in, out);
}

/// Steps 3 to 5 for a tile that is neither plain screen nor plain subject: its window's planes, the solid core, the
/// guided filters, then its pixels.
INLINE void mixed_tile(MWFineKeyer *k, Tile *t, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out,
                       MWFineCore core, int tx, int ty) {
    Place *at = &t->at;
    at->px0 = 2 * TILE * tx, at->py0 = 2 * TILE * ty;
    at->pn = clampi(at->px0 + 2 * TILE, 0, k->w) - at->px0, at->pm = clampi(at->py0 + 2 * TILE, 0, k->h) - at->py0;
    load_window(k, at, &t->win, p, in);
    solid_core(at, t->win.matte, t->win.core, t->win.scratch);
    guided_filters(at, &t->win);
    tile_pixels(at, &t->win, &t->px, t->luma, p, in, out, core);
}

#endif
