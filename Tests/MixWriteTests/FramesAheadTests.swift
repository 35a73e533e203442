import FFmpegSupport
import Foundation
import Synchronization
import Testing
@testable import MixWrite

/// The video stages' hand-over (`FramesAhead`): pictures made on a thread of their own reach the encoding task in
/// order, none lost or shown twice, whichever side is slower; an error comes after the pictures made before it; a stage
/// that leaves early stops the maker, which makes nothing after `stop()`.
@Suite("FramesAhead: the pictures made ahead of the encoder")
struct FramesAheadTests {
    static func buffers() throws -> [Frame] { try (0..<3).map { _ in try Frame(width: 16, height: 16, pixelFormat: .yuv420p) } }

    /// Writes `n` into the first luma byte (what the taker reads back).
    static func mark(_ frame: Frame, _ n: Int) throws(MixWriteError) {
        do { try frame.makeWritable() } catch { throw MixWriteError.processing(error, file: nil) }
        frame.plane(0).pointee = UInt8(n % 256)
    }

    @Test("every picture in order, once, with a slow maker and with a slow taker", arguments: [true, false])
    func inOrder(slowMaker: Bool) async throws {
        let ahead = FramesAhead(0..<300, buffers: try Self.buffers()) { n, frame throws(MixWriteError) in
            if slowMaker && n % 7 == 0 { usleep(300) }
            try Self.mark(frame, n)
        }
        defer { ahead.stop() }
        var seen: [Int] = []
        while let frame = try await ahead.next() {
            seen.append(Int(frame.plane(0).pointee))
            if !slowMaker && seen.count % 5 == 0 { try await Task.sleep(for: .microseconds(300)) }
            ahead.done(with: frame)
        }
        #expect(seen == (0..<300).map { $0 % 256 })
    }

    @Test("a maker's error comes after the pictures made before it, and ends the run")
    func errorAfterPictures() async throws {
        let ahead = FramesAhead(0..<100, buffers: try Self.buffers()) { n, frame throws(MixWriteError) in
            if n == 40 { throw MixWriteError.processing(file: "base.mov", "damaged packet") }
            try Self.mark(frame, n)
        }
        defer { ahead.stop() }
        var seen: [Int] = []
        await #expect(throws: MixWriteError.self) {
            while let frame = try await ahead.next() {
                seen.append(Int(frame.plane(0).pointee))
                ahead.done(with: frame)
            }
        }
        #expect(seen == Array(0..<40))
    }

    @Test("stop() with the maker waiting for a buffer: it returns, and nothing is made after it")
    func stopsTheMaker() async throws {
        let made = Atomic<Int>(0)
        let ahead = FramesAhead(0..<1000, buffers: try Self.buffers()) { n, frame throws(MixWriteError) in
            try Self.mark(frame, n)
            made.add(1, ordering: .sequentiallyConsistent)
        }
        // One taken and not given back: the maker fills the other two and waits (however busy the machine).
        _ = try await ahead.next()
        let deadline = ContinuousClock.now + .seconds(30)
        while made.load(ordering: .sequentiallyConsistent) < 3 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(20))
        #expect(made.load(ordering: .sequentiallyConsistent) == 3, "three buffers, one held: the maker waits")
        ahead.stop()
        try await Task.sleep(for: .milliseconds(20))
        #expect(made.load(ordering: .sequentiallyConsistent) == 3, "nothing made after stop()")
    }
}
