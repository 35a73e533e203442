#!/usr/bin/env bash
# The keyers against the ground truth (research/key-truth.py): the set made here (hair, motion, glass; 320×240, 25
# frames; H.264 4:2:0 CRF 18 and ProRes 4:2:2), `mixwrite key --keyer fine --key-color auto` on each, and the peers
# (GPUImage's formula, the ffmpeg CLI's chromakey + despill + overlay, OBS's chroma key v2) each at the best of its
# full grid of settings given the true screen colour. Prints each one's scores and the fine keyer's ratios to the best
# peer's (edge error, matte MAD and dtSSD: ≤ 0.7 asked; PSNR: higher asked). About ten minutes (the CLI's grid).
# Usage: Benchmarks/key-scores.sh [SIZE] [FRAMES]   (default 320x240 25)
set -euo pipefail
source "$(dirname "$0")/common.sh"
size="${1:-320x240}" frames="${2:-25}"
set_dir="$work/truth-$size-$frames"
[ -d "$set_dir/hair" ] || python3 research/key-truth.py make "$set_dir" --size "$size" --frames "$frames"
for scene in hair motion glass; do
    for input in fx fx-prores; do
        "$bin" key "$set_dir/$scene/$input.mov" -o "$set_dir/$scene-$input-fine.mov" --keyer fine --key-color auto -y -q --progress none
        python3 research/key-truth.py layer "$set_dir" "$scene" "$set_dir/$scene-$input-fine.mov" > "$set_dir/$scene-$input-fine.json"
    done
    [ -f "$set_dir/$scene-peers.json" ] || python3 research/key-truth.py peers "$set_dir" "$scene" > "$set_dir/$scene-peers.json"
done
python3 - "$set_dir" <<'PY'
import json, sys
d = sys.argv[1]
names = ("edgeError", "matteMAD", "dtSSD", "compositePSNR", "matteMSE", "gradientError")
print(f"{'scene':7s} {'keyer':22s} " + " ".join(f"{n:>13s}" for n in names))
for scene in ("hair", "motion", "glass"):
    peers = json.load(open(f"{d}/{scene}-peers.json"))
    for name, s in peers.items():
        print(f"{scene:7s} {name + ' ' + str(s['settings']):22s} " + " ".join(f"{s[n]:13.2f}" for n in names))
    best = {n: (max if n == "compositePSNR" else min)(s[n] for s in peers.values()) for n in names}
    for input in ("fx", "fx-prores"):
        f = json.load(open(f"{d}/{scene}-{input}-fine.json"))
        print(f"{scene:7s} {'fine (' + input + ')':22s} " + " ".join(f"{f[n]:13.2f}" for n in names))
        if input == "fx":   # the peers keyed the H.264 pictures; the ProRes row is the same scene filmed better
            ratios = " ".join(f"{n} {f[n] / best[n]:.3f}" for n in names[:3])
            print(f"{'':7s} {'  ratio to best peer':22s} {ratios}; PSNR {f['compositePSNR'] - best['compositePSNR']:+.2f} dB")
PY
