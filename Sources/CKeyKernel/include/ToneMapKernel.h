// HDR to SDR a pixel at a time (see ToneMapper in MixWrite): a 10-bit HLG or PQ picture (yuv420p10, limited range)
// to 8-bit SDR BT.709 (yuv420p, limited range) by the same arithmetic as FFmpeg's chain `zscale=t=linear:npl=100,
// zscale=p=bt709, tonemap=hable:desat=0, zscale=t=bt709:m=bt709:r=tv` (zimg 3.0's display-referred HLG with its
// OOTF on the luminance, or PQ's EOTF; the primaries' 3×3 in linear light; Hable's curve on max(R, G, B); BT.1886's
// inverse EOTF), in floats, the transfer functions and powers read from tables the caller fills once. Each 2×2 block's
// four pixels share its chroma sample, and its output chroma is the mean of their four colours.
// Compiled at the keyer's levels (Levels.h); multiply and add are never fused, so every level gives the same bits.
#ifndef MIXWRITE_TONE_MAP_KERNEL_H
#define MIXWRITE_TONE_MAP_KERNEL_H

#include <stdint.h>

#include "CpuLevel.h"

/// The transfer table: E' (the HDR signal) from 0 to 2 in steps of 1 / MW_SIGNAL_STEPS, entry i for E' = i / steps
/// (nearest: within an eighth of a 10-bit step). Above 1 for the colours 10-bit Y'CbCr holds beyond RGB's cube.
#define MW_SIGNAL_STEPS 4096
/// A power table: x from 2⁻²⁴ to 4 by its float bits, MW_POWER_BITS bits of mantissa (256 entries an octave), entry i
/// for the float whose bits are those of 2⁻²⁴ plus i << (23 − MW_POWER_BITS), rounded to the nearest (within 0.1 %
/// of x); entry 0 is for 0.
#define MW_POWER_BITS 8
#define MW_POWER_ENTRIES 6657 // 26 octaves of 2^MW_POWER_BITS, and 4 itself

typedef struct {
    /// Y' = (Y − lumaZero) · lumaScale, Cb and Cr likewise (limited range, 10 bits).
    float lumaZero, lumaScale, chromaZero, chromaScale;
    /// R' = Y' + rV·Cr, G' = Y' + gU·Cb + gV·Cr, B' = Y' + bU·Cb (the input's matrix).
    float rV, gU, gV, bU;
    /// E' → linear light in units of 100 cd/m² (the chain's npl), 2 · MW_SIGNAL_STEPS + 1 entries.
    const float *toLinear;
    /// Linear input primaries → linear BT.709 (rows).
    float gamut[9];
    /// 1 / hable(peak).
    float hablePeakInverse;
    /// Linear → BT.1886's inverse EOTF, x^(1/2.4) (a power table; below 0 clipped to 0).
    const float *toGamma;
} MWToneParams;

typedef struct {
    const uint16_t *y, *u, *v;
    long yStride, uStride, vStride; // in samples
    uint8_t *outY, *outU, *outV;
    long outYStride, outUStride, outVStride;
    long width, height;
} MWTonePicture;

/// Chroma rows [first, end) of `picture` (luma rows 2·first … 2·end − 1), with `scratch` for 6 · (width + 1)
/// floats.
typedef void (*MWToneRows)(const MWToneParams *params, const MWTonePicture *picture, long first, long end, float *scratch);

/// The family's functions at one level (0 the scalar reference, the same pixel function unvectorized; then the
/// keyer's levels).
typedef struct {
    int level;
    MWToneRows rows;
} MWToneKernel;

/// The table of `level`, or NULL for a level this CPU cannot run (above `mw_cpu_level()`, or negative).
const MWToneKernel *mw_tone_kernel(int level);

#endif
