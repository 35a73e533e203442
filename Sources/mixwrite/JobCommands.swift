import ArgumentParser
@_spi(Tools) import MixWrite
import MixWriteTune

struct Concat: JobCommand {
    typealias Job = ConcatJob
    static var configuration: CommandConfiguration {
        configuration("concat", abstract: "Put clips end to end, video and every audio track of each; one chapter a clip.",
                      example: "mixwrite concat intro.mov talk.mp4 outro.mov -o show.mp4 --events events.json")
    }
    static var own: [OptionDeclaration] { TuneFlag.declarations }

    @Argument(parsing: .allUnrecognized, help: .hidden, completion: completion)
    var words: [String] = []

    func run() async throws {
        let (job, common, words) = try parse()
        if words.flag("tune") {
            if job.parts != nil { throw MixWriteError.usage("--tune serves the page for the whole job: --parts does not go with it") }
            return try await TuneFlag(words).serve(job.output, quiet: common.quiet) { try await TuneServer(job: job, listen: $0, port: $1) }
        }
        let report = try await Runner(common: common).run(job)
        common.printReport(report)
    }
}

struct Still: JobCommand {
    typealias Job = StillJob
    static var configuration: CommandConfiguration {
        configuration("still", abstract: "A movie of one picture, exactly as long as its audio (several audio files are mixed).",
                      example: "mixwrite still cover.jpg episode.mp3 -o episode.mp4")
    }
    static var own: [OptionDeclaration] { TuneFlag.declarations }

    @Argument(parsing: .allUnrecognized, help: .hidden, completion: completion)
    var words: [String] = []

    func run() async throws {
        let (job, common, words) = try parse()
        if words.flag("tune") {
            return try await TuneFlag(words).serve(job.output, quiet: common.quiet) { try await TuneServer(job: job, listen: $0, port: $1) }
        }
        let report = try await Runner(common: common).run(job)
        common.printReport(report)
    }
}

struct Remix: JobCommand {
    typealias Job = RemixJob
    static var configuration: CommandConfiguration {
        configuration("remix", abstract: "Mix every audio track of MOVIE (and of --audio files) into one; the video is copied untouched.",
                      example: "mixwrite remix phone.mov --audio narration.m4a -o phone-mixed.mov")
    }
    static var own: [OptionDeclaration] { TuneFlag.declarations }

    @Argument(parsing: .allUnrecognized, help: .hidden, completion: completion)
    var words: [String] = []

    func run() async throws {
        let (job, common, words) = try parse()
        if words.flag("tune") {
            return try await TuneFlag(words).serve(job.output, quiet: common.quiet) { try await TuneServer(job: job, listen: $0, port: $1) }
        }
        let report = try await Runner(common: common).run(job)
        common.printReport(report)
    }
}

struct Key: JobCommand {
    typealias Job = KeyJob
    static var configuration: CommandConfiguration {
        configuration("key", abstract: "Write FX's picture with the key's matte as its alpha (a layer for an editor), and FX's audio mixed.",
                      example: "mixwrite key greenscreen.mov -o layer.mov   (ProRes 4444; .webm: VP9 with alpha)")
    }

    @Argument(parsing: .allUnrecognized, help: .hidden, completion: completion)
    var words: [String] = []

    func run() async throws {
        let (job, common, _) = try parse()
        MixWriter.setLibraryLogging(common.verbose)
        let report = try await Runner(common: common).run(job)
        common.printReport(report, autoKey: job.autoKeyColor)
    }
}
