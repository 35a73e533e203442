import FFmpegSupport

/// `mixwrite key FX -o layer.mov`: fx's picture with the key's matte as its alpha, a layer to take into an editor,
/// and fx's audio mixed as every job mixes it. Written as ProRes 4444 in `.mov` (and `.mkv`) or VP9 with alpha in
/// `.webm`; a codec or container that would drop the alpha is refused (libx265 drops it without a word).
public struct KeyJob: Sendable {
    public var fx: String
    public var output: String
    /// How it runs: `-y`, `--strict`, threads (`RunSettings`).
    public var run = RunSettings()
    /// The picture: size and rate (nil: fx's), codec (nil: the container's: ProRes 4444 in .mov and .mkv, VP9 in
    /// .webm; ProRes keeps alpha in 4444 only), quality.
    public var picture = PictureSettings(fit: .stretch, proresProfile: .p4444)
    public var key = KeySettings()
    public var autoKeyColor = false
    public var audio = AudioOptions()

    public init(fx: String, output: String) {
        self.fx = fx
        self.output = output
    }
}

extension KeyJob: DescribedJob, CommonJob, KeyedJob {
    static let kind = "key"
    static let command = ["mixwrite", "key"]
    static let abstract = "Write FX's picture with the key's matte as its alpha (a layer for an editor), and FX's audio mixed."
    static let example = "mixwrite key greenscreen.mov -o layer.mov   (ProRes 4444; .webm: VP9 with alpha)"
    static var blank: Self { KeyJob(fx: "", output: "") }

    /// `mixwrite key FX -o OUT` and every option of a key layer.
    static var options: [JobOption<Self>] {
        let inputs: [JobOption<Self>] = [
            .path("fx", \.fx, help: "The effect clip, shot on a green (or --key-color) screen."),
            .path("output", \.output, form: .short("-o"), help: "The layer to write: .mov (ProRes 4444), .webm (VP9 with alpha) or .mkv."),
        ]
        return inputs + PictureSettings.options(blank.picture, codecs: [.prores, .vp9],
                                               why: "drops the layer's alpha")
            .map { $0.lifted(\.picture) }
            + keyOptions
            + [AudioOptions.filesOption.lifted(\.audio)] + AudioOptions.options.map { $0.lifted(\.audio) }
            + commonOptions
    }

    public init(from decoder: any Swift.Decoder) throws { try self.init(describedBy: decoder) }
    public func encode(to encoder: any Swift.Encoder) throws { try encodeDescription(to: encoder) }

    public var inputPaths: [String] { [fx] + audio.files + [key.cleanPlate].compactMap { $0 } }

    /// The codec that keeps the layer's alpha in `container`, or why there is none.
    static func layerCodec(_ asked: VideoCodec?, profile: ProResProfile, in container: OutputFile.Container,
                           path: String) throws(MixWriteError) -> VideoCodec {
        let keeps = "the alpha is kept by ProRes 4444 (.mov, .mkv) or VP9 (.webm, .mkv)"
        guard [.mov, .matroska, .webm].contains(container) else {
            throw .usage("\(path): \(container.extensionName) drops the layer's alpha; \(keeps)")
        }
        let codec = asked ?? (container == .webm ? .vp9 : .prores)
        guard codec == .prores || codec == .vp9 else { throw .usage("--codec \(codec.rawValue) drops the layer's alpha; \(keeps)") }
        if codec == .prores && !profile.isFourFourFourFour {
            throw .usage("--prores-profile \(profile.rawValue) drops the layer's alpha; ProRes keeps it in 4444 or 4444xq")
        }
        return codec
    }

    /// Checks the options (ranges, the key), without opening a file.
    public func validate() throws(MixWriteError) {
        try picture.validate()
        try validateKey()
        try audio.validate()
    }

    func prepare() throws(MixWriteError) -> PreparedJob {
        try validate()
        let fxFile = try MediaFile(path: fx)
        guard fxFile.mainVideo != nil else { throw .input(file: fx, "has no video stream; fx must be a movie") }
        let extra = try audio.extraFiles()
        let output = try OutputFile(path: output, overwrite: run.overwrite, inputs: inputPaths)
        let codec = try Self.layerCodec(picture.codec, profile: picture.proresProfile, in: output.container, path: self.output)
        let audioCodec = try output.container.codecs(video: codec, audio: audio.codec).audio
        guard let length = fxFile.videoDuration, length > .zero else { throw .input(file: fx, "has no known duration") }
        var video = try picture.videoPlan(reference: fxFile, length: length, strict: run.strict, threads: run.threads)
        video.encoding.codec = codec
        var warnings = idleKeyOptions(byAlpha: false).map { [$0] } ?? []
        let key = try keyPicked(for: fxFile, keyed: KeyColorPicker.Keyed(width: video.width, height: video.height, fit: video.fit),
                                notes: &warnings)
        try Self.checkPlate(key)
        let plan = KeyLayerStage.Plan(fx: fxFile, video: video, key: key)
        let (rate, outLength) = (video.frameRate, video.length)
        let conversions = ColorManagement.conversions(of: [fxFile])
        warnings = conversions + warnings
        let sources = try audio.sources(from: [("fx", fxFile)] + extra, strict: run.strict, warnings: &warnings)
        var audioPlan = try audio.plan(sources: sources, duration: outLength, codec: audioCodec)
        audioPlan?.strict = run.strict
        var prepared = PreparedJob(output: output, duration: outLength, frameRate: rate, video: KeyLayerStage(plan: plan),
                                   audio: audioPlan, key: key, warnings: warnings, conversions: conversions)
        prepared.keyPicked = keyColorWasRead(key)
        return prepared
    }
}
