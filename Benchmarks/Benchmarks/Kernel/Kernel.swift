import Benchmark
@_spi(Benchmarks) import MixWrite

/// The keyer's C kernel, function by function and level by level (0 the scalar reference, then plain x86-64,
/// SSE4.2, AVX2, AVX-512 as this CPU has them): one call on one chroma row of a 1080p picture (960 samples),
/// every block an edge for the key functions. A 1080p frame has 540 such rows.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(2))
    for function in KernelWorkload.Function.allCases {
        for level in KernelWorkload.levels {
            let workload = KernelWorkload(function, level: level)
            Benchmark("\(function.rawValue) level \(level)") { benchmark in
                for _ in benchmark.scaledIterations { workload.run() }
            }
        }
    }
}
