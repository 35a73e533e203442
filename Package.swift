// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "mixwrite",
    platforms: [.macOS(.v15)],
    products: [
        // The one library: FFmpegSupport and CKeyKernel are its engine room, not products (the benchmarks reach
        // what they need through `@_spi(Benchmarks)`).
        .library(name: "MixWrite", targets: ["MixWrite"]),
        .executable(name: "mixwrite", targets: ["mixwrite"]),
    ],
    // `Benchmarks`: the keyer kernel's benchmark harness (Sources/MixWrite/Benchmarking), compiled only for the
    // benchmarks package, never into the library a user builds. `TuningPage` (on by default): the tuning page's HTTP
    // server in the binary (`tune`, `--tune`); `swift build --disable-default-traits` makes a mixwrite without it and
    // without compiling swift-nio (the Debian 13 and sid suites and the ThreadSanitizer build, which test no page).
    traits: [
        .trait(name: "Benchmarks", description: "Compile the keyer kernel's benchmark harness (KernelWorkload)."),
        .trait(name: "TuningPage", description: "Serve the tuning page (`mixwrite tune`, `--tune`): HummingbirdCore on swift-nio."),
        .default(enabledTraits: ["TuningPage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The tuning page's HTTP server: HummingbirdCore on swift-nio's HTTP/1 parser (llhttp), which bounds the
        // request line and headers and rejects ambiguous framing. No default traits: no swift-configuration.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
    ],
    targets: [
        // FFmpeg's C libraries as Debian bookworm ships them (FFmpeg 5.1), and zlib (which libavformat links; an
        // .otioz bundle's timeline is deflated).
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavfilter",
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libavfilter-dev",
                      "libswresample-dev", "libswscale-dev", "libavutil-dev", "zlib1g-dev"]),
                .brew(["ffmpeg"]),
            ]
        ),
        .target(
            name: "FFmpegSupport",
            dependencies: ["CFFmpeg"]
        ),
        // The keyer's inner loops (edge map, edge pixels, rows' blend), compiled for plain x86-64, SSE4.2, AVX2 and
        // AVX-512 (see its header). Optimized in a debug build too: the suite's renders (and ASan's, and the other
        // Debians') spend their time here, and -O0 made the fine keyer's fixture blend 1.4x slower; the bytes are the
        // same (the goldens; CI's time: RESULTS).
        .target(name: "CKeyKernel", cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),
        .target(
            name: "MixWrite",
            dependencies: ["FFmpegSupport", "CKeyKernel"]
        ),
        // `mixwrite tune`: the local web page over the MixWrite API (never FFmpegSupport).
        .target(
            name: "MixWriteTune",
            dependencies: [
                "MixWrite",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The page's files, compiled into the binary as bytes (an installed mixwrite needs no folder beside it).
            resources: [.embedInCode("Resources/index.html"), .embedInCode("Resources/page.css"),
                        .embedInCode("Resources/api.js"), .embedInCode("Resources/controls.js"), .embedInCode("Resources/page.js")]
        ),
        .executableTarget(
            name: "mixwrite",
            dependencies: [
                "MixWrite",
                .target(name: "MixWriteTune", condition: .when(traits: ["TuningPage"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Oracle helpers: read media through the ffmpeg/ffprobe CLI, never through mixwrite's code.
        .target(name: "TestSupport", path: "Tests/Support"),
        .testTarget(name: "FFmpegSupportTests", dependencies: ["FFmpegSupport", "TestSupport"]),
        .testTarget(name: "MixWriteTests", dependencies: ["MixWrite", "FFmpegSupport", "TestSupport"]),
        .testTarget(name: "MixWriteTuneTests", dependencies: ["TestSupport"]),
        // checkasm's habit: every function of the keyer's kernel at every level against its scalar reference.
        .testTarget(name: "CKeyKernelTests", dependencies: ["CKeyKernel", "MixWrite", "FFmpegSupport", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
