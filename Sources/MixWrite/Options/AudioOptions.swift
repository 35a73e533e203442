import Foundation
import FFmpegSupport

/// A source placed by its sound (`--drift`): `auto` also measures its clock's drift and resamples it to the reference's;
/// `off` places its start alone.
public enum DriftMode: String, Sendable, Codable, CaseIterable {
    case auto, off
}

/// What goes into the audio mix, shared by every kind of job.
public struct AudioOptions: Sendable {
    public enum Tracks: String, Sendable, Codable, CaseIterable {
        /// Every audio track of every input (the point of mixwrite).
        case all
        /// The first audio track of each input.
        case first
        /// No audio at all.
        case none
    }

    /// Extra audio files (`--audio`), named `audio1`, `audio2` … in this order.
    public var files: [String] = []
    public var tracks: Tracks = .all
    /// Sources (`fx`, `audio2`) or single tracks (`fx:2`) left out.
    public var mute: [String] = []
    /// dB a source or track, e.g. `["fx": -6]`.
    public var gains: [String: Double] = [:]
    /// Seconds of silence before a source or track starts.
    public var offsets: [String: Double] = [:]
    /// Sources (or tracks) placed by their sound (`--offset lav=auto`): where it lies against the reference's.
    public var autoOffsets: [String] = []
    /// The source the others' sound is placed against (`--sync-to`); nil: base, else the job's first source.
    public var syncTo: String?
    /// Whether a source placed by its sound also has its clock's drift measured and corrected (`--drift auto`; `off`:
    /// its start placed, its clock taken as the reference's).
    public var drift = DriftMode.auto
    public var mode: MixMode = .sum
    /// Output channels: 1, 2, 6 (5.1) or 8 (7.1); 0: the widest layout among the sources (`auto`); nil: stereo if any
    /// source has two or more, else mono (every surround source folded down).
    public var channels: Int?
    /// Output sample rate, Hz.
    public var sampleRate = 48_000
    /// Every source track on its own after the mix (`--stems`), as it enters the mix.
    public var stems = false
    /// The audio codec; nil: the container's (AAC; a `.webm`'s Opus).
    public var codec: AudioCodec?
    /// AAC's or Opus's bit rate in bits a second.
    public var bitRate: Int = 192_000
    /// Integrated loudness of the output, LUFS (`--loudness`); nil keeps the sources' own levels.
    public var loudness: Double?
    /// True-peak ceiling with `loudness`, dBTP (`--true-peak`); nil: not given, `defaultTruePeak`.
    public var truePeak: Double?
    /// The true-peak ceiling when `--true-peak` is not given, dBTP.
    static let defaultTruePeak = -1.0
    /// Every source brought to the loudness of the loudest before the mix (`--level-match`).
    public var levelMatch = false
    /// Sources (or tracks) lowered while the others play, by dB (`--duck audio1=15`).
    public var duck: [String: Double] = [:]
    /// Seconds of fade at the start and end of the mix.
    public var fadeIn: Double = 0
    public var fadeOut: Double = 0

    /// How far `--duck SOURCE` lowers a source when no depth is given.
    public static let defaultDuckDB = 15.0

    public init() {}

    /// The extra files: `--audio FILE`, repeatable (a still's sound is its own option).
    static var filesOption: JobOption<AudioOptions> {
        .paths("audio", \.files, valueName: "FILE",
               help: "An extra audio file (or movie) to mix in; repeatable. Named audio1, audio2 …")
    }

    /// Every option but the files.
    static var options: [JobOption<AudioOptions>] {
        let initial = AudioOptions()
        return [
            .choice("audio-tracks", \.tracks, default: initial.tracks, help: "Which audio tracks of each input: all, first or none."),
            .texts("mute", \.mute, valueName: "SOURCE", help: "Leave out a source (fx, base, audio1 …) or one track (fx:2); repeatable."),
            .pairs("gain", \.gains, -60...24, unit: "dB", help: "Gain of a source or track, as SOURCE=DB (e.g. fx=-6); repeatable."),
            offsetOption,
            JobOption(OptionDeclaration("sync-to", .text(pattern: nil, orNumber: false), valueName: "SOURCE",
                                        help: "The source whose sound --offset SOURCE=auto places the others against (default: base, else the first)."),
                      read: { (a, input) throws(JobProblem) in a.syncTo = try input.value("must be a source's name") as String },
                      write: { $0.syncTo.map { .text($0) } }),
            .choice("drift", \.drift, default: initial.drift,
                    help: "With --offset SOURCE=auto: auto measures how fast its clock runs and resamples it so its end stays in sync; off places its start only."),
            .choice("mix", \.mode, default: initial.mode, help: "sum: each source at its own level, limited at -1 dBFS; average: ffmpeg's 1/N."),
            channelsOption,
            .integer("sample-rate", \.sampleRate, default: initial.sampleRate, 8000...384_000, valueName: "HZ",
                     help: "Output sample rate in Hz: AAC's and Opus's own rates; FLAC and PCM any."),
            .choice("audio-codec", \.codec, help: "Audio codec: aac, opus, flac or pcm (default: aac; a .webm's opus)."),
            .flag("stems", \.stems, help: "After the mix, every source track on its own, as it enters the mix (not played by default)."),
            JobOption(OptionDeclaration("audio-bitrate", .text(pattern: "^[0-9]+k?$", orNumber: true), valueName: "RATE",
                                        default: .text(OptionValue.bitRateText(initial.bitRate)), help: "AAC or Opus bit rate, e.g. 192k."),
                      read: { (a, input) throws(JobProblem) in
                          let what = "must be a bit rate such as \"192k\""
                          guard let n = OptionValue.bitRate(try input.text(what)) else { throw input.problem(what) }
                          a.bitRate = n
                      }, write: { $0.bitRate == initial.bitRate ? nil : .text(String($0.bitRate)) }),
            .number("loudness", \.loudness, -50 ... -5, unit: "LUFS", valueName: "LUFS",
                    help: "Integrated loudness of the output in LUFS (EBU R128), e.g. -16 (web, podcast), -23 (broadcast), -14 (streaming)."),
            .number("true-peak", \.truePeak, default: defaultTruePeak, -9...0, unit: "dBTP", valueName: "DBTP",
                    help: "True-peak ceiling with --loudness, in dBTP."),
            .flag("level-match", \.levelMatch,
                  help: "Bring every source to the loudness of the loudest before the mix (--gain still applies)."),
            JobOption(OptionDeclaration("duck", .pairs(1...40, unit: "dB", bare: defaultDuckDB), valueName: "SOURCE[=DB]",
                                        help: "Lower a source while the others play, back in their pauses, as SOURCE or SOURCE=DB (default 15); repeatable."),
                      read: { (a, input) throws(JobProblem) in
                          switch try input.either([String: Double].self, [String].self, "must be an object like {\"audio1\": 15} or an array of sources") {
                          case .first(let depths): a.duck = depths
                          case .second(let names): a.duck = Dictionary(names.map { ($0, defaultDuckDB) }, uniquingKeysWith: { x, _ in x })
                          }
                      }, write: { $0.duck.isEmpty ? nil : .pairs($0.duck) }),
            .number("fade-in", \.fadeIn, default: initial.fadeIn, 0...600, unit: "seconds", valueName: "S", help: "Fade the mix in over S seconds."),
            .number("fade-out", \.fadeOut, default: initial.fadeOut, 0...600, unit: "seconds", valueName: "S", help: "Fade the mix out over its last S seconds."),
        ]
    }

    /// `--offset SOURCE=SECONDS` or `SOURCE=auto`: a number of seconds (0 to 3600), or the word.
    static var offsetOption: JobOption<AudioOptions> {
        JobOption(OptionDeclaration("offset", .pairs(0...3600, unit: "seconds", bare: nil, word: "auto"), valueName: "SOURCE=S|auto",
                                    help: "Start a source's sound later, with silence before it, as SOURCE=SECONDS; or SOURCE=auto: where its sound lies against the reference's (--sync-to); repeatable. Its sound only: --at moves an fx's picture and sound together."),
                  read: { (a, input) throws(JobProblem) in
                      let given: [String: OffsetValue] = try input.value("must be an object like {\"fx\": 1.5} or {\"audio1\": \"auto\"}")
                      a.offsets = given.compactMapValues(\.seconds)
                      a.autoOffsets = given.filter { $0.value.seconds == nil }.keys.sorted()
                  }, write: { a in
                      a.offsets.isEmpty && a.autoOffsets.isEmpty ? nil
                          : .pairs(a.offsets, words: Dictionary(uniqueKeysWithValues: a.autoOffsets.map { ($0, "auto") }))
                  })
    }

    /// An offset as a job file gives it: seconds, or "auto".
    struct OffsetValue: Decodable {
        var seconds: Double?
        init(from decoder: any Swift.Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let x = try? c.decode(Double.self) { seconds = x; return }
            guard try c.decode(String.self) == "auto" else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "neither seconds nor \"auto\"")
            }
        }
    }

    /// The tracks to mix from labelled inputs, in order, after `tracks` and `mute`. A track FFmpeg cannot
    /// decode is left out with a warning, or refused under `strict`.
    func sources(from inputs: [(label: String, file: MediaFile)], strict: Bool,
                 warnings: inout [String]) throws(MixWriteError) -> [AudioSource] {
        try checkNames(against: inputs)
        if tracks == .none { return [] }
        var result: [AudioSource] = []
        for (inputIndex, (label, file)) in inputs.enumerated() {
            var streams = file.audioStreams
            if tracks == .first { streams = Array(streams.prefix(1)) }
            let starts = file.starts(of: streams)
            for (n, s) in streams.enumerated() {
                let name = "\(label):\(n + 1)"
                if mute.contains(label) || mute.contains(name) { continue }
                guard s.hasDecoder else {
                    let what = "audio stream #\(s.index) (\(name), \(s.codec)) cannot be decoded by this FFmpeg"
                    if strict { throw .input(file: file.path, what) }
                    warnings.append("\(file.path): \(what); left out of the mix")
                    continue
                }
                var source = AudioSource(
                    label: label, path: file.path, streamIndex: s.index, track: n + 1, codec: s.codec,
                    sampleRate: s.sampleRate, channels: s.channels, layout: s.layout,
                    gainDB: (gains[label] ?? 0) + (gains[name] ?? 0),
                    offsetSeconds: (offsets[name] ?? offsets[label]) ?? 0,
                    startOffset: starts[s.index] ?? .zero, inputIndex: inputIndex)
                (source.language, source.title) = (s.language.flatMap { $0 == "und" ? nil : $0 }, s.title)
                result.append(source)
            }
        }
        if !autoOffsets.isEmpty { try placeBySound(&result, inputs: inputs, warnings: &warnings) }
        return result
    }

    /// Every source or track named by an option is one of `inputs` (a track by its 1-based number among the file's
    /// audio tracks, as the report and `probe` count them), else a usage error naming the ones that exist: a name
    /// matching nothing would otherwise do nothing, silently (`--mute base:0`, ffmpeg's 0-based habit).
    private func checkNames(against inputs: [(label: String, file: MediaFile)]) throws(MixWriteError) {
        let named: [(option: String, names: [String])] = [
            ("mute", mute), ("gain", gains.keys.sorted()), ("offset", offsets.keys.sorted() + autoOffsets),
            ("duck", duck.keys.sorted()), ("sync-to", syncTo.map { [$0] } ?? []),
        ]
        for (option, names) in named {
            for name in names {
                let parts = name.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                guard let file = inputs.first(where: { $0.label == parts[0] })?.file else {
                    throw .usage("--\(option) \(name): unknown source '\(parts[0])'; the sources are \(inputs.map(\.label).joined(separator: ", "))")
                }
                guard parts.count == 2 else { continue }
                let count = file.audioStreams.count
                guard let n = Int(parts[1]), (1...max(count, 1)).contains(n), count > 0 else {
                    let tracks = switch count {
                    case 0: "no audio track"
                    case 1: "one audio track, \(parts[0]):1"
                    default: "\(count) audio tracks, \(parts[0]):1 … \(parts[0]):\(count)"
                    }
                    throw .usage("--\(option) \(name): no such track; \(parts[0]) (\(file.path)) has \(tracks) (counted from 1)")
                }
            }
        }
    }

    /// The mix plan for these sources and an output of `duration`.
    func plan(sources: [AudioSource], duration: MediaTime, codec: AudioCodec = .aac) throws(MixWriteError) -> AudioMixPlan? {
        guard !sources.isEmpty else { return nil }
        let rate = sampleRate
        if let rates = codec.sampleRates, !rates.contains(rate) {
            throw .usage("--sample-rate \(rate): \(codec.rawValue) takes \(rates.map(String.init).joined(separator: ", ")) Hz")
        }
        let ch = outputChannels(sources)
        let total = duration.ticks(in: Rational(1, Int32(rate)))
        var routed = placed(sources)
        // An offset that puts a source after the output's end would leave it out without a word (as `--at` past the
        // end is refused); a track's own late start (its file's) is the file's to say.
        if let late = routed.first(where: { $0.offsetSeconds > 0 && $0.heardAt >= duration }) {
            let given = offsets[late.name] != nil ? late.name : late.label
            throw .usage("--offset \(given)=\(JobText.number(late.offsetSeconds)): \(late.name) (\(late.path)) would start at "
                         + "\(NumberText.milliseconds(late.heardAt.seconds)) s, past the output's end (\(NumberText.milliseconds(duration.seconds)) s): "
                         + "nothing of it would be heard")
        }
        for i in routed.indices { routed[i].route = Self.route(routed[i], rate: rate, channels: ch, mode: mode) }
        var plan = AudioMixPlan(sources: routed, sampleRate: rate, channels: ch, totalSamples: max(total, 1),
                                bitRate: bitRate, mode: mode, strict: false)
        plan.codec = codec
        plan.stems = stems
        for i in plan.sources.indices {
            guard let r = plan.sources[i].retime, !r.pitchFollows, let count = plan.placement(plan.sources[i]).count else { continue }
            for p in r.soundPieces(count: count, sampleRate: rate) where p.speed != Rational(1, 1) && !p.holds {
                plan.sources[i].stretchDelays[p.speed] = try Stretch.delay(speed: p.speed, sampleRate: rate)
            }
        }
        plan.publishing = AudioMixPlan.Publishing(
            loudness: loudness, truePeak: truePeak ?? Self.defaultTruePeak, levelMatch: levelMatch,
            duck: Dictionary(uniqueKeysWithValues: sources.indices.compactMap { i in
                (duck[sources[i].name] ?? duck[sources[i].label]).map { (i, $0) }
            }),
            fadeIn: fadeIn, fadeOut: fadeOut)
        if let target = loudness {
            let ceiling = truePeak ?? Self.defaultTruePeak
            for i in plan.sources.indices {
                plan.sources[i].route = plan.sources[i].route.replacingOccurrences(
                    of: "limited at -1 dBFS", with: "mix brought to \(target) LUFS, true peak held at \(ceiling) dBTP")
            }
        }
        if !duck.isEmpty && plan.publishing.duck.count == sources.count {
            throw .usage("--duck: every source in the mix is ducked; there is nothing left to duck under")
        }
        return plan
    }

    /// `channels`: 1, 2, `5.1`, `7.1` or `auto` (a job file's number or string).
    static var channelsOption: JobOption<Self> {
        JobOption(OptionDeclaration("channels", .text(pattern: "^(1|2|mono|stereo|5\\.1|7\\.1|auto)$", orNumber: true), valueName: "LAYOUT",
                                    help: "The mix's layout: 1 (mono), 2 (stereo), 5.1, 7.1, or auto (the widest among the sources); "
                                        + "default: stereo if any source has two or more channels, else mono."),
                  read: { (a, input) throws(JobProblem) in
                      let text = try input.text("must be 1, 2, 5.1, 7.1 or auto")
                      guard let n = ["1": 1, "mono": 1, "2": 2, "stereo": 2, "5.1": 6, "7.1": 8, "auto": 0][text] else {
                          throw input.problem("'\(text)' is not one of 1, 2, 5.1, 7.1, auto")
                      }
                      a.channels = n
                  },
                  write: { a in a.channels.map { n in n <= 2 ? .number(Double(n)) : .text(n == 0 ? "auto" : n == 6 ? "5.1" : "7.1") } })
    }

    /// The mix's channels for `sources`: as asked, the widest of theirs for `auto` (5.1 for 3 to 6 channels, 7.1 past),
    /// else stereo if any has two or more.
    func outputChannels(_ sources: [AudioSource]) -> Int {
        let widest = sources.map(\.channels).max() ?? 1
        switch channels {
        case 0?: return AudioMixPlan.layoutChannels(holding: widest)
        case let n?: return n
        case nil: return widest >= 2 ? 2 : 1
        }
    }

    /// How a track reaches the output, in words, for the report.
    static func route(_ s: AudioSource, rate: Int, channels: Int, mode: MixMode) -> String {
        var steps: [String] = ["\(s.codec) decoded"]
        if s.sampleRate != rate { steps.append("resampled \(s.sampleRate) → \(rate) Hz") }
        let layout = s.layout.isEmpty ? "\(s.channels) channels" : s.layout
        if s.channels == 1 && channels == 2 {
            steps.append("mono to both channels at its own level")
        } else if s.channels == 1 && channels > 2 {
            steps.append("mono to the centre")
        } else if s.channels == 2 && channels > 2 {
            steps.append("stereo to the front pair")
        } else if s.channels > channels {
            steps.append("\(layout) downmixed to \(ChannelLayout.name(channels)) (standard matrix)")
        } else if s.channels == 2 && channels == 1 {
            steps.append("stereo downmixed to mono")
        } else if channels > 2 {
            steps.append("\(layout) to \(ChannelLayout.name(channels))'s places")
        }
        if s.gainDB != 0 { steps.append("gain \(s.gainDB) dB") }
        if s.driftPPM != 0 { steps.append(String(format: "its clock's drift (%+.1f ppm) corrected", s.driftPPM)) }
        if let r = s.retime, let span = s.span {
            // Its clip's time changed: the media it uses, how it is played, how long it lasts.
            let (from, to) = (s.head.seconds, (s.head + r.media(span - r.heldSound)).seconds)
            let x = NumberText.shortest(r.speed.doubleValue)
            let ramp = r.ramp.map { "along a ramp (" + $0.map { NumberText.shortest($0.speed) + "×" }.joined(separator: " to ") + ")" }
            let played = !r.changesSpeed ? (r.reversed ? "played backwards" : "played as it is")
                : "played \(r.reversed ? "backwards " : "")\(ramp ?? "at \(x)×") (\(r.pitchFollows ? "its pitch with it, as a tape" : "pitch kept"))"
            let held = r.holdsSound ? "the sound at its held frame sustained" : "silent under a freeze frame"
            steps.append(r.isFreeze ? held : "its \(JobText.number(from)) s to \(JobText.number(to)) s \(played)")
            if r.holdsSound && r.heldSound > .zero { steps.append("its last \(JobText.number(r.heldSound.seconds)) s \(held)") }
            steps.append("lasts \(JobText.number(span.seconds)) s")
        } else {
            if s.head > .zero { steps.append("from its \(JobText.number(s.head.seconds)) s") }
            if let span = s.span { steps.append("cut after \(JobText.number(span.seconds)) s") }
        }
        let start = s.heardAt.seconds
        if start > 0 { steps.append("starts at \(NumberText.milliseconds(start)) s of the output (silence before)") }
        steps.append(mode == .sum ? "summed at its own level, limited at -1 dBFS" : "mixed at 1/N (average)")
        return steps.joined(separator: "; ")
    }

    /// The `--audio` files, opened and named audio1, audio2 …; each must have sound.
    func extraFiles() throws(MixWriteError) -> [(String, MediaFile)] {
        var extra: [(String, MediaFile)] = []
        for (i, path) in files.enumerated() {
            let f = try MediaFile(path: path)
            guard !f.audioStreams.isEmpty else { throw .input(file: path, "has no audio stream") }
            extra.append(("audio\(i + 1)", f))
        }
        return extra
    }

    /// The declared ranges, and what a range cannot say.
    func validate() throws(MixWriteError) {
        try Self.options.checkRanges(self)
        if let codec, let rates = codec.sampleRates, !rates.contains(sampleRate) {
            throw .usage("--sample-rate \(sampleRate): \(codec.rawValue) takes \(rates.map(String.init).joined(separator: ", ")) Hz")
        }
        if !(16_000...512_000).contains(bitRate) { throw .usage("--audio-bitrate must be between 16k and 512k") }
        if let both = autoOffsets.first(where: { offsets[$0] != nil }) {
            throw .usage("--offset \(both): given both seconds and auto; give one")
        }
        if truePeak != nil && loudness == nil {
            throw .usage("--true-peak needs --loudness (without it, peaks are held at -1 dBFS)")
        }
    }
}
