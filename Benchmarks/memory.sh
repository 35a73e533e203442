#!/usr/bin/env bash
# Peak memory does not grow with length: a 60-second 720p blend against a 10-second one (issue 7).
# Goal: the 60 s peak at most 1.3 times the 10 s peak, and under 400 MB.
# Usage: Benchmarks/memory.sh
set -euo pipefail
source "$(dirname "$0")/common.sh"
for d in 10 60; do
    [ -f "$work/fx720-$d.mov" ] || ff -f lavfi -i "color=c=0x00FF00:s=1280x720:r=30:d=$d" -f lavfi -i "testsrc2=s=320x240:r=30:d=$d" \
        -f lavfi -i "sine=f=440:r=44100:d=$d" -f lavfi -i "sine=f=1000:r=48000:d=$d" \
        -filter_complex "[0:v][1:v]overlay=x='mod(t*100,900)':y=200[v]" -map "[v]" -map 2:a -map 3:a \
        -c:v libx264 -preset ultrafast -crf 20 -pix_fmt yuv420p -c:a aac "$work/fx720-$d.mov"
    [ -f "$work/base720-$d.mov" ] || ff -f lavfi -i "testsrc2=s=1280x720:r=30:d=$d" -f lavfi -i "sine=f=660:r=48000:d=$d" \
        -c:v libx264 -preset ultrafast -crf 20 -pix_fmt yuv420p -c:a aac "$work/base720-$d.mov"
done
peak() { /usr/bin/time -f "%M" "$bin" "$work/fx720-$1.mov" "$work/base720-$1.mov" -o "$work/mem-$1.mov" -y -q 2>&1 | tail -1; }
p10=$(peak 10); p60=$(peak 60)
python3 - "$p10" "$p60" <<'PY'
import sys
p10, p60 = int(sys.argv[1]) / 1024, int(sys.argv[2]) / 1024
print(f"720p blend peak memory: 10 s {p10:.0f} MB, 60 s {p60:.0f} MB, ratio {p60 / p10:.2f} (goal <= 1.3, and 60 s under 400 MB)")
sys.exit(0 if p60 <= 1.3 * p10 and p60 < 400 else 1)
PY
