import ArgumentParser
@_spi(Tools) import MixWrite
import MixWriteTune

// The job commands besides the blend: each its name, its words (read by its job's declarations) and its page;
// `JobCommand.run` serves the page with --tune or renders.

struct Concat: JobCommand {
    typealias Job = ConcatJob
    static var configuration: CommandConfiguration {
        configuration("concat", abstract: "Put clips end to end, video and every audio track of each; one chapter a clip.",
                      example: "mixwrite concat intro.mov talk.mp4 outro.mov -o show.mp4 --events events.json")
    }
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var words: [String] = []
    static func refusesPage(_ job: Job) -> String? {
        job.parts == nil ? nil : "--tune serves the page for the whole job: --parts does not go with it"
    }
}

struct Still: JobCommand {
    typealias Job = StillJob
    static var configuration: CommandConfiguration {
        configuration("still", abstract: "A movie of one picture, exactly as long as its audio (several audio files are mixed).",
                      example: "mixwrite still cover.jpg episode.mp3 -o episode.mp4")
    }
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var words: [String] = []
}

struct Remix: JobCommand {
    typealias Job = RemixJob
    static var configuration: CommandConfiguration {
        configuration("remix", abstract: "Mix every audio track of MOVIE (and of --audio files) into one; the video is copied untouched.",
                      example: "mixwrite remix phone.mov --audio narration.m4a -o phone-mixed.mov")
    }
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var words: [String] = []
}

/// The key layer has no page (`tune` keys fx over a base), so no `--tune`.
struct Key: JobCommand {
    typealias Job = KeyJob
    static var configuration: CommandConfiguration {
        configuration("key", abstract: "Write FX's picture with the key's matte as its alpha (a layer for an editor), and FX's audio mixed.",
                      example: "mixwrite key greenscreen.mov -o layer.mov   (ProRes 4444; .webm: VP9 with alpha)")
    }
    static var own: [OptionDeclaration] { [] }
    @Argument(parsing: .allUnrecognized, help: .hidden)
    var words: [String] = []

    static func pickedKey(_ job: Job) -> Bool { job.autoKeyColor }
}
