// What each of the fine keyer's tiles is (plain screen, plain subject, or mixed: by its cells' mattes and luma), plain
// tiles written as they are (the screen's alpha 0 in the foreground field's colour, or the subject's own pixels), and a
// part's rows of tiles (FineKeyer.h, steps 3 to 5). INLINE functions, compiled at each level by FineKeyer.c and as
// the scalar reference by FineKeyerRef.c.
#ifndef MIXWRITE_FINE_TILES_H
#define MIXWRITE_FINE_TILES_H

#include "FineParts.h"
#include "FineWindow.h"

#pragma clang fp contract(off)

/// The window of tile (tx, ty): its samples and APRON more each side, within the picture.
INLINE void place_window(const MWFineKeyer *k, Place *at, int tx, int ty) {
    at->wx = clampi(TILE * tx - APRON, 0, k->cw), at->wy = clampi(TILE * ty - APRON, 0, k->ch);
    at->ww = clampi(TILE * tx + TILE + APRON, 0, k->cw) - at->wx, at->wh = clampi(TILE * ty + TILE + APRON, 0, k->ch) - at->wy;
}

enum { MIXED, SCREEN, SOLID };

/// What a tile is: plain screen (its window's colour-difference matte 0 and every pixel's luma the screen's there),
/// plain subject (its window's matte 1: each pixel farther than APRON samples from anything else, so its colour is
/// its own, spill's limit acting only nearer the edge), or neither.
INLINE int tile_kind(const MWFineKeyer *k, const Place *at, const MWFineParams *p, int tx, int ty) {
    // The cells over the window (a little more than it: a tile is called plain only when it surely is).
    int zero = 1, one = 1;
    for (int gy = at->wy / CELL; gy <= (at->wy + at->wh - 1) / CELL; gy++)
        for (int gx = at->wx / CELL; gx <= (at->wx + at->ww - 1) / CELL; gx++) {
            long g = (long)gy * k->gw + gx;
            zero &= k->grid.matteHigh[g] <= 0.f, one &= k->grid.matteLow[g] >= 1.f;
        }
    if (one) return SOLID;
    if (!zero) return MIXED;
    // Every pixel's luma near the screen's there (no strand thinner than chroma over it).
    float spread = SCREEN_LUMA / p->lumaScale;
    for (int gy = TILE * ty / CELL; gy <= (TILE * ty + TILE - 1) / CELL && gy < k->gh; gy++)
        for (int gx = TILE * tx / CELL; gx <= (TILE * tx + TILE - 1) / CELL && gx < k->gw; gx++) {
            long g = (long)gy * k->gw + gx;
            if (k->grid.lumaLow[g] < k->grid.screenLuma[g] - spread || k->grid.lumaHigh[g] > k->grid.screenLuma[g] + spread) return MIXED;
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

/// A plain tile laid over the base in a run of pictures (step 6): where the last picture's matte was the tile's own
/// (0 or 1) everywhere nothing moves and it is laid as plain (0 returned); else its matte steadied pixel by pixel and
/// laid by it, its colour as `plain_tile` writes it into a picture (the foreground field's, or fx's own), as
/// `laid_tile` lays a mixed one (1 returned). Kept as the last picture's either way.
INLINE int steadied_plain(const MWFineKeyer *k, const MWFineInput *in, const MWFineOutput *out, int kind, int x0, int x1, int y0,
                          int y1) {
    MWFineSteady *s = out->steady;
    int own = kind == SOLID ? 255 : 0, filter = out->follows && s->has, n = x1 - x0, m = y1 - y0, moved = 0;
    const uint64_t word = own ? ~(uint64_t)0 : 0;
    for (int y = y0; y < y1 && !moved; y++) {
        const uint8_t *kept = s->alpha + (long)y * k->w;
        int x = x0;
        for (; x + 8 <= x1; x += 8) {
            uint64_t w8;
            memcpy(&w8, kept + x, 8);
            moved |= w8 != word;
        }
        for (; x < x1; x++) moved |= kept[x] != own;
    }
    if (!moved) return 0;
    if (!filter) {
        for (int y = y0; y < y1; y++) memset(s->alpha + (long)y * k->w + x0, own, n);
        return 0;
    }
    uint8_t a8[PIX_N];
    int span = 2 * CELL;
    for (int j = 0; j < m; j++) {
        int y = y0 + j;
        uint8_t *a = a8 + j * n, *oy = out->plane[0] + (long)y * out->stride[0];
        const uint8_t *by = out->base[0] + (long)y * out->baseStride[0], *fy = in->plane[0] + (long)y * in->stride[0];
        memset(a, own, n);
        steady_run(s, in, a, x0, y, n, 1);
        for (int i = 0; i < n; i++) {
            int x = x0 + i, colour = kind == SOLID ? fy[x] : k->foreY[(long)(y / span) * k->gw + x / span];
            oy[x] = mw_over((uint32_t)colour, by[x], a[i]);
        }
    }
    for (int j = 0; j < m; j += 2) {
        int j1 = j + 1 < m ? j + 1 : j, cy = (y0 + j) >> 1;
        uint8_t *ou = out->plane[1] + (long)cy * out->stride[1], *ov = out->plane[2] + (long)cy * out->stride[2];
        const uint8_t *bu = out->base[1] + (long)cy * out->baseStride[1], *bv = out->base[2] + (long)cy * out->baseStride[2];
        const uint8_t *fu = in->plane[1] + (long)cy * in->stride[1], *fv = in->plane[2] + (long)cy * in->stride[2];
        long g = (long)((y0 + j) / span) * k->gw;
        for (int i = 0; i < n; i += 2) {
            int i1 = i + 1 < n ? i + 1 : i, cx = (x0 + i) >> 1;
            uint32_t av = sample_alpha(a8, n, j, j1, i, i1);
            uint32_t u = kind == SOLID ? fu[cx] : k->foreU[g + (x0 + i) / span], v = kind == SOLID ? fv[cx] : k->foreV[g + (x0 + i) / span];
            ou[cx] = mw_over(u, bu[cx], av), ov[cx] = mw_over(v, bv[cx], av);
        }
    }
    return 1;
}

/// A plain tile written: screen (alpha 0, the colour the foreground field has there, so no green bleeds when the
/// picture is scaled or its chroma averaged) or subject (alpha 1, its own colour). Laid over a base: base's pixels or
/// fx's.
INLINE void plain_tile(const MWFineKeyer *k, const MWFineInput *in, const MWFineOutput *out, int kind, int tx, int ty) {
    int x0 = 2 * TILE * tx, x1 = clampi(x0 + 2 * TILE, 0, k->w), y0 = 2 * TILE * ty, y1 = clampi(y0 + 2 * TILE, 0, k->h);
    int sub = out->fullChroma ? 0 : 1, span = 2 * CELL;
    if (out->base[0]) {
        if (out->steady && steadied_plain(k, in, out, kind, x0, x1, y0, y1)) return;
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

/// A part's tiles (see mw_fine_tiles), compiled at each level with every step it takes.
INLINE void fine_tiles(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, MWFineCore core,
                       int part, int parts, int level) {
    (void)level;
    Tile *t = &k->tiles[part];
    for (int ty = part; ty * TILE < k->ch; ty += parts)
        for (int tx = 0; tx * TILE < k->cw; tx++) {
            place_window(k, &t->at, tx, ty);
            int kind = tile_kind(k, &t->at, p, tx, ty);
            // With full chroma a subject's own tile is upsampled as any (its colour's resolution is the point).
            if (kind == MIXED || (kind != SCREEN && out->fullChroma)) mixed_tile(k, t, p, in, out, core, tx, ty);
            else plain_tile(k, in, out, kind, tx, ty);
        }
}

#endif
