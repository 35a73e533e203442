import FFmpegSupport

/// A video's pictures asked for at falling times (a reversed layer): decoded forwards a window at a time, from the
/// keyframe at least `shortest` before the time asked, each picture copied once, and handed out backwards; a window
/// is a GOP or so of pictures, whatever the clip's length. As `VideoTrackReader.picture(at:)`: the latest frame that
/// starts by the time asked, within `tolerance`.
final class BackwardFrames {
    let reader: VideoTrackReader
    private let tolerance: MediaTime
    private var keyframes: [MediaTime]?
    /// The window's pictures in time order, and the latest time it answers for.
    private var window: [(time: MediaTime, picture: Frame)] = []
    private var top: MediaTime?
    private var spare: [Frame] = []
    /// The least media a window holds: with keyframes closer than this it reaches back to an earlier one (fewer
    /// seeks); without any known, it holds a second.
    static let shortest = MediaTime(value: 1, timescale: Int64(4))

    /// Where a window that ends at media time `top` starts: the keyframe at least `shortest` before it, else the one
    /// before it, else a second before it. A reversed sequence piece's windows start here too.
    static func start(before top: MediaTime, keyframes: [MediaTime]) -> MediaTime {
        keyframes.last { $0 <= top - shortest } ?? keyframes.last { $0 <= top } ?? top - MediaTime(value: 1, timescale: Int64(1))
    }

    init(reader: VideoTrackReader, tolerance: MediaTime) { (self.reader, self.tolerance) = (reader, tolerance) }

    var damagedPackets: Int { reader.damagedPackets }

    /// The picture at media time `t` (from the window, or a new one ending at `t`).
    func picture(at t: MediaTime) throws(MixWriteError) -> Frame? {
        let limit = t + tolerance
        if let top, let first = window.first, limit >= first.time, limit <= top {
            return window.last { $0.time <= limit }?.picture ?? first.picture
        }
        if keyframes == nil { keyframes = try reader.file.keyframeTimes() }
        let floor = Self.start(before: t, keyframes: keyframes!)
        spare += window.map(\.picture)
        (window, top) = ([], limit)
        if floor > .zero { try reader.seek(to: floor) } else { try reader.rewind() }
        while let next = try reader.nextPicture() {
            guard next.time <= limit else { break }
            do { window.append((next.time, try next.picture.copied(reusing: spare.popLast()))) } catch {
                throw .processing(error, file: reader.file.path)
            }
        }
        // Its earliest picture answers for a time before it (the file's first, or where a seek landed).
        return window.last { $0.time <= limit }?.picture ?? window.first?.picture
    }
}
