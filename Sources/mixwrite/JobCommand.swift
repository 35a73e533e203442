import ArgumentParser
#if TuningPage
import MixWriteTune
#endif
@_spi(Tools) import MixWrite
import Foundation

enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    case auto, bar, json, none
}

/// The options every job command has besides its job's: how it reports. Declared as the job's options are, and
/// read from what `CommandWords` hands back.
struct CommonOptions {
    static let declarations: [OptionDeclaration] = [
        OptionDeclaration("progress", .choice(ProgressStyle.allCases.map(\.rawValue)), default: .text("auto"),
                          help: "Progress on stderr: auto (a bar on a terminal), bar, json (a JSON object a line) or none."),
        OptionDeclaration("json", .flag, help: "Print a JSON report on stdout when done."),
        OptionDeclaration("quiet", .flag, form: .short("-q"), help: "Print nothing but errors."),
        OptionDeclaration("verbose", .flag, form: .short("-v"),
                          help: "Also list the mix plan: every source track and how it reached the output."),
        OptionDeclaration("otio", .path, valueName: "FILE",
                          help: "Write the job as an OpenTimelineIO timeline (FILE.otio) instead of rendering it: `mixwrite render FILE` renders it, an editor opens it."),
    ]

    var progress = ProgressStyle.auto
    var json = false
    var quiet = false
    var verbose = false
    /// `--otio FILE`: the job written as a timeline, not rendered.
    var otio: String?

    init(_ words: CommandWords) throws {
        if let p = words.text("progress") {
            guard let style = ProgressStyle(rawValue: p) else {
                throw MixWriteError.usage("--progress '\(p)' is not one of \(ProgressStyle.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            progress = style
        }
        (json, quiet, verbose, otio) = (words.flag("json"), words.flag("quiet"), words.flag("verbose"), words.text("otio"))
    }

    /// With `--otio FILE`, writes the job as a timeline and says so: true when it did (the job is then not rendered).
    func writesTimeline(_ job: some MixJob) throws -> Bool {
        guard let otio else { return false }
        try job.writeTimeline(to: otio)
        if !quiet { writeError("mixwrite: wrote \(otio) (an OpenTimelineIO timeline; `mixwrite render \(otio) -o OUT` renders it)\n") }
        return true
    }

    func printReport(_ report: Report) {
        if !quiet {
            for w in report.warnings { writeLine("mixwrite: warning: \(w)") }
        }
        if json {
            printJSON(report)
        } else if !quiet {
            if verbose, let layers = report.layers { printLayers(layers) }
            if verbose, let video = report.video { printSmart(video) }
            if verbose, let timeline = report.timeline { printRetimes(timeline) }
            if verbose, let audio = report.audio {
                writeError("mixwrite: mix plan: \(audio.sources.count) tracks → \((audio.codec ?? "aac").uppercased()) \(audio.sampleRate) Hz, \([1: "mono", 2: "stereo", 6: "5.1", 8: "7.1"][audio.channels] ?? "\(audio.channels) channels")\n")
                for s in audio.sources {
                    writeError("  \(s.name)  \(s.shownPath) #\(s.streamIndex)  \(s.codec) \(s.sampleRate) Hz \(s.layout)  → \(s.route)\n")
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
            if verbose { for c in report.carried ?? [] { writeError("  carried: \(c)\n") } }
            let tracks = report.audio?.sources.count ?? 0, subtitles = report.subtitles?.count ?? 0
            writeError("mixwrite: wrote \(report.output) (\(formatSeconds(report.duration)), \(tracks) audio \(tracks == 1 ? "track" : "tracks") mixed"
                       + (subtitles > 0 ? ", \(subtitles) subtitle \(subtitles == 1 ? "track" : "tracks")" : "") + ")\n")
        }
    }
}

extension CommonOptions {
    /// `-v`'s plan of a blend's layers: each one's file, span, place and how it was laid.
    func printLayers(_ layers: [Report.LaidLayer]) {
        writeError("mixwrite: layers: \(layers.count), the first at the bottom\n")
        func n(_ x: Double) -> String { x == x.rounded() ? String(Int(x)) : String(x) }
        for l in layers {
            var words = ["at \(n(l.at)) s"]
            if l.still { words.append(l.out.map { "held \(n($0)) s" } ?? "held to the end") } else {
                words.append("its \(n(l.in)) s to \(l.out.map { n($0) + " s" } ?? "its end")")
            }
            if let x = l.speed { words.append(x < 0 ? "backwards at \(n(-x))×" : "at \(n(x))×") }
            if let s = l.freeze { words.append("its last frame held \(n(s)) s") }
            words.append(l.place.map { "in \($0.map(String.init).joined(separator: ","))" } ?? "the whole frame")
            if l.opacity != 1 { words.append("opacity \(n(l.opacity))") }
            if let k = l.key {
                words.append("keyed (\(k.keyer.rawValue), \(k.keyColorHex)\(k.keyer == .gpuimage ? ", threshold \(n(k.threshold)), smoothing \(n(k.smoothing))" : ""))")
            } else { words.append("by its alpha") }
            words.append(l.tracks.isEmpty ? "no sound" : "sound " + l.tracks.joined(separator: " "))
            writeError("  \(l.name)  \(l.fx)  " + words.joined(separator: "; ") + "\n")
        }
    }

    /// `-v`'s line for each clip whose time is changed: the media it shows, where on the output, at what speed.
    func printRetimes(_ t: Timeline) {
        func n(_ x: Double) -> String { String(format: "%.3f", x) }
        for c in t.clips {
            guard let speed = c.speed, let media = c.media, media.count == 2 else { continue }
            // To four decimals: an EDL's M2 speed over its rate is seldom a short number (50 / 24).
            let x = String(format: "%.4f", abs(speed)).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
            let how = speed == 0 ? "held (a freeze frame)" : speed < 0 ? "reversed at \(x)×" : "at \(x)×"
            writeError("mixwrite: retimed: \(c.file) \(n(media[0]))–\(n(media[1])) s → \(n(c.start))–\(n(c.start + c.duration)) s of the output, \(how)\n")
        }
    }

    /// `-v`'s account of smart rendering: each span copied or encoded, in order, and why untouched frames were encoded.
    func printSmart(_ v: Report.Video) {
        guard let copied = v.copiedSpans, let encoded = v.encodedSpans else { return }
        writeError("mixwrite: smart rendering: \(v.copiedFrames ?? 0) of \(v.frames ?? 0) frames copied from the inputs as they are"
                   + (v.smartReason.map { "; encoded where nothing is laid: \($0)" } ?? "") + "\n")
        let spans = (copied.map { ("copied", $0) } + encoded.map { ("encoded", $0) }).sorted { $0.1[0] < $1.1[0] }
        for (kind, s) in spans { writeError("  \(kind)  \(String(format: "%.3f", s[0])) s to \(String(format: "%.3f", s[1])) s\n") }
    }

    /// The report, and the key colour when it was read from fx (`--key-color auto`, or the fine keyer given none: a
    /// blend's, a key layer's).
    func printJobReport(_ report: Report) {
        printReport(report)
        if report.keyPicked, !quiet, !json, let k = report.key {
            writeError("mixwrite: key colour picked from \(Self.pickedFrom(k)): \(k.keyColorHex)\n")
        }
    }

    /// Where a picked key colour was read: fx's border, or its garbage rectangles'.
    static func pickedFrom(_ key: KeySettings) -> String { key.garbage.isEmpty ? "fx's border" : "the borders of fx's --garbage rectangles" }

    func printFrameReport(_ report: FrameReport) {
        if !quiet {
            for w in report.warnings { writeLine("mixwrite: warning: \(w)") }
        }
        if json {
            printJSON(report)
        } else if !quiet {
            var line = "mixwrite: wrote \(report.output) (\(report.width)x\(report.height) at \(formatSeconds(report.time)))"
            if report.keyPicked { line += ", key colour \(report.key.keyColorHex) picked from \(Self.pickedFrom(report.key))" }
            writeError(line + "\n")
        }
    }
}

/// A job command: its words are read by the job's own declarations (`CommandWords`), with the command's own
/// options (`CommonOptions`, and the command's: `--frame`, `--tune` …) declared beside them. argument-parser
/// dispatches the command and shows the help the declarations write.
protocol JobCommand: AsyncParsableCommand {
    associatedtype Job: MixJob
    var words: [String] { get }
    /// The command's own options beyond `CommonOptions`.
    static var own: [OptionDeclaration] { get }
    /// The job's tuning page (`--tune`); nil: the kind has none.
    static func page(_ job: Job, listen: String, port: UInt16) async throws -> TuneServer?
    /// Why `--tune` does not go with this job, if it does not.
    static func refusesPage(_ job: Job) -> String?
}

extension JobCommand {
    /// `--tune` when the kind has a page.
    static var own: [OptionDeclaration] { TuneServer.hasPage(Job.self) ? TuneFlag.declarations : [] }
    static func page(_ job: Job, listen: String, port: UInt16) async throws -> TuneServer? {
        try await TuneServer.page(for: job, listen: listen, port: port)
    }
    static func refusesPage(_ job: Job) -> String? {
        job.isParted ? "--tune serves the page for the whole job: --parts does not go with it" : nil
    }
    /// The command's name: its kind's.
    static var kindName: String { configuration.commandName ?? "" }

    /// What a shell completes of the command's words (`Completion`).
    static func completions(words: [String], index: Int, prefix: String) -> [String] {
        CommandWords.completions(for: Job.self, own: allOwn, words: words, index: index, prefix: prefix)
    }

    /// Serves the job's page with `--tune`, else renders it and reports.
    func run() async throws {
        let (job, common, words) = try parse()
        MixWriter.setLibraryLogging(common.verbose)
        if words.flag("tune") {
            if let why = Self.refusesPage(job) { throw MixWriteError.usage(why) }
            return try await TuneFlag(words).serve(job.output, quiet: common.quiet) { listen, port in
                guard let server = try await Self.page(job, listen: listen, port: port) else {
                    throw MixWriteError.usage("\(Self._commandName) has no tuning page")
                }
                return server
            }
        }
        if try common.writesTimeline(job) { return }
        let report = try await Runner(common: common).run(job)
        common.printJobReport(report)
    }
    static var allOwn: [OptionDeclaration] { CommonOptions.declarations + own }

    /// The command in the option reference (`---options-reference`).
    static var referenceEntry: (name: String, abstract: String, job: any MixJob.Type, own: [OptionDeclaration]) {
        (kindName, configuration.abstract, Job.self, allOwn)
    }

    /// The configuration of the kind's command: its name, line of help and example (the kind's file's), its help
    /// written from the declarations.
    static var kindConfiguration: CommandConfiguration {
        let kind = JobFile.kindDescriptions.first { ObjectIdentifier($0.type) == ObjectIdentifier(Job.self) }!
        return configuration(kind.name, abstract: kind.abstract, example: kind.example)
    }

    /// The command's configuration, its help written from the job's declarations.
    static func configuration(_ name: String, abstract: String, example: String) -> CommandConfiguration {
        CommandConfiguration(commandName: name, abstract: abstract,
                             usage: CommandWords.help(for: Job.self, own: allOwn).split(separator: "\n").first
                                 .map { String($0.dropFirst("USAGE: ".count)) },
                             discussion: "Example: \(example)\n\n" + CommandWords.help(for: Job.self, own: allOwn)
                                 .split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).joined(separator: "\n"))
    }


    func parse() throws -> (Job, CommonOptions, CommandWords) {
        let (job, words) = try CommandWords.parse(self.words, as: Job.self, own: Self.allOwn)
        return (job, try CommonOptions(words), words)
    }
}

/// A report on stdout as JSON: indented, keys sorted, paths unescaped. (Our report types always encode.)
func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do {
        fflush(nil)   // what print() buffered goes first
        if !writeAll(STDOUT_FILENO, String(decoding: try encoder.encode(value), as: UTF8.self) + "\n") {
            writeLine("mixwrite: warning: the JSON report could not be written to standard output (\(String(cString: strerror(errno)).lowercased()))")
        }
    } catch {
        writeLine("mixwrite: error: cannot write the JSON report: \(error)")
    }
}

func formatSeconds(_ s: Double) -> String {
    String(format: "%.2fs", s)
}
