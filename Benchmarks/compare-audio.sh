#!/usr/bin/env bash
# The audio side by side with the ffmpeg CLI, in turn, in one run:
#  1. mix: 8 stereo 48 kHz sources of 10 minutes, mixed and AAC-encoded (mixwrite remix … --audio …, sound only)
#     against ffmpeg -filter_complex amix with every stream mapped;
#  2. mix-aac: the same 8 sources as AAC files (128 kb/s), as real sources mostly are;
#  3. remix: a 10-minute 1080p movie with 3 audio tracks, video copied, tracks mixed to one AAC track;
#  4. still: Fixtures/base.mov's first picture with 60 s of AAC (mixwrite alone; the goal is ≤ 3 s).
# Prints each run, the medians, x real time and the ratio (mixwrite / ffmpeg).
# Usage: Benchmarks/compare-audio.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"
minutes=10
secs=$((minutes * 60))

for i in 1 2 3 4 5 6 7 8; do
    f="$work/src$i.wav"
    [ -f "$f" ] || ff -f lavfi -i "sine=f=$((200 + 110 * i)):r=48000:d=$secs" -f lavfi -i "anoisesrc=c=pink:r=48000:a=0.05:d=$secs" \
        -filter_complex "[0:a][1:a]amix=inputs=2:normalize=0,volume=0.3,aformat=channel_layouts=stereo" -c:a pcm_s16le "$f"
done
for i in 1 2 3 4 5 6 7 8; do
    [ -f "$work/src$i.m4a" ] || ff -i "$work/src$i.wav" -c:a aac -b:a 128k "$work/src$i.m4a"
done
[ -f "$work/still60.m4a" ] || ff -i "$work/src1.wav" -t 60 -c:a aac -b:a 128k "$work/still60.m4a"
movie="$work/movie10min.mkv"
[ -f "$movie" ] || ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=$secs" \
    -i "$work/src1.wav" -i "$work/src2.wav" -i "$work/src3.wav" -map 0:v -map 1:a -map 2:a -map 3:a \
    -c:v libx264 -preset ultrafast -crf 30 -g 300 -c:a aac -b:a 128k "$movie"

mix_mw=("$bin" remix "$work/src1.wav")
mix_ff=(ffmpeg -nostdin -loglevel error -y)
aac_mw=("$bin" remix "$work/src1.m4a")
aac_ff=(ffmpeg -nostdin -loglevel error -y)
graph=""
for i in 1 2 3 4 5 6 7 8; do
    [ "$i" -gt 1 ] && mix_mw+=(--audio "$work/src$i.wav") && aac_mw+=(--audio "$work/src$i.m4a")
    mix_ff+=(-i "$work/src$i.wav")
    aac_ff+=(-i "$work/src$i.m4a")
    graph+="[$((i - 1)):a]"
done
mix_mw+=(-o "$work/mix-mixwrite.m4a" -y -q)
mix_ff+=(-filter_complex "${graph}amix=inputs=8[a]" -map "[a]" -c:a aac -b:a 192k "$work/mix-ffmpeg.m4a")
aac_mw+=(-o "$work/mixaac-mixwrite.m4a" -y -q)
aac_ff+=(-filter_complex "${graph}amix=inputs=8[a]" -map "[a]" -c:a aac -b:a 192k "$work/mixaac-ffmpeg.m4a")
still_mw=("$bin" still "$(dirname "$0")/../Fixtures/base.mov" "$work/still60.m4a" -o "$work/still-mixwrite.mp4" -y -q)
remix_mw=("$bin" remix "$movie" -o "$work/remix-mixwrite.mkv" -y -q)
remix_ff=(ffmpeg -nostdin -loglevel error -y -i "$movie" -filter_complex "[0:a:0][0:a:1][0:a:2]amix=inputs=3[a]"
    -map 0:v -map "[a]" -c:v copy -c:a aac -b:a 192k "$work/remix-ffmpeg.mkv")

runs="$work/audio-runs.txt"
: > "$runs"
for i in $(seq "$rounds"); do
    echo "mix-mixwrite   $(measure "${mix_mw[@]}")" | tee -a "$runs"
    echo "mix-ffmpeg     $(measure "${mix_ff[@]}")" | tee -a "$runs"
    echo "mixaac-mixwrite $(measure "${aac_mw[@]}")" | tee -a "$runs"
    echo "mixaac-ffmpeg  $(measure "${aac_ff[@]}")" | tee -a "$runs"
    echo "still-mixwrite $(measure "${still_mw[@]}")" | tee -a "$runs"
    echo "remix-mixwrite $(measure "${remix_mw[@]}")" | tee -a "$runs"
    echo "remix-ffmpeg   $(measure "${remix_ff[@]}")" | tee -a "$runs"
done
python3 - "$runs" "$secs" <<'PY'
import statistics, sys
runs, secs = {}, float(sys.argv[2])
for line in open(sys.argv[1]):
    name, wall, cpu, mem = line.split()
    runs.setdefault(name, []).append((float(wall), float(cpu), float(mem)))
med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in runs.items()}
for k, (wall, cpu, mem) in med.items():
    print(f"{k:16s} median wall {wall:6.2f} s   {secs / wall:6.1f}x real time   cpu/wall {cpu / wall:4.2f}   peak {mem:5.0f} MB")
for job in ("mix", "mixaac", "remix"):
    print(f"{job}: ratio mixwrite/ffmpeg (median wall) {med[job + '-mixwrite'][0] / med[job + '-ffmpeg'][0]:.3f}")
print(f"mixwrite, AAC sources against WAV sources (median wall): {med['mixaac-mixwrite'][0] / med['mix-mixwrite'][0]:.2f} (goal <= 1.2)")
print("still (60 s AAC; the x real time above counts 10 minutes, read it as seconds):", med['still-mixwrite'][0], "s (goal <= 3 s)")
PY
