import FFmpegSupport

/// What a job whose clips change their time does between their frames and under their freezes (`--interpolate`,
/// `--freeze-audio`), for concat and render alike.
public struct RetimeSettings: Sendable, Equatable {
    /// How a forward clip with a changed speed fills the output frames between its media's.
    public var interpolation = Interpolation.nearest
    /// What sounds under a freeze frame.
    public var freezeAudio = FreezeAudio.silent

    public init() {}

    static var options: [JobOption<Self>] {
        [.choice("interpolate", \.interpolation, default: .nearest,
                 help: "A clip with a changed speed, between its frames: nearest (each output frame the media frame at its time, as"
                    + " setpts then fps), blend (the two around it mixed by where it falls), motion (motion-compensated, slow); by"
                    + " FFmpeg's minterpolate; a reversed clip's frames are the nearest."),
         .choice("freeze-audio", \.freezeAudio, default: .silent,
                 help: "Under a freeze frame: silent, or hold (the sound at the held frame sustained, stretched by rubberband).")]
    }
}

/// What sounds under a freeze frame (`--freeze-audio`).
public enum FreezeAudio: String, Sendable, Codable, CaseIterable {
    /// Silence, as the picture stands still.
    case silent
    /// The sound at the held frame's moment sustained for the freeze: a short stretch of it stretched by rubberband to
    /// the freeze's length.
    case hold
}
