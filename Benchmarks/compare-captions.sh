#!/usr/bin/env bash
# Captions (issue 76) on the 1080p30 10 s blend of compare-blend.sh, in turn, in one run: the blend alone (`plain`),
# with a caption file muxed as a track (`muxed`), with the same file burned into the picture by libass (`burned`), and
# the ffmpeg CLI doing the burned job (chromakey + overlay + subtitles + amix in one filter graph, `ffmpeg`). The file
# is a SubRip of a two-line cue every 2.5 s, each shown 2 s (80 % of the movie under a caption, as a film's dialogue).
# Then once, a 60 s 1080p30 base with a keyframe a second (as cameras write) and 5 cues of 2 s burned over it, smart:
# the share of frames copied, and the copied frames' md5 against base's.
# Usage: Benchmarks/compare-captions.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"

[ -f "$work/fx1080.mov" ] && [ -f "$work/base1080.mov" ] || Benchmarks/compare-blend.sh 0 >/dev/null
srt="$work/captions.srt"
python3 - "$srt" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(4):
        s = i * 2.5
        f.write(f"{i + 1}\n00:00:{int(s):02d},{int(s * 1000) % 1000:03d} --> 00:00:{int(s + 2):02d},{int((s + 2) * 1000) % 1000:03d}\n"
                f"Line {i + 1} of what is said,\nand the second line of it.\n\n")
PY
blend=("$bin" "$work/fx1080.mov" "$work/base1080.mov" -y -q)
ffmpeg_cmd=(ffmpeg -nostdin -loglevel error -y -i "$work/fx1080.mov" -i "$work/base1080.mov" -filter_complex
    "[0:v]chromakey=0x00FF00:0.1:0.05[k];[1:v][k]overlay,subtitles=$srt[v];[0:a:0][0:a:1][1:a:0]amix=inputs=3[a]"
    -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -crf 20 -c:a aac -b:a 192k "$work/captions-ffmpeg.mov")

: > "$work/captions-runs.txt"
jobs=(plain muxed burned ffmpeg)
run_job() {
    case "$1" in
        plain) measure "${blend[@]}" -o "$work/captions-plain.mov" ;;
        muxed) measure "${blend[@]}" -o "$work/captions-muxed.mov" --captions "$srt" ;;
        burned) measure "${blend[@]}" -o "$work/captions-burned.mov" --captions "$srt" --burn-captions ;;
        ffmpeg) measure "${ffmpeg_cmd[@]}" ;;
    esac
}
for i in $(seq "$rounds"); do
    for k in $(seq 0 $((${#jobs[@]} - 1))); do
        job=${jobs[$(((k + i - 1) % ${#jobs[@]}))]}
        printf '%-8s %s\n' "$job" "$(run_job "$job")" | tee -a "$work/captions-runs.txt"
    done
done
summarize "$work/captions-runs.txt" plain muxed burned
summarize "$work/captions-runs.txt" ffmpeg burned | grep '^ratio'

# Smart: 60 s, a keyframe a second, 5 cues of 2 s burned.
base="$work/captions-smart-base.mp4"
[ -f "$base" ] || ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=60" -f lavfi -i "sine=f=440:r=48000:d=60" \
    -c:v libx264 -preset veryfast -crf 18 -g 30 -pix_fmt yuv420p -c:a aac "$base"
cues="$work/captions-five.srt"
: > "$cues"
for i in 1 2 3 4 5; do
    s=$((i * 10 - 5)); printf '%d\n00:00:%02d,500 --> 00:00:%02d,500\nCue %d\n\n' "$i" "$s" $((s + 2)) "$i" >> "$cues"
done
out="$work/captions-smart.mp4"
report=$("$bin" concat "$base" -o "$out" -y -q --json --captions "$cues" --burn-captions)
ffmpeg -nostdin -loglevel error -i "$out" -map 0:v -f framemd5 - | grep -v '^#' | awk -F, '{print $NF}' > "$work/captions-smart.md5"
ffmpeg -nostdin -loglevel error -i "$base" -map 0:v -f framemd5 - | grep -v '^#' | awk -F, '{print $NF}' > "$work/captions-base.md5"
python3 - "$report" "$work/captions-smart.md5" "$work/captions-base.md5" <<'PY'
import json, sys
v = json.loads(sys.argv[1])["video"]
mine, base = open(sys.argv[2]).read().split(), open(sys.argv[3]).read().split()
frames, copied = len(mine), v.get("copiedFrames") or 0
spans = [(round(a * 30), round(b * 30)) for a, b in v.get("copiedSpans") or []]
same = sum(mine[k] == base[k] for a, b in spans for k in range(a, b))
print(f"smart, 5 burned cues of 2 s over 60 s (a keyframe a second): {copied} of {frames} frames copied ({100 * copied / frames:.1f} %); "
      f"{same} of them bit-exact base's")
print("encoded spans (s):", v.get("encodedSpans"))
PY
