#!/usr/bin/env python3
"""The tests' reference for `mixwrite sync`: the same answer by another way.

    sync-reference.py REF FILE [--rate 16000] [--anchors 9] [--length 4]

Both decoded by the ffmpeg CLI to mono at RATE. Anchors of LENGTH seconds at 5 %, … 95 % of FILE are each looked for in
all of REF by normalised cross-correlation of the waveforms (audio-place.py's), kept where the correlation stands out
(over 0.2, and twice the best elsewhere); a least-squares line through the kept places (refitted without those 2 ms
or more off it: a reflection's peak) gives where FILE's time 0 lies on
REF's timeline and its clock's drift. Prints {"offsetSeconds", "driftPPM", "anchors"} as JSON.
"""
import argparse
import importlib.util
import json
import os
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("audio_place", os.path.join(here, "audio-place.py"))
audio_place = importlib.util.module_from_spec(spec)
spec.loader.exec_module(audio_place)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("ref")
    p.add_argument("file")
    p.add_argument("--rate", type=int, default=16000)
    p.add_argument("--anchors", type=int, default=9)
    p.add_argument("--length", type=float, default=4.0)
    a = p.parse_args()
    ref = audio_place.decode(a.ref, "0:a:0", a.rate)
    mine = audio_place.decode(a.file, "0:a:0", a.rate)
    n = int(a.length * a.rate)
    places = []
    for k in range(a.anchors):
        start = int((0.05 + 0.9 * k / max(1, a.anchors - 1)) * (len(mine) - n))
        segment = mine[start: start + n]
        if len(segment) < n or np.abs(segment).max() == 0:
            continue
        at, score, second = audio_place.place(segment, ref)
        if score > 0.2 and score > 2 * max(second, 0):
            places.append((start / a.rate, at / a.rate))
    if not places:
        json.dump({"offsetSeconds": None, "driftPPM": None, "anchors": 0}, sys.stdout)
        print()
        return
    x = np.array([q[0] for q in places])
    y = np.array([q[1] for q in places])
    # Theil-Sen first (the median of the pairwise slopes: a few reflections' peaks cannot pull it), then least squares
    # on the places near it.
    slopes = [(y[j] - y[i]) / (x[j] - x[i]) for i in range(len(x)) for j in range(i + 1, len(x)) if x[j] - x[i] > 1]
    scale = float(np.median(slopes)) if slopes else 1.0
    offset = float(np.median(y - scale * x))
    keep = np.abs(y - (offset + scale * x)) < 0.002
    for _ in range(3):
        if keep.sum() == 0:
            break
        if keep.sum() > 2 and x[keep].max() - x[keep].min() > 5:
            scale, offset = np.polyfit(x[keep], y[keep], 1)
        else:
            scale, offset = 1.0, float(np.median((y - x)[keep]))
        # A place 2 ms or more off the line is a reflection's peak, not the sound's: left out, and the line fitted again.
        keep = np.abs(y - (offset + scale * x)) < 0.002
    json.dump({"offsetSeconds": float(offset), "driftPPM": float((scale - 1) * 1e6), "anchors": int(keep.sum())}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
