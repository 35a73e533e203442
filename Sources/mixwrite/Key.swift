import ArgumentParser
@_spi(Tools) import MixWrite

struct Key: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Write FX's picture with the key's matte as its alpha (a layer for an editor), and FX's audio mixed.",
        discussion: "Example: mixwrite key greenscreen.mov -o layer.mov   (ProRes 4444; .webm: VP9 with alpha)"
    )

    @Argument(help: "The effect clip, shot on a green (or --key-color) screen.")
    var fx: String

    @Option(name: .shortAndLong, help: "The layer to write: .mov (ProRes 4444), .webm (VP9 with alpha) or .mkv.")
    var output: String

    @OptionGroup var common: CommonOptions
    @OptionGroup var video: VideoOptions
    @OptionGroup var key: KeyOptions
    @OptionGroup var audio: AudioMixOptions

    @Option(help: "How fx of another shape fits the frame (with --size): stretch, fit or fill.")
    var fit: Fit = .stretch

    func run() async throws {
        MixWriter.setLibraryLogging(common.verbose)
        var job = KeyJob(fx: fx, output: output)
        job.overwrite = common.overwrite
        job.strict = common.strict
        job.fit = fit
        try video.apply(width: &job.width, height: &job.height, frameRate: &job.frameRate, crf: &job.crf, preset: &job.preset,
                        codec: &job.codec, proresProfile: &job.proresProfile)
        job.key = try key.settings()
        job.autoKeyColor = key.isAuto
        job.audio = try audio.options()
        let report = try await Runner(common: common).run(job)
        common.printReport(report, autoKey: key.isAuto)
    }
}
