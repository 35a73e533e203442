// See KeyKernel.h. A chunk of two spans (16 blocks) a step: its chroma in 32-lane rows of 16-bit integers, one
// lane a luma pixel of its top or bottom row (lanes 0–15 the blocks' left pixels, 16–31 their right ones), the
// alpha in 16-lane vectors of floats, half a row each; the pixels go back in their order only when blended into
// the output's luma rows. Contraction of a·b + c into one FMA is off so that every build gives the same bits: a
// movie keyed on a machine with AVX2 and one without are the same movie.
#include "KeyKernel.h"
#include "Levels.h"

#include <string.h>

#pragma clang fp contract(off)

typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
typedef int16_t v16s __attribute__((vector_size(32)));
typedef int16_t v32s __attribute__((vector_size(64)));
typedef uint16_t v32w __attribute__((vector_size(64)));
typedef uint8_t v16b __attribute__((vector_size(16)));
typedef uint8_t v32b __attribute__((vector_size(32)));

/// The blocks a chunk takes in one step: two spans of eight, 32 luma pixels on each of its two rows.
enum { CHUNK = 16 };

INLINE v16s load16(const uint8_t *p) {
    v16b b;
    memcpy(&b, p, sizeof b);
    return __builtin_convertvector(b, v16s);
}

INLINE v32s join(v16s a, v16s b) {
    return __builtin_shufflevector(a, b, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                   22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
}

/// Where a chunk lies in its row: inside, or at an end, where the sample beyond the row is the edge sample
/// repeated (GL's clamp to edge), from lanes of the row's own samples.
enum { INSIDE, LEFT_END, RIGHT_END };

/// The 16 samples from x − 1 (the chunk's left neighbours) and from x + 1 (right neighbours).
INLINE v16s left_of(const uint8_t *p, long x, const int end) {
    if (end != LEFT_END) return load16(p + x - 1);
    v16s c = load16(p + x);
    return __builtin_shufflevector(c, c, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14);
}

INLINE v16s right_of(const uint8_t *p, long x, const int end) {
    if (end != RIGHT_END) return load16(p + x + 1);
    v16s c = load16(p + x);
    return __builtin_shufflevector(c, c, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15);
}

/// GL_LINEAR chroma of the chunk's 32 pixels on its top (out[0]) and bottom (out[1]) luma rows, in 1/16 steps:
/// 9/16 of the block's sample, 3/16 of the horizontal and of the vertical neighbour on the pixel's side, 1/16
/// diagonal. Vertical first (3 × the row + the row above or below), then each block's left pixel takes 3 × its
/// own column + the one on the left (lanes 0–15), its right pixel 3 × its own + the one on the right (16–31):
/// lane k and lane 16 + k are block k's two pixels, so that a block's sums are lane by lane, with no shuffles.
INLINE void linear_chroma(const uint8_t *const rows[3], long cx, const int end, v32s out[2]) {
    const uint8_t *r = rows[1];
    v16s left = 3 * left_of(r, cx, end), centre = 3 * load16(r + cx), right = 3 * right_of(r, cx, end);
#pragma clang loop unroll(full)
    for (int dy = 0; dy < 2; dy++) {
        const uint8_t *o = rows[dy ? 2 : 0];
        v16s c = 3 * (centre + load16(o + cx));
        v16s even = c + left + left_of(o, cx, end), odd = c + right + right_of(o, cx, end);
        out[dy] = join(even, odd);
    }
}

/// Whole numbers as floats, at 1.5·2²³ + n: x + 1.5·2²³ rounds x (|x| < 2²²) to the nearest whole number, ties to
/// even, with the float unit's own rounding (plain x86-64 has no rounding instruction for vectors). The sums' bits
/// then order as the whole numbers do, so integer minimum and maximum clamp them: work for the integer lanes,
/// while the float units, the busiest, have enough to do. The difference of two such sums is exact.
#define WHOLE 12582912.0f
#define WHOLE_BITS 0x4B400000

INLINE v16i imin(v16i a, v16i b) {
    v16i m = a < b;
    return (a & m) | (b & ~m);
}

INLINE v16i imax(v16i a, v16i b) {
    v16i m = a > b;
    return (a & m) | (b & ~m);
}

/// Float minimum and maximum, for plain x86-64: it has them for floats but not for 32-bit integers, which it
/// would build of four instructions each. The same values as the integer ones for these numbers.
INLINE v16f minf(v16f a, v16f b) {
    v16i m = a < b;
    return (v16f)(((v16i)a & m) | ((v16i)b & ~m));
}

INLINE v16f maxf(v16f a, v16f b) {
    v16i m = a > b;
    return (v16f)(((v16i)a & m) | ((v16i)b & ~m));
}

/// A channel of the RGBA8 texture, clamped to 0 … 255 and rounded to a whole 8-bit value, as WHOLE + value
/// (clamped in integer lanes from x86-64-v2 on).
INLINE v16f texel(v16f x, const int level) {
    v16f whole = x + WHOLE;
    if (level < 2) return minf(maxf(whole, (v16f){0} + WHOLE), (v16f){0} + (WHOLE + 255));
    return (v16f)imin(imax((v16i)whole, (v16i){0} + WHOLE_BITS), (v16i){0} + (WHOLE_BITS + 255));
}

/// t clamped to 0 … 1. A positive float's bits order as integers, a negative one's are a negative integer: so
/// integer maximum with 0 and minimum with 1.0's bits clamp it (from x86-64-v2 on, which has them).
INLINE v16f clamp01(v16f t, const int level) {
    if (level < 2) return minf(maxf(t, (v16f){0}), (v16f){0} + 1);
    return (v16f)imin(imax((v16i)t, (v16i){0}), (v16i){0} + 0x3F800000);
}

/// GPUImage's alpha (0 … 256) of 16 pixels: luma − lumaZero and chroma − 2048, in 1/16 steps. In every YUV matrix
/// red takes V alone and blue U alone; Cr and Cb weigh R, G, B by weights that add up to 0, so they are linear in
/// R − G and B − G, and the squared distance from the key a quadratic form of those less the key's.
INLINE v16i key_alpha(const MWKeyParams *p, v16f y, v16f du, v16f dv, const int hard, const int level) {
    v16f l = y * p->lumaScale;
    v16f r = texel(l + dv * p->perV[0], level);
    v16f g = texel(l + du * p->perU[1] + dv * p->perV[1], level);
    v16f b = texel(l + du * p->perU[2], level);
    v16f rg = (r - g) - p->keyRG, bg = (b - g) - p->keyBG;
    v16f d = __builtin_elementwise_sqrt(rg * (p->square[0] * rg + p->square[1] * bg) + p->square[2] * (bg * bg));
    if (hard) return (d < p->threshold) & 256;
    v16f t = clamp01(d - p->threshold, level);
    // 256·(1 − smoothstep) = 256 − t²·(768 − 512·t), rounded with one subtraction from WHOLE + 256.
    return (v16i)((WHOLE + 256) - t * t * (768 - 512 * t)) - WHOLE_BITS;
}

/// fx's chroma with the key's cast removed, lane by lane through the despill table: only the lanes of blocks the
/// chunk takes (the others are not written).
INLINE void despill(v32s *u, v32s *v, const uint16_t *table, v16b take) {
    v32s index = ((*u + 8) >> 4) << 8 | ((*v + 8) >> 4);
    v32s out = {0};
    for (int k = 0; k < CHUNK; k++) {
        if (!take[k]) continue;
        out[k] = (int16_t)table[(uint16_t)index[k]];
        out[CHUNK + k] = (int16_t)table[(uint16_t)index[CHUNK + k]];
    }
    *u = ((v32s)((v32w)out >> 8)) * 16;
    *v = (out & 0xFF) * 16;
}

/// Lanes 0–15 (half 0) or 16–31 (half 1) of x, in 32 bits.
INLINE v16i half_wide(v32s x, const int half) {
    v16s h = half ? __builtin_shufflevector(x, x, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31)
                  : __builtin_shufflevector(x, x, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return __builtin_convertvector(h, v16i);
}

/// The same, as floats.
INLINE v16f half_float(v32s x, const int half) { return __builtin_convertvector(half_wide(x, half), v16f); }

/// Each block's blended chroma summed over its four pixels, in 1/16 steps × 256: fx's chroma x weighs 256 − alpha,
/// base's b alpha, which is 256·x + (b − x)·alpha; lanes are blocks. The sum of four chroma values (at most
/// 4 · 4080) fits 16 bits, and so does b − x.
INLINE v16i blend_sum(const v32s x[2], const v32s b[2], const v16i alpha[4]) {
    v32s rows = x[0] + x[1];
    v16i sum = (half_wide(rows, 0) + half_wide(rows, 1)) << 8;
#pragma clang loop unroll(full)
    for (int k = 0; k < 4; k++) sum += half_wide(b[k / 2] - x[k / 2], k % 2) * alpha[k];
    return sum;
}

INLINE void store_bytes(uint8_t *p, v16i values, v16b mask) {
    v16b old;
    memcpy(&old, p, sizeof old);
    v16b new = (__builtin_convertvector(values, v16b) & mask) | (old & ~mask);
    memcpy(p, &new, sizeof new);
}

/// A luma row's 32 pixels blended, (fx·(256 − alpha) + base·alpha + 128) / 256 in 16-bit lanes, with the alphas
/// of the blocks' left and right pixels put in pixel order; written where `mask` is set.
INLINE void blend_lumas(v32b fx, const uint8_t *base, v16i left, v16i right, uint8_t *out, v32b mask) {
    v16s l = __builtin_convertvector(left, v16s), r = __builtin_convertvector(right, v16s);
    v32w alpha = (v32w)__builtin_shufflevector(l, r, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23, 8, 24,
                                               9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    v32b b, old;
    memcpy(&b, base, sizeof b);
    memcpy(&old, out, sizeof old);
    v32w mixed = (__builtin_convertvector(fx, v32w) * (256 - alpha) + __builtin_convertvector(b, v32w) * alpha + 128) >> 8;
    v32b new = (__builtin_convertvector(mixed, v32b) & mask) | (old & ~mask);
    memcpy(out, &new, sizeof new);
}

/// The chunk of blocks cx … cx + 15; `take` is 0xFF for each block whose results are written (an edge in a span
/// the kernel takes). The four alphas (two rows; left pixels, right pixels) are long chains of dependent steps,
/// a square root among them, computed side by side so that the vector units stay busy while each waits.
INLINE void key_chunk(const MWKeyParams *p, const MWKeyRow *row, long cx, v16b take, const int end,
                      const int hard, const int level) {
    v32s u[2], v[2];
    linear_chroma(row->fxU, cx, end, u);
    linear_chroma(row->fxV, cx, end, v);
    // Luma − lumaZero and chroma − 2048 (the offsets whole numbers) in integer lanes, then floats.
    const int lumaZero = (int)p->lumaZero;
    v16f y[4];
    v32b fxLumas[2];
#pragma clang loop unroll(full)
    for (int dy = 0; dy < 2; dy++) {
        memcpy(&fxLumas[dy], (dy ? row->lumaBottom : row->lumaTop) + 2 * cx, sizeof fxLumas[dy]);
        v32b lumas = fxLumas[dy];
        v16i left = __builtin_convertvector(__builtin_shufflevector(lumas, lumas, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18,
                                                                    20, 22, 24, 26, 28, 30), v16i);
        v16i right = __builtin_convertvector(__builtin_shufflevector(lumas, lumas, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19,
                                                                     21, 23, 25, 27, 29, 31), v16i);
        y[2 * dy] = __builtin_convertvector(left - lumaZero, v16f);
        y[2 * dy + 1] = __builtin_convertvector(right - lumaZero, v16f);
    }
    v16i alpha[4];
#pragma clang loop unroll(full)
    for (int k = 0; k < 4; k++) {
        alpha[k] = key_alpha(p, y[k], half_float(u[k / 2] - 2048, k % 2), half_float(v[k / 2] - 2048, k % 2), hard,
                             level);
    }
    v32s bu[2], bv[2];
    linear_chroma(row->baseU, cx, end, bu);
    linear_chroma(row->baseV, cx, end, bv);
    if (row->despill) {
        for (int dy = 0; dy < 2; dy++) despill(&u[dy], &v[dy], row->despill, take);
    }
    v16i sumU = blend_sum(u, bu, alpha), sumV = blend_sum(v, bv, alpha);
    v32b pixels = __builtin_shufflevector(take, take, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10,
                                          10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15);
    // Four pixels, 1/16 units, alpha out of 256: 16 384 in all.
    store_bytes(row->outU + cx, (sumU + 8192) >> 14, take);
    store_bytes(row->outV + cx, (sumV + 8192) >> 14, take);
    blend_lumas(fxLumas[0], row->baseLumaTop + 2 * cx, alpha[0], alpha[1], row->outTop + 2 * cx, pixels);
    blend_lumas(fxLumas[1], row->baseLumaBottom + 2 * cx, alpha[2], alpha[3], row->outBottom + 2 * cx, pixels);
}

/// A chunk at a row's ends: its samples copied with the edge sample repeated, keyed there as a chunk at cx 1,
/// and the blocks it takes inside the row copied back.
INLINE void key_chunk_padded(const MWKeyParams *p, const MWKeyRow *row, long cx, v16b take, const int hard,
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
INLINE v16b chunk_take(const MWKeyRow *row, long cx, int fewEdges) {
    v16b flags = {0};
    if (cx + CHUNK <= row->chromaWidth) {
        memcpy(&flags, row->isEdge + cx, sizeof flags);
    } else {
        for (long k = 0; cx + k < row->chromaWidth; k++) flags[k] = row->isEdge[cx + k];
    }
    flags &= MW_EDGE;
    uint64_t halves[2];
    memcpy(halves, &flags, sizeof halves);
    v16b edges = (v16b)(flags != 0);
    v16b spans = {0};
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
        v16b take = chunk_take(row, cx, fewEdges);
        uint64_t any[2];
        memcpy(any, &take, sizeof any);
        if ((any[0] | any[1]) == 0) continue;
        if (cx + CHUNK <= width) {
            v16b marks;
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

