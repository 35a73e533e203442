#!/usr/bin/env bash
# concat with transitions beside the ffmpeg CLI, in turn, in one run, on the same job: three 1080p30 clips of 4 s
# (one audio track each), joined by two 1 s cross-fades (`--transition fade:1`), against the same concat with cuts
# (mixwrite's and the CLI's concat filter) and against the CLI's `xfade` + `acrossfade` (qsin, as mixwrite's default);
# H.264 libx264 veryfast crf 20 + AAC, as mixwrite writes by default.
# Then, once, the quality: both transitions rendered lossless (x264 -qp 0, FLAC) and compared: luma PSNR over the
# movie and through each transition, and the sound's difference below the CLI's.
# Prints each run, the medians, the ratios (over the CLI's xfade, and transitions over cuts), then the quality.
# Usage: Benchmarks/compare-transitions.sh [ROUNDS]   (default 3)
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"

for n in 1 2 3; do
    if [ ! -f "$work/clip1080-$n.mov" ]; then
        echo "making the inputs in $work" >&2
        ff -f lavfi -i "testsrc2=s=1920x1080:r=30:d=4" -f lavfi -i "sine=f=$((220 * n)):r=48000:d=4" \
           -vf "hue=h=$((120 * n))" -map 0:v -map 1:a -c:v libx264 -preset veryfast -crf 18 -pix_fmt yuv420p -c:a aac \
           "$work/clip1080-$n.mov"
    fi
done
clips=("$work/clip1080-1.mov" "$work/clip1080-2.mov" "$work/clip1080-3.mov")
# The CLI's graph: the same overlaps, at 3 s and 6 s of the output (the clips share a time base: xfade needs no filter
# before it); each clip's sound
# cut to its picture's 4 s, as mixwrite cuts it (AAC decodes a little longer), so acrossfade overlaps the same seconds.
xgraph() {  # xgraph VIDEO_TAIL AUDIO_TAIL
    echo "[0:v][1:v]xfade=transition=fade:duration=1:offset=3[x];[x][2:v]xfade=transition=fade:duration=1:offset=6$1[v];[0:a]atrim=end_sample=192000[a0];[1:a]atrim=end_sample=192000[a1];[2:a]atrim=end_sample=192000[a2];[a0][a1]acrossfade=d=1:c1=qsin:c2=qsin[ax];[ax][a2]acrossfade=d=1:c1=qsin:c2=qsin$2[a]"
}

mixwrite_cmd=("$bin" concat "${clips[@]}" -o "$work/mixwrite-transitions.mov" -y -q --transition fade:1)
cuts_cmd=("$bin" concat "${clips[@]}" -o "$work/mixwrite-cuts.mov" -y -q)
ffmpeg_cmd=(ffmpeg -nostdin -loglevel error -y -i "${clips[0]}" -i "${clips[1]}" -i "${clips[2]}" -filter_complex "$(xgraph "" "")"
    -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -crf 20 -c:a aac -b:a 192k "$work/ffmpeg-transitions.mov")
ffcuts_cmd=(ffmpeg -nostdin -loglevel error -y -i "${clips[0]}" -i "${clips[1]}" -i "${clips[2]}" -filter_complex
    "[0:v][0:a][1:v][1:a][2:v][2:a]concat=n=3:v=1:a=1[v][a]"
    -map "[v]" -map "[a]" -c:v libx264 -preset veryfast -crf 20 -c:a aac -b:a 192k "$work/ffmpeg-cuts.mov")

: > "$work/transitions-runs.txt"
for i in $(seq "$rounds"); do
    echo "mixwrite $(measure "${mixwrite_cmd[@]}")" | tee -a "$work/transitions-runs.txt"
    echo "ffmpeg   $(measure "${ffmpeg_cmd[@]}")" | tee -a "$work/transitions-runs.txt"
    echo "cuts     $(measure "${cuts_cmd[@]}")" | tee -a "$work/transitions-runs.txt"
    echo "ffcuts   $(measure "${ffcuts_cmd[@]}")" | tee -a "$work/transitions-runs.txt"
done
summarize "$work/transitions-runs.txt" ffmpeg mixwrite cuts ffcuts
summarize "$work/transitions-runs.txt" cuts mixwrite | tail -1

# Quality, once: both lossless, compared frame by frame (luma) and sample by sample.
"$bin" concat "${clips[@]}" -o "$work/mixwrite-transitions.mkv" -y -q --transition fade:1 --crf 0 --audio-codec flac
ff -i "${clips[0]}" -i "${clips[1]}" -i "${clips[2]}" -filter_complex "$(xgraph ",format=yuv444p" "")" -map "[v]" -map "[a]" \
   -c:v libx264 -qp 0 -pix_fmt yuv444p -c:a flac "$work/ffmpeg-transitions.mkv"
python3 - "$work/mixwrite-transitions.mkv" "$work/ffmpeg-transitions.mkv" <<'PY'
import math, subprocess, sys
import numpy as np
def luma(path):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-fps_mode", "passthrough", "-f", "rawvideo",
                          "-pix_fmt", "gray", "-"], capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.uint8).reshape(-1, 1080, 1920)
def sound(path):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a", "-ac", "2", "-f", "f32le", "-"],
                         capture_output=True, check=True).stdout
    return np.frombuffer(raw, np.float32).reshape(-1, 2)
a, b = luma(sys.argv[1]), luma(sys.argv[2])
def psnr(r):
    mse = np.mean((a[r].astype(np.float64) - b[r]) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)
print(f"frames: mixwrite {len(a)}, ffmpeg {len(b)}")
n = min(len(a), len(b))
print(f"luma PSNR over the movie {psnr(slice(0, n)):.2f} dB; through the transitions {psnr(slice(90, 120)):.2f} dB and {psnr(slice(180, 210)):.2f} dB")
x, y = sound(sys.argv[1]), sound(sys.argv[2])
m = min(len(x), len(y))
def level(r):
    d = x[r] - y[r]
    return 10 * math.log10(np.sum(d.astype(np.float64) ** 2) / np.sum(y[r].astype(np.float64) ** 2))
print(f"samples: mixwrite {len(x)}, ffmpeg {len(y)}; the sound's difference {level(slice(0, m)):.1f} dB over the movie, "
      f"{level(slice(144000, 192000)):.1f} dB and {level(slice(288000, 336000)):.1f} dB through the transitions")
PY
