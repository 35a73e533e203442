#!/usr/bin/env bash
# What an HDR base costs: the same 1080p30 10 s blend (compare-blend.sh's fx) over an SDR base (H.264, and HEVC
# Main 10 as the HDR one is encoded, so that decoding costs the same) and over the same pictures as HLG (HEVC Main 10,
# BT.2020, made by zscale), in turn, in one run. The HDR base is tone-mapped to SDR BT.709 (Reading/ToneMapper:
# zscale + tonemap in an avfilter graph) before the blend.
# Prints each run, the medians and the ratios to the SDR H.264 base (wall).
# Usage: Benchmarks/compare-hdr.sh [ROUNDS]   (default 1)
set -euo pipefail
rounds="${1:-1}"
source "$(dirname "$0")/common.sh"

[ -f "$work/fx1080.mov" ] || { echo "run Benchmarks/compare-blend.sh first: it makes the fx" >&2; exit 1; }
if [ ! -f "$work/base1080-sdr.mov" ] || [ ! -f "$work/base1080-hlg.mov" ] || [ ! -f "$work/base1080-sdr10.mov" ]; then
    echo "making the 1080p SDR and HLG bases in $work" >&2
    ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=10" -f lavfi -i "sine=f=660:r=48000:d=10" -map 0:v -map 1:a \
       -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -color_primaries bt709 -color_trc bt709 -colorspace bt709 \
       -c:a aac "$work/base1080-sdr.mov"
    ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=10" -f lavfi -i "sine=f=660:r=48000:d=10" -map 0:v -map 1:a \
       -vf "zscale=tin=709:pin=709:min=709:rin=tv:t=arib-std-b67:p=2020:m=2020_ncl:r=tv:npl=100,format=yuv420p10le" \
       -c:v libx265 -preset ultrafast -x265-params log-level=error \
       -color_primaries bt2020 -color_trc arib-std-b67 -colorspace bt2020nc -c:a aac "$work/base1080-hlg.mov"
    ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=10" -f lavfi -i "sine=f=660:r=48000:d=10" -map 0:v -map 1:a \
       -vf "format=yuv420p10le" -c:v libx265 -preset ultrafast -x265-params log-level=error \
       -color_primaries bt709 -color_trc bt709 -colorspace bt709 -c:a aac "$work/base1080-sdr10.mov"
fi

: > "$work/hdr-runs.txt"
for i in $(seq "$rounds"); do
    for base in sdr sdr10 hlg; do
        echo "$base $(measure "$bin" "$work/fx1080.mov" "$work/base1080-$base.mov" -o "$work/hdr-$base.mov" -y -q)" \
            | tee -a "$work/hdr-runs.txt"
    done
done
summarize "$work/hdr-runs.txt" sdr sdr10 hlg
