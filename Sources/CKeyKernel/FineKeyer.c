// See FineKeyer.h: the fine keyer's scratch made and freed, and its steps compiled at each level of the key kernel
// (Levels.h): the picture-wide fields (FineFields.h), a part's tiles (FineTiles.h, FineWindow.h) and the core
// (FineCore.h). Level 0 is each one's scalar reference (FineKeyerRef.c).
#include "FineParts.h"
#include "FineFields.h"
#include "FineTiles.h"

#pragma clang fp contract(off)

COMPILED_AT_LEVELS(void, fine_core, (const MWFineParams *p, const MWFineRow *row), p, row)
HIDDEN void mw_fine_core_ref(const MWFineParams *p, const MWFineRow *row);
COMPILED_AT_LEVELS(void, fine_rows, (MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass, int part, int parts), k,
                   p, in, pass, part, parts)
COMPILED_AT_LEVELS(void, fine_grid, (MWFineKeyer *k, const MWFineParams *p, int pass), k, p, pass)
COMPILED_AT_LEVELS(void, fine_tiles, (MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out,
                                      MWFineCore core, int part, int parts), k, p, in, out, core, part, parts)

MWFineCore mw_fine_core(int level) {
    static const MWFineCore cores[5] = {mw_fine_core_ref, mw_fine_core_1, mw_fine_core_2, mw_fine_core_3, mw_fine_core_4};
    return level >= 0 && level <= mw_key_best_level() ? cores[level] : 0;
}

MWFineKeyer *mw_fine_create(int width, int height) {
    MWFineKeyer *k = calloc(1, sizeof *k);
    if (!k) return 0;
    k->w = width, k->h = height, k->cw = (width + 1) / 2, k->ch = (height + 1) / 2;
    k->gw = (k->cw + CELL - 1) / CELL, k->gh = (k->ch + CELL - 1) / CELL;
    long gn = (long)k->gw * k->gh, cn = (long)k->cw * k->ch;
    int ok = (k->luma = malloc(sizeof(float) * cn)) != 0 && (k->diff = malloc(sizeof(float) * cn)) != 0;
    ok &= (k->gridPlanes = malloc(sizeof(float) * gn * GRID_PLANES)) != 0;
    ok &= (k->pyramid = malloc(sizeof(float) * 8 * (k->gw + 2) * (k->gh + 2))) != 0;
    for (int i = 0; i < WORKERS; i++) {
        Rows *r = &k->rows[i];
        ok &= (r->sums = malloc(sizeof(float) * 6 * CELL * k->gw)) != 0 && (r->cells = malloc(sizeof(float) * CELL * k->gw)) != 0;
        ok &= (r->columnLow = malloc(2 * CELL * k->gw)) != 0 && (r->columnHigh = malloc(2 * CELL * k->gw)) != 0;
    }
    ok &= (k->line = malloc(width > height ? width : height)) != 0;
    ok &= (k->foreY = malloc(gn)) != 0 && (k->foreU = malloc(gn)) != 0 && (k->foreV = malloc(gn)) != 0;
    if (!ok) { mw_fine_free(k); return 0; }
    // The grid's planes, each gn floats of the one block, by name.
    float *next = k->gridPlanes;
    Grid *g = &k->grid;
    float **planes[GRID_PLANES] = {&g->sum[0], &g->sum[1], &g->sum[2], &g->sum[3], &g->screen[0], &g->screen[1], &g->screen[2],
                                   &g->fore[0], &g->fore[1], &g->fore[2], &g->near, &g->screenLuma, &g->matteLow, &g->matteHigh,
                                   &g->lumaLow, &g->lumaHigh, &g->scratch};
    for (int i = 0; i < GRID_PLANES; i++, next += gn) *planes[i] = next;
    return k;
}

void mw_fine_free(MWFineKeyer *k) {
    if (!k) return;
    free(k->luma);
    free(k->diff);
    free(k->gridPlanes);
    free(k->pyramid);
    for (int i = 0; i < WORKERS; i++) {
        Rows *r = &k->rows[i];
        free(r->sums), free(r->cells), free(r->columnLow), free(r->columnHigh);
    }
    free(k->line);
    free(k->foreY);
    free(k->foreU);
    free(k->foreV);
    for (int i = 0; i < 3; i++) free(k->plate[i]), free(k->plateCells[i]);
    free(k);
}

int mw_fine_rows(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int level, int pass, int part, int parts) {
    typedef void (*PassRows)(MWFineKeyer *, const MWFineParams *, const MWFineInput *, int, int, int);
    static const PassRows rows[5] = {mw_fine_rows_ref, mw_fine_rows_1, mw_fine_rows_2, mw_fine_rows_3, mw_fine_rows_4};
    if (level < 0 || level > mw_key_best_level() || pass < 0 || pass >= MW_FINE_PASSES || part < 0 || part >= parts || parts > WORKERS)
        return -1;
    rows[level](k, p, in, pass, part, parts);
    return 0;
}

int mw_fine_grid(MWFineKeyer *k, const MWFineParams *p, int level, int pass) {
    typedef void (*PassGrid)(MWFineKeyer *, const MWFineParams *, int);
    static const PassGrid grid[5] = {mw_fine_grid_ref, mw_fine_grid_1, mw_fine_grid_2, mw_fine_grid_3, mw_fine_grid_4};
    if (level < 0 || level > mw_key_best_level() || pass < 0 || pass >= MW_FINE_PASSES) return -1;
    grid[level](k, p, pass);
    return 0;
}

int mw_fine_prepare(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int level) {
    for (int pass = 0; pass < MW_FINE_PASSES; pass++)
        if (mw_fine_rows(k, p, in, level, pass, 0, 1) != 0 || mw_fine_grid(k, p, level, pass) != 0) return -1;
    return 0;
}

int mw_fine_tiles(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, int level, int part,
                  int parts) {
    typedef void (*Tiles)(MWFineKeyer *, const MWFineParams *, const MWFineInput *, const MWFineOutput *, MWFineCore, int, int);
    static const Tiles tiles[5] = {mw_fine_tiles_ref, mw_fine_tiles_1, mw_fine_tiles_2, mw_fine_tiles_3, mw_fine_tiles_4};
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
