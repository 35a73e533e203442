#!/usr/bin/env bash
# render with an upper track beside melt, in turn, in one run: a 12 s 720p30 OpenTimelineIO timeline of three clips
# written as cameras write them (a keyframe a second, a tone each) on V1, a 0.5 s dissolve between the first two and a
# 1 s gap before the third, a 3 s ProRes 4444 lower third (alpha in its bottom third) on V2 from 4.5 s, and a music
# track. melt renders the same .otio converted by OTIO's mlt_xml adapter at the atsc_720p_30 profile. mixwrite with
# smart rendering (the default: V1's GOPs that no dissolve, gap or upper clip touches copied), with --smart off, and
# melt, in turn; H.264 libx264 veryfast crf 20 + AAC for all. Prints each run, the medians and the ratios over melt's,
# the frames copied, and the luma PSNR of the smart render against --smart off's (its encoded frames: the worst).
# Usage: Benchmarks/compare-render-layers.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"
need_melt
work=$(cd "$work" && pwd)

for n in 1 2 3; do
    [ -f "$work/layers-$n.mov" ] || ff -f lavfi -i "testsrc2=s=1280x720:r=30:d=6" -f lavfi -i "sine=f=$((200 * n + 100)):r=48000:d=6" \
        -vf "hue=h=$((120 * n))" -c:v libx264 -preset veryfast -crf 18 -g 30 -pix_fmt yuv420p -c:a aac "$work/layers-$n.mov"
done
[ -f "$work/layers-third.mov" ] || ff -f lavfi -i "testsrc=s=1280x720:r=30:d=3" \
    -vf "format=yuva444p,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='if(gt(Y,H*2/3),255,0)'" \
    -c:v prores_ks -profile:v 4444 -pix_fmt yuva444p10le "$work/layers-third.mov"
[ -f "$work/layers-music.m4a" ] || ff -f lavfi -i "sine=f=2500:r=48000:d=12" -c:a aac "$work/layers-music.m4a"
python3 - "$work" <<'PY'
import sys, opentimelineio as otio
work = sys.argv[1]
T = lambda v: otio.opentime.RationalTime(v, 30)
R = lambda s, d: otio.opentime.TimeRange(T(s), T(d))
clip = lambda name, path, start, frames: otio.schema.Clip(name=name, media_reference=otio.schema.ExternalReference(target_url=path),
                                                        source_range=R(start, frames))
tl = otio.schema.Timeline(name="layers-bench")
v1, v2, a1 = otio.schema.Track(name="V1", kind="Video"), otio.schema.Track(name="V2", kind="Video"), otio.schema.Track(name="A1", kind="Audio")
tl.tracks.extend([v1, v2, a1])
v1.extend([clip("clip1", f"{work}/layers-1.mov", 30, 120),
           otio.schema.Transition(transition_type="SMPTE_Dissolve", in_offset=T(8), out_offset=T(7)),
           clip("clip2", f"{work}/layers-2.mov", 30, 120), otio.schema.Gap(source_range=R(0, 30)),
           clip("clip3", f"{work}/layers-3.mov", 30, 90)])
v2.extend([otio.schema.Gap(source_range=R(0, 135)), clip("third", f"{work}/layers-third.mov", 0, 90)])
a1.append(clip("music", f"{work}/layers-music.m4a", 0, 360))
otio.adapters.write_to_file(tl, f"{work}/layers.otio")
otio.adapters.write_to_file(tl, f"{work}/layers.mlt", adapter_name="mlt_xml")
PY

smart_cmd=("$bin" render "$work/layers.otio" -o "$work/mixwrite-layers.mp4" -y -q --preset veryfast --crf 20)
off_cmd=("$bin" render "$work/layers.otio" -o "$work/mixwrite-layers-off.mp4" -y -q --preset veryfast --crf 20 --smart off)
melt_cmd=(melt -quiet -profile atsc_720p_30 "$work/layers.mlt" -consumer "avformat:$work/melt-layers.mp4" vcodec=libx264 preset=veryfast crf=20 acodec=aac)
: > "$work/layers-runs.txt"
for i in $(seq "$rounds"); do
    echo "smart    $(measure "${smart_cmd[@]}")" | tee -a "$work/layers-runs.txt"
    echo "off      $(measure "${off_cmd[@]}")" | tee -a "$work/layers-runs.txt"
    echo "melt     $(measure "${melt_cmd[@]}")" | tee -a "$work/layers-runs.txt"
done
summarize "$work/layers-runs.txt" melt smart off
"$bin" render "$work/layers.otio" -o "$work/mixwrite-layers.mp4" -y --json --progress none --preset veryfast --crf 20 | python3 -c '
import json, sys
v = json.load(sys.stdin)["video"]
copied, spans, encoded = v.get("copiedFrames", 0), v.get("copiedSpans"), v.get("encodedSpans")
print(f"smart: {copied} of 360 frames copied; copied {spans}, encoded {encoded}")'
ffmpeg -v error -xerror -i "$work/mixwrite-layers.mp4" -f null - && echo "smart: decodes with -xerror, clean"
ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames,width,height -of csv=p=0 "$work/melt-layers.mp4" \
    | sed 's/^/melt: width,height,frames /'
ffmpeg -nostdin -v error -i "$work/mixwrite-layers.mp4" -i "$work/mixwrite-layers-off.mp4" \
    -lavfi "[0:v]format=gray[a];[1:v]format=gray[b];[a][b]psnr=stats_file=$work/layers-psnr.txt" -f null -
python3 - "$work/layers-psnr.txt" <<'PY'
import sys
y = [float(field.split(":")[1]) for line in open(sys.argv[1]) for field in line.split() if field.startswith("psnr_y:")]
print(f"{len(y)} frames; luma PSNR smart against --smart off: worst frame {min(y):.2f} dB (a copied frame is the clip's own, not --smart off's)")
PY
