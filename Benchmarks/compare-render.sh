#!/usr/bin/env bash
# render beside melt and the ffmpeg CLI, in turn, in one run, on the same OpenTimelineIO timeline: three 1080p30 clips
# of 6 s, each with two audio tracks (a tone each), used from their 1 s for 4 s and joined by two 1 s dissolves
# (0.5 s each side of the cut, over the clips' handles), over a music file on an audio track. melt renders the same
# .otio converted by OTIO's mlt_xml adapter (pip install otio-mlt-adapter; Debian's melt); the CLI does the same cut
# with trim, xfade, amix and acrossfade (linear, as an OTIO dissolve). H.264 libx264 veryfast crf 20 + AAC for all.
# Prints each run, the medians and the ratios over melt's and the CLI's, then once: the luma PSNR of mixwrite's render
# against the CLI's, and which of the seven tones (two a clip, the music's) each output kept.
# Then the same timeline over the same clips written with a keyframe every second (closed GOPs, as cameras and phones
# write them: render-gop-N.mov), where mixwrite's smart rendering (`--smart auto`, the default) copies the GOPs no
# dissolve touches: mixwrite, mixwrite --smart off and melt, in turn; the ratios and the frames copied.
# Usage: Benchmarks/compare-render.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"
need_melt
work=$(cd "$work" && pwd)

for n in 1 2 3; do
    for kind in "" gop-; do
        if [ ! -f "$work/render-$kind$n.mov" ]; then
            echo "making the inputs in $work" >&2
            gop=(); [ -n "$kind" ] && gop=(-g 30)
            ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=6" -f lavfi -i "sine=f=$((200 * n + 100)):r=48000:d=6" \
               -f lavfi -i "sine=f=$((200 * n + 1100)):r=48000:d=6" -vf "hue=h=$((120 * n))" -map 0:v -map 1:a -map 2:a \
               -c:v libx264 -preset veryfast -crf 18 "${gop[@]}" -pix_fmt yuv420p -c:a aac "$work/render-$kind$n.mov"
        fi
    done
done
[ -f "$work/render-music.m4a" ] || ff -f lavfi -i "sine=f=2500:r=48000:d=12" -c:a aac "$work/render-music.m4a"
python3 - "$work" <<'PY'
import sys, opentimelineio as otio
work = sys.argv[1]
T = lambda v: otio.opentime.RationalTime(v, 30)
R = lambda s, d: otio.opentime.TimeRange(T(s), T(d))
for kind, suffix in (("", ""), ("gop-", "-gop")):
    tl = otio.schema.Timeline(name="render-bench")
    v, a = otio.schema.Track(name="V1", kind="Video"), otio.schema.Track(name="A1", kind="Audio")
    tl.tracks.extend([v, a])
    for n in (1, 2, 3):
        if n > 1: v.append(otio.schema.Transition(transition_type="SMPTE_Dissolve", in_offset=T(15), out_offset=T(15)))
        v.append(otio.schema.Clip(name=f"clip{n}", media_reference=otio.schema.ExternalReference(target_url=f"{work}/render-{kind}{n}.mov"),
                                  source_range=R(30, 120)))
    a.append(otio.schema.Clip(name="music", media_reference=otio.schema.ExternalReference(target_url=f"{work}/render-music.m4a"),
                              source_range=R(0, 360)))
    otio.adapters.write_to_file(tl, f"{work}/render{suffix}.otio")
    otio.adapters.write_to_file(tl, f"{work}/render{suffix}.mlt", adapter_name="mlt_xml")
PY

# The CLI's graph: pieces of 4.5, 5 and 4.5 s (each clip's 4 s and the handles its dissolves use), crossed at 3.5 s and
# 7.5 s; each clip's two tracks summed, crossed the same way; the music under it all.
clips=("$work/render-1.mov" "$work/render-2.mov" "$work/render-3.mov")
graph="[0:v]trim=start=1:end=5.5,setpts=PTS-STARTPTS[v0];[1:v]trim=start=0.5:end=5.5,setpts=PTS-STARTPTS[v1];[2:v]trim=start=0.5:end=5,setpts=PTS-STARTPTS[v2];"
graph+="[v0][v1]xfade=transition=fade:duration=1:offset=3.5[vx];[vx][v2]xfade=transition=fade:duration=1:offset=7.5[v];"
graph+="[0:a:0][0:a:1]amix=inputs=2:normalize=0,atrim=start=1:end=5.5,asetpts=PTS-STARTPTS[a0];"
graph+="[1:a:0][1:a:1]amix=inputs=2:normalize=0,atrim=start=0.5:end=5.5,asetpts=PTS-STARTPTS[a1];"
graph+="[2:a:0][2:a:1]amix=inputs=2:normalize=0,atrim=start=0.5:end=5,asetpts=PTS-STARTPTS[a2];"
graph+="[a0][a1]acrossfade=d=1:c1=tri:c2=tri[ax];[ax][a2]acrossfade=d=1:c1=tri:c2=tri[ay];[ay][3:a]amix=inputs=2:duration=first:normalize=0[a]"

mixwrite_cmd=("$bin" render "$work/render.otio" -o "$work/mixwrite-render.mp4" -y -q)
melt_cmd=(melt -quiet -profile atsc_1080p_30 "$work/render.mlt" -consumer "avformat:$work/melt-render.mp4" vcodec=libx264 preset=veryfast crf=20 acodec=aac)
ffmpeg_cmd=(ffmpeg -nostdin -loglevel error -y -i "${clips[0]}" -i "${clips[1]}" -i "${clips[2]}" -i "$work/render-music.m4a"
    -filter_complex "$graph" -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -crf 20 -c:a aac -b:a 192k "$work/ffmpeg-render.mp4")

: > "$work/render-runs.txt"
# The floor: x264 alone encoding the render's 360 frames at the same settings (veryfast, crf 20), read raw from a file
# (mixwrite's output decoded once, beforehand): no decoding, no dissolves, no sound.
raw="$work/render-frames.yuv"
"${mixwrite_cmd[@]}" && x264_floor "$work/mixwrite-render.mp4" "$raw" "$work/x264-alone.mp4"
for i in $(seq "$rounds"); do
    echo "mixwrite $(measure "${mixwrite_cmd[@]}")" | tee -a "$work/render-runs.txt"
    echo "melt     $(measure "${melt_cmd[@]}")" | tee -a "$work/render-runs.txt"
    echo "ffmpeg   $(measure "${ffmpeg_cmd[@]}")" | tee -a "$work/render-runs.txt"
    echo "x264     $(measure "${x264_cmd[@]}")" | tee -a "$work/render-runs.txt"
done
rm -f "$raw"
summarize "$work/render-runs.txt" melt mixwrite ffmpeg x264
summarize "$work/render-runs.txt" ffmpeg mixwrite | tail -1

# The clips with a keyframe every second: what smart rendering copies, against everything encoded and melt.
smart_cmd=("$bin" render "$work/render-gop.otio" -o "$work/mixwrite-render-gop.mp4" -y -q)
off_cmd=("$bin" render "$work/render-gop.otio" -o "$work/mixwrite-render-gop-off.mp4" -y -q --smart off)
melt_gop_cmd=(melt -quiet -profile atsc_1080p_30 "$work/render-gop.mlt" -consumer "avformat:$work/melt-render-gop.mp4" vcodec=libx264 preset=veryfast crf=20 acodec=aac)
: > "$work/render-gop-runs.txt"
for i in $(seq "$rounds"); do
    echo "smart    $(measure "${smart_cmd[@]}")" | tee -a "$work/render-gop-runs.txt"
    echo "off      $(measure "${off_cmd[@]}")" | tee -a "$work/render-gop-runs.txt"
    echo "melt     $(measure "${melt_gop_cmd[@]}")" | tee -a "$work/render-gop-runs.txt"
done
summarize "$work/render-gop-runs.txt" melt smart off
"$bin" render "$work/render-gop.otio" -o "$work/mixwrite-render-gop.mp4" -y --json --progress none | python3 -c '
import json, sys
v = json.load(sys.stdin)["video"]
copied, spans, encoded = v.get("copiedFrames", 0), v.get("copiedSpans"), v.get("encodedSpans")
print(f"smart: {copied} of 360 frames copied; copied {spans}, encoded {encoded}")'
ffmpeg -v error -xerror -i "$work/mixwrite-render-gop.mp4" -f null - && echo "smart: decodes with -xerror, clean"

python3 - "$work" <<'PY'
import subprocess, sys
import numpy as np
work = sys.argv[1]
def luma(path):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "rawvideo",
                          "-pix_fmt", "gray", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, 1080, 1920).astype(np.float64)
def sound(path):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-ac", "1", "-ar", "48000", "-f", "f32le", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.float32)
def level(x, hz):
    t = np.arange(len(x)) / 48000
    return 20 * np.log10(abs((x * np.exp(-2j * np.pi * hz * t)).sum()) * 2 / len(x) + 1e-12)
outputs = {k: f"{work}/{k}-render.mp4" for k in ("mixwrite", "melt", "ffmpeg")}
m, f = luma(outputs["mixwrite"]), luma(outputs["ffmpeg"])
n = min(len(m), len(f))
mse = ((m[:n] - f[:n]) ** 2).mean(axis=(1, 2))
psnr = 10 * np.log10(255 ** 2 / np.maximum(mse, 1e-10))
print(f"frames: mixwrite {len(m)}, ffmpeg {len(f)}, melt {len(luma(outputs['melt']))} (OTIO: 360)")
print(f"luma PSNR mixwrite against the CLI: mean {psnr.mean():.2f} dB, worst frame {psnr.min():.2f} dB")
tones = {"clip1 a:0": 300, "clip1 a:1": 1300, "clip2 a:0": 500, "clip2 a:1": 1500, "clip3 a:0": 700, "clip3 a:1": 1700, "music": 2500}
windows = {"clip1": (0.5, 3.0), "clip2": (4.5, 7.0), "clip3": (8.5, 11.5), "music": (0.5, 11.5)}
for k, path in outputs.items():
    s = sound(path)
    kept = [name for name, hz in tones.items()
            if level(s[int(windows[name.split()[0]][0] * 48000):int(windows[name.split()[0]][1] * 48000)], hz) > -40]
    print(f"{k:9s} kept {len(kept)} of 7 tones: {', '.join(kept)}")
PY
# Luma PSNR of the smart render against --smart off's (ffmpeg's psnr filter, frame by frame: the arrays above would
# not fit beside these).
ffmpeg -nostdin -v error -i "$work/mixwrite-render-gop.mp4" -i "$work/mixwrite-render-gop-off.mp4" \
    -lavfi "[0:v]format=gray[a];[1:v]format=gray[b];[a][b]psnr=stats_file=$work/render-gop-psnr.txt" -f null -
python3 - "$work/render-gop-psnr.txt" <<'PY'
import sys
y = [float(field.split(":")[1]) for line in open(sys.argv[1]) for field in line.split() if field.startswith("psnr_y:")]
print(f"1 s GOPs: {len(y)} frames; luma PSNR smart against --smart off: mean {sum(y) / len(y):.2f} dB, worst frame {min(y):.2f} dB")
PY
