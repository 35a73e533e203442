import Foundation

/// A moment inside one clip, to be found again on the output's timeline.
public struct ClipEvent: Sendable, Codable {
    /// 0-based clip index.
    public var clip: Int
    /// Seconds from the start of that clip.
    public var time: Double
    public var name: String

    public init(clip: Int, time: Double, name: String) {
        self.clip = clip; self.time = time; self.name = name
    }
}
