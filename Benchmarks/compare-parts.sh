#!/usr/bin/env bash
# One job on many machines, measured on this one: compare-blend.sh's 1080p30 blend made SECONDS long (its 10-second
# inputs looped), rendered by one machine, then as PARTS parts one after another (each with the whole machine, as each
# node of a cluster would have it) and joined. Also a lossless render (--crf 0) as the picture's reference, and the
# sound alone mixed (decoded, mixed, written as PCM beside fx's copied video): what a part spends on the sound before
# its share.
# Prints each run, the medians, the parts' total over one render and the join over the parts, then the checks (frames,
# per-frame PSNR against lossless of one render and of the joined movie, the sound packet for packet and its length)
# and the model of what N machines take for a one-hour 1080p blend.
# Usage: Benchmarks/compare-parts.sh [ROUNDS] [PARTS] [SECONDS]   (defaults 3, 4 and 60)
set -euo pipefail
rounds="${1:-3}"
parts="${2:-4}"
seconds="${3:-60}"
source "$(dirname "$0")/common.sh"

[ -f "$work/fx1080.mov" ] && [ -f "$work/base1080.mov" ] || { echo "run Benchmarks/compare-blend.sh first: it makes the inputs" >&2; exit 1; }
for f in fx base; do
    [ -f "$work/${f}1080-${seconds}s.mov" ] || ff -stream_loop $(( seconds / 10 - 1 )) -i "$work/${f}1080.mov" -map 0 -c copy "$work/${f}1080-${seconds}s.mov"
done
job=("$work/fx1080-${seconds}s.mov" "$work/base1080-${seconds}s.mov")

: > "$work/parts-runs.txt"
for i in $(seq "$rounds"); do
    echo "one      $(measure "$bin" "${job[@]}" -o "$work/parts-one.mov" -y -q)" | tee -a "$work/parts-runs.txt"
    rm -rf "$work/parts-joined.mov" "$work/parts-joined.mov.parts"
    total_wall=0; total_cpu=0; peak=0
    for k in $(seq "$parts"); do
        run=$(measure "$bin" "${job[@]}" -o "$work/parts-joined.mov" --parts "$parts" --part "$k" -q)
        echo "part-$k   $run" | tee -a "$work/parts-runs.txt"
        read -r w c m <<< "$run"
        total_wall=$(python3 -c "print($total_wall + $w)"); total_cpu=$(python3 -c "print($total_cpu + $c)")
        peak=$(( m > peak ? m : peak ))
    done
    echo "parts    $total_wall $total_cpu $peak" | tee -a "$work/parts-runs.txt"
    echo "join     $(measure "$bin" join "$work/parts-joined.mov" --keep-parts -y)" | tee -a "$work/parts-runs.txt"
    echo "mix      $(measure "$bin" remix "${job[0]}" --audio "${job[1]}" --audio-codec pcm -o "$work/parts-mix.mkv" -y -q)" \
        | tee -a "$work/parts-runs.txt"
    # What a part costs whatever its length: parts of one frame, at the start, in the middle and at the end.
    frames=$(( seconds * 30 ))
    for at in first:1 middle:$(( frames / 2 )) last:$frames; do
        rm -rf "$work/parts-tiny.mov.parts"
        echo "tiny-${at%%:*} $(measure "$bin" "${job[@]}" -o "$work/parts-tiny.mov" --parts "$frames" --part "${at##*:}" -q)" \
            | tee -a "$work/parts-runs.txt"
    done
done
summarize "$work/parts-runs.txt" one parts
summarize "$work/parts-runs.txt" parts join | grep '^ratio'

"$bin" "${job[@]}" -o "$work/parts-lossless.mov" --crf 0 -y -q
frames() { ffprobe -v error -count_packets -select_streams v -show_entries stream=nb_read_packets -of csv=p=0 "$1"; }
echo "frames: one $(frames "$work/parts-one.mov"), joined $(frames "$work/parts-joined.mov")"
psnr() { # per-frame PSNR (average of Y, U, V) of $1 against the lossless render: mean and min
    ffmpeg -nostdin -loglevel error -i "$1" -i "$work/parts-lossless.mov" -lavfi "[0:v][1:v]psnr=stats_file=$work/psnr.log" -f null -
    python3 - "$work/psnr.log" <<'PY'
import sys
v = [float(l.split("psnr_avg:")[1].split()[0]) for l in open(sys.argv[1])]
print(f"mean {sum(v) / len(v):.2f} dB, min {min(v):.2f} dB")
PY
}
echo "PSNR against lossless: one render $(psnr "$work/parts-one.mov"); joined $(psnr "$work/parts-joined.mov")"
packets() { ffmpeg -nostdin -loglevel error -i "$1" -map 0:a -c copy -f framemd5 - | grep -v '^#' | md5sum | cut -c1-12; }
length() { ffprobe -v error -select_streams a -show_entries stream=duration -of csv=p=0 "$1"; }
echo "sound: packets md5 one $(packets "$work/parts-one.mov"), joined $(packets "$work/parts-joined.mov"); length $(length "$work/parts-one.mov") s and $(length "$work/parts-joined.mov") s"

# The model: one render of T seconds of movie takes T * one/SECONDS. A part of N takes that over N, plus what a part
# costs whatever its length: a one-frame part's time (opening and seeking, the encoders' start, the sound of its first
# AAC segment before its share, the sound mixed before its window), measured at the start, the middle and the end; the
# middle's (a segment's sound encoded before the share, the most a part does) stands for every part but the first,
# plus the sound mixed before its window, linear in where it starts ("mix": the whole movie's sound mixed). The join
# copies bytes, linear in the movie's size.
python3 - "$work/parts-runs.txt" "$parts" "$seconds" <<'PY'
import statistics, sys
runs, n, seconds = {}, int(sys.argv[2]), float(sys.argv[3])
for line in open(sys.argv[1]):
    name, wall, cpu, mem = line.split(); runs.setdefault(name, []).append(float(wall))
med = {k: statistics.median(v) for k, v in runs.items()}
one, join, mix = med["one"], med["join"], med["mix"]
first, middle = med["tiny-first"], med["tiny-middle"]
hour = 3600.0
t1 = one * hour / seconds
print(f"model (from these medians): one render {one:.2f} s for {seconds:.0f} s of movie; a one-frame part {first:.2f} s at the start, "
      f"{middle:.2f} s in the middle, {med['tiny-last']:.2f} s at the end; the sound mixed {mix:.2f} s; join {join:.2f} s")
predicted = (one + first + (n - 1) * middle) / one
print(f"{n} parts of this movie, predicted: {predicted:.3f}x one render's time together (measured above: parts/one)")
print(f"a one-hour 1080p blend: one machine {t1 / 60:.1f} min")
for nodes in (8, 32):
    part = lambda k: t1 / nodes + (first if k == 0 else middle + mix * (hour / seconds) * k / nodes)
    last, j = part(nodes - 1), join * hour / seconds
    total = sum(part(k) for k in range(nodes)) + j
    print(f"  {nodes:2d} machines: the last part {last / 60:.1f} min + join {j:.0f} s = {(last + j) / 60:.1f} min "
          f"(speed-up {t1 / (last + j):.1f}x; the machines' time together {total / t1:.3f}x one render's)")
PY
