#!/usr/bin/env bash
# Installs what mixwrite needs and is missing: FFmpeg's development libraries and its CLI (tests use
# ffprobe/ffmpeg as an independent oracle, benchmarks as the peer), and pkg-config. Debian/Ubuntu.
set -euo pipefail
need=(pkg-config ffmpeg libavformat-dev libavcodec-dev libavfilter-dev libswresample-dev libswscale-dev libavutil-dev)
missing=()
for p in "${need[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null; then
    echo "error: the Swift toolchain (6.1 or later) is not on PATH; install it from swift.org" >&2
    exit 1
fi
