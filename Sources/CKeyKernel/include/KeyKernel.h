// The chroma keyer's inner loops (see ChromaKeyBlend in MixWrite): the edge map (which 2×2 blocks need the
// per-pixel path), that path for spans of eight neighbouring blocks (GL_LINEAR chroma of the span's 32 luma
// pixels, GPUImage's exact alpha through the RGBA8 texture, the blend of the span's pixels and chroma), and the
// blend of the rest of each row.
// In C because Swift cannot give one function a wider instruction set than the rest of the program: the same
// source is compiled for plain x86-64 (SSE2), x86-64-v2 (SSE4.2), x86-64-v3 (AVX2) and x86-64-v4 (AVX-512), and
// the caller runs the best this CPU has (as FFmpeg picks its own kernels by CPU flags). Multiply and add are never
// fused, so every level gives the same bits: the movie does not depend on the machine.
#ifndef MIXWRITE_KEY_KERNEL_H
#define MIXWRITE_KEY_KERNEL_H

#include <stdint.h>

#include "CpuLevel.h"

/// What the keyer's settings and the pictures' colour description make of GPUImage's formula. Channel values
/// are in 8-bit units (0 … 255) of the RGBA8 texture; chroma comes in 1/16 steps.
typedef struct {
    /// A channel before clamping: (Y − lumaZero)·lumaScale + (U16 − 2048)·perU + (V16 − 2048)·perV, for R, G, B.
    /// perU[0] and perV[2] are 0 (red takes V alone, blue U alone, in every YUV matrix) and not read.
    float lumaZero, lumaScale;
    float perU[3], perV[3];
    /// The distance from the key in (Cr, Cb), in smoothing widths (or as it is, for a hard edge): Cr and Cb are
    /// linear in x = (R − G) − keyRG and y = (B − G) − keyBG, zero at the key, so its square is the quadratic form
    /// x·(square[0]·x + square[1]·y) + square[2]·y·y.
    float keyRG, keyBG, square[3];
    /// alpha = 1 − smoothstep(0, 1, distance − threshold) (the threshold in smoothing widths); with hardEdge (no
    /// smoothing) 1 where distance < threshold, else 0.
    float threshold;
    int32_t hardEdge;
} MWKeyParams;

/// One chroma row of the blend: fx's and base's chroma rows (the row, the one above and the one below, clamped
/// at the picture's edges), their two luma rows, the edge map's row, and where the results go.
typedef struct {
    const uint8_t *fxU[3], *fxV[3], *baseU[3], *baseV[3];
    const uint8_t *lumaTop, *lumaBottom, *baseLumaTop, *baseLumaBottom;
    /// `MW_EDGE` where the block is an edge, 0 where not: only the edge blocks' results are written, and the kernel
    /// adds `MW_KEYED` to each block it keys.
    uint8_t *isEdge;
    /// fx's (U, V) with the key's cast removed, indexed U << 8 | V, packed U << 8 | V; NULL without despill.
    const uint16_t *despill;
    /// The keyer's table (`MWEdgeRow.table`): `keyBlocks` takes a keyed or kept pixel's alpha from it where its
    /// margin holds, the alpha it would compute (NULL: every alpha computed). The reference never reads it.
    const uint32_t *entries;
    uint8_t *outU, *outV;
    /// The output's two luma rows (the bottom one a scratch row when the picture has no luma row there).
    uint8_t *outTop, *outBottom;
    /// Samples in a chroma row, pixels in a luma row.
    long chromaWidth, lumaWidth;
} MWKeyRow;

/// An edge map's marks (`MWKeyRow.isEdge`, `MWMixRow.kind`): an edge block, and an edge block the span kernel keyed.
enum { MW_EDGE = 1, MW_KEYED = 2 };

// keyBlocks: keys every edge block of `row` not keyed yet (marked `MW_EDGE` alone), as keySpans keys a span's: the
// scalar reference's, at every level (a span with a few edge blocks does not pay for a whole chunk).
// keySpans: keys every span of eight blocks (cx = 0, 8, 16 …) of `row` that holds more than `fewEdges` edge
// blocks: for each edge block its four pixels blended by their own alphas into the output's luma rows and the 2×2
// average of their blended chroma into outU, outV, and the block marked `MW_KEYED`. At either end of the row the
// edge sample is repeated, as GL's clamp to edge does; only blocks inside the row are written.

/// One chroma row of fx for the edge map (MixWrite's `EdgeMap`): which blocks need the per-pixel path.
typedef struct {
    /// The keyer's table, indexed U << 8 | V: alpha in bits 0–8, margin 9–15, luma range low 16–23, high 24–31.
    const uint32_t *table;
    const uint8_t *u, *v;
    const uint8_t *lumaTop, *lumaBottom;
    /// Samples in the chroma row, pixels in a luma row.
    long width, lumaWidth;
    /// The minima and maxima of each sample's horizontal neighbourhood (itself, left, right) on the rows above,
    /// this and below (`neighbourhood`).
    const uint8_t *uMin[3], *uMax[3], *vMin[3], *vMax[3];
    /// Out: each sample's alpha (0 … 256) and 1 where its block is an edge, else 0. Scratch: entries, lumaMin, lumaMax.
    uint16_t *alpha;
    uint8_t *isEdge;
    uint32_t *entries;
    uint8_t *lumaMin, *lumaMax;
} MWEdgeRow;

/// Whether any block is an edge, and the OR and AND of the row's alphas.
typedef struct {
    uint8_t hasEdges;
    uint16_t anyAlpha, allAlpha;
} MWEdgeSummary;

// edgeRow: the edge map of one row: a block is not an edge when its four pixels' lumas are in its sample's luma
// range and its 3×3 neighbourhood's chroma spread is under its margin (or nothing).
// neighbourhood: the minimum and maximum of (x − 1, x, x + 1) at each x of `p` (n samples), clamped at the ends.

/// One chroma row's blend outside the blocks keyed pixel by pixel (marked `MW_KEYED`): out = (f·(256 − a) + b·a
/// + 128) / 256 with a (0 … 256) the block's alpha, the weight of base, for its chroma and its pixels.
typedef struct {
    /// fx's chroma (with the key's cast removed under despill), base's, the output's.
    const uint8_t *fxU, *fxV, *baseU, *baseV;
    uint8_t *outU, *outV;
    /// The two luma rows of fx, base and the output (the bottom ones as in `MWKeyRow`).
    const uint8_t *fxTop, *fxBottom, *baseTop, *baseBottom;
    uint8_t *outTop, *outBottom;
    /// Each block's alpha, and its mark (0, `MW_EDGE`, `MW_EDGE | MW_KEYED`: only keyed blocks are left alone).
    const uint16_t *alpha;
    const uint8_t *kind;
    /// Samples in a chroma row, pixels in a luma row.
    long chromaWidth, lumaWidth;
} MWMixRow;

// mixRest: that blend of `row`, after the row's edge blocks are keyed.

/// The kernel's functions at one level, as dav1d's and FFmpeg's DSP contexts hold theirs: the Swift side asks
/// for a table once (`mw_key_kernel`) and calls through it. Every level gives the same bits as the scalar
/// reference, level 0 (KeyKernelRef.c), which the kernel test holds every other level to.
typedef struct {
    /// 0 the scalar reference, 1 plain x86-64 (SSE2), 2 x86-64-v2 (SSE4.2), 3 x86-64-v3 (AVX2), 4 x86-64-v4 (AVX-512).
    int level;
    void (*keySpans)(const MWKeyParams *params, const MWKeyRow *row, int fewEdges);
    void (*keyBlocks)(const MWKeyParams *params, const MWKeyRow *row);
    MWEdgeSummary (*edgeRow)(const MWEdgeRow *row);
    void (*neighbourhood)(const uint8_t *p, uint8_t *lows, uint8_t *highs, long n);
    void (*mixRest)(const MWMixRow *row);
} MWKeyKernel;

/// The table of `level`, or NULL for a level this CPU cannot run (above `mw_cpu_level()`, or negative).
const MWKeyKernel *mw_key_kernel(int level);

/// Asks for the n bytes at p to be brought into the cache (for reading), a cache line (64 bytes) at a time.
void mw_prefetch(const void *p, long n);

#endif
