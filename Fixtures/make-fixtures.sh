#!/usr/bin/env bash
# Makes mixwrite's small test media with the ffmpeg CLI. Every audio track carries its own tone, so a
# test can find each source in the spectrum of a mix:
#   fx.mov       green screen, a moving test pattern on it; 2 audio tracks: 440 Hz mono 44.1 kHz, 1000 Hz stereo 48 kHz
#   base.mov     a moving test pattern; 1 audio track: 660 Hz stereo 48 kHz
#   noaudio.mov  colour bars, no audio
#   tone.m4a     audio only: 880 Hz mono 48 kHz
#   fx-flac.mkv, base-flac.mkv, tone.flac
#                fx.mov's and base.mov's pictures (copied) and tone.m4a's tone, their sound in FLAC: lossless, so every
#                FFmpeg version decodes the same samples (AAC decoders differ in the last bits between versions), for
#                the golden hashes of the sound mixwrite computes (Tests/MixWriteTests/GoldenTests.swift)
#   edges.mov    green screen with the edges a keyer gets wrong: an anti-aliased disc, a ring, thin diagonal
#                lines, and yellow beside cyan (kept colours whose mean is green); no audio
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

flac=(-c:a flac -compression_level 12 -fflags +bitexact -map_metadata -1)
ff -i "$out/fx.mov" -f lavfi -i "aevalsrc=0.25*sin(2*PI*440*t):s=44100:c=mono:d=$dur" \
   -f lavfi -i "aevalsrc=0.25*sin(2*PI*1000*t)|0.25*sin(2*PI*1000*t):s=48000:c=stereo:d=$dur" \
   -map 0:v -map 1:a -map 2:a -c:v copy "${flac[@]}" "$out/fx-flac.mkv"
ff -i "$out/base.mov" -f lavfi -i "aevalsrc=0.25*sin(2*PI*660*t)|0.25*sin(2*PI*660*t):s=48000:c=stereo:d=$dur" \
   -map 0:v -map 1:a -c:v copy "${flac[@]}" "$out/base-flac.mkv"
ff -f lavfi -i "aevalsrc=0.25*sin(2*PI*880*t):s=48000:c=mono:d=$dur" "${flac[@]}" "$out/tone.flac"

# edges.mov: drawn in RGB by geq, one layer over the other, each with an anti-aliased coverage in 0 … 1.
disc='clip(70.5-hypot(X-110,Y-125),0,1)'
ring='clip(1.6-abs(hypot(X-240,Y-165)-45),0,1)'
line='clip(1.5-abs(0.6*X+0.8*Y-192),0,1)'
thin='clip(1-abs(0.8*X-0.6*Y-150),0,1)'
yellow='between(X,200,259.9)*between(Y,20,79.9)'
cyan='between(X,260,309.9)*between(Y,20,79.9)'
layer() {  # green, then yellow, cyan, the disc (skin), the ring (dark), the lines (white, red)
  local v="$1*(1-$yellow-$cyan)+$2*$yellow+$3*$cyan"
  v="($v)*(1-$disc)+$4*$disc"; v="($v)*(1-$ring)+$5*$ring"
  v="($v)*(1-$line)+$6*$line"; echo "($v)*(1-$thin)+$7*$thin"
}
ff -f lavfi -i "color=c=black:s=320x240:r=25:d=1,format=gbrp,geq=r='$(layer 0 255 0 230 30 255 230)':g='$(layer 255 255 255 180 30 255 40)':b='$(layer 0 0 255 150 40 255 40)'" \
   "${venc[@]}" "$out/edges.mov"

echo "fixtures in $out"
