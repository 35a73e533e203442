#!/usr/bin/python3
"""The model of `--keyer fine` (issue 38), in numpy: the steps the C keyer is to take, chosen by their scores against
the ground truth of research/key-truth.py. Not mixwrite's keyer (that is to be C with a scalar reference, as the GPUImage
kernel is); the figures it reaches are the bar the C keyer is held to.

  research/key-fine-model.py TRUTHDIR ['{"param": value}'] [SCENE,SCENE]

Steps: (1) the colour-difference matte at chroma resolution, G' − max(R', B') against a screen field learned from the
clear screen around each pixel (normalized convolution: an uneven screen keys evenly); (2) brought to full resolution
by a guided filter on luma (4:2:0 edges follow luma's); (3) the foreground's colour learned likewise from the opaque
pixels, and alpha as the projection of each full-resolution colour on the line from the local screen to the local
foreground where the colour lies on it; (4) where luma separates foreground from screen, luma's own alpha at full
resolution where it says more (thin strands the chroma lost); (5) the foreground unmixed (the colour less the screen's
share) and its green limited to max(R', B') (spill).
"""
import sys, json, math, importlib.util, os
import numpy as np
spec = importlib.util.spec_from_file_location("kt", os.path.join(os.path.dirname(os.path.abspath(__file__)), "key-truth.py"))
kt = importlib.util.module_from_spec(spec); spec.loader.exec_module(kt)

def box2(a, r):
    """box mean over axes 1,2 with radius r, edges clamped"""
    p = np.pad(a, [(0,0),(r,r),(r,r)] + [(0,0)]*(a.ndim-3), mode="edge")
    c = p.cumsum(1).cumsum(2)
    c = np.pad(c, [(0,0),(1,0),(1,0)] + [(0,0)]*(a.ndim-3))
    H, W = a.shape[1], a.shape[2]; k = 2*r+1
    return (c[:, k:k+H, k:k+W] - c[:, 0:H, k:k+W] - c[:, k:k+H, 0:W] + c[:, 0:H, 0:W]) / (k*k)

def yuv(path, w, h):
    raw = kt.ffmpeg(["-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"])
    f = np.frombuffer(raw, np.uint8).reshape(-1, w*h*3//2).astype(np.float64)
    Y = f[:, :w*h].reshape(-1, h, w); U = f[:, w*h:w*h*5//4].reshape(-1, h//2, w//2); V = f[:, w*h*5//4:].reshape(-1, h//2, w//2)
    return Y, U, V

def rgb709(Y, U, V):
    y = (Y - 16) / 219; u = (U - 128) / 224; v = (V - 128) / 224
    r = y + 1.5748 * v; g = y - 0.1873 * u - 0.4681 * v; b = y + 1.8556 * u
    return np.stack([r, g, b], -1)

def up2(a):
    """bilinear 2x upsampling (centre-sited chroma, as swscale wrote it: left siting scored worse)"""
    n, h, w = a.shape[:3]
    p = np.pad(a, [(0,0),(1,1),(1,1)] + [(0,0)]*(a.ndim-3), mode="edge")
    out = np.empty((n, 2*h, 2*w) + a.shape[3:])
    c = p[:, 1:-1, 1:-1]
    for dy, sy in ((0, -1), (1, 1)):
        for dx, sx in ((0, -1), (1, 1)):
            out[:, dy::2, dx::2] = 0.5625*c + 0.1875*p[:, 1+sy:h+1+sy, 1:-1] + 0.1875*p[:, 1:-1, 1+sx:w+1+sx] + 0.0625*p[:, 1+sy:h+1+sy, 1+sx:w+1+sx]
    return out

def fine(Y, U, V, params):
    """Steps (1) and (2): the colour-difference matte against the screen field, brought to full resolution by luma."""
    n, h, w = Y.shape
    Yc = Y.reshape(n, h//2, 2, w//2, 2).mean((2, 4))
    rgbc = rgb709(Yc, U, V)
    border = np.concatenate([rgbc[:, :2].reshape(-1,3), rgbc[:, -2:].reshape(-1,3), rgbc[:, :, :2].reshape(-1,3), rgbc[:, :, -2:].reshape(-1,3)])
    S0 = np.median(border, 0)
    D = rgbc[...,1] - np.maximum(rgbc[...,0], rgbc[...,2])
    D0 = S0[1] - max(S0[0], S0[2])
    clean = (D > params.get("clean", 0.7) * D0).astype(float)
    r = params.get("field", 8)
    num = box2(rgbc * clean[..., None], r); den = box2(clean, r)[..., None]
    for _ in range(6):
        miss = den[..., 0] < 1e-3
        if not miss.any(): break
        num = np.where(miss[..., None], box2(num, r), num); den = np.where(miss[..., None], box2(den, r), den)
    S = np.where(den < 1e-6, S0, num / np.maximum(den, 1e-6))
    Ds = np.maximum(S[...,1] - np.maximum(S[...,0], S[...,2]), 1e-3)
    ac = 1 - D / Ds
    lo, hi = params.get("lo", 0.05), params.get("hi", 0.95)
    ac = np.clip((ac - lo) / (hi - lo), 0, 1)
    # guided upsampling by luma: alpha ~ a*Y + b in each window at chroma resolution
    gr, eps = params.get("gr", 1), params.get("eps", 20.0)
    mY = box2(Yc, gr); mA = box2(ac, gr)
    cov = box2(Yc * ac, gr) - mY * mA; var = box2(Yc * Yc, gr) - mY * mY
    a = cov / (var + eps); b = mA - a * mY
    a, b = box2(a, gr), box2(b, gr)
    alpha = np.clip(up2(a) * Y + up2(b), 0, 1) if params.get("guided", True) else np.clip(up2(ac), 0, 1)
    if params.get("temporal", 0.0) > 0:
        out = alpha.copy()
        for t in range(1, n):
            k = params["temporal"] * np.exp(-(np.abs(Y[t] - Y[t-1]) / 3) ** 2)
            out[t] = alpha[t] + k * (out[t-1] - alpha[t])
        alpha = out
    rgb = rgb709(Y, up2(U), up2(V))
    Sf = up2(S)
    fgp = np.clip(rgb - (1 - alpha[..., None]) * Sf, 0, None)
    if params.get("despill", True):
        g = np.minimum(fgp[...,1], np.maximum(fgp[...,0], fgp[...,2]))
        fgp = np.stack([fgp[...,0], g, fgp[...,2]], -1)
    return alpha, fgp

def fill(values, weight, r, rounds=8):
    num = box2(values * weight[..., None], r); den = box2(weight, r)[..., None]
    for _ in range(rounds):
        miss = den[..., 0] < 1e-4
        if not miss.any(): break
        num = np.where(miss[..., None], box2(num, r), num); den = np.where(miss[..., None], box2(den, r), den)
    return num / np.maximum(den, 1e-9), den[..., 0]

def fine4(Y, U, V, p):
    """Every step: the matte and the premultiplied foreground."""
    a0, _ = fine(Y, U, V, p)
    rgb = rgb709(Y, up2(U), up2(V))
    S, _ = fill(rgb, (a0 < 0.02).astype(float), p.get("sr", 12))
    F, fw = fill(rgb, (a0 > 0.98).astype(float), p.get("fr", 6))
    FS = F - S; L2 = (FS ** 2).sum(-1)
    ap = np.clip(((rgb - S) * FS).sum(-1) / np.maximum(L2, 1e-6), 0, 1)
    resid = np.sqrt((((rgb - S) - ap[..., None] * FS) ** 2).sum(-1))
    conf = np.clip(1 - resid / p.get("rmax", 0.06), 0, 1) * np.clip(np.sqrt(L2) / 0.15, 0, 1)
    # luma alone: full resolution
    wl = np.array([0.2126, 0.7152, 0.0722])
    ys, yf = S @ wl, F @ wl
    yl = (Y - 16) / 219
    dY = yf - ys
    aY = np.clip((yl - ys) / np.where(np.abs(dY) < 1e-3, 1e-3, dY), 0, 1)
    confY = np.clip((np.abs(dY) - p.get("ymin", 0.08)) / 0.1, 0, 1)
    # where the luma says more than the colours (thin detail the chroma lost), trust luma
    mode = p.get("mode", "max")
    base = conf * ap + (1 - conf) * a0
    if mode == "max":
        lumaside = confY * aY + (1 - confY) * base
        alpha = np.where(confY > 0, np.maximum(base, lumaside), base)
        # Where luma alone found much more of alpha (0.15 and up: thin detail, not a blurred edge the chroma resolves),
        # the colour is the local opaque foreground's, not the unmixed one.
        thin = np.clip((lumaside - base - 0.15) / 0.2, 0, 1)
    elif mode == "luma":
        alpha, thin = confY * aY + (1 - confY) * base, np.zeros_like(base)
    else:
        alpha, thin = base, np.zeros_like(base)
    if p.get("solid", 0) > 0:  # where the colour difference says opaque, the projection's doubt is spill's
        alpha = np.where(a0 >= p["solid"], np.maximum(alpha, a0), alpha)
    lo, hi = p.get("lo2", 0.03), p.get("hi2", 0.97)
    alpha = np.clip((alpha - lo) / (hi - lo), 0, 1)
    wmax = p.get("wmax", 1.0)
    def limited(c):  # spill: green no more than a mix of max(R', B') and their mean
        m = wmax * np.maximum(c[..., 0], c[..., 2]) + (1 - wmax) * 0.5 * (c[..., 0] + c[..., 2])
        return np.stack([c[..., 0], np.minimum(c[..., 1], m), c[..., 2]], -1)
    unmixed = limited(np.clip(rgb - (1 - alpha[..., None]) * S, 0, None)) / np.maximum(alpha, 1e-3)[..., None]
    colour = thin[..., None] * limited(F) + (1 - thin[..., None]) * unmixed
    return alpha, alpha[..., None] * colour

def run4(d, params):
    """The model on one scene of the truth: its scores, and its matte's error by region (screen, solid, edge)."""
    info = json.load(open(f"{d}/scene.json")); w, h = info["width"], info["height"]
    Y, U, V = yuv(f"{d}/fx.mov", w, h)
    pl = kt.decode_rgb(f"{d}/../plate.mov", w, h)[:len(Y)]
    a, fgp = fine4(Y, U, V, params)
    comp = np.clip(fgp + (1 - a[..., None]) * pl, 0, 1)
    s = kt.scores(d, a, comp)
    t = np.load(f"{d}/alpha.npy"); e = np.abs(a - t)
    for name, m in [("screen", t <= 0.02), ("solid", t >= 0.98), ("edge", (t > 0.02) & (t < 0.98))]:
        s[name] = float(e[m].sum()/e.size*1000)
    return s


if __name__ == "__main__":
    params = json.loads(sys.argv[2]) if len(sys.argv) > 2 else {"mode": "max"}
    for scene in sys.argv[3].split(",") if len(sys.argv) > 3 else kt.SCENES:
        print(scene, json.dumps({k: round(v, 2) for k, v in run4(f"{sys.argv[1]}/{scene}", params).items()}))
