// The fine keyer's matte steadied over the frames (FineKeyer.h, mw_fine_steady): where fx did not change from the
// picture before, each pixel's alpha is the mean of its own and that picture's, so the file's noise does not flicker
// in it; where fx changed, its own. Integers throughout: one implementation, its own reference
// (FineSteadyTests model it in Swift).
#include "FineParts.h"

/// How far fx's 3 × 3 sums (of Y; of U and V at their samples) may change before a pixel is its own alone: the mean's
/// change 0.04 of the range (chosen on the tune half of scripts/key-truth-set.py: RESULTS, "A step that looks back").
enum { STEADY_SPAN = 92 };

struct MWFineSteady {
    int w, h, cw, ch, has;
    /// The last picture's matte as keyed (before this step), and its fx's planes.
    uint8_t *alpha, *fx[3];
    /// Scratch rows: column sums, Y's change at each pixel, U's and the chroma's largest change at each sample.
    int *columns, *luma, *u, *chroma;
};

MWFineSteady *mw_fine_steady_create(int width, int height) {
    MWFineSteady *s = calloc(1, sizeof *s);
    if (!s) return 0;
    s->w = width, s->h = height, s->cw = (width + 1) / 2, s->ch = (height + 1) / 2;
    long n = (long)width * height, cn = (long)s->cw * s->ch;
    int ok = (s->alpha = malloc(n)) != 0 && (s->fx[0] = malloc(n)) != 0;
    ok &= (s->fx[1] = malloc(cn)) != 0 && (s->fx[2] = malloc(cn)) != 0;
    ok &= (s->columns = malloc(sizeof(int) * width)) != 0 && (s->luma = malloc(sizeof(int) * width)) != 0;
    ok &= (s->u = malloc(sizeof(int) * s->cw)) != 0 && (s->chroma = malloc(sizeof(int) * s->cw)) != 0;
    if (!ok) { mw_fine_steady_free(s); return 0; }
    return s;
}

void mw_fine_steady_free(MWFineSteady *s) {
    if (!s) return;
    free(s->alpha);
    for (int i = 0; i < 3; i++) free(s->fx[i]);
    free(s->columns);
    free(s->luma);
    free(s->u);
    free(s->chroma);
    free(s);
}

/// The change of a plane (w × h) from its last picture's (`last`, rows of w), summed over the 3 × 3 samples around
/// each of row y's (the edge repeated outside) and made absolute, into out (w values); `columns`: scratch of w.
static void change_row(const uint8_t *plane, long stride, const uint8_t *last, int w, int h, int y, int *columns, int *out) {
    for (int x = 0; x < w; x++) columns[x] = 0;
    for (int dy = -1; dy <= 1; dy++) {
        int r = clampi(y + dy, 0, h - 1);
        const uint8_t *p = plane + (long)r * stride, *l = last + (long)r * w;
        for (int x = 0; x < w; x++) columns[x] += (int)p[x] - (int)l[x];
    }
    for (int x = 0; x < w; x++) {
        int sum = columns[x > 0 ? x - 1 : 0] + columns[x] + columns[x < w - 1 ? x + 1 : w - 1];
        out[x] = sum < 0 ? -sum : sum;
    }
}

/// n / d rounded to the nearest, halves away from zero (d > 0).
static inline int divide_rounded(int n, int d) { return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d); }

void mw_fine_steady(MWFineSteady *s, const MWFineInput *fx, uint8_t *alpha, long stride, int follows) {
    int w = s->w, h = s->h, filter = follows && s->has;
    for (int y = 0; y < h; y++) {
        uint8_t *a = alpha + (long)y * stride, *last = s->alpha + (long)y * w;
        if (!filter) { memcpy(last, a, w); continue; }
        change_row(fx->plane[0], fx->stride[0], s->fx[0], w, h, y, s->columns, s->luma);
        if (y % 2 == 0) {
            change_row(fx->plane[1], fx->stride[1], s->fx[1], s->cw, s->ch, y / 2, s->columns, s->u);
            change_row(fx->plane[2], fx->stride[2], s->fx[2], s->cw, s->ch, y / 2, s->columns, s->chroma);
            for (int cx = 0; cx < s->cw; cx++) s->chroma[cx] = s->u[cx] > s->chroma[cx] ? s->u[cx] : s->chroma[cx];
        }
        for (int x = 0; x < w; x++) {
            int change = s->luma[x] > s->chroma[x / 2] ? s->luma[x] : s->chroma[x / 2];
            int own = a[x], before = last[x], weight = change < STEADY_SPAN ? STEADY_SPAN - change : 0;
            last[x] = (uint8_t)own;
            a[x] = (uint8_t)(own + divide_rounded((before - own) * weight, 2 * STEADY_SPAN));
        }
    }
    // fx's planes kept for the next picture's change (read above around each row, so copied only now).
    for (int y = 0; y < h; y++) memcpy(s->fx[0] + (long)y * w, fx->plane[0] + (long)y * fx->stride[0], w);
    for (int j = 1; j < 3; j++)
        for (int cy = 0; cy < s->ch; cy++) memcpy(s->fx[j] + (long)cy * s->cw, fx->plane[j] + (long)cy * fx->stride[j], s->cw);
    s->has = 1;
}
