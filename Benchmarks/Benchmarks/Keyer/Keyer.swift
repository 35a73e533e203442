import Benchmark
@_spi(Benchmarks) import MixWrite

/// The keyer alone on 1080p yuv420p pictures, one core. Goal: at most 2 ms a frame.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .cpuTotal, .throughput], maxDuration: .seconds(5))

    let color = ColorDescription(matrix: .bt709, fullRange: false)
    let keyer = ChromaKeyBlend(settings: .init(), color: color)
    let despill = ChromaKeyBlend(settings: .init(despill: true), color: color)
    // A typical effect: a green screen with a subject over the middle third (kept, with soft edges).
    let typical = makeFrame { x, y in
        let inSubject = abs(x - 960) < 320 && abs(y - 540) < 360
        return inSubject ? (UInt8(60 + (x + y) % 150), UInt8(100 + x % 60), UInt8(140 + y % 60)) : (150, 44, 21)
    }
    // The worst case: every row mixed, no row can be copied whole.
    let worst = makeFrame { x, y in
        (x + y) % 4 == 0 ? (150, 44, 21) : (UInt8(x % 200 + 20), UInt8(60 + y % 130), UInt8(60 + x % 130))
    }
    let base = makeFrame { x, y in (UInt8(16 + (x * 219) / 1920), UInt8(16 + (y * 224) / 1080), UInt8(128)) }
    let output = try! BenchmarkFrame(width: 1920, height: 1080, pixelFormat: .yuv420p)

    Benchmark("ChromaKeyBlend 1080p typical") { benchmark in
        for _ in benchmark.scaledIterations { keyer.blend(fx: typical, base: base, into: output) }
    }
    Benchmark("ChromaKeyBlend 1080p worst case") { benchmark in
        for _ in benchmark.scaledIterations { keyer.blend(fx: worst, base: base, into: output) }
    }
    Benchmark("ChromaKeyBlend 1080p typical, despill") { benchmark in
        for _ in benchmark.scaledIterations { despill.blend(fx: typical, base: base, into: output) }
    }
    // --keyer fine on the same pictures (its key colour the typical screen's, 150/44/21 in YUV): keyed alone, laid over base
    // as it is keyed (the blend's way), and keyed then laid (the way of a matte refined by garbage, choke or feather);
    // the fine keyer runs on both cores.
    let screen = color.rgb(y: 150, u: 44, v: 21)
    let fine = try! FineKeyerWorkload(fx: typical, base: base, output: output, key: KeyColor(r: screen.r, g: screen.g, b: screen.b))
    let fineWorst = try! FineKeyerWorkload(fx: worst, base: base, output: output, key: KeyColor(r: screen.r, g: screen.g, b: screen.b))
    Benchmark("FineKeyer 1080p typical, key") { benchmark in
        for _ in benchmark.scaledIterations { fine.key() }
    }
    Benchmark("FineKeyer 1080p typical, key and lay") { benchmark in
        for _ in benchmark.scaledIterations { fine.blend() }
    }
    Benchmark("FineKeyer 1080p typical, key then lay (a refined matte's two steps)") { benchmark in
        for _ in benchmark.scaledIterations { fine.keyThenLay() }
    }
    Benchmark("FineKeyer 1080p worst case, key and lay") { benchmark in
        for _ in benchmark.scaledIterations { fineWorst.blend() }
    }
}

/// A 1920×1080 yuv420p picture whose (Y, U, V) at each chroma sample comes from `value(x, y)` (luma coordinates).
func makeFrame(_ value: (Int, Int) -> (UInt8, UInt8, UInt8)) -> BenchmarkFrame {
    let f = try! BenchmarkFrame(width: 1920, height: 1080, pixelFormat: .yuv420p)
    for cy in 0..<540 {
        for cx in 0..<960 {
            let (y, u, v) = value(cx * 2, cy * 2)
            for dy in 0..<2 { for dx in 0..<2 { f.plane(0)[(cy * 2 + dy) * f.stride(0) + cx * 2 + dx] = y } }
            f.plane(1)[cy * f.stride(1) + cx] = u
            f.plane(2)[cy * f.stride(2) + cx] = v
        }
    }
    return f
}
