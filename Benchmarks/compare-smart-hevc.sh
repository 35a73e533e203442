#!/usr/bin/env bash
# Smart rendering of HEVC (issue 78): the 720p layer of compare-smart.sh at 20–24 s over a minute of 1080p30 HEVC
# (libx265, a closed GOP every 2 s, as phones write them), `--codec hevc`: mixwrite as it is (base's GOPs the layer
# does not touch copied, each led by its parameter sets) against `--smart off` (every frame through libx265), in turn,
# in one run. Prints each run, the medians and the ratio, the copied frames, and the smart render's proof (its first
# and last 600 frames' md5 against base's, the encoded span's luma PSNR against --smart off's, clean decodes).
# Usage: Benchmarks/compare-smart-hevc.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"

base="$work/smart-hevc-base.mp4"
[ -f "$base" ] || ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=60" -f lavfi -i "sine=f=440:r=48000:d=60" \
    -c:v libx265 -preset veryfast -crf 23 -x265-params "log-level=error:keyint=60:min-keyint=60:open-gop=0:scenecut=0" \
    -pix_fmt yuv420p -c:a aac "$base"
layer="$work/smart-layer.mov"
[ -f "$layer" ] || ff -f lavfi -i "testsrc2=s=1280x720:r=30:d=4,drawbox=x=0:y=0:w=1280:h=160:c=0x00FF00:t=fill" \
    -f lavfi -i "sine=f=1000:r=48000:d=4" -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -c:a aac "$layer"

place=(--at 20 --out 4 --place 320,180,1280,720 --codec hevc)
smart_cmd=("$bin" "$layer" "$base" -o "$work/smart-hevc.mp4" -y -q "${place[@]}")
off_cmd=("$bin" "$layer" "$base" -o "$work/smart-hevc-off.mp4" -y -q --smart off "${place[@]}")
: > "$work/smart-hevc-runs.txt"
for i in $(seq "$rounds"); do
    echo "smart    $(measure "${smart_cmd[@]}")" | tee -a "$work/smart-hevc-runs.txt"
    echo "off      $(measure "${off_cmd[@]}")" | tee -a "$work/smart-hevc-runs.txt"
done
summarize "$work/smart-hevc-runs.txt" off smart

"$bin" "$layer" "$base" -o "$work/smart-hevc.mp4" -y -q --json "${place[@]}" | python3 -c '
import json, sys
v = json.load(sys.stdin)["video"]
print("copied", v["copiedFrames"], "of", v["frames"], "frames; copied", v["copiedSpans"], "encoded", v["encodedSpans"], v.get("smartReason", ""))'
smart_proof "$work/smart-hevc.mp4" "$base" "$work/smart-hevc-off.mp4" 20 24
