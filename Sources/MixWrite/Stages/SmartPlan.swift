import FFmpegSupport

/// Smart rendering (`--smart`): which of the output's frames are an input's packets copied as they are, and which are
/// decoded, composed and encoded, decided before anything is written. The inputs copied from are a blend's base, or a
/// concat's clips, each at its place on the output. A GOP is copied when it is closed (it starts with an IDR picture,
/// and its pictures show between its IDR and the next), wholly inside the frames written and its input's own, and
/// nothing is laid over any of its frames (no layer, no transition); the frames between copied GOPs are encoded, each
/// span by an encoder of its own starting with an IDR picture: H.264's parameter sets under an id the inputs' do not
/// take (x264's `sps-id`), all in the track's one configuration record; HEVC's in-band, each GOP led by its own
/// stream's (`SmartTrack.led`). H.264 and HEVC: an input's stream must be what the encoder writes (its codec, size,
/// 4:2:0 8 bits, square pixels, rate, colour, upright).
struct SmartPlan: Sendable {
    enum Span: Sendable, Equatable {
        /// Frames copied from `sources[source]`.
        case copy(Range<Int>, source: Int)
        case encode(Range<Int>)
        var frames: Range<Int> { switch self { case .copy(let r, _), .encode(let r): r } }
        var isCopy: Bool { if case .copy = self { true } else { false } }
    }

    /// An input whose GOPs may be copied: its file, the output frame of its own frame 0, the output frames that show
    /// it, and its name in a reason (`base`, `clip 2`).
    struct Source: Sendable {
        var file: MediaFile
        var offset = 0
        var shown: Range<Int>
        var name: String
    }

    /// Spans of the whole output's frames, in order, covering exactly the frames this render writes.
    var spans: [Span]
    var sources: [Source] = []
    /// The inputs' configuration records in one (H.264: the encoded spans' parameter sets take `spsID` beside theirs;
    /// HEVC: the first input's, every GOP's sets in-band).
    var config: StreamRecord?
    var spsID = 0
    /// HEVC: each input's parameter sets, which lead its copied GOPs (`SmartTrack.led`).
    var inBandSets: [Int: HVCConfig] = [:]
    /// The inputs' reorder depth: a packet's place in decode order less its picture's frame, at most.
    var delay = 0
    /// Why frames nothing touches were encoded (or nothing was copied); nil when every untouched GOP was copied.
    var reason: String?

    var copies: Bool { spans.contains(where: \.isCopy) }
    /// Some input's packets could stand for the output's pictures (some GOP might have been copied).
    var eligible: Bool { config != nil }

    /// Whether the stage writing `video` writes its track smart (`SmartTrack`): when it copies, and for a part of
    /// `--parts` whenever some input could be copied, even where this part copies nothing, so that every part's
    /// stream has the same configuration record (every set), as the join needs.
    func writesTrack(of video: VideoPlan) -> Bool { copies || (eligible && video.encoding.stitchable) }

    /// The GOPs not copied for their damage (`SmartCheck`, a packet that does not parse): each one's file, damaged
    /// packets, the first one's time in the file, and what it is in words.
    var damaged: [(file: String, packets: Int, at: MediaTime, what: String)] = []
    var damagedPackets: Int { damaged.reduce(0) { $0 + $1.packets } }

    /// Says the damaged GOPs' packets where a job's warnings collect them (`DamageLog`), when the render runs.
    func recordDamage() {
        for d in damaged { DamageLog.record(d.file, d.packets, at: d.at) }
    }

    /// The `candidates` (GOPs in order) whose packets decode clean (`SmartCheck`; all of them without `decoding`:
    /// `--trust-copies`), adjacent ones of one source in one span; a damaged one is counted, and the first said in
    /// `blocked`.
    mutating func checked(_ candidates: [(frames: Range<Int>, source: Int, gop: SmartCheck.GOP)], video: VideoPlan,
                          decoding: Bool, blocked: inout String?) -> [(frames: Range<Int>, source: Int)] {
        let found = decoding ? SmartCheck.damaged(candidates.map(\.gop), rate: video.frameRate, threads: video.encoding.threads) : [:]
        var copied: [(frames: Range<Int>, source: Int)] = []
        for c in candidates {
            if let d = found[c.gop] {
                let what = "a damaged picture at \(d.at.description) (\(d.packets) packet\(d.packets == 1 ? "" : "s") of its GOP)"
                blocked = blocked ?? "\(sources[c.source].name) has \(what)"
                damaged.append((c.gop.file.path, d.packets, d.at, what))
            } else if let last = copied.last, last.source == c.source, last.frames.upperBound == c.frames.lowerBound {
                copied[copied.count - 1].frames = last.frames.lowerBound..<c.frames.upperBound
            } else {
                copied.append((c.frames, c.source))
            }
        }
        return copied
    }

    /// Everything encoded, for `reason`.
    static func encodeAll(_ frames: Range<Int>, _ reason: String) -> SmartPlan {
        SmartPlan(spans: [.encode(frames)], reason: reason)
    }

    /// The plan for `sources` under the frames `touched` (whole-output frame ranges something is laid over), or why
    /// nothing could be copied; `converted`: the sources whose picture is changed on their way (`--hdr keep`, tone
    /// mapping). A part of `--parts` copies the GOPs wholly inside it (a GOP the part's edge cuts is encoded on both
    /// sides).
    static func make(sources: [Source], video: VideoPlan, touched: [Range<Int>], converted: Set<Int> = [], checked: Bool = true) -> SmartPlan {
        let frames = video.frames
        // Burned captions touch the frames they show on.
        let touched = touched + (video.burned?.frames(rate: video.frameRate) ?? [])
        var plan = SmartPlan(spans: [], sources: sources)
        var candidates: [(frames: Range<Int>, source: Int, gop: SmartCheck.GOP)] = [], blocked: String?, open = 0
        var gopCount = 0
        // A file two clips take (a timeline cuts one often) is read once.
        var scans: [String: GOPScan] = [:]
        // Every input is read, also one outside the frames written: a part's record and reordering are then every
        // part's (the join needs one record), whichever clips it shows.
        for (i, source) in sources.enumerated() {
            let scan: GOPScan
            switch readable(source, video: video, converted: converted.contains(i), scanned: scans[source.file.path]) {
            case .success(let s): scan = s; scans[source.file.path] = s
            case .failure(let why): blocked = blocked ?? why.text; continue
            }
            guard let joined = plan.config.map({ $0.combined(with: scan.config) }) ?? scan.config else {
                blocked = blocked ?? "\(source.name)'s parameter sets differ from another input's under the same ids"
                continue
            }
            (plan.config, plan.delay, open, gopCount) = (joined, max(plan.delay, scan.delay), open + scan.openKeyframes, gopCount + scan.gops.count)
            if case .hevc(let sets) = scan.config { plan.inBandSets[i] = sets }
            for gop in scan.gops {
                let f = (gop.frames.lowerBound + source.offset)..<(gop.frames.upperBound + source.offset)
                guard f.lowerBound >= max(frames.lowerBound, source.shown.lowerBound),
                      f.upperBound <= min(frames.upperBound, source.shown.upperBound),
                      !touched.contains(where: { $0.overlaps(f) }) else { continue }
                if let why = gop.damage {
                    blocked = blocked ?? "\(source.name) has \(why.what)"
                    plan.damaged.append((source.file.path, 1, why.at, why.what))
                    continue
                }
                candidates.append((f, i, SmartCheck.GOP(file: source.file, frames: gop.frames)))
            }
        }
        let copied = plan.checked(candidates, video: video, decoding: checked, blocked: &blocked)
        guard let id = plan.config?.encoderID else {
            return encodeAll(frames, blocked ?? "the inputs' parameter sets take every id")
        }
        plan.spsID = id
        var at = frames.lowerBound
        for c in copied {
            if c.frames.lowerBound > at { plan.spans.append(.encode(at..<c.frames.lowerBound)) }
            plan.spans.append(.copy(c.frames, source: c.source))
            at = c.frames.upperBound
        }
        if at < frames.upperBound { plan.spans.append(.encode(at..<frames.upperBound)) }
        let covered = touched.contains { $0.lowerBound <= frames.lowerBound && $0.upperBound >= frames.upperBound }
        let untouchedEncoded = plan.spans.contains { s in
            !s.isCopy && s.frames.contains { f in !touched.contains { $0.contains(f) } }
        }
        let name = sources.count == 1 ? sources[0].name : "the clips"
        if untouchedEncoded && open > 0 { blocked = blocked ?? "\(name) \(sources.count == 1 ? "has" : "have") open GOPs (\(open) keyframes are not IDR pictures)" }
        plan.reason = blocked ?? (plan.copies ? nil : covered ? "fx covers the whole movie"
            : gopCount == 1 ? "\(name) has one GOP (a keyframe at its start only), and fx is over part of it"
            : untouchedEncoded ? "no GOP of \(name) lies wholly between the edits" : "every GOP of \(name) has something laid over it")
        return plan
    }

    /// `source`'s GOPs, or why its packets cannot stand for the output's pictures; `scanned`: its file's, read already
    /// for another clip of it (checked for this one all the same).
    static func readable(_ source: Source, video: VideoPlan, converted: Bool, scanned: GOPScan? = nil) -> Result<GOPScan, GOPScan.Refusal> {
        if let why = refusal(source.file, name: source.name, video: video, converted: converted) { return .failure(.init(text: why)) }
        let scan: GOPScan
        switch scanned.map({ .success($0) }) ?? GOPScan.read(source.file, name: source.name, rate: video.frameRate) {
        case .success(let s): scan = s
        case .failure(let why): return .failure(why)
        }
        // The 8-bit 4:2:0 profiles x264 writes at crf > 0 (Constrained Baseline, Main, Extended, High) sit together.
        if case .avc(let avc) = scan.config, ![66, 77, 88, 100].contains(Int(avc.profile)) {
            return .failure(.init(text: "\(source.name)'s H.264 profile (\(avc.profile)) is not one the encoder's pictures sit beside"))
        }
        guard scan.config.lengthSize == 4 else {
            return .failure(.init(text: "\(source.name)'s NAL units have \(scan.config.lengthSize)-byte lengths, the encoder's 4"))
        }
        return .success(scan)
    }

    /// Why `name`'s packets (`base`, `clip 2`) cannot stand for the output's pictures at all, in a few words; nil when
    /// they can.
    static func refusal(_ file: MediaFile, name: String, video: VideoPlan, converted: Bool) -> String? {
        guard let s = file.mainVideo else { return "\(name) has no video" }
        let out = video.encoding
        guard out.codec == .h264 || out.codec == .hevc else {
            return "the output is \(out.codec.rawValue.uppercased()), only H.264 and HEVC are copied"
        }
        if s.codec != out.codec.rawValue {
            let hint = ["h264", "hevc"].contains(s.codec) ? " (--codec \(s.codec) copies it)" : ""
            return "\(name) is \(s.codec.uppercased()), the output \(out.codec == .h264 ? "H.264" : "HEVC")\(hint)"
        }
        if s.pixelFormat != .yuv420p { return "\(name) is \(s.pixelFormat.description), the output yuv420p" }
        // Before the size: a phone's portrait clip is stored on its side, its size the output's turned.
        if s.rotation != 0 || s.reflected { return "\(name) is turned upright (its display matrix)" }
        if (s.width, s.height) != (out.width, out.height) {
            return "\(name) is \(s.width)x\(s.height), the output \(out.width)x\(out.height)"
        }
        if let sar = s.sampleAspectRatio, sar.isValid, sar.num != sar.den { return "\(name)'s pixels are not square (\(sar.num):\(sar.den))" }
        guard let rate = s.frameRate, rate.isValid, Int64(rate.num) * Int64(out.frameRate.den) == Int64(out.frameRate.num) * Int64(rate.den) else {
            return "\(name) is \(s.frameRate?.description ?? "of no") fps, the output \(out.frameRate.description)"
        }
        if converted || s.hdr != nil || s.color != out.color { return "\(name)'s colour is converted to the output's" }
        // Lossless x264 is High 4:4:4 Predictive (transform bypass): FFmpeg's decoder, switching to it from base's
        // sets mid-stream, decoded the encoded span wrong (8.7 dB against --smart off's; tested).
        if out.crf == 0 { return "--crf 0 encodes in High 4:4:4 Predictive, which decoders do not take beside \(name)'s profile" }
        return nil
    }

    /// The frames a blend's layers are laid over, on the whole output's frames: frame n shows a layer when its time is
    /// in [start, start + length) (`LayerPlan.fxTime`); a layer shown until fx's picture ends is taken a frame longer
    /// than fx's stated duration (its reader finds the end).
    static func touched(by layers: [LayerPlan], video: VideoPlan) -> [Range<Int>] {
        let rate = video.frameRate, whole = video.wholeFrameCount
        return layers.map { layer in
            let first = min(whole, Int(layer.start.ticks(in: rate.inverted, roundingUp: true)))
            if let length = layer.length {
                return first..<min(whole, max(first, Int((layer.start + length).ticks(in: rate.inverted, roundingUp: true))))
            }
            guard !layer.isStill, let shown = layer.fx.videoDuration.map({ layer.shown($0 - layer.from) }) else { return first..<whole }
            return first..<min(whole, max(first, Int((layer.start + shown).ticks(in: rate.inverted, roundingUp: true)) + 1))
        }
    }

    /// What the report says: the copied and the encoded spans in seconds of this render, frames copied, the reason.
    func account(rate: Rational, firstFrame: Int) -> SmartAccount {
        func seconds(_ s: [Span]) -> [[Double]] {
            s.map { [$0.frames.lowerBound, $0.frames.upperBound].map { MediaTime(frames: Int64($0 - firstFrame), rate: rate).seconds } }
        }
        let copied = spans.filter(\.isCopy)
        return SmartAccount(copied: seconds(copied), encoded: seconds(spans.filter { !$0.isCopy }),
                            copiedFrames: copied.reduce(0) { $0 + $1.frames.count }, reason: reason)
    }
}

/// Smart rendering's account of a render, for its report.
struct SmartAccount: Sendable {
    var copied: [[Double]]
    var encoded: [[Double]]
    var copiedFrames: Int
    var reason: String?
}

/// An input's GOPs as its packets have them: each IDR picture's frame up to the next's, in frames of the output's rate.
struct GOPScan {
    struct GOP {
        var frames: Range<Int>
        /// Why it cannot be copied as it is (a packet that does not parse), if so, and where in the file.
        var damage: (what: String, at: MediaTime)?
    }
    var config: StreamRecord
    var gops: [GOP]
    var delay: Int
    /// Keyframes (as the container marks them) that are not IDR pictures: open GOPs, not copied on their own.
    var openKeyframes = 0

    struct Refusal: Error { var text: String }

    /// Reads every packet of `name`'s video (`base`, `clip 2`) (its bytes' NAL headers, not its pictures): one picture each, on the
    /// frame grid of `rate`, closed GOPs, no parameter set but the record's (HEVC: a GOP's may repeat them in-band).
    static func read(_ file: MediaFile, name: String, rate: Rational) -> Result<GOPScan, Refusal> {
        guard let stream = file.mainVideo else { return .failure(Refusal(text: "\(name) has no video")) }
        let demuxer: Demuxer, parameters: CodecParameters
        do {
            demuxer = try Demuxer(url: file.path)
            parameters = try demuxer.codecParameters(stream.index)
        } catch { return .failure(Refusal(text: "\(name) cannot be read (\(error.message.lowercased()))")) }
        demuxer.keepOnly([stream.index])
        guard let config = StreamRecord(stream.codec, record: parameters.extradata) else {
            return .failure(Refusal(text: "\(name)'s \(stream.codec == "hevc" ? "HEVC" : "H.264") has no configuration record (Annex B, as in MPEG-TS)"))
        }
        var frames: [Int] = [], types: [[Int]] = [], damaged: [Int: (what: String, at: MediaTime)] = [:], keyframes: [Bool] = []
        let packet = Packet(), origin = file.origin, tolerance = MediaTime(ticks: 1, timeBase: stream.timeBase)
        while true {
            let more: Bool
            do { more = try demuxer.read(into: packet) } catch {
                return .failure(Refusal(text: "\(name) cannot be read to its end (damaged after frame \(frames.count))"))
            }
            guard more else { break }
            guard packet.streamIndex == stream.index, let pts = packet.pts else {
                if packet.streamIndex == stream.index { return .failure(Refusal(text: "\(name) has a packet without a time")) }
                continue
            }
            let t = MediaTime(ticks: pts, timeBase: stream.timeBase) - origin
            let k = Int(t.ticks(in: rate.inverted))
            let grid = MediaTime(frames: Int64(k), rate: rate)
            guard k >= 0, !(grid - t > tolerance), !(t - grid > tolerance) else {
                return .failure(Refusal(text: "\(name)'s frame at \(t.description) is off the \(rate.description) fps grid"))
            }
            let bytes = packet.encoded.data
            frames.append(k)
            keyframes.append(packet.isKeyframe)
            guard let units = H264.units(bytes, lengthSize: config.lengthSize) else {
                damaged[frames.count - 1] = ("a damaged packet at \(t.description)", t)
                types.append([])
                continue
            }
            guard config.holdsItsParameterSets(units) else {
                return .failure(Refusal(text: "\(name)'s parameter sets change at \(t.description)"))
            }
            types.append(units.map(config.type))
        }
        let idr = config.closedStarts(types)
        let open = keyframes.indices.filter { keyframes[$0] && !idr[$0] && damaged[$0] == nil }.count
        return gops(frames: frames, idr: idr, damaged: damaged, name: name).map {
            GOPScan(config: config, gops: $0.gops, delay: $0.delay, openKeyframes: open)
        }
    }

    /// The GOPs of pictures in decode order (`frames[n]`: packet n's frame), and the reorder depth.
    static func gops(frames: [Int], idr: [Bool], damaged: [Int: (what: String, at: MediaTime)], name: String) -> Result<(gops: [GOP], delay: Int), Refusal> {
        guard !frames.isEmpty, idr[0] else { return .failure(Refusal(text: "\(name) does not start with an IDR picture")) }
        guard Set(frames).count == frames.count, frames.min() == 0, frames.max() == frames.count - 1 else {
            return .failure(Refusal(text: "\(name)'s pictures are not one a frame (missing or repeated times)"))
        }
        let starts = idr.indices.filter { idr[$0] } + [frames.count]
        var gops: [GOP] = []
        for (a, b) in zip(starts, starts.dropFirst()) {
            // Closed: the pictures decoded from this IDR to the next show from the IDR's frame, in its n…
            guard frames[a] == a, frames[a..<b].allSatisfy({ $0 >= a && $0 < b }) else {
                return .failure(Refusal(text: "\(name) has open GOPs (pictures shown before their IDR's)"))
            }
            gops.append(GOP(frames: a..<b, damage: (a..<b).lazy.compactMap { damaged[$0] }.first))
        }
        let delay = frames.indices.map { $0 - frames[$0] }.max() ?? 0
        return .success((gops, max(0, delay)))
    }
}
