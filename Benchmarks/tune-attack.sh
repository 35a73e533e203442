#!/usr/bin/env bash
# What an unauthenticated peer on the same machine can make `mixwrite tune` spend: a request line that never
# ends (64, 128 and 256 KB sent at once, no token, no Host), the server's CPU seconds read from /proc/PID/stat
# before and after, and whether the page still answers at once afterwards. Loopback only, bounded sends.
# MIXWRITE_BASELINE=<another build's binary> measures it too, in the same run (before/after).
# Usage: Benchmarks/tune-attack.sh
set -euo pipefail
source "$(dirname "$0")/common.sh"
run_one() {
    local binary="$1" name="$2"
    "$binary" tune Fixtures/fx.mov Fixtures/base.mov -o "$work/attack.mov" -q > "$work/attack-url.txt" &
    local pid=$!
    for _ in $(seq 100); do [ -s "$work/attack-url.txt" ] && break; sleep 0.1; done
    python3 - "$(head -1 "$work/attack-url.txt")" "$pid" "$name" <<'PY'
import os, re, socket, sys, time, urllib.request
url, pid, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
port = int(re.search(r":(\d+)/", url).group(1))
tick = os.sysconf("SC_CLK_TCK")
def cpu():
    f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick
for kb in (64, 128, 256):
    before = cpu()
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(20)
    try: s.sendall(b"GET /" + b"a" * (kb * 1024))
    except OSError: pass
    answer = b""
    try: answer = s.recv(100)
    except OSError: pass
    # What it goes on spending after the peer gives up: measured over the 3 s that follow.
    s.close(); time.sleep(3)
    t = time.time()
    try: status = urllib.request.urlopen(url, timeout=60).status
    except Exception as e: status = str(e)
    print(f"{name}: {kb} KB unfinished line: {cpu() - before:.2f} CPU-s, answer {answer.split(b' ')[1:2]}, "
          f"the page then in {time.time() - t:.2f} s ({status})")
PY
    kill "$pid"; wait "$pid" 2>/dev/null || true
}
[ -n "${MIXWRITE_BASELINE:-}" ] && run_one "$MIXWRITE_BASELINE" baseline
run_one "$bin" mixwrite
