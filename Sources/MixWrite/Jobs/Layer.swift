import FFmpegSupport

/// Where an fx goes in the output, in time and in space: from `at` seconds of the output, the span `from`…`to` of
/// fx's own seconds (`--in`, `--out`), fitted into `place` (output pixels; nil: the whole frame, as GPUImage) at
/// `opacity`. fx's picture and every one of its audio tracks move together. One group of options, held by the
/// blend (for its FX) and by each extra layer, declared, read and written here alone.
public struct LayerPlacement: Sendable, Hashable, Codable {
    /// Output seconds where fx starts; base shows alone before it.
    public var at: Double = 0
    /// fx's own seconds where its used span starts (`--in`).
    public var from: Double = 0
    /// fx's own seconds where its used span ends (`--out`); nil: fx's end.
    public var to: Double?
    /// The rectangle fx is fitted into, in output pixels: x, y, width, height; nil: the whole frame.
    public var place: [Int]?
    /// How much of fx shows where it is kept, 0 to 1.
    public var opacity: Double = 1
    /// fx's seconds a second of the output (`speed`): 2 twice as fast, 0.5 half; its picture and every track of its sound.
    public var speed: Double = 1
    /// Played backwards over the same span (`reverse`), its sound too.
    public var reverse = false
    /// Seconds its last frame is held after its span (`freeze`), silent.
    public var freeze: Double = 0
    /// Its sound's pitch moves with the speed, as a tape's (`pitch=follow`); by default it is kept.
    public var pitchFollows = false

    public init() {}

    /// Its option names (the tuning page's settings).
    enum CodingKeys: String, CodingKey { case at, from = "in", to = "out", place, opacity, speed, reverse, freeze, pitch }

    public init(from decoder: any Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        at = try c.decodeIfPresent(Double.self, forKey: .at) ?? 0
        from = try c.decodeIfPresent(Double.self, forKey: .from) ?? 0
        to = try c.decodeIfPresent(Double.self, forKey: .to)
        place = try c.decodeIfPresent([Int].self, forKey: .place)
        opacity = try c.decodeIfPresent(Double.self, forKey: .opacity) ?? 1
        speed = try c.decodeIfPresent(Double.self, forKey: .speed) ?? 1
        reverse = try c.decodeIfPresent(Bool.self, forKey: .reverse) ?? false
        freeze = try c.decodeIfPresent(Double.self, forKey: .freeze) ?? 0
        pitchFollows = try c.decodeIfPresent(String.self, forKey: .pitch) == "follow"
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(at, forKey: .at)
        try c.encode(from, forKey: .from)
        try c.encodeIfPresent(to, forKey: .to)
        try c.encodeIfPresent(place, forKey: .place)
        try c.encode(opacity, forKey: .opacity)
        try c.encode(speed, forKey: .speed)
        try c.encode(reverse, forKey: .reverse)
        try c.encode(freeze, forKey: .freeze)
        try c.encode(pitchFollows ? "follow" : "keep", forKey: .pitch)
    }

    /// Its change of time (`speed`, `reverse`, `pitch`; a `freeze` alone changes none: the plan holds the last frame);
    /// nil when it plays as it is.
    var retime: Retime? {
        guard speed != 1 || reverse else { return nil }
        var r = Retime(speed: Rational(parsing: NumberText.shortest(speed)) ?? Rational(1, 1), reversed: reverse)
        r.pitchFollows = pitchFollows
        return r
    }

    /// `media` of fx's own time as output time, at its speed.
    func shown(_ media: MediaTime) -> MediaTime {
        retime.map { $0.output(media) } ?? media
    }

    /// fx keyed at the output's size over the whole frame, as GPUImage keys it: no place, fully opaque (it may still
    /// start late or use a span of fx).
    var isWholeFrame: Bool { place == nil && opacity == 1 }

    /// The placement's options as the job file's schema describes them, in their order: what the tuning page builds a
    /// layer's controls from.
    @_spi(Tools) public static var optionSchema: String { JobSchema.properties(options.map(\.declaration)) }

    /// `at`, `in`, `out`, `place`, `opacity`.
    static var options: [JobOption<LayerPlacement>] {
        let initial = LayerPlacement()
        return [.number("at", \.at, default: initial.at, 0...86_400 * 366, unit: "seconds", valueName: "T",
                 help: "Start fx at T seconds of the output, its picture and sound together (base alone before)."),
         .number("in", \.from, default: initial.from, 0...86_400 * 366, unit: "seconds", valueName: "S",
                 help: "Use fx from S seconds of its own (its picture and sound)."),
         .number("out", \.to, 0...86_400 * 366, unit: "seconds", valueName: "E", help: "Use fx up to E seconds of its own (default: its end)."),
         JobOption(OptionDeclaration("place", .rect, valueName: "X,Y,W,H",
                                     help: "Fit fx into this rectangle of the output, in pixels (default: the whole frame)."),
                   read: { (p, input) throws(JobProblem) in
                       let what = "must be X,Y,W,H in output pixels, e.g. \"960,0,960,540\""
                       let numbers: [Int]
                       switch try input.either(String.self, [Int].self, what) {
                       case .first(let text): guard let r = OptionValue.rect(text) else { throw input.problem(what) }; numbers = r
                       case .second(let list): numbers = list
                       }
                       guard numbers.count == 4 else { throw input.problem(what) }
                       p.place = numbers
                   }, write: { $0.place.map { .text($0.map(String.init).joined(separator: ",")) } }),
         .number("opacity", \.opacity, default: initial.opacity, 0...1, help: "How much of fx shows where it is kept, 0 to 1."),
         .number("speed", \.speed, default: initial.speed, Retime.slowest...Retime.fastest, valueName: "X",
                 help: "Play fx X times as fast (0.5: half speed), its picture and every track of its sound, the sound's pitch kept; "
                    + "--in and --out are fx's own seconds."),
         .flag("reverse", \.reverse, help: "Play fx's span backwards, its picture and every track of its sound."),
         .number("freeze", \.freeze, default: initial.freeze, 0...3600, unit: "seconds", valueName: "S",
                 help: "Hold fx's last frame S seconds after its span (silent)."),
         JobOption(OptionDeclaration("pitch", .choice(["keep", "follow"]), default: .text("keep"),
                                     help: "With a speed: keep its sound's pitch (rubberband), or follow the speed as a tape does."),
                   read: { (p, input) throws(JobProblem) in
                       let value: String = try input.value("must be keep or follow")
                       guard value == "keep" || value == "follow" else { throw input.problem("must be keep or follow") }
                       p.pitchFollows = value == "follow"
                   }, write: { $0.pitchFollows ? .text("follow") : nil }),
        ]
    }

    /// The largest number a rectangle may hold: the largest output's side (`--size`), so a layer's scaled picture is
    /// never larger than the largest frame.
    static let largest = 8192

    /// What the ranges cannot say: a span that ends before it starts, a rectangle that is not four numbers, that is
    /// far past any frame, or that has no area. `name` names the layer.
    func validate(_ name: String) throws(MixWriteError) {
        do { try Self.options.checkRanges(self) } catch { throw .usage(name + error.description) }
        if let to, to <= from { throw .usage("\(name)--out \(JobOption<Int>.format(to)) must be after --in \(JobOption<Int>.format(from))") }
        guard let r = place else { return }
        let shown = r.map(String.init).joined(separator: ",")
        guard r.count == 4 else { throw .usage("\(name)--place \(shown): must be X,Y,W,H") }
        guard r.allSatisfy({ abs($0) <= Self.largest }) else {
            throw .usage("\(name)--place \(shown): each number must be within ±\(Self.largest) pixels")
        }
        if r[2] <= 0 || r[3] <= 0 { throw .usage("\(name)--place \(shown): the rectangle has no area") }
    }

    /// Where fx starts on the output, where in fx, and how long it shows on the output when `--out` cuts it (nil: to
    /// its end), at its speed.
    var span: (start: MediaTime, from: MediaTime, length: MediaTime?) {
        let from = MediaTime(seconds: self.from) ?? .zero
        return (MediaTime(seconds: at) ?? .zero, from, to.flatMap { MediaTime(seconds: $0) }.map { shown($0 - from) })
    }

    /// Where fx's picture ends on the output, given fx's length.
    func end(fxLength: MediaTime) -> MediaTime {
        let (start, from, length) = span
        let rest = shown(fxLength - from)
        return start + max(.zero, min(length ?? rest, rest))
    }
}

/// One more fx over base (`--layer`, a job file's `layers`): its file, where it goes (`LayerPlacement`) and how it is
/// laid over what is under it (its key, or its own alpha). Layers are composited in order, over the blend's FX.
public struct Layer: Sendable, Hashable {
    public var fx: String
    public var placement = LayerPlacement()
    public var key = KeySettings()
    public var autoKeyColor = false
    public var compositing: Compositing = .auto

    public init(fx: String) { self.fx = fx }

    /// `fx`, then the placement's options, the key's and `key` (chroma or alpha): a layer's spec and its job-file object.
    static var options: [JobOption<Layer>] {
        [.path("fx", \.fx, help: "The layer's effect clip.")] + LayerPlacement.options.map { $0.lifted(\.placement) } + keyOptions
            + [.choice("key", \.compositing, default: Layer(fx: "").compositing, help: "How the layer is laid over: auto, chroma, alpha or none (as it is, opaque).")]
    }

    /// The layer's option declarations, which the blend's `layers` option carries (its spec's and its schema's).
    static var declarations: [OptionDeclaration] { options.map(\.declaration) }
}

extension Layer: KeyedJob {}

/// How fx is composited over base (`--key`): by its own alpha when it has one (`auto`), or always by the chroma key,
/// or always by its alpha. ("Key" alone means the chroma key: its settings, `KeySettings`; its colour; its layer.)
public enum Compositing: String, Sendable, Codable, CaseIterable {
    case auto, chroma, alpha
    /// No key: laid as it is, opaque (a picture-in-picture), at its opacity.
    case none
}
