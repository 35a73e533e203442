import Foundation
import Testing
import TestSupport

/// Every track's sound where its timestamps put it: a gap is silence of its length, a late track starts late, an
/// overlap is dropped, jitter is left alone. The sources are white noise (every second of it unlike every other), made
/// and re-timed by the ffmpeg CLI; where each second of it is heard in the output is read by cross-correlation against
/// the noise itself (research/audio-place.py).
@Suite("audio placed by its timestamps")
struct AudioTimingTests {
    /// 6 s of white noise, 48 kHz mono.
    static func noise(_ dir: String) throws -> String {
        let path = dir + "/noise.wav"
        let r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "anoisesrc=d=6:c=white:r=48000:a=0.3:seed=7", path])
        try #require(r.status == 0, "\(r.stderr)")
        return path
    }

    /// A Matroska movie: `seconds` of 320×240 pictures at 10 fps, and the noise as FLAC through `retime` (a filter on
    /// `[1:a]`, as the CLI's asetpts writes a recorder's dropout) or placed `late` seconds in.
    static func movie(_ dir: String, _ name: String, noise: String, seconds: Int = 9, retime: String? = nil,
                      late: Double? = nil) throws -> String {
        let path = dir + "/" + name
        var args = ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=10:d=\(seconds)"]
        if let late { args += ["-itsoffset", "\(late)"] }
        args += ["-i", noise]
        if let retime { args += ["-filter_complex", "[1:a]\(retime)[a]", "-map", "0:v", "-map", "[a]"] } else { args += ["-map", "0:v", "-map", "1:a"] }
        let r = try Oracle.ffmpeg(args + ["-c:v", "libx264", "-preset", "ultrafast", "-c:a", "flac", path])
        try #require(r.status == 0, "\(r.stderr)")
        return path
    }

    /// Where the noise's half second from `from` is heard in `out`, checked to be there at `expected` (±2 ms), clearly:
    /// looked for within 0.1 s of it (the old placement, 2 s off, finds only noise unlike it there).
    static func expectHeard(_ noise: String, from: Double, in out: String, at expected: Double, _ what: String,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let p = try Oracle.heard(noise, from: from, in: out, near: expected)
        #expect(abs(p.at - expected) < 0.002 && p.score > 0.5,
                "\(what): the noise's \(from) s is heard at \(p.at) s (correlation \(p.score)), not \(expected) s",
                sourceLocation: sourceLocation)
    }

    @Test("a 2 s gap in a FLAC track's timestamps is 2 s of silence, said once, in remix, blend and concat")
    func gapIsSilence() throws {
        let dir = try Oracle.scratch()
        let noise = try Self.noise(dir)
        let gap = try Self.movie(dir, "gap.mkv", noise: noise, retime: "asetpts='if(gte(T,3),PTS+2/TB,PTS)'")
        let base = Oracle.fixture("base.mov"), fx = Oracle.fixture("fx.mov")
        let clip = try Oracle.videoEnd(base)
        try Self.expectGap(noise, gap, dir, jobs: [("remix", ["remix", gap], 0), ("blend", [fx, gap, "--gain", "fx=-40"], 0),
                                                  ("concat", ["concat", base, gap], clip)])
    }

    @Test("the same gap in a timeline's clip (render)",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func gapInATimeline() throws {
        let dir = try Oracle.scratch()
        let noise = try Self.noise(dir)
        let gap = try Self.movie(dir, "gap.mkv", noise: noise, retime: "asetpts='if(gte(T,3),PTS+2/TB,PTS)'")
        let (otio, _) = try RenderTests.timeline(dir, "gap", "v = track(\"V1\", V); tl.tracks.append(v); v.append(clip(\"g\", \"\(gap)\", 0, 225))")
        try Self.expectGap(noise, gap, dir, jobs: [("render", ["render", otio], 0)])
    }

    /// Each job's output: the gap said once, the noise before and after it where its timestamps put it (the job's
    /// `start` on the output added), silence where the gap is.
    static func expectGap(_ noise: String, _ gap: String, _ dir: String, jobs: [(String, [String], Double)]) throws {
        for (kind, args, start) in jobs {
            let out = dir + "/\(kind).mp4"
            let r = try Oracle.mixwrite(args + ["-o", out, "--progress", "none"], timeout: 120)
            try #require(r.status == 0, "\(kind): \(r.stderr)")
            let said = r.stderr.split(separator: "\n").filter { $0.contains("gap.mkv:1: 2 s of silence inserted at 3.072 s (a gap in its timestamps)") }
            #expect(said.count == 1, "\(kind) says the gap once: \(r.stderr)")
            try Self.expectHeard(noise, from: 1, in: out, at: start + 1, "\(kind), before the gap")
            try Self.expectHeard(noise, from: 4, in: out, at: start + 6, "\(kind), after the gap")
            // Where the gap is, nothing: fx's tones end at 2 s (and are 40 dB down), concat's base comes before.
            let left = Oracle.channel(try Oracle.decodeAudio(out, channels: 2), 0, of: 2)
            let hole = Oracle.rms(left[Int((start + 3.2) * 48000)..<Int((start + 4.9) * 48000)])
            #expect(hole < -60, "\(kind): the gap is silent (\(hole) dBFS)")
        }
    }

    @Test("a Matroska track whose first packet lies 6 s in starts at 6 s; the plan says so")
    func lateTrackStartsLate() throws {
        let dir = try Oracle.scratch()
        let noise = try Self.noise(dir)
        let late = try Self.movie(dir, "late.mkv", noise: noise, seconds: 13, late: 6)
        let probe = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=start_time", "-of", "csv=p=0", late])
        #expect(Double(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)) == 0, "FFmpeg states 0 s: \(probe.stdoutText)")
        let out = dir + "/late.mp4"
        let r = try Oracle.mixwrite(["remix", late, "-o", out, "--progress", "none", "-v"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("starts at 6 s of the output"), "\(r.stderr)")
        try Self.expectHeard(noise, from: 1, in: out, at: 7, "the late track")
        try Self.expectHeard(noise, from: 4.5, in: out, at: 10.5, "the late track's end")
    }

    @Test("timestamps that step back 0.5 s (two MPEG-TS recordings joined) drop the overlap: what follows plays on time")
    func stepBackIsTrimmed() throws {
        let dir = try Oracle.scratch()
        let noise = try Self.noise(dir)
        // The second recording's timestamps begin 0.5 s before the first's end, as `cat a.ts b.ts` of two segments.
        for (name, args) in [("a.ts", ["-t", "3", "-i", noise]), ("b.ts", ["-ss", "3", "-i", noise, "-output_ts_offset", "2.5"])] {
            let r = try Oracle.ffmpeg(["-v", "error", "-y"] + args + ["-c:a", "mp2", "-b:a", "256k", dir + "/" + name])
            try #require(r.status == 0, "\(r.stderr)")
        }
        let joined = dir + "/ab.ts"
        _ = FileManager.default.createFile(atPath: joined, contents: try Data(contentsOf: URL(fileURLWithPath: dir + "/a.ts"))
                                                                + Data(contentsOf: URL(fileURLWithPath: dir + "/b.ts")))
        let out = dir + "/ab.m4a"
        let r = try Oracle.mixwrite(["remix", joined, "-o", out, "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("ab.ts:1: 0.51 s of sound dropped at 2.49 s (its timestamps step back over the sound before)"), "\(r.stderr)")
        // b.ts's 3 s is stamped 2.5 s; its first frame, 10 ms earlier, carries the mp2 encoder's delay.
        try Self.expectHeard(noise, from: 4, in: out, at: 3.5, "after the step back")
    }

    @Test("30 ms of jitter in the timestamps is left alone: no silence, no warning")
    func jitterIsIgnored() throws {
        let dir = try Oracle.scratch()
        let noise = try Self.noise(dir)
        let jitter = try Self.movie(dir, "jitter.mkv", noise: noise, retime: "asetpts='if(gte(T,3),PTS+0.03/TB,PTS)'")
        let out = dir + "/jitter.mp4"
        let r = try Oracle.mixwrite(["remix", jitter, "-o", out, "--progress", "none"], timeout: 120)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(!r.stderr.contains("warning"), "\(r.stderr)")
        try Self.expectHeard(noise, from: 4, in: out, at: 4, "after 30 ms of jitter")
    }
}
