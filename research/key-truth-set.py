#!/usr/bin/env python3
"""A second ground truth for keyers (issue 46), made another way than research/key-truth.py and split in halves: `tune`
(where the fine keyer's steps may be chosen) and `heldout` (other seeds, other pictures: scored, never tuned on); and
`heldout2`, made when `heldout` had been scored once, for the steps chosen after that; `heldout3`, made when `heldout2`
had been scored once; `heldout4`, made when `heldout3` had been scored once; `heldout5` (the corpus's photographs),
made when `heldout4` had been scored once and scored once for the matte steadied over the frames; `heldout6` (frames of
the corpus's clips), made when `heldout5` had been scored once, for the guided filters' ε and the alpha from which a
pixel keeps its own colour, re-chosen; `heldout7` to `heldout10` (more of the corpus's clips), each made when the last
had been scored once, for the step tried after it.

  research/key-truth-set.py make OUTDIR --half tune|heldout|…|heldout10 [--size 640x360] [--frames 24]
                           [--scenes A,B] [--no-photos]
      Writes OUTDIR/plate.mov (the new background, as key-truth.py's) and a folder for each scene with what
      key-truth.py's `score`, `layer` and `peers` read (fx.mov, alpha.npy, fg.npy, scene.json), the empty screen filmed
      the same way (clean.mov: a clean plate, its own noise, 12 frames) and the regions the set's own checks read
      (regions.npz: thin strands over the screen, all and by colour, translucent objects over the screen, each opaque
      subject 4 px inside its edge). `--no-photos`: procedural textures for the subjects (numpy alone; the tests').
  research/key-truth-set.py peer-checks OUTDIR SCENE
      The same checks of the matte each peer makes at the settings its grid chose (SCENE-peers.json, key-truth.py's).
  research/key-truth-set.py checks OUTDIR SCENE LAYER.mov
      The checks of a keyed layer on those regions, as JSON: the strands' alpha over their true alpha (1 keeps it; and
      by the strands' colour),
      the translucent objects' mean alpha error, and how far the opaque subject's colour moved from fx's own (levels, at
      each chroma sample: the largest channel's mean shift, and the 99th percentile of each sample's largest move).

Each scene lays photographic subjects (scikit-image's sample pictures, which ship inside the package: `pip install
scikit-image`) as textured shapes, strands (dark, blond, grey; 0.4–2 px) over the screen and over the subject,
translucent discs (neutral and tinted) over the screen alone and over the subject, smoke-like soft alpha, and motion
blur on real texture, over a green or blue screen lit unevenly (a falloff, a hot spot, a shadow), noisy and spilling
onto the subject near its edges; filmed as H.264 4:2:0 at CRF 18 or 28. Everything is drawn with analytic coverage at
the pixel (no supersampling), unlike key-truth.py.
"""
import importlib.util, io, json, math, os, sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("key_truth", os.path.join(here, "key-truth.py"))
kt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kt)

RATE = 25
# The halves: the pictures each may use and the seeds it is drawn with. Nobody looks at `heldout` while choosing.
HALVES = {
    "tune": {"pictures": ["astronaut.png", "chelsea.png", "rocket.jpg", "brick.png"], "seed": 100},
    "heldout": {"pictures": ["coffee.png", "motorcycle_left.png", "grass.png", "color.png"], "seed": 200},
    # Made after `heldout` had been scored once (its figures then known): the pictures neither half used, new seeds.
    "heldout2": {"pictures": ["retina.jpg", "ihc.png", "hubble_deep_field.jpg", "gravel.png"], "seed": 300},
    # Made after `heldout2` had been scored once: pictures no half used (two of them grey), new seeds.
    "heldout3": {"pictures": ["motorcycle_right.png", "logo.png", "camera.png", "coins.png"], "seed": 400},
    # Made after `heldout3` had been scored once: the pictures left (a dark one, a synthetic one, two grey), new seeds.
    "heldout4": {"pictures": ["phantom.png", "chessboard_RGB.png", "clock_motion.png", "moon.png"], "seed": 500},
    # Made when `heldout4` had been scored once, for the step chosen after it: the corpus's colour photographs (read
    # from $MIXWRITE_CORPUS, or ../shared/corpus: scikit-image has no colour picture left) and scikit-image's cell.
    "heldout5": {"pictures": ["corpus:images/happyfish_259x194_odd.jpg", "corpus:images/iphone6s_600x800.jpg",
                              "corpus:images/starry_night_yuv444.jpg", "cell.png"], "seed": 600},
    # Made when `heldout5` had been scored once, for the steps chosen after it (the guided filters' ε, FINE_SHOWN): a
    # frame of each of four of the corpus's clips (a phone's 4K footage, a phone's fire, a film's frame, a DNxHR 4:4:4
    # one), no picture any half used; each frame's time chosen only so that it is not black.
    "heldout6": {"pictures": ["corpus:rotation/portrait_4k60_rot90_aac.mp4@0",
                              "corpus:video/fire_phone_rot180_vfr_aacMono48k.mp4@1",
                              "corpus:video/sample_960x400_mpeg4_mp3_48k.avi@1", "corpus:pro/dnxhr444_1920x839.mov@0"],
                 "seed": 700},
    # Made when `heldout6` had been scored once, for the step chosen after it (luma's dark end): a frame of each of four
    # more of the corpus's clips (AV1, Big Buck Bunny, a black-and-white film, an emulator's screen), no picture any
    # half used; each frame's time chosen only so that it is not black.
    "heldout7": {"pictures": ["corpus:video/av1_720p_aac.mp4@0", "corpus:video/bbb_720p_h264_aac51.mp4@1",
                              "corpus:video/chaplin_360p_h264_mp3.mp4@1", "corpus:rotation/emulator_720p_rot270_aac.mp4@1"],
                 "seed": 800},
    # Made when `heldout7` had been scored once, for the step tried after it (CLEAR_SATURATION 0.9: scored once, then
    # not taken, a test refusing it) and the method as it stood: a frame of each of four more of the corpus's clips (a
    # phone's Dolby Vision HEVC, an MPEG-4 film, Big Buck Bunny's opening in MPEG-2, a 10-bit HEVC), no picture any half
    # used (heldout7's Big Buck Bunny frame is another); each frame's time chosen only so that it is not black.
    "heldout8": {"pictures": ["corpus:rotation/iphone_hevc_dv_rot90_aac.mov@0", "corpus:video/megamind_mpeg4_ac3.avi@1",
                              "corpus:video/mpeg2_1080p_mp2.ts@1", "corpus:video/hevc_10bit_1080p_vfr_aac.mp4@0"],
                 "seed": 900},
    # Made when `heldout8` had been scored once, for the step chosen after it (the channels' bounds gated by the
    # screen's own saturation: a rendered effect's saturated screen): a frame of each of four more of the corpus's
    # clips (an H.264 sample in Matroska, an odd-sized phone clip, an interlaced broadcast, an HEVC with slices), no
    # picture any half used; each frame's time chosen only so that it is not black.
    "heldout9": {"pictures": ["corpus:video/sample_720p_h264_ac3.mkv@0", "corpus:video/odd_518x488_h264_aac.mp4@1",
                              "corpus:multiaudio/h264_1080i_2xmp2_swe_nor.ts@1",
                              "corpus:video/hevc_vfr_1080p_aac8kMono.mp4@1"],
                 "seed": 1000},
    # Made when `heldout9` had been scored once, for the step chosen after it (the bounds' noise floor in levels,
    # FINE_BOUND_LEVEL): a frame of each of four more of the corpus's clips (an MPEG-2 broadcast, a phone clip, an MPEG-4
    # clip in MXF, a CineForm one), no picture any half used; each frame's time chosen only so that it is not black.
    "heldout10": {"pictures": ["corpus:multiaudio/mpeg2_720p_2xac3_51_stereo.ts@0",
                               "corpus:rotation/phone_480x272_rot90_aacMono.mp4@1",
                               "corpus:multiaudio/mpeg4_cif_4xalaw.mxf@1", "corpus:video/odd_496x241_cineform.mov@0"],
                  "seed": 1100},
}
# The scenes: which elements each lays, its screen, its light and its encoding.
SCENES = {
    "portrait": {"screen": "green", "light": ["falloff"], "crf": 18},
    "glass": {"screen": "green", "light": ["hotspot"], "crf": 28},
    "motion": {"screen": "blue", "light": ["shadow"], "crf": 18},
    "mixed": {"screen": "blue", "light": ["falloff", "hotspot", "shadow"], "crf": 28},
}
STRAND_COLOURS = {"dark": (0.07, 0.05, 0.04), "blond": (0.86, 0.72, 0.46), "grey": (0.62, 0.62, 0.64)}


def picture(name):
    """One of scikit-image's sample pictures, or (`corpus:PATH`) one of the corpus's, or (`corpus:PATH@SECONDS`) the
    frame of one of its clips at that time (decoded by the ffmpeg CLI, its rotation applied)."""
    import skimage.data
    import skimage.io
    if name.startswith("corpus:"):
        corpus = os.environ.get("MIXWRITE_CORPUS") or os.path.join(here, "..", "..", "shared", "corpus")
        file, _, at = name[len("corpus:"):].partition("@")
        path = os.path.join(corpus, file)
        if not os.path.exists(path):
            raise SystemExit(f"key-truth-set: {path} is missing (this half reads the corpus: set MIXWRITE_CORPUS)")
        if at:
            path = io.BytesIO(kt.ffmpeg(["-ss", at, "-i", path, "-frames:v", "1", "-f", "image2pipe", "-c:v", "png",
                                         "-pix_fmt", "rgb24", "-"]))
    else:
        path = os.path.join(os.path.dirname(skimage.data.__file__), name)
    img = skimage.io.imread(path)
    if img.ndim == 2:
        img = np.stack([img] * 3, -1)
    return img[..., :3].astype(np.float64) / 255


def procedural(seed, size=256):
    """A textured subject without a photograph (the tests' `--no-photos`): warm, noisy colour over a few scales, its
    screen channels never the largest."""
    rng = np.random.default_rng(seed)
    ys, xs = np.mgrid[0:size, 0:size] / size
    img = np.zeros((size, size, 3))
    for f in (2, 5, 13, 31):
        for k in range(3):
            img[..., k] += np.sin(2 * np.pi * (f * xs * rng.uniform(0.5, 1) + f * ys * rng.uniform(0.5, 1)) + rng.uniform(0, 6.3)) / f
    img = (img - img.min()) / (img.max() - img.min())
    return np.stack([0.35 + 0.6 * img[..., 0], 0.2 + 0.45 * img[..., 1], 0.1 + 0.35 * img[..., 2]], -1)


def sample(img, u, v):
    """`img` at (u, v) in 0 … 1 of its width and height, bilinear, edges clamped."""
    h, w = img.shape[:2]
    x, y = np.clip(u * (w - 1), 0, w - 1), np.clip(v * (h - 1), 0, h - 1)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    fx, fy = (x - x0)[..., None], (y - y0)[..., None]
    return (img[y0, x0] * (1 - fx) + img[y0, x1] * fx) * (1 - fy) + (img[y1, x0] * (1 - fx) + img[y1, x1] * fx) * fy


class Layer:
    """One element: its coverage (0 … 1) and its straight colour."""
    def __init__(self, alpha, colour, kind):
        self.alpha, self.colour, self.kind = alpha, colour, kind


def over(layers, shape):
    """The elements composited bottom to top: total alpha and premultiplied colour."""
    a = np.zeros(shape)
    p = np.zeros(shape + (3,))
    for layer in layers:
        p = layer.alpha[..., None] * layer.colour + (1 - layer.alpha[..., None]) * p
        a = layer.alpha + (1 - layer.alpha) * a
    return a, p


def blob(xs, ys, cx, cy, rx, ry, harmonics):
    """A shape: an ellipse whose radius wavers by `harmonics` (amplitude, frequency, phase); coverage by its signed
    distance in pixels (a one-pixel ramp)."""
    dx, dy = (xs - cx) / rx, (ys - cy) / ry
    angle = np.arctan2(dy, dx)
    wave = 1 + sum(a * np.sin(f * angle + ph) for a, f, ph in harmonics)
    r = np.sqrt(dx * dx + dy * dy)
    scale = np.sqrt((rx * np.cos(angle)) ** 2 + (ry * np.sin(angle)) ** 2)
    return np.clip(0.5 - (r - wave) * scale, 0, 1)


def textured(xs, ys, pic, cx, cy, rx, ry, crop):
    """The picture's crop (u0, v0, u1, v1) mapped onto the shape's box."""
    u0, v0, u1, v1 = crop
    u = u0 + (u1 - u0) * np.clip((xs - cx + rx) / (2 * rx), 0, 1)
    v = v0 + (v1 - v0) * np.clip((ys - cy + ry) / (2 * ry), 0, 1)
    return sample(pic, u, v)


def strand_cover(xs, ys, x0, y0, length, lean, sway, width):
    """A strand rising from (x0, y0) by `length` px, leaning and swaying: coverage of a `width`-px line at each pixel
    (the overlap of the line's span with the pixel's, across it)."""
    s = np.clip((y0 - ys) / length, 0, 1)
    along = (ys <= y0) & (ys >= y0 - length)
    centre = x0 + lean * s * length + sway * np.sin(3 * s) * s
    slope = np.abs(lean + sway * (3 * np.cos(3 * s) * s + np.sin(3 * s)) / length)
    d = (xs - centre) / np.sqrt(1 + slope ** 2)
    cover = np.clip(np.minimum(d + width / 2, 0.5) - np.maximum(d - width / 2, -0.5), 0, 1)
    return np.where(along, cover, 0.0)


def smoke_field(rng, w, h):
    """Soft, smoke-like alpha: noise summed over scales, rising as a plume."""
    field = np.zeros((h, w))
    for scale, weight in ((24, 0.5), (10, 0.3), (4, 0.2)):
        n = rng.normal(0, 1, (h // scale + 3, w // scale + 3))
        ys, xs = np.mgrid[0:h, 0:w] / scale
        field += weight * sample(np.stack([n] * 3, -1), xs / (n.shape[1] - 1), ys / (n.shape[0] - 1))[..., 0]
    return field


def spill(fg, alpha, screen, colour):
    """The foreground as filmed: the screen's light on it near its edge (its screen channel most), over a few pixels."""
    near = kt.blur(1 - alpha, 3.0) * (alpha > 0)
    weights = np.array([0.4, 1.0, 0.4]) if colour == "green" else np.array([0.4, 0.4, 1.0])
    return fg + 0.4 * near[..., None] * (screen - fg) * weights


def scene_frames(name, half, w, h, frames, photos=True):
    cfg, hv = SCENES[name], HALVES[half]
    seed = hv["seed"] + list(SCENES).index(name)
    rng = np.random.default_rng(seed)
    pics = [picture(p) if photos else procedural(hv["seed"] + i) for i, p in enumerate(hv["pictures"])]
    k = list(SCENES).index(name)
    # The subject: the first picture from the scene's own on that is not the screen's colour (under 2 % of its pixels
    # with the screen's channel 0.1 above both others: nobody shoots a blue sky on a blue screen).
    channel = 1 if cfg["screen"] == "green" else 2
    def screenlike(img):
        others = np.delete(img, channel, axis=-1).max(-1)
        return (img[..., channel] - others > 0.1).mean()
    pic = next(pics[(k + i) % len(pics)] for i in range(len(pics)) if screenlike(pics[(k + i) % len(pics)]) < 0.02)
    ys, xs = np.mgrid[0:h, 0:w] + 0.5
    # The screen: its colour (a real screen's, varied by the seed) and its light.
    if cfg["screen"] == "green":
        base = np.array([0.18, 0.60, 0.27]) + rng.uniform(-0.04, 0.04, 3)
    else:
        base = np.array([0.10, 0.24, 0.66]) + rng.uniform(-0.04, 0.04, 3)
    light = np.ones((h, w))
    if "falloff" in cfg["light"]:
        r = np.hypot((xs / w - 0.5) * 1.2, ys / h - 0.5)
        light *= 1.08 - 0.35 * r ** 1.5
    if "hotspot" in cfg["light"]:
        hx, hy = rng.uniform(0.2, 0.8) * w, rng.uniform(0.2, 0.5) * h
        light *= 1 + 0.22 * np.exp(-((xs - hx) ** 2 + (ys - hy) ** 2) / (2 * (0.18 * w) ** 2))
    if "shadow" in cfg["light"]:
        sx = rng.uniform(0.6, 0.85) * w
        light *= 1 - 0.25 * np.clip((xs - sx) / (0.08 * w) + 0.5, 0, 1) * np.clip(1 - ys / h * 0.3, 0, 1)
    screen = np.clip(light[..., None] * base, 0, 1)
    # The elements, each drawn from the seed: a subject, strands, translucent discs, smoke.
    crop = (rng.uniform(0, 0.3), rng.uniform(0, 0.3), rng.uniform(0.6, 1), rng.uniform(0.6, 1))
    cx0, cy0 = rng.uniform(0.35, 0.5) * w, rng.uniform(0.55, 0.7) * h
    rx, ry = rng.uniform(0.12, 0.17) * w, rng.uniform(0.22, 0.3) * h
    harmonics = [(rng.uniform(0.02, 0.08), f, rng.uniform(0, 6.3)) for f in (2, 3, 5)]
    strands = []
    for colour in STRAND_COLOURS:
        for i in range(10):
            over_subject = i % 3 == 0
            a0 = rng.uniform(-1.1, 1.1)
            strands.append({"colour": colour, "a0": a0, "over": over_subject, "length": rng.uniform(0.1, 0.25) * h,
                            "width": rng.uniform(0.4, 2.0), "lean": rng.uniform(-0.6, 0.6), "sway": rng.uniform(2, 6),
                            "phase": rng.uniform(0, 6.3)})
    discs = [{"x": rng.uniform(0.65, 0.85) * w, "y": rng.uniform(0.25, 0.45) * h, "r": rng.uniform(0.07, 0.1) * w,
              "alpha": rng.uniform(0.3, 0.5), "tint": np.array([0.92, 0.92, 0.92])},
             {"x": cx0 + rng.uniform(0.5, 0.9) * rx, "y": cy0 - rng.uniform(0.2, 0.5) * ry, "r": rng.uniform(0.05, 0.07) * w,
              "alpha": rng.uniform(0.35, 0.55), "tint": np.array([0.95, 0.55, 0.35]) + rng.uniform(-0.1, 0.1, 3)}]
    smoke = smoke_field(rng, w, h) if name in ("glass", "mixed") else None
    fast = name in ("motion", "mixed")
    shots, alphas, fgs = [], [], []
    masks = {"strands": [], "translucent": [], "opaque": [], **{f"strands_{c}": [] for c in STRAND_COLOURS}}
    noise = np.random.default_rng(seed + 1000)
    for n in range(frames):
        t = n / RATE
        # The subject's motion: a slow sway, or (motion, mixed) a fast run across, blurred over half a frame's shutter.
        steps = 10 if fast else 1
        sub_a = np.zeros((h, w))
        sub_p = np.zeros((h, w, 3))
        for i in range(steps):
            tt = t + 0.5 * i / steps / RATE
            if fast:
                cx = cx0 - 0.15 * w + 0.3 * w * (0.5 - 0.5 * math.cos(2.4 * tt))
                cy = cy0 + 8 * math.sin(3 * tt)
            else:
                cx, cy = cx0 + 5 * math.sin(0.8 * tt), cy0
            a = blob(xs, ys, cx, cy, rx, ry, harmonics)
            c = textured(xs, ys, pic, cx, cy, rx, ry, crop)
            sub_a += a / steps
            sub_p += (a / steps)[..., None] * c
        subject_colour = sub_p / np.maximum(sub_a, 1e-6)[..., None]
        layers = [Layer(sub_a, subject_colour, "subject")]
        by_colour = {c: np.zeros((h, w)) for c in STRAND_COLOURS}
        for s in strands:
            sx = cx + rx * 0.9 * math.sin(s["a0"])
            sy = cy - ry * 0.9 * math.cos(s["a0"]) + (ry * 0.5 if s["over"] else 2)
            cover = strand_cover(xs, ys, sx, sy, s["length"], s["lean"], s["sway"] * math.sin(0.9 * t + s["phase"]), s["width"])
            layers.append(Layer(cover, np.array(STRAND_COLOURS[s["colour"]]), "strand"))
            if not s["over"]:
                by_colour[s["colour"]] = np.maximum(by_colour[s["colour"]], cover)
        strand_screen = np.maximum.reduce(list(by_colour.values()))
        translucent_screen = np.zeros((h, w), bool)
        for i, dsc in enumerate(discs):
            dx = dsc["x"] + 4 * math.sin(0.6 * t + i)
            cover = np.clip(dsc["r"] + 0.5 - np.hypot(xs - dx, ys - dsc["y"]), 0, 1)
            layers.append(Layer(dsc["alpha"] * cover, dsc["tint"], "translucent"))
            if i == 0:
                translucent_screen = cover >= 1
        if smoke is not None:
            drift = np.roll(smoke, -int(12 * t), axis=0)
            plume = np.clip((drift - 0.1) * 1.4, 0, 1) * np.clip(1 - np.abs(xs / w - 0.2) / 0.15, 0, 1)
            layers.append(Layer(0.6 * plume, np.array([0.78, 0.78, 0.8]), "smoke"))
        alpha, premultiplied = over(layers, (h, w))
        fg = premultiplied / np.maximum(alpha, 1e-6)[..., None]
        spilled = spill(fg, alpha, screen, cfg["screen"])
        shot = alpha[..., None] * spilled + (1 - alpha[..., None]) * screen * (1 + 0.01 * math.sin(7 * t))
        shot += noise.normal(0, 1.8 / 255, shot.shape)
        shots.append(np.clip(shot, 0, 1))
        alphas.append(alpha.astype(np.float32))
        fgs.append(np.clip(fg, 0, 1).astype(np.float32))
        # The regions the checks read: strands over the screen (nothing else there), the first disc's inside (over the
        # screen alone), the subject 4 px inside its edge (no other element over it).
        others = np.zeros((h, w))
        for layer in layers[1:]:
            others = np.maximum(others, layer.alpha)
        masks["strands"].append((strand_screen > 0.05) & (sub_a == 0) & (others - strand_screen < 0.01))
        for c, cover in by_colour.items():
            masks[f"strands_{c}"].append((cover > 0.05) & (sub_a == 0) & (others - cover < 0.01))
        masks["translucent"].append(translucent_screen & (sub_a == 0) & (strand_screen == 0))
        inside = sub_a >= 0.999
        for _ in range(4):
            inside = inside & np.roll(inside, 1, 0) & np.roll(inside, -1, 0) & np.roll(inside, 1, 1) & np.roll(inside, -1, 1)
        masks["opaque"].append(inside & (others == 0))
    plates = []
    for n in range(12):
        plates.append(np.clip(screen * (1 + 0.01 * math.sin(7 * n / RATE)) + noise.normal(0, 1.8 / 255, screen.shape), 0, 1))
    return shots, np.stack(alphas), np.stack(fgs), {k: np.stack(v) for k, v in masks.items()}, plates, base


def make(out, half, w, h, frames, scenes=None, photos=True):
    os.makedirs(out, exist_ok=True)
    kt.encode([kt.plate(w, h)] * frames, w, h, f"{out}/plate.mov", "lossless")
    for name, cfg in SCENES.items():
        if scenes and name not in scenes:
            continue
        d = f"{out}/{name}"
        os.makedirs(d, exist_ok=True)
        shots, alpha, fg, masks, plates, base = scene_frames(name, half, w, h, frames, photos)
        kt.encode(shots, w, h, f"{d}/fx.mov", "h264", cfg["crf"])
        kt.encode(plates, w, h, f"{d}/clean.mov", "h264", cfg["crf"])
        np.save(f"{d}/alpha.npy", alpha)
        np.save(f"{d}/fg.npy", fg)
        np.savez_compressed(f"{d}/regions.npz", **masks)
        screen_hex = "".join(f"{int(round(c * 255)):02X}" for c in base)
        json.dump({"scene": name, "half": half, "width": w, "height": h, "frames": frames, "screen": screen_hex,
                   "despill": cfg["screen"], "crf": cfg["crf"], "light": cfg["light"]}, open(f"{d}/scene.json", "w"))


def matte_checks(d, matte):
    """The strands' and the translucent disc's checks of a matte (frames × H × W)."""
    alpha = np.load(f"{d}/alpha.npy").astype(np.float64)
    regions = np.load(f"{d}/regions.npz")
    n = min(len(alpha), len(matte))
    alpha, matte = alpha[:n], matte[:n]
    s, tr = regions["strands"][:n], regions["translucent"][:n]
    by_colour = {c: regions[f"strands_{c}"][:n] for c in STRAND_COLOURS if f"strands_{c}" in regions}
    return {
        "strandAlpha": float(matte[s].sum() / max(alpha[s].sum(), 1e-9)),
        "strandAlphaByColour": {c: float(matte[m].sum() / max(alpha[m].sum(), 1e-9)) for c, m in by_colour.items()},
        "translucentError": float(np.abs(matte[tr] - alpha[tr]).mean()),
        "translucentTruth": float(alpha[tr].mean()),
        "translucentMatte": float(matte[tr].mean()),
    }


def peer_mattes(d):
    """Each peer's matte at the settings its grid chose (the scene's peers.json, key-truth.py's)."""
    info = json.load(open(f"{d}/scene.json"))
    w, h = info["width"], info["height"]
    key = np.array([int(info["screen"][i:i + 2], 16) / 255 for i in (0, 2, 4)])
    peers = json.load(open(f"{os.path.dirname(d)}/{os.path.basename(d)}-peers.json"))
    rgb = kt.decode_rgb(f"{d}/fx.mov", w, h)
    mattes = {}
    for name, p in peers.items():
        a, b = p["settings"]
        if name == "gpuimage":
            mattes[name] = kt.gpuimage(rgb, key, a, b)[0]
        elif name == "obs":
            mattes[name] = kt.obs(rgb, key, a, b)[0]
        else:
            mattes[name] = kt.decode_alpha_filtered(f"{d}/fx.mov", kt.cli_chromakey(info, a, b), w, h)
    return mattes


def peer_checks(d):
    """The matte checks of each peer at the settings its grid chose."""
    return {name: matte_checks(d, matte) for name, matte in peer_mattes(d).items()}


def checks(d, path):
    info = json.load(open(f"{d}/scene.json"))
    w, h = info["width"], info["height"]
    regions = np.load(f"{d}/regions.npz")
    matte, colour = kt.decode_alpha(path, w, h), kt.decode_rgb(path, w, h)
    n = min(len(regions["opaque"]), len(matte))
    op = regions["opaque"][:n]
    # How far the keyer moved the opaque subject's colour from fx's own (what was filmed), at chroma resolution (each
    # chroma sample with its 2 × 2 pixels' luma: 4:2:0's own colour, so an upsampling's choice is no move).
    def samples(path):
        raw = kt.ffmpeg(["-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
        f = np.frombuffer(raw, np.uint8).reshape(-1, h * w * 3 // 2)[:n].astype(np.float64)
        y = f[:, : h * w].reshape(n, h // 2, 2, w // 2, 2).mean(axis=(2, 4))
        u = f[:, h * w: h * w * 5 // 4].reshape(n, h // 2, w // 2) - 128
        v = f[:, h * w * 5 // 4:].reshape(n, h // 2, w // 2) - 128
        yl = (y - 16) / 219 * 255
        return np.stack([yl + 1.5748 * 255 / 224 * v, yl - (0.1873 * u + 0.4681 * v) * 255 / 224, yl + 1.8556 * 255 / 224 * u], -1)
    inside = op[:, : h // 2 * 2, : w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2).all(axis=(2, 4))
    moved = (samples(path) - samples(f"{d}/fx.mov"))[inside]
    def pct(a, q):
        return float(np.percentile(a, q)) if a.size else float("nan")
    return {
        **matte_checks(d, matte),
        "opaqueShift": float(np.abs(moved.mean(0)).max()),
        "opaqueMove99": pct(np.abs(moved).max(-1) if moved.size else moved, 99),
    }


def main(argv):
    if len(argv) >= 2 and argv[0] == "make":
        half = argv[argv.index("--half") + 1] if "--half" in argv else "tune"
        size = argv[argv.index("--size") + 1] if "--size" in argv else "640x360"
        frames = int(argv[argv.index("--frames") + 1]) if "--frames" in argv else 24
        w, h = map(int, size.split("x"))
        scenes = argv[argv.index("--scenes") + 1].split(",") if "--scenes" in argv else None
        make(argv[1], half, w, h, frames, scenes, photos="--no-photos" not in argv)
    elif len(argv) >= 3 and argv[0] == "peer-checks":
        print(json.dumps(peer_checks(f"{argv[1]}/{argv[2]}")))
    elif len(argv) >= 4 and argv[0] == "checks":
        print(json.dumps(checks(f"{argv[1]}/{argv[2]}", argv[3])))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
