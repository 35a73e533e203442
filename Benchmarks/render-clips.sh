#!/usr/bin/env bash
# render's time and memory against the number of clips at one length: a 40 s timeline at 25 fps (1,000 frames) cut
# into 1, 10 and 1,000 clips on V1 (each clip's sound, two AAC tracks, mixed with it), taken in turn from four
# 320x240 files of 40 s (clip k from file k mod 4, at its own place in it, so the picture runs on); then 100,000 one-frame
# clips (an hour and six minutes). Each rendered once a round, in turn (x264 ultrafast); prints each run, the medians,
# and the 1,000-clip render's ratios to the 10-clip one's memory and to the one clip's time.
# Usage: Benchmarks/render-clips.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"
work=$(cd "$work" && pwd)
for n in 1 2 3 4; do
    [ -f "$work/cut-src-$n.mov" ] || ff -f lavfi -i "testsrc2=s=320x240:r=25:d=40" -f lavfi -i "sine=f=$((300 + 100 * n)):r=48000:d=40" \
        -f lavfi -i "sine=f=$((2000 + 100 * n)):r=48000:d=40" -vf "hue=h=$((90 * n))" -map 0:v -map 1:a -map 2:a \
        -c:v libx264 -preset ultrafast -g 25 -pix_fmt yuv420p -c:a aac "$work/cut-src-$n.mov"
done
for clips in 1 10 1000 100000; do
    [ -f "$work/cuts-$clips.otio" ] || python3 - "$work" "$clips" <<'PY'
import sys, opentimelineio as otio
work, clips = sys.argv[1], int(sys.argv[2])
frames = 1000 if clips <= 1000 else clips
each = frames // clips
tl = otio.schema.Timeline(name=f"{clips} clips")
v1 = otio.schema.Track(name="V1", kind="Video")
tl.tracks.append(v1)
for k in range(clips):
    start = (k * each) % 1000
    v1.append(otio.schema.Clip(name=f"c{k}", media_reference=otio.schema.ExternalReference(target_url=f"{work}/cut-src-{k % 4 + 1}.mov"),
                               source_range=otio.opentime.TimeRange(otio.opentime.RationalTime(start, 25), otio.opentime.RationalTime(each, 25))))
otio.adapters.write_to_file(tl, f"{work}/cuts-{clips}.otio")
PY
done
: > "$work/render-clips.txt"
for i in $(seq "$rounds"); do
    for clips in 1 10 1000; do
        echo "$clips $(measure "$bin" render "$work/cuts-$clips.otio" -o "$work/cuts-$clips.mp4" -y -q --preset ultrafast --smart off)" \
            | tee -a "$work/render-clips.txt"
    done
done
# The 100,000 clips once (refused, or rendered: then its time and memory), with a guard of 15 minutes.
big=$( { /usr/bin/time -f "%e %U %S %M" timeout 900 "$bin" render "$work/cuts-100000.otio" -o "$work/cuts-100000.mp4" -y -q \
         --preset ultrafast --smart off 2>&1 >/dev/null; echo "exit $?"; } | tail -3)
echo "100000 clips: $big"
python3 - "$work/render-clips.txt" <<'PY'
import sys, statistics
runs = {}
for line in open(sys.argv[1]):
    n, wall, cpu, mb = line.split()
    runs.setdefault(int(n), []).append((float(wall), float(cpu), int(mb)))
med = {n: (statistics.median(r[0] for r in v), statistics.median(r[1] for r in v), statistics.median(r[2] for r in v)) for n, v in runs.items()}
for n, (wall, cpu, mb) in sorted(med.items()):
    print(f"{n:5d} clips: wall {wall:6.2f} s (CPU {cpu:6.2f} s), peak {mb:5.0f} MB   runs: {[r[0] for r in runs[n]]}")
print(f"1,000 clips: memory {med[1000][2] / med[10][2]:.2f}x the 10-clip render's (1.5 asked), time {med[1000][0] / med[1][0]:.2f}x the one clip's (2 asked)")
PY
