#!/usr/bin/env bash
# Smart rendering (issue 49): one 720p layer (a green-screen clip, keyed, placed) over a 1080p30 H.264 base with a
# keyframe every 2 s, at 20–24 s. mixwrite as it is (`--smart auto`: base's GOPs the layer does not touch copied),
# mixwrite `--smart off` (every frame encoded) and the ffmpeg CLI's chromakey + overlay + amix of the same job, in
# turn, in one run: x264 veryfast crf 20 + AAC for all; and mixwrite `--trust-copies` (the copied GOPs not decoded
# first: `trusted`, `long-trusted`). Then the same layer over a base 10 times as long (10 minutes),
# smart (`long`); and both bases and the layer without their sound (`short-video`, `long-video`: the video alone, whose
# time is nearly flat in the base's length, copying being I/O; the sound is mixed and encoded in full, and is what a
# longer base costs). Prints each run, the medians, the ratios,
# and once: the copied frames' md5 against base's (the first and last 600 frames), the encoded span's luma PSNR
# against --smart off's, and whether each output decodes with no error.
# Usage: Benchmarks/compare-smart.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"

for minutes in 1 10; do
    f="$work/smart-base-$minutes.mp4"
    if [ ! -f "$f" ]; then
        echo "making $f" >&2
        ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=$((minutes * 60))" -f lavfi -i "sine=f=440:r=48000:d=$((minutes * 60))" \
           -c:v libx264 -preset veryfast -crf 18 -g 60 -pix_fmt yuv420p -c:a aac "$f"
    fi
done
layer="$work/smart-layer.mov"
[ -f "$layer" ] || ff -f lavfi -i "testsrc2=s=1280x720:r=30:d=4,drawbox=x=0:y=0:w=1280:h=160:c=0x00FF00:t=fill" \
    -f lavfi -i "sine=f=1000:r=48000:d=4" -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -c:a aac "$layer"

base="$work/smart-base-1.mp4"
place=(--at 20 --out 4 --place 320,180,1280,720)
smart_cmd=("$bin" "$layer" "$base" -o "$work/smart-auto.mp4" -y -q "${place[@]}")
off_cmd=("$bin" "$layer" "$base" -o "$work/smart-off.mp4" -y -q --smart off "${place[@]}")
long_cmd=("$bin" "$layer" "$work/smart-base-10.mp4" -o "$work/smart-long.mp4" -y -q "${place[@]}")
trusted_cmd=("$bin" "$layer" "$base" -o "$work/smart-trusted.mp4" -y -q --trust-copies "${place[@]}")
long_trusted_cmd=("$bin" "$layer" "$work/smart-base-10.mp4" -o "$work/smart-long-trusted.mp4" -y -q --trust-copies "${place[@]}")
for f in smart-base-1 smart-base-10 smart-layer; do
    ext=mp4; [ "$f" = smart-layer ] && ext=mov
    [ -f "$work/$f-video.$ext" ] || ff -i "$work/$f.$ext" -an -c copy "$work/$f-video.$ext"
done
short_video_cmd=("$bin" "$work/smart-layer-video.mov" "$work/smart-base-1-video.mp4" -o "$work/smart-short-video.mp4" -y -q "${place[@]}")
long_video_cmd=("$bin" "$work/smart-layer-video.mov" "$work/smart-base-10-video.mp4" -o "$work/smart-long-video.mp4" -y -q "${place[@]}")
graph="[1:v]chromakey=0x00FF00:0.3:0.1,setpts=PTS+20/TB[k];[0:v][k]overlay=320:180:enable='between(t,20,24)'[v];"
graph+="[1:a]adelay=20000|20000[d];[0:a][d]amix=inputs=2:duration=first:normalize=0[a]"
ffmpeg_cmd=(ffmpeg -nostdin -loglevel error -y -i "$base" -i "$layer" -filter_complex "$graph" -map "[v]" -map "[a]"
    -c:v libx264 -preset veryfast -crf 20 -c:a aac "$work/smart-ffmpeg.mp4")

: > "$work/smart-runs.txt"
for i in $(seq "$rounds"); do
    echo "smart    $(measure "${smart_cmd[@]}")" | tee -a "$work/smart-runs.txt"
    echo "off      $(measure "${off_cmd[@]}")" | tee -a "$work/smart-runs.txt"
    echo "ffmpeg   $(measure "${ffmpeg_cmd[@]}")" | tee -a "$work/smart-runs.txt"
    echo "long     $(measure "${long_cmd[@]}")" | tee -a "$work/smart-runs.txt"
    echo "trusted  $(measure "${trusted_cmd[@]}")" | tee -a "$work/smart-runs.txt"
    echo "long-trusted $(measure "${long_trusted_cmd[@]}")" | tee -a "$work/smart-runs.txt"
    echo "short-video $(measure "${short_video_cmd[@]}")" | tee -a "$work/smart-runs.txt"
    echo "long-video  $(measure "${long_video_cmd[@]}")" | tee -a "$work/smart-runs.txt"
done
summarize "$work/smart-runs.txt" off smart
summarize "$work/smart-runs.txt" ffmpeg smart | tail -1
summarize "$work/smart-runs.txt" smart long | tail -1
summarize "$work/smart-runs.txt" short-video long-video | tail -1
summarize "$work/smart-runs.txt" trusted smart | tail -1
summarize "$work/smart-runs.txt" ffmpeg trusted | tail -1
summarize "$work/smart-runs.txt" long-trusted long | tail -1

"$bin" "$layer" "$base" -o "$work/smart-auto.mp4" -y -q --json "${place[@]}" | python3 -c '
import json, sys
v = json.load(sys.stdin)["video"]
print("copied", v["copiedFrames"], "of", v["frames"], "frames; copied", v["copiedSpans"], "encoded", v["encodedSpans"])'
smart_proof "$work/smart-auto.mp4" "$work/smart-base-1.mp4" "$work/smart-off.mp4" 20 24 "$work/smart-long.mp4" "$work/smart-ffmpeg.mp4"
