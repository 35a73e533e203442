#!/usr/bin/env bash
# Every command of mixwrite, built with ThreadSanitizer, on the fixtures, three times each: any data race
# report fails the script. (It found the one race mixwrite had: a waiting stage registered off the writer
# actor.) Runs in CI after the test suites. Built without the tuning page (no command here serves it): swift-nio is not
# compiled under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --sanitize=thread --scratch-path .build-tsan --disable-default-traits --product mixwrite
bin="$(swift build --sanitize=thread --scratch-path .build-tsan --disable-default-traits --show-bin-path)/mixwrite"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
F=Fixtures
# A base of closed GOPs (one every 10 frames), so that a smart render copies some and encodes the layer's.
ffmpeg -nostdin -v error -y -f lavfi -i "testsrc2=s=320x240:r=25:d=2" -c:v libx264 -preset veryfast -g 10 -pix_fmt yuv420p "$out/gops.mp4"
runs=(
    "$F/fx.mov $F/base.mov --audio $F/tone.m4a -o $out/blend.mov"
    "$F/fx.mov $F/base.mov --frame 1 --key-color auto --despill -o $out/frame.png"
    "$F/fx.mov $F/base.mov --start 0.8 --length 0.6 --loudness -16 -o $out/part.mov"
    "concat $F/base.mov $F/noaudio.mov $F/fx.mov -o $out/concat.mp4 --size 160x120 --transition fade:0.4 --transition-at 2=wipeleft:0.3"
    "still $F/base.mov $F/tone.m4a -o $out/still.mp4"
    "remix $F/fx.mov --audio $F/tone.m4a -o $out/remix.mkv"
    "$F/fx.mov $F/base.mov --stems --duck base --audio-codec opus -o $out/stems.mkv"
    "$F/fx.mov $F/base.mov --at 0.4 --in 0.2 --place 0,0,160,120 --layer $F/edges.mov:at=0.2:place=100,60,160,120:opacity=0.7 -o $out/layers.mov"
    "key $F/fx.mov -o $out/layer.webm"
    "$F/fx.mov $F/base.mov --keyer fine --key-color auto --choke 1 --layer $F/edges.mov:keyer=fine:place=80,60,160,120 -o $out/fine.mov"
    "$F/fx.mov $F/base.mov --parts 2 --part 1 -o $out/parts.mov"
    "$F/fx.mov $F/base.mov --parts 2 --part 2 -o $out/parts.mov"
    "join $out/parts.mov --keep-parts"
    "$F/fx.mov $out/gops.mp4 --at 0.8 --out 0.4 --place 0,0,160,120 -o $out/smart.mp4"
)
races=0
for args in "${runs[@]}"; do
    for i in 1 2 3; do
        # shellcheck disable=SC2086
        # A hand-over of 2 packets makes the stages wait on each other all the time, where races show.
        if ! MIXWRITE_WRITER_QUEUE=2 TSAN_OPTIONS="halt_on_error=0 exitcode=66" "$bin" $args -y -q 2> "$out/tsan.txt"; then
            echo "mixwrite $args failed:"; grep -E "WARNING: ThreadSanitizer|#[0-3] " "$out/tsan.txt" | awk 'NR <= 12'
            races=$((races + 1))
            break
        fi
    done
done
[ "$races" -eq 0 ] && echo "ThreadSanitizer: no data race in ${#runs[@]} commands × 3 runs"
exit "$races"
