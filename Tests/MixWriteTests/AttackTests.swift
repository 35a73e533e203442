import Foundation
import Testing
import TestSupport

/// What an attacker broke (each of these failed before it was fixed): racing writers, hostile numbers, damaged parts,
/// closed pipes and hung-up terminals.
@Suite("What an attacker broke", .serialized)
struct AttackTests {
    /// `mixwrite ARGUMENTS` started, not waited for, its stderr read as it comes.
    final class Running {
        /// What it said so far, added to by the pipe's reader.
        final class Said: @unchecked Sendable {
            let lock = NSLock()
            var text = ""
        }
        let process = Process()
        private let err = Pipe()
        private let said = Said()

        init(_ arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: Oracle.mixwrite)
            process.arguments = arguments
            (process.standardError, process.standardOutput) = (err, FileHandle.nullDevice)
            let said = self.said
            err.fileHandleForReading.readabilityHandler = { h in
                let data = h.availableData
                said.lock.withLock { said.text += String(decoding: data, as: UTF8.self) }
            }
            try process.run()
        }

        var stderr: String { said.lock.withLock { said.text } }

        /// Waits (at most `seconds`) until `condition` holds of what it said so far; whether it did.
        func wait(seconds: Double = 60, until condition: (String) -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if condition(stderr) { return true }
                if !process.isRunning { return condition(stderr) }
                usleep(20_000)
            }
            return false
        }

        /// Its exit status (killed after `seconds`: a hang is a failure, not a wait).
        func finish(seconds: Double = 120) -> Int32 {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { usleep(10_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                Issue.record("still running after \(seconds) s")
            }
            process.waitUntilExit()
            err.fileHandleForReading.readabilityHandler = nil
            return process.terminationStatus
        }
    }

    @Test("two writers of one output: the second is told who has it (exit 3), the first's movie is whole")
    func racingWriters() throws {
        let clip = try ReliabilityTests.longClip.get()
        let dir = try Oracle.scratch()
        let out = dir + "/x.mp4"
        // The first held still (SIGSTOP) once it is writing, holding its claim, while the second tries.
        let first = try Running([Oracle.fixture("fx.mov"), clip, "-o", out, "--progress", "json", "--length", "3"])
        #expect(first.wait { $0.contains("\"progress\"") }, "the first never started: \(first.stderr)")
        kill(first.process.processIdentifier, SIGSTOP)
        defer { kill(first.process.processIdentifier, SIGCONT) }
        // The same output spelt another way, with -y: still one output, still taken.
        let second = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/../" + (dir as NSString).lastPathComponent + "/x.mp4", "-y"])
        #expect(second.status == 3 && second.stderr.contains("is being written by another mixwrite (pid \(first.process.processIdentifier) on "),
                "\(second.stderr)")
        #expect(second.stderr.split(separator: "\n").count == 1)
        kill(first.process.processIdentifier, SIGCONT)
        #expect(first.finish() == 0, "\(first.stderr)")
        #expect(abs((try Oracle.probe(out).duration ?? 0) - 3) < 0.1, "the first's 3 s movie")
        #expect(try Oracle.listing(dir) == ["x.mp4"], "nothing left beside it")
    }

    @Test("a file that appears at OUT while a job runs is kept (exit 3); a link at OUT, even to nothing, needs -y")
    func appearedMeanwhile() throws {
        let clip = try ReliabilityTests.longClip.get()
        let dir = try Oracle.scratch()
        let out = dir + "/x.mp4"
        let job = try Running([Oracle.fixture("fx.mov"), clip, "-o", out, "--progress", "json", "--length", "3"])
        #expect(job.wait { $0.contains("\"progress\"") }, "\(job.stderr)")
        // Held still while another program writes OUT, so that the file is there before the job ends.
        kill(job.process.processIdentifier, SIGSTOP)
        let precious = Data("another program's file".utf8)
        #expect(FileManager.default.createFile(atPath: out, contents: precious))
        kill(job.process.processIdentifier, SIGCONT)
        #expect(job.finish() == 3 && job.stderr.contains("appeared while this job was writing it"), "\(job.stderr)")
        #expect(FileManager.default.contents(atPath: out) == precious)
        #expect(try Oracle.listing(dir) == ["x.mp4"])

        let link = dir + "/link.mp4"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: dir + "/nowhere.mp4")
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", link])
        #expect(r.status == 3 && r.stderr.contains("already exists"), "\(r.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == dir + "/nowhere.mp4")
    }

    @Test("two batch runs of one job file at once: each job done by one of them, the other told or skipping; no movie lost")
    func racingBatches() throws {
        let dir = try Oracle.scratch()
        for name in ["fx.mov", "base.mov"] { try FileManager.default.copyItem(atPath: Oracle.fixture(name), toPath: dir + "/" + name) }
        let jobs = (0..<4).map { #"{"kind": "concat", "clips": ["base.mov", "fx.mov", "base.mov"], "output": "out/\#($0).mp4"}"# }
        try Data(#"{"jobs": [\#(jobs.joined(separator: ",\n"))]}"#.utf8).write(to: URL(fileURLWithPath: dir + "/jobs.json"))
        let args = ["batch", dir + "/jobs.json", "--jobs", "1", "--skip-existing", "--json", "--progress", "none"]
        // Two processes at once (as a requeued Slurm task beside the first), each writing its summary to a file.
        let runs = try (0..<2).map { n -> Process in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "'\(Oracle.mixwrite)' \(args.map { "'\($0)'" }.joined(separator: " ")) > '\(dir)/summary\(n).json' 2>/dev/null"]
            try p.run()
            return p
        }
        for p in runs { p.waitUntilExit() }
        var done: [Int: Int] = [:]
        for n in 0..<2 {
            let results = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/summary\(n).json"))) as? [[String: Any]]) ?? []
            #expect(results.count == 4, "run \(n): \(results)")
            for r in results {
                let (index, status) = (r["index"] as? Int ?? -1, r["status"] as? String ?? "")
                if status == "done" { done[index, default: 0] += 1 }
                // The loser: told at its start (the other holds the output) or at its end (the other's movie is there).
                if status == "failed" {
                    let error = r["error"] as? String ?? ""
                    #expect(r["exitCode"] as? Int == 3 && (error.contains("is being written by another mixwrite")
                                                           || error.contains("appeared while this job was writing it")), "\(r)")
                }
            }
        }
        #expect((0..<4).allSatisfy { done[$0] == 1 }, "each job done once: \(done)")
        for k in 0..<4 { #expect(abs((try Oracle.probe("\(dir)/out/\(k).mp4").duration ?? 0) - 6) < 0.1) }
        #expect(try Oracle.listing(dir + "/out") == (0..<4).map { "\($0).mp4" })
    }

    /// A timeline of one clip (base.mov's 2 s) with `extra` (Python, OTIO's library: `tl`, `v`, `R`, `T`) done to it.
    static func timeline(_ dir: String, _ name: String, _ extra: String) throws -> String {
        try RenderTests.timeline(dir, name, """
        v = track("V1", V); tl.tracks.append(v); v.append(clip("a", "\(RenderTests.base)", 0, 50))
        \(extra)
        """).path
    }

    @Test("hostile numbers in a timeline are one-line refusals, never a trap",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"))
    func hostileTimelines() throws {
        let dir = try Oracle.scratch()
        let cases: [(String, String, String)] = [
            ("huge", #"v[0].source_range = otio.opentime.TimeRange(otio.opentime.RationalTime(99999999999.5, 0.01), T(50))"#, "past any media's time"),
            ("hugegap", "v.append(gap(30_000_000))", "past any media's time"),
            ("gaps", "v.extend([gap(2_000_000) for _ in range(150)])", "up to 100 hours"),
            ("long", "v.extend([gap(8_000_000) for _ in range(2)])", "up to 100 hours"),
            ("offset", #"v[0].metadata["mixwrite"] = {"offset": 1e300}"#, "offset"),
            ("negative", #"v[0].metadata["mixwrite"] = {"offset": -1e15}"#, "offset"),
            ("gain", #"v[0].metadata["mixwrite"] = {"gain": 300}"#, "gain"),
        ]
        for (name, extra, words) in cases {
            let otio = try Self.timeline(dir, name, extra)
            let r = try Oracle.mixwrite(["render", otio, "-o", dir + "/\(name).mp4"], timeout: 60)
            #expect(r.status == 1 && r.stderr.contains(words) && r.stderr.split(separator: "\n").count == 1, "\(name): exit \(r.status) \(r.stderr)")
        }
        #expect(try Oracle.listing(dir).allSatisfy { $0.hasSuffix(".otio") })
    }

    @Test("hostile numbers in a job file and on the command line: one-line refusals, never a trap or a hang")
    func hostileNumbers() throws {
        let dir = try Oracle.scratch()
        for (name, entry) in [("zero", #""parts": 0"#), ("negative", #""parts": -3"#), ("billion", #""parts": 1000000000"#)] {
            let file = "\(dir)/\(name).json"
            try Data(#"{"jobs": [{"kind": "blend", "fx": "\#(Oracle.fixture("fx.mov"))", "base": "\#(Oracle.fixture("base.mov"))", "output": "\#(dir)/\#(name).mp4", \#(entry)}]}"#.utf8)
                .write(to: URL(fileURLWithPath: file))
            let r = try Oracle.mixwrite(["batch", file, "--progress", "none"], timeout: 60)
            #expect(r.status == 1 && r.stderr.contains("--parts must be between 1 and 10000"), "\(name): exit \(r.status) \(r.stderr)")
        }
        let file = dir + "/zero.json"
        for shard in ["9223372036854775807/9223372036854775807", "1/9223372036854775807", "-9223372036854775807/3"] {
            let r = try Oracle.mixwrite(["batch", file, "--shard", shard, "--progress", "none"], timeout: 60)
            #expect([0, 1].contains(r.status) && !r.stderr.contains("Fatal error"), "--shard \(shard): exit \(r.status) \(r.stderr)")
        }
        for (variable, value) in [("SLURM_ARRAY_TASK_ID", "9223372036854775807"), ("SLURM_ARRAY_TASK_ID", "-9223372036854775808"),
                                  ("JOB_COMPLETION_INDEX", "9223372036854775807")] {
            let r = try Oracle.run(Oracle.mixwrite, ["batch", file, "--shard", "auto", "--shards", "4"], environment: [variable: value])
            #expect(r.status == 1 && r.stderr.contains("is not a task index"), "\(variable)=\(value): exit \(r.status) \(r.stderr)")
        }
        // Every job at once, however many asked: the batch ends.
        let good = dir + "/good.json"
        try Data(#"{"jobs": [{"kind": "remix", "movie": "\#(Oracle.fixture("base.mov"))", "output": "\#(dir)/good.mov"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: good))
        let many = try Oracle.mixwrite(["batch", good, "--jobs", "9223372036854775807", "--progress", "none"], timeout: 60)
        #expect(many.status == 0, "\(many.stderr)")
        // A job file nested deeper than any job is: refused, not a stack overflow.
        let deep = dir + "/deep.json"
        try Data((String(repeating: "[", count: 50_000) + String(repeating: "]", count: 50_000)).utf8).write(to: URL(fileURLWithPath: deep))
        let d = try Oracle.mixwrite(["batch", deep], timeout: 60)
        #expect(d.status == 2 && d.stderr.contains("nested deeper than 64") && d.stderr.split(separator: "\n").count == 1, "exit \(d.status) \(d.stderr)")
    }

    @Test("an .otioz whose timeline inflates past 32 MB is refused before it is inflated")
    func inflationBomb() throws {
        let dir = try Oracle.scratch()
        let bomb = dir + "/bomb.otioz"
        let script = """
        import sys, zipfile
        with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("content.otio", '{"OTIO_SCHEMA": "Timeline.1", "name": "' + " " * (40 << 20) + '"}')
            z.writestr("version.txt", "1.0.0")
        """
        let made = try Oracle.run("/usr/bin/env", ["python3", "-c", script, bomb])
        try #require(made.status == 0, "\(made.stderr)")
        let r = try Oracle.mixwrite(["render", bomb, "-o", dir + "/o.mp4"], timeout: 60)
        #expect(r.status == 1 && r.stderr.contains("more than a timeline mixwrite reads (32 MB)"), "\(r.stderr)")
    }

    @Test("join refuses a part damaged in place (its size kept): exit 2 naming it, the parts kept")
    func damagedPart() throws {
        let dir = try Oracle.scratch()
        let out = dir + "/joined.mp4"
        for k in 1...2 {
            let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "--parts", "2", "--part", "\(k)"])
            try #require(r.status == 0, "\(r.stderr)")
        }
        let part = out + ".parts/part-2-of-2.mov"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: part)))
        for i in 0..<64 { bytes[bytes.count * 2 / 3 + i] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: part))
        let r = try Oracle.mixwrite(["join", out])
        #expect(r.status == 2 && r.stderr.contains("part-2-of-2.mov: is not the file its part wrote"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(try Oracle.listing(out + ".parts").count == 4, "the parts and their records kept")
    }

    /// `base` with 32 bytes damaged mid-payload in its P or B picture shown at frame `frame` (a GOP's middle): a
    /// packet that still parses, whose damage FFmpeg's decoder conceals (required: `-xerror` on one thread fails).
    static func damaged(_ base: String, frame: Int, into out: String) throws {
        let r = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=pts_time,pos,size,flags",
                                                     "-of", "csv=p=0", base])
        let rows = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        let row = try #require(rows.first { abs((Double($0[0]) ?? -1) - Double(frame) / 30) < 0.01 })
        let (pos, size) = (try #require(Int(row[2])), try #require(Int(row[1])))
        try #require(!row[3].contains("K") && size > 200, "a picture with room to damage: \(row)")
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: base)))
        for i in 0..<32 { bytes[pos + size / 2 + i] = UInt8((i * 37 + 11) & 0xFF) }
        try Data(bytes).write(to: URL(fileURLWithPath: out))
        let check = try Oracle.ffmpeg(["-v", "error", "-threads", "1", "-xerror", "-i", out, "-f", "null", "-"])
        try #require(check.status != 0, "FFmpeg sees the damage")
    }

    @Test("smart rendering does not copy a GOP with a damaged picture: it is encoded and counted, the output decodes clean; --strict stops; concat the same")
    func damagedGOP() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try SmartRenderTests.inputs(in: dir)
        let bad = dir + "/bad.mp4"
        // base's GOPs are 10 frames; fx covers frames 0…60; the damage is in GOP 80…89 (frame 83, a P picture: damage in
        // a B picture no reference follows may decode without an error FFmpeg detects, and is then not found).
        try Self.damaged(base, frame: 83, into: bad)
        func clean(_ path: String) throws -> Bool {
            try Oracle.ffmpeg(["-v", "error", "-threads", "1", "-xerror", "-i", path, "-f", "null", "-"]).status == 0
        }
        for (name, arguments) in [("blend", [fx, bad]), ("concat", ["concat", base, bad])] {
            let out = dir + "/\(name).mp4"
            let r = try Oracle.mixwrite(arguments + ["-o", out, "--json", "--progress", "none"])
            let video = try SmartRenderTests.report(r)
            let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
            let offset = name == "concat" ? 4.0 : 0
            let copied = SmartRenderTests.spans(video, "copiedSpans")
            #expect(!copied.contains { $0[0] < offset + 2.99 && $0[1] > offset + 2.67 }, "\(name): the damaged GOP not copied: \(copied)")
            #expect((video["copiedFrames"] as? Int ?? 0) >= (name == "concat" ? 110 : 30), "\(name): the clean GOPs still copied")
            #expect((report["damagedPackets"] as? Int ?? 0) > 0 && (video["smartReason"] as? String ?? "").contains("damaged picture at 2.767s"),
                    "\(name): \(report["damagedPackets"] ?? "") \(video["smartReason"] ?? "")")
            #expect(r.stderr.contains("bad.mp4: "), "\(name): the file named in a warning: \(r.stderr)")
            #expect(try clean(out), "\(name): the output decodes without an error")
            let strict = try Oracle.mixwrite(arguments + ["-o", dir + "/strict.mp4", "--strict", "--progress", "none"])
            #expect(strict.status == 4 && strict.stderr.contains("error: \(bad): a damaged picture at 2.767s"), "\(name): \(strict.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/strict.mp4"))
        }
        // --trust-copies: not decoded first, the damaged GOP copied as it is (what it is for: a copy's speed).
        let trusted = try SmartRenderTests.report(try Oracle.mixwrite([fx, bad, "-o", dir + "/trusted.mp4", "--trust-copies", "--json", "--progress", "none"]))
        #expect(SmartRenderTests.spans(trusted, "copiedSpans").contains { $0[0] <= 2.67 && $0[1] >= 2.99 }, "\(trusted)")
    }

    @Test("a timeline of 50 one-frame clips cut from one file, end to end, is that file's sound to the sample (the clips read one after another on one lane of the mix, each sought into its file)",
          .enabled(if: Oracle.hasOTIO, "python3's opentimelineio is not installed (scripts/install-deps.sh test installs it)"),
          arguments: ["pcm_s16le", "aac"])
    func clipsEndToEnd(codec: String) throws {
        let dir = try Oracle.scratch()
        let source = dir + "/chirp.mov"
        // A chirp: a sample's slip at any of the 49 cuts is a large difference.
        try LayerTests.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=6", "-f", "lavfi", "-i",
                             "aevalsrc=0.3*sin(2*PI*(200+300*t)*t)|0.3*sin(2*PI*(300+200*t)*t):s=48000:d=6",
                             "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", codec, source])
        // Frames 75 … 124 (3 s to 5 s): each clip's sound lies over 2 s into its file, so its reading is sought there.
        let tl = try RenderTests.timeline(dir, "cuts", """
        v = track("V1", V); tl.tracks.append(v)
        for k in range(50): v.append(clip(f"c{k}", "\(source)", 75 + k, 1))
        """)
        let out = dir + "/cuts.mov"
        let r = try Oracle.mixwrite(["render", tl.path, "-o", out, "--audio-codec", "pcm", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let a = Array(try Oracle.decodeAudio(source)[(3 * 48000 * 2)..<(5 * 48000 * 2)]), b = try Oracle.decodeAudio(out)
        #expect(b.count == a.count, "2 s of stereo at 48 kHz")
        let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 2.0 / 32768, "the largest difference: \(worst * 32768) of 32768")
    }

    @Test("a closed pipe does not stop a render, and its report's loss is said; SIGHUP stops one as SIGTERM does (exit 129)")
    func pipesAndHangups() throws {
        let clip = try ReliabilityTests.longClip.get()
        let dir = try Oracle.scratch()
        // The progress lines into `head -n 1`, which exits after the first: the render goes on to its end.
        let out = dir + "/piped.mp4"
        let piped = try Oracle.run("/bin/bash", ["-c", "set -o pipefail; '\(Oracle.mixwrite)' '\(Oracle.fixture("fx.mov"))' '\(clip)' -o '\(out)' --length 3 "
                                                 + "--progress json 2>&1 | head -n 1; echo \"${PIPESTATUS[0]}\" > '\(dir)/status'"])
        #expect(piped.status == 0 || piped.status == 141)
        #expect((try? String(contentsOfFile: dir + "/status", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == "0",
                "mixwrite's own exit")
        #expect(abs((try Oracle.probe(out).duration ?? 0) - 3) < 0.1)
        // The JSON report to a closed pipe: the movie is written, the loss said on stderr.
        let report = dir + "/report.mp4"
        let r = try Oracle.run("/bin/bash", ["-c", "'\(Oracle.mixwrite)' '\(Oracle.fixture("fx.mov"))' '\(Oracle.fixture("base.mov"))' -o '\(report)' --json "
                                             + "| true; echo \"${PIPESTATUS[0]}\" >&2"])
        #expect(r.stderr.hasSuffix("0\n") && FileManager.default.fileExists(atPath: report), "\(r.stderr)")

        try FileManager.default.removeItem(atPath: out)
        let job = try Running([Oracle.fixture("fx.mov"), clip, "-o", out, "--progress", "json"])
        #expect(job.wait { $0.contains("\"progress\"") }, "\(job.stderr)")
        kill(job.process.processIdentifier, SIGHUP)
        #expect(job.finish(seconds: 30) == 129, "\(job.stderr)")
        #expect(try Oracle.listing(dir).sorted() == ["report.mp4", "status"], "nothing of the stopped render left")
    }

    @Test("a file name with a newline is said on one line")
    func newlineInName() throws {
        let dir = try Oracle.scratch()
        let odd = dir + "/two\nlines.mov"
        let r = try Oracle.mixwrite([odd, Oracle.fixture("base.mov"), "-o", dir + "/o.mp4"])
        #expect(r.status == 2 && r.stderr.split(separator: "\n").count == 1 && r.stderr.contains("two\\nlines.mov"), "\(r.stderr)")
    }

    @Test("a VP9 stream FFmpeg's mp4 muxer cannot describe is not written as a movie no reader opens (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus's corrupt VP9 file is not run"))
    func unreadableCopy() throws {
        let corpus = try #require(Oracle.corpus)
        let dir = try Oracle.scratch()
        let r = try Oracle.mixwrite(["remix", corpus + "/corrupt/vp9_invalid_bitstream.webm", "-o", dir + "/o.mp4"], timeout: 60)
        #expect([2, 4].contains(r.status) && r.stderr.split(separator: "\n").count == 1, "exit \(r.status) \(r.stderr)")
        #expect(try Oracle.listing(dir).isEmpty)
    }
}
