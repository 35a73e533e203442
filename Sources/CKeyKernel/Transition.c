// See TransitionKernel.h. Each kind a pixel at a time over whole rows, in xfade's expressions and order of
// operations (so its floats round as xfade's do); the fades' loops are left for the compiler to vectorize.
#include "TransitionKernel.h"

#include <math.h>

#pragma clang fp contract(off)

static inline float mix(float a, float b, float m) { return a * m + b * (1.f - m); }

static inline float smoothstep(float edge0, float edge1, float x) {
    float t = (x - edge0) / (edge1 - edge0);
    t = t < 0.f ? 0.f : t > 1.f ? 1.f : t;
    return t * t * (3.f - 2.f * t);
}

/// x modulo n, from 0 to n − 1 (xfade's slides wrap the picture round).
static inline int wrap(int x, int n) { return x % n + n * (x % n < 0); }

/// Where a wipe's edge is, or how far a slide has moved the pictures (xfade's z: float products truncated).
static int edge_of(MWTransitionKind kind, float progress, int W, int H) {
    switch (kind) {
    case MW_WIPELEFT: return W * progress;
    case MW_WIPERIGHT: return W * (1.f - progress);
    case MW_WIPEUP: return H * progress;
    case MW_WIPEDOWN: return H * (1.f - progress);
    case MW_SLIDELEFT: return -progress * W;
    case MW_SLIDERIGHT: return progress * W;
    case MW_SLIDEUP: return -progress * H;
    case MW_SLIDEDOWN: return progress * H;
    default: return 0;
    }
}

#define ROW(T, base, stride, y) ((T *)((base) + (long)(y) * (stride)))

// The whole plane, for samples of type T.
#define TRANSITION_PLANE(T, NAME)                                                                              \
static void NAME(MWTransitionKind kind, float progress, const MWTransitionPlane *p) {                          \
    const int W = p->frameWidth, H = p->frameHeight, sx = p->shiftX, sy = p->shiftY, width = p->width;         \
    const float fadeOut = smoothstep(1.f - 0.2f, 1.f, progress), fadeIn = smoothstep(0.2f, 1.f, progress);    \
    const float bg = kind == MW_FADEWHITE ? (float)p->white : (float)p->black;                                \
    const float radius = hypotf(W / 2, H / 2), circle = (progress - 0.5f) * 3.f;                               \
    const int z = edge_of(kind, progress, W, H);                                                                \
    for (int y = 0, height = p->height; y < height; y++) {                                                      \
        const int Y = y << sy;                                                                                  \
        const T *restrict a = ROW(const T, p->a, p->aStride, y), *restrict b = ROW(const T, p->b, p->bStride, y); \
        T *restrict out = ROW(T, p->out, p->outStride, y);                                                      \
        switch (kind) {                                                                                         \
        case MW_FADE:                                                                                           \
            for (int x = 0; x < width; x++) out[x] = mix(a[x], b[x], progress);                              \
            break;                                                                                              \
        case MW_FADEBLACK: case MW_FADEWHITE:                                                                   \
            for (int x = 0; x < width; x++)                                                                  \
                out[x] = mix(mix(a[x], bg, fadeOut), mix(bg, b[x], fadeIn), progress);                          \
            break;                                                                                              \
        case MW_WIPELEFT:                                                                                       \
            for (int x = 0; x < width; x++) out[x] = (x << sx) > z ? b[x] : a[x];                            \
            break;                                                                                              \
        case MW_WIPERIGHT:                                                                                      \
            for (int x = 0; x < width; x++) out[x] = (x << sx) > z ? a[x] : b[x];                            \
            break;                                                                                              \
        case MW_WIPEUP:                                                                                         \
            for (int x = 0; x < width; x++) out[x] = Y > z ? b[x] : a[x];                                    \
            break;                                                                                              \
        case MW_WIPEDOWN:                                                                                       \
            for (int x = 0; x < width; x++) out[x] = Y > z ? a[x] : b[x];                                    \
            break;                                                                                              \
        case MW_SLIDELEFT: case MW_SLIDERIGHT:                                                                  \
            for (int x = 0; x < width; x++) {                                                                \
                const int zx = z + (x << sx), zz = wrap(zx, W) >> sx;                                           \
                out[x] = zx >= 0 && zx < W ? b[zz] : a[zz];                                                     \
            }                                                                                                   \
            break;                                                                                              \
        case MW_SLIDEUP: case MW_SLIDEDOWN: {                                                                   \
            const int zy = z + Y, zz = wrap(zy, H) >> sy;                                                       \
            const T *from = zy >= 0 && zy < H ? ROW(const T, p->b, p->bStride, zz) : ROW(const T, p->a, p->aStride, zz); \
            for (int x = 0; x < width; x++) out[x] = from[x];                                                \
            break;                                                                                              \
        }                                                                                                       \
        case MW_CIRCLEOPEN:                                                                                     \
            for (int x = 0; x < width; x++) {                                                                \
                const float smooth = hypotf((x << sx) - W / 2, Y - H / 2) / radius + circle;                    \
                out[x] = mix(a[x], b[x], smoothstep(0.f, 1.f, smooth));                                         \
            }                                                                                                   \
            break;                                                                                              \
        }                                                                                                       \
    }                                                                                                           \
}

TRANSITION_PLANE(uint8_t, plane8)
TRANSITION_PLANE(uint16_t, plane16)

static void transition_plane(MWTransitionKind kind, float progress, const MWTransitionPlane *plane) {
    if (plane->bytes == 2) plane16(kind, progress, plane); else plane8(kind, progress, plane);
}

const MWTransitionKernel *mw_transition_kernel(int level) {
    static const MWTransitionKernel kernels[5] = {{0, transition_plane}, {1, transition_plane}, {2, transition_plane},
                                                  {3, transition_plane}, {4, transition_plane}};
    return level >= 0 && level <= mw_cpu_level() ? &kernels[level] : 0;
}
