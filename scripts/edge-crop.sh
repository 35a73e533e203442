#!/usr/bin/env bash
# Before/after picture of the key's edges for Benchmarks/RESULTS.md: the edges fixture over base at 0.4 s
# through `--frame` with two builds, a 48×32 crop of the disc's edge and a thin diagonal, zoomed 8× without
# smoothing, side by side (left: OLD, right: NEW), with a 8-pixel white gap.
# Usage: scripts/edge-crop.sh OLD_MIXWRITE NEW_MIXWRITE [OUT.png]   (default Benchmarks/edge-crop.png)
set -euo pipefail
cd "$(dirname "$0")/.."
old="$1" new="$2" out="${3:-Benchmarks/edge-crop.png}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$old" Fixtures/edges.mov Fixtures/base.mov --frame 0.4 -o "$tmp/old.png" -y -q
"$new" Fixtures/edges.mov Fixtures/base.mov --frame 0.4 -o "$tmp/new.png" -y -q
ffmpeg -nostdin -v error -y -i "$tmp/old.png" -i "$tmp/new.png" -filter_complex \
    "[0]crop=48:32:60:150,scale=iw*8:ih*8:flags=neighbor,pad=iw+8:ih:0:0:white[a];[1]crop=48:32:60:150,scale=iw*8:ih*8:flags=neighbor[b];[a][b]hstack" \
    -frames:v 1 "$out"
echo "$out"
