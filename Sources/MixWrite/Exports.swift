import FFmpegSupport

// The value types of MixWrite's API, so a caller (the CLI among them) needs no other import.
public typealias MediaTime = FFmpegSupport.MediaTime
public typealias Rational = FFmpegSupport.Rational
public typealias ColorDescription = FFmpegSupport.ColorDescription
