// A clean plate as the fine keyer's screen (FineKeyer.h, mw_fine_plate): the plate's channels at each chroma sample,
// denoised, and each cell's mean, which step 2 (FineFields.h) takes in place of the screen it would learn.
#include "FineParts.h"

/// See FineKeyer.h. The plate's channels at each chroma sample (its 2 × 2 pixels' luma), box-filtered over 3 × 3
/// samples (the noise a plate keeps after its pictures' mean: the light it carries is smooth), and each cell's mean.
int mw_fine_plate(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *plate) {
    for (int i = 0; i < 3; i++) free(k->plate[i]), free(k->plateCells[i]), k->plate[i] = k->plateCells[i] = 0;
    if (!plate) return 0;
    long n = (long)k->cw * k->ch, gn = (long)k->gw * k->gh;
    float *tmp = malloc(sizeof(float) * n);
    int ok = tmp != 0;
    for (int i = 0; i < 3; i++) {
        ok &= (k->plate[i] = malloc(sizeof(float) * n)) != 0;
        ok &= (k->plateCells[i] = calloc(gn, sizeof(float))) != 0;
    }
    if (!ok) {
        free(tmp);
        mw_fine_plate(k, p, 0);
        return -1;
    }
    for (int cy = 0; cy < k->ch; cy++) {
        const uint8_t *y0 = plate->plane[0] + (long)(2 * cy) * plate->stride[0];
        const uint8_t *y1 = plate->plane[0] + (long)(2 * cy + 1 < k->h ? 2 * cy + 1 : 2 * cy) * plate->stride[0];
        const uint8_t *u = plate->plane[1] + (long)cy * plate->stride[1], *v = plate->plane[2] + (long)cy * plate->stride[2];
        for (int cx = 0; cx < k->cw; cx++) {
            int x1 = 2 * cx + 1 < k->w ? 2 * cx + 1 : 2 * cx;
            float c[3];
            sample_channels(p, 0.25f * (float)(y0[2 * cx] + y0[x1] + y1[2 * cx] + y1[x1]), u[cx], v[cx], c);
            for (int j = 0; j < 3; j++) k->plate[j][(long)cy * k->cw + cx] = c[j];
        }
    }
    for (int j = 0; j < 3; j++) {
        float *c = k->plate[j], *cells = k->plateCells[j];
        box(c, c, tmp, k->cw, k->ch, 1);
        for (int cy = 0; cy < k->ch; cy++)
            for (int cx = 0; cx < k->cw; cx++) cells[(long)(cy / CELL) * k->gw + cx / CELL] += c[(long)cy * k->cw + cx];
        for (int gy = 0; gy < k->gh; gy++)
            for (int gx = 0; gx < k->gw; gx++) {
                int rows = clampi(k->ch - CELL * gy, 1, CELL), cols = clampi(k->cw - CELL * gx, 1, CELL);
                cells[(long)gy * k->gw + gx] /= (float)(rows * cols);
            }
    }
    free(tmp);
    return 0;
}
