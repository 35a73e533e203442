import ArgumentParser
import MixWriteTune
@_spi(Tools) import MixWrite

struct Blend: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blend",
        abstract: "Key FX's green screen over BASE and mix every audio track of both (the default command).",
        discussion: "Example: mixwrite fx.mov base.mov -o out.mov"
    )

    @Argument(help: "The effect clip, shot on a green (or --key-color) screen.")
    var fx: String

    @Argument(help: "The clip shown where FX is keyed out.")
    var base: String

    @Option(name: .shortAndLong, help: "The movie to write (.mov, .mp4, .m4v or .mkv), or with --frame a .png.")
    var output: String

    @Option(help: "Write only the blended picture at this time (seconds) as a PNG, to tune the key.")
    var frame: String?

    @Option(help: ArgumentHelp("Write only part of the output, from S seconds (picture and mix as the whole movie has them).", valueName: "S"))
    var start: String?

    @Option(help: ArgumentHelp("Write only S seconds of the output (from --start, or from 0).", valueName: "S"))
    var length: String?

    @OptionGroup var common: CommonOptions
    @OptionGroup var blend: BlendOptions
    @OptionGroup var parts: PartOptions

    @OptionGroup var tuning: TuneFlag

    var key: KeyOptions { blend.key }

    func run() async throws {
        MixWriter.setLibraryLogging(common.verbose)
        var job = try blend.job(fx: fx, base: base, output: output)
        try parts.apply(parts: &job.parts, part: &job.part)
        if tuning.tune {
            if frame != nil || start != nil || length != nil || job.parts != nil {
                throw MixWriteError.usage("--tune serves the page for the whole job: --frame, --start, --length and --parts do not go with it")
            }
            return try await tuning.serve(job.output, quiet: common.quiet) { try await TuneServer(job: job, listen: $0, port: $1) }
        }
        job.overwrite = common.overwrite
        job.strict = common.strict
        if start != nil || length != nil {
            if frame != nil { throw MixWriteError.usage("--frame writes one picture: --start and --length do not go with it") }
            func time(_ text: String?, _ option: String) throws -> MediaTime? {
                guard let text else { return nil }
                guard let t = MediaTime(seconds: text) else {
                    throw MixWriteError.usage("\(option) '\(text)' is not a time in seconds (e.g. 1.5)")
                }
                return t
            }
            (job.start, job.length) = (try time(start, "--start")?.seconds, try time(length, "--length")?.seconds)
        }
        if let frame {
            guard let t = MediaTime(seconds: frame) else {
                throw MixWriteError.usage("--frame '\(frame)' is not a time in seconds (e.g. 1.5)")
            }
            let report = try job.renderFrame(at: t)
            common.printFrameReport(report, auto: key.isAuto)
            return
        }
        let report = try await Runner(common: common).run(job)
        common.printReport(report, autoKey: key.isAuto)
    }
}

/// The options of a blend, for `blend` and `tune` alike.
struct BlendOptions: ParsableArguments {
    @OptionGroup var video: VideoOptions
    @OptionGroup var key: KeyOptions
    @OptionGroup var audio: AudioMixOptions

    @Option(help: "Which input sets the output length: base, fx, shortest or longest.")
    var duration: DurationPolicy = .base

    @Option(help: "How fx (and base, with --size) of another shape fit the frame: stretch (as GPUImage), fit or fill.")
    var fit: Fit = .stretch

    @Option(name: .customLong("key"), help: "How fx is laid over base: auto (by fx's own alpha when it has one, else the chroma key), chroma or alpha.")
    var keyMode: KeyMode = .auto

    @Option(help: "sdr: an HDR input tone-mapped to SDR BT.709; keep: an HDR base kept (HEVC Main 10, its HLG or PQ), fx placed at 203 cd/m².")
    var hdr: HDRChoice = .sdr

    func job(fx: String, base: String, output: String) throws -> BlendJob {
        var job = BlendJob(fx: fx, base: base, output: output)
        job.duration = duration
        job.fit = fit
        try video.apply(width: &job.width, height: &job.height, frameRate: &job.frameRate, crf: &job.crf, preset: &job.preset,
                        codec: &job.codec, proresProfile: &job.proresProfile)
        job.key = try key.settings()
        job.autoKeyColor = key.isAuto
        job.keyMode = keyMode
        job.keepHDR = hdr == .keep
        job.audio = try audio.options()
        return job
    }
}

extension DurationPolicy: ExpressibleByArgument {}
extension KeyMode: ExpressibleByArgument {}

/// `--hdr`'s values.
enum HDRChoice: String, ExpressibleByArgument, CaseIterable { case sdr, keep }
extension MixMode: ExpressibleByArgument {}
extension VideoCodec: ExpressibleByArgument {}
extension ProResProfile: ExpressibleByArgument {}
extension AudioCodec: ExpressibleByArgument {}
extension AudioOptions.Tracks: ExpressibleByArgument {}
