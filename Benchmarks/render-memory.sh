#!/usr/bin/env bash
# render's memory against the number of clips: generated timelines of 5, 10 and 20 clips of 30 s (640x360 30 fps, two
# audio tracks each), on three tracks (V1 the clips end to end with a 1 s dissolve between each two, V2 a picture-in-
# picture clip every 2 minutes, A1 a music file the whole length), rendered one after the other; the peak resident
# memory of each render, and its wall time. A 20-clip timeline lasts 10 minutes.
# Usage: Benchmarks/render-memory.sh
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(cd "$work" && pwd)
for n in $(seq 1 4); do
    [ -f "$work/mem-clip-$n.mov" ] || ff -f lavfi -i "testsrc2=s=640x360:r=30:d=32" -f lavfi -i "sine=f=$((300 + 100 * n)):r=48000:d=32" \
        -f lavfi -i "sine=f=$((2000 + 100 * n)):r=48000:d=32" -vf "hue=h=$((90 * n))" -map 0:v -map 1:a -map 2:a \
        -c:v libx264 -preset veryfast -crf 23 -pix_fmt yuv420p -g 60 -c:a aac "$work/mem-clip-$n.mov"
done
[ -f "$work/mem-music.m4a" ] || ff -f lavfi -i "sine=f=150:r=48000:d=620" -c:a aac "$work/mem-music.m4a"
: > "$work/render-memory.txt"
for clips in 5 10 20; do
    python3 - "$work" "$clips" <<'PY'
import sys, opentimelineio as otio
work, clips = sys.argv[1], int(sys.argv[2])
T = lambda v: otio.opentime.RationalTime(v, 30)
R = lambda s, d: otio.opentime.TimeRange(T(s), T(d))
ref = lambda n: otio.schema.ExternalReference(target_url=f"{work}/mem-clip-{n % 4 + 1}.mov")
tl = otio.schema.Timeline(name=f"{clips} clips")
v1, v2, a1 = otio.schema.Track(name="V1", kind="Video"), otio.schema.Track(name="V2", kind="Video"), otio.schema.Track(name="A1", kind="Audio")
tl.tracks.extend([v1, v2, a1])
for n in range(clips):
    if n: v1.append(otio.schema.Transition(transition_type="SMPTE_Dissolve", in_offset=T(15), out_offset=T(15)))
    v1.append(otio.schema.Clip(name=f"c{n}", media_reference=ref(n), source_range=R(30, 900)))
for m in range(clips // 4):
    v2.append(otio.schema.Gap(source_range=R(0, 3000 if m == 0 else 3300)))
    c = otio.schema.Clip(name=f"pip{m}", media_reference=ref(m + 1), source_range=R(0, 300))
    c.metadata["mixwrite"] = {"place": "400,20,224,126"}
    v2.append(c)
a1.append(otio.schema.Clip(name="music", media_reference=otio.schema.ExternalReference(target_url=f"{work}/mem-music.m4a"),
                           source_range=R(0, clips * 900)))
otio.adapters.write_to_file(tl, f"{work}/mem-{clips}.otio")
PY
    echo "$clips $(measure "$bin" render "$work/mem-$clips.otio" -o "$work/mem-$clips.mp4" -y -q --preset ultrafast)" | tee -a "$work/render-memory.txt"
done
awk '{ printf "%2d clips (%2d min): wall %7.1f s, peak %4d MB\n", $1, $1 / 2, $2, $4 }' "$work/render-memory.txt"
