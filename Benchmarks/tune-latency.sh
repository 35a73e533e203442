#!/usr/bin/env bash
# The tuning page's slider at 1080p, measured in the browser: headless chromium (through chromedriver) loads
# `mixwrite tune` on the blend benchmark's 1080p inputs, moves the threshold slider N times with the keyboard
# (one step, then wait until the new picture is shown), and the page's own clock (input event to the
# picture's load event, `window.mwTimings`) gives each move's latency. Goal: p95 ≤ 100 ms.
# Then the audition button is clicked A times at different times T: click to a playable <video> of 3 s
# (`window.mwAudition`). Goal: within 3 s.
# With PAGE=concat: `mixwrite concat base1080.mov fx1080.mov --tune`, and the slider moved is the output's time
# slider, a frame a step across the boundary between the clips (each move a picture decoded, not only keyed).
# Usage: [PAGE=concat] Benchmarks/tune-latency.sh [N] [A]   (needs chromium and chromium-driver: scripts/install-deps.sh test)
set -euo pipefail
moves="${1:-40}"
auditions="${2:-5}"
page="${PAGE:-blend}"
source "$(dirname "$0")/common.sh"
[ -f "$work/fx1080.mov" ] || Benchmarks/compare-blend.sh 1 >/dev/null
if [ "$page" = concat ]; then
    "$bin" concat "$work/base1080.mov" "$work/fx1080.mov" -o "$work/tuned.mov" --tune -q > "$work/tune-url.txt" &
else
    "$bin" tune "$work/fx1080.mov" "$work/base1080.mov" -o "$work/tuned.mov" -q > "$work/tune-url.txt" &
fi
tune=$!
chromedriver --port=9517 >/dev/null 2>&1 &
driver=$!
trap 'kill $tune 2>/dev/null; kill -9 $driver 2>/dev/null' EXIT
for _ in $(seq 100); do [ -s "$work/tune-url.txt" ] && curl -s localhost:9517/status >/dev/null && break; sleep 0.1; done
python3 - "$(head -1 "$work/tune-url.txt")" "$moves" "$auditions" "$page" <<'PY'
import json, statistics, subprocess, sys, time
url, moves, auditions, page = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
def call(method, path, body=None):
    args = ["curl", "-s", "-m", "60", "-X", method, "http://localhost:9517" + path, "-H", "Content-Type: application/json"]
    if body is not None: args += ["-d", json.dumps(body)]
    return json.loads(subprocess.run(args, capture_output=True, check=True).stdout)["value"]
caps = {"goog:chromeOptions": {"binary": "/usr/bin/chromium",
        "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"]}}
s = call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})["sessionId"]
js = lambda src: call("POST", f"/session/{s}/execute/sync", {"script": src, "args": []})
def idle():
    for _ in range(600):
        if js("return document.getElementById('picture').dataset.loaded > 0 && !window.mwBusy()"): return
        time.sleep(0.01)
    raise SystemExit("the picture never settled")
call("POST", f"/session/{s}/url", {"url": url})
idle()
if page == "concat":
    # Ten frames before the boundary between the clips: the moves go across it and back.
    js("const t = document.getElementById('t'); t.value = info.pieces[1].start - 10 / info.frameRate; t.dispatchEvent(new Event('input'))")
    idle()
js("window.mwTimings = []")
name = "#t" if page == "concat" else "#threshold"
slider = list(call("POST", f"/session/{s}/element", {"using": "css selector", "value": name}).values())[0]
for i in range(moves):
    left, right = "\ue012", "\ue014"
    key = (right if (i // 20) % 2 == 0 else left) if page == "concat" else (left if (i // 10) % 2 == 0 else right)   # steps one way, then back
    call("POST", f"/session/{s}/element/{slider}/value", {"text": key})
    idle()
t = sorted(js("return window.mwTimings"))
made = []
button = list(call("POST", f"/session/{s}/element", {"using": "css selector", "value": "#auditionButton"}).values())[0]
times = []
for i in range(auditions):
    times.append(round(1.5 + i * 1.7 % 7, 2))
    js(f"window.mwAudition = null; const t = document.getElementById('t'); t.value = {times[-1]}; t.dispatchEvent(new Event('input'))")
    idle()
    call("POST", f"/session/{s}/element/{button}/click", {})
    for _ in range(6000):
        v = js("return window.mwAudition || document.getElementById('status').textContent")
        if isinstance(v, (int, float)): made.append(v); break
        time.sleep(0.01)
    else: raise SystemExit("the audition never came")
call("DELETE", f"/session/{s}")
p95 = t[min(len(t) - 1, int(round(0.95 * (len(t) - 1))))]
print(f"{page}: {len(t)} slider moves at 1080p, input to picture shown: median {statistics.median(t):.0f} ms, "
      f"p95 {p95:.0f} ms, max {t[-1]:.0f} ms (goal: p95 <= 100 ms)")
if made:
    print(f"{len(made)} auditions of 3 s at 1080p, click to playable: median {statistics.median(made) / 1000:.2f} s, "
          f"max {max(made) / 1000:.2f} s (goal: 3 s); by T: " + ", ".join(f"{t} s: {m / 1000:.2f}" for t, m in zip(times, made)))
PY
