// The matte's feather (see mw_matte_feather in FineKeyer.h): the alpha softened, and the subject's colour brought
// under the part of it that spreads over the screen.
#include "FineKeyer.h"

#include <stdlib.h>

/// A box of 2r + 1 samples over n floats `step` apart, in place, the edge repeated (a running sum).
static void box_line(float *p, long step, int n, int r, float *scratch) {
    for (int i = 0; i < n; i++) scratch[i] = p[i * step];
    float sum = 0.f;
    for (int i = -r; i <= r; i++) sum += scratch[i < 0 ? 0 : i >= n ? n - 1 : i];
    const float scale = 1.f / (float)(2 * r + 1);
    for (int i = 0; i < n; i++) {
        p[i * step] = sum * scale;
        int in = i + r + 1, out = i - r;
        sum += scratch[in >= n ? n - 1 : in] - scratch[out < 0 ? 0 : out];
    }
}

/// The box twice along rows and along columns (near a Gaussian), on a w × h plane.
static void soften(float *plane, int w, int h, int r, float *scratch) {
    for (int pass = 0; pass < 2; pass++) {
        for (int y = 0; y < h; y++) box_line(plane + (long)y * w, 1, w, r, scratch);
        for (int x = 0; x < w; x++) box_line(plane + x, w, h, r, scratch);
    }
}

/// One plane's colour under the softened alpha: each sample's own colour by its own alpha (a), the rest the subject's
/// colour around it (the alpha-weighted mean, `weighted` / `softened`), as `zero` + the offset. Where no subject is
/// near (the softened alpha is nothing) the sample keeps its own.
static void bring_colour(uint8_t *plane, long stride, int w, int h, float zero, const float *a, const float *weighted,
                         const float *softened) {
    for (int y = 0; y < h; y++) {
        uint8_t *row = plane + (long)y * stride;
        for (int x = 0; x < w; x++) {
            long i = (long)y * w + x;
            if (a[i] >= 1.f || softened[i] < 1.f / 512.f) continue;
            float own = (float)row[x] - zero, near = weighted[i] / softened[i];
            float v = zero + a[i] * own + (1.f - a[i]) * near;
            row[x] = v <= 0.f ? 0 : v >= 255.f ? 255 : (uint8_t)(v + 0.5f);
        }
    }
}

int mw_matte_feather(uint8_t *const plane[4], const long stride[4], int w, int h, int chromaShift, int r) {
    if (r <= 0) return 0;
    const int cw = (w + (1 << chromaShift) - 1) >> chromaShift, ch = (h + (1 << chromaShift) - 1) >> chromaShift;
    const int rc = chromaShift ? (r + 1) / 2 : r;
    const long n = (long)w * h, nc = (long)cw * ch;
    float *buf = malloc(sizeof(float) * (size_t)(3 * n + 5 * nc + (w > h ? w : h)));
    if (!buf) return -1;
    float *a = buf, *sa = a + n, *sy = sa + n, *ac = sy + n, *sac = ac + nc, *su = sac + nc, *sv = su + nc, *scratch = sv + nc;
    // The alpha, and luma weighted by it.
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            long i = (long)y * w + x;
            a[i] = plane[3][(long)y * stride[3] + x] / 255.f;
            sa[i] = a[i];
            sy[i] = a[i] * ((float)plane[0][(long)y * stride[0] + x] - 16.f);
        }
    // A chroma sample's alpha: its pixels' mean; its colour weighted by it.
    for (int y = 0; y < ch; y++)
        for (int x = 0; x < cw; x++) {
            float sum = 0.f;
            int count = 0;
            for (int dy = 0; dy < 1 << chromaShift; dy++)
                for (int dx = 0; dx < 1 << chromaShift; dx++) {
                    int px = (x << chromaShift) + dx, py = (y << chromaShift) + dy;
                    if (px < w && py < h) { sum += a[(long)py * w + px]; count++; }
                }
            long i = (long)y * cw + x;
            ac[i] = sum / (float)count;
            sac[i] = ac[i];
            su[i] = ac[i] * ((float)plane[1][(long)y * stride[1] + x] - 128.f);
            sv[i] = ac[i] * ((float)plane[2][(long)y * stride[2] + x] - 128.f);
        }
    soften(sa, w, h, r, scratch);
    soften(sy, w, h, r, scratch);
    soften(sac, cw, ch, rc, scratch);
    soften(su, cw, ch, rc, scratch);
    soften(sv, cw, ch, rc, scratch);
    bring_colour(plane[0], stride[0], w, h, 16.f, a, sy, sa);
    bring_colour(plane[1], stride[1], cw, ch, 128.f, ac, su, sac);
    bring_colour(plane[2], stride[2], cw, ch, 128.f, ac, sv, sac);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float v = sa[(long)y * w + x] * 255.f;
            plane[3][(long)y * stride[3] + x] = v <= 0.f ? 0 : v >= 255.f ? 255 : (uint8_t)(v + 0.5f);
        }
    free(buf);
    return 0;
}
