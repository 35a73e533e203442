#!/usr/bin/env python3
"""Makes a truth set for `mixwrite sync`: pairs of recordings of one event whose true offset and clock drift are known.

    sync-truth-set.py OUT_DIR [--seeds 1-8] [--seconds 40] [--file-seconds S] [--speech FILE ...]

Each seed makes one scene: speech (espeak-ng's voices reading a seeded text with pauses, or the --speech recordings,
whole, one after another) with room tone, recorded twice. The reference ("camera") hears it through a far microphone: a seeded room's reverberation
(exponentially decaying noise, RT60 0.3 to 0.9 s, the direct sound first and 3 dB over to 6 dB under the reverberation), a camera microphone's colour (high-pass,
presence peak), the room's noise at 6 to 20 dB SNR, AAC at 48 kHz. The other ("recorder") hears it close: a drier room,
a lavalier's colour, its own noise, its own sample rate (8 to 192 kHz) and codec (FLAC, PCM, MP3, Opus, AAC), started
at a seeded offset (-5 to +20 s, before or after the camera; as much of it in a scene under 40 s) and cut at a seeded end (partial overlap), on a clock
that runs at a seeded drift (-150 to +150 ppm: one of its seconds lasts 1 + ppm/1e6 of the camera's).

Writes OUT_DIR/NAME-ref.m4a, OUT_DIR/NAME-file.EXT and OUT_DIR/truth.json: [{"name", "reference", "file",
"offsetSeconds", "driftPPM", "seconds", "half"}], "half" being "choose" for odd seeds and "report" for even ones (a
method is tuned on the first and reported on the second).
"""
import argparse
import json
import os
import subprocess
import tempfile

import numpy as np
from scipy import signal

RATE = 48000
WORDS = ("the quick camera crew met at noon to record a long scene near the river where every take was slated by hand "
         "and the sound man counted down before each line while the director watched the light fade over the hills "
         "nobody said a word when the plane passed overhead so the take was used as it was").split()


def speech(seed, seconds, extra):
    """Seeded speech at RATE: espeak-ng sentences with pauses, or the given files', until `seconds` long."""
    rng = np.random.default_rng(seed)
    out = []
    total = 0
    with tempfile.TemporaryDirectory() as tmp:
        n = 0
        while total < seconds * RATE:
            if extra:
                # The given recordings whole, one after another (a random cut of one would repeat its sound, which a
                # sync rightly finds twice).
                if n >= len(extra):
                    break
                path = extra[n]
            else:
                text = " ".join(rng.choice(WORDS, size=int(rng.integers(5, 14))))
                path = os.path.join(tmp, f"s{n}.wav")
                voice = ["en", "en-us", "en-gb", "de", "fr"][int(rng.integers(0, 5))]
                subprocess.run(["espeak-ng", "-v", voice, "-s", str(int(rng.integers(130, 190))), "-p",
                                str(int(rng.integers(20, 80))), "-w", path, text], check=True)
            x = decode(path)
            out += [x, np.zeros(int(rng.uniform(0.2, 1.5) * RATE))]
            total += len(x) + len(out[-1])
            n += 1
    x = np.concatenate(out)
    return np.concatenate([x, np.zeros(max(0, int(seconds * RATE) - len(x)))])[: int(seconds * RATE)]


def decode(path, rate=RATE):
    raw = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-ac", "1", "-ar", str(rate), "-f", "f64le", "-"],
                         check=True, capture_output=True).stdout
    return np.frombuffer(raw, dtype=np.float64).copy()


def room(rng, rt60, drr):
    """An impulse response: the direct sound at 0, then noise decaying by 60 dB over rt60 seconds, drr dB under it."""
    n = int(rt60 * RATE)
    t = np.arange(n) / RATE
    tail = rng.standard_normal(n) * np.exp(-6.9 * t / rt60)
    tail[: int(0.003 * RATE)] = 0  # the first reflection comes a few ms after the direct sound
    tail *= np.sqrt(10 ** (-drr / 10) / np.sum(tail * tail))
    tail[0] = 1.0
    return tail


def colour(x, kind):
    if kind == "camera":
        x = signal.sosfilt(signal.butter(2, 150, "highpass", fs=RATE, output="sos"), x)
        x = x + 0.5 * signal.sosfilt(signal.butter(2, [2500, 5000], "bandpass", fs=RATE, output="sos"), x)
    else:
        x = signal.sosfilt(signal.butter(2, 60, "highpass", fs=RATE, output="sos"), x)
        x = signal.sosfilt(signal.butter(2, 9000, "lowpass", fs=RATE, output="sos"), x)
    return x


def noise(rng, n, level):
    """Pinkish room tone: white noise through a gentle low-pass."""
    w = rng.standard_normal(n)
    return level * signal.sosfilt(signal.butter(1, 800, "lowpass", fs=RATE, output="sos"), w)


def at_times(x, times):
    """x (at RATE) at fractional sample times, by 4-tap cubic interpolation (the speech is band-limited far below)."""
    i = np.floor(times).astype(np.int64)
    f = times - i
    pad = np.concatenate(([0.0], x, [0.0, 0.0, 0.0]))
    i = np.clip(i + 1, 1, len(x))
    p0, p1, p2, p3 = pad[i - 1], pad[i], pad[i + 1], pad[i + 2]
    return p1 + 0.5 * f * (p2 - p0 + f * (2 * p0 - 5 * p1 + 4 * p2 - p3 + f * (3 * (p1 - p2) + p3 - p0)))


def write(x, path, rate, codec):
    raw = (x / max(1e-9, np.abs(x).max()) * 0.7).astype(np.float32).tobytes()
    args = {"aac": ["-c:a", "aac", "-b:a", "128k"], "mp3": ["-c:a", "libmp3lame", "-b:a", "128k"],
            "opus": ["-c:a", "libopus", "-b:a", "64k"], "flac": ["-c:a", "flac"], "pcm": ["-c:a", "pcm_s24le"]}[codec]
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-f", "f32le", "-ar", str(RATE), "-ac", "1", "-i", "-",
                    "-ar", str(rate)] + args + [path], input=raw, check=True)


def scene(seed, seconds, out_dir, extra, fixed_length=None):
    rng = np.random.default_rng(1000 + seed)
    # -5 to +20 s; in a scene shorter than 40 s, as much of it.
    offset = float(rng.uniform(-5, 20)) * min(1.0, seconds / 40)
    drift = float(rng.uniform(-150, 150))
    rate, codec, ext = [(8000, "pcm", "wav"), (16000, "flac", "flac"), (44100, "mp3", "mp3"), (48000, "opus", "opus"),
                        (96000, "flac", "flac"), (192000, "pcm", "wav"), (22050, "aac", "m4a"), (32000, "mp3", "mp3")][seed % 8]
    if codec == "opus":
        rate = 48000
    file_seconds = float(rng.uniform(0.5, 0.9)) * seconds
    if fixed_length:
        file_seconds = fixed_length
    # The event: long enough for both recordings wherever they lie on it.
    lead = max(0.0, -offset) + 1
    event = speech(seed, lead + max(seconds, offset + file_seconds * 1.001) + 2, extra)
    ref_dry = event[int(lead * RATE): int((lead + seconds) * RATE)]
    far = signal.fftconvolve(ref_dry, room(rng, float(rng.uniform(0.3, 0.9)), float(rng.uniform(-6, 3))))[: len(ref_dry)]
    ref = colour(far, "camera")
    ref += noise(rng, len(ref), np.std(ref) / 10 ** (float(rng.uniform(6, 20)) / 20))
    # The recorder's sample n (of its own nominal rate) is the event at reference time offset + n/rate · (1 + drift).
    n = int(file_seconds * RATE)
    times = (lead + offset) * RATE + np.arange(n) * (1 + drift / 1e6)
    close = at_times(event, times)
    close = signal.fftconvolve(close, room(rng, float(rng.uniform(0.1, 0.3)), float(rng.uniform(8, 15))))[:n]
    close = colour(close, "lavalier")
    close += noise(rng, n, np.std(close) / 10 ** (float(rng.uniform(15, 30)) / 20))
    name = f"scene{seed:02d}"
    ref_path, file_path = f"{out_dir}/{name}-ref.m4a", f"{out_dir}/{name}-file.{ext}"
    write(ref, ref_path, 48000, "aac")
    write(close, file_path, rate, codec)
    return {"name": name, "reference": ref_path, "file": file_path, "offsetSeconds": offset, "driftPPM": drift,
            "seconds": file_seconds, "rate": rate, "codec": codec, "half": "choose" if seed % 2 else "report"}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out_dir")
    p.add_argument("--seeds", default="1-8", help="a range A-B or a list A,B,…")
    p.add_argument("--seconds", type=float, default=40)
    p.add_argument("--speech", nargs="*", default=[])
    p.add_argument("--file-seconds", type=float, help="every recorder this long (default: 0.5 to 0.9 of the camera)")
    a = p.parse_args()
    seeds = (list(range(int(a.seeds.split("-")[0]), int(a.seeds.split("-")[1]) + 1)) if "-" in a.seeds
             else [int(s) for s in a.seeds.split(",")])
    os.makedirs(a.out_dir, exist_ok=True)
    truth = [scene(s, a.seconds, a.out_dir, a.speech, a.file_seconds) for s in seeds]
    with open(f"{a.out_dir}/truth.json", "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    main()
