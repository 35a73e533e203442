import Foundation
import Testing

/// Independent readings of media through the ffmpeg and ffprobe command-line tools, never through
/// mixwrite's own code: what a test compares mixwrite's output against.
public enum Oracle {
    /// The repository's root, from this file's place in it.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func fixture(_ name: String) -> String { root.appendingPathComponent("Fixtures/\(name)").path }

    /// The mixwrite binary: $MIXWRITE_BIN (the Makefile sets it), else the debug build.
    public static var mixwrite: String {
        if let bin = ProcessInfo.processInfo.environment["MIXWRITE_BIN"], !bin.isEmpty { return bin }
        for dir in [".build/debug", ".build/x86_64-unknown-linux-gnu/debug", ".build/release"] {
            let p = root.appendingPathComponent(dir).appendingPathComponent("mixwrite").path
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return root.appendingPathComponent(".build/debug/mixwrite").path
    }

    /// The shared corpus of real media ($MIXWRITE_CORPUS), if a run points at it.
    public static var corpus: String? {
        guard let c = ProcessInfo.processInfo.environment["MIXWRITE_CORPUS"], !c.isEmpty else { return nil }
        return c
    }

    /// Whether python3 has the jsonschema package (the schema test's validator).
    public static let hasJSONSchema: Bool = {
        (try? run("/usr/bin/env", ["python3", "-c", "import jsonschema"]).status) == 0
    }()

    /// Whether python3 has OpenTimelineIO's library (the render tests' timelines, and their duration's authority).
    public static let hasOTIO: Bool = {
        (try? run("/usr/bin/env", ["python3", "-c", "import opentimelineio"]).status) == 0
    }()

    /// Whether the sync truth set can be made: espeak-ng, and python3 with numpy and scipy (research/sync-truth-set.py).
    public static let hasSyncTruth: Bool = {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/espeak-ng")
            && (try? run("/usr/bin/env", ["python3", "-c", "import numpy, scipy.signal"]).status) == 0
    }()

    /// Whether this process may mount a small tmpfs (root with the capability to mount): the full-disk test's need.
    public static let canMountTmpfs: Bool = {
        guard getuid() == 0, let dir = try? scratch("mount-probe") else { return false }
        guard (try? run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir]).status) == 0 else { return false }
        _ = try? run("/bin/umount", [dir])
        return true
    }()

    public struct Result: Sendable {
        public var status: Int32
        public var stdout: Data
        public var stderr: String
        /// The signal that ended the program (a crash, or the timeout's SIGKILL), if one did.
        public var signal: Int32?
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// Runs a program to the end and collects its output. With `timeout`, a program still running then is
    /// killed and the result says so (`timedOut`), so a hang fails a test instead of stalling the suite.
    public static func run(_ program: String, _ arguments: [String], environment: [String: String]? = nil,
                           timeout: Double? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments
        // MIXWRITE_CPU_LOG=FILE: each program run through /usr/bin/time, its CPU seconds (user, system), wall and the
        // test's name appended to FILE: where the suite's time goes. Not for
        // the tests that signal the program's pid (it is time's then).
        if let log = ProcessInfo.processInfo.environment["MIXWRITE_CPU_LOG"] {
            let name = (Test.current?.name ?? "?").replacingOccurrences(of: "%", with: "%%")
            p.executableURL = URL(fileURLWithPath: "/usr/bin/time")
            p.arguments = ["-a", "-o", log, "-f", "%U %S %e \(name) \((program as NSString).lastPathComponent)", program] + arguments
        }
        if let environment { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        if let timeout {
            let pid = p.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [p] in
                if p.isRunning { kill(pid, SIGKILL) }
            }
        }
        // Read both pipes while the program runs, so a large output never blocks it.
        nonisolated(unsafe) var errData = Data()
        let errReader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        errReader.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        while !errReader.isFinished { usleep(1000) }
        return Result(status: p.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self),
                      signal: p.terminationReason == .uncaughtSignal ? p.terminationStatus : nil)
    }

    /// mixwrite under test, killed after `timeout` seconds (15 minutes unless told: a hang guard, far above any
    /// run of the suite, even under a sanitizer), so a hang fails its test instead of stalling CI.
    public static func mixwrite(_ arguments: [String], timeout: Double? = 900) throws -> Result {
        try run(mixwrite, arguments, timeout: timeout)
    }

    public static func ffmpeg(_ arguments: [String]) throws -> Result {
        try run("/usr/bin/ffmpeg", ["-nostdin", "-hide_banner"] + arguments)
    }

    // MARK: - Streams

    public struct Stream: Sendable {
        public var index: Int
        public var kind: String
        public var codec: String
        public var width: Int?
        public var height: Int?
        public var sampleRate: Int?
        public var channels: Int?
        public var duration: Double?
        public var frames: Int?
        public var raw: [String: String]
    }

    public struct Probe: Sendable {
        public var streams: [Stream]
        public var duration: Double?
        public var chapters: [(start: Double, end: Double, title: String?)]
        public var video: [Stream] { streams.filter { $0.kind == "video" } }
        public var audio: [Stream] { streams.filter { $0.kind == "audio" } }
    }

    /// ffprobe's view of a file's streams, format and chapters.
    public static func probe(_ path: String) throws -> Probe {
        let r = try run("/usr/bin/ffprobe", ["-v", "error", "-of", "json", "-show_streams", "-show_format",
                                             "-show_chapters", "-count_packets", path])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any] else {
            throw OracleError("ffprobe \(path): \(r.stderr)")
        }
        let streams = (json["streams"] as? [[String: Any]] ?? []).map { s -> Stream in
            var raw: [String: String] = [:]
            for (k, v) in s { raw[k] = "\(v)" }
            return Stream(index: s["index"] as? Int ?? -1, kind: s["codec_type"] as? String ?? "",
                          codec: s["codec_name"] as? String ?? "", width: s["width"] as? Int, height: s["height"] as? Int,
                          sampleRate: (s["sample_rate"] as? String).flatMap { Int($0) }, channels: s["channels"] as? Int,
                          duration: (s["duration"] as? String).flatMap { Double($0) },
                          frames: (s["nb_read_packets"] as? String).flatMap { Int($0) }, raw: raw)
        }
        let format = json["format"] as? [String: Any] ?? [:]
        let chapters = (json["chapters"] as? [[String: Any]] ?? []).map { c in
            (start: Double(c["start_time"] as? String ?? "") ?? -1, end: Double(c["end_time"] as? String ?? "") ?? -1,
             title: (c["tags"] as? [String: Any])?["title"] as? String)
        }
        return Probe(streams: streams, duration: (format["duration"] as? String).flatMap { Double($0) }, chapters: chapters)
    }

    /// The numeric fields of one line of ffprobe's `compact=p=0` output (`pts_time=0.04|duration_time=0.04`).
    static func numbers(compact line: Substring) -> [Substring: Double] {
        var fields: [Substring: Double] = [:]
        for pair in line.split(separator: "|") {
            let kv = pair.split(separator: "=", maxSplits: 1)
            if kv.count == 2, let v = Double(kv[1]) { fields[kv[0]] = v }
        }
        return fields
    }

    /// Where a file's first video stream ends on the file's timeline: its last packet's end (pts + duration), less
    /// the file's start, read by ffprobe.
    public static func videoEnd(_ path: String) throws -> Double {
        let r = try run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                             "packet=pts_time,duration_time:format=start_time", "-of", "compact=p=0", path])
        var end: Double?
        var start = 0.0
        for line in r.stdoutText.split(separator: "\n") {
            let fields = numbers(compact: line)
            if let pts = fields["pts_time"] { end = max(end ?? pts, pts + (fields["duration_time"] ?? 0)) }
            else if let s = fields["start_time"] { start = s }
        }
        guard let end else { throw OracleError("\(path): no video packets") }
        return end - start
    }

    /// The decoded duration of a stream, from its last frame's end (what a player shows): the last frame's start plus
    /// its duration, no later than where the container says the stream ends (a MOV's edit list cuts a last picture
    /// short); where the container does not say how long that frame lasts, the stream's duration in the container,
    /// else the frame interval before it. A frame's length is `duration_time` from FFmpeg 6.0 on and
    /// `pkt_duration_time` before (7.x no longer has it): both are asked for, by name.
    public static func decodedDuration(_ path: String, stream: String) throws -> Double {
        let r = try run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", stream, "-show_entries",
                                             "frame=pts_time,duration_time,pkt_duration_time:stream=start_time,duration",
                                             "-of", "compact=p=0", path])
        var starts: [Double] = []
        var lastDuration: Double?
        var stated: [Substring: Double] = [:]
        for line in r.stdoutText.split(separator: "\n") {
            let fields = numbers(compact: line)
            guard let start = fields["pts_time"] else {
                if fields["duration"] != nil || fields["start_time"] != nil { stated = fields }   // the stream's line
                continue
            }
            starts.append(start)
            lastDuration = fields["duration_time"] ?? fields["pkt_duration_time"]
        }
        guard let last = starts.max() else { return 0 }
        let statedEnd = stated["duration"].map { $0 + (stated["start_time"] ?? 0) }
        if let d = lastDuration, d > 0 { return min(last + d, statedEnd ?? .infinity) }
        if let d = stated["duration"] { return d }
        let sorted = starts.sorted()
        return sorted.count > 1 ? last + (sorted[sorted.count - 1] - sorted[sorted.count - 2]) : last
    }

    // MARK: - Audio

    /// The decoded audio of a file's `stream` (e.g. "0:a:0"), as interleaved floats at `rate` with `channels`.
    public static func decodeAudio(_ path: String, stream: String = "0:a:0", rate: Int = 48000, channels: Int? = nil) throws -> [Float] {
        var args = ["-v", "error", "-i", path, "-map", stream, "-f", "f32le", "-ar", "\(rate)"]
        if let channels { args += ["-ac", "\(channels)"] }
        let r = try ffmpeg(args + ["-"])
        guard r.status == 0 else { throw OracleError("decode \(path): \(r.stderr)") }
        return r.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    /// Where `ref`'s sound from `from` for `length` seconds (its own time) is heard in `file`, looked for within
    /// `within` seconds of `near`: normalised cross-correlation of the two decoded by the ffmpeg CLI to mono 8 kHz,
    /// here in Swift (no numpy: it runs on every system the suite runs on), a parabola through the peak; the place and
    /// the correlation there (1: the same sound).
    public static func heard(_ ref: String, from: Double, length: Double = 0.5, in file: String, near: Double,
                             within: Double = 0.1) throws -> (at: Double, score: Double) {
        let rate = 8000.0
        let a = try decodeAudio(ref, rate: 8000, channels: 1), b = try decodeAudio(file, rate: 8000, channels: 1)
        let start = Int(from * rate), m = Int(length * rate)
        guard start + m <= a.count else { throw OracleError("\(ref) has no \(length) s from \(from) s") }
        let segment = a[start..<start + m].map(Double.init)
        let mean = segment.reduce(0, +) / Double(m)
        let x = segment.map { $0 - mean }, energy = x.reduce(0) { $0 + $1 * $1 }
        var scores: [(lag: Int, r: Double)] = []
        for lag in max(0, Int((near - within) * rate))...Int((near + within) * rate) where lag + m <= b.count {
            var dot = 0.0, sum = 0.0, squares = 0.0
            for i in 0..<m { let y = Double(b[lag + i]); dot += x[i] * y; sum += y; squares += y * y }
            let e = squares - sum * sum / Double(m)
            scores.append((lag, e > 0 && energy > 0 ? dot / (energy * e).squareRoot() : 0))
        }
        guard let k = scores.indices.max(by: { scores[$0].r < scores[$1].r }) else { throw OracleError("\(file) is too short") }
        var at = Double(scores[k].lag)
        if k > 0 && k < scores.count - 1 {
            let (y0, y1, y2) = (scores[k - 1].r, scores[k].r, scores[k + 1].r)
            let d = y0 - 2 * y1 + y2
            if d < 0 { at += 0.5 * (y0 - y2) / d }
        }
        return (at / rate, scores[k].r)
    }

    /// Where `ref`'s sound from `from` for `length` seconds (its own time) is heard in `file`: normalised
    /// cross-correlation by numpy (research/audio-place.py), both decoded by the ffmpeg CLI; the correlation there, and
    /// the best one at least `length / 2` away.
    public static func place(_ ref: String, from: Double, length: Double = 1, in file: String,
                             stream: String = "0:a:0") throws -> (at: Double, score: Double, second: Double) {
        let r = try run("/usr/bin/python3", [root.path + "/research/audio-place.py", ref, file, "--from", "\(from)",
                                             "--length", "\(length)", "--stream", stream])
        guard r.status == 0, let json = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Double],
              let at = json["at"], let score = json["score"], let second = json["second"] else {
            throw OracleError("audio-place \(ref) in \(file): \(r.stderr)")
        }
        return (at, score, second)
    }

    /// One channel of interleaved samples.
    public static func channel(_ samples: [Float], _ c: Int, of channels: Int) -> [Float] {
        stride(from: c, to: samples.count, by: channels).map { samples[$0] }
    }

    /// The amplitude of a tone at `frequency` in `samples` (Goertzel over a Hann window), in dBFS of a full-scale sine.
    public static func toneLevel(_ samples: [Float], frequency: Double, rate: Int = 48000) -> Double {
        let n = samples.count
        guard n > 0 else { return -200 }
        let w = 2 * Double.pi * frequency / Double(rate)
        var re = 0.0, im = 0.0, windowSum = 0.0
        for i in 0..<n {
            let hann = 0.5 - 0.5 * cos(2 * Double.pi * Double(i) / Double(n - 1))
            let x = Double(samples[i]) * hann
            windowSum += hann
            re += x * cos(w * Double(i))
            im -= x * sin(w * Double(i))
        }
        let amplitude = 2 * (re * re + im * im).squareRoot() / windowSum
        return 20 * log10(max(amplitude, 1e-10))
    }

    /// The largest absolute sample, in dBFS.
    public static func peak(_ samples: [Float]) -> Double {
        20 * log10(Double(max(samples.map { abs($0) }.max() ?? 0, 1e-10)))
    }

    /// RMS level in dBFS.
    public static func rms(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return -200 }
        let s = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return 10 * log10(max(s / Double(samples.count), 1e-20))
    }

    // MARK: - Video

    /// Every decoded frame of the first video stream (or the first `frames`) as packed RGB24 at the stream's size.
    public static func decodeRGB(_ path: String, extraFilters: String? = nil, frames limit: Int? = nil) throws -> (width: Int, height: Int, frames: [[UInt8]]) {
        let probe = try probe(path)
        guard let v = probe.video.first, var w = v.width, var h = v.height else { throw OracleError("\(path): no video") }
        // passthrough: every decoded frame once, none duplicated or dropped to fill a timeline.
        var args = ["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough"]
        if let limit { args += ["-frames:v", String(limit)] }
        if let extraFilters {
            args += ["-vf", extraFilters]
        }
        args += ["-f", "rawvideo", "-pix_fmt", "rgb24", "-"]
        let r = try ffmpeg(args)
        guard r.status == 0 else { throw OracleError("decode \(path): \(r.stderr)") }
        if extraFilters != nil, let s = extraFilters?.split(separator: "=").last, s.contains(":") {
            let d = s.split(separator: ":").compactMap { Int($0) }
            if d.count == 2 { (w, h) = (d[0], d[1]) }
        }
        let size = w * h * 3
        let bytes = [UInt8](r.stdout)
        let frames = stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<$0 + size]) }
        return (w, h, frames)
    }

    /// Peak signal-to-noise ratio of two equal-size pictures (or anything of 8-bit samples), in dB.
    public static func psnr(_ a: [UInt8], _ b: [Double]) -> Double {
        precondition(a.count == b.count)
        var se = 0.0
        for i in 0..<a.count {
            let d = Double(a[i]) - b[i]
            se += d * d
        }
        let mse = se / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// Tags the first track of a QuickTime/MP4 file to be shown turned a quarter clockwise: its `tkhd` display matrix
    /// set, in place, to the one QuickTime and phones write ((0 1 0; −1 0 0; h 0 1), 16.16 and 2.30 fixed point).
    /// Written by hand because the ffmpeg CLI's ways differ by version: FFmpeg 5.1 made the matrix from a `rotate`
    /// tag, which 7.x ignores; 7.x has `-display_rotation`, which 5.1 lacks. Every version reads the matrix.
    public static func tagQuarterTurn(_ path: String, height: Int) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let name = Array("tkhd".utf8)
        guard let at = (4 ..< bytes.count - 4).first(where: { Array(bytes[$0 ..< $0 + 4]) == name }) else {
            throw OracleError("\(path): no tkhd box")
        }
        let box = at - 4
        let matrix = box + (bytes[box + 8] == 1 ? 60 : 48)   // after the header, version, times (32- or 64-bit) and volume
        let values: [Int32] = [0, 1 << 16, 0, -(1 << 16), 0, 0, Int32(height) << 16, 0, 1 << 30]
        for (i, v) in values.enumerated() {
            for b in 0..<4 { bytes[matrix + 4 * i + b] = UInt8(truncatingIfNeeded: UInt32(bitPattern: v) >> (24 - 8 * b)) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The files in a folder (hidden ones too), to check that nothing was left behind.
    /// A folder's entries, sorted; a folder that cannot be read is an error, not an empty listing.
    public static func listing(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
    }

    /// A new empty folder for one test's outputs.
    public static func scratch(_ name: String = #function) throws -> String {
        let clean = name.filter { $0.isLetter || $0.isNumber }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mixwrite-tests-\(getpid())/\(clean)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir.path
    }
}

public struct OracleError: Error, CustomStringConvertible {
    public let description: String
    public init(_ d: String) { description = d }
}

/// GPUImage's chroma-key blend in Double on RGB in [0, 1]: the reference the tests hold mixwrite to.
public enum ReferenceKey {
    public static func chroma(_ r: Double, _ g: Double, _ b: Double) -> (Double, Double) {
        let y = 0.2989 * r + 0.5866 * g + 0.1145 * b
        return (0.7132 * (r - y), 0.5647 * (b - y))
    }

    public static func smoothstep(_ e0: Double, _ e1: Double, _ x: Double) -> Double {
        let t = min(max((x - e0) / (e1 - e0), 0), 1)
        return t * t * (3 - 2 * t)
    }

    /// The weight of base at an fx pixel.
    public static func alpha(_ r: Double, _ g: Double, _ b: Double, key: (Double, Double, Double) = (0, 1, 0),
                             threshold: Double = 0.4, smoothing: Double = 0.1) -> Double {
        let (cr, cb) = chroma(r, g, b)
        let (kr, kb) = chroma(key.0, key.1, key.2)
        let d = ((cr - kr) * (cr - kr) + (cb - kb) * (cb - kb)).squareRoot()
        return 1 - smoothstep(threshold, threshold + smoothing, d)
    }

    /// The blended picture of packed RGB24 fx and base, as 8-bit-scale Doubles.
    public static func blend(fx: [UInt8], base: [UInt8], key: (Double, Double, Double) = (0, 1, 0),
                             threshold: Double = 0.4, smoothing: Double = 0.1) -> [Double] {
        var out = [Double](repeating: 0, count: fx.count)
        for p in stride(from: 0, to: fx.count, by: 3) {
            let r = Double(fx[p]) / 255, g = Double(fx[p + 1]) / 255, b = Double(fx[p + 2]) / 255
            let a = alpha(r, g, b, key: key, threshold: threshold, smoothing: smoothing)
            for c in 0..<3 { out[p + c] = Double(fx[p + c]) * (1 - a) + Double(base[p + c]) * a }
        }
        return out
    }
}

extension Oracle {
    /// Integrated loudness (LUFS) and true peak (dBTP) of a file's first audio track, by the ffmpeg CLI's own
    /// ebur128 filter (BS.1770-4, true peak 4× oversampled): an independent meter.
    public static func loudness(_ path: String) throws -> (integrated: Double, truePeak: Double) {
        let r = try ffmpeg(["-v", "info", "-i", path, "-map", "0:a:0", "-af", "ebur128=peak=true", "-f", "null", "-"])
        guard r.status == 0, let summary = r.stderr.range(of: "Summary:") else { throw OracleError("ebur128 \(path): \(r.stderr)") }
        func figure(_ label: String) -> Double? {
            let text = r.stderr[summary.upperBound...]
            guard let at = text.range(of: label) else { return nil }
            return Double(text[at.upperBound...].split(whereSeparator: \.isWhitespace).first ?? "")
        }
        guard let i = figure("I:"), let tp = figure("Peak:") else { throw OracleError("ebur128 \(path): no summary") }
        return (i, tp)
    }
}
