#!/usr/bin/env bash
# Makes mixwrite's small test media with the ffmpeg CLI. Every audio track carries its own tone, so a
# test can find each source in the spectrum of a mix:
#   fx.mov       green screen, a moving test pattern on it; 2 audio tracks: 440 Hz mono 44.1 kHz, 1000 Hz stereo 48 kHz
#   base.mov     a moving test pattern; 1 audio track: 660 Hz stereo 48 kHz
#   noaudio.mov  colour bars, no audio
#   tone.m4a     audio only: 880 Hz mono 48 kHz
# Each tone is at -12 dBFS, so their sum stays under the limiter's ceiling and every source keeps its level.
# Usage: Fixtures/make-fixtures.sh [OUTDIR]   (default: the folder of this script)
set -euo pipefail
out="${1:-$(cd "$(dirname "$0")" && pwd)}"
mkdir -p "$out"
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
venc=(-c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -g 25 -bf 2 -fflags +bitexact -flags:v +bitexact -map_metadata -1)
aenc=(-c:a aac -b:a 96k -flags:a +bitexact)
dur=2

ff -f lavfi -i "color=c=0x00FF00:s=320x240:r=25:d=$dur" \
   -f lavfi -i "testsrc2=s=96x96:r=25:d=$dur" \
   -f lavfi -i "aevalsrc=0.25*sin(2*PI*440*t):s=44100:c=mono:d=$dur" \
   -f lavfi -i "aevalsrc=0.25*sin(2*PI*1000*t)|0.25*sin(2*PI*1000*t):s=48000:c=stereo:d=$dur" \
   -filter_complex "[0:v][1:v]overlay=x='20+t*80':y='60+20*sin(t*3)'[v]" \
   -map "[v]" -map 2:a -map 3:a "${venc[@]}" "${aenc[@]}" "$out/fx.mov"

ff -f lavfi -i "testsrc=s=320x240:r=25:d=$dur" \
   -f lavfi -i "aevalsrc=0.25*sin(2*PI*660*t)|0.25*sin(2*PI*660*t):s=48000:c=stereo:d=$dur" \
   -map 0:v -map 1:a "${venc[@]}" "${aenc[@]}" "$out/base.mov"

ff -f lavfi -i "smptebars=s=320x240:r=25:d=$dur" -map 0:v "${venc[@]}" "$out/noaudio.mov"

ff -f lavfi -i "aevalsrc=0.25*sin(2*PI*880*t):s=48000:c=mono:d=$dur" "${aenc[@]}" -map_metadata -1 "$out/tone.m4a"

echo "fixtures in $out"
