// See AlphaBlendKernel.h. Plain loops the compiler vectorizes at each level; sizes and pointers in locals (a byte's
// store may alias anything, which would keep them from being vectorized).
#include "AlphaBlendKernel.h"
#include "Levels.h"
#include "Vectors.h"

INLINE void luma_row(const uint8_t *restrict f, const uint8_t *restrict a, const uint8_t *restrict b, uint8_t *restrict o, int w) {
    for (int x = 0; x < w; x++) o[x] = mw_over(f[x], b[x], a[x]);
}

/// One chroma row: its alpha from the two luma rows a0, a1 (the last sample of an odd width has one pixel across).
INLINE void chroma_row(const MWAlphaBlend *r, int cy) {
    const int w = r->width, h = r->height, cw = (w + 1) / 2, even = w / 2;
    const uint8_t *restrict a0 = r->fx[3] + (long)(2 * cy) * r->fxStride[3];
    const uint8_t *restrict a1 = r->fx[3] + (long)(2 * cy + 1 < h ? 2 * cy + 1 : 2 * cy) * r->fxStride[3];
    const uint8_t *restrict fu = r->fx[1] + cy * r->fxStride[1], *restrict fv = r->fx[2] + cy * r->fxStride[2];
    const uint8_t *restrict bu = r->base[1] + cy * r->baseStride[1], *restrict bv = r->base[2] + cy * r->baseStride[2];
    uint8_t *restrict ou = r->out[1] + cy * r->outStride[1], *restrict ov = r->out[2] + cy * r->outStride[2];
    const uint16_t *despill = r->despill;
    if (despill) {
        for (int cx = 0; cx < cw; cx++) {
            int x0 = 2 * cx, x1 = cx < even ? 2 * cx + 1 : 2 * cx;
            uint32_t av = ((uint32_t)a0[x0] + a0[x1] + a1[x0] + a1[x1]) >> 2;
            uint16_t d = despill[fu[cx] << 8 | fv[cx]];
            ou[cx] = mw_over(d >> 8, bu[cx], av), ov[cx] = mw_over(d & 0xFF, bv[cx], av);
        }
        return;
    }
    for (int cx = 0; cx < even; cx++) {
        uint32_t av = ((uint32_t)a0[2 * cx] + a0[2 * cx + 1] + a1[2 * cx] + a1[2 * cx + 1]) >> 2;
        ou[cx] = mw_over(fu[cx], bu[cx], av), ov[cx] = mw_over(fv[cx], bv[cx], av);
    }
    if (even < cw) {
        uint32_t av = (2 * (uint32_t)a0[2 * even] + 2 * (uint32_t)a1[2 * even]) >> 2;
        ou[even] = mw_over(fu[even], bu[even], av), ov[even] = mw_over(fv[even], bv[even], av);
    }
}

INLINE void alpha_blend(const MWAlphaBlend *r, int level) {
    (void)level;
    const int w = r->width, h = r->height;
    for (int y = 0; y < h; y++)
        luma_row(r->fx[0] + y * r->fxStride[0], r->fx[3] + y * r->fxStride[3], r->base[0] + y * r->baseStride[0],
                 r->out[0] + y * r->outStride[0], w);
    for (int cy = 0; cy < (h + 1) / 2; cy++) chroma_row(r, cy);
}
COMPILED_AT_LEVELS(void, alpha_blend, (const MWAlphaBlend *r), r)

const MWAlphaKernel *mw_alpha_kernel(int level) {
    static const MWAlphaKernel kernels[5] = {{0, mw_alpha_blend_1}, {1, mw_alpha_blend_1}, {2, mw_alpha_blend_2},
                                             {3, mw_alpha_blend_3}, {4, mw_alpha_blend_4}};
    return level >= 0 && level <= mw_cpu_level() ? &kernels[level] : 0;
}
