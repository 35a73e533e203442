// See KeyKernel.h: the blend of a row of bytes by 16-bit weights, for the same instruction sets as the span kernel
// (Levels.h; Swift compiles the whole program for plain x86-64 alone: its vector loop ran 16 bytes at a time).
#include "KeyKernel.h"
#include "Levels.h"

#include <string.h>

typedef uint8_t b32 __attribute__((vector_size(32)));
typedef uint16_t w32 __attribute__((vector_size(64)));

/// In 16 bits (at most 255·256 + 128): plain x86-64 multiplies 16-bit lanes in one instruction, 32-bit ones not.
INLINE void mix_row(const uint8_t *restrict f, const uint8_t *restrict b, const uint16_t *restrict a,
                    uint8_t *restrict out, long n, const int level) {
    (void)level;
    long i = 0;
    for (; i + 32 <= n; i += 32) {
        b32 fb, bb;
        w32 w;
        memcpy(&fb, f + i, sizeof fb);
        memcpy(&bb, b + i, sizeof bb);
        memcpy(&w, a + i, sizeof w);
        w32 mixed = (__builtin_convertvector(fb, w32) * (256 - w) + __builtin_convertvector(bb, w32) * w + 128) >> 8;
        b32 o = __builtin_convertvector(mixed, b32);
        memcpy(out + i, &o, sizeof o);
    }
    for (; i < n; i++) out[i] = (uint8_t)((uint16_t)(f[i] * (256 - a[i]) + b[i] * a[i] + 128) >> 8);
}

COMPILED_AT_LEVELS(void, mix_row, (const uint8_t *f, const uint8_t *b, const uint16_t *a, uint8_t *out, long n), f, b,
                   a, out, n)

void mw_mix_row(int level, const uint8_t *f, const uint8_t *b, const uint16_t *a, uint8_t *out, long n) {
    mix_row_at(level)(f, b, a, out, n);
}
