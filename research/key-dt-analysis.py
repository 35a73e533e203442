#!/usr/bin/env python3
"""Where a keyed layer's frame-to-frame matte error (dtSSD) comes from, on a half of the second truth set
(research/key-truth-set.py), and what two changes would do to the scores (issue 46). Run it on the `tune` half only:
the held-out half is for reporting a method once it is chosen.

  research/key-dt-analysis.py SET [SUFFIX]
      SET: a folder `key-truth-set.py make SET --half tune` wrote, with SET/SCENE-SUFFIX.mov beside each scene (a layer
      `mixwrite key SET/SCENE/fx.mov -o SET/SCENE-fine.mov --keyer fine --key-color auto` made; SUFFIX `fine`).
      Prints, a scene a line:
      - the shares of the summed squared dt error where the true matte itself changes, in the edge band, and within
        2 px of the thin strands (with that area's share of the picture);
      - the scores with a causal temporal filter on the matte (each pixel's alpha averaged with its last K frames',
        weighted by how little fx's 3 x 3-smoothed colour changed there: K 2, tau 0.03 and K 4, tau 0.08);
      - the scores with a filter that knows where the truth is still (the matte's last filtered frame weighted by how
        little the true matte changed: k 0.5, tau 0.05 and k 0.8, tau 0.02; no keyer knows that, and it is no bound:
        it follows no motion, and the steps below, which read only fx, take as much on the slow scenes);
      - the scores with the matte steadied as the keyer's step 6 does it (`steadied`: each pixel's alpha moved towards
        the last frame's raw alpha by w times how little fx changed around it, `fx_change`, against tau) over a grid of
        w and tau, the grid the keyer's w 0.5, tau 0.04 was chosen on (on a layer keyed before that step was the
        keyer's, as at f25f26f: today's layer is steadied already); and with a recursive filter with a trend
        (`recursive`), which takes a little more but keeps every frame before it (no part could start as the whole
        render does);
      - the scores with the strands right (the truth's matte and colour within 2 px of the strands, the rest the layer's);
      - the dtSSD of a reading that knows each pixel's true foreground colour as filmed (the set's spill in it) and the
        screen's (the clean plate's mean), projecting the decoded colour on that line where the truth has any alpha:
        what the file's own frame-to-frame noise leaves a per-pixel reading (to the best peer when SET/SCENE-peers.json,
        `key-truth.py peers`, is there); and the dt error near each colour of strand, the layer's and that reading's;
      - on the scenes with smoke, how far each reading follows the smoke's steps from frame to frame (the slope and
        correlation of its change against the truth's, over the picture's left 0.3 where the truth is 0.005 … 0.7):
        the layer's matte, the colour difference and luma (over the filmed colour's) read from fx.
  research/key-dt-analysis.py SET --floors
      What the file itself leaves a keyer that reads a pixel at a time, with no layer (so it may be run on any half:
      it reads the truth and fx, never a keyer's choice): the edge-band error of the true matte with the true
      foreground as filmed (the set's spill in it: no keyer tells spill from a translucent colour) and of the true
      matte with the colour unmixed from fx by the clean plate's screen; and the dtSSD of the reading that knows the
      true colours (above); each to the best peer's when SET/SCENE-peers.json is there; and how much of the strands'
      alpha over the screen that reading keeps, by their colour (the set's checks' regions).
  research/key-dt-analysis.py SET --still [SUFFIX …]
      The dt error split in two, where the true matte is still (it changes by at most 0.01 from the last frame) and
      where it moves: each frame's root mean square over the whole picture of that part's error, their mean (×10³; a
      frame's two parts' squares sum to its whole), for each layer SET/SCENE-SUFFIX.mov (default `fine`) and for each
      peer at its best settings in SET/SCENE-peers.json (`key-truth.py peers`), with each layer's ratio to the best
      peer's on each part; the still part where the true colour is still too (a moving strand's core passing over a
      pixel keeps its alpha at 1 but is no still subject), and its ratios; and the still part's summed squared error
      by region (within 2 px of the strands, the opaque subject's border, the rest); the same where the true colour is
      still too, with the part beside the strands where the truth is 0 in both frames; and, for each layer, how far fx
      is off the clean plate's screen where the layer reads alpha beside the strands and the truth is 0 (what the file
      itself shows there). It reads no keyer's choice beyond the layers scored, so it may be run on a held-out half.
  research/key-dt-analysis.py SET --tinted [SUFFIX …]
      The tinted translucent disc (the set's orange one, found from the truth: alpha 0.3 … 0.6 where the true colour's
      channels span 0.3 or more, opened by 2 px so no strand or soft edge is in it): its true alpha, the colour-
      difference matte of fx over the clean plate's screen (the reading the solid core is made from, 0.75 and up), and
      each layer's and each peer's mean matte there; then each layer's edge-band error as it is and with that disc
      read right (the truth's alpha there, fx's colour unmixed by the clean plate's screen), to the best peer's. It
      reads no keyer's choice beyond the layers scored, so it may be run on a held-out half.
  research/key-dt-analysis.py SET --glass [SUFFIX …]
      The neutral disc over the screen alone (the set's checks' translucent region, its true colour neutral): its share
      of the edge band, its true alpha and colour and its colour as filmed (the set's spill in it: no keyer tells that
      from a darker glass), each layer's and each peer's mean matte there, each layer's colour there, and each layer's
      edge-band error as keyed, with the disc's colour the truth's and with it as filmed (the layer's matte kept), to the
      best peer's. It reads no keyer's choice beyond the layers scored, so it may be run on a held-out half.
  research/key-dt-analysis.py SET --strands [SUFFIX …]
      Where the thin strands' matte error lies (the tune half: it is for choosing): for each colour of strand, within
      2 px of that colour's strands over the screen (the others' left out), each layer's mean alpha and summed squared
      error by the true alpha (0, to 0.2, 0.5, 0.8, 1), beside the reading that knows the true colours (above; it reads
      only where the truth has alpha, so its 0 row is 0 by construction), and the summed squared dt error there (and
      where the truth has alpha in either frame, which that reading is read on).
"""
import importlib.util, json, os, sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("key_truth", os.path.join(here, "key-truth.py"))
kt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kt)
spec = importlib.util.spec_from_file_location("key_truth_set", os.path.join(here, "key-truth-set.py"))
kts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kts)

SCENES = ["portrait", "glass", "motion", "mixed"]
NAMES = ("edgeError", "matteMAD", "dtSSD", "compositePSNR")


def dilate(mask, r=2):
    out = mask.copy()
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            out |= np.roll(np.roll(mask, dy, 1), dx, 2)
    return out


def box(a, r=1):
    p = np.pad(a, [(r, r), (r, r)] + [(0, 0)] * (a.ndim - 2), mode="edge")
    out = np.zeros_like(a)
    for dy in range(2 * r + 1):
        for dx in range(2 * r + 1):
            out += p[dy:dy + a.shape[0], dx:dx + a.shape[1]]
    return out / (2 * r + 1) ** 2


def temporal(matte, fx, k, tau):
    smoothed = np.array([box(f) for f in fx])
    out = matte.copy()
    for t in range(len(matte)):
        acc, weight = matte[t].copy(), np.ones(matte.shape[1:])
        for j in range(1, min(k, t) + 1):
            w = np.clip(1 - np.abs(smoothed[t] - smoothed[t - j]).max(-1) / tau, 0, 1)
            acc += w * matte[t - j]
            weight += w
        out[t] = acc / weight
    return out


def fx_change(path, w, h):
    """Each frame's change in fx from the last, as a kernel step would read it from fx's yuv420p planes: the largest of
    the absolute changes of the 3 x 3 box means of Y (at its size) and of U and V (at theirs, each standing for its 2 x 2
    pixels), over 255; frame 0 changed everywhere."""
    raw = kt.ffmpeg(["-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
    frames = np.frombuffer(raw, np.uint8).reshape(-1, h * w * 3 // 2).astype(np.float64)
    y = frames[:, :h * w].reshape(-1, h, w)
    u, v = (frames[:, h * w * (4 + k) // 4:h * w * (5 + k) // 4].reshape(-1, h // 2, w // 2) for k in (0, 1))
    def change(plane):
        b = np.array([box(f) for f in plane])
        return np.abs(np.diff(b, axis=0))
    chroma = np.maximum(change(u), change(v)).repeat(2, 1).repeat(2, 2)
    return np.concatenate([np.full((1, h, w), np.inf), np.maximum(change(y), chroma) / 255])


def steadied(matte, change, w, tau):
    """The matte as the keyer's step 6 (mw_fine_steady) makes it, in floats: each frame's alpha moved towards the last
    frame's (as keyed, before this step) by w × (1 − fx's change / tau) where fx changed by less than tau."""
    out = matte.copy()
    out[1:] = matte[1:] + w * np.clip(1 - change[1:] / tau, 0, 1) * (matte[:-1] - matte[1:])
    return out


def recursive(matte, change, a, b, tau):
    """A causal filter a keyer could run on its matte: a level and a trend per pixel (Holt's linear smoothing), the
    prediction (the last level plus the trend, within 0 … 1) moved to the frame's own alpha by a where fx did not
    change, wholly (the frame's alpha, the trend forgotten) where fx's change (`fx_change`) is tau or more, linearly
    between. It lags no steady motion: the trend carries a strand's slow slide."""
    level, trend, out = matte[0].copy(), np.zeros(matte.shape[1:]), matte.copy()
    for t in range(1, len(matte)):
        still = np.clip(1 - change[t] / tau, 0, 1)
        prediction = np.clip(level + trend, 0, 1)
        residual = matte[t] - prediction
        level = prediction + (1 - still * (1 - a)) * residual
        trend = still * (trend + b * residual)
        out[t] = level
    return out


def still_known(matte, alpha, k, tau):
    """A recursive filter on the matte that knows where the truth is still: each pixel's alpha moved towards the last
    frame's filtered alpha by k, weighted by exp(-(the truth's change / tau)^2). No keyer knows that; it bounds what a
    step that looks back over the frames could take from the dt error."""
    out = matte.copy()
    for t in range(1, len(matte)):
        w = k * np.exp(-(np.abs(alpha[t] - alpha[t - 1]) / tau) ** 2)
        out[t] = matte[t] + w * (out[t - 1] - matte[t])
    return out


def known_colours(d, info, fx, alpha, fg):
    """The projection of fx's colour on the line from the clean plate's to the filmed foreground's, where alpha > 0;
    the plate's colour and the filmed foreground's."""
    w, h = info["width"], info["height"]
    screen = kt.decode_rgb(f"{d}/clean.mov", w, h).mean(0)[None]
    filmed = np.stack([kts.spill(f, a, screen[0], info["despill"]) for f, a in zip(fg, alpha)])
    line_ = filmed - screen
    a = ((fx - screen) * line_).sum(-1) / np.maximum((line_ * line_).sum(-1), 1e-6)
    return np.clip(a, 0, 1) * (alpha > 0), screen, filmed


def best_peer(root, scene, name):
    peers = f"{root}/{scene}-peers.json"
    return min(p[name] for p in json.load(open(peers)).values()) if os.path.exists(peers) else None


def floors(root, scene):
    """The edge-band errors of the true matte with the filmed foreground and with fx's colour unmixed by the clean
    plate's screen, and the dtSSD of the reading that knows the true colours."""
    d = f"{root}/{scene}"
    info = json.load(open(f"{d}/scene.json"))
    w, h = info["width"], info["height"]
    alpha = kt.truth(d)[0]
    n = len(alpha)
    plate = kt.decode_rgb(f"{root}/plate.mov", w, h)[:n]
    fx = kt.decode_rgb(f"{d}/fx.mov", w, h)[:n]
    fg = np.load(f"{d}/fg.npy").astype(np.float64)[:n]
    known, screen, filmed = known_colours(d, info, fx, alpha, fg)
    a = alpha[..., None]
    def edge_error(composite):
        return kt.scores(d, alpha, composite, edge_only=True)["edgeError"]
    regions = np.load(f"{d}/regions.npz")
    strands = {c: regions[f"strands_{c}"][:n] for c in kts.STRAND_COLOURS}
    return {"spilled": edge_error(a * filmed + (1 - a) * plate),
            "unmixed": edge_error(np.clip(fx - (1 - a) * screen, 0, 1) + (1 - a) * plate),
            "dtSSD": kt.dtssd(known, alpha),
            "strands": {c: float(known[r].sum() / max(alpha[r].sum(), 1e-9)) for c, r in strands.items()}}


def print_floors(root):
    for scene in SCENES:
        f = floors(root, scene)
        edge, dt = best_peer(root, scene, "edgeError"), best_peer(root, scene, "dtSSD")
        def of(v, best):
            return f"{v:.2f}" + (f" ({v / best:.2f} of the best peer's)" if best else "")
        print(f"{scene}: the true matte, edge-band error with the filmed foreground {of(f['spilled'], edge)}, with fx's "
              f"colour unmixed {of(f['unmixed'], edge)}; the true colours known, dtSSD {of(f['dtSSD'], dt)}, the strands "
              "over the screen " + " / ".join(f"{c} {v:.2f}" for c, v in f["strands"].items()) + " of their alpha")


def follows(reading, alpha, region):
    """The slope and correlation of a reading's change from frame to frame against the truth's, over `region`."""
    both = region[1:] & region[:-1]
    da, dr = np.diff(alpha, axis=0)[both], np.diff(reading, axis=0)[both]
    return float((da * dr).sum() / (da * da).sum()), float(np.corrcoef(da, dr)[0, 1])


def dt_error(matte, alpha):
    """Each pixel's squared dt error from each frame to the next (over the frames both have), and the truth's change."""
    n = min(len(matte), len(alpha))
    da = np.diff(alpha[:n], axis=0)
    return (np.diff(matte[:n], axis=0) - da) ** 2, da


def dt_parts(matte, alpha, tol=0.01):
    """The dt error where the truth is still and where it moves (see --still)."""
    e2, da = dt_error(matte, alpha)
    still = np.abs(da) <= tol
    size = e2[0].size
    def part(mask):
        return float(np.sqrt((e2 * mask).sum(axis=(1, 2)) / size).mean() * 1000)
    return part(still), part(~still)


def calm(alpha, fg, n, tol=0.01, colour_tol=0.02):
    """Where the truth is still from each of the first n frames to the next and so is the true colour wherever it shows
    (no channel of it moves by more than colour_tol; a moving strand's core passing over a pixel leaves its alpha at 1
    but is no still subject)."""
    shows = (alpha[1:n] > 0) | (alpha[:n - 1] > 0)
    return (np.abs(np.diff(alpha[:n], axis=0)) <= tol) & (~shows | (np.abs(np.diff(fg[:n], axis=0)).max(-1) <= colour_tol))


def calm_part(matte, alpha, fg):
    """The dt error where the truth and the true colour are still (`calm`), as dt_parts' still part."""
    e2, da = dt_error(matte, alpha)
    return float(np.sqrt((e2 * calm(alpha, fg, len(e2) + 1)).sum(axis=(1, 2)) / e2[0].size).mean() * 1000)


def still_regions(d, n):
    """Where the still part's error is summed (`--still`): within 2 px of the strands, the opaque subject's border (from
    3 px inside its opaque region to 2 px outside), the rest; each as a pair of frames' masks (either frame's)."""
    from scipy import ndimage
    regions = np.load(f"{d}/regions.npz")
    strands, opaque = dilate(regions["strands"][:n]), regions["opaque"][:n]
    inner = np.array([ndimage.binary_erosion(o, iterations=3) for o in opaque])
    def pair(mask):
        return mask[1:] | mask[:-1]
    near, border = pair(strands), pair(dilate(opaque)) & ~pair(inner) & ~pair(strands)
    return {"strands": near, "the subject's border": border, "the rest": ~(near | border)}


def calm_by_region(mattes, alpha, fg, regions):
    """calm_part's summed squared error in each of still_regions' regions, after the strands' the part of it where the
    truth is 0 in both frames (the matte beside a strand, not on it), for each matte."""
    n = min(len(alpha), *(len(m) for m in mattes.values()))
    still = calm(alpha, fg, n)
    clear = ((alpha[1:n] == 0) & (alpha[:n - 1] == 0))
    out = {}
    for name, m in mattes.items():
        e2 = dt_error(m[:n], alpha)[0] * still
        parts = {}
        for region, mask in regions.items():
            parts[region] = float(e2[mask[:n - 1]].sum())
            if region == "strands":
                parts["of it beside them (the truth 0 in both frames)"] = float(e2[mask[:n - 1] & clear].sum())
        out[name] = parts
    return out


def beside_strands(d, info, alpha):
    """Where a layer reads alpha over 0.05 within 2 px of the strands but the truth is 0: how far fx there is off the
    clean plate's screen (its largest channel's difference, median, levels), against the same beside the strands where
    the layer reads 0.05 or less and on the clear screen 12 px from anything: what the file itself shows there. fx and
    the plate read once a scene; a function of a layer's matte returned."""
    from scipy import ndimage
    w, h, n = info["width"], info["height"], len(alpha)
    fx = kt.decode_rgb(f"{d}/fx.mov", w, h)[:n]
    off = np.abs(fx - kt.decode_rgb(f"{d}/clean.mov", w, h).mean(0)[None]).max(-1) * 255
    beside = dilate(np.load(f"{d}/regions.npz")["strands"][:n]) & (alpha == 0)
    clear = np.median(off[np.array([ndimage.distance_transform_edt(a <= 0) > 12 for a in alpha])])
    def reading(matte):
        read = beside & (matte[:n] > 0.05)
        return (f"beside the strands where the truth is 0, {read.sum() / n:.0f} px a frame read over 0.05, fx there "
                f"{np.median(off[read]):.1f} levels off the screen (where read 0.05 or less "
                f"{np.median(off[beside & ~read]):.1f}, the clear screen {clear:.1f})")
    return reading


def still_by_region(matte, alpha, regions, tol=0.01):
    """The summed squared dt error where the truth is still (as dt_parts), in each region."""
    e2, da = dt_error(matte, alpha)
    e2 = e2 * (np.abs(da) <= tol)
    return {name: float(e2[mask[:len(e2)]].sum()) for name, mask in regions.items()}


def print_still(root, suffixes):
    for scene in SCENES:
        d = f"{root}/{scene}"
        if not os.path.exists(f"{root}/{scene}-peers.json"):
            print(f"{scene}: no {root}/{scene}-peers.json (run key-truth.py peers): skipped")
            continue
        info = json.load(open(f"{d}/scene.json"))
        alpha = kt.truth(d)[0]
        mattes = kts.peer_mattes(d)
        best = [min(dt_parts(m, alpha)[i] for m in mattes.values()) for i in (0, 1)]
        for suffix in suffixes:
            mattes[suffix] = kt.decode_alpha(f"{root}/{scene}-{suffix}.mov", info["width"], info["height"])
        parts = {name: dt_parts(m, alpha) for name, m in mattes.items()}
        print(f"{scene}: dt error where the truth is still / where it moves: " + ", ".join(
            f"{name} {s:.2f} / {m:.2f}" for name, (s, m) in parts.items()))
        print("  to the best peer's: " + ", ".join(
            f"{suffix} {parts[suffix][0] / best[0]:.2f} / {parts[suffix][1] / best[1]:.2f}" for suffix in suffixes))
        fg = np.load(f"{d}/fg.npy").astype(np.float64)
        calm = {name: calm_part(m, alpha, fg) for name, m in mattes.items()}
        best_calm = min(v for name, v in calm.items() if name not in suffixes)
        print("  where the true colour is still too: " + ", ".join(f"{name} {v:.2f}" for name, v in calm.items()) +
              "; to the best peer's: " + ", ".join(f"{suffix} {calm[suffix] / best_calm:.2f}" for suffix in suffixes))
        regions = still_regions(d, len(alpha))
        print("  where the truth is still, the summed squared error by region: " + "; ".join(
            f"{name} " + " / ".join(f"{v:.0f}" for v in still_by_region(m, alpha, regions).values())
            for name, m in mattes.items()) + " (" + " / ".join(regions) + ")")
        calm = calm_by_region(mattes, alpha, fg, regions)
        print("  where the true colour is still too, by region: " + "; ".join(
            f"{name} " + " / ".join(f"{v:.0f}" for v in parts.values()) for name, parts in calm.items()) +
              " (" + " / ".join(next(iter(calm.values()))) + ")")
        reading = beside_strands(d, info, alpha)
        for suffix in suffixes:
            print(f"  {suffix}: " + reading(mattes[suffix]))


def colour_difference(c, info):
    """The screen's channel less the larger of the other two (the scene's screen, its scene.json's `despill`)."""
    ch = 1 if info["despill"] == "green" else 2
    return c[..., ch] - np.delete(c, ch, axis=-1).max(-1)


def tinted_region(d, alpha):
    """The tinted disc's inside (`--tinted`), from the truth: translucent, its colour far from neutral, no thinner
    than 5 px."""
    from scipy import ndimage
    fg = np.load(f"{d}/fg.npy").astype(np.float64)[:len(alpha)]
    tinted = (alpha > 0.3) & (alpha < 0.6) & (fg.max(-1) - fg.min(-1) > 0.3)
    return np.array([ndimage.binary_opening(t, iterations=2) for t in tinted])


def read_scene(root, scene):
    """A scene's folder, its scene.json, its true matte and fx decoded (as many frames as the truth has)."""
    d = f"{root}/{scene}"
    info = json.load(open(f"{d}/scene.json"))
    alpha = kt.truth(d)[0]
    return d, info, alpha, kt.decode_rgb(f"{d}/fx.mov", info["width"], info["height"])[:len(alpha)]


def scene_layers(root, scene, suffixes, w, h, n):
    """Each peer's matte at its best settings (when SET/SCENE-peers.json is there) and each layer's, by name; each
    layer's colour by suffix; the new background (the set's plate.mov) and the best peer's edge-band error (or None)."""
    mattes = kts.peer_mattes(f"{root}/{scene}") if os.path.exists(f"{root}/{scene}-peers.json") else {}
    paths = {s: f"{root}/{scene}-{s}.mov" for s in suffixes}
    mattes.update({s: kt.decode_alpha(path, w, h)[:n] for s, path in paths.items()})
    colours = {s: kt.decode_rgb(path, w, h)[:n] for s, path in paths.items()}
    return mattes, colours, kt.decode_rgb(f"{root}/plate.mov", w, h)[:n], best_peer(root, scene, "edgeError")


def edge_error(d, matte, colour, plate):
    """The edge-band error of a matte (frames × H × W) and a colour laid over the plate by it."""
    m = matte[..., None]
    return kt.scores(d, matte, m * colour + (1 - m) * plate, edge_only=True)["edgeError"]


def print_tinted(root, suffixes):
    for scene in SCENES:
        d, info, alpha, fx = read_scene(root, scene)
        w, h, n = info["width"], info["height"], len(alpha)
        region = tinted_region(d, alpha)
        screen = kt.decode_rgb(f"{d}/clean.mov", w, h).mean(0)
        mattes, colours, plate, best = scene_layers(root, scene, suffixes, w, h, n)
        reading = 1 - colour_difference(fx, info) / np.maximum(colour_difference(screen, info), 1e-3)[None]
        print(f"{scene}: the tinted disc, {region.sum() / n:.0f} px a frame, true alpha {alpha[region].mean():.2f}, "
              f"colour difference {reading[region].mean():.2f}; read " +
              ", ".join(f"{name} {m[region].mean():.2f}" for name, m in mattes.items()))
        for suffix, colour in colours.items():
            matte = mattes[suffix]
            right = np.where(region, alpha, matte)
            unmixed = np.clip(fx - (1 - right[..., None]) * screen, 0, 1) / np.maximum(right[..., None], 1e-3)
            errors = [edge_error(d, matte, colour, plate), edge_error(d, right, np.where(region[..., None], unmixed, colour), plate)]
            ratio = f" ({errors[0] / best:.2f} -> {errors[1] / best:.2f} of the best peer's)" if best else ""
            print(f"  {suffix}: edge-band error {errors[0]:.2f}, the disc read right {errors[1]:.2f}{ratio}")


def print_glass(root, suffixes):
    for scene in SCENES:
        d, info, alpha, fx = read_scene(root, scene)
        w, h, n = info["width"], info["height"], len(alpha)
        fg = np.load(f"{d}/fg.npy").astype(np.float64)[:n]
        region = np.load(f"{d}/regions.npz")["translucent"][:n] & (fg.max(-1) - fg.min(-1) < 0.1)
        edge = kt.truth(d)[2][:n]
        screen = kt.decode_rgb(f"{d}/clean.mov", w, h).mean(0)
        filmed = np.stack([kts.spill(f, a, screen, info["despill"]) for f, a in zip(fg, alpha)])
        mattes, colours, plate, best = scene_layers(root, scene, suffixes, w, h, n)
        def rgb(c):
            return "/".join(f"{v * 255:.0f}" for v in c[region].mean(0))
        print(f"{scene}: the neutral disc, {region.sum() / n:.0f} px a frame ({(region & edge).sum() / edge.sum():.2f} of the "
              f"edge band), true alpha {alpha[region].mean():.3f}, colour {rgb(fg)}, as filmed {rgb(filmed)}; read " +
              ", ".join(f"{name} {m[region].mean():.3f}" for name, m in mattes.items()))
        for suffix, colour in colours.items():
            errors = [edge_error(d, mattes[suffix], np.where(region[..., None], c, colour), plate) for c in (colour, fg, filmed)]
            ratios = f" ({' / '.join(f'{e / best:.2f}' for e in errors)} of the best peer's)" if best else ""
            print(f"  {suffix}: colour {rgb(colour)}; edge-band error as keyed / the disc's colour the truth's / as filmed "
                  f"(its alpha the layer's): " + " / ".join(f"{e:.2f}" for e in errors) + ratios)


def print_strands(root, suffixes):
    bins = ((-1, 0.001), (0.001, 0.2), (0.2, 0.5), (0.5, 0.8), (0.8, 1))
    for scene in SCENES:
        d, info, alpha, fx = read_scene(root, scene)
        w, h, n = info["width"], info["height"], len(alpha)
        regions = np.load(f"{d}/regions.npz")
        fg = np.load(f"{d}/fg.npy").astype(np.float64)[:n]
        readings = {s: kt.decode_alpha(f"{root}/{scene}-{s}.mov", w, h)[:n] for s in suffixes}
        readings["the true colours known"] = known_colours(d, info, fx, alpha, fg)[0]
        errors = {name: dt_error(m, alpha)[0] for name, m in readings.items()}
        for colour in kts.STRAND_COLOURS:
            near = dilate(regions[f"strands_{colour}"][:n]) & (alpha < 0.999)
            for other in kts.STRAND_COLOURS:
                if other != colour:
                    near &= ~dilate(regions[f"strands_{other}"][:n], 3)
            truth, pair = alpha[near], near[1:] | near[:-1]
            shown = pair & ((alpha[1:] > 0) | (alpha[:-1] > 0))
            print(f"{scene}, {colour} strands ({near.sum() / n:.0f} px a frame), summed squared dt error (where the truth "
                  f"has alpha in either frame): " + ", ".join(
                      f"{name} {e2[pair].sum():.0f} ({e2[shown].sum():.0f})" for name, e2 in errors.items()))
            for lo, hi in bins:
                inside = (truth > lo) & (truth <= hi)
                if inside.any():
                    label = "0" if lo < 0 else f"{lo:.1f} … {hi:.1f} (mean {truth[inside].mean():.2f})"
                    print(f"  true alpha {label}: " + ", ".join(
                        f"{name} {m[near][inside].mean():.2f} ({((m[near] - truth)[inside] ** 2).sum():.0f})"
                        for name, m in readings.items()))


def line(name, before, after):
    return f"  {name}: " + "  ".join(f"{k} {before[k]:.2f} -> {after[k]:.2f}" for k in NAMES)


def main():
    root, suffix = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "fine"
    if suffix == "--floors":
        return print_floors(root)
    if suffix == "--still":
        return print_still(root, sys.argv[3:] or ["fine"])
    if suffix == "--tinted":
        return print_tinted(root, sys.argv[3:] or ["fine"])
    if suffix == "--glass":
        return print_glass(root, sys.argv[3:] or ["fine"])
    if suffix == "--strands":
        return print_strands(root, sys.argv[3:] or ["fine"])
    for scene in SCENES:
        d = f"{root}/{scene}"
        info = json.load(open(f"{d}/scene.json"))
        w, h = info["width"], info["height"]
        layer = f"{root}/{scene}-{suffix}.mov"
        matte, colour = kt.decode_alpha(layer, w, h), kt.decode_rgb(layer, w, h)
        n = len(matte)
        plate = kt.decode_rgb(f"{root}/plate.mov", w, h)[:n]
        fx = kt.decode_rgb(f"{d}/fx.mov", w, h)[:n]
        alpha, _, edge = kt.truth(d)
        alpha, edge = alpha[:n], edge[:n]
        fg = np.load(f"{d}/fg.npy").astype(np.float64)[:n]
        regions = np.load(f"{d}/regions.npz")
        strands = dilate(regions["strands"][:n])

        e2 = dt_error(matte, alpha)[0]
        total = e2.sum()
        moving = np.abs(np.diff(alpha, axis=0)) > 0.01
        band = edge[1:] | edge[:-1]
        near = strands[1:] | strands[:-1]
        print(f"{scene}: dt error where the truth changes {e2[moving].sum() / total:.2f}, in the edge band "
              f"{e2[band].sum() / total:.2f}, within 2 px of the strands {e2[near].sum() / total:.2f} "
              f"(area {near.mean():.3f})")

        def scored(m, c):
            return kt.scores(d, m, m[..., None] * c + (1 - m[..., None]) * plate)
        before = scored(matte, colour)
        for k, tau in ((2, 0.03), (4, 0.08)):
            print(line(f"temporal K {k} tau {tau}", before, scored(temporal(matte, fx, k, tau), colour)))
        for k, tau in ((0.5, 0.05), (0.8, 0.02)):
            print(line(f"a filter that knows where the truth is still, k {k} tau {tau}", before,
                       scored(still_known(matte, alpha, k, tau), colour)))
        change = fx_change(f"{d}/fx.mov", w, h)[:n]
        for w_, tau in ((0.5, 0.03), (0.5, 0.04), (0.5, 0.05), (0.5, 0.07), (0.4, 0.05)):
            print(line(f"steadied w {w_} tau {tau}", before, scored(steadied(matte, change, w_, tau), colour)))
        for a, b, tau in ((0.5, 0, 0.03), (0.5, 0, 0.06), (0.5, 0.1, 0.06), (0.6, 0.2, 0.05)):
            print(line(f"recursive a {a} b {b} tau {tau}", before, scored(recursive(matte, change, a, b, tau), colour)))
        print(line("strands right", before, scored(np.where(strands, alpha, matte), np.where(strands[..., None], fg, colour))))

        known, screen, filmed = known_colours(d, info, fx, alpha, fg)
        best = best_peer(root, scene, "dtSSD")
        ours, layer_dt = kt.dtssd(known, alpha), kt.dtssd(matte, alpha)
        ratio = f" ({ours / best:.2f} of the best peer's, the layer {layer_dt / best:.2f})" if best else ""
        print(f"  the true colours known, read a pixel at a time: dtSSD {ours:.2f}{ratio}")
        known_e2 = dt_error(known, alpha)[0]
        def strand_error(errors, colour_):
            near = dilate(regions[f"strands_{colour_}"][:n])
            return errors[near[1:] | near[:-1]].sum()
        print("  the summed squared dt error within 2 px of the strands, the layer / the true colours known: " + ", ".join(
            f"{c} {strand_error(e2, c):.0f} / {strand_error(known_e2, c):.0f}" for c in kts.STRAND_COLOURS))
        if scene in ("glass", "mixed"):
            luma = np.array([0.2126, 0.7152, 0.0722])
            span = (filmed - screen) @ luma
            readings = {"the layer": matte,
                        "colour difference": 1 - colour_difference(fx, info) / colour_difference(screen, info),
                        "luma over the filmed colour's": np.where(np.abs(span) > 0.03, ((fx - screen) @ luma) / span, 0)}
            smoke = (np.arange(w) < 0.3 * w)[None, None, :] & (alpha > 0.005) & (alpha < 0.7)
            followed = {name: follows(r, alpha, smoke) for name, r in readings.items()}
            print("  the smoke's steps followed (slope, correlation): " + ", ".join(
                f"{name} {slope:.2f} {corr:.2f}" for name, (slope, corr) in followed.items()))


if __name__ == "__main__":
    main()
