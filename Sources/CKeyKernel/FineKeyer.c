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

const MWFineKernel *mw_fine_kernel(int level) {
#define FINE_LEVEL(n, suffix) {n, mw_fine_core_##suffix, mw_fine_rows_##suffix, mw_fine_grid_##suffix, mw_fine_tiles_##suffix}
    static const MWFineKernel kernels[5] = {FINE_LEVEL(0, ref), FINE_LEVEL(1, 1), FINE_LEVEL(2, 2), FINE_LEVEL(3, 3), FINE_LEVEL(4, 4)};
#undef FINE_LEVEL
    return level >= 0 && level <= mw_cpu_level() ? &kernels[level] : 0;
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

int mw_fine_rows(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineKernel *kernel, int pass, int part,
                 int parts) {
    if (!kernel || pass < 0 || pass >= MW_FINE_PASSES || part < 0 || part >= parts || parts > WORKERS) return -1;
    kernel->rows(k, p, in, pass, part, parts);
    return 0;
}

int mw_fine_grid(MWFineKeyer *k, const MWFineParams *p, const MWFineKernel *kernel, int pass) {
    if (!kernel || pass < 0 || pass >= MW_FINE_PASSES) return -1;
    kernel->grid(k, p, pass);
    return 0;
}

int mw_fine_prepare(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineKernel *kernel) {
    for (int pass = 0; pass < MW_FINE_PASSES; pass++)
        if (mw_fine_rows(k, p, in, kernel, pass, 0, 1) != 0 || mw_fine_grid(k, p, kernel, pass) != 0) return -1;
    return 0;
}

int mw_fine_tiles(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, const MWFineKernel *kernel,
                  int part, int parts) {
    if (!kernel || part < 0 || part >= WORKERS || parts > WORKERS || (out->base[0] && out->fullChroma)) return -1;
    kernel->tiles(k, p, in, out, kernel->core, part, parts);
    return 0;
}

int mw_fine_key(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, const MWFineKernel *kernel) {
    if (mw_fine_prepare(k, p, in, kernel) != 0 || mw_fine_tiles(k, p, in, out, kernel, 0, 1) != 0) return -1;
    if (!out->base[0]) {
        mw_fine_matte(p, out->plane[3], out->stride[3], k->w, k->h, k->line);
        if (mw_matte_feather(out->plane, out->stride, k->w, k->h, out->fullChroma ? 0 : 1, p->feather) != 0) return -1;
    }
    return 0;
}
