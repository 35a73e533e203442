#!/usr/bin/env bash
# The keyers on the second truth set (research/key-truth-set.py: photographic subjects from scikit-image's sample
# pictures, strands, translucent discs, smoke, motion blur, green and blue screens lit unevenly, H.264 at CRF 18 and
# 28; 640×360, 24 frames), in its halves: `tune` (the fine keyer's steps were chosen on it) and `heldout` (other
# seeds, other pictures: never looked at while choosing); `heldout2`, `heldout3` and `heldout4`, each made for one later
# round of steps (heldout4: for the method as it stood, in the sitting that found no step to take) and scored once;
# `heldout5` (it reads the corpus) for the matte steadied over the frames, scored once; `heldout6` (frames of the
# corpus's clips) for the guided filters' ε and FINE_SHOWN re-chosen, scored once; `heldout7` (four more of its clips)
# for luma's dark end (FINE_DARK), scored once; `heldout8` (four more) for a step tried and not taken, and the method as
# it stood, each scored once; `heldout9` (four more) for the channels' bounds gated by the screen's saturation
# (FINE_CHANNEL_GATE), and `heldout10` (four more) for the bounds' noise floor in levels (FINE_BOUND_LEVEL), each
# scored once. On each scene: `mixwrite key
# --keyer fine --key-color auto`, the same with `--clean-plate` (the scene's empty screen, filmed the same way), and
# the peers (GPUImage's formula, the ffmpeg CLI's chromakey + despill + overlay, OBS's chroma key v2), each at the best
# of its full grid of settings given the true screen colour. Prints every score, the fine keyer's ratios to the best
# peer (edge error, matte MAD and dtSSD; PSNR as a difference), and the checks (strands' alpha kept, a translucent
# disc's alpha, an opaque subject's colour shift). The peers take about ten minutes a scene; their results are kept in the set's folder.
# Needs scikit-image (pip install scikit-image) for the set, and python3-numpy.
# Usage: Benchmarks/key-heldout.sh [HALF…]   (default: tune heldout)
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [ $# -gt 0 ]; then halves=("$@"); else halves=(tune heldout); fi
scenes=(portrait glass motion mixed)
for half in "${halves[@]}"; do
    d="$work/truth-set-$half"
    [ -f "$d/mixed/scene.json" ] || python3 research/key-truth-set.py make "$d" --half "$half"
    for scene in "${scenes[@]}"; do
        for mode in fine plate; do
            extra=()
            [ "$mode" = plate ] && extra=(--clean-plate "$d/$scene/clean.mov")
            "$bin" key "$d/$scene/fx.mov" -o "$d/$scene-$mode.mov" --keyer fine --key-color auto -y -q --progress none "${extra[@]}"
            python3 research/key-truth.py layer "$d" "$scene" "$d/$scene-$mode.mov" > "$d/$scene-$mode.json"
            python3 research/key-truth-set.py checks "$d" "$scene" "$d/$scene-$mode.mov" > "$d/$scene-$mode-checks.json"
        done
        [ -s "$d/$scene-peers.json" ] || { python3 research/key-truth.py peers "$d" "$scene" > "$d/$scene-peers.tmp" && mv "$d/$scene-peers.tmp" "$d/$scene-peers.json"; }
    done
done
python3 - "$work" "${halves[@]}" <<'PY'
import json, sys
work, halves = sys.argv[1], sys.argv[2:]
names = ("edgeError", "matteMAD", "dtSSD", "compositePSNR")
scenes = ("portrait", "glass", "motion", "mixed")
for half in halves:
    d = f"{work}/truth-set-{half}"
    print(f"\n== {half} ==")
    print(f"{'scene':9s} {'keyer':30s} " + " ".join(f"{n:>13s}" for n in names))
    for scene in scenes:
        peers = json.load(open(f"{d}/{scene}-peers.json"))
        for name, s in peers.items():
            print(f"{scene:9s} {name + ' ' + str(s['settings']):30s} " + " ".join(f"{s[n]:13.2f}" for n in names))
        best = {n: (max if n == "compositePSNR" else min)(s[n] for s in peers.values()) for n in names}
        for mode in ("fine", "plate"):
            f = json.load(open(f"{d}/{scene}-{mode}.json"))
            c = json.load(open(f"{d}/{scene}-{mode}-checks.json"))
            label = "fine" if mode == "fine" else "fine --clean-plate"
            print(f"{scene:9s} {label:30s} " + " ".join(f"{f[n]:13.2f}" for n in names))
            ratios = " ".join(f"{n} {f[n] / best[n]:.2f}" for n in names[:3])
            print(f"{'':9s} {'  to the best peer':30s} {ratios}; PSNR {f['compositePSNR'] - best['compositePSNR']:+.2f} dB")
            print(f"{'':9s} {'  checks':30s} strands' alpha {c['strandAlpha']:.2f} of the truth; translucent disc "
                  f"{c['translucentMatte']:.2f} (truth {c['translucentTruth']:.2f}); opaque colour shift {c['opaqueShift']:.2f} levels")
PY
