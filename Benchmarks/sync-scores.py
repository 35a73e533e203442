#!/usr/bin/env python3
"""Scores `mixwrite sync` and its peers on a truth set made by research/sync-truth-set.py.

    sync-scores.py TRUTH_DIR MIXWRITE [--half report|choose|all]

For each pair of the half, in turn in one run: `mixwrite sync REF FILE --json`, `audio-offset-finder --find-offset-of
FILE --within REF --json` and `syncstart REF FILE -s -q` (both peers with their defaults), each timed. The error at
the file's start is |offset - true offset|; at its end, |offset + T·(1 + drift) - (true offset + T·(1 + true drift))|
with T the file's length (the peers say no drift: 0). Prints a Markdown table a pair and the worst errors, in ms, and
each tool's total time.
"""
import argparse
import json
import subprocess
import sys
import time


def timed(args):
    started = time.monotonic()
    r = subprocess.run(args, capture_output=True, text=True)
    return r, time.monotonic() - started


def mixwrite(tool, ref, f):
    r, t = timed([tool, "sync", ref, f, "--json"])
    s = json.loads(r.stdout)["sources"][0] if r.stdout.strip() else {}
    return s.get("offsetSeconds"), s.get("driftPPM") or 0.0, t


def offset_finder(ref, f):
    r, t = timed(["audio-offset-finder", "--find-offset-of", f, "--within", ref, "--json"])
    try:
        return json.loads(r.stdout.strip().splitlines()[-1])["time_offset"], 0.0, t
    except (ValueError, IndexError, KeyError):
        return None, 0.0, t


def syncstart(ref, f):
    r, t = timed(["syncstart", ref, f, "-s", "-q"])
    try:
        # "file_to_advance,seconds": advancing REF means FILE started later.
        name, seconds = r.stdout.strip().splitlines()[0].rsplit(",", 1)
        return (float(seconds) if name == ref else -float(seconds)), 0.0, t
    except (ValueError, IndexError):
        return None, 0.0, t


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("truth_dir")
    p.add_argument("mixwrite")
    p.add_argument("--half", default="report")
    a = p.parse_args()
    truth = [t for t in json.load(open(f"{a.truth_dir}/truth.json")) if a.half == "all" or t["half"] == a.half]
    tools = {"mixwrite": lambda r, f: mixwrite(a.mixwrite, r, f), "audio-offset-finder": offset_finder, "syncstart": syncstart}
    worst = {k: [0.0, 0.0] for k in tools}
    total = {k: 0.0 for k in tools}
    print("| pair | recorder | true offset, drift | " + " | ".join(f"{k} start / end (ms)" for k in tools) + " |")
    print("| --- | --- | --- | " + " | ".join("---" for _ in tools) + " |")
    for t in truth:
        end = lambda o, d: o + t["seconds"] * (1 + d / 1e6)
        cells = []
        for name, run in tools.items():
            o, d, seconds = run(t["reference"], t["file"])
            total[name] += seconds
            if o is None:
                cells.append("no answer")
                worst[name] = [float("inf")] * 2
                continue
            e = [abs(o - t["offsetSeconds"]) * 1e3, abs(end(o, d) - end(t["offsetSeconds"], t["driftPPM"])) * 1e3]
            worst[name] = [max(worst[name][i], e[i]) for i in range(2)]
            cells.append(f"{e[0]:.2f} / {e[1]:.2f}")
        print(f"| {t['name']} | {t['rate']} Hz {t['codec']}, {t['seconds']:.0f} s | {t['offsetSeconds']:+.3f} s, "
              f"{t['driftPPM']:+.1f} ppm | " + " | ".join(cells) + " |")
        sys.stdout.flush()
    print()
    for name in tools:
        print(f"{name}: worst {worst[name][0]:.2f} ms at the start, {worst[name][1]:.2f} ms at the end; "
              f"{total[name]:.1f} s in all")


if __name__ == "__main__":
    main()
