// What the kernel's C files share (not part of the target's public header): the inlining macro, and
// COMPILED_AT_LEVELS, which compiles one inline function for plain x86-64, x86-64-v2 (SSE4.2), x86-64-v3 (AVX2)
// and x86-64-v4 (AVX-512), the entries of the table (KeyKernel.h's MWKeyKernel) that Table.c fills.
#ifndef MIXWRITE_KEY_KERNEL_LEVELS_H
#define MIXWRITE_KEY_KERNEL_LEVELS_H

#include "KeyKernel.h"

#define INLINE static inline __attribute__((always_inline))

// Vectors wider than the baseline's registers never cross a call in these files (every helper is inlined),
// so the warning that their calling convention differs between targets does not apply.
#pragma clang diagnostic ignored "-Wpsabi"

#if defined(__x86_64__)
#define TARGET_V2 __attribute__((target("arch=x86-64-v2")))
#define TARGET_V3 __attribute__((target("arch=x86-64-v3")))
#define TARGET_V4 __attribute__((target("arch=x86-64-v4")))
#else
#define TARGET_V2
#define TARGET_V3
#define TARGET_V4
#endif

/// `mw_name_1` … `mw_name_4`: `name` (an INLINE function returning `ret`, taking `params` and last the level, a
/// constant once inlined, for what differs between levels) compiled at each level and called with the arguments
/// that follow and the level. Only x86-64 has levels 2 to 4 (no family's table gives them elsewhere: `mw_cpu_level`).
/// Seen only by the families' tables, which `DECLARE_LEVELS` declares them for.
#define HIDDEN __attribute__((visibility("hidden")))
#define COMPILED_AT_LEVELS(ret, name, params, ...)                                                \
    HIDDEN ret mw_##name##_1 params { return name(__VA_ARGS__, 1); }                              \
    HIDDEN TARGET_V2 ret mw_##name##_2 params { return name(__VA_ARGS__, 2); }                    \
    HIDDEN TARGET_V3 ret mw_##name##_3 params { return name(__VA_ARGS__, 3); }                    \
    HIDDEN TARGET_V4 ret mw_##name##_4 params { return name(__VA_ARGS__, 4); }

/// The scalar reference `mw_name_ref` (KeyKernelRef.c) and the four levels of one function.
#define DECLARE_LEVELS(ret, name, params)                                                         \
    HIDDEN ret mw_##name##_ref params;                                                            \
    HIDDEN ret mw_##name##_1 params;                                                              \
    HIDDEN ret mw_##name##_2 params;                                                              \
    HIDDEN ret mw_##name##_3 params;                                                              \
    HIDDEN ret mw_##name##_4 params;

DECLARE_LEVELS(void, key_spans, (const MWKeyParams *p, const MWKeyRow *row, int fewEdges))
DECLARE_LEVELS(MWEdgeSummary, edge_row, (const MWEdgeRow *r))
DECLARE_LEVELS(void, neighbourhood, (const uint8_t *p, uint8_t *lows, uint8_t *highs, long n))
DECLARE_LEVELS(void, mix_rest, (const MWMixRow *row))
DECLARE_LEVELS(void, key_blocks, (const MWKeyParams *p, const MWKeyRow *row))

#endif
