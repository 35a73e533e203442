#!/usr/bin/python3
"""A ground-truth set for keyers, and their scores against it (issue 38).

  research/key-truth.py make OUTDIR [--size 320x240] [--frames 25]
      Renders each scene (hair, motion, glass): a foreground with a known matte over a synthetic screen that is not
      pure green, lit unevenly (±15 %), noisy, spilling its colour onto the subject near its edges; writes it as
      H.264 4:2:0 at CRF 18 (SCENE/fx.mov) and ProRes 4:2:2 (SCENE/fx-prores.mov), the empty screen filmed the same
      way (SCENE/clean.mov: a clean plate, 8 frames of its own noise), a new plate (plate.mov, lossless),
      and the truth: the matte (SCENE/alpha.npy) and the unspilled foreground (SCENE/fg.npy), and the screen's colour
      (SCENE/scene.json).
  research/key-truth.py score OUTDIR SCENE --matte MATTE.mov|npy --composite COMP.mov|npy
      The scores of one keyer's matte (a `key` layer's alpha, or an array) and composite over the plate, as JSON.
  research/key-truth.py layer OUTDIR SCENE LAYER.mov
      The scores of a keyed layer (`mixwrite key`'s: straight colour and its alpha), laid over the plate by its alpha.
  research/key-truth.py peers OUTDIR SCENE [--grid full|test|quick]
      The peers on the scene, each given the true screen colour and the best (lowest edge-band error) of a grid of its
      own settings: GPUImage's formula, the ffmpeg CLI's chromakey + despill + overlay, OBS's chroma key v2 (its
      shader's formula, ported here). JSON: each peer's settings and scores. The full grid is the benchmark's; `test`
      (the test suite's) keeps the part of it where every peer's best settings fell on the benchmark's set.

Everything is made here from formulas (no downloads). Needs Debian's python3-numpy and the ffmpeg CLI.
"""
import json, math, os, subprocess, sys

import numpy as np

SCENES = ["hair", "motion", "glass"]
RATE = 25
# The screen: a real green screen's colour (not 00FF00), in the display's R'G'B' from 0 to 1.
SCREEN = np.array([0.22, 0.63, 0.30])


def blur(a, sigma, axis=None):
    """A Gaussian blur of a 2-D array (both axes, edges repeated)."""
    r = max(1, int(3 * sigma + 0.5))
    k = np.exp(-0.5 * (np.arange(-r, r + 1) / sigma) ** 2)
    k /= k.sum()
    out = a
    for ax in ([0, 1] if axis is None else [axis]):
        pad = [(0, 0)] * out.ndim
        pad[ax] = (r, r)
        p = np.pad(out, pad, mode="edge")
        out = sum(k[i] * np.take(p, range(i, i + out.shape[ax]), axis=ax) for i in range(2 * r + 1))
    return out


def grid(w, h, ss):
    """Pixel-centre coordinates at `ss`×`ss` samples a pixel."""
    ys, xs = np.mgrid[0:h * ss, 0:w * ss]
    return (xs + 0.5) / ss, (ys + 0.5) / ss


def down(a, ss):
    """Averages `ss`×`ss` samples into a pixel (the last axis may be colour)."""
    h, w = a.shape[0] // ss, a.shape[1] // ss
    return a.reshape(h, ss, w, ss, *a.shape[2:]).mean(axis=(1, 3))


def hair(t, w, h, ss=4):
    """A head with dark hair and fine strands (about a pixel wide, many less) swaying."""
    x, y = grid(w, h, ss)
    cx, cy = 0.5 * w + 4 * math.sin(t * 0.7), 0.62 * h
    head = ((x - cx) / (0.17 * w)) ** 2 + ((y - cy) / (0.24 * h)) ** 2 <= 1
    top = head & (y < cy - 0.05 * h)
    strands = np.zeros_like(x, dtype=bool)
    rng = np.random.default_rng(7)
    for i in range(48):
        a0 = rng.uniform(-1.2, 1.2)
        x0 = cx + 0.15 * w * math.sin(a0)
        y0 = cy - 0.23 * h * math.cos(a0) + 2
        length = rng.uniform(0.12, 0.3) * h
        width = rng.uniform(0.35, 1.1)
        phase = rng.uniform(0, 6.3)
        s = np.clip((y0 - y) / length, 0, 1)
        along = (y <= y0) & (y >= y0 - length)
        curve = x0 + math.sin(a0) * s * length * 0.8 + 3 * np.sin(3 * s + phase + 0.9 * t) * s
        strands |= along & (np.abs(x - curve) < width / 2)
    alpha = (head | strands).astype(float)
    skin, dark = np.array([0.86, 0.64, 0.52]), np.array([0.24, 0.15, 0.10])
    fg = np.where((top | strands)[..., None], dark, skin) * (1 - 0.1 * np.sin(x / 7)[..., None])
    return down(alpha, ss), down(fg * alpha[..., None], ss)


def motion(t, w, h, ss=4):
    """A striped disc crossing the frame fast, blurred by its motion (the shutter open half the frame)."""
    x, y = grid(w, h, ss)
    alpha = np.zeros_like(x)
    premultiplied = np.zeros(x.shape + (3,))
    steps = 12
    for i in range(steps):
        tt = t + 0.5 * i / steps / RATE
        # 12 px a frame to the right and back (a triangle wave), 6 px of blur.
        run = 12 * RATE * tt % (2 * (w - 120))
        cx, cy = 60 + min(run, 2 * (w - 120) - run), 0.5 * h + 10 * math.sin(tt)
        inside = ((x - cx) ** 2 + (y - cy) ** 2 <= (0.18 * h) ** 2).astype(float)
        stripes = 0.5 + 0.5 * np.sin((x - cx) / 3)
        colour = np.stack([0.85 * stripes + 0.1, 0.3 * stripes + 0.2, 0.25 - 0.1 * stripes], -1)
        alpha += inside / steps
        premultiplied += colour * (inside / steps)[..., None]
    return down(alpha, ss), down(premultiplied, ss)


def glass(t, w, h, ss=4):
    """A pane of tinted glass (alpha 0.45) before a dark figure with soft edges, drifting."""
    x, y = grid(w, h, ss)
    fig = (((x - 0.35 * w - 6 * math.sin(t)) / (0.12 * w)) ** 2 + ((y - 0.6 * h) / (0.33 * h)) ** 2 <= 1).astype(float)
    fig = down(fig, ss)
    fig = blur(fig, 1.2)
    pane = down(((np.abs(x - 0.64 * w - 5 * math.cos(t)) < 0.16 * w) & (np.abs(y - 0.45 * h) < 0.3 * h)).astype(float), ss)
    pane_alpha = 0.45 * pane
    dark, tint = np.array([0.18, 0.2, 0.35]), np.array([0.72, 0.8, 0.92])
    alpha = fig + pane_alpha * (1 - fig)
    premultiplied = fig[..., None] * dark + (pane_alpha * (1 - fig))[..., None] * tint
    return alpha, premultiplied


def screen(w, h, t):
    """The lit screen: its colour, ±15 % light in a smooth field (brighter middle, a darker corner, a slow drift)."""
    x, y = np.meshgrid((np.arange(w) + 0.5) / w, (np.arange(h) + 0.5) / h)
    light = 1 + 0.15 * (0.6 * np.cos(math.pi * (x - 0.45)) * np.cos(math.pi * (y - 0.5)) - 0.4 * x * y * 2
                        + 0.05 * math.sin(t))
    light = 1 + 0.15 * (light - 1) / max(1e-9, np.abs(light - 1).max())
    return light[..., None] * SCREEN


def clean(w, h, frames=8, seed=2):
    """The empty screen filmed as the scenes are (its light, its noise): a clean plate for `--clean-plate`."""
    rng = np.random.default_rng(seed)
    return [np.clip(screen(w, h, n / RATE) + rng.normal(0, 1.6 / 255, (h, w, 3)), 0, 1) for n in range(frames)]


def render(scene, w, h, frames, seed=1):
    """The scene's frames: observed (as filmed), the true matte and the unspilled foreground."""
    rng = np.random.default_rng(seed)
    make = {"hair": hair, "motion": motion, "glass": glass}[scene]
    shots, alphas, fgs = [], [], []
    for n in range(frames):
        t = n / RATE
        alpha, premultiplied = make(t, w, h)
        fg = premultiplied / np.maximum(alpha, 1e-6)[..., None]
        lit = screen(w, h, t)
        # Spill: the screen's light on the subject, strongest at its edge, fading over a few pixels inside.
        near = blur(1 - alpha, 3.0) * (alpha > 0)
        spilled = fg + 0.45 * near[..., None] * (lit - fg) * np.array([0.4, 1.0, 0.4])
        shot = alpha[..., None] * spilled + (1 - alpha[..., None]) * lit
        shot += rng.normal(0, 1.6 / 255, shot.shape)
        shots.append(np.clip(shot, 0, 1))
        alphas.append(alpha.astype(np.float32))
        fgs.append(np.clip(fg, 0, 1).astype(np.float32))
    return shots, np.stack(alphas), np.stack(fgs)


def ffmpeg(args, data=None):
    r = subprocess.run(["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + args, input=data,
                       capture_output=True)
    if r.returncode != 0:
        raise SystemExit("ffmpeg " + " ".join(args) + ": " + r.stderr.decode())
    return r.stdout


def encode(frames, w, h, path, codec, crf=18):
    raw = b"".join((np.round(f * 255)).astype(np.uint8).tobytes() for f in frames)
    tags = ["-color_primaries", "bt709", "-color_trc", "bt709", "-colorspace", "bt709"]
    inp = ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{w}x{h}", "-r", str(RATE), "-i", "-"]
    if codec == "h264":
        out = ["-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-c:v", "libx264", "-crf", str(crf)]
    elif codec == "prores":
        out = ["-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv422p10le", "-c:v", "prores_ks", "-profile:v", "2"]
    else:  # lossless, for the plate
        out = ["-vf", "scale=out_color_matrix=bt709:out_range=tv,format=yuv420p", "-c:v", "libx264", "-qp", "0"]
    ffmpeg(inp + out + tags + [path], raw)


def decode_rgb(path, w, h):
    raw = ffmpeg(["-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
    return np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3).astype(np.float64) / 255


def decode_alpha(path, w, h):
    raw = ffmpeg(["-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-vf", "alphaextract,format=gray16le", "-f", "rawvideo", "-"])
    return np.frombuffer(raw, "<u2").reshape(-1, h, w).astype(np.float64) / 65535


def plate(w, h):
    """The new background: colour bands and soft discs, far from the screen's colour."""
    x, y = np.meshgrid(np.arange(w) / w, np.arange(h) / h)
    r = 0.5 + 0.4 * np.sin(6 * x + 1)
    g = 0.3 + 0.2 * np.cos(5 * y)
    b = 0.5 + 0.4 * np.sin(4 * (x + y))
    return np.clip(np.stack([r, g, b], -1), 0, 1)


def make(out, w, h, frames):
    os.makedirs(out, exist_ok=True)
    encode([plate(w, h)] * frames, w, h, f"{out}/plate.mov", "lossless")
    for scene in SCENES:
        d = f"{out}/{scene}"
        os.makedirs(d, exist_ok=True)
        shots, alpha, fg = render(scene, w, h, frames)
        encode(shots, w, h, f"{d}/fx.mov", "h264")
        encode(clean(w, h), w, h, f"{d}/clean.mov", "h264")
        encode(shots, w, h, f"{d}/fx-prores.mov", "prores")
        np.save(f"{d}/alpha.npy", alpha)
        np.save(f"{d}/fg.npy", fg)
        screen_hex = "".join(f"{int(round(c * 255)):02X}" for c in SCREEN)
        json.dump({"scene": scene, "width": w, "height": h, "frames": frames, "screen": screen_hex}, open(f"{d}/scene.json", "w"))


def gaussian_gradient(a, sigma=1.4):
    """The gradient's magnitude by Gaussian derivatives (σ 1.4), as the matting benchmarks' gradient error has it."""
    r = max(1, int(3 * sigma + 0.5))
    xs = np.arange(-r, r + 1)
    g = np.exp(-0.5 * (xs / sigma) ** 2)
    g /= g.sum()
    dg = -xs / sigma ** 2 * g
    def conv(img, k, axis):
        pad = [(0, 0)] * img.ndim
        pad[axis] = (r, r)
        p = np.pad(img, pad, mode="edge")
        return sum(k[i] * np.take(p, range(i, i + img.shape[axis]), axis=axis) for i in range(2 * r + 1))
    gx = conv(conv(a, dg, 2), g, 1)
    gy = conv(conv(a, dg, 1), g, 2)
    return np.sqrt(gx ** 2 + gy ** 2)


def band(alpha):
    """Where the true matte is between 0.02 and 0.98, dilated 2 px."""
    m = (alpha > 0.02) & (alpha < 0.98)
    out = m.copy()
    for dy in range(-2, 3):
        for dx in range(-2, 3):
            out |= np.roll(np.roll(m, dy, 1), dx, 2)
    return out


_truths = {}


def truth(d):
    """A scene's true matte, its true composite over the plate and its edge band (read once)."""
    if d not in _truths:
        alpha = np.load(f"{d}/alpha.npy").astype(np.float64)
        fg = np.load(f"{d}/fg.npy").astype(np.float64)
        info = json.load(open(f"{d}/scene.json"))
        pl = decode_rgb(f"{os.path.dirname(d)}/plate.mov", info["width"], info["height"])[: len(alpha)]
        _truths[d] = (alpha, alpha[..., None] * fg + (1 - alpha[..., None]) * pl, band(alpha))
    return _truths[d]


def dtssd(matte, alpha):
    """The matte's frame-to-frame error: each frame's root mean square of its change less the truth's, their mean
    (×10³)."""
    dt = np.diff(matte, axis=0) - np.diff(alpha, axis=0)
    return float(np.sqrt(np.mean(dt ** 2, axis=(1, 2))).mean() * 1000)


def scores(d, matte, composite, edge_only=False):
    """The scores of a matte (frames × H × W, 0 … 1) and a composite (frames × H × W × 3, 0 … 1) against the truth
    (`edge_only`: the edge-band error alone, what a grid is searched by)."""
    alpha, truth_, edge = truth(d)
    n = min(len(alpha), len(matte), len(composite))
    alpha, matte, composite, truth_, edge = alpha[:n], matte[:n], composite[:n], truth_[:n], edge[:n]
    error = np.abs(composite - truth_).mean(-1) * 255
    if edge_only:
        return {"edgeError": float(error[edge].mean())}
    mse = np.mean((composite - truth_) ** 2)
    return {
        "edgeError": float(error[edge].mean()),
        "compositePSNR": float(10 * math.log10(1 / max(mse, 1e-12))),
        "matteMAD": float(np.abs(matte - alpha).mean() * 1000),
        "matteMSE": float(np.mean((matte - alpha) ** 2) * 1000),
        "gradientError": float(np.abs(gaussian_gradient(matte) - gaussian_gradient(alpha)).mean() * 1000),
        "dtSSD": dtssd(matte, alpha),
    }


# ---- the peers ----

def ycbcr709(rgb):
    """BT.709 Cb and Cr of R'G'B' (0 … 1), as OBS's shader computes them (cb_v4, cr_v4)."""
    cb = rgb @ np.array([-0.100644, -0.338572, 0.439216]) + 0.501961
    cr = rgb @ np.array([0.439216, -0.398942, -0.040274]) + 0.501961
    return cb, cr


def bilinear(img, dx, dy):
    """`img` sampled at every pixel shifted by (dx, dy) pixels, bilinear, edges clamped (a GPU's linear sampler)."""
    h, w = img.shape[1:3]
    ys, xs = np.mgrid[0:h, 0:w].astype(float)
    x, y = np.clip(xs + dx, 0, w - 1), np.clip(ys + dy, 0, h - 1)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    x1, y1 = np.minimum(x0 + 1, w - 1), np.minimum(y0 + 1, h - 1)
    fx, fy = (x - x0)[..., None], (y - y0)[..., None]
    top = img[:, y0, x0] * (1 - fx) + img[:, y0, x1] * fx
    bottom = img[:, y1, x0] * (1 - fx) + img[:, y1, x1] * fx
    return top * (1 - fy) + bottom * fy


def obs(rgb, key, similarity, smoothness, spill=0.1):
    """OBS's chroma key v2: the CbCr distance box-filtered over nine samples, pow(saturate((d − sim)/smooth), 1.5),
    and its desaturating spill reduction."""
    kcb, kcr = ycbcr709(key)
    def dist(img):
        cb, cr = ycbcr709(img)
        return np.sqrt((cr - kcr) ** 2 + (cb - kcb) ** 2)
    d = dist(rgb) + 2 * sum(dist(bilinear(rgb, sx * ox, sy * oy)) for ox, oy in ((1, 0.5), (0.5, -1)) for sx, sy in ((1, 1), (-1, -1)))
    base = d / 9 - similarity
    alpha = np.clip(base / smoothness, 0, 1) ** 1.5
    spill_value = np.clip(base / spill, 0, 1) ** 1.5
    desat = rgb @ np.array([0.2126, 0.7152, 0.0722])
    colour = desat[..., None] + (rgb - desat[..., None]) * spill_value[..., None]
    return alpha, colour


def gpuimage(rgb, key, threshold, smoothing):
    """GPUImage's chroma key blend: the distance in its (Cr, Cb), alpha = smoothstep(threshold, threshold + smoothing)."""
    def crcb(c):
        y = c @ np.array([0.2989, 0.5866, 0.1145])
        return 0.7132 * (c[..., 0] - y), 0.5647 * (c[..., 2] - y)
    kr, kb = crcb(key)
    r, b = crcb(rgb)
    d = np.sqrt((r - kr) ** 2 + (b - kb) ** 2)
    t = np.clip((d - threshold) / smoothing, 0, 1)
    return t * t * (3 - 2 * t), rgb


def cli_chromakey(info, similarity, blend):
    """The CLI's chromakey filter on a scene's screen colour (its scene.json), as the peer runs it."""
    return f"chromakey=color=0x{info['screen']}:similarity={similarity}:blend={blend}"


def peers(d, grid="full"):
    info = json.load(open(f"{d}/scene.json"))
    w, h = info["width"], info["height"]
    key = np.array([int(info["screen"][i:i + 2], 16) / 255 for i in (0, 2, 4)])
    rgb = decode_rgb(f"{d}/fx.mov", w, h)
    pl = decode_rgb(f"{os.path.dirname(d)}/plate.mov", w, h)[: len(rgb)]
    results = {}
    def best(name, grid_, run):
        top = None
        for settings in grid_:
            s = scores(d, *run(*settings), edge_only=True)
            if top is None or s["edgeError"] < top[1]["edgeError"]:
                top = (settings, s)
        results[name] = {"settings": list(top[0]), **scores(d, *run(*top[0]))}
    # The full grids reach below where the best settings of the first ones sat (similarity 0.05 for the CLI's and OBS's).
    sims = {"full": [0.01, 0.02, 0.03, 0.05, 0.08, 0.1, 0.15, 0.2, 0.25, 0.3], "test": [0.01, 0.02, 0.03, 0.05, 0.1],
            "quick": [0.1, 0.2, 0.3]}[grid]
    smooths = {"full": [0.01, 0.02, 0.05, 0.1, 0.2], "test": [0.02, 0.05, 0.1, 0.2], "quick": [0.05, 0.15]}[grid]
    blends = {"full": [0.0, 0.02, 0.05, 0.1, 0.2], "test": [0.0, 0.05, 0.1], "quick": [0.05, 0.15]}[grid]
    def over(alpha, colour):
        return alpha, alpha[..., None] * colour + (1 - alpha[..., None]) * pl
    best("gpuimage", [(t, s) for t in sims + ([0.35, 0.4] if grid == "full" else []) for s in smooths],
         lambda t, s: over(*gpuimage(rgb, key, t, s)))
    best("obs", [(t, s) for t in sims for s in smooths], lambda t, s: over(*obs(rgb, key, t, s)))
    def cli(similarity, blend):
        k = cli_chromakey(info, similarity, blend)
        matte = decode_alpha_filtered(f"{d}/fx.mov", k, w, h)
        graph = f"[0:v]{k},despill=type={info.get('despill', 'green')}[k];[1:v][k]overlay=format=yuv420,format=yuv420p[v]"
        raw = ffmpeg(["-i", f"{d}/fx.mov", "-i", f"{os.path.dirname(d)}/plate.mov", "-filter_complex", graph, "-map", "[v]",
                      "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        return matte, np.frombuffer(raw, np.uint8).reshape(-1, h, w, 3).astype(np.float64) / 255
    best("ffmpeg", [(s, b) for s in sims for b in blends], cli)
    return results


def layer_scores(d, path):
    """A keyed layer's scores: its alpha the matte, its colour laid over the plate by that alpha."""
    info = json.load(open(f"{d}/scene.json"))
    w, h = info["width"], info["height"]
    matte, colour = decode_alpha(path, w, h), decode_rgb(path, w, h)
    pl = decode_rgb(f"{os.path.dirname(d)}/plate.mov", w, h)[: len(matte)]
    return scores(d, matte, matte[..., None] * colour + (1 - matte[..., None]) * pl)


def decode_alpha_filtered(path, filters, w, h):
    raw = ffmpeg(["-i", path, "-map", "0:v", "-vf", f"{filters},format=yuva444p16le,alphaextract,format=gray16le",
                  "-f", "rawvideo", "-"])
    return np.frombuffer(raw, "<u2").reshape(-1, h, w).astype(np.float64) / 65535


def main(argv):
    if len(argv) >= 2 and argv[0] == "make":
        size, frames = "320x240", 25
        if "--size" in argv: size = argv[argv.index("--size") + 1]
        if "--frames" in argv: frames = int(argv[argv.index("--frames") + 1])
        w, h = map(int, size.split("x"))
        make(argv[1], w, h, frames)
    elif len(argv) >= 3 and argv[0] == "score":
        d = f"{argv[1]}/{argv[2]}"
        info = json.load(open(f"{d}/scene.json"))
        w, h = info["width"], info["height"]
        m, c = argv[argv.index("--matte") + 1], argv[argv.index("--composite") + 1]
        matte = np.load(m) if m.endswith(".npy") else decode_alpha(m, w, h)
        composite = np.load(c) if c.endswith(".npy") else decode_rgb(c, w, h)
        print(json.dumps(scores(d, matte, composite)))
    elif len(argv) >= 4 and argv[0] == "layer":
        d = f"{argv[1]}/{argv[2]}"
        print(json.dumps(layer_scores(d, argv[3])))
    elif len(argv) >= 3 and argv[0] == "peers":
        grid = argv[argv.index("--grid") + 1] if "--grid" in argv else "quick" if "--quick" in argv else "full"
        print(json.dumps(peers(f"{argv[1]}/{argv[2]}", grid)))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
