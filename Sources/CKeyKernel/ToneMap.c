// See ToneMapKernel.h. Written a pixel at a time over whole rows, for the compiler to vectorize at each level; the
// scalar reference (level 0) is the same pixel function in a loop the compiler must not vectorize. The transfer
// functions and powers are read from tables (AVX-512 gathers them): computing them (log₂ and 2^x by polynomials)
// cost half as much again, and FFmpeg's chain twice as much.
#include "ToneMapKernel.h"
#include "Levels.h"

#include <string.h>

#pragma clang fp contract(off)

INLINE uint32_t bits_of(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

INLINE float float_of(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

INLINE float clamp_float(float x, float low, float high) { return x < low ? low : x > high ? high : x; }

/// Entry of E' in the transfer table (nearest; below 0 as 0, as zimg takes it, and from 2 the last).
INLINE int signal_index(float e) {
    float i = clamp_float(e * (float)MW_SIGNAL_STEPS + 0.5f, 0.0f, 2.0f * (float)MW_SIGNAL_STEPS);
    return (int)i;
}

/// Entry of x in a power table (nearest by its float bits; below 0 the first, which is 0; from 4 the last).
INLINE int power_index(float x) {
    const int32_t low = (127 - 24) << 23, shift = 23 - MW_POWER_BITS;
    int32_t i = ((int32_t)bits_of(clamp_float(x, 0.0f, 4.0f)) - low + (1 << (shift - 1))) >> shift;
    return i < 0 ? 0 : i > MW_POWER_ENTRIES - 1 ? MW_POWER_ENTRIES - 1 : i;
}

/// FFmpeg's vf_tonemap's Hable curve.
INLINE float hable(float x) {
    const float a = 0.15f, b = 0.50f, c = 0.10f, d = 0.20f, e = 0.02f, f = 0.30f;
    return (x * (x * a + b * c) + d * e) / (x * (x * a + b) + d * f) - e / f;
}

/// A chroma sample's part of its two pixels' R', G' and B' (the matrix's Cb and Cr terms), in `offsets`' three
/// rows at pixels 2c and 2c + 1.
INLINE void tone_offsets(const MWToneParams *p, uint16_t cb, uint16_t cr, float *offsets, long width, long c) {
    float u = ((float)cb - p->chromaZero) * p->chromaScale;
    float v = ((float)cr - p->chromaZero) * p->chromaScale;
    float r = p->rV * v, g = p->gU * u + p->gV * v, b = p->bU * u;
    offsets[2 * c] = r;
    offsets[2 * c + 1] = r;
    offsets[width + 2 * c] = g;
    offsets[width + 2 * c + 1] = g;
    offsets[2 * width + 2 * c] = b;
    offsets[2 * width + 2 * c + 1] = b;
}

/// One pixel: its Y' (8 bits, written) and its R'G'B' in SDR (added into the block's sums when `add`).
INLINE void tone_pixel(const MWToneParams *p, uint16_t luma, const float *offsets, uint8_t *out, float *sums,
                       long width, long x, int add) {
    float y = ((float)luma - p->lumaZero) * p->lumaScale;
    float r = p->toLinear[signal_index(y + offsets[x])];
    float g = p->toLinear[signal_index(y + offsets[width + x])];
    float b = p->toLinear[signal_index(y + offsets[2 * width + x])];
    const float *m = p->gamut;
    float r2 = m[0] * r + m[1] * g + m[2] * b;
    float g2 = m[3] * r + m[4] * g + m[5] * b;
    float b2 = m[6] * r + m[7] * g + m[8] * b;
    float sig = r2 > g2 ? r2 : g2;
    sig = sig > b2 ? sig : b2;
    sig = sig > 1e-6f ? sig : 1e-6f;
    float scale = hable(sig) * p->hablePeakInverse / sig;
    // BT.1886's inverse EOTF, x^(1/2.4), below 0 clipped to 0: a colour beyond BT.709's gamut loses what BT.709
    // cannot show, as a display would clip it, so its Cb and Cr stay in range and the rest of it is kept. (zimg's
    // AVX2 path clips so; its AVX-512 path carries the sign through, which makes Cb and Cr overflow 8 bits.)
    float rl = r2 * scale, gl = g2 * scale, bl = b2 * scale;
    float rs = p->toGamma[power_index(rl)];
    float gs = p->toGamma[power_index(gl)];
    float bs = p->toGamma[power_index(bl)];
    float luma8 = 16.0f + 219.0f * (0.2126f * rs + 0.7152f * gs + 0.0722f * bs) + 0.5f;
    out[x] = (uint8_t)clamp_float(luma8, 0.0f, 255.0f);
    if (add) {
        sums[x] += rs;
        sums[width + x] += gs;
        sums[2 * width + x] += bs;
    } else {
        sums[x] = rs;
        sums[width + x] = gs;
        sums[2 * width + x] = bs;
    }
}

/// One chroma sample from its block's sums (rows of `stride`; `rows` luma rows in them).
INLINE void tone_chroma(const float *sums, long stride, long width, long c, float rows, uint8_t *outU, uint8_t *outV) {
    long left = 2 * c, right = 2 * c + 1 < width ? 2 * c + 1 : 2 * c;
    float n = 1.0f / (2.0f * rows);
    float r = (sums[left] + sums[right]) * n;
    float g = (sums[stride + left] + sums[stride + right]) * n;
    float b = (sums[2 * stride + left] + sums[2 * stride + right]) * n;
    // BT.709's Cb and Cr of R'G'B' (limited range).
    float cb = 128.0f + 224.0f * (-0.1145721061f * r - 0.3854278939f * g + 0.5f * b) + 0.5f;
    float cr = 128.0f + 224.0f * (0.5f * r - 0.4541529083f * g - 0.0458470917f * b) + 0.5f;
    outU[c] = (uint8_t)clamp_float(cb, 0.0f, 255.0f);
    outV[c] = (uint8_t)clamp_float(cr, 0.0f, 255.0f);
}

/// The rows, with each loop a vector loop (`vectorize` 1) or the scalar reference (0).
/// The rows, with each loop a vector loop or the scalar reference. `scratch`: the chroma's offsets (3 rows of
/// `width`, the width rounded up to even), then the block's sums (3 rows).
#define TONE_ROWS_BODY(LOOP_PRAGMA)                                                                                  \
    long width = pic->width, chromaWidth = (width + 1) / 2, even = 2 * chromaWidth;                                  \
    float *offsets = scratch, *sums = scratch + 3 * even;                                                            \
    for (long cy = first; cy < end; cy++) {                                                                          \
        const uint16_t *u = pic->u + cy * pic->uStride, *v = pic->v + cy * pic->vStride;                             \
        LOOP_PRAGMA for (long c = 0; c < chromaWidth; c++) tone_offsets(p, u[c], v[c], offsets, even, c);           \
        long rows = 2 * cy + 1 < pic->height ? 2 : 1;                                                                \
        for (long dy = 0; dy < rows; dy++) {                                                                         \
            const uint16_t *luma = pic->y + (2 * cy + dy) * pic->yStride;                                            \
            uint8_t *out = pic->outY + (2 * cy + dy) * pic->outYStride;                                              \
            if (dy) {                                                                                                \
                LOOP_PRAGMA for (long x = 0; x < width; x++) tone_pixel(p, luma[x], offsets, out, sums, even, x, 1);  \
            } else {                                                                                                 \
                LOOP_PRAGMA for (long x = 0; x < width; x++) tone_pixel(p, luma[x], offsets, out, sums, even, x, 0);  \
            }                                                                                                        \
        }                                                                                                            \
        uint8_t *outU = pic->outU + cy * pic->outUStride, *outV = pic->outV + cy * pic->outVStride;                  \
        LOOP_PRAGMA for (long c = 0; c < chromaWidth; c++) tone_chroma(sums, even, width, c, (float)rows, outU, outV); \
    }

#define VECTOR_LOOP _Pragma("clang loop vectorize(assume_safety) vectorize_width(16) interleave(enable)")
#define SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")

INLINE void tone_rows(const MWToneParams *p, const MWTonePicture *pic, long first, long end, float *scratch, int level) {
    (void)level;
    TONE_ROWS_BODY(VECTOR_LOOP)
}

static void mw_tone_rows_ref(const MWToneParams *p, const MWTonePicture *pic, long first, long end, float *scratch) {
    TONE_ROWS_BODY(SCALAR_LOOP)
}

#define TONE_PARAMS (const MWToneParams *p, const MWTonePicture *pic, long first, long end, float *scratch)
COMPILED_AT_LEVELS(void, tone_rows, TONE_PARAMS, p, pic, first, end, scratch)

const MWToneKernel *mw_tone_kernel(int level) {
    static const MWToneKernel kernels[5] = {{0, mw_tone_rows_ref}, {1, mw_tone_rows_1}, {2, mw_tone_rows_2},
                                            {3, mw_tone_rows_3}, {4, mw_tone_rows_4}};
    return level >= 0 && level <= mw_cpu_level() ? &kernels[level] : 0;
}
