// The fine keyer's core as its scalar reference (FineCore.h): the same source, a pixel at a time, never vectorized.
#include "FineCore.h"
#include "Levels.h"

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
