// See CpuLevel.h: the CPU probed once, by the compiler's own feature checks (the x86-64 micro-architecture levels).
#include "CpuLevel.h"

#include <stdatomic.h>

#if defined(__x86_64__)
static int probe(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("x86-64-v4")   ? 4
           : __builtin_cpu_supports("x86-64-v3") ? 3
           : __builtin_cpu_supports("x86-64-v2") ? 2
                                                 : 1;
}
#else
static int probe(void) { return 0; }
#endif

int mw_cpu_level(void) {
    static _Atomic int best = -1;
    int level = atomic_load_explicit(&best, memory_order_relaxed);
    if (level < 0) {
        level = probe();
        atomic_store_explicit(&best, level, memory_order_relaxed);
    }
    return level;
}
