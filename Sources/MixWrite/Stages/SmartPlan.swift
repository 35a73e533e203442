import FFmpegSupport

/// Smart rendering (`--smart`): which of the output's frames are base's packets copied as they are, and which are
/// decoded, composed and encoded, decided before anything is written. A GOP of base is copied when it is closed
/// (it starts with an IDR picture, and its pictures show between its IDR and the next), wholly inside the frames
/// written, and nothing is laid over any of its frames; the frames between copied GOPs are encoded, each span by an
/// encoder of its own starting with an IDR picture, its parameter sets under an id base's do not take (x264's
/// `sps-id`), both in the track's one configuration record. H.264 only: base's stream must be what the encoder
/// writes (size, 4:2:0 8 bits, square pixels, rate, colour, upright).
struct SmartPlan: Sendable {
    enum Span: Sendable, Equatable {
        case copy(Range<Int>), encode(Range<Int>)
        var frames: Range<Int> { switch self { case .copy(let r), .encode(let r): r } }
        var isCopy: Bool { if case .copy = self { true } else { false } }
    }

    /// Spans of the whole output's frames, in order, covering exactly the frames this render writes.
    var spans: [Span]
    /// base's configuration record; the encoded spans' parameter sets take `spsID` beside its sets.
    var config: AVCConfig?
    var spsID = 0
    /// base's reorder depth: a packet's place in decode order less its picture's frame, at most.
    var delay = 0
    /// Why frames no layer touches were encoded (or nothing was copied); nil when every untouched GOP was copied.
    var reason: String?

    var copies: Bool { spans.contains(where: \.isCopy) }
    /// base's packets could stand for the output's pictures (some GOP might have been copied).
    var eligible: Bool { config != nil }

    /// Everything encoded, for `reason`.
    static func encodeAll(_ frames: Range<Int>, _ reason: String) -> SmartPlan {
        SmartPlan(spans: [.encode(frames)], reason: reason)
    }

    /// The plan for `base` under the frames `touched` (whole-output frame ranges something is laid over), or why
    /// nothing could be copied; `converted`: base's picture is changed on its way (`--hdr keep`, a tone-mapped base).
    /// A part of `--parts` copies the GOPs wholly inside it (a GOP the part's edge cuts is encoded on both sides).
    static func make(base: MediaFile, video: VideoPlan, touched: [Range<Int>], converted: Bool) -> SmartPlan {
        let frames = video.frames
        if let why = refusal(base: base, video: video, converted: converted) { return encodeAll(frames, why) }
        let scan: GOPScan
        switch GOPScan.read(base, rate: video.frameRate) {
        case .success(let s): scan = s
        case .failure(let why): return encodeAll(frames, why.text)
        }
        // The 8-bit 4:2:0 profiles x264 writes at crf > 0 (Constrained Baseline, Main, Extended, High) sit together.
        guard [66, 77, 88, 100].contains(Int(scan.config.profile)) else {
            return encodeAll(frames, "base's H.264 profile (\(scan.config.profile)) is not one the encoder's pictures sit beside")
        }
        guard scan.config.lengthSize == 4 else {
            return encodeAll(frames, "base's NAL units have \(scan.config.lengthSize)-byte lengths, the encoder's 4")
        }
        guard let id = H264.freeID(besides: scan.config) else {
            return encodeAll(frames, "base's parameter sets take every id")
        }
        var plan = SmartPlan(spans: [], config: scan.config, spsID: id, delay: scan.delay)
        var copied: [Range<Int>] = []
        var blocked: String?
        for gop in scan.gops where gop.frames.lowerBound >= frames.lowerBound && gop.frames.upperBound <= frames.upperBound {
            guard !touched.contains(where: { $0.overlaps(gop.frames) }) else { continue }
            if let why = gop.damage { blocked = blocked ?? why; continue }
            if let last = copied.last, last.upperBound == gop.frames.lowerBound {
                copied[copied.count - 1] = last.lowerBound..<gop.frames.upperBound
            } else {
                copied.append(gop.frames)
            }
        }
        var at = frames.lowerBound
        for c in copied {
            if c.lowerBound > at { plan.spans.append(.encode(at..<c.lowerBound)) }
            plan.spans.append(.copy(c))
            at = c.upperBound
        }
        if at < frames.upperBound { plan.spans.append(.encode(at..<frames.upperBound)) }
        let covered = touched.contains { $0.lowerBound <= frames.lowerBound && $0.upperBound >= frames.upperBound }
        let untouchedEncoded = plan.spans.contains { s in
            !s.isCopy && s.frames.contains { f in !touched.contains { $0.contains(f) } }
        }
        if untouchedEncoded && scan.openKeyframes > 0 {
            blocked = blocked ?? "base has open GOPs (\(scan.openKeyframes) of its keyframes are not IDR pictures)"
        }
        plan.reason = blocked ?? (plan.copies ? nil : covered ? "fx covers the whole movie"
            : scan.gops.count == 1 ? "base has one GOP (a keyframe at its start only), and fx is over part of it"
            : "every GOP of base has something laid over it")
        return plan
    }

    /// Why base's packets cannot stand for the output's pictures at all, in a few words; nil when they can.
    static func refusal(base: MediaFile, video: VideoPlan, converted: Bool) -> String? {
        guard let s = base.mainVideo else { return "base has no video" }
        let out = video.encoding
        if out.codec != .h264 { return "the output is \(out.codec.rawValue.uppercased()), only H.264 is copied" }
        if s.codec != "h264" { return "base is \(s.codec.uppercased()), the output H.264" }
        if s.pixelFormat != .yuv420p { return "base is \(s.pixelFormat.description), the output yuv420p" }
        if (s.width, s.height) != (out.width, out.height) {
            return "base is \(s.width)x\(s.height), the output \(out.width)x\(out.height)"
        }
        if s.rotation != 0 || s.reflected { return "base is turned upright (its display matrix)" }
        if let sar = s.sampleAspectRatio, sar.isValid, sar.num != sar.den { return "base's pixels are not square (\(sar.num):\(sar.den))" }
        guard let rate = s.frameRate, rate.isValid, Int64(rate.num) * Int64(out.frameRate.den) == Int64(out.frameRate.num) * Int64(rate.den) else {
            return "base is \(s.frameRate?.description ?? "of no") fps, the output \(out.frameRate.description)"
        }
        if converted || s.hdr != nil || s.color != out.color { return "base's colour is converted to the output's" }
        // Lossless x264 is High 4:4:4 Predictive (transform bypass): FFmpeg's decoder, switching to it from base's
        // sets mid-stream, decoded the encoded span wrong (8.7 dB against --smart off's; tested).
        if out.crf == 0 { return "--crf 0 encodes in High 4:4:4 Predictive, which decoders do not take beside base's profile" }
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
            guard !layer.isStill, let shown = layer.fx.videoDuration.map({ $0 - layer.from }) else { return first..<whole }
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

/// base's GOPs as its packets have them: each IDR picture's frame up to the next's, in frames of the output's rate.
struct GOPScan {
    struct GOP {
        var frames: Range<Int>
        /// Why it cannot be copied as it is (a packet that does not parse), if so.
        var damage: String?
    }
    var config: AVCConfig
    var gops: [GOP]
    var delay: Int
    /// Keyframes (as the container marks them) that are not IDR pictures: open GOPs, not copied on their own.
    var openKeyframes = 0

    struct Refusal: Error { var text: String }

    /// Reads every packet of base's video (its bytes' NAL headers, not its pictures): one picture each, on the
    /// frame grid of `rate`, closed GOPs, no parameter set but the record's.
    static func read(_ file: MediaFile, rate: Rational) -> Result<GOPScan, Refusal> {
        guard let stream = file.mainVideo else { return .failure(Refusal(text: "base has no video")) }
        let demuxer: Demuxer, parameters: CodecParameters
        do {
            demuxer = try Demuxer(url: file.path)
            parameters = try demuxer.codecParameters(stream.index)
        } catch { return .failure(Refusal(text: "base cannot be read (\(error.message.lowercased()))")) }
        demuxer.keepOnly([stream.index])
        guard let config = AVCConfig(record: parameters.extradata) else {
            return .failure(Refusal(text: "base's H.264 has no configuration record (Annex B, as in MPEG-TS)"))
        }
        var frames: [Int] = [], idr: [Bool] = [], damaged: [Int: String] = [:], open = 0
        let packet = Packet(), origin = file.origin, tolerance = MediaTime(ticks: 1, timeBase: stream.timeBase)
        while true {
            let more: Bool
            do { more = try demuxer.read(into: packet) } catch {
                return .failure(Refusal(text: "base cannot be read to its end (damaged after frame \(frames.count))"))
            }
            guard more else { break }
            guard packet.streamIndex == stream.index, let pts = packet.pts else {
                if packet.streamIndex == stream.index { return .failure(Refusal(text: "base has a packet without a time")) }
                continue
            }
            let t = MediaTime(ticks: pts, timeBase: stream.timeBase) - origin
            let k = Int(t.ticks(in: rate.inverted))
            let grid = MediaTime(frames: Int64(k), rate: rate)
            guard k >= 0, !(grid - t > tolerance), !(t - grid > tolerance) else {
                return .failure(Refusal(text: "base's frame at \(t.description) is off the \(rate.description) fps grid"))
            }
            let bytes = packet.encoded.data
            guard let units = H264.units(bytes, lengthSize: config.lengthSize) else {
                damaged[frames.count] = "a damaged packet at \(t.description)"
                frames.append(k); idr.append(false)
                continue
            }
            for u in units where [7, 8].contains(H264.type(u)) && !(config.sps + config.pps).contains(Array(u)) {
                return .failure(Refusal(text: "base's parameter sets change at \(t.description)"))
            }
            frames.append(k)
            idr.append(units.contains { H264.type($0) == 5 })
            if packet.isKeyframe && !idr[idr.count - 1] { open += 1 }
        }
        return gops(frames: frames, idr: idr, damaged: damaged).map {
            GOPScan(config: config, gops: $0.gops, delay: $0.delay, openKeyframes: open)
        }
    }

    /// The GOPs of pictures in decode order (`frames[n]`: packet n's frame), and the reorder depth.
    static func gops(frames: [Int], idr: [Bool], damaged: [Int: String]) -> Result<(gops: [GOP], delay: Int), Refusal> {
        guard !frames.isEmpty, idr[0] else { return .failure(Refusal(text: "base does not start with an IDR picture")) }
        guard Set(frames).count == frames.count, frames.min() == 0, frames.max() == frames.count - 1 else {
            return .failure(Refusal(text: "base's pictures are not one a frame (missing or repeated times)"))
        }
        let starts = idr.indices.filter { idr[$0] } + [frames.count]
        var gops: [GOP] = []
        for (a, b) in zip(starts, starts.dropFirst()) {
            // Closed: the pictures decoded from this IDR to the next show from the IDR's frame, in its n…
            guard frames[a] == a, frames[a..<b].allSatisfy({ $0 >= a && $0 < b }) else {
                return .failure(Refusal(text: "base has open GOPs (pictures shown before their IDR's)"))
            }
            gops.append(GOP(frames: a..<b, damage: (a..<b).lazy.compactMap { damaged[$0] }.first))
        }
        let delay = frames.indices.map { $0 - frames[$0] }.max() ?? 0
        return .success((gops, max(0, delay)))
    }
}
