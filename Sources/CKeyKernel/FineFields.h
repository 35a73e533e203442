// The fine keyer's steps 1 to 3 (FineKeyer.h), picture-wide: each chroma sample's luma and colour difference, then on
// the fields' grid (cells of CELL × CELL samples) the screen field (from the clear screen, by normalized convolution
// with push-pull: or a clean plate's, FinePlate.c) and the foreground field (from the opaque samples), each cell's
// least and most matte and luma (what tells a plain tile, FineTiles.h), and the colours a plain screen tile is written
// in. INLINE functions, compiled at each level by FineKeyer.c and as the scalar reference by FineKeyerRef.c.
#ifndef MIXWRITE_FINE_FIELDS_H
#define MIXWRITE_FINE_FIELDS_H

#include "FineParts.h"

#pragma clang fp contract(off)

/// Step 1 in grid row gy: each chroma sample's luma (its 2×2 pixels' mean, in 8-bit units) and colour difference;
/// each cell's least and most pixel luma.
INLINE void chroma_colours(MWFineKeyer *k, Rows *s, const MWFineParams *p, const MWFineInput *in, int gy) {
    // Sizes in locals: a byte's store may alias any field of k, which would keep these loops from being vectorized.
    int w = k->w, even = w / 2, end = CELL * gy + CELL < k->ch ? CELL * gy + CELL : k->ch;
    uint8_t *restrict low = s->columnLow, *restrict high = s->columnHigh;
    for (int cy = CELL * gy; cy < end; cy++) {
        const uint8_t *restrict y0 = in->plane[0] + (long)(2 * cy) * in->stride[0];
        const uint8_t *restrict y1 = in->plane[0] + (long)(2 * cy + 1 < k->h ? 2 * cy + 1 : 2 * cy) * in->stride[0];
        const uint8_t *restrict u = in->plane[1] + (long)cy * in->stride[1], *restrict v = in->plane[2] + (long)cy * in->stride[2];
        float *restrict luma = k->luma + (long)cy * k->cw, *restrict diff = k->diff + (long)cy * k->cw;
        if (cy % CELL == 0) memset(low, 255, w), memset(high, 0, w);
        for (int x = 0; x < w; x++) {
            uint8_t a = y0[x] < y1[x] ? y0[x] : y1[x], b = y0[x] < y1[x] ? y1[x] : y0[x];
            low[x] = a < low[x] ? a : low[x], high[x] = b > high[x] ? b : high[x];
        }
        for (int cx = 0; cx < even; cx++) luma[cx] = 0.25f * (float)(y0[2 * cx] + y0[2 * cx + 1] + y1[2 * cx] + y1[2 * cx + 1]);
        // The last sample of an odd width has one pixel across.
        if (even < k->cw) luma[even] = 0.25f * (float)(2 * y0[2 * even] + 2 * y1[2 * even]);
        for (int cx = 0; cx < k->cw; cx++) {
            float c[3];
            sample_channels(p, luma[cx], u[cx], v[cx], c);
            diff[cx] = difference(c[0], c[1], c[2]);
        }
        if (cy % CELL != CELL - 1 && cy != k->ch - 1) continue;
        float *lmin = k->grid.lumaLow + (long)(cy / CELL) * k->gw, *lmax = k->grid.lumaHigh + (long)(cy / CELL) * k->gw;
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
        float ds = difference(k->grid.screen[0][g + gx], k->grid.screen[1][g + gx], k->grid.screen[2][g + gx]);
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
        d[r] = k->diff + cy * cw, l[r] = k->luma + cy * cw;
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
INLINE void begin_sums(const MWFineKeyer *k, Rows *s, const MWFineParams *p, int pass) {
    int gw = k->gw, cw = k->cw;
    float *sy = s->sums, *su = sy + CELL * gw, *sv = su + CELL * gw, *sn = sv + CELL * gw, *low = sn + CELL * gw, *high = low + CELL * gw;
    for (int cx = cw; cx < CELL * gw; cx++) sy[cx] = su[cx] = sv[cx] = sn[cx] = 0.f, low[cx] = 1.f, high[cx] = 0.f;
    float keyDiff = difference(p->key[0], p->key[1], p->key[2]);
    if (pass == CLEAR_AGAINST_KEY)
        for (int cx = 0; cx < cw; cx++) s->cells[cx] = CLEAR_KEY * keyDiff;
}

/// Grid row gy's sums (of y, u and v, and their share of a cell) of the samples `pass` picks; for the opaque pass also
/// each cell's least and most colour-difference matte. Each sample column summed
/// over the cell's rows, then each cell's columns.
INLINE void cell_row_sums(MWFineKeyer *k, Rows *s, const MWFineParams *p, const MWFineInput *in, int pass, int gy) {
    int gw = k->gw;
    float share = 1.f / (CELL * CELL);
    float *restrict sy = s->sums, *restrict su = sy + CELL * gw, *restrict sv = su + CELL * gw, *restrict sn = sv + CELL * gw;
    float *restrict low = sn + CELL * gw, *restrict high = low + CELL * gw;
    if (pass != CLEAR_AGAINST_KEY) cell_row(k, gy, pass == CLEAR_AGAINST_FIELD ? CLEAR_LOCAL : 1.f, pass == OPAQUE_SAMPLES, s->cells);
    int rows = k->ch - CELL * gy;
    if (rows >= CELL) column_sums(k, p, in, pass, s->cells, CELL * gy, CELL, sy, su, sv, sn, low, high);
    else column_sums(k, p, in, pass, s->cells, CELL * gy, rows, sy, su, sv, sn, low, high);
    long at = (long)gy * gw;
    // The columns' sums of luma (8-bit units) and chroma (bytes) to the grid's, as y, u and v (offset and scaled).
    for (int gx = 0; gx < gw; gx++) {
        const int c = CELL * gx;
        float count = sn[c] + sn[c + 1] + sn[c + 2] + sn[c + 3];
        k->grid.sum[0][at + gx] = share * p->lumaScale * (sy[c] + sy[c + 1] + sy[c + 2] + sy[c + 3] - p->lumaZero * count);
        k->grid.sum[1][at + gx] = share * p->chromaScale * (su[c] + su[c + 1] + su[c + 2] + su[c + 3] - 128.f * count);
        k->grid.sum[2][at + gx] = share * p->chromaScale * (sv[c] + sv[c + 1] + sv[c + 2] + sv[c + 3] - 128.f * count);
        k->grid.sum[3][at + gx] = share * count;
        if (pass != OPAQUE_SAMPLES) continue;
        float lo = low[c], hi = high[c];
        for (int i = 1; i < CELL; i++) lo = low[c + i] < lo ? low[c + i] : lo, hi = high[c + i] > hi ? high[c + i] : hi;
        k->grid.matteLow[at + gx] = lo, k->grid.matteHigh[at + gx] = hi;
    }
}

/// The grid's sums box-filtered by r cells.
INLINE void box_sums(MWFineKeyer *k, int r) {
    for (int i = 0; i < 4; i++) box(k->grid.sum[i], k->grid.sum[i], k->grid.scratch, k->gw, k->gh, r);
}

/// One cell's means (y, u, v) from its sums (n: y, u, v, share), leaning to `outer` (its parent's means) as its share
/// falls under 0.001.
INLINE void cell_means(const float n[4], const float outer[3], float out[3]) {
    float own = n[3] >= 1e-3f ? 1.f : n[3] / 1e-3f, inverse = own > 0.f ? own / n[3] : 0.f;
    for (int j = 0; j < 3; j++) out[j] = own > 0.f ? inverse * n[j] + (1.f - own) * outer[j] : outer[j];
}

/// Normalized convolution's means, as the screen's or the foreground's channels (into out): the grid's sums over their share where a cell saw enough, else its parent's in a pyramid of 2×2 sums (push-pull: a hole
/// takes the colour of what is nearest at the coarsest level that sees any; none at all: `fallback`). The pyramid
/// above the grid holds each cell's four sums together; the grid's own level is read and written in its planes.
INLINE void grid_means(MWFineKeyer *k, const MWFineParams *p, float *const out[3], const float fallback[3]) {
    int w[24], h[24], levels = 2, gw = k->gw, gh = k->gh;
    long at[24];
    float *pyr = k->pyramid;
    const float *sums[4] = {k->grid.sum[0], k->grid.sum[1], k->grid.sum[2], k->grid.sum[3]};
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

/// Each cell's screen luma and the foreground field's colour as 8-bit luma, u and v (a plain screen tile's).
INLINE void cell_colours(MWFineKeyer *k, const MWFineParams *p) {
    for (long i = 0; i < (long)k->gw * k->gh; i++) {
        const float s[3] = {k->grid.screen[0][i], k->grid.screen[1][i], k->grid.screen[2][i]}, f[3] = {k->grid.fore[0][i], k->grid.fore[1][i], k->grid.fore[2][i]};
        k->grid.screenLuma[i] = p->lumaZero + (p->luma[0] * s[0] + p->luma[1] * s[1] + p->luma[2] * s[2]) / p->lumaScale;
        k->foreY[i] = byte_of(p->lumaZero + (p->luma[0] * f[0] + p->luma[1] * f[1] + p->luma[2] * f[2]) / p->lumaScale);
        k->foreU[i] = byte_of(128.f + (p->toU[0] * f[0] + p->toU[1] * f[1] + p->toU[2] * f[2]) / p->chromaScale);
        k->foreV[i] = byte_of(128.f + (p->toV[0] * f[0] + p->toV[1] * f[1] + p->toV[2] * f[2]) / p->chromaScale);
    }
}

/// A pass of steps 1 to 3 in a part's rows of cells (see mw_fine_rows: every `parts`-th from `part`), each row its
/// own: the first pass step 1, then (unless a clean plate is the screen) the sums of the samples clear against the key;
/// the second the samples clear against the screen field there; the third the opaque samples.
INLINE void pass_rows(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const int pass, int part, int parts) {
    Rows *s = &k->rows[part];
    int sums = pass != CLEAR_AGAINST_KEY || !k->plate[0];
    if (sums) begin_sums(k, s, p, pass);
    for (int gy = part; gy < k->gh; gy += parts) {
        if (pass == CLEAR_AGAINST_KEY) chroma_colours(k, s, p, in, gy);
        if (sums) cell_row_sums(k, s, p, in, pass, gy);
    }
}

INLINE void fine_rows(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass, int part, int parts, int level) {
    (void)level;
    // Each pass compiled on its own (its samples' test known in the columns' loop, which is then vectorized).
    switch (pass) {
    case CLEAR_AGAINST_KEY: pass_rows(k, p, in, CLEAR_AGAINST_KEY, part, parts); break;
    case CLEAR_AGAINST_FIELD: pass_rows(k, p, in, CLEAR_AGAINST_FIELD, part, parts); break;
    default: pass_rows(k, p, in, OPAQUE_SAMPLES, part, parts);
    }
}

/// A pass's sums on the whole grid, once every part's rows are summed (see mw_fine_grid): after the first two, the
/// screen field (its sums box-filtered, their means by normalized convolution), and where the screen is near (its share
/// of clear samples around, full from 5 %: the spill limit acts there, a green shirt far from it keeps its green); with
/// a clean plate the screen is the plate's cells' means, and near is where the samples are clear against it. After the
/// third, the foreground field (no opaque sample anywhere: the screen, and the projection then has no line and says
/// nothing), and the colours a plain tile is written in.
INLINE void fine_grid(MWFineKeyer *k, const MWFineParams *p, int pass, int level) {
    (void)level;
    long gn = (long)k->gw * k->gh;
    float key[3];
    key_yuv(p, key);
    if (pass == OPAQUE_SAMPLES) {
        box_sums(k, FORE_CELLS);
        grid_means(k, p, k->grid.fore, key);
        cell_colours(k, p);
        return;
    }
    if (pass == CLEAR_AGAINST_KEY && k->plate[0]) {
        for (int j = 0; j < 3; j++) memcpy(k->grid.screen[j], k->plateCells[j], sizeof(float) * gn);
        return;
    }
    box_sums(k, SCREEN_CELLS);
    for (long i = 0; i < gn; i++) k->grid.near[i] = k->grid.sum[3][i] >= 0.05f ? 1.f : k->grid.sum[3][i] / 0.05f;
    if (!k->plate[0]) grid_means(k, p, k->grid.screen, key);
}

#endif
