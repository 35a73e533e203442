#!/usr/bin/env bash
# How fast a run stops: SIGINT (or SIGTERM) sent at random moments of each command, the time from the signal
# to the process's exit. The test suite only guards against a hang; the latency is measured here.
# Usage: Benchmarks/stop-latency.sh [STOPS] [SIGNAL]   (default 7 stops a command, INT)
set -euo pipefail
stops="${1:-7}"
signal="${2:-INT}"
source "$(dirname "$0")/common.sh"
clip="$work/stop-clip.mov"
[ -f "$clip" ] || ff -f lavfi -i "testsrc2=s=640x360:r=30:d=40" -f lavfi -i "sine=f=300:r=48000:d=40" \
    -c:v libx264 -preset ultrafast -c:a aac "$clip"
big="$work/base1080.mov"
[ -f "$big" ] || Benchmarks/compare-blend.sh 1 >/dev/null
python3 - "$bin" "$work" "$stops" "$signal" "$clip" "$big" <<'PY'
import os, random, signal, statistics, subprocess, sys, time
bin, work, stops, signame, clip, big = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
sig = getattr(signal, "SIG" + signame)
fx = "Fixtures/fx.mov"
jobs = {
    "blend 640x360 (the test's clip)": [fx, clip, "-o", f"{work}/stop.mov"],
    "blend 1080p": [f"{work}/fx1080.mov", big, "-o", f"{work}/stop.mov"],
    "concat": ["concat", clip, clip, "-o", f"{work}/stop.mp4"],
    "still": ["still", "Fixtures/base.mov", clip, "-o", f"{work}/stop-still.mp4"],
    "remix": ["remix", clip, "--audio", clip, "-o", f"{work}/stop.mkv"],
}
rng = random.Random(20261122)
print(f"signal SIG{signame}, {stops} stops a command at random moments 0.3-2.5 s into the run")
for name, args in jobs.items():
    lat = []
    for _ in range(stops):
        p = subprocess.Popen([bin] + args + ["-y", "-q"], stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 2.5))
        if p.poll() is not None:
            continue                       # finished before the signal: not a stop
        sent = time.monotonic()
        p.send_signal(sig)
        p.wait()
        lat.append(time.monotonic() - sent)
    if lat:
        print(f"{name:32s} stops {len(lat):2d}  median {statistics.median(lat) * 1000:6.0f} ms  max {max(lat) * 1000:6.0f} ms")
    else:
        print(f"{name:32s} finished before every signal")
PY
