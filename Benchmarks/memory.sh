#!/usr/bin/env bash
# Peak memory does not grow with length: a 60-second 720p blend against a 10-second one (issue 7); a concat of two
# 5-minute clips (160x120, two stereo tracks each) against one of two 1-minute clips, where the second clip's sound
# must not be read (and held) before the mix reaches it.
# Goal: each longer job's peak at most 1.3 times the shorter one's, and the blend's 60 s under 400 MB.
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
for m in 1 5; do
    for k in a b; do
        [ -f "$work/long-$m-$k.mp4" ] || ff -f lavfi -i "testsrc2=s=160x120:r=10:d=$((60 * m))" -f lavfi -i "sine=f=440:r=48000:d=$((60 * m))" \
            -f lavfi -i "sine=f=660:r=48000:d=$((60 * m))" -map 0:v -map 1:a -map 2:a -ac 2 -c:v libx264 -preset ultrafast \
            -c:a aac "$work/long-$m-$k.mp4"
    done
done
concat_peak() { /usr/bin/time -f "%M" "$bin" concat "$work/long-$1-a.mp4" "$work/long-$1-b.mp4" -o "$work/mem-concat-$1.mp4" -y -q --smart off 2>&1 | tail -1; }
p10=$(peak 10); p60=$(peak 60); c1=$(concat_peak 1); c5=$(concat_peak 5)
python3 - "$p10" "$p60" "$c1" "$c5" <<'PY'
import sys
p10, p60, c1, c5 = (int(a) / 1024 for a in sys.argv[1:])
print(f"720p blend peak memory: 10 s {p10:.0f} MB, 60 s {p60:.0f} MB, ratio {p60 / p10:.2f} (goal <= 1.3, and 60 s under 400 MB)")
print(f"concat of two clips, peak memory: 2 x 1 min {c1:.0f} MB, 2 x 5 min {c5:.0f} MB, ratio {c5 / c1:.2f} (goal <= 1.3)")
sys.exit(0 if p60 <= 1.3 * p10 and p60 < 400 and c5 <= 1.3 * c1 else 1)
PY
