// The fine keyer's per-pixel core (FineKeyer.h, step 5), one INLINE function that FineKeyer.c compiles at each level
// and FineKeyerRef.c compiles once with vectorizing turned off: the scalar reference. Only elementwise float
// arithmetic, no FMA (fp contract off), so every compilation rounds alike.
#ifndef MIXWRITE_FINE_CORE_H
#define MIXWRITE_FINE_CORE_H

#include "FineKeyer.h"

#include <math.h>

#pragma clang fp contract(off)

// The tuned constants, chosen on the tune half of research/key-truth-set.py. Colours are RGB in 0 … 1, luma 0 … 1.
/// A colour this far (RGB distance) off the screen → foreground line is no longer read by its projection on it.
#define FINE_RESIDUAL 0.1f
/// A screen → foreground line this long (RGB distance) is trusted wholly; a shorter one in proportion.
#define FINE_LINE 0.15f
/// Luma's own alpha counts from this luma difference between the screen and the foreground (luma units) …
#define FINE_LUMA_MIN 0.08f
/// … and wholly this much (luma units) past it.
#define FINE_LUMA_WIDTH 0.1f
/// Lighter than the screen, luma's alpha counts only for a colour this near (RGB distance) the screen → foreground line.
#define FINE_LUMA_RESIDUAL 0.2f
/// Luma's alpha over the colour's by this much (alpha) begins to mark a thin strand, whose colour is the foreground's …
#define FINE_THIN 0.15f
/// … and wholly this much (alpha) past it.
#define FINE_THIN_WIDTH 0.2f
/// A pixel's luma this far off its neighbourhood's mean (luma units) is detail chroma cannot see: luma's alpha counts.
#define FINE_DETAIL 0.04f
/// The noise kneed off each bound's ends (a share of the bound's room).
#define FINE_BOUND_NOISE 0.05f
/// The darkest a lit subject's luma is taken to be (luma units): the luma bound's far end.
#define FINE_DARK 0.07f
/// The matte's final stretch: alpha up to this is 0 …
#define FINE_LOW 0.05f
/// … and from this, 1.
#define FINE_HIGH 0.97f
/// Under this alpha a pixel's colour leans to the foreground field's (a smoke's or a grey disc's own colour is kept
/// over it).
#define FINE_SHOWN 0.15f

/// The other channels' bounds (`fine_alpha`) count wholly only where a pixel has lost at least this share of the
/// screen's saturation (its channel over the others' mean), and not at all where it is as saturated as the screen or
/// more: that is screen, whatever one channel says (a rendered effect's screen has a channel at or near 0, and the
/// codec's ringing beside a thin white line takes it below the screen's: read as a subject, the line gets dark specks).
#define FINE_CHANNEL_GATE 0.1f
/// No bound (`fine_bound`) divides by less room than this: within 0.1 of its end a channel cannot measure a share of it.
#define FINE_ROOM 0.1f
/// The file's noise is in levels, not in shares of a bound's room, so a bound's knee is never under this much of a
/// difference (7.7 levels in 8 bits): over a dark screen a noise of a few levels read as a share of a small room
/// flickered as a faint subject (tune's mixed, blue at CRF 28: the still subject's error −9 %).
#define FINE_BOUND_LEVEL 0.03f

static inline __attribute__((always_inline)) float fine_clamp01(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }

/// `x` with a knee at each end: 0 … `low` to 0, `low` … 2 `low` onto 0 … 2 `low`, the same `high` below 1, the middle
/// as it is: noise at an end cleared, nothing taken off the middle.
static inline __attribute__((always_inline)) float fine_knee(float x, float low, float high) {
    float y = x < 2.f * (x - low) ? x : 2.f * (x - low);
    y = y > 0.f ? y : 0.f;
    float u = 1.f - y, v = u < 2.f * (u - high) ? u : 2.f * (u - high);
    return 1.f - (v > 0.f ? v : 0.f);
}

/// Channel 1 (the screen's) no more than the others' mean by `strength` (an edge, a strand: the spill is most of the
/// green there). Only outside the solid core: 4 px inside a subject's edge its colour is its own, whatever its hue (a
/// limit there took a yellow's green, or a green shirt's).
static inline __attribute__((always_inline)) float fine_limited(float c0, float c1, float c2, float strength) {
    float excess = c1 - 0.5f * (c0 + c2);
    return excess > 0.f ? c1 - strength * excess : c1;
}

/// How much of a subject a value `v` at least is, where the screen's is `s`: darker (lighter) than the screen by that
/// share of the room to `end` (white), its noise kneed away (FINE_BOUND_NOISE of the room, FINE_BOUND_LEVEL at
/// least), where luma has detail (`seen`). Each channel is read to black (0): whatever the subject's colour, a channel
/// lies between black and white, so its bound never overshoots. Luma is read to FINE_DARK (no more than half the
/// screen's; `fine_alpha`): a lit strand is not black, and a thin one's dip is smoothed by the file, so read to black a
/// dark strand came out at 0.73–0.76 of its alpha over tune's blue screens (their luma is low); a strand darker than
/// FINE_DARK is read over its alpha, by s / (s − FINE_DARK) at most.
static inline __attribute__((always_inline)) float fine_bound(float v, float s, float seen, float end) {
    float room = v < s ? s - end : 1.f - s;
    room = room > FINE_ROOM ? room : FINE_ROOM;
    float low = FINE_BOUND_LEVEL / room;
    low = low > FINE_BOUND_NOISE ? low : FINE_BOUND_NOISE;
    return fine_knee(fabsf(v - s) / room, low, FINE_BOUND_NOISE) * seen;
}

/// The matte (projection, colour-difference, luma) at one pixel; `thin` how much its colour is the foreground
/// field's.
static inline __attribute__((always_inline)) float fine_alpha(const MWFineParams *p, const float c[3], const float s[3],
                                                              const float f[3], float yl, float detail, float a0, float *thin) {
    float fs[3] = {f[0] - s[0], f[1] - s[1], f[2] - s[2]}, d[3] = {c[0] - s[0], c[1] - s[1], c[2] - s[2]};
    float l2 = fs[0] * fs[0] + fs[1] * fs[1] + fs[2] * fs[2];
    float ap = fine_clamp01((d[0] * fs[0] + d[1] * fs[1] + d[2] * fs[2]) / (l2 > 1e-6f ? l2 : 1e-6f));
    float e0 = d[0] - ap * fs[0], e1 = d[1] - ap * fs[1], e2 = d[2] - ap * fs[2];
    float residual = sqrtf(e0 * e0 + e1 * e1 + e2 * e2);
    float conf = fine_clamp01(1.f - residual / FINE_RESIDUAL) * fine_clamp01(sqrtf(l2) / FINE_LINE);
    float ys = p->luma[0] * s[0] + p->luma[1] * s[1] + p->luma[2] * s[2];
    float dy = p->luma[0] * fs[0] + p->luma[1] * fs[1] + p->luma[2] * fs[2];
    float ady = fabsf(dy);
    float ay = fine_clamp01((yl - ys) / (ady < 1e-3f ? 1e-3f : dy));
    // Luma's own alpha only where luma has detail that chroma cannot see (a strand thinner than a sample): where it is
    // flat (a translucent object, a soft edge) chroma sees what luma does and tells screen from subject better.
    float seen = fine_clamp01(detail / FINE_DETAIL);
    float confY = fine_clamp01((ady - FINE_LUMA_MIN) / FINE_LUMA_WIDTH) * seen;
    // Lighter than the screen, only as near the screen → foreground line as the colour lies: a strand lighter than
    // the subject beside it (blond by a dark coat, grey on a blue screen) read against that subject's luma came out
    // more than it is (1.1–1.4 of its alpha). Darker it is not asked: a dark strand's chroma, smeared by 4:2:0, lies
    // off the line where its luma is right.
    if (yl > ys) confY *= fine_clamp01(1.f - residual / FINE_LUMA_RESIDUAL);
    float base = conf * ap + (1.f - conf) * a0;
    float side = confY * ay + (1.f - confY) * base;
    float alpha = confY > 0.f && side > base ? side : base;
    // Never less than luma's bound (a strand of any colour), nor than each channel's but the screen's where the pixel
    // is less saturated than the screen (FINE_CHANNEL_GATE): a thin feature's screen channel carries the screen's
    // spill, its others show it plainly (a dark strand on green is darker in red and blue than its luma shows).
    float dark = FINE_DARK < 0.5f * ys ? FINE_DARK : 0.5f * ys;
    float saturation = s[1] - 0.5f * (s[0] + s[2]), lost = saturation - (c[1] - 0.5f * (c[0] + c[2]));
    float gate = fine_clamp01(lost / (FINE_CHANNEL_GATE * (saturation > 1e-3f ? saturation : 1e-3f)));
    float bounds[3] = {fine_bound(yl, ys, seen, dark), fine_bound(c[0], s[0], seen, 0.f) * gate,
                       fine_bound(c[2], s[2], seen, 0.f) * gate};
    for (int k = 0; k < 3; k++) alpha = bounds[k] > alpha ? bounds[k] : alpha;
    *thin = fine_clamp01((side - base - FINE_THIN) / FINE_THIN_WIDTH);
    return fine_clamp01((alpha - FINE_LOW) / (FINE_HIGH - FINE_LOW));
}

/// One row: each pixel's matte and straight colour (unmixed, spill limited), as luma and alpha-weighted u, v.
static inline __attribute__((always_inline)) void fine_core(const MWFineParams *p, const MWFineRow *row, int level) {
    (void)level;
    const long width = row->width;
    const uint8_t *restrict luma = row->luma;
    const float *restrict ga = row->guideA, *restrict gb = row->guideB, *restrict u = row->u, *restrict v = row->v;
    const float *restrict mean = row->lumaMean;
    const float *restrict near = row->near, *restrict solid = row->core;
    const float *restrict s0 = row->screen[0], *restrict s1 = row->screen[1], *restrict s2 = row->screen[2];
    const float *restrict f0 = row->fore[0], *restrict f1s = row->fore[1], *restrict f2 = row->fore[2];
    float *restrict outA = row->alpha, *restrict outY = row->outY, *restrict outU = row->outU, *restrict outV = row->outV;
    for (long x = 0; x < width; x++) {
        float yl = ((float)luma[x] - p->lumaZero) * p->lumaScale;
        float c[3], s[3] = {s0[x], s1[x], s2[x]}, f[3] = {f0[x], f1s[x], f2[x]}, thin;
        for (int k = 0; k < 3; k++) c[k] = yl + u[x] * p->perU[k] + v[x] * p->perV[k];
        float a0 = fine_clamp01(ga[x] * (float)luma[x] + gb[x]);
        float detail = fabsf((float)luma[x] - mean[x]) * p->lumaScale;
        float alpha = fine_alpha(p, c, s, f, yl, detail, a0, &thin);
        alpha = alpha > solid[x] ? alpha : solid[x];
        // Inside the solid core a pixel's colour is its own (a strand's lean to the foreground is transparency's).
        thin = solid[x] > 0.f ? 0.f : thin;
        float strength = solid[x] > 0.f ? 0.f : p->despill * near[x], inv = 1.f / (alpha > 1e-3f ? alpha : 1e-3f), o[3];
        for (int k = 0; k < 3; k++) {
            float m = c[k] - (1.f - alpha) * s[k];
            o[k] = m > 0.f ? m : 0.f;
        }
        o[1] = fine_limited(o[0], o[1], o[2], strength);
        float f1 = fine_limited(f[0], f[1], f[2], strength);
        // Where next to nothing shows, the foreground's colour rather than an unmixing of noise: a transparent
        // pixel's colour is what scaling and chroma's averaging mix into its neighbours (no green fringe).
        float shown = fine_clamp01(alpha / FINE_SHOWN), own = (1.f - thin) * shown;
        for (int k = 0; k < 3; k++) o[k] = (1.f - own) * (k == 1 ? f1 : f[k]) + own * (o[k] * inv);
        float weight = alpha + 1e-3f;
        outA[x] = alpha;
        outY[x] = p->lumaZero + (p->luma[0] * o[0] + p->luma[1] * o[1] + p->luma[2] * o[2]) / p->lumaScale;
        outU[x] = weight * (p->toU[0] * o[0] + p->toU[1] * o[1] + p->toU[2] * o[2]);
        outV[x] = weight * (p->toV[0] * o[0] + p->toV[1] * o[1] + p->toV[2] * o[2]);
    }
}

#endif
