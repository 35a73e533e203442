// The CPU's level, which every family of the kernel is compiled at (Levels.h) and picks its table by: 0 the scalar
// reference alone (a processor other than x86-64), 1 plain x86-64 (SSE2), 2 x86-64-v2 (SSE4.2), 3 x86-64-v3 (AVX2),
// 4 x86-64-v4 (AVX-512).
#ifndef MIXWRITE_CPU_LEVEL_H
#define MIXWRITE_CPU_LEVEL_H

/// The highest level this CPU runs, probed once.
int mw_cpu_level(void);

#endif
