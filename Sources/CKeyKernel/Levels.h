// What the kernel's C files share (not part of the target's public header): the inlining macro, and
// COMPILED_AT_LEVELS, which compiles one inline function for plain x86-64, x86-64-v2 (SSE4.2), x86-64-v3 (AVX2)
// and x86-64-v4 (AVX-512) and picks one by level (KeyKernel.h: 4, 3, 2, anything else the plain one).
#ifndef MIXWRITE_KEY_KERNEL_LEVELS_H
#define MIXWRITE_KEY_KERNEL_LEVELS_H

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

/// `name_at(level)`: `name` (an INLINE function returning `ret`, taking `params` and last the level, a constant
/// once inlined, for what differs between levels) compiled at each level and called with the arguments that
/// follow and the level. Only x86-64 has levels 2 to 4 (`mw_key_best_level` never gives them elsewhere).
#define COMPILED_AT_LEVELS(ret, name, params, ...)                                                \
    static ret name##_1 params { return name(__VA_ARGS__, 1); }                                   \
    TARGET_V2 static ret name##_2 params { return name(__VA_ARGS__, 2); }                         \
    TARGET_V3 static ret name##_3 params { return name(__VA_ARGS__, 3); }                         \
    TARGET_V4 static ret name##_4 params { return name(__VA_ARGS__, 4); }                         \
    static ret(*name##_at(int level)) params { return level == 4 ? name##_4 : level == 3 ? name##_3 : level == 2 ? name##_2 : name##_1; }

#endif
