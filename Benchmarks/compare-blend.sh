#!/usr/bin/env bash
# The blend side by side with the ffmpeg CLI, in turn, in one run, on the same job:
# 1080p30, 10 s; fx a green screen with two audio tracks, base with one; H.264 libx264 veryfast crf 20 + AAC.
# The peer does the same with chromakey + overlay + amix in one filter graph.
# Prints each run, then the medians, the ratio (mixwrite / ffmpeg), CPU over wall, and peak memory.
# Usage: Benchmarks/compare-blend.sh [ROUNDS]   (default 3)
# MIXWRITE_FINE=1: also the same blend with --keyer fine --key-color auto, and with a clean plate (--clean-plate, fx's
# screen alone filmed the same way), each round (their ratios to the default blend, of wall and of CPU time, are the
# fine keyer's cost).
# Each round starts one job later than the last, so every job takes each place in a round in turn: on a shared machine
# the first run of a round is slower than the same binary run second, which a fixed order puts on one job's median.
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"

if [ ! -f "$work/fx1080.mov" ] || [ ! -f "$work/base1080.mov" ]; then
    echo "making the 1080p inputs in $work" >&2
    ff -f lavfi -i "color=c=0x00FF00:s=1920x1080:r=30:d=10" -f lavfi -i "testsrc2=s=640x480:r=30:d=10" \
       -f lavfi -i "sine=f=440:r=44100:d=10" -f lavfi -i "sine=f=1000:r=48000:d=10" \
       -filter_complex "[0:v][1:v]overlay=x='100+t*100':y='200+100*sin(t)'[v]" \
       -map "[v]" -map 2:a -map 3:a -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -c:a aac "$work/fx1080.mov"
    ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=10" -f lavfi -i "sine=f=660:r=48000:d=10" \
       -map 0:v -map 1:a -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -c:a aac "$work/base1080.mov"
fi

# The clean plate: the empty screen filmed as fx was (the same colour through the same encoder), one second.
[ -f "$work/plate1080.mov" ] || ff -f lavfi -i "color=c=0x00FF00:s=1920x1080:r=30:d=1" -c:v libx264 -preset veryfast -crf 18 \
    -pix_fmt yuv420p "$work/plate1080.mov"
mixwrite_cmd=("$bin" "$work/fx1080.mov" "$work/base1080.mov" -o "$work/mixwrite.mov" -y -q)
ffmpeg_cmd=(ffmpeg -nostdin -loglevel error -y -i "$work/fx1080.mov" -i "$work/base1080.mov" -filter_complex
    "[0:v]chromakey=0x00FF00:0.1:0.05[k];[1:v][k]overlay[v];[0:a:0][0:a:1][1:a:0]amix=inputs=3[a]"
    -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -crf 20 -c:a aac -b:a 192k "$work/ffmpeg.mov")


: > "$work/blend-runs.txt"
# MIXWRITE_BASELINE=path: another build (say the previous commit's) in the same rounds, for before and after.
jobs=(mixwrite)
[ -n "${MIXWRITE_BASELINE:-}" ] && jobs=(baseline "${jobs[@]}")
[ -n "${MIXWRITE_FINE:-}" ] && jobs+=(fine plate)
jobs+=(ffmpeg)
run_job() {
    case "$1" in
        baseline) measure "$MIXWRITE_BASELINE" "${mixwrite_cmd[@]:1}" ;;
        mixwrite) measure "${mixwrite_cmd[@]}" ;;
        fine) measure "${mixwrite_cmd[@]}" --keyer fine --key-color auto ;;
        plate) measure "${mixwrite_cmd[@]}" --keyer fine --key-color auto --clean-plate "$work/plate1080.mov" ;;
        ffmpeg) measure "${ffmpeg_cmd[@]}" ;;
    esac
}
for i in $(seq "$rounds"); do
    for k in $(seq 0 $((${#jobs[@]} - 1))); do
        job=${jobs[$(((k + i - 1) % ${#jobs[@]}))]}
        printf '%-8s %s\n' "$job" "$(run_job "$job")" | tee -a "$work/blend-runs.txt"
    done
done
summarize "$work/blend-runs.txt" ffmpeg baseline mixwrite fine plate
# The fine keyer's cost as CPU time too (user + system): the work done, which another load on a shared machine moves
# less than it moves wall time.
if [ -n "${MIXWRITE_FINE:-}" ]; then
    SUMMARIZE_CPU=1 summarize "$work/blend-runs.txt" mixwrite fine plate | grep '^ratio'
fi
