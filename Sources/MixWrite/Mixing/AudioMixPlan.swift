import Foundation
import FFmpegSupport

/// One audio track that goes into the mix.
public struct AudioSource: Sendable, Codable {
    /// The source's name on the command line: `fx`, `base`, `audio1` …
    public var label: String
    /// The URL FFmpeg reads: the file's path, or a bundle's medium's `subfile,…` URL (which ffprobe reads too).
    public var path: String
    /// The file as a person reads it (a bundle's medium: `BUNDLE.otioz/media/NAME`).
    public var shownPath: String { MediaPath.shown(path) }
    public var streamIndex: Int
    /// 1-based number of this track among the file's audio tracks (`fx:2`).
    public var track: Int
    public var codec: String
    public var sampleRate: Int
    public var channels: Int
    public var layout: String
    public var gainDB: Double
    /// Gain `--level-match` gave the track, on top of `gainDB` (0 without).
    public var matchGainDB: Double = 0
    /// Extra delay given by the user (or found by its sound: then negative where it started before the reference); the
    /// track's own start within its file is added to it.
    public var offsetSeconds: Double
    /// How much longer one second of the track's own lasts on the output (ppm): its clock's drift against the
    /// reference's, corrected by stretching it (`--offset SOURCE=auto` with `--drift auto`).
    public var driftPPM: Double = 0
    /// Placed by its sound: where its time 0 lies on the reference source's own time (seconds), and that source's label;
    /// `offsetSeconds` is made from it once every source has its place on the output (`AudioOptions.plan`).
    var sync: (offset: Double, reference: String)?
    /// Where the track starts on its file's timeline (after the file's origin).
    var startOffset: MediaTime
    /// How the track reaches the output (decoded, resampled, downmixed, gain, offset, mixed).
    public var route: String = ""
    /// Where the track's input starts on the output timeline (a concat clip's start); 0 otherwise.
    var timelineStart: MediaTime = .zero
    /// The track is cut to this length (a concat clip's span, a layer's `--out` less `--in`), so it never runs on.
    var span: MediaTime?
    /// The part of the track's file left out before it starts (a layer's `--in`), on the file's timeline.
    var head: MediaTime = .zero
    /// The place of the track's file among the job's inputs (a concat clip's number), in the order given.
    var inputIndex = 0
    /// Its fades on the output's timeline (a concat clip's transitions: in where it overlaps the clip before, out where
    /// it overlaps the next), by the plan's `crossfadeCurve`.
    var fades: [SourceFade] = []
    /// Its clip's time changed (a speed, a reverse, a freeze): `head` is then where the media it uses starts, and
    /// `span` its length on the output; `stretchDelays` the stretcher's own offset at each of its speeds (`Stretch`).
    var retime: Retime?
    var stretchDelays: [Rational: Int64] = [:]

    public var name: String { "\(label):\(track)" }
    /// The track's language and title in its file, which its stem keeps.
    var language: String?
    var title: String?
    /// Its stem's title: its name, and its own title after it (`fx:1 Boom mic`).
    var stemTitle: String { title.map { "\(name) \($0)" } ?? name }

    /// The timestamp of the track's sample `n` as a mix reader stamps it: `n`, or a drifting track's on the output's
    /// clock (its chain stretches the samples to it).
    func stamp(sample n: Int64) -> Int64 {
        driftPPM == 0 ? n : Int64((Double(n) * (1 + driftPPM / 1e6)).rounded())
    }

    /// Where the track's first sound is heard on the output: its input's place, its own start in the file less what is
    /// left out before it (never before the input's place), and `--offset`.
    var heardAt: MediaTime {
        timelineStart + max(startOffset - head, .zero) + (MediaTime(seconds: offsetSeconds) ?? .zero)
    }

    /// Where the track's input starts on the output (a layer's `--at`, a concat clip's start), in seconds.
    public var atSeconds: Double { timelineStart.seconds }

    enum CodingKeys: String, CodingKey {
        case label, path, streamIndex, track, codec, sampleRate, channels, layout, gainDB, matchGainDB, offsetSeconds, route,
             startSeconds, atSeconds, driftPPM
    }
    public init(from decoder: any Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        label = try c.decode(String.self, forKey: .label)
        path = try c.decode(String.self, forKey: .path)
        streamIndex = try c.decode(Int.self, forKey: .streamIndex)
        track = try c.decode(Int.self, forKey: .track)
        codec = try c.decode(String.self, forKey: .codec)
        sampleRate = try c.decode(Int.self, forKey: .sampleRate)
        channels = try c.decode(Int.self, forKey: .channels)
        layout = try c.decode(String.self, forKey: .layout)
        gainDB = try c.decode(Double.self, forKey: .gainDB)
        matchGainDB = try c.decodeIfPresent(Double.self, forKey: .matchGainDB) ?? 0
        offsetSeconds = try c.decode(Double.self, forKey: .offsetSeconds)
        driftPPM = try c.decodeIfPresent(Double.self, forKey: .driftPPM) ?? 0
        route = try c.decodeIfPresent(String.self, forKey: .route) ?? ""
        startOffset = MediaTime(seconds: String(try c.decodeIfPresent(Double.self, forKey: .startSeconds) ?? 0)) ?? .zero
        timelineStart = MediaTime(seconds: String(try c.decodeIfPresent(Double.self, forKey: .atSeconds) ?? 0)) ?? .zero
    }
    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(label, forKey: .label); try c.encode(path, forKey: .path)
        try c.encode(streamIndex, forKey: .streamIndex); try c.encode(track, forKey: .track)
        try c.encode(codec, forKey: .codec); try c.encode(sampleRate, forKey: .sampleRate)
        try c.encode(channels, forKey: .channels); try c.encode(layout, forKey: .layout)
        try c.encode(gainDB, forKey: .gainDB); try c.encode(matchGainDB, forKey: .matchGainDB)
        try c.encode(offsetSeconds, forKey: .offsetSeconds)
        if driftPPM != 0 { try c.encode(driftPPM, forKey: .driftPPM) }
        try c.encode(route, forKey: .route); try c.encode(startOffset.seconds, forKey: .startSeconds)
        try c.encode(timelineStart.seconds, forKey: .atSeconds)
    }

    init(label: String, path: String, streamIndex: Int, track: Int, codec: String, sampleRate: Int, channels: Int,
         layout: String, gainDB: Double, offsetSeconds: Double, startOffset: MediaTime, inputIndex: Int) {
        self.label = label; self.path = path; self.streamIndex = streamIndex; self.track = track; self.codec = codec
        self.sampleRate = sampleRate; self.channels = channels; self.layout = layout; self.gainDB = gainDB
        self.offsetSeconds = offsetSeconds; self.startOffset = startOffset; self.inputIndex = inputIndex
    }
}

/// A source's fade on the output's timeline: in (from silence) or out (to silence) over `length` from `start`.
struct SourceFade: Sendable, Equatable {
    var fadesIn: Bool
    var start: MediaTime
    var length: MediaTime
}

/// The shape of a cross-fade's gains, by FFmpeg's `afade` and `acrossfade` names: `qsin` (a quarter of a sine: equal
/// power, the default), `tri` (linear: equal gain), `hsin`, `esin`, `log`, `par`, `ipar`, `qua`, `cub`, `squ`, `cbr`,
/// `exp`, `iqsin`, `ihsin`, `dese`, `desi`. The fade out is the fade in's mirror, as acrossfade's.
public enum FadeCurve: String, Sendable, Codable, CaseIterable {
    case qsin, tri, hsin, esin, log, par, ipar, qua, cub, squ, cbr, exp, iqsin, ihsin, dese, desi
}

/// How the tracks are summed.
public enum MixMode: String, Sendable, Codable, CaseIterable {
    /// Each source at its own level, then a limiter at -1 dBFS (a mixing desk; AVFoundation's audio mix).
    case sum
    /// ffmpeg's amix default: each source at 1/N.
    case average
}

/// The mix, decided at planning: every source track, the output's format and length, and the one avfilter
/// graph that mixes them (abuffer×N → [pan, volume, aformat, atrim, adelay] → amix → alimiter → apad/atrim).
struct AudioMixPlan: Sendable {
    var sources: [AudioSource]
    var sampleRate: Int
    var channels: Int
    /// The mix is padded with silence or cut to exactly this many samples.
    var totalSamples: Int64
    var bitRate: Int
    /// The codec the mix is written in.
    var codec: AudioCodec = .aac
    /// Each source's stem written after the mix (`--stems`).
    var stems = false
    var mode: MixMode
    /// Fail at the first damaged packet instead of skipping it.
    var strict: Bool
    /// Loudness target, true peak, ducking and fades (`--loudness` …); none by default.
    var publishing = Publishing()
    /// dB applied to the whole mix, from the loudness measurement (`--loudness`).
    var outputGainDB: Double = 0
    /// Measure the mix with FFmpeg's ebur128 filter as it is read (the measurement passes).
    var measure = false
    /// Hold peaks with the limiter; off in the measurement of a single source.
    var limit = true
    /// A stem (`--stems`): this source alone as it enters the mix (its gain, offset, ducking, the mix's fades and
    /// length), not the mix: no amix, no loudness gain, no limiter.
    var solo: Int?
    /// Only these samples of the whole mix are handed out (an excerpt); nil: all `totalSamples`.
    var window: Range<Int64>?
    /// Where the publishing measurements are kept between jobs, if the caller keeps them.
    var measurements: MeasurementCache?
    /// The curve of the sources' `fades`.
    var crossfadeCurve = FadeCurve.qsin

    /// Each source's integrated loudness as it enters the mix (its gain, not ducked), LUFS by track name; silent
    /// ones left out. Decodes all the sound.
    func trackLoudness() throws(MixWriteError) -> [String: Double] {
        var result: [String: Double] = [:]
        for s in sources {
            if let l = try LoudnessMeter.measure(source: s, of: self), !l.isSilent { result[s.name] = l.integrated }
        }
        return result
    }

    /// Hands out only `length` of the mix from `start` (on the output's timeline), mixed as the whole is.
    mutating func cut(from start: MediaTime, length: MediaTime) {
        let rate = Rational(1, Int32(sampleRate))
        let first = min(start.ticks(in: rate), totalSamples - 1)
        window = first..<min(totalSamples, first + max(1, length.ticks(in: rate)))
    }

    /// The publishing settings, with ducked sources by their place in `sources`.
    struct Publishing: Sendable {
        var loudness: Double?
        /// The true-peak ceiling in dBTP; used with `loudness`.
        var truePeak = -1.0
        var levelMatch = false
        /// Source index → how far it is lowered (dB) while the other sources play.
        var duck: [Int: Double] = [:]
        var fadeIn = 0.0
        var fadeOut = 0.0

        var isActive: Bool { loudness != nil || levelMatch || !duck.isEmpty }
    }

    /// The limiter's ceiling: -1.5 dBFS, so that after AAC encoding (which overshoots a few tenths of a
    /// dB on loud tones) the decoded peaks stay at or under the promised -1 dBFS.
    static let ceiling = 0.841395
    /// The limiter's attack and release (ms): fast enough to catch a transient, slow enough not to distort a tone.
    static let limiterAttackMs = 5
    static let limiterReleaseMs = 50
    /// With `--loudness`, peaks are held on a 4× oversampled signal (true peak, BS.1770-4) this far under the
    /// ceiling, which AAC's overshoot uses up.
    static let truePeakMarginDB = 1.0
    /// Ducking (`sidechaincompress` keyed by the other sources): attack and release for speech over music,
    /// a low threshold and a high ratio so that the compressed signal is deep whenever anyone speaks, and the
    /// dry signal mixed back at the duck depth, so the depth is the one asked for, whatever the speech level.
    static let duckAttackMs = 20
    static let duckReleaseMs = 300
    static let duckThreshold = 0.01
    static let duckRatio = 20
    static let duckSidechainGain = 4
    /// The most `--level-match` raises a quiet source, and `--loudness` a quiet mix: beyond it is noise.
    static let maxMatchGainDB = 24.0
    static let maxLoudnessGainDB = 30.0
    /// At most this many passes through the true-peak limiter to land within `loudnessTolerance` LU of the target.
    static let loudnessPasses = 6
    static let loudnessTolerance = 0.2

    /// The stem of source `i`: the sources it needs (itself, and with ducking every source, which keys it), solo.
    func stem(_ i: Int) -> AudioMixPlan {
        var p = self
        // A surround mix's stems keep their sources' own layouts (a stereo track's stem stays stereo).
        if channels > 2 { p.channels = Self.layoutChannels(holding: sources[i].channels) }
        p.measure = false
        p.measurements = nil
        if publishing.duck.isEmpty {
            p.sources = [sources[i]]
            p.solo = 0
        } else {
            p.solo = i
        }
        return p
    }

    /// The sources in lanes for `LaneMixReader`: each lane the sources that follow one another on the output without
    /// overlapping (a timeline's clips: two lanes over dissolves), in order. nil when the mix needs every source apart:
    /// ducking keys by source, a stem is one, and averaging divides by the sources playing.
    var lanes: [[Int]]? {
        guard solo == nil, publishing.duck.isEmpty, mode == .sum else { return nil }
        let places = sources.map(placement)
        var lanes: [(members: [Int], end: Int64?)] = []
        for i in sources.indices.sorted(by: { (places[$0].first, $0) < (places[$1].first, $1) }) {
            if let l = lanes.firstIndex(where: { lane in lane.end.map { $0 <= places[i].first } ?? false }) {
                lanes[l].members.append(i)
                lanes[l].end = places[i].end
            } else {
                lanes.append(([i], places[i].end))
            }
        }
        return lanes.map(\.members)
    }

    /// The mix's channel layout as filters name it.
    var layoutName: String { ChannelLayout.name(channels) }

    /// The channels of the layout a mix writes `n` channels in, none dropped: mono, stereo, 5.1 for 3 to 6, 7.1 past.
    static func layoutChannels(holding n: Int) -> Int { n <= 2 ? n : n <= 6 ? 6 : 8 }

    /// The filter description between the sources `[in0]…` and the sink `[out]`, for each source's real format.
    func graphDescription(inputFormats: [(channels: Int, sampleRate: Int)]) -> String {
        var chains = sources.indices.map { "[in\($0)]" + sourceFilters(sources[$0], channels: inputFormats[$0].channels, layout: layoutName) + "[m\($0)]" }
        chains += duckingChains()
        let entering = sources.indices.map { i in
            publishing.duck.isEmpty ? "[m\(i)]" : publishing.duck[i] == nil ? "[mm\(i)]" : "[d\(i)]"
        }
        if let solo {
            // The others only key the ducking: their way into the mix ends here.
            chains += entering.indices.filter { $0 != solo }.map { entering[$0] + "anullsink" }
            return (chains + [entering[solo] + "anull" + tail()]).joined(separator: ";")
        }
        return mixed(entering, chains: chains)
    }

    /// The filter description of a mix read by lanes (`lanes`): `[in0]…` each a lane of sources already in the mix's
    /// format and in place (`LaneMixReader`), summed.
    func laneGraphDescription(lanes: Int) -> String {
        mixed((0..<lanes).map { "[in\($0)]" }, chains: [])
    }

    /// `inputs` summed (or averaged) by amix, after `chains`, then the tail.
    private func mixed(_ entering: [String], chains: [String]) -> String {
        var chains = chains, inputs = entering
        if mode == .sum && inputs.count > 1 {
            // amix drops what its first input still holds when that input ends (its later inputs are drained):
            // padded to the whole length, the first input ends with the mix and loses nothing (the ffmpeg CLI's
            // way of feeding hid it; pushing a whole file before pulling lost its last 16 ms).
            chains.append(inputs[0] + "apad=whole_len=\(totalSamples + Int64(sampleRate))[first]")
            inputs[0] = "[first]"
        }
        var mix = "\(inputs.joined())amix=inputs=\(inputs.count):duration=longest:dropout_transition=0:normalize=\(mode == .average ? 1 : 0)"
        if outputGainDB != 0 { mix += ",volume=\(outputGainDB)dB" }
        return (chains + [mix + tail()]).joined(separator: ";")
    }

    /// What follows the sum: the limiter, the length, the fades, the excerpt's window, the measurement, the format.
    private func tail() -> String {
        var tail = ""
        /// The one limiter, at `ceiling` (linear).
        func limiter(_ ceiling: Double) -> String {
            ",alimiter=limit=\(ceiling):level=0:latency=1:attack=\(AudioMixPlan.limiterAttackMs):release=\(AudioMixPlan.limiterReleaseMs)"
        }
        if solo != nil {
            // A stem: before the limiter.
        } else if limit && publishing.loudness != nil {
            // True peak: the limiter works on the signal oversampled 4×, where the peaks between samples show.
            let ceiling = pow(10, (publishing.truePeak - AudioMixPlan.truePeakMarginDB) / 20)
            tail += ",aresample=\(4 * sampleRate)" + limiter(ceiling) + ",aresample=\(sampleRate)"
        } else if limit && mode == .sum {
            tail += limiter(AudioMixPlan.ceiling)
        }
        tail += ",apad=whole_len=\(totalSamples),atrim=end_sample=\(totalSamples)"
        let fadeIn = Int64(publishing.fadeIn * Double(sampleRate)), fadeOut = Int64(publishing.fadeOut * Double(sampleRate))
        if fadeIn > 0 { tail += ",afade=t=in:start_sample=0:nb_samples=\(min(fadeIn, totalSamples))" }
        if fadeOut > 0 { tail += ",afade=t=out:start_sample=\(max(0, totalSamples - fadeOut)):nb_samples=\(min(fadeOut, totalSamples))" }
        if let w = window { tail += ",atrim=start_sample=\(w.lowerBound):end_sample=\(w.upperBound),asetpts=PTS-STARTPTS" }
        if measure { tail += ",ebur128=metadata=1:peak=true" }
        tail += ",aformat=sample_fmts=fltp:sample_rates=\(sampleRate):channel_layouts=\(layoutName)[out]"
        return tail
    }

    /// Where source `s` lies on the output, in samples of the mix: its samples cut before it (what is left out before
    /// it, and what would lie before the output's start), the output sample of its first sample after them (its
    /// delay: its input's place, its own start in its file, `--offset`), and how many it lasts (its span), if known.
    struct Placement {
        var cut: Int64
        var delay: Int64
        var count: Int64?
        var lead: MediaTime
        /// The output sample of its first sample heard, and of the one after its last (nil: it plays on to its end).
        var first: Int64 { max(0, delay) }
        var end: Int64? { count.map { first + $0 } }
    }

    func placement(_ s: AudioSource) -> Placement {
        let rate = Rational(1, Int32(sampleRate))
        // The track's own start less what is left out: silence before it (>= 0), or its samples cut (< 0).
        let lead = s.startOffset - s.head
        let delay = (s.timelineStart + max(lead, .zero)).ticks(in: rate) + Int64((s.offsetSeconds * Double(sampleRate)).rounded())
        let cut = (lead < .zero ? (MediaTime.zero - lead).ticks(in: rate) : 0) + max(0, -delay)
        return Placement(cut: cut, delay: delay, count: s.span.map { max(1, ($0 - max(lead, .zero)).ticks(in: rate)) }, lead: lead)
    }

    /// One source's way into the mix: to the mix's channels, its gain, the mix's format, its span (a layer's `--in` and
    /// `--out`, a clip's end), then its place on the output's timeline and its `--offset`. `placed: false`: its samples
    /// from its first heard (a lane of `LaneMixReader` places them), its fades counted on the output all the same;
    /// `skipped`: samples of its start not read (a seek into its file: fewer cut).
    func sourceFilters(_ s: AudioSource, channels inputChannels: Int, layout: String, placed: Bool = true, skipped: Int64 = 0) -> String {
        var filters: [String] = []
        if s.driftPPM != 0 {
            // The reader stamps the track's frames on the output's clock (AudioMixReader): aresample stretches the
            // samples to those times, a few samples a second at most (the drift's, 3 times over), resampling softly.
            let perSecond = max(1, Int((abs(s.driftPPM) * 1e-6 * Double(max(1, s.sampleRate)) * 3).rounded(.up)))
            filters.append("aresample=async=\(perSecond):min_comp=0.0001:min_hard_comp=0.1:first_pts=0")
        }
        // A mono source plays at its own level in both channels, as players play a mono file.
        if inputChannels == 1 && channels == 2 {
            filters.append("pan=stereo|c0=c0|c1=c0")
        }
        if s.gainDB + s.matchGainDB != 0 { filters.append("volume=\(s.gainDB + s.matchGainDB)dB") }
        filters.append("aformat=sample_fmts=fltp:sample_rates=\(sampleRate):channel_layouts=\(layout)")
        let rate = Rational(1, Int32(sampleRate))
        var p = placement(s)
        p.cut -= skipped
        if let r = s.retime, let count = p.count {
            filters += retimed(r, cut: p.cut, count: count, delays: s.stretchDelays,
                               tag: String(s.name.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) ? Character($0) : "_" }))
        } else {
            trim(cut: p.cut, count: p.count, into: &filters)
        }
        if placed && p.delay > 0 { filters.append("adelay=delays=\(p.delay)S:all=1") }
        if !s.fades.isEmpty {
            // On the output's timeline: the samples counted from its start (adelay's silence, or the lane's, included).
            filters.append(placed ? "asetpts=N/SR/TB" : "asetpts=(N+\(p.first))/SR/TB")
            for f in s.fades {
                filters.append("afade=t=\(f.fadesIn ? "in" : "out"):curve=\(crossfadeCurve.rawValue)"
                               + ":start_sample=\(f.start.ticks(in: rate)):nb_samples=\(max(1, f.length.ticks(in: rate)))")
            }
        }
        return filters.joined(separator: ",")
    }

    /// `count` samples from sample `cut` of a source (to its end when nil), from the first kept.
    private func trim(cut: Int64, count: Int64?, into filters: inout [String]) {
        let end = count.map { "end_sample=\(cut + $0)" }
        if cut > 0 {
            filters.append("atrim=start_sample=\(cut)" + (end.map { ":" + $0 } ?? "") + ",asetpts=PTS-STARTPTS")
        } else if let end {
            filters.append("atrim=" + end)
        }
    }

    /// A retimed source's `count` samples of output from its media at sample `cut`: silent under a freeze (unless held); else its
    /// sound pieces (one, but a ramp's every tenth of a second, `Retime.soundPieces`), each made by `piece` with its
    /// speed's stretcher offset from `delays`, a ramp's joined by short cross-fades. `tag` names its branches in the
    /// graph (a ramp's split is labelled by it, unique among the sources).
    private func retimed(_ r: Retime, cut: Int64, count: Int64, delays: [Rational: Int64], tag: String) -> [String] {
        let pieces = r.soundPieces(count: count, sampleRate: sampleRate)
        guard !pieces.isEmpty else {
            var filters: [String] = []
            trim(cut: cut, count: count, into: &filters)
            return filters + ["volume=0", "apad=whole_len=\(count)", "atrim=end_sample=\(count)"]
        }
        guard pieces.count > 1 else { return piece(pieces[0], of: r, cut: cut, extra: 0, delay: pieces[0].holds ? 0 : delays[pieces[0].speed] ?? 0) }
        // A ramp: each piece its own chain from the one decoded sound, made `overlap` longer but the last, and each
        // joined to the next by a linear cross-fade over that overlap (acrossfade), so the next starts at its own place.
        let overlap = Int64(Self.rampOverlap * Double(sampleRate))
        let labels = pieces.indices.map { "\(tag)p\($0)" }
        var chains = ["asplit=\(pieces.count)" + labels.map { "[\($0)]" }.joined()]
        for (k, p) in pieces.enumerated() {
            let extra = k + 1 < pieces.count ? overlap : 0
            chains.append("[\(labels[k])]" + piece(p, of: r, cut: cut, extra: extra, delay: p.holds ? 0 : delays[p.speed] ?? 0).joined(separator: ",") + "[\(labels[k])o]")
        }
        var joined = "[\(labels[0])o]"
        for k in pieces.indices.dropFirst() {
            let into = k + 1 < pieces.count ? "[\(labels[k])x]" : ""
            chains.append(joined + "[\(labels[k])o]acrossfade=ns=\(overlap):c1=tri:c2=tri" + into)
            joined = "[\(labels[k])x]"
        }
        // The last join is the chain's own end: what follows it (its place, its fades) goes on from there.
        let last = chains.removeLast()
        return [chains.joined(separator: ";") + ";" + last]
    }

    /// How long a ramp's sound pieces overlap where they join (output seconds).
    static let rampOverlap = 0.01

    /// One piece of a retimed source's sound: `p.output`'s samples (and `extra` more) from its media at sample
    /// `cut` + `p.media`: reversed with its picture; played as a tape (`pitchFollows`: its rate changed), or stretched
    /// with its pitch kept (`Stretch`), fed `Stretch.preroll` of what comes before (its own sound where it has it,
    /// else silence) and that and the stretcher's `delay` taken off its output, and as much of what comes after;
    /// exactly that many samples.
    private func piece(_ p: Retime.SoundPiece, of r: Retime, cut: Int64, extra: Int64, delay: Int64) -> [String] {
        let count = Int64(p.output.count) + extra
        let used = Int64(p.media.count) + Int64((Double(extra) * p.speed.doubleValue).rounded())
        let start = cut + p.media.lowerBound
        let stretched = p.speed != Rational(1, 1) && (!r.pitchFollows || p.holds)
        let lead = stretched ? Int64((Stretch.preroll * p.speed.doubleValue * Double(sampleRate)).rounded()) : 0
        let own = r.reversed ? 0 : min(start, lead)
        // A stretcher's last output is its flush: fed as much again after the piece (where the sound has it), it is
        // past the samples kept.
        let after = stretched && !r.reversed ? lead : 0
        var filters: [String] = []
        trim(cut: start - own, count: own + used + after, into: &filters)
        if r.reversed { filters.append("areverse") }
        if lead > own { filters.append("adelay=delays=\(lead - own)S:all=1") }
        // rubberband gives its last input's output only when more follows: a held sound (its media may end at the
        // grain) and a reversed one (fed no media after) are followed by silence, past the samples kept.
        if p.holds || (stretched && r.reversed) { filters.append("apad=pad_len=\(Int64(Stretch.preroll * Double(sampleRate)))") }
        if stretched {
            let off = max(0, Int64((Stretch.preroll * Double(sampleRate)).rounded()) + delay)
            filters += [Stretch.filter(speed: p.speed), "atrim=start_sample=\(off)", "asetpts=PTS-STARTPTS"]
        } else if r.pitchFollows && p.speed != Rational(1, 1) {
            // As a tape: its samples played at the speed's rate, then resampled; exact in time, its pitch moved.
            let played = Int64((Double(sampleRate) * p.speed.doubleValue).rounded())
            filters += ["asetrate=\(played)", "aresample=\(sampleRate)"]
        }
        return filters + ["apad=whole_len=\(count)", "atrim=end_sample=\(count)"]
    }

    /// `--duck`: each ducked source [m_i] through sidechaincompress, keyed by the sum of the other sources,
    /// into [d_i]. The others are split: one copy to the mix, one to the key. Both inputs of each compressor
    /// are padded to the mix's length, so that neither ends it early.
    private func duckingChains() -> [String] {
        let ducked = publishing.duck.sorted { $0.key < $1.key }
        guard !ducked.isEmpty else { return [] }
        let others = sources.indices.filter { publishing.duck[$0] == nil }
        // Each other source: one copy [mm_i] to the mix, one [k_i] to the key.
        var chains = others.map { "[m\($0)]asplit=2[mm\($0)][k\($0)]" }
        let keys = others.map { "[k\($0)]" }.joined()
        let key = others.count == 1 ? keys + "apad=whole_len=\(totalSamples)" : keys
            + "amix=inputs=\(others.count):duration=longest:normalize=0,apad=whole_len=\(totalSamples)"
        chains.append(key + (ducked.count == 1 ? "[key0]" : ",asplit=\(ducked.count)" + ducked.indices.map { "[key\($0)]" }.joined()))
        for (n, (i, depth)) in ducked.enumerated() {
            let wet = 1 - pow(10, -depth / 20)
            chains.append("[m\(i)]apad=whole_len=\(totalSamples)[p\(i)];[p\(i)][key\(n)]sidechaincompress=threshold=\(AudioMixPlan.duckThreshold)"
                + ":ratio=\(AudioMixPlan.duckRatio):attack=\(AudioMixPlan.duckAttackMs):release=\(AudioMixPlan.duckReleaseMs)"
                + ":level_sc=\(AudioMixPlan.duckSidechainGain):makeup=1:mix=\(wet)[d\(i)]")
        }
        return chains
    }
}
