// concat's transitions (see Transition in MixWrite) a plane at a time, by the arithmetic of FFmpeg's `xfade` filter:
// its progress (1 at the first shared frame, falling by 1/n a frame), its mix a·m + b·(1 − m) in floats stored by
// truncation, its wipes', slides' and circle's geometry on the picture's (luma) size, its black (luma 0) and white
// (luma at the top), chroma at the middle (the largest value / 2). xfade works on 4:4:4 pictures; a 4:2:0 chroma
// sample here takes the geometry of the luma pixel at its top left, so luma is xfade's to the bit and chroma differs
// only along a wipe's or a circle's edge. Plain C at the baseline instruction set, multiply and add never fused, as
// FFmpeg's own build computes it.
#ifndef MIXWRITE_TRANSITION_KERNEL_H
#define MIXWRITE_TRANSITION_KERNEL_H

#include <stdint.h>

#include "CpuLevel.h"

/// The kinds, in Transition.Kind's order after `cut` (which has no shared frames).
typedef enum {
    MW_FADE = 1, MW_FADEBLACK, MW_FADEWHITE, MW_WIPELEFT, MW_WIPERIGHT, MW_WIPEUP, MW_WIPEDOWN,
    MW_SLIDELEFT, MW_SLIDERIGHT, MW_SLIDEUP, MW_SLIDEDOWN, MW_CIRCLEOPEN
} MWTransitionKind;

/// One plane of the outgoing picture (a), the incoming one (b) and the output.
typedef struct {
    const uint8_t *a, *b;
    uint8_t *out;
    /// Bytes a row.
    long aStride, bStride, outStride;
    /// The plane's samples a row, and rows.
    int width, height;
    /// Its subsampling as shifts: 0, 0 for luma; 1, 1 for 4:2:0's chroma.
    int shiftX, shiftY;
    /// The picture's luma size, on which xfade lays its geometry.
    int frameWidth, frameHeight;
    /// This plane's black and white (fadeblack, fadewhite).
    int black, white;
    /// 1: 8-bit samples; 2: 16-bit (10-bit pictures).
    int bytes;
} MWTransitionPlane;

/// The family's functions at one level. xfade's arithmetic is compiled once, plain C at the baseline as FFmpeg's own
/// build (so luma is the CLI's to the bit): every level's table holds it.
typedef struct {
    int level;
    /// The plane at `progress` (1: all a, 0: all b).
    void (*plane)(MWTransitionKind kind, float progress, const MWTransitionPlane *plane);
} MWTransitionKernel;

/// The table of `level`, or NULL for a level this CPU cannot run (above `mw_cpu_level()`, or negative).
const MWTransitionKernel *mw_transition_kernel(int level);

#endif
