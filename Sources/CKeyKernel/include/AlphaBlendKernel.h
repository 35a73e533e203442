// A picture laid over another by its own alpha (see AlphaBlend in MixWrite): FFmpeg's `overlay` formula on yuv420p,
// out = (fx·a + base·(255 − a)) / 255 with overlay's exact division by 255, a chroma sample's alpha the mean of its
// 2×2 luma alphas. Compiled at every level of the key kernel (Levels.h); every level gives the same bits.
#ifndef MIXWRITE_ALPHA_BLEND_KERNEL_H
#define MIXWRITE_ALPHA_BLEND_KERNEL_H

#include <stdint.h>

#include "CpuLevel.h"

typedef struct {
    /// fx (yuva420p: Y, U, V, A), base and the output (yuv420p), all width × height.
    const uint8_t *fx[4], *base[3];
    uint8_t *out[3];
    long fxStride[4], baseStride[3], outStride[3];
    int width, height;
    /// NULL, or the keyer's despill table (U << 8 | V to the despilled U << 8 | V) for fx's chroma first.
    const uint16_t *despill;
} MWAlphaBlend;

/// The family's functions at one level (0 … 4 as `mw_key_kernel`'s; level 0, which has no reference of its own, runs
/// plain x86-64's: the formula is integer arithmetic, the same bits at every level).
typedef struct {
    int level;
    void (*blend)(const MWAlphaBlend *b);
} MWAlphaKernel;

/// The table of `level`, or NULL for a level this CPU cannot run (above `mw_cpu_level()`, or negative).
const MWAlphaKernel *mw_alpha_kernel(int level);

#endif
