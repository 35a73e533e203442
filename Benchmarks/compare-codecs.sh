#!/usr/bin/env bash
# The blend in every codec, side by side with the ffmpeg CLI doing the same job with the same encoder settings (as
# mixwrite maps --crf 20 and --preset veryfast to each encoder, the same threads and lookahead), in turn, in one run:
# compare-blend.sh's 1080p30 fx and base, their first SECONDS. H.264, HEVC and ProRes HQ into .mov with AAC, AV1 into
# .mkv with AAC, VP9 into .webm with Opus. Prints each run, then each codec's medians and its ratio to the CLI's.
# Usage: Benchmarks/compare-codecs.sh [ROUNDS] [SECONDS]   (defaults 1 and 4)
set -euo pipefail
rounds="${1:-1}"
seconds="${2:-4}"
source "$(dirname "$0")/common.sh"

[ -f "$work/fx1080.mov" ] && [ -f "$work/base1080.mov" ] || { echo "run Benchmarks/compare-blend.sh first: it makes the inputs" >&2; exit 1; }
threads=$(nproc)
graph="[0:v]chromakey=0x00FF00:0.1:0.05[k];[1:v][k]overlay[v];[0:a:0][0:a:1][1:a:0]amix=inputs=3[a]"
peer() { # codec → the CLI's encoder options
    case "$1" in
        h264) echo "-c:v libx264 -preset veryfast -crf 20 -x264-params rc-lookahead=5 -threads $threads -c:a aac -b:a 192k" ;;
        hevc) echo "-c:v libx265 -preset veryfast -crf 25 -x265-params log-level=error:pools=$threads:rc-lookahead=5 -c:a aac -b:a 192k" ;;
        prores) echo "-c:v prores_ks -profile:v 3 -vendor apl0 -pix_fmt yuv422p10le -threads $threads -c:a aac -b:a 192k" ;;
        av1) echo "-c:v libsvtav1 -preset 10 -crf 25 -svtav1-params lp=$threads:lookahead=5 -c:a aac -b:a 192k" ;;
        vp9) echo "-c:v libvpx-vp9 -b:v 0 -crf 25 -deadline good -cpu-used 4 -row-mt 1 -lag-in-frames 5 -threads $threads -c:a libopus -b:a 192k" ;;
    esac
}
extension() { case "$1" in av1) echo mkv ;; vp9) echo webm ;; *) echo mov ;; esac; }

: > "$work/codec-runs.txt"
for i in $(seq "$rounds"); do
    for codec in h264 hevc prores av1 vp9; do
        ext=$(extension "$codec")
        echo "mixwrite-$codec $(measure "$bin" "$work/fx1080.mov" "$work/base1080.mov" --length "$seconds" --codec "$codec" \
            -o "$work/codec-mixwrite.$ext" -y -q)" | tee -a "$work/codec-runs.txt"
        # shellcheck disable=SC2046
        echo "ffmpeg-$codec $(SVT_LOG=1 measure ffmpeg -nostdin -loglevel error -y -t "$seconds" -i "$work/fx1080.mov" -t "$seconds" \
            -i "$work/base1080.mov" -filter_complex "$graph" -map "[v]" -map "[a]" $(peer "$codec") "$work/codec-ffmpeg.$ext")" \
            | tee -a "$work/codec-runs.txt"
    done
done
summarize "$work/codec-runs.txt" ffmpeg-h264 mixwrite-h264
for codec in hevc prores av1 vp9; do summarize "$work/codec-runs.txt" "ffmpeg-$codec" "mixwrite-$codec" | grep '^ratio'; done
