#!/usr/bin/env python3
"""Where a stretch of one file's sound is heard in another: the tests' independent reading of audio timing.

    audio-place.py REF FILE [--from S] [--length L] [--rate HZ] [--stream 0:a:0] [--ref-stream 0:a:0]

REF's sound from S for L seconds (its own time, after its start) is looked for in the whole of FILE's by normalised
cross-correlation (numpy's FFT, both decoded by the ffmpeg CLI to mono at HZ), refined between samples by a parabola
through the peak. Prints one JSON object: {"at": seconds in FILE, "score": the correlation there (1: the same
sound), "second": the best score at least L/2 away from the first (a repeated sound scores as high)}.
"""
import argparse
import json
import subprocess
import sys

import numpy as np


def decode(path, stream, rate):
    out = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-map", stream, "-ac", "1", "-ar", str(rate),
                          "-f", "f32le", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(out, dtype=np.float32).astype(np.float64)


def place(segment, whole):
    m, n = len(segment), len(whole)
    if m < 16 or n < m:
        raise SystemExit(f"audio-place: the segment ({m} samples) does not fit in the file ({n})")
    segment = segment - segment.mean()
    size = 1 << int(np.ceil(np.log2(n + m)))
    corr = np.fft.irfft(np.fft.rfft(whole, size) * np.conj(np.fft.rfft(segment, size)), size)[: n - m + 1]
    # The file's energy and mean under each placement of the segment, for the normalisation.
    c1 = np.concatenate(([0.0], np.cumsum(whole)))
    c2 = np.concatenate(([0.0], np.cumsum(whole * whole)))
    sums = c1[m:] - c1[:-m]
    energy = np.maximum(c2[m:] - c2[:-m] - sums * sums / m, 1e-12)
    ncc = corr / np.sqrt(energy * np.dot(segment, segment))
    k = int(np.argmax(ncc))
    offset = 0.0
    if 0 < k < len(ncc) - 1:
        a, b, c = ncc[k - 1], ncc[k], ncc[k + 1]
        denominator = a - 2 * b + c
        if denominator < 0:
            offset = 0.5 * (a - c) / denominator
    far = np.abs(np.arange(len(ncc)) - k) >= m // 2
    second = float(ncc[far].max()) if far.any() else 0.0
    return k + offset, float(ncc[k]), second


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("ref")
    p.add_argument("file")
    p.add_argument("--from", dest="start", type=float, default=0.0)
    p.add_argument("--length", type=float, default=1.0)
    p.add_argument("--rate", type=int, default=8000)
    p.add_argument("--stream", default="0:a:0")
    p.add_argument("--ref-stream", default="0:a:0")
    a = p.parse_args()
    ref = decode(a.ref, a.ref_stream, a.rate)
    whole = decode(a.file, a.stream, a.rate)
    first = int(round(a.start * a.rate))
    segment = ref[first: first + int(round(a.length * a.rate))]
    at, score, second = place(segment, whole)
    json.dump({"at": at / a.rate, "score": score, "second": second}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
