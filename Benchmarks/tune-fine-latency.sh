#!/usr/bin/env bash
# What a change of the key costs the tuning page's server with `--keyer fine` at 1080p: `mixwrite tune` on the blend
# benchmark's 1080p inputs, then N requests for the picture at T (`/api/picture`), each with another key (the feather
# 0 and 2 in turn, so each keys the picture again: the fine keyer keys the frame before it first, as a render does),
# timed by curl from request to the last byte of the JPEG. The first request (the seek and decoding) is left out.
# Usage: Benchmarks/tune-fine-latency.sh [N] [T]   (MIXWRITE_BIN: another build, e.g. the last commit's)
set -euo pipefail
n="${1:-20}"
t="${2:-4}"
source "$(dirname "$0")/common.sh"
[ -f "$work/fx1080.mov" ] || Benchmarks/compare-blend.sh 1 >/dev/null
"$bin" tune "$work/fx1080.mov" "$work/base1080.mov" -o "$work/tuned.mov" --keyer fine --key-color auto -q > "$work/tune-url.txt" &
tune=$!
trap 'kill $tune 2>/dev/null' EXIT
for _ in $(seq 300); do [ -s "$work/tune-url.txt" ] && break; sleep 0.1; done
python3 - "$(head -1 "$work/tune-url.txt")" "$n" "$t" <<'PY'
import json, statistics, subprocess, sys, urllib.parse
url, n, t = sys.argv[1], int(sys.argv[2]), sys.argv[3]
parts = urllib.parse.urlsplit(url)
token = urllib.parse.parse_qs(parts.query).get("token", [""])[0] or parts.fragment.split("token=")[-1]
def get(feather):
    key = urllib.parse.quote(json.dumps({"keyer": "fine", "feather": feather}))
    u = f"{parts.scheme}://{parts.netloc}/api/picture?t={t}&token={token}&key={key}"
    r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", u], capture_output=True, text=True, check=True)
    code, seconds = r.stdout.split()
    assert code == "200", r.stdout
    return float(seconds) * 1000
get(2)
times = sorted(get(2 * (i % 2)) for i in range(n))
print(f"{n} key changes at {t} s: median {statistics.median(times):.0f} ms, p95 {times[int(0.95 * (n - 1))]:.0f} ms, max {times[-1]:.0f} ms")
PY
