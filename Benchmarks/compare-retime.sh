#!/usr/bin/env bash
# Speed changes: render beside the ffmpeg CLI, in turn, in one run, on one OpenTimelineIO timeline of three 1080p30
# clips (6 s each, a keyframe a second, a tone and a click a second on their sound): the first at 2× (its 0.5–4.5 s in
# 2 s), the second at 0.5× (its 1–3 s in 4 s), the third reversed (its 1–5 s backwards in 4 s). The CLI does the same
# with trim, setpts and fps, reverse, atempo and areverse (the CLI's own way; mixwrite keeps the pitch with rubberband);
# H.264 libx264 veryfast crf 20 + AAC for both. Prints each run, the medians and the ratios over the CLI's (and x264
# alone encoding the same frames: the floor), and once the luma PSNR of mixwrite's frames against the CLI's.
# Then a reversed 60 s 1080p30 clip, alone on a timeline, against the CLI's reverse and areverse filters (which hold
# the whole clip): peak memory of each, once. Then a clip at 0.5× with --interpolate blend against the CLI's
# minterpolate blend.
# Usage: Benchmarks/compare-retime.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"
work=$(cd "$work" && pwd)

click="0.3*sin(2*PI*440*t)+if(lt(mod(t\\,1)\\,0.004)\\,0.9*sin(2*PI*3000*t)\\,0)"
for n in 1 2 3; do
    [ -f "$work/retime-$n.mov" ] && continue
    echo "making the inputs in $work" >&2
    ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=6" -f lavfi -i "aevalsrc=exprs='$click|$click':s=48000:d=6" -vf "hue=h=$((120 * n))" \
       -c:v libx264 -preset veryfast -crf 18 -g 30 -pix_fmt yuv420p -c:a aac "$work/retime-$n.mov"
done
[ -f "$work/retime-long.mov" ] || ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=60" -f lavfi -i "aevalsrc=exprs='$click|$click':s=48000:d=60" \
    -c:v libx264 -preset veryfast -crf 20 -g 30 -pix_fmt yuv420p -c:a aac "$work/retime-long.mov"
python3 - "$work" <<'PY'
import sys, opentimelineio as otio
work = sys.argv[1]
T = lambda v: otio.opentime.RationalTime(v, 30)
R = lambda s, d: otio.opentime.TimeRange(T(s), T(d))
def clip(n, start, frames, scalar, path=None):
    c = otio.schema.Clip(name=f"clip{n}", media_reference=otio.schema.ExternalReference(target_url=path or f"{work}/retime-{n}.mov"),
                         source_range=R(start, frames))
    c.effects.append(otio.schema.LinearTimeWarp(time_scalar=scalar))
    return c
tl = otio.schema.Timeline(name="retime-bench")
v = otio.schema.Track(name="V1", kind="Video")
tl.tracks.append(v)
v.extend([clip(1, 15, 60, 2.0), clip(2, 30, 120, 0.5), clip(3, 30, 120, -1.0)])
otio.adapters.write_to_file(tl, f"{work}/retime.otio")
long = otio.schema.Timeline(name="reversed")
lv = otio.schema.Track(name="V1", kind="Video")
long.tracks.append(lv)
lv.append(clip(0, 0, 1800, -1.0, path=f"{work}/retime-long.mov"))
otio.adapters.write_to_file(long, f"{work}/retime-long.otio")
PY

graph="[0:v]trim=start=0.5:end=4.5,setpts=(PTS-STARTPTS)/2,fps=30[v0];[1:v]trim=start=1:end=3,setpts=(PTS-STARTPTS)*2,fps=30[v1];"
graph+="[2:v]trim=start=1:end=5,setpts=PTS-STARTPTS,reverse[v2];"
graph+="[0:a]atrim=start=0.5:end=4.5,asetpts=PTS-STARTPTS,atempo=2[a0];[1:a]atrim=start=1:end=3,asetpts=PTS-STARTPTS,atempo=0.5[a1];"
graph+="[2:a]atrim=start=1:end=5,asetpts=PTS-STARTPTS,areverse[a2];[v0][a0][v1][a1][v2][a2]concat=n=3:v=1:a=1[v][a]"
mixwrite_cmd=("$bin" render "$work/retime.otio" -o "$work/mixwrite-retime.mp4" -y -q --preset veryfast --crf 20)
ffmpeg_cmd=(ffmpeg -nostdin -loglevel error -y -i "$work/retime-1.mov" -i "$work/retime-2.mov" -i "$work/retime-3.mov"
    -filter_complex "$graph" -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p -c:a aac -b:a 192k
    "$work/ffmpeg-retime.mp4")

: > "$work/retime-runs.txt"
# The floor: x264 alone encoding the 300 frames at the same settings, read raw from a file (mixwrite's output decoded
# once, beforehand): no decoding, no retiming, no sound.
raw="$work/retime-frames.yuv"
"${mixwrite_cmd[@]}" && x264_floor "$work/mixwrite-retime.mp4" "$raw" "$work/x264-retime.mp4"
for i in $(seq "$rounds"); do
    echo "mixwrite $(measure "${mixwrite_cmd[@]}")" | tee -a "$work/retime-runs.txt"
    echo "ffmpeg   $(measure "${ffmpeg_cmd[@]}")" | tee -a "$work/retime-runs.txt"
    echo "x264     $(measure "${x264_cmd[@]}")" | tee -a "$work/retime-runs.txt"
done
rm -f "$raw"
summarize "$work/retime-runs.txt" ffmpeg mixwrite x264
ff -i "$work/mixwrite-retime.mp4" -i "$work/ffmpeg-retime.mp4" -lavfi "[0:v]format=gray[a];[1:v]format=gray[b];[a][b]psnr=stats_file=$work/retime-psnr.txt" -f null -
python3 - "$work/retime-psnr.txt" <<'PY'
import sys
values = [float(l.split("psnr_avg:")[1].split()[0]) for l in open(sys.argv[1]) if "psnr_avg:" in l]
print(f"luma PSNR of mixwrite's frames against the CLI's: worst {min(values):.1f} dB, median {sorted(values)[len(values) // 2]:.1f} dB over {len(values)} frames")
PY

echo "a reversed 60 s 1080p30 clip: wall s, CPU s, peak MB"
echo "mixwrite $(measure "$bin" render "$work/retime-long.otio" -o "$work/mixwrite-reversed.mp4" -y -q --preset veryfast --crf 20)"
echo "ffmpeg   $(measure ffmpeg -nostdin -loglevel error -y -i "$work/retime-long.mov" -vf reverse -af areverse -c:v libx264 -preset veryfast -crf 20 -c:a aac "$work/ffmpeg-reversed.mp4")"

# Frames between frames: one 6 s clip at 0.5× with --interpolate blend against the CLI's setpts and minterpolate's
# blend at the same rate, in turn; then their frames' luma PSNR.
echo "--interpolate blend, a 6 s 1080p30 clip at 0.5×: wall s, CPU s, peak MB"
blend_mixwrite=("$bin" concat "$work/retime-2.mov:speed=0.5" --interpolate blend -o "$work/mixwrite-blend.mp4" -y -q --preset veryfast --crf 20)
blend_ffmpeg=(ffmpeg -nostdin -loglevel error -y -i "$work/retime-2.mov" -vf "setpts=PTS/0.5,minterpolate=fps=30:mi_mode=blend"
    -af atempo=0.5 -c:v libx264 -preset veryfast -crf 20 -pix_fmt yuv420p -c:a aac "$work/ffmpeg-blend.mp4")
: > "$work/blend-runs.txt"
for i in $(seq "$rounds"); do
    echo "mixwrite $(measure "${blend_mixwrite[@]}")" | tee -a "$work/blend-runs.txt"
    echo "ffmpeg   $(measure "${blend_ffmpeg[@]}")" | tee -a "$work/blend-runs.txt"
done
summarize "$work/blend-runs.txt" ffmpeg mixwrite
ff -i "$work/mixwrite-blend.mp4" -i "$work/ffmpeg-blend.mp4" -lavfi "[0:v]format=gray[a];[1:v]format=gray[b];[a][b]psnr=stats_file=$work/blend-psnr.txt" -f null -
python3 - "$work/blend-psnr.txt" <<'PY'
import sys
values = [float(l.split("psnr_avg:")[1].split()[0]) for l in open(sys.argv[1]) if "psnr_avg:" in l]
print(f"luma PSNR of mixwrite's blended frames against the CLI's: worst {min(values):.1f} dB over {len(values)} frames")
PY
