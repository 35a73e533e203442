// The fine keyer's scalar reference, each step from the same source as its levels: the core (FineCore.h) a pixel at a
// time with vectorizing turned off, and the picture-wide fields (FineFields.h: a pass's rows of cells and its grid)
// and a part's tiles (FineTiles.h) compiled without optimization (nothing vectorized, nothing reordered). Every level
// gives these bits: only elementwise float arithmetic, no FMA (fp contract off).
#include "FineParts.h"
#include "FineFields.h"
#include "FineTiles.h"

#pragma clang fp contract(off)

HIDDEN void mw_fine_core_ref(const MWFineParams *p, const MWFineRow *row) {
    MWFineRow one = *row;
#pragma clang loop vectorize(disable) interleave(disable) unroll(disable)
    for (long x = 0; x < row->width; x++) {
        const MWFineRow *r = row;
        one = (MWFineRow){r->luma + x, r->guideA + x, r->guideB + x, r->u + x, r->v + x, r->lumaMean + x,
                          {r->screen[0] + x, r->screen[1] + x, r->screen[2] + x},
                          {r->fore[0] + x, r->fore[1] + x, r->fore[2] + x}, r->near + x, r->core + x,
                          r->alpha + x, r->outY + x, r->outU + x, r->outV + x, 1};
        fine_core(p, &one, 0);
    }
}

#pragma clang optimize off
HIDDEN void mw_fine_rows_ref(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass, int part, int parts) {
    fine_rows(k, p, in, pass, part, parts, 0);
}

HIDDEN void mw_fine_grid_ref(MWFineKeyer *k, const MWFineParams *p, int pass) { fine_grid(k, p, pass, 0); }

HIDDEN void mw_fine_tiles_ref(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, MWFineCore core,
                              int part, int parts) {
    fine_tiles(k, p, in, out, core, part, parts, 0);
}
#pragma clang optimize on
