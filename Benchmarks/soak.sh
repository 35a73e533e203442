#!/usr/bin/env bash
# Soak: N blends back to back (default 200) on the fixtures; reports every failure and the peak-memory trend.
# Not part of CI (it takes minutes). Usage: Benchmarks/soak.sh [N]
set -uo pipefail
cd "$(dirname "$0")/.."
n="${1:-200}"
command -v /usr/bin/time >/dev/null || { apt-get install -y -qq time >/dev/null; }
swift build -c release >/dev/null || exit 1
bin="$(swift build -c release --show-bin-path)/mixwrite"
out=$(mktemp -d)
failures=0
: > "$out/peaks.txt"
for i in $(seq "$n"); do
    if ! /usr/bin/time -o "$out/t" -f "%M" "$bin" Fixtures/fx.mov Fixtures/base.mov --audio Fixtures/tone.m4a \
            -o "$out/soak.mov" -y -q 2> "$out/err"; then
        failures=$((failures + 1))
        echo "run $i failed: $(head -3 "$out/err")"
    fi
    tail -1 "$out/t" >> "$out/peaks.txt"
    ls -A "$out" | grep -q '\.mixwrite-' && { echo "run $i left a temporary file"; failures=$((failures + 1)); }
done
python3 - "$out/peaks.txt" "$n" "$failures" <<'PY'
import sys, statistics
peaks = [int(x) / 1024 for x in open(sys.argv[1]) if x.strip().isdigit()]
n, failures = int(sys.argv[2]), int(sys.argv[3])
q = max(1, len(peaks) // 4)
first, last = statistics.median(peaks[:q]), statistics.median(peaks[-q:])
print(f"{n} runs, {failures} failures; peak memory median first quarter {first:.1f} MB, last quarter {last:.1f} MB, max {max(peaks):.1f} MB")
sys.exit(1 if failures or last > first * 1.1 else 0)
PY
