// The kernel's vector types and the helpers its C files share (not part of the target's public header): GCC/Clang
// vector extensions, one type a lane type and count (u8x16: sixteen unsigned bytes), so that a file reads the same
// whatever the level it is compiled for (Levels.h). Loads and stores go through memcpy: any alignment, and no
// aliasing assumptions.
#ifndef MIXWRITE_KEY_KERNEL_VECTORS_H
#define MIXWRITE_KEY_KERNEL_VECTORS_H

#include <stdint.h>
#include <string.h>

#include "Levels.h"

typedef uint8_t u8x16 __attribute__((vector_size(16)));
typedef uint8_t u8x32 __attribute__((vector_size(32)));
typedef int16_t i16x16 __attribute__((vector_size(32)));
typedef int16_t i16x32 __attribute__((vector_size(64)));
typedef uint16_t u16x16 __attribute__((vector_size(32)));
typedef uint16_t u16x32 __attribute__((vector_size(64)));
typedef int32_t i32x16 __attribute__((vector_size(64)));
typedef uint32_t u32x16 __attribute__((vector_size(64)));
typedef float f32x16 __attribute__((vector_size(64)));

/// overlay's (f·a + b·(255 − a)) / 255 on bytes, its division exact for every product of two bytes (`FAST_DIV255`).
INLINE uint8_t mw_over(uint32_t f, uint32_t b, uint32_t a) { return (uint8_t)(((f * a + b * (255 - a) + 128) * 257) >> 16); }

INLINE u8x16 load_u8x16(const uint8_t *p) {
    u8x16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

INLINE u8x32 load_u8x32(const uint8_t *p) {
    u8x32 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/// Writes `values` where `mask` is set (0xFF), leaving the other bytes at p as they were.
INLINE void store_u8x16_masked(uint8_t *p, u8x16 values, u8x16 mask) {
    u8x16 new = (values & mask) | (load_u8x16(p) & ~mask);
    memcpy(p, &new, sizeof new);
}

INLINE void store_u8x32_masked(uint8_t *p, u8x32 values, u8x32 mask) {
    u8x32 new = (values & mask) | (load_u8x32(p) & ~mask);
    memcpy(p, &new, sizeof new);
}

/// Byte minimum and maximum, written with comparisons (plain x86-64 has them for bytes; the compiler finds them).
INLINE u8x16 min_u8x16(u8x16 a, u8x16 b) { return (a & (u8x16)(a < b)) | (b & (u8x16)(a >= b)); }
INLINE u8x16 max_u8x16(u8x16 a, u8x16 b) { return (a & (u8x16)(a > b)) | (b & (u8x16)(a <= b)); }
INLINE u8x32 min_u8x32(u8x32 a, u8x32 b) { return (a & (u8x32)(a < b)) | (b & (u8x32)(a >= b)); }
INLINE u8x32 max_u8x32(u8x32 a, u8x32 b) { return (a & (u8x32)(a > b)) | (b & (u8x32)(a <= b)); }

/// The even bytes (a block's left pixel) and the odd ones (its right pixel) of 32 luma pixels.
#define EVEN_OF_32(v) __builtin_shufflevector(v, v, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30)
#define ODD_OF_32(v) __builtin_shufflevector(v, v, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31)
/// Each of 16 blocks' values for its two pixels.
#define PAIRS_OF_16 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14, 15, 15
/// Lanes 0–15 and 16–31 of a 32-lane vector.
#define LOW_16 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
#define HIGH_16 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31

#endif
