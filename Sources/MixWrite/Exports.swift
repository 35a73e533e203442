import FFmpegSupport

// The value types of MixWrite's API, so a caller (the CLI among them) needs no other import.
public typealias MediaTime = FFmpegSupport.MediaTime
public typealias Rational = FFmpegSupport.Rational
/// A picture's colour matrix and range, for the benchmarks' keyer (`ChromaKeyBlend`).
@_spi(Benchmarks) public typealias ColorDescription = FFmpegSupport.ColorDescription

/// A decoded picture or block of samples, for the benchmarks' test pictures (`Benchmarks/`); not the library's API.
@_spi(Benchmarks) public typealias BenchmarkFrame = FFmpegSupport.Frame
