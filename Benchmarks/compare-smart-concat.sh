#!/usr/bin/env bash
# Smart rendering of a concat (issue 49): three 1080p30 H.264 clips of 20 s with the same encoder settings (so the
# same parameter sets; a keyframe every 2 s; two AAC tracks each, a tone a track), joined with cuts and with two 1 s
# fades. mixwrite as it is (`--smart auto`: the GOPs no fade touches copied) and `--smart off` (every frame encoded), in
# turn, in one run; x264 veryfast crf 20 + AAC. Prints each run, the medians, the ratios, and once: the copied and
# encoded spans, every frame of the cut concat against the clips' own (md5), the fades' encoded frames against
# --smart off's (luma PSNR), and whether each output decodes with no error.
# Usage: Benchmarks/compare-smart-concat.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"

clips=()
for n in 1 2 3; do
    f="$work/smart-clip-$n.mp4"
    clips+=("$f")
    [ -f "$f" ] || ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=20" -f lavfi -i "sine=f=$((200 * n + 100)):r=48000:d=20" \
        -f lavfi -i "sine=f=$((200 * n + 1100)):r=48000:d=20" -vf "hue=h=$((120 * n))" -map 0:v -map 1:a -map 2:a \
        -c:v libx264 -preset veryfast -crf 18 -g 60 -pix_fmt yuv420p -c:a aac "$f"
done
cuts_cmd=("$bin" concat "${clips[@]}" -o "$work/smart-cuts.mp4" -y -q)
cuts_off_cmd=("$bin" concat "${clips[@]}" -o "$work/smart-cuts-off.mp4" -y -q --smart off)
fades_cmd=("$bin" concat "${clips[@]}" -o "$work/smart-fades.mp4" -y -q --transition fade:1)
fades_off_cmd=("$bin" concat "${clips[@]}" -o "$work/smart-fades-off.mp4" -y -q --transition fade:1 --smart off)

: > "$work/smart-concat-runs.txt"
for i in $(seq "$rounds"); do
    echo "cuts      $(measure "${cuts_cmd[@]}")" | tee -a "$work/smart-concat-runs.txt"
    echo "cuts-off  $(measure "${cuts_off_cmd[@]}")" | tee -a "$work/smart-concat-runs.txt"
    echo "fades     $(measure "${fades_cmd[@]}")" | tee -a "$work/smart-concat-runs.txt"
    echo "fades-off $(measure "${fades_off_cmd[@]}")" | tee -a "$work/smart-concat-runs.txt"
done
summarize "$work/smart-concat-runs.txt" cuts-off cuts
summarize "$work/smart-concat-runs.txt" fades-off fades | tail -1

for name in cuts fades; do
    "$bin" concat "${clips[@]}" -o "$work/smart-$name.mp4" -y -q --json $([ "$name" = fades ] && echo --transition fade:1) | python3 -c '
import json, sys
v = json.load(sys.stdin)["video"]
print(sys.argv[1], "copied", v["copiedFrames"], "of", v["frames"], "frames; copied", v["copiedSpans"], "encoded", v["encodedSpans"])' "$name"
done
python3 - "$work" <<'PY'
import subprocess, sys
work = sys.argv[1]
def md5s(path):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"], capture_output=True, text=True, check=True).stdout
    return [l.split(",")[-1].strip() for l in out.splitlines() if not l.startswith("#")]
own = sum((md5s(f"{work}/smart-clip-{n}.mp4") for n in (1, 2, 3)), [])
print("the cut concat's frames are the clips' own, every one:", md5s(f"{work}/smart-cuts.mp4") == own)
r = subprocess.run(["ffmpeg", "-i", f"{work}/smart-fades.mp4", "-i", f"{work}/smart-fades-off.mp4", "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"],
                   capture_output=True, text=True).stderr
print("the fades' render against --smart off's (every frame, luma):", [l.split("y:")[1].split()[0] for l in r.splitlines() if "PSNR" in l])
for name in ("smart-cuts", "smart-cuts-off", "smart-fades", "smart-fades-off"):
    e = subprocess.run(["ffmpeg", "-v", "error", "-xerror", "-i", f"{work}/{name}.mp4", "-f", "null", "-"], capture_output=True, text=True)
    print(f"{name}: decodes with no error: {e.returncode == 0 and not e.stderr}")
PY
