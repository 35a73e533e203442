// See KeyKernel.h: the kernel's table, one entry a level, its functions compiled by COMPILED_AT_LEVELS (Levels.h)
// in KeyKernel.c, EdgeMap.c and Mix.c, and the reference's in KeyKernelRef.c.
#include "KeyKernel.h"
#include "CpuLevel.h"
#include "Levels.h"

#define LEVEL(n, suffix)                                                                                         \
    {n, mw_key_spans_##suffix, mw_key_blocks_##suffix, mw_edge_row_##suffix, mw_neighbourhood_##suffix, mw_mix_rest_##suffix}

static const MWKeyKernel kernels[5] = {LEVEL(0, ref), LEVEL(1, 1), LEVEL(2, 2), LEVEL(3, 3), LEVEL(4, 4)};

const MWKeyKernel *mw_key_kernel(int level) {
    return level >= 0 && level <= mw_cpu_level() ? &kernels[level] : 0;
}
