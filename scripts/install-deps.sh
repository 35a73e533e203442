#!/usr/bin/env bash
# Installs what mixwrite needs and is missing: FFmpeg's development libraries and its CLI (tests use
# ffprobe/ffmpeg as an independent oracle, benchmarks as the peer), and pkg-config. Debian/Ubuntu: the names are
# the same on Debian 12 (FFmpeg 5.1), 13 (7.1) and sid (9.0) (scripts/debian-suite.sh runs this script in 13 and sid;
# the runtime libraries' names differ, libavcodec59, 61, 63, and only `make deb` names those, read from dpkg).
# `install-deps.sh test` adds what only the tests use: Slurm's daemons and client (slurm-wlm), for the test
# that runs a job array on a one-node cluster of this machine, and chromium with chromedriver (and curl to
# speak to it), for the tuning page's test in a real browser, and python3's jsonschema (the job files' schema checked
# by an independent validator) and numpy (the keyers' ground truth, research/key-truth.py), and zsh and fish (their
# completion scripts run in the real shells), and espeak-ng (the sync tests' speech), and OpenTimelineIO's Python library (the render tests' timelines). `install-deps.sh deb` needs nothing more (the
# tuning page's server no longer brings Foundation's networking part, and with it libcurl, into the binary).
set -euo pipefail
# fontconfig, DejaVu and WenQuanYi Micro Hei: the fonts burned captions are drawn in (libass finds them by fontconfig,
# fc-match names a style's font that is not here; DejaVu has Latin, Greek, Cyrillic, Arabic and Hebrew, Micro Hei the
# CJK scripts, so a caption in any of them is drawn, not boxes).
need=(pkg-config ffmpeg libavformat-dev libavcodec-dev libavfilter-dev libswresample-dev libswscale-dev libavutil-dev zlib1g-dev
      fontconfig fonts-dejavu-core fonts-wqy-microhei)
if [ "${1:-}" = test ]; then need+=(slurm-wlm chromium chromium-driver curl python3-jsonschema python3-numpy zsh fish espeak-ng); fi
missing=()
for p in "${need[@]}"; do
    [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "installing: ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The render tests build their timelines with OpenTimelineIO's own library and read an EDL, an FCP X XML and a Kdenlive
# project through its adapters, from PyPI (no Debian package has them).
otio=(opentimelineio==0.18.1 otio-cmx3600-adapter otio-fcpx-xml-adapter otio-kdenlive-adapter otio-fcp-adapter)
if [ "${1:-}" = test ] && ! python3 -c "import opentimelineio as o; o.adapters.from_name('cmx_3600'); o.adapters.from_name('fcpx_xml'); o.adapters.from_name('kdenlive')" 2>/dev/null; then
    echo "installing: ${otio[*]} (PyPI)" >&2
    python3 -m pip install -q "${otio[@]}" 2>/dev/null || python3 -m pip install -q --user --break-system-packages "${otio[@]}"
fi
# The sync tests make their truth set (research/sync-truth-set.py) with numpy and scipy's filters, in the python3 that
# `env` finds (the OTIO library's too).
if [ "${1:-}" = test ] && ! python3 -c "import numpy, scipy.signal" 2>/dev/null; then
    echo "installing: numpy scipy (PyPI)" >&2
    python3 -m pip install -q numpy scipy 2>/dev/null || python3 -m pip install -q --user --break-system-packages numpy scipy
fi
if ! command -v swift >/dev/null; then
    echo "error: the Swift toolchain (6.1 or later) is not on PATH; install it from swift.org" >&2
    exit 1
fi
