import Foundation
import Testing
import TestSupport

/// One job on many machines: `--parts N --part K` and `mixwrite join`, against one machine's render of the same job.
@Suite("parts: a job rendered in parts and joined is one machine's render")
struct PartsTests {
    static let fx = Oracle.fixture("fx.mov"), base = Oracle.fixture("base.mov")
    /// Segments of 8 AAC frames (0.17 s), so that the 2-second fixtures' part boundaries fall inside segments and
    /// across several: the joins a part makes in the sound are tested, not only its first and last.
    static let shortSegments = ["MIXWRITE_AAC_SEGMENT_FRAMES": "8"]

    static func mixwrite(_ arguments: [String]) throws -> Oracle.Result {
        try Oracle.run(Oracle.mixwrite, arguments + ["--progress", "none"], environment: shortSegments, timeout: 300)
    }

    /// Renders `command` as `n` parts (in the order `order`) and joins them into `out`.
    static func renderParts(_ command: [String], out: String, n: Int, order: [Int]? = nil) throws {
        for k in order ?? Array(1...n) {
            let r = try mixwrite(command + ["-o", out, "--parts", "\(n)", "--part", "\(k)"])
            try #require(r.status == 0, "part \(k): \(r.stderr)")
            #expect(r.stderr.contains("part-\(k)-of-\(n).mov"), "\(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: out), "a part never writes OUT")
        let j = try Oracle.run(Oracle.mixwrite, ["join", out, "--keep-parts"], timeout: 120)
        try #require(j.status == 0, "join: \(j.stderr)")
    }

    /// Each frame's PSNR (RGB) against the same frame of `reference`.
    static func framePSNR(_ path: String, against reference: (width: Int, height: Int, frames: [[UInt8]])) throws -> [Double] {
        let movie = try Oracle.decodeRGB(path)
        try #require(movie.frames.count == reference.frames.count, "\(path): \(movie.frames.count) frames, not \(reference.frames.count)")
        return zip(movie.frames, reference.frames).map { Oracle.psnr($0, $1.map(Double.init)) }
    }

    /// The audio packets of a track as the file holds them (`-c copy`): pts, duration, size and md5 a packet.
    static func audioPackets(_ path: String, track: Int = 0) throws -> [String] {
        let r = try Oracle.ffmpeg(["-v", "error", "-i", path, "-map", "0:a:\(track)", "-c", "copy", "-f", "framemd5", "-"])
        try #require(r.status == 0, "\(r.stderr)")
        return r.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    }

    @Test("a blend in 4 parts, rendered out of order and joined: the same frames, no seam in the picture, the very sound")
    func blendInParts() throws {
        let dir = try Oracle.scratch()
        let one = dir + "/one.mov", lossless = dir + "/lossless.mov", joined = dir + "/joined.mov"
        let command = [Self.fx, Self.base]
        for (out, extra) in [(one, [String]()), (lossless, ["--crf", "0"])] {
            let r = try Self.mixwrite(command + ["-o", out] + extra)
            try #require(r.status == 0, "\(r.stderr)")
        }
        try Self.renderParts(command, out: joined, n: 4, order: [3, 1, 4, 2])

        // Each part starts with an IDR picture of its own closed GOP.
        for k in 1...4 {
            let part = joined + ".parts/part-\(k)-of-4.mov"
            let r = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame,pict_type",
                                                        "-read_intervals", "%+#1", "-of", "csv=p=0", part])
            #expect(r.stdoutText.hasPrefix("1,I"), "part \(k) starts with \(r.stdoutText)")
        }

        let (a, b) = (try Oracle.probe(one), try Oracle.probe(joined))
        #expect(a.video.first?.frames == 50 && b.video.first?.frames == 50, "frames: \(String(describing: b.video.first?.frames))")
        #expect(abs((a.audio.first?.duration ?? 0) - (b.audio.first?.duration ?? -1)) < 0.001, "sound's length")

        // No seam: per-frame PSNR against the lossless render, as good as one machine's render's.
        let reference = try Oracle.decodeRGB(lossless)
        let (pOne, pJoined) = (try Self.framePSNR(one, against: reference), try Self.framePSNR(joined, against: reference))
        let mean = { (x: [Double]) in x.reduce(0, +) / Double(x.count) }
        print("parts PSNR against lossless: one render mean \(mean(pOne)) min \(pOne.min()!), joined mean \(mean(pJoined)) min \(pJoined.min()!)")
        #expect(mean(pJoined) >= mean(pOne) - 0.5)
        #expect(pJoined.min()! >= pOne.min()! - 1.5)

        // No gap, no click: the decoded sound is as long, and the same, sample for sample.
        let (sOne, sJoined) = (try Oracle.decodeAudio(one, channels: 2), try Oracle.decodeAudio(joined, channels: 2))
        #expect(abs(sOne.count - sJoined.count) <= 2 * 48, "decoded: \(sOne.count) and \(sJoined.count) samples")
        let n = min(sOne.count, sJoined.count)
        let difference = zip(sOne.prefix(n), sJoined.prefix(n)).map { $0 - $1 }
        let level = Oracle.rms(difference[...]) - Oracle.rms(sOne[...])
        #expect(level <= -40, "the joined sound differs from one render's by \(level) dB")
        // Stronger: each part encodes the segments one machine's render does and keeps its own packets, so every
        // packet of the joined track is that render's.
        #expect(try Self.audioPackets(joined) == Self.audioPackets(one))
    }

    @Test("a concat in 3 parts with stems and --loudness, into MP4: the chapters, the stems' titles and every track's packets as one render's")
    func concatInParts() throws {
        let dir = try Oracle.scratch()
        let one = dir + "/one.mp4", joined = dir + "/joined.mp4"
        // With the publishing passes: every part measures the whole mix, and gets the gains one render gets.
        let command = ["concat", Self.fx, Self.base, "--stems", "--loudness", "-18", "--fade-out", "0.5"]
        let r = try Self.mixwrite(command + ["-o", one])
        try #require(r.status == 0, "\(r.stderr)")
        try Self.renderParts(command, out: joined, n: 3)
        let (a, b) = (try Oracle.probe(one), try Oracle.probe(joined))
        #expect(b.video.first?.frames == a.video.first?.frames && a.video.first?.frames == 100)
        #expect(b.chapters.map(\.title) == a.chapters.map(\.title) && b.chapters.count == 2)
        #expect(zip(a.chapters, b.chapters).allSatisfy { abs($0.start - $1.start) < 0.001 && abs($0.end - $1.end) < 0.001 })
        #expect(a.audio.count == 4 && b.audio.count == 4, "the mix and three stems")
        func titles(_ path: String) throws -> String {
            try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream=index:stream_tags=handler_name",
                                                "-show_entries", "stream_disposition=default", "-of", "csv=p=0", path]).stdoutText
        }
        let (tOne, tJoined) = (try titles(one), try titles(joined))
        #expect(tJoined == tOne && tOne.contains("clip1:1"), "\(tJoined) vs \(tOne)")
        for track in 0..<4 { #expect(try Self.audioPackets(joined, track: track) == Self.audioPackets(one, track: track), "track \(track)") }
    }

    @Test("into Matroska, in 2 parts: every packet's stream, time and length as one render's (its timestamps moved by nothing)")
    func matroskaInParts() throws {
        let dir = try Oracle.scratch()
        let one = dir + "/one.mkv", joined = dir + "/joined.mkv"
        let r = try Self.mixwrite([Self.fx, Self.base, "-o", one])
        try #require(r.status == 0, "\(r.stderr)")
        try Self.renderParts([Self.fx, Self.base], out: joined, n: 2)
        // In presentation order (part 2's pictures are coded in another order: its GOP starts at its first frame).
        func packets(_ path: String) throws -> [String] {
            try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "packet=stream_index,pts,duration", "-of", "csv=p=0", path])
                .stdoutText.split(separator: "\n").map(String.init)
                .sorted { a, b in a.split(separator: ",").compactMap { Int($0) }.lexicographicallyPrecedes(b.split(separator: ",").compactMap { Int($0) }) }
        }
        let (a, b) = (try packets(one), try packets(joined))
        #expect(a.count == b.count && a.count > 100)
        #expect(a == b, "first difference: \(zip(a, b).first { $0 != $1 }.map { "\($0.0) vs \($0.1)" } ?? "in count")")
        #expect(try Self.audioPackets(joined) == Self.audioPackets(one))
    }

    @Test("a missing, unfinished, damaged or foreign part: exit 2 naming it, nothing written; the part rendered again completes the set")
    func badParts() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/out.mov", parts = out + ".parts"
        func part(_ k: Int, of n: Int = 3, _ extra: [String] = []) throws {
            let r = try Self.mixwrite([Self.fx, Self.base, "-o", out, "--parts", "\(n)", "--part", "\(k)"] + extra)
            try #require(r.status == 0, "\(r.stderr)")
        }
        func join(naming name: String, _ why: String) throws {
            let r = try Oracle.run(Oracle.mixwrite, ["join", out], timeout: 120)
            #expect(r.status == 2, "\(why): exit \(r.status) \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(name), "\(why): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(why): nothing written")
            #expect(try Oracle.listing(dir).allSatisfy { !$0.hasSuffix(".tmp") }, "\(why): no temporary file left")
        }
        try join(naming: "out.mov.parts", "no part at all")
        try part(1); try part(3)
        try join(naming: "part-2-of-3.mov", "missing")
        try part(2, ["--threshold", "0.5"])
        try join(naming: "part-2-of-3.mov", "other settings")
        try part(2)
        let movie = parts + "/part-2-of-3.mov"
        let whole = try Data(contentsOf: URL(fileURLWithPath: movie))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: movie))
        try join(naming: "part-2-of-3.mov", "cut short")
        try FileManager.default.removeItem(atPath: parts + "/part-2-of-3.json")
        try join(naming: "part-2-of-3.mov", "no record: unfinished")
        try part(2, of: 4)
        try join(naming: "part-2-of-4", "one of 4 parts among 3")
        try FileManager.default.removeItem(atPath: parts + "/part-2-of-4.json")
        try FileManager.default.removeItem(atPath: parts + "/part-2-of-4.mov")

        // The failed part rendered again alone completes the set; the join removes the parts.
        try part(2)
        let j = try Oracle.run(Oracle.mixwrite, ["join", out], timeout: 120)
        #expect(j.status == 0, "\(j.stderr)")
        #expect(try Oracle.probe(out).video.first?.frames == 50)
        #expect(!FileManager.default.fileExists(atPath: parts), "the parts are removed after the join")

        // OUT there, without -y: a part is refused before it renders (exit 3), as the join would be.
        let again = try Self.mixwrite([Self.fx, Self.base, "-o", out, "--parts", "3", "--part", "1"])
        #expect(again.status == 3 && again.stderr.contains("already exists"), "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: parts))
    }

    @Test("refused at the start (exit 1): --part without --parts, K out of range, --start with parts, more parts than frames, AV1, Opus")
    func refusedOptions() throws {
        let dir = try Oracle.scratch()
        for (extra, says) in [(["--part", "1"], "--parts"), (["--parts", "2", "--part", "3"], "--part 3"),
                              (["--parts", "2"], "--part"), (["--parts", "2", "--part", "1", "--start", "1"], "--start"),
                              (["--parts", "60", "--part", "1"], "50 frames"), (["--parts", "2", "--part", "1", "--codec", "av1"], "av1"),
                              (["--parts", "2", "--part", "1", "--audio-codec", "opus", "-o", dir + "/o.mkv"], "opus")] {
            let out = extra.contains("-o") ? [String]() : ["-o", dir + "/out.mov"]
            let r = try Self.mixwrite([Self.fx, Self.base] + out + extra)
            #expect(r.status == 1, "\(extra): exit \(r.status) \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(says), "\(extra): \(r.stderr)")
        }
        #expect(try Oracle.listing(dir).isEmpty, "nothing written: \((try? Oracle.listing(dir)) ?? [])")
    }

    @Test("a job file with \"parts\": --tasks counts them, shards render them, --join joins; batch alone does both")
    func batchParts() throws {
        let dir = try ScriptingTests.jobFolder("""
            {"jobs": [{"kind": "blend", "fx": "fx.mov", "base": "base.mov", "output": "out/a.mov", "parts": 3},
                      {"kind": "concat", "clips": ["fx.mov", "base.mov"], "output": "out/b.mp4", "parts": 2},
                      {"kind": "remix", "movie": "fx.mov", "output": "out/c.mkv"}]}
            """)
        let jobs = dir + "/jobs.json"
        let tasks = try Oracle.run(Oracle.mixwrite, ["batch", jobs, "--tasks"], timeout: 60)
        #expect(tasks.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "6")
        for k in 1...3 {
            let r = try Oracle.run(Oracle.mixwrite, ["batch", jobs, "--shard", "\(k)/3", "--json", "-q"], environment: Self.shortSegments, timeout: 300)
            try #require(r.status == 0, "shard \(k): \(r.stderr)")
            let results = try ScriptingTests.json(r.stdout) as? [[String: Any]] ?? []
            #expect(results.count == 2, "shard \(k) runs two tasks")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/a.mov") && FileManager.default.fileExists(atPath: dir + "/out/c.mkv"))
        let join = try Oracle.run(Oracle.mixwrite, ["batch", jobs, "--join", "--json", "-q"], timeout: 120)
        try #require(join.status == 0, "\(join.stderr)")
        let joined = try ScriptingTests.json(join.stdout) as? [[String: Any]] ?? []
        #expect(joined.map { $0["index"] as? Int } == [0, 1] && joined.allSatisfy { $0["joined"] as? Bool == true })
        #expect(try Oracle.probe(dir + "/out/a.mov").video.first?.frames == 50)
        #expect(try Oracle.probe(dir + "/out/b.mp4").chapters.count == 2)

        // On one machine, batch renders every part and joins them itself: the same sound, packet for packet.
        let again = try Oracle.scratch("batchPartsAgain")
        for f in ["fx.mov", "base.mov", "jobs.json"] { try FileManager.default.copyItem(atPath: dir + "/" + f, toPath: again + "/" + f) }
        try FileManager.default.createDirectory(atPath: again + "/out", withIntermediateDirectories: true)
        let r = try Oracle.run(Oracle.mixwrite, ["batch", again + "/jobs.json", "-q"], environment: Self.shortSegments, timeout: 300)
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try Self.audioPackets(again + "/out/a.mov") == Self.audioPackets(dir + "/out/a.mov"))
        #expect(!FileManager.default.fileExists(atPath: again + "/out/a.mov.parts"))
    }
}
