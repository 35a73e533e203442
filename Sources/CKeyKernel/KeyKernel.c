// See KeyKernel.h. A chunk of two spans (16 blocks) a step: its chroma in 32-lane rows of 16-bit integers, one
// lane a luma pixel of its top or bottom row (lanes 0–15 the blocks' left pixels, 16–31 their right ones), the
// alpha in 16-lane vectors of floats, half a row each; the pixels go back in their order only when blended into
// the output's luma rows. Contraction of a·b + c into one FMA is off so that every build gives the same bits: a
// movie keyed on a machine with AVX2 and one without are the same movie.
#include "KeyKernel.h"
#include "Levels.h"
#include "Vectors.h"

#pragma clang fp contract(off)

/// The blocks a chunk takes in one step: two spans of eight, 32 luma pixels on each of its two rows.
enum { CHUNK = 16 };

/// 16 bytes widened to 16-bit lanes.
INLINE i16x16 widen_u8x16(const uint8_t *p) { return __builtin_convertvector(load_u8x16(p), i16x16); }

INLINE i16x32 join(i16x16 a, i16x16 b) { return __builtin_shufflevector(a, b, LOW_16, HIGH_16); }

/// Where a chunk lies in its row: inside, or at an end, where the sample beyond the row is the edge sample
/// repeated (GL's clamp to edge), from lanes of the row's own samples.
enum { INSIDE, LEFT_END, RIGHT_END };

/// The 16 samples from x − 1 (the chunk's left neighbours) and from x + 1 (right neighbours).
INLINE i16x16 left_of(const uint8_t *p, long x, const int end) {
    if (end != LEFT_END) return widen_u8x16(p + x - 1);
    i16x16 c = widen_u8x16(p + x);
    return __builtin_shufflevector(c, c, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
}

INLINE i16x16 right_of(const uint8_t *p, long x, const int end) {
    if (end != RIGHT_END) return widen_u8x16(p + x + 1);
    i16x16 c = widen_u8x16(p + x);
    return __builtin_shufflevector(c, c, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15);
}

/// GL_LINEAR chroma of the chunk's 32 pixels on its top (out[0]) and bottom (out[1]) luma rows, in 1/16 steps:
/// 9/16 of the block's sample, 3/16 of the horizontal and of the vertical neighbour on the pixel's side, 1/16
/// diagonal. Vertical first (3 × the row + the row above or below), then each block's left pixel takes 3 × its
/// own column + the one on the left (lanes 0–15), its right pixel 3 × its own + the one on the right (16–31):
/// lane k and lane 16 + k are block k's two pixels, so that a block's sums are lane by lane, with no shuffles.
INLINE void linear_chroma(const uint8_t *const rows[3], long cx, const int end, i16x32 out[2]) {
    const uint8_t *r = rows[1];
    i16x16 left = 3 * left_of(r, cx, end), centre = 3 * widen_u8x16(r + cx), right = 3 * right_of(r, cx, end);
#pragma clang loop unroll(full)
    for (int dy = 0; dy < 2; dy++) {
        const uint8_t *o = rows[dy ? 2 : 0];
        i16x16 c = 3 * (centre + widen_u8x16(o + cx));
        i16x16 even = c + left + left_of(o, cx, end), odd = c + right + right_of(o, cx, end);
        out[dy] = join(even, odd);
    }
}

/// Whole numbers as floats, at 1.5·2²³ + n: x + 1.5·2²³ rounds x (|x| < 2²²) to the nearest whole number, ties to
/// even, with the float unit's own rounding (plain x86-64 has no rounding instruction for vectors). The sums' bits
/// then order as the whole numbers do, so integer minimum and maximum clamp them: work for the integer lanes,
/// while the float units, the busiest, have enough to do. The difference of two such sums is exact.
#define WHOLE 12582912.0f
#define WHOLE_BITS 0x4B400000

INLINE i32x16 imin(i32x16 a, i32x16 b) {
    i32x16 m = a < b;
    return (a & m) | (b & ~m);
}

INLINE i32x16 imax(i32x16 a, i32x16 b) {
    i32x16 m = a > b;
    return (a & m) | (b & ~m);
}

/// Float minimum and maximum, for plain x86-64: it has them for floats but not for 32-bit integers, which it
/// would build of four instructions each. The same values as the integer ones for these numbers.
INLINE f32x16 minf(f32x16 a, f32x16 b) {
    i32x16 m = a < b;
    return (f32x16)(((i32x16)a & m) | ((i32x16)b & ~m));
}

INLINE f32x16 maxf(f32x16 a, f32x16 b) {
    i32x16 m = a > b;
    return (f32x16)(((i32x16)a & m) | ((i32x16)b & ~m));
}

/// A channel of the RGBA8 texture, clamped to 0 … 255 and rounded to a whole 8-bit value, as WHOLE + value
/// (clamped in integer lanes from x86-64-v2 on).
INLINE f32x16 texel(f32x16 x, const int level) {
    f32x16 whole = x + WHOLE;
    if (level < 2) return minf(maxf(whole, (f32x16){0} + WHOLE), (f32x16){0} + (WHOLE + 255));
    return (f32x16)imin(imax((i32x16)whole, (i32x16){0} + WHOLE_BITS), (i32x16){0} + (WHOLE_BITS + 255));
}

/// t clamped to 0 … 1. A positive float's bits order as integers, a negative one's are a negative integer: so
/// integer maximum with 0 and minimum with 1.0's bits clamp it (from x86-64-v2 on, which has them).
INLINE f32x16 clamp01(f32x16 t, const int level) {
    if (level < 2) return minf(maxf(t, (f32x16){0}), (f32x16){0} + 1);
    return (f32x16)imin(imax((i32x16)t, (i32x16){0}), (i32x16){0} + 0x3F800000);
}

/// GPUImage's alpha (0 … 256) of 16 pixels: luma − lumaZero and chroma − 2048, in 1/16 steps. In every YUV matrix
/// red takes V alone and blue U alone; Cr and Cb weigh R, G, B by weights that add up to 0, so they are linear in
/// R − G and B − G, and the squared distance from the key a quadratic form of those less the key's.
INLINE i32x16 key_alpha(const MWKeyParams *p, f32x16 y, f32x16 du, f32x16 dv, const int hard, const int level) {
    f32x16 l = y * p->lumaScale;
    f32x16 r = texel(l + dv * p->perV[0], level);
    f32x16 g = texel(l + du * p->perU[1] + dv * p->perV[1], level);
    f32x16 b = texel(l + du * p->perU[2], level);
    f32x16 rg = (r - g) - p->keyRG, bg = (b - g) - p->keyBG;
    f32x16 d = __builtin_elementwise_sqrt(rg * (p->square[0] * rg + p->square[1] * bg) + p->square[2] * (bg * bg));
    if (hard) return (d < p->threshold) & 256;
    f32x16 t = clamp01(d - p->threshold, level);
    // 256·(1 − smoothstep) = 256 − t²·(768 − 512·t), rounded with one subtraction from WHOLE + 256.
    return (i32x16)((WHOLE + 256) - t * t * (768 - 512 * t)) - WHOLE_BITS;
}

/// fx's chroma with the key's cast removed, lane by lane through the despill table: only the lanes of blocks the
/// chunk takes (the others are not written).
INLINE void despill(i16x32 *u, i16x32 *v, const uint16_t *table, u8x16 take) {
    i16x32 index = ((*u + 8) >> 4) << 8 | ((*v + 8) >> 4);
    i16x32 out = {0};
    for (int k = 0; k < CHUNK; k++) {
        if (!take[k]) continue;
        out[k] = (int16_t)table[(uint16_t)index[k]];
        out[CHUNK + k] = (int16_t)table[(uint16_t)index[CHUNK + k]];
    }
    *u = ((i16x32)((u16x32)out >> 8)) * 16;
    *v = (out & 0xFF) * 16;
}

/// Lanes 0–15 (half 0) or 16–31 (half 1) of x, in 32 bits.
INLINE i32x16 half_wide(i16x32 x, const int half) {
    i16x16 h = half ? __builtin_shufflevector(x, x, HIGH_16) : __builtin_shufflevector(x, x, LOW_16);
    return __builtin_convertvector(h, i32x16);
}

/// The same, as floats.
INLINE f32x16 half_float(i16x32 x, const int half) { return __builtin_convertvector(half_wide(x, half), f32x16); }

/// Each block's blended chroma summed over its four pixels, in 1/16 steps × 256: fx's chroma x weighs 256 − alpha,
/// base's b alpha, which is 256·x + (b − x)·alpha; lanes are blocks. The sum of four chroma values (at most
/// 4 · 4080) fits 16 bits, and so does b − x.
INLINE i32x16 blend_sum(const i16x32 x[2], const i16x32 b[2], const i32x16 alpha[4]) {
    i16x32 rows = x[0] + x[1];
    i32x16 sum = (half_wide(rows, 0) + half_wide(rows, 1)) << 8;
#pragma clang loop unroll(full)
    for (int k = 0; k < 4; k++) sum += half_wide(b[k / 2] - x[k / 2], k % 2) * alpha[k];
    return sum;
}

INLINE void store_bytes(uint8_t *p, i32x16 values, u8x16 mask) { store_u8x16_masked(p, __builtin_convertvector(values, u8x16), mask); }

/// A luma row's 32 pixels blended, (fx·(256 − alpha) + base·alpha + 128) / 256 in 16-bit lanes, with the alphas
/// of the blocks' left and right pixels put in pixel order; written where `mask` is set.
INLINE void blend_lumas(u8x32 fx, const uint8_t *base, i32x16 left, i32x16 right, uint8_t *out, u8x32 mask) {
    i16x16 l = __builtin_convertvector(left, i16x16), r = __builtin_convertvector(right, i16x16);
    u16x32 alpha = (u16x32)__builtin_shufflevector(l, r, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23, 8, 24,
                                               9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    u16x32 mixed = (__builtin_convertvector(fx, u16x32) * (256 - alpha) + __builtin_convertvector(load_u8x32(base), u16x32) * alpha + 128) >> 8;
    store_u8x32_masked(out, __builtin_convertvector(mixed, u8x32), mask);
}

/// The chunk of blocks cx … cx + 15; `take` is 0xFF for each block whose results are written (an edge in a span
/// the kernel takes). The four alphas (two rows; left pixels, right pixels) are long chains of dependent steps,
/// a square root among them, computed side by side so that the vector units stay busy while each waits.
INLINE void key_chunk(const MWKeyParams *p, const MWKeyRow *row, long cx, u8x16 take, const int end,
                      const int hard, const int level) {
    i16x32 u[2], v[2];
    linear_chroma(row->fxU, cx, end, u);
    linear_chroma(row->fxV, cx, end, v);
    // Luma − lumaZero and chroma − 2048 (the offsets whole numbers) in integer lanes, then floats.
    const int lumaZero = (int)p->lumaZero;
    f32x16 y[4];
    u8x32 fxLumas[2];
#pragma clang loop unroll(full)
    for (int dy = 0; dy < 2; dy++) {
        fxLumas[dy] = load_u8x32((dy ? row->lumaBottom : row->lumaTop) + 2 * cx);
        u8x32 lumas = fxLumas[dy];
        i32x16 left = __builtin_convertvector(EVEN_OF_32(lumas), i32x16), right = __builtin_convertvector(ODD_OF_32(lumas), i32x16);
        y[2 * dy] = __builtin_convertvector(left - lumaZero, f32x16);
        y[2 * dy + 1] = __builtin_convertvector(right - lumaZero, f32x16);
    }
    i32x16 alpha[4];
#pragma clang loop unroll(full)
    for (int k = 0; k < 4; k++) {
        alpha[k] = key_alpha(p, y[k], half_float(u[k / 2] - 2048, k % 2), half_float(v[k / 2] - 2048, k % 2), hard,
                             level);
    }
    i16x32 bu[2], bv[2];
    linear_chroma(row->baseU, cx, end, bu);
    linear_chroma(row->baseV, cx, end, bv);
    if (row->despill) {
        for (int dy = 0; dy < 2; dy++) despill(&u[dy], &v[dy], row->despill, take);
    }
    i32x16 sumU = blend_sum(u, bu, alpha), sumV = blend_sum(v, bv, alpha);
    u8x32 pixels = __builtin_shufflevector(take, take, PAIRS_OF_16);
    // Four pixels, 1/16 units, alpha out of 256: 16 384 in all.
    store_bytes(row->outU + cx, (sumU + 8192) >> 14, take);
    store_bytes(row->outV + cx, (sumV + 8192) >> 14, take);
    blend_lumas(fxLumas[0], row->baseLumaTop + 2 * cx, alpha[0], alpha[1], row->outTop + 2 * cx, pixels);
    blend_lumas(fxLumas[1], row->baseLumaBottom + 2 * cx, alpha[2], alpha[3], row->outBottom + 2 * cx, pixels);
}

/// A chunk at a row's ends: its samples copied with the edge sample repeated, keyed there as a chunk at cx 1,
/// and the blocks it takes inside the row copied back.
INLINE void key_chunk_padded(const MWKeyParams *p, const MWKeyRow *row, long cx, u8x16 take, const int hard,
                             const int level) {
    enum { SAMPLES = CHUNK + 2, LUMAS = 2 * CHUNK + 2 };
    uint8_t chroma[12][SAMPLES], lumas[4][LUMAS], outLumas[2][LUMAS], outU[CHUNK + 1], outV[CHUNK + 1];
    MWKeyRow padded = *row;
    const uint8_t *const *planes[4] = {row->fxU, row->fxV, row->baseU, row->baseV};
    const uint8_t **into[4] = {padded.fxU, padded.fxV, padded.baseU, padded.baseV};
    for (int plane = 0; plane < 4; plane++) {
        for (int r = 0; r < 3; r++) {
            uint8_t *copy = chroma[plane * 3 + r];
            for (long i = 0; i < SAMPLES; i++) {
                long x = cx - 1 + i;
                copy[i] = planes[plane][r][x < 0 ? 0 : x >= row->chromaWidth ? row->chromaWidth - 1 : x];
            }
            into[plane][r] = copy;
        }
    }
    const uint8_t *luma[4] = {row->lumaTop, row->lumaBottom, row->baseLumaTop, row->baseLumaBottom};
    for (int r = 0; r < 4; r++) {
        for (long i = 0; i < 2 * CHUNK; i++) {
            long x = 2 * cx + i < row->lumaWidth ? 2 * cx + i : row->lumaWidth - 1;
            lumas[r][2 + i] = luma[r][x];
        }
    }
    padded.lumaTop = lumas[0];
    padded.lumaBottom = lumas[1];
    padded.baseLumaTop = lumas[2];
    padded.baseLumaBottom = lumas[3];
    padded.outU = outU;
    padded.outV = outV;
    padded.outTop = outLumas[0];
    padded.outBottom = outLumas[1];
    key_chunk(p, &padded, 1, take, INSIDE, hard, level);
    for (long k = 0; k < CHUNK && cx + k < row->chromaWidth; k++) {
        if (!take[k]) continue;
        row->outU[cx + k] = outU[1 + k];
        row->outV[cx + k] = outV[1 + k];
        for (long dx = 0; dx < 2 && 2 * (cx + k) + dx < row->lumaWidth; dx++) {
            row->outTop[2 * (cx + k) + dx] = outLumas[0][2 + 2 * k + dx];
            row->outBottom[2 * (cx + k) + dx] = outLumas[1][2 + 2 * k + dx];
        }
    }
}

/// 0xFF for each edge block of chunk cx whose span of eight has more than `fewEdges` edge blocks, else 0
/// (blocks past the row's end 0).
INLINE u8x16 chunk_take(const MWKeyRow *row, long cx, int fewEdges) {
    u8x16 flags = {0};
    if (cx + CHUNK <= row->chromaWidth) {
        memcpy(&flags, row->isEdge + cx, sizeof flags);
    } else {
        for (long k = 0; cx + k < row->chromaWidth; k++) flags[k] = row->isEdge[cx + k];
    }
    flags &= MW_EDGE;
    uint64_t halves[2];
    memcpy(halves, &flags, sizeof halves);
    u8x16 edges = (u8x16)(flags != 0);
    u8x16 spans = {0};
    for (int h = 0; h < 2; h++) {
        if (__builtin_popcountll(halves[h]) <= fewEdges) continue;
        for (int k = 0; k < 8; k++) spans[8 * h + k] = 0xFF;
    }
    return edges & spans;
}

/// Every span of the row with more than `fewEdges` edge blocks, a chunk (two spans) at a time, its edge blocks
/// marked `MW_KEYED` for the rest of the row's blend (`mw_mix_rest`) to leave alone. The parameters
/// are copied first: the row's stores are bytes, which C lets alias anything, and a copy lets the compiler keep
/// them in registers. The chunk at the row's start repeats the edge sample from its own lanes; the last one is
/// moved left to end at the row's end, as far as needed, and takes only its own blocks (a picture of odd width,
/// whose last block has one pixel, and rows shorter than a chunk go through a padded copy).
INLINE void key_spans_with(const MWKeyParams *shared, const MWKeyRow *row, int fewEdges, const int hard,
                           const int level) {
    const MWKeyParams p = *shared;
    const long width = row->chromaWidth;
    for (long cx = 0; cx < width; cx += CHUNK) {
        u8x16 take = chunk_take(row, cx, fewEdges);
        uint64_t any[2];
        memcpy(any, &take, sizeof any);
        if ((any[0] | any[1]) == 0) continue;
        if (cx + CHUNK <= width) {
            u8x16 marks;
            memcpy(&marks, row->isEdge + cx, sizeof marks);
            marks |= take & MW_KEYED;
            memcpy(row->isEdge + cx, &marks, sizeof marks);
        } else {
            for (long k = 0; cx + k < width; k++) row->isEdge[cx + k] |= take[k] & MW_KEYED;
        }
        if (cx + CHUNK + 1 <= width && cx >= 1) {
            key_chunk(&p, row, cx, take, INSIDE, hard, level);
        } else if (width < CHUNK + 1) {
            key_chunk_padded(&p, row, cx, take, hard, level);
        } else if (cx == 0) {
            key_chunk(&p, row, 0, take, LEFT_END, hard, level);
        } else if (row->lumaWidth == 2 * width) {
            // Blocks cx … width − 1 sit at lanes shift … 15 of the chunk that ends at the row's end.
            long start = width - CHUNK, shift = cx - start;
            uint8_t lanes[2 * CHUNK] = {0};
            memcpy(lanes + CHUNK, &take, sizeof take);
            memcpy(&take, lanes + CHUNK - shift, sizeof take);
            key_chunk(&p, row, start, take, RIGHT_END, hard, level);
        } else {
            key_chunk_padded(&p, row, cx, take, hard, level);
        }
    }
}

/// A hard edge (no smoothing) compiled apart from the soft one: the branch between them, taken inside each of the
/// chunk's four alphas, would keep the compiler from interleaving their chains.
INLINE void key_spans(const MWKeyParams *p, const MWKeyRow *row, int fewEdges, const int level) {
    if (p->hardEdge) {
        key_spans_with(p, row, fewEdges, 1, level);
    } else {
        key_spans_with(p, row, fewEdges, 0, level);
    }
}

COMPILED_AT_LEVELS(void, key_spans, (const MWKeyParams *p, const MWKeyRow *row, int fewEdges), p, row, fewEdges)

