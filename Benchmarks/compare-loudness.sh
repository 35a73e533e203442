#!/usr/bin/env bash
# What --loudness costs, and the same job by ffmpeg-normalize (PyPI), in turn, in one run:
#  plain:     the 1080p blend of compare-blend.sh, as it is;
#  loudness:  the same blend with --loudness -16 (measurement passes over the sound, then the encode);
#  normalize: the plain blend's output brought to -16 LUFS by ffmpeg-normalize (EBU R128, two passes,
#             video copied, AAC 192k): the second tool a user runs today. Its time is added to the plain blend's.
# Prints each run, the medians, the ratios, and each output's loudness by the ffmpeg CLI's ebur128.
# Needs ffmpeg-normalize on PATH (pip install ffmpeg-normalize). Usage: Benchmarks/compare-loudness.sh [ROUNDS]
set -euo pipefail
rounds="${1:-3}"
source "$(dirname "$0")/common.sh"
[ -f "$work/fx1080.mov" ] || "$(dirname "$0")/compare-blend.sh" 1 >/dev/null
command -v ffmpeg-normalize >/dev/null || { echo "ffmpeg-normalize is not installed (pip install ffmpeg-normalize)" >&2; exit 2; }

plain=("$bin" "$work/fx1080.mov" "$work/base1080.mov" -o "$work/plain.mov" -y -q)
loud=("$bin" "$work/fx1080.mov" "$work/base1080.mov" --loudness -16 -o "$work/loud.mov" -y -q)
normalize=(ffmpeg-normalize "$work/plain.mov" -nt ebu -t -16 -tp -1 -c:a aac -b:a 192k -f -o "$work/normalized.mov")

runs="$work/loudness-runs.txt"
: > "$runs"
for i in $(seq "$rounds"); do
    for job in plain loud normalize; do
        declare -n cmd="$job"
        echo "$job $(measure "${cmd[@]}")" | tee -a "$runs"
    done
done
for f in plain loud normalized; do
    echo "$f.mov: $(ffmpeg -nostdin -hide_banner -i "$work/$f.mov" -map 0:a -af ebur128=peak=true -f null - 2>&1 \
        | sed -n '/Summary/,$p' | grep -E 'I:|Peak:' | tr -s ' ' | tr '\n' ' ')"
done
python3 - "$runs" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    name, wall, cpu, mem = line.split()
    runs.setdefault(name, []).append(float(wall))
med = {k: statistics.median(v) for k, v in runs.items()}
for k, v in med.items(): print(f"{k:10s} median wall {v:6.2f} s")
print(f"--loudness / plain: {med['loud'] / med['plain']:.3f} (goal <= 1.10)")
print(f"plain + ffmpeg-normalize / plain: {(med['plain'] + med['normalize']) / med['plain']:.3f}")
PY
