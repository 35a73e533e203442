// See KeyKernel.h: the kernel's table, one entry a level, its functions compiled by COMPILED_AT_LEVELS (Levels.h)
// in KeyKernel.c, EdgeMap.c and Mix.c, and the reference's in KeyKernelRef.c.
#include "KeyKernel.h"
#include "Levels.h"

#include <stdatomic.h>

#define LEVEL(n, suffix)                                                                                         \
    {n, mw_key_spans_##suffix, mw_key_blocks_##suffix, mw_edge_row_##suffix, mw_neighbourhood_##suffix, mw_mix_rest_##suffix}

static const MWKeyKernel kernels[5] = {LEVEL(0, ref), LEVEL(1, 1), LEVEL(2, 2), LEVEL(3, 3), LEVEL(4, 4)};

#if defined(__x86_64__)
static int best_level(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("x86-64-v4")   ? 4
           : __builtin_cpu_supports("x86-64-v3") ? 3
           : __builtin_cpu_supports("x86-64-v2") ? 2
                                                 : 1;
}
#else
static int best_level(void) { return 0; }
#endif

int mw_key_best_level(void) {
    static _Atomic int best = -1;
    int level = atomic_load_explicit(&best, memory_order_relaxed);
    if (level < 0) {
        level = best_level();
        atomic_store_explicit(&best, level, memory_order_relaxed);
    }
    return level;
}

const MWKeyKernel *mw_key_kernel(int level) {
    return level >= 0 && level <= mw_key_best_level() ? &kernels[level] : 0;
}
