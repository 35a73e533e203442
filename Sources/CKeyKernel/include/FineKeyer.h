// `--keyer fine` (see FineKeyer in MixWrite): a keyer for real screens, chosen by its scores against a ground truth
// (research/key-truth.py, research/key-fine-model.py; the last steps on the tune half of research/key-truth-set.py). A
// picture at a time (but for step 6, which keeps the last one's matte and fx), 8-bit 4:2:0 in, straight colour and a
// matte out (yuva420p):
//  1. at chroma resolution, the colour difference D = S − max(O1, O2) (S the screen's channel, O the others);
//  2. a screen field: the colour of the clear screen (D > 0.65 · the key's D and as saturated for its luma as the key,
//     then D > 0.95 · the field's D there) around each place, by normalized convolution on a grid of 4×4 chroma
//     samples (holes filled from farther out by push-pull; none at all: the key colour), so an uneven screen keys
//     evenly; or, given a clean plate (`mw_fine_plate`), the plate's colour at each sample; the colour-difference
//     matte 1 − D / D(field), stretched;
//  3. a foreground field, likewise from the samples that matte calls opaque;
//  4. that matte brought to full resolution by a guided filter on luma (alpha ≈ a·Y + b in each 3×3 window), so
//     4:2:0's edges follow luma's;
//  5. per pixel (the core, `mw_fine_core`): the colour's projection on the line from the local screen to the local
//     foreground where it lies near that line; where luma has detail chroma cannot see (a strand thinner than a
//     chroma sample), luma's own alpha where it finds more, and never less than luma's bound (a pixel darker or
//     lighter than the screen, by more than a few levels of noise, is at least that share of a subject between black
//     and white; likewise in each channel but the screen's, which spill does not fill, where the pixel is less
//     saturated than the screen); the foreground unmixed (less the screen's share), its screen channel limited to the
//     mean of the others (spill) where the screen is near and outside the solid core, by the despill strength;
//  6. over a run of pictures in order (`mw_fine_steady`; or as the tiles lay a picture, `MWFineOutput.steady`), the
//     matte steadied: where fx did not change from the picture before, each pixel's alpha up to halfway to that
//     picture's (`mw_fine_steady` below says how far);
//  7. the matte's garbage rectangles, choke and feather.
// Steps 3 to 5 (and 6 as a picture is laid) go by tiles of 16×16 pixels: a tile of plain screen or plain subject (by
// its cells' mattes and luma) is written as it is, the rest in a window around the tile. Each step is compiled at
// every level of the key kernel (Levels.h) and once as its scalar reference (level 0); multiply and add are never
// fused, so every level gives the reference's bits.
#ifndef MIXWRITE_FINE_KEYER_H
#define MIXWRITE_FINE_KEYER_H

#include <stdint.h>

#include "CpuLevel.h"

/// The pictures' colour and the key. Channels are permuted so that channel 1 is the screen's (green or blue):
/// c[k] = (Y − lumaZero)·lumaScale + u·perU[k] + v·perV[k], with u = (U − 128)·chromaScale (likewise v).
typedef struct {
    float lumaZero, lumaScale, chromaScale;
    float perU[3], perV[3];
    /// Luma, u and v of the channels c: y = Σ luma[k]·c[k], u = Σ toU[k]·c[k], v = Σ toV[k]·c[k].
    float luma[3], toU[3], toV[3];
    /// The key colour in the channels' order (0 … 1).
    float key[3];
    /// How much of the spill is taken out, 0 … 1.
    float despill;
    /// The matte: garbage rectangles (x, y, width, height in pixels; outside all of them alpha is 0; none: no
    /// garbage matte), choke (pixels the matte shrinks by) and feather (pixels it is softened over).
    const int32_t *garbage;
    int garbageCount;
    int choke, feather;
} MWFineParams;

/// One luma row of the core's inputs and outputs (floats a pixel, `width` of each).
typedef struct {
    const uint8_t *luma;
    /// The guided filter's a and b, u and v, and luma's mean over 3 × 3 chroma samples (8-bit units): upsampled to
    /// this row.
    const float *guideA, *guideB, *u, *v, *lumaMean;
    /// The screen field's and the foreground field's channels, and where the screen is near (0 … 1): this row's.
    const float *screen[3], *fore[3], *near;
    /// 1 inside the solid core (alpha 1 there), else 0.
    const float *core;
    /// Out: alpha (0 … 1), luma (8-bit units, unrounded), and u, v times (alpha + 0.001) (chroma's weighted mean).
    float *alpha, *outY, *outU, *outV;
    long width;
} MWFineRow;

/// The per-pixel core over one row.
typedef void (*MWFineCore)(const MWFineParams *p, const MWFineRow *row);

/// A keyer's scratch for pictures of one size; step 6's state for a run of them.
typedef struct MWFineKeyer MWFineKeyer;
typedef struct MWFineSteady MWFineSteady;
MWFineKeyer *mw_fine_create(int width, int height);
void mw_fine_free(MWFineKeyer *k);

/// A picture in (luma and chroma planes) and out (yuva420p planes, the picture's size).
typedef struct {
    const uint8_t *plane[3];
    long stride[3];
} MWFineInput;
typedef struct {
    uint8_t *plane[4];
    long stride[4];
    /// Chroma planes of the picture's size (yuva444p: each pixel's own colour), else 4:2:0's.
    int fullChroma;
    /// NULL; or a picture (yuv420p, the same size) the keyed one is laid over as it is made, into plane[0 … 2] (no
    /// alpha written): the bits of keying into a yuva420p picture and laying it by AlphaBlendKernel.h, for a matte
    /// the garbage rectangles, choke and feather leave as it is.
    const uint8_t *base[3];
    long baseStride[3];
    /// With `base`: NULL, or step 6's state (`mw_fine_steady_create`), when the picture is one of a run: the matte
    /// steadied as it is laid (`follows`: the picture comes after the state's), the bits of `mw_fine_steady` on the
    /// picture keyed; then `mw_fine_steady_keep` once every part's tiles are done.
    struct MWFineSteady *steady;
    int follows;
} MWFineOutput;

/// The family's functions at one level (0 each step's scalar reference, FineKeyerRef.c; 1 … 4 as `mw_key_kernel`'s):
/// the core, and the steps `mw_fine_key` runs (`rows` and `grid` a pass of the picture-wide fields, `tiles` a part's
/// tiles through `core`). Every level gives the same bits.
typedef struct {
    int level;
    MWFineCore core;
    void (*rows)(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, int pass, int part, int parts);
    void (*grid)(MWFineKeyer *k, const MWFineParams *p, int pass);
    void (*tiles)(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, MWFineCore core,
                  int part, int parts);
} MWFineKernel;

/// The table of `level`, or NULL for a level this CPU cannot run (above `mw_cpu_level()`, or negative).
const MWFineKernel *mw_fine_kernel(int level);

/// Keys one picture by `kernel`'s steps.
int mw_fine_key(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, const MWFineKernel *kernel);

/// A clean plate (`--clean-plate`): the empty screen as fx is filmed (yuv420p, the keyer's size; its pictures' mean),
/// or NULL for none. With one, step 2's screen at each chroma sample is the plate's there (denoised over 3 × 3 samples)
/// rather than learnt from the picture: what differs from the plate is subject. Kept until the next call; 0, or −1 when
/// its planes cannot be allocated (then no plate).
int mw_fine_plate(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *plate);

/// The same in parts, for two threads: the picture-wide steps (`prepare`), then `tiles` for part 0 and part 1 of
/// `parts` (1 or 2) at once (each its own rows of tiles and scratch), then `mw_fine_matte`. The picture-wide steps
/// are themselves MW_FINE_PASSES passes, each `rows` for every part at once (each its own rows of cells and scratch),
/// then `grid` (what `prepare` does in one part). Each by `kernel`'s steps (every level and every number of parts
/// gives the same bits; −1 for no kernel or a part out of range).
enum { MW_FINE_PASSES = 3 };
int mw_fine_prepare(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineKernel *kernel);
int mw_fine_rows(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineKernel *kernel, int pass, int part,
                 int parts);
int mw_fine_grid(MWFineKeyer *k, const MWFineParams *p, const MWFineKernel *kernel, int pass);
int mw_fine_tiles(MWFineKeyer *k, const MWFineParams *p, const MWFineInput *in, const MWFineOutput *out, const MWFineKernel *kernel,
                  int part,
                  int parts);

/// Step 6, for a run of pictures of one size: the last picture's matte (as step 5 made it) and its fx kept.
MWFineSteady *mw_fine_steady_create(int width, int height);
void mw_fine_steady_free(MWFineSteady *s);

/// Step 6 on `alpha` (the picture's size, step 5's matte) keyed from `fx` (yuv420p): when `follows` (fx is the
/// picture after the last one given) each pixel's alpha moves halfway to the last picture's by how little fx changed
/// around it: by (1 − c / 92) / 2 where c, the largest absolute change of fx's sums over the 3 × 3 samples around it
/// (of Y at its pixel; of U and of V at its chroma sample), is below 92 (their mean's change 0.04 of 255), not at all
/// above; rounded to the nearest. Else (a first picture, or one after a seek) alpha is left as it is. Either way the
/// picture's matte as given and its fx are kept for the next.
void mw_fine_steady(MWFineSteady *s, const MWFineInput *fx, uint8_t *alpha, long stride, int follows);

/// fx kept as the last picture's (the matte's bytes kept as they were keyed): what `mw_fine_steady` ends with, and
/// what the tiles leave to be done after a picture laid over a base with `MWFineOutput.steady`.
void mw_fine_steady_keep(MWFineSteady *s, const MWFineInput *fx);

/// Step 7's garbage rectangles and choke alone, on any matte (w × h bytes, 0 transparent … 255 opaque). `line`:
/// scratch of max(w, h) bytes.
void mw_fine_matte(const MWFineParams *p, uint8_t *alpha, long stride, int w, int h, uint8_t *line);

/// Step 7's feather, on a picture with straight colour and its matte (yuva420p, or yuva444p with `chromaShift` 0):
/// the alpha softened over `r` pixels (a box of 2r + 1 twice along rows and columns: near a Gaussian), and the colour
/// under it brought from the subject, so that a softened edge never shows the screen (nor an unmixed colour's
/// complement where the matte had nothing): each sample keeps its own colour by its own alpha (a), the rest
/// (1 − a) is the subject's around it (the colour's mean weighted by alpha, softened as the alpha is). Inside the
/// subject (alpha 1) nothing changes. 0, or −1 when its scratch cannot be allocated.
int mw_matte_feather(uint8_t *const plane[4], const long stride[4], int w, int h, int chromaShift, int r);

#endif
