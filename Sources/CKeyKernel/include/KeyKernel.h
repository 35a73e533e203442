// The chroma keyer's per-pixel path for spans of eight neighbouring 2×2 blocks (see ChromaKeyBlend.blendEdges
// in MixWrite): GL_LINEAR chroma of the span's 32 luma pixels, GPUImage's exact alpha through the RGBA8 texture,
// the blend of the span's chroma. In C because Swift cannot give one function a wider instruction set than the
// rest of the program: the same source is compiled for plain x86-64 (SSE2), x86-64-v3 (AVX2) and x86-64-v4
// (AVX-512), and the caller runs the best this CPU has (as FFmpeg picks its own kernels by CPU flags). Multiply
// and add are never fused, so every level gives the same bits: the movie does not depend on the machine.
#ifndef MIXWRITE_KEY_KERNEL_H
#define MIXWRITE_KEY_KERNEL_H

#include <stdint.h>

/// What the keyer's settings and the pictures' colour description make of GPUImage's formula. Channel values
/// are in 8-bit units (0 … 255) of the RGBA8 texture; chroma comes in 1/16 steps.
typedef struct {
    /// A channel before clamping: (Y − lumaZero)·lumaScale + (U16 − 2048)·perU + (V16 − 2048)·perV, for R, G, B.
    /// perU[0] and perV[2] are 0 (red takes V alone, blue U alone, in every YUV matrix) and not read.
    float lumaZero, lumaScale;
    float perU[3], perV[3];
    /// (Cr, Cb) − the key's (Cr, Cb) = crOf·(R, G, B) − keyCr, cbOf·(R, G, B) − keyCb.
    float crOf[3], cbOf[3];
    float keyCr, keyCb;
    /// alpha = 1 − smoothstep(threshold, threshold + smoothing, distance); hardEdge when smoothing is 0.
    float threshold, inverseSmoothing;
    int32_t hardEdge;
} MWKeyParams;

/// One chroma row of the blend: fx's and base's chroma rows (the row, the one above and the one below, clamped
/// at the picture's edges), fx's two luma rows, the edge map's row, and where the results go.
typedef struct {
    const uint8_t *fxU[3], *fxV[3], *baseU[3], *baseV[3];
    const uint8_t *lumaTop, *lumaBottom;
    /// 1 where the block is an edge, 0 where not: only the edge blocks' results are written.
    const uint8_t *isEdge;
    /// fx's (U, V) with the key's cast removed, indexed U << 8 | V, packed U << 8 | V; NULL without despill.
    const uint16_t *despill;
    uint8_t *outU, *outV;
    /// Each luma pixel's alpha (0 … 256, the weight of base) on the top and bottom luma rows.
    uint16_t *weightsTop, *weightsBottom;
    /// Samples in a chroma row, pixels in a luma row.
    long chromaWidth, lumaWidth;
} MWKeyRow;

/// Keys every span of eight blocks (cx = 0, 8, 16 …) of `row` that holds more than `fewEdges` edge blocks:
/// for each edge block its four pixels' alphas into the weights and the 2×2 average of their blended chroma
/// into outU, outV. A span at either end of the row repeats the picture's edge sample as GL's clamp to edge
/// does, and writes only inside the row. `level` says which compiled kernel runs: 4 x86-64-v4 (AVX-512),
/// 3 x86-64-v3 (AVX2), anything else the plain one (SSE2 on x86-64). Every level gives the same bits; one
/// above `mw_key_best_level()` must not be asked.
void mw_key_spans(int level, const MWKeyParams *params, const MWKeyRow *row, int fewEdges);

/// The highest level this CPU runs (1 on an x86-64 without AVX2, 0 on other processors).
int mw_key_best_level(void);

#endif
