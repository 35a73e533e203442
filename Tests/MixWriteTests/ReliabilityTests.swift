import Foundation
import Testing
import TestSupport

/// Nothing lost, nothing partial, no crash, no hang.
@Suite("reliability", .serialized)
struct ReliabilityTests {
    /// A longer clip (so a run can be interrupted halfway), made once.
    static let longClip: Result<String, any Error> = Result {
        let dir = try Oracle.scratch("long")
        let path = dir + "/long.mov"
        let r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x360:r=30:d=40", "-f", "lavfi", "-i",
                                   "sine=f=300:r=48000:d=40", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", path])
        guard r.status == 0 else { throw OracleError(r.stderr) }
        return path
    }

    /// The outcome every bad input must have: a clean error (exit 2 or 4, one line naming the file, nothing
    /// left) or a correct output that decodes without errors; never a crash, a hang or a partial file.
    static func expectCleanOutcome(_ r: Oracle.Result, output: String, folder: String, input: String,
                                   streams: String? = nil, _ comment: String) throws {
        #expect(r.signal == nil, "\(comment): killed by signal \(r.signal ?? 0) (crash or hang)")
        #expect([0, 2, 4].contains(r.status), "\(comment): exit \(r.status) \(r.stderr)")
        let errors = r.stderr.split(separator: "\n").filter { $0.hasPrefix("mixwrite: error:") }
        #expect(errors.count <= 1, "\(comment): \(r.stderr)")
        #expect(try !Oracle.listing(folder).contains { $0.contains(".mixwrite-") }, "\(comment): a temporary file was left")
        if r.status == 0 {
            let decode = try Oracle.ffmpeg(["-v", "error", "-i", output] + (streams.map { ["-map", $0] } ?? []) + ["-f", "null", "-"])
            // With `streams`, only those streams' decoders count (ffmpeg also reads a little of the others to probe).
            let complaints = decode.stderr.split(separator: "\n").filter { line in
                streams == nil || !(line.hasPrefix("[h264") || line.hasPrefix("[hevc") || line.hasPrefix("[mpeg4") || line.hasPrefix("  "))
            }
            #expect(decode.status == 0 && complaints.isEmpty, "\(comment): output does not decode cleanly: \(decode.stderr)")
        } else {
            #expect(!FileManager.default.fileExists(atPath: output), "\(comment): failed but left \(output)")
            #expect(errors.first.map { $0.contains((input as NSString).lastPathComponent) || $0.contains(output) } ?? false,
                    "\(comment): the error does not name the file: \(r.stderr)")
        }
    }

    @Test("the output may not be an input by inode (a hard link), even with -y")
    func hardLinkedOutput() throws {
        let dir = try Oracle.scratch()
        let base = dir + "/base.mov", link = dir + "/link.mov"
        try FileManager.default.copyItem(atPath: Oracle.fixture("base.mov"), toPath: base)
        try FileManager.default.linkItem(atPath: base, toPath: link)
        let before = FileManager.default.contents(atPath: base)
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), base, "-o", link, "-y"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("is also an input"), "\(r.stderr)")
        #expect(FileManager.default.contents(atPath: base) == before)
    }

    /// How fast a stop is belongs to `Benchmarks/stop-latency.sh`; here only that it stops at all (a hang guard).
    @Test("SIGINT and SIGTERM stop a run, remove the temporary file, keep the old output", arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func signals(_ signal: Int32, _ code: Int32) throws {
        let clip = try Self.longClip.get()
        let dir = try Oracle.scratch()
        let out = dir + "/out.mov"
        let old = Data("the previous output".utf8)
        #expect(FileManager.default.createFile(atPath: out, contents: old))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Oracle.mixwrite)
        p.arguments = [Oracle.fixture("fx.mov"), clip, "-o", out, "-y", "-q"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        // Wait until the run is writing its temporary file.
        let deadline = Date().addingTimeInterval(20)
        while try !Oracle.listing(dir).contains(where: { $0.contains(".mixwrite-") }) && p.isRunning && Date() < deadline {
            usleep(20_000)
        }
        usleep(300_000)
        #expect(p.isRunning, "the run ended before it could be interrupted")
        kill(p.processIdentifier, signal)
        // The hang guard: a run that has not stopped long after the signal is killed, and the test fails.
        let guardDeadline = Date().addingTimeInterval(30)
        while p.isRunning && Date() < guardDeadline { usleep(10_000) }
        if p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            Issue.record("still running 30 s after the signal")
        }
        p.waitUntilExit()
        #expect(p.terminationReason == .exit && p.terminationStatus == code, "exit \(p.terminationStatus)")
        #expect(try Oracle.listing(dir) == ["out.mov"], "left: \((try? Oracle.listing(dir)) ?? [])")
        #expect(FileManager.default.contents(atPath: out) == old)
    }

    @Test("a full disk is exit 3 'no space left on device' with nothing left (tmpfs, as root)",
          .enabled(if: Oracle.canMountTmpfs, "cannot mount a small tmpfs here: the full-disk test needs root"))
    func fullDisk() throws {
        let dir = try Oracle.scratch()
        let mount = try Oracle.run("/bin/mount", ["-t", "tmpfs", "-o", "size=40k", "tmpfs", dir])
        try #require(mount.status == 0, "mount: \(mount.stderr)")
        defer { _ = try? Oracle.run("/bin/umount", [dir]) }
        let out = dir + "/out.mov"
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out], timeout: 60)
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.contains("no space left on device"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(try Oracle.listing(dir).isEmpty, "left: \((try? Oracle.listing(dir)) ?? [])")
    }

    @Test("a missing output folder is exit 3")
    func missingFolder() throws {
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", "/nonexistent/dir/out.mov"])
        #expect(r.status == 3)
        #expect(r.stderr.contains("does not exist"), "\(r.stderr)")
    }

    /// Damaged copies of the fixtures: truncated, empty, bit-flipped, garbage-prefixed, made with a fixed seed.
    static func damagedCopies(_ dir: String, count: Int, seed: UInt64) throws -> [String] {
        var rng = SplitMix64(seed: seed)
        var files: [String] = []
        let sources = ["fx.mov", "base.mov", "tone.m4a", "noaudio.mov"]
        for i in 0..<count {
            let name = sources[i % sources.count]
            var bytes = [UInt8](FileManager.default.contents(atPath: Oracle.fixture(name))!)
            switch i % 5 {
            case 0: bytes = Array(bytes.prefix(Int(rng.next() % UInt64(bytes.count))))          // truncated
            case 1: bytes = i < 5 ? [] : Array(bytes.prefix(64))                               // empty or a header only
            case 2: for _ in 0..<20 { bytes[Int(rng.next() % UInt64(bytes.count))] ^= UInt8(1 << (rng.next() % 8)) }
            case 3: for _ in 0..<3 {                                                             // a run of garbage
                let at = Int(rng.next() % UInt64(bytes.count)), n = min(200, bytes.count - at)
                for k in 0..<n { bytes[at + k] = UInt8(truncatingIfNeeded: rng.next()) }
            }
            default: bytes = (0..<512).map { _ in UInt8(truncatingIfNeeded: rng.next()) } + bytes // garbage prefix
            }
            let path = dir + "/damaged\(i)-" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            files.append(path)
        }
        return files
    }

    @Test("damaged copies of the fixtures, as fx, base, concat clip and --audio: a clean error or a clean output")
    func damagedFixtures() throws {
        let dir = try Oracle.scratch()
        let inputs = try Self.damagedCopies(dir, count: 20, seed: 0x6D69_7877)
        let outDir = try Oracle.scratch("damaged-out")
        for (i, input) in inputs.enumerated() {
            let out = outDir + "/o\(i).mov"
            let mode = i % 4
            let args: [String]
            switch mode {
            case 0: args = [input, Oracle.fixture("base.mov"), "-o", out]
            case 1: args = [Oracle.fixture("fx.mov"), input, "-o", out]
            case 2: args = ["concat", Oracle.fixture("base.mov"), input, "-o", out]
            default: args = [Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--audio", input, "-o", out]
            }
            let r = try Oracle.mixwrite(args, timeout: 60)
            try Self.expectCleanOutcome(r, output: out, folder: outDir, input: input, "\(input) (mode \(mode))")
        }
    }

    @Test("seeded mutation fuzzing of the input side (probe and remix), bounded")
    func fuzzInputSide() throws {
        let dir = try Oracle.scratch()
        let inputs = try Self.damagedCopies(dir, count: 40, seed: 0xF022)
        let outDir = try Oracle.scratch("fuzz-out")
        for (i, input) in inputs.enumerated() {
            let probe = try Oracle.mixwrite(["probe", "--json", input], timeout: 30)
            #expect(probe.signal == nil && [0, 2].contains(probe.status), "probe \(input): \(probe.status) \(probe.stderr)")
            let out = outDir + "/r\(i).mkv"
            let r = try Oracle.mixwrite(["remix", input, "-o", out], timeout: 60)
            // remix copies the video as it is, damage included: what it makes anew, the audio, must be clean.
            try Self.expectCleanOutcome(r, output: out, folder: outDir, input: input, streams: "0:a", "remix \(input)")
        }
    }

    @Test("every file of the corrupt corpus, in every role (MIXWRITE_CORPUS)",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corrupt corpus is not run"))
    func corruptCorpus() throws {
        let corpus = try #require(Oracle.corpus)
        let files = try Oracle.listing(corpus + "/corrupt").map { corpus + "/corrupt/" + $0 }
        #expect(!files.isEmpty)
        let outDir = try Oracle.scratch("corrupt-out")
        for (i, input) in files.enumerated() {
            let roles: [(String, [String])] = [
                ("fx", [input, Oracle.fixture("base.mov")]), ("base", [Oracle.fixture("fx.mov"), input]),
                ("concat clip", ["concat", input, Oracle.fixture("base.mov")]),
                ("--audio", [Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--audio", input]),
            ]
            for (j, (role, args)) in roles.enumerated() {
                let out = outDir + "/c\(i)-\(j).mov"
                let r = try Oracle.mixwrite(args + ["-o", out], timeout: 120)
                try Self.expectCleanOutcome(r, output: out, folder: outDir, input: input, "\(input) as \(role)")
            }
        }
    }

    /// A VP9 clip (IVF, 320×240, 10 frames) whose every frame's first bytes are overwritten: it probes as video, and no
    /// picture of it decodes (the corpus's vp9_invalid_bitstream.webm, made here).
    static func undecodableClip(in dir: String) throws -> String {
        let path = dir + "/undecodable.ivf"
        let r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=s=320x240:r=25:d=0.4", "-c:v", "libvpx-vp9",
                                   "-deadline", "realtime", path])
        try #require(r.status == 0, "\(r.stderr)")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var at = 32   // IVF: a 32-byte header, then each frame's 4-byte size, 8-byte time and data
        while at + 12 <= bytes.count {
            let size = Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
            for k in at + 12 ..< min(at + 18, at + 12 + size) { bytes[k] = 0xAA }
            at += 12 + size
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("an fx or a layer with no decodable picture is refused as concat refuses it: exit 2 naming it, nothing written")
    func undecodableFx() throws {
        let dir = try Oracle.scratch()
        let bad = try Self.undecodableClip(in: dir)
        for (role, args) in [("fx", [bad, Oracle.fixture("base.mov")]),
                             ("layer", [Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--layer", bad + ":at=0.5:place=0,0,160,120"]),
                             ("concat clip", ["concat", bad, Oracle.fixture("base.mov")])] {
            let out = dir + "/\(role).mov"
            let r = try Oracle.mixwrite(args + ["-o", out, "--progress", "none"], timeout: 120)
            #expect(r.status == 2 && r.stderr.contains("undecodable.ivf: has no decodable picture")
                    && r.stderr.split(separator: "\n").count == 1, "\(role): exit \(r.status) \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(role): \(out) was written")
        }
        #expect(try Oracle.listing(dir) == ["undecodable.ivf"])
    }

    @Test("damaged packets are said by file, with where the first was: remix and a blend's --audio")
    func damageNamed() throws {
        let dir = try Oracle.scratch()
        let damaged = try Self.damagedCopies(dir, count: 3, seed: 7)[2]   // bit flips: decodes with damaged packets
        let name = (damaged as NSString).lastPathComponent
        for (what, args) in [("remix", ["remix", damaged]), ("--audio", [Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--audio", damaged])] {
            let r = try Oracle.mixwrite(args + ["-o", dir + "/\(what).mov", "--json"], timeout: 120)
            try #require(r.status == 0, "\(what): \(r.stderr)")
            let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
            let count = report?["damagedPackets"] as? Int ?? 0
            let warnings = report?["warnings"] as? [String] ?? []
            let line = warnings.first { $0.contains("damaged") } ?? ""
            #expect(count > 0 && line.hasPrefix(damaged + ": \(count) damaged packet") && line.contains("(the first near "),
                    "\(what): \(count) damaged, warnings \(warnings)")
            #expect(r.stderr.contains("mixwrite: warning: " + damaged) && r.stderr.contains(name), "\(what): \(r.stderr)")
        }
    }

    @Test("--strict fails at the first damaged packet instead of skipping it")
    func strict() throws {
        let dir = try Oracle.scratch()
        let inputs = try Self.damagedCopies(dir, count: 3, seed: 7)
        let damaged = inputs[2]   // bit flips in fx.mov: decodes with damaged packets
        let out = dir + "/o.mov"
        let lenient = try Oracle.mixwrite(["remix", damaged, "-o", out, "--json"], timeout: 60)
        if lenient.status == 0, let report = try? JSONSerialization.jsonObject(with: lenient.stdout) as? [String: Any],
           (report["damagedPackets"] as? Int ?? 0) > 0 {
            try FileManager.default.removeItem(atPath: out)
            let strict = try Oracle.mixwrite(["remix", damaged, "-o", out, "--strict"], timeout: 60)
            #expect(strict.status == 4, "\(strict.stderr)")
            #expect(strict.stderr.contains("--strict"), "\(strict.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out))
        } else {
            Issue.record("the bit-flipped copy decoded without damage; the test input needs more damage: \(lenient.stderr)")
        }
    }

    @Test("the same inputs and options give a byte-identical file", arguments: ["mov", "mp4", "mkv"])
    func deterministic(_ ext: String) throws {
        let dir = try Oracle.scratch()
        var outputs: [Data] = []
        for n in 0..<2 {
            let out = dir + "/run\(n).\(ext)"
            let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", out, "--audio", Oracle.fixture("tone.m4a")])
            #expect(r.status == 0, "\(r.stderr)")
            outputs.append(FileManager.default.contents(atPath: out) ?? Data())
        }
        #expect(!outputs[0].isEmpty)
        #expect(outputs[0] == outputs[1], "two runs differ")
    }

    @Test("over a 5-minute blend the audio stays within one audio frame of the video, no drift")
    func sync() throws {
        let dir = try Oracle.scratch()
        // base: 30 fps, white for one frame at every whole second, a click at the same instants (48 kHz);
        // fx: 25 fps, all screen (keyed out), its own clicks at the same instants (44.1 kHz).
        let base = dir + "/base.mov", fx = dir + "/fx.mkv"
        var r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i",
                                   "color=c=black:s=64x48:r=30:d=300,geq=lum='if(lt(mod(N,30),1),235,16)':cb=128:cr=128",
                                   "-f", "lavfi", "-i", "aevalsrc='if(lt(mod(t,1),0.002),0.8,0)':s=48000:d=300",
                                   "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", base])
        #expect(r.status == 0, "\(r.stderr)")
        r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=0x00FF00:s=64x48:r=25:d=300",
                               "-f", "lavfi", "-i", "aevalsrc='if(lt(mod(t,1),0.002),0.8,0)':s=44100:d=300",
                               "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", fx])
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir + "/sync.mov"
        let run = try Oracle.mixwrite([fx, base, "-o", out], timeout: 300)
        #expect(run.status == 0, "\(run.stderr)")

        // Flashes: frames whose mean luma is high.
        let gray = try Oracle.ffmpeg(["-v", "error", "-i", out, "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        let frameSize = 64 * 48
        let bytes = [UInt8](gray.stdout)
        var flashes: [Double] = []
        for f in 0..<(bytes.count / frameSize) {
            let mean = bytes[f * frameSize..<(f + 1) * frameSize].reduce(0) { $0 + Int($1) } / frameSize
            if mean > 128 { flashes.append(Double(f) / 30) }
        }
        // Clicks: the first sample of each burst over half scale.
        let audio = try Oracle.decodeAudio(out, channels: 1)
        var clicks: [Double] = []
        var last = -1.0
        for (i, x) in audio.enumerated() where abs(x) > 0.3 {
            let t = Double(i) / 48000
            if t - last > 0.5 { clicks.append(t) }
            last = t
        }
        #expect(flashes.count == 300, "\(flashes.count) flashes")
        #expect(clicks.count == 300, "\(clicks.count) clicks")
        let worst = zip(flashes, clicks).map { abs($0 - $1) }.max() ?? 1
        #expect(worst <= 1024.0 / 48000, "audio and video apart by up to \(worst) s")
        // No drift: the offset at the end is the offset at the start.
        if flashes.count == 300 && clicks.count == 300 {
            #expect(abs((clicks[299] - flashes[299]) - (clicks[0] - flashes[0])) < 0.002)
        }
    }
}

