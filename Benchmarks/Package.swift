// swift-tools-version: 6.1
// mixwrite's micro-benchmarks (ordo-one/benchmark), a package of their own so that building and testing
// mixwrite never pays for the benchmark harness. Run: cd Benchmarks && swift package benchmark
import PackageDescription

let package = Package(
    name: "mixwrite-benchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // With its Benchmarks trait: the kernel's harness (KernelWorkload) is compiled in for these benchmarks alone.
        .package(name: "mixwrite", path: "..", traits: ["Benchmarks"]),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "Keyer",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MixWrite", package: "mixwrite"),
            ],
            path: "Benchmarks/Keyer",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
        // The kernel's functions one by one at every level (Sources/CKeyKernel's table).
        .executableTarget(
            name: "Kernel",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "MixWrite", package: "mixwrite"),
            ],
            path: "Benchmarks/Kernel",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
