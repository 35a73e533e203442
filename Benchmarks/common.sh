# Shared by the benchmark scripts (sourced, not run): the repository root as the working folder, the work
# folder, /usr/bin/time, a release build and its binary (or $MIXWRITE_BIN), and ff (the ffmpeg CLI, quiet).
cd "$(dirname "${BASH_SOURCE[0]}")/.."
work=Benchmarks/out
mkdir -p "$work"
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null; }
# MIXWRITE_BIN measures another build (e.g. the previous commit's, to compare before and after in one run).
if [ -n "${MIXWRITE_BIN:-}" ]; then
    bin="$MIXWRITE_BIN"
else
    swift build -c release >/dev/null
    bin="$(swift build -c release --show-bin-path)/mixwrite"
fi
ff() { ffmpeg -nostdin -hide_banner -loglevel error -y "$@"; }
# The floor of a 1080p30 job: x264 alone encoding MOVIE's frames at the jobs' settings (veryfast, crf 20), read raw
# from RAW (MOVIE decoded there once, now): no decoding, no filtering, no sound. Sets x264_cmd, writing OUT; the caller
# removes RAW when done: x264_floor MOVIE RAW OUT
x264_floor() {
    ff -i "$1" -map 0:v -f rawvideo -pix_fmt yuv420p "$2"
    x264_cmd=(ffmpeg -nostdin -loglevel error -y -f rawvideo -pix_fmt yuv420p -s 1920x1080 -r 30 -i "$2"
        -c:v libx264 -preset veryfast -crf 20 "$3")
}
# One run of a command: wall seconds, CPU seconds (user + system), peak resident memory in MB.
measure() { /usr/bin/time -f "%e %U %S %M" "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.2f %.2f %.0f\n", $1, $2 + $3, $4 / 1024}'; }
# The medians of a runs file (lines of "NAME WALL CPU MEM", from measure), then each of NAMES' median wall over
# REFERENCE's (with SUMMARIZE_CPU=1 also its median CPU time over REFERENCE's): summarize FILE REFERENCE NAME...
summarize() {
    python3 - "$@" <<'PY'
import os, statistics, sys
path, reference, names = sys.argv[1], sys.argv[2], sys.argv[3:]
runs = {}
for line in open(path):
    name, wall, cpu, mem = line.split()
    runs.setdefault(name, []).append((float(wall), float(cpu), float(mem)))
med = {k: [statistics.median(x[i] for x in v) for i in range(3)] for k, v in runs.items()}
for k, (wall, cpu, mem) in med.items():
    print(f"{k:9s} median wall {wall:6.2f} s   cpu/wall {cpu / wall:4.2f}   peak {mem:5.0f} MB")
for k in names:
    if k not in med: continue
    print(f"ratio {k}/{reference} (median wall): {med[k][0] / med[reference][0]:.3f}")
    if os.environ.get("SUMMARIZE_CPU"):
        print(f"ratio {k}/{reference} (median CPU): {med[k][1] / med[reference][1]:.3f}")
PY
}

# melt (Debian's) and OTIO's mlt_xml adapter, the peer of render's benchmarks: installed when missing.
need_melt() {
    command -v melt >/dev/null || { echo "installing: melt" >&2; apt-get install -y -qq --no-install-recommends melt >/dev/null; }
    python3 -c "import opentimelineio.adapters; opentimelineio.adapters.from_name('mlt_xml')" 2>/dev/null \
        || python3 -m pip install -q otio-mlt-adapter
}

# A smart render's proof: SMART's first and last 600 frames bit-identical to BASE's, its span [FROM, TO) s against
# OFF's luma PSNR, and each of the other files decoding with no error: smart_proof SMART BASE OFF FROM TO [FILE...]
smart_proof() {
    python3 - "$@" <<'PY'
import subprocess, sys
smart, base, off, start, end, others = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:]
def md5s(path, frames):
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:v", "-vf", frames, "-f", "framemd5", "-"],
                         capture_output=True, text=True, check=True).stdout
    return [l.split(",")[-1].strip() for l in out.splitlines() if not l.startswith("#")]
for name, sel in (("first 600", "select=lt(n\\,600)"), ("last 600", "select=gte(n\\,1200)")):
    print(f"{name} frames of the smart render bit-identical to base's: {md5s(smart, sel) == md5s(base, sel)}")
r = subprocess.run(["ffmpeg", "-i", smart, "-i", off, "-lavfi",
                    f"[0:v]trim=start={start}:end={end}[a];[1:v]trim=start={start}:end={end}[b];[a][b]psnr", "-f", "null", "-"],
                   capture_output=True, text=True).stderr
print(f"the encoded span ({start}–{end} s) against --smart off's:", [l.split("y:")[1].split()[0] for l in r.splitlines() if "PSNR" in l])
for path in [smart, off] + others:
    e = subprocess.run(["ffmpeg", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"], capture_output=True, text=True)
    print(f"{path}: decodes with no error: {e.returncode == 0 and not e.stderr}")
PY
}
