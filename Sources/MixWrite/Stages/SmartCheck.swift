import Foundation
import FFmpegSupport
import Synchronization

/// The GOPs a smart render would copy, decoded first: a GOP is copied only when each of its packets decodes without
/// an error FFmpeg detects, since a copied packet reaches the output as it is, where a decoder would conceal its
/// damage (H.264's decoder does so without a word). Each GOP is closed, so the GOPs are decoded apart, on as many
/// single-threaded decoders as there are cores (FFmpeg's frame threads do not report every concealed picture).
enum SmartCheck {
    /// A GOP to check: `frames` of `file`'s own (its first an IDR picture, one packet a frame, in decode order).
    struct GOP: Sendable, Hashable {
        var file: MediaFile
        var frames: Range<Int>
        static func == (a: GOP, b: GOP) -> Bool { a.file.path == b.file.path && a.frames == b.frames }
        func hash(into h: inout Hasher) { h.combine(file.path); h.combine(frames) }
    }

    /// What was found in a damaged GOP: its damaged packets, and the first one's time in its file.
    struct Damage: Sendable {
        var packets: Int
        var at: MediaTime
    }

    /// The damaged ones of `gops`, on the frame grid of `rate`; `threads` decoders at once (0: one a core).
    static func damaged(_ gops: [GOP], rate: Rational, threads: Int) -> [GOP: Damage] {
        let unique = Set(gops).sorted { ($0.file.path, $0.frames.lowerBound) < ($1.file.path, $1.frames.lowerBound) }
        let found = Mutex<[GOP: Damage]>([:])
        let workers = max(1, min(unique.count, threads > 0 ? threads : ProcessInfo.processInfo.activeProcessorCount))
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            var reader: GOPReader?
            for gop in stride(from: w, to: unique.count, by: workers).map({ unique[$0] }) {
                if reader?.file.path != gop.file.path { reader = GOPReader(file: gop.file, rate: rate) }
                // A file that cannot be opened again is damaged where it is to be copied.
                let d = reader.map { $0.damage(in: gop.frames) } ?? Damage(packets: gop.frames.count, at: .zero)
                if let d { found.withLock { $0[gop] = d } }
            }
        }
        return found.withLock { $0 }
    }
}

/// One file's video decoded a GOP at a time, looking for damage (`Decoder`'s `checking`).
private final class GOPReader {
    let file: MediaFile
    private let demuxer: Demuxer
    private let decoder: Decoder
    private let stream: StreamInfo
    private let rate: Rational
    private let packet = Packet()

    /// nil when the file cannot be opened again (then every GOP of it counts as damaged).
    init?(file: MediaFile, rate: Rational) {
        guard let s = file.mainVideo, let d = try? Demuxer(url: file.path),
              let c = try? Decoder(demuxer: d, streamIndex: s.index, threads: 1, checking: true) else { return nil }
        d.keepOnly([s.index])
        (self.file, demuxer, decoder, stream, self.rate) = (file, d, c, s, rate)
    }

    /// The damage in the GOP of the file's frames `frames`, nil when every packet decodes to a clean picture.
    func damage(in frames: Range<Int>) -> SmartCheck.Damage? {
        let start = MediaTime(frames: Int64(frames.lowerBound), rate: rate)
        // To the keyframe at or before the GOP's IDR; from the file's start where that seek passes it (an index that
        // does not mark the IDR a keyframe).
        for from in [start, .zero] {
            decoder.flush()
            guard (try? demuxer.seek(to: file.origin + from, streamIndex: stream.index)) != nil else { continue }
            switch decoded(frames) {
            case .clean: return nil
            case .damaged(let d): return d
            case .notMet: continue
            }
        }
        return SmartCheck.Damage(packets: frames.count, at: start)
    }

    private enum Outcome { case clean, damaged(SmartCheck.Damage), notMet }

    /// The GOP of frames `frames` decoded from where the demuxer stands, or that its IDR was not met.
    private func decoded(_ frames: Range<Int>) -> Outcome {
        let start = MediaTime(frames: Int64(frames.lowerBound), rate: rate)
        var sent = 0, clean = Set<Int>(), bad = 0, first: Int?
        func take(_ d: Decoder.Decoded, packetFrame: Int?) {
            if d.damaged > 0 { bad += 1; first = first ?? packetFrame ?? frames.lowerBound }
            for f in d.frames {
                let k = frame(of: f.bestEffortTimestamp ?? f.pts)
                if f.isDamaged || k == nil { bad += 1; first = first ?? k ?? frames.lowerBound } else { clean.insert(k!) }
            }
        }
        // Packets before the GOP's IDR (a seek lands on the keyframe at or before it) are not its own; one past it
        // means the seek passed it.
        while sent < frames.count {
            guard (try? demuxer.read(into: packet)) == true else { break }
            guard let k = frame(of: packet.pts) else { continue }
            if sent == 0 && k != frames.lowerBound {
                if k > frames.lowerBound && packet.isKeyframe { return .notMet }
                continue
            }
            sent += 1
            guard let d = try? decoder.decode(packet) else { return .damaged(SmartCheck.Damage(packets: frames.count, at: start)) }
            take(d, packetFrame: k)
        }
        guard sent > 0 else { return .notMet }
        if let d = try? decoder.decode(nil) { take(d, packetFrame: nil) }
        let missing = frames.filter { !clean.contains($0) }
        guard bad > 0 || !missing.isEmpty else { return .clean }
        let at = first ?? missing.first ?? frames.lowerBound
        return .damaged(SmartCheck.Damage(packets: max(bad, missing.count), at: MediaTime(frames: Int64(at), rate: rate)))
    }

    /// The file's frame (on the grid of `rate`, from its start) of a time on the stream's timeline.
    private func frame(of ticks: Int64?) -> Int? {
        guard let ticks else { return nil }
        let t = MediaTime(ticks: ticks, timeBase: stream.timeBase) - file.origin
        return Int(t.ticks(in: rate.inverted))
    }
}
