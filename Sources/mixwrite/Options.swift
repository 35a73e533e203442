import ArgumentParser
@_spi(Tools) import MixWrite
import Foundation

enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    case auto, bar, json, none
}

struct CommonOptions: ParsableArguments {
    @Flag(name: [.customShort("y"), .long], help: "Replace OUT if it exists.")
    var overwrite = false

    @Option(help: "Progress on stderr: auto (a bar on a terminal), bar, json (a JSON object a line) or none.")
    var progress: ProgressStyle = .auto

    @Flag(help: "Print a JSON report on stdout when done.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Also list the mix plan: every source track and how it reached the output.")
    var verbose = false

    @Flag(help: "Fail on an audio track that cannot be decoded or a damaged packet, instead of warning.")
    var strict = false

    func printReport(_ report: Report) {
        if !quiet {
            for w in report.warnings { writeError("mixwrite: warning: \(w)\n") }
        }
        if json {
            printJSON(report)
        } else if !quiet {
            if verbose, let audio = report.audio {
                writeError("mixwrite: mix plan: \(audio.sources.count) tracks → \((audio.codec ?? "aac").uppercased()) \(audio.sampleRate) Hz, \(audio.channels == 1 ? "mono" : "stereo")\n")
                for s in audio.sources {
                    writeError("  \(s.name)  \(s.path) #\(s.streamIndex)  \(s.codec) \(s.sampleRate) Hz \(s.layout)  → \(s.route)\n")
                }
                if let l = audio.loudness {
                    func line(_ x: Loudness?) -> String {
                        x.map { String(format: "%.1f LUFS, range %.1f LU, true peak %.1f dBTP", $0.integrated, $0.range, $0.truePeak) } ?? "not measured"
                    }
                    for s in audio.sources { writeError("  loudness \(s.name): \(line(l.sources[s.name]))\n") }
                    if l.target != nil {
                        writeError("  loudness of the mix: \(line(l.mix)); gain \(String(format: "%+.2f", l.gainDB)) dB\n")
                    }
                    writeError("  loudness of the output: \(line(l.output))\n")
                }
            }
            writeError("mixwrite: wrote \(report.output) (\(formatSeconds(report.duration)), \(report.audio?.sources.count ?? 0) audio tracks mixed)\n")
        }
    }
}

extension CommonOptions {
    /// The report, and with `--key-color auto` the colour picked (a blend's, a key layer's).
    func printReport(_ report: Report, autoKey: Bool) {
        printReport(report)
        if autoKey, !quiet, !json, let k = report.key {
            writeError("mixwrite: key colour picked from fx's border: \(k.keyColorHex)\n")
        }
    }

    func printFrameReport(_ report: FrameReport, auto: Bool) {
        if json {
            printJSON(report)
        } else if !quiet {
            var line = "mixwrite: wrote \(report.output) (\(report.width)x\(report.height) at \(formatSeconds(report.time)))"
            if auto { line += ", key colour \(report.key.keyColorHex) picked from fx's border" }
            writeError(line + "\n")
        }
    }
}

struct VideoOptions: ParsableArguments {
    @Option(help: "Output size as WIDTHxHEIGHT (default: base's).")
    var size: String?

    @Option(help: "Output frame rate, e.g. 30, 29.97 or 30000/1001 (default: base's).")
    var fps: String?

    @Option(help: "Constant rate factor on x264's scale, 0 (lossless) to 51, mapped to the codec's own.")
    var crf: Int = 20

    @Option(help: "Preset on x264's scale: ultrafast … veryslow, mapped to the codec's own.")
    var preset: String = "veryfast"

    @Option(help: "Video codec: h264, hevc, prores, av1 or vp9 (default: h264; a .webm's vp9).")
    var codec: VideoCodec?

    @Option(name: .customLong("prores-profile"), help: "ProRes profile with --codec prores: proxy, lt, standard, hq or 4444 (default hq; a key layer's 4444).")
    var proresProfile: ProResProfile?

    /// Sets a blend's, concat's or still's picture options, given as its fields (`&job.width` …): one place for
    /// the three kinds (a still keeps its own rate unless --fps is given).
    func apply(width: inout Int?, height: inout Int?, frameRate: inout Rational?, crf: inout Int, preset: inout String,
               codec: inout VideoCodec?, proresProfile: inout ProResProfile) throws {
        let (w, h, rate) = try parsedSize()
        (width, height) = (w, h)
        if let rate { frameRate = rate }
        crf = self.crf
        preset = self.preset
        codec = self.codec
        if let p = self.proresProfile { proresProfile = p }
    }

    /// --size and --fps, parsed.
    func parsedSize() throws -> (Int?, Int?, Rational?) {
        var w: Int?, h: Int?, rate: Rational?
        if let size { (w, h) = try parseSize(size) }
        if let fps {
            guard let r = Rational(parsing: fps) else { throw MixWriteError.usage("--fps '\(fps)' is not a frame rate (e.g. 30 or 30000/1001)") }
            rate = r
        }
        return (w, h, rate)
    }
}

func parseSize(_ text: String) throws -> (Int, Int) {
    guard let size = OptionValue.size(text) else {
        throw MixWriteError.usage("--size '\(text)' is not WIDTHxHEIGHT (e.g. 1280x720)")
    }
    return size
}

struct KeyOptions: ParsableArguments {
    @Option(name: .customLong("key-color"), help: "The screen colour to key out, as RRGGBB, or auto to read it from fx's border.")
    var keyColor: String = "00FF00"

    @Option(help: "How far from the key colour a pixel is still keyed out, 0 to 1 (GPUImage's thresholdSensitivity).")
    var threshold: Double = 0.4

    @Option(help: "The width of the soft edge past the threshold, 0 to 1.")
    var smoothing: Double = 0.1

    @Flag(help: "Pull the key colour's spill out of fx's kept pixels near the key.")
    var despill = false

    var isAuto: Bool { keyColor.lowercased() == "auto" }

    func settings() throws -> KeySettings {
        if isAuto { return KeySettings(threshold: threshold, smoothing: smoothing, despill: despill) }
        guard let rgb = OptionValue.color(keyColor) else {
            throw MixWriteError.usage("--key-color '\(keyColor)' is not a colour; use RRGGBB (e.g. 00FF00) or auto")
        }
        return KeySettings(keyColor: rgb, threshold: threshold, smoothing: smoothing, despill: despill)
    }
}

struct AudioMixOptions: ParsableArguments {
    @Option(name: .customLong("audio"), help: "An extra audio file (or movie) to mix in; repeatable. Named audio1, audio2 …")
    var audioFiles: [String] = []

    @Option(name: .customLong("audio-tracks"), help: "Which audio tracks of each input: all, first or none.")
    var audioTracks: AudioOptions.Tracks = .all

    @Option(help: "Leave out a source (fx, base, audio1 …) or one track (fx:2); repeatable.")
    var mute: [String] = []

    @Option(help: "Gain of a source or track in dB, as SOURCE=DB (e.g. fx=-6); repeatable.")
    var gain: [String] = []

    @Option(help: "Start a source later, with silence before it, as SOURCE=SECONDS; repeatable.")
    var offset: [String] = []

    @Option(help: "sum: each source at its own level, limited at -1 dBFS; average: ffmpeg's 1/N.")
    var mix: MixMode = .sum

    @Option(help: "Output channels, 1 or 2 (default: stereo if any source has two or more).")
    var channels: Int?

    @Option(name: .customLong("sample-rate"), help: "Output sample rate in Hz (default 48000).")
    var sampleRate: Int?

    @Option(name: .customLong("audio-bitrate"), help: "AAC or Opus bit rate, e.g. 192k.")
    var audioBitrate: String = "192k"

    @Option(name: .customLong("audio-codec"), help: "Audio codec: aac, opus, flac or pcm (default: aac; a .webm's opus).")
    var audioCodec: AudioCodec?

    // Unconditional: the value is negative (`--loudness -16`), which would otherwise read as an option.
    @Option(parsing: .unconditional, help: ArgumentHelp("Integrated loudness of the output in LUFS (EBU R128), e.g. -16 (web, podcast), -23 (broadcast), -14 (streaming).",
                               valueName: "LUFS"))
    var loudness: Double?

    @Option(name: .customLong("true-peak"), parsing: .unconditional, help: ArgumentHelp("True-peak ceiling with --loudness, in dBTP (default -1).", valueName: "DBTP"))
    var truePeak: Double?

    @Flag(name: .customLong("level-match"), help: "Bring every source to the loudness of the loudest before the mix (--gain still applies).")
    var levelMatch = false

    @Option(help: ArgumentHelp("Lower a source while the others play, back in their pauses, as SOURCE or SOURCE=DB (default 15); repeatable.",
                               valueName: "SOURCE[=DB]"))
    var duck: [String] = []

    @Option(name: .customLong("fade-in"), help: ArgumentHelp("Fade the mix in over S seconds.", valueName: "S"))
    var fadeIn: Double = 0

    @Option(name: .customLong("fade-out"), help: ArgumentHelp("Fade the mix out over its last S seconds.", valueName: "S"))
    var fadeOut: Double = 0

    @Flag(help: "After the mix, every source track on its own, as it enters the mix (not played by default).")
    var stems = false

    func options() throws -> AudioOptions {
        var o = AudioOptions()
        o.files = audioFiles
        o.tracks = audioTracks
        o.mute = mute
        o.gains = try parsePairs(gain, option: "--gain")
        o.offsets = try parsePairs(offset, option: "--offset")
        o.mode = mix
        o.channels = channels
        o.sampleRate = sampleRate
        o.codec = audioCodec
        o.stems = stems
        guard let v = OptionValue.bitRate(audioBitrate) else {
            throw MixWriteError.usage("--audio-bitrate '\(audioBitrate)' is not a bit rate (e.g. 192k)")
        }
        o.bitRate = v
        o.loudness = loudness
        o.truePeak = truePeak
        o.levelMatch = levelMatch
        o.duck = try parseDucks(duck)
        o.fadeIn = fadeIn
        o.fadeOut = fadeOut
        return o
    }
}

/// `--duck audio1` or `--duck audio1=12`.
func parseDucks(_ items: [String]) throws -> [String: Double] {
    var result: [String: Double] = [:]
    for item in items {
        let parts = item.split(separator: "=", maxSplits: 1)
        guard let name = parts.first, !name.isEmpty else { throw MixWriteError.usage("--duck '\(item)' is not SOURCE or SOURCE=DB") }
        if parts.count == 1 {
            result[String(name)] = AudioOptions.defaultDuckDB
        } else {
            guard let v = Double(parts[1]), v.isFinite else { throw MixWriteError.usage("--duck '\(item)' is not SOURCE=DB (e.g. audio1=15)") }
            result[String(name)] = v
        }
    }
    return result
}

func parsePairs(_ items: [String], option: String) throws -> [String: Double] {
    var result: [String: Double] = [:]
    for item in items {
        let parts = item.split(separator: "=", maxSplits: 1)
        guard parts.count == 2, let v = Double(parts[1]), v.isFinite else {
            throw MixWriteError.usage("\(option) '\(item)' is not SOURCE=NUMBER (e.g. fx=-6)")
        }
        result[String(parts[0])] = v
    }
    return result
}

/// A report on stdout as JSON: indented, keys sorted, paths unescaped. (Our report types always encode.)
func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do { print(String(decoding: try encoder.encode(value), as: UTF8.self)) } catch {
        writeError("mixwrite: error: cannot write the JSON report: \(error)\n")
    }
}

func formatSeconds(_ s: Double) -> String {
    String(format: "%.2fs", s)
}

/// `--parts N --part K|auto`: one part of a job spread over machines (blend, concat).
struct PartOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Render the job as N parts (for a cluster), this run only --part K of them, into OUT.parts/; 'mixwrite join OUT' joins them.", valueName: "N"))
    var parts: Int?

    @Option(help: ArgumentHelp("Which part (1 to N), or auto: the Slurm array task's or Kubernetes Job's index (index mod N, plus 1).", valueName: "K"))
    var part: String?

    /// Sets the job's `parts` and `part`.
    func apply(parts: inout Int?, part: inout Int?) throws {
        parts = self.parts
        guard let text = self.part else { return }
        guard let n = self.parts else { throw MixWriteError.usage("--part \(text) goes with --parts N") }
        if text == "auto" {
            guard let index = SchedulerTask.index else {
                throw MixWriteError.usage("--part auto found neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX")
            }
            part = index % max(1, n) + 1
        } else {
            guard let k = Int(text) else { throw MixWriteError.usage("--part '\(text)' is not a number from 1 to \(n) or auto") }
            part = k
        }
    }
}

/// The task a scheduler runs this process as: a Slurm array task or a Kubernetes Indexed Job's pod.
enum SchedulerTask {
    /// `SLURM_ARRAY_TASK_ID`, else `JOB_COMPLETION_INDEX`.
    static var index: Int? {
        let env = ProcessInfo.processInfo.environment
        return env["SLURM_ARRAY_TASK_ID"].flatMap(Int.init) ?? env["JOB_COMPLETION_INDEX"].flatMap(Int.init)
    }
}
