#!/usr/bin/env bash
# Three placed layers side by side with the ffmpeg CLI, in turn, in one run, on the same job: a 1080p30 base of 10 s
# (one audio track) and three 720p green-screen layers of 4 s (one track each) at 1 s, 3 s and 5 s, each halved into
# its own rectangle; H.264 libx264 veryfast crf 20 + AAC. The peer keys (chromakey), scales, delays (setpts) and lays
# each layer (overlay=x:y), and delays and mixes the sound (adelay + amix), in one filter graph.
# Prints each run, then the medians, the ratio (mixwrite / ffmpeg), CPU over wall, and peak memory.
# Usage: Benchmarks/compare-layers.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"

if [ ! -f "$work/layer720-1.mov" ] || [ ! -f "$work/base1080-layers.mov" ]; then
    echo "making the inputs in $work" >&2
    for n in 1 2 3; do
        ff -f lavfi -i "color=c=0x00FF00:s=1280x720:r=30:d=4" -f lavfi -i "testsrc2=s=400x300:r=30:d=4" \
           -f lavfi -i "sine=f=$((300 * n)):r=48000:d=4" \
           -filter_complex "[0:v][1:v]overlay=x='200+t*100*$n':y='150+80*sin(t)'[v]" \
           -map "[v]" -map 2:a -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -c:a aac "$work/layer720-$n.mov"
    done
    ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=10" -f lavfi -i "sine=f=660:r=48000:d=10" \
       -map 0:v -map 1:a -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -c:a aac "$work/base1080-layers.mov"
fi

mixwrite_cmd=("$bin" "$work/layer720-1.mov" "$work/base1080-layers.mov" -o "$work/mixwrite-layers.mov" -y -q
    --at 1 --place 0,0,960,540
    --layer "$work/layer720-2.mov:at=3:place=960,0,960,540"
    --layer "$work/layer720-3.mov:at=5:place=480,540,960,540")
ffmpeg_cmd=(ffmpeg -nostdin -loglevel error -y -i "$work/base1080-layers.mov" -i "$work/layer720-1.mov"
    -i "$work/layer720-2.mov" -i "$work/layer720-3.mov" -filter_complex
    "[1:v]chromakey=0x00FF00:0.1:0.05,scale=960:540,setpts=PTS-STARTPTS+1/TB[k1];[2:v]chromakey=0x00FF00:0.1:0.05,scale=960:540,setpts=PTS-STARTPTS+3/TB[k2];[3:v]chromakey=0x00FF00:0.1:0.05,scale=960:540,setpts=PTS-STARTPTS+5/TB[k3];[0:v][k1]overlay=0:0:eof_action=pass[o1];[o1][k2]overlay=960:0:eof_action=pass[o2];[o2][k3]overlay=480:540:eof_action=pass[v];[1:a]adelay=1000:all=1[a1];[2:a]adelay=3000:all=1[a2];[3:a]adelay=5000:all=1[a3];[0:a][a1][a2][a3]amix=inputs=4:duration=first[a]"
    -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -crf 20 -c:a aac -b:a 192k "$work/ffmpeg-layers.mov")
# What decoding the four inputs and encoding the output alone cost (the floor under both).
floor_cmd=(ffmpeg -nostdin -loglevel error -y -i "$work/base1080-layers.mov" -i "$work/layer720-1.mov"
    -i "$work/layer720-2.mov" -i "$work/layer720-3.mov" -map 0:v -map 1:v -map 2:v -map 3:v -f null -
    -map 0:v -c:v libx264 -preset veryfast -crf 20 "$work/floor-layers.mov")

: > "$work/layers-runs.txt"
for i in $(seq "$rounds"); do
    echo "mixwrite $(measure "${mixwrite_cmd[@]}")" | tee -a "$work/layers-runs.txt"
    echo "ffmpeg   $(measure "${ffmpeg_cmd[@]}")" | tee -a "$work/layers-runs.txt"
    echo "floor    $(measure "${floor_cmd[@]}")" | tee -a "$work/layers-runs.txt"
done
summarize "$work/layers-runs.txt" ffmpeg mixwrite floor
