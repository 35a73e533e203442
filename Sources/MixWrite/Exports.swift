import FFmpegSupport

// The value types of MixWrite's API, so a caller (the CLI among them) needs no other import.
/// Exact time (a value and a timescale), for the command line's and the page's parsing of seconds.
@_spi(Tools) public typealias MediaTime = FFmpegSupport.MediaTime
public typealias Rational = FFmpegSupport.Rational
/// A picture's colour matrix and range, for the benchmarks' keyer (`ChromaKeyBlend`).
@_spi(Benchmarks) public typealias ColorDescription = FFmpegSupport.ColorDescription

/// A decoded picture or block of samples, for the benchmarks' test pictures (`Benchmarks/`); not the library's API.
@_spi(Benchmarks) public typealias BenchmarkFrame = FFmpegSupport.Frame
/// The codecs a job's output can have (`--codec`, `--prores-profile`, `--audio-codec`).
public typealias VideoCodec = FFmpegSupport.VideoCodec
public typealias ProResProfile = FFmpegSupport.ProResProfile
public typealias AudioCodec = FFmpegSupport.AudioCodec
