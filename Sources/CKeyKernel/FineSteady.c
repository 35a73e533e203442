// The fine keyer's matte steadied over the frames (FineKeyer.h, step 6) on a whole matte, and its state: where fx
// did not change from the picture before, each pixel's alpha is the mean of its own and that picture's, so the file's
// noise does not flicker in it; where fx changed, its own. A row's step is FineParts.h's `steady_run`, which the tiles
// also take as they lay a picture over a base. Integers throughout: one implementation at every level, its
// own reference (FineSteadyTests model it in Swift).
#include "FineParts.h"

MWFineSteady *mw_fine_steady_create(int width, int height) {
    MWFineSteady *s = calloc(1, sizeof *s);
    if (!s) return 0;
    s->w = width, s->h = height, s->cw = (width + 1) / 2, s->ch = (height + 1) / 2;
    long n = (long)width * height, cn = (long)s->cw * s->ch;
    int ok = (s->alpha = malloc(n)) != 0 && (s->fx[0] = malloc(n)) != 0;
    ok &= (s->fx[1] = malloc(cn)) != 0 && (s->fx[2] = malloc(cn)) != 0;
    if (!ok) { mw_fine_steady_free(s); return 0; }
    return s;
}

void mw_fine_steady_free(MWFineSteady *s) {
    if (!s) return;
    free(s->alpha);
    for (int i = 0; i < 3; i++) free(s->fx[i]);
    free(s);
}

void mw_fine_steady(MWFineSteady *s, const MWFineInput *fx, uint8_t *alpha, long stride, int follows) {
    for (int y = 0; y < s->h; y++) steady_run(s, fx, alpha + (long)y * stride, 0, y, s->w, follows && s->has);
    mw_fine_steady_keep(s, fx);
}

void mw_fine_steady_keep(MWFineSteady *s, const MWFineInput *fx) {
    // fx's planes kept for the next picture's change (read around each pixel while it was keyed, so copied only now).
    int w = s->w, h = s->h;
    for (int y = 0; y < h; y++) memcpy(s->fx[0] + (long)y * w, fx->plane[0] + (long)y * fx->stride[0], w);
    for (int j = 1; j < 3; j++)
        for (int cy = 0; cy < s->ch; cy++) memcpy(s->fx[j] + (long)cy * s->cw, fx->plane[j] + (long)cy * fx->stride[j], s->cw);
    s->has = 1;
}
