import FFmpegSupport
import Foundation

/// Pictures made ahead of their encoding: `make(n, frame)` fills the frames of `numbers`, in order, on a thread of its
/// own while the stage's task encodes the one before. Made in turn, decoding sat between x264's calls and left its
/// frame threads waiting (a render used well under its 2 cores). At most `buffers.count`
/// pictures are made and not yet encoded; the first error of `make` ends the run and is the next `next()`'s.
final class FramesAhead: @unchecked Sendable {
    private let state = NSCondition()
    private var ready: [Frame] = []
    private var free: [Frame]
    private var failure: MixWriteError?
    /// The maker has made its last picture, or failed, or stopped.
    private var finished = false
    /// The stage left (its end, an error, a cancellation): the maker stops at its next picture.
    private var stopped = false
    private var waiting: CheckedContinuation<Void, Never>?
    private let numbers: Range<Int>
    private let make: (Int, Frame) throws(MixWriteError) -> Void

    /// Starts making `numbers`' pictures into `buffers` (each reused once `done(with:)` gives it back). `make` runs on the
    /// maker's thread alone, and not after `stop()` returns.
    init(_ numbers: Range<Int>, buffers: [Frame], make: @escaping (Int, Frame) throws(MixWriteError) -> Void) {
        (self.numbers, free, self.make) = (numbers, buffers, make)
        let thread = Thread { [self] in produce() }
        thread.name = "mixwrite.frames"
        thread.start()
    }

    /// The next picture, in order; nil after the last.
    func next() async throws(MixWriteError) -> Frame? {
        while true {
            switch try poll() {
            case .picture(let frame): return frame
            case .end: return nil
            case .none:
                // The maker resumes this once it has a picture, an error or its end.
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in park(c) }
            }
        }
    }

    private enum Poll { case picture(Frame), end, none }

    private func poll() throws(MixWriteError) -> Poll {
        state.lock()
        defer { state.unlock() }
        if !ready.isEmpty { return .picture(ready.removeFirst()) }
        if let failure { throw failure }
        return finished ? .end : .none
    }

    /// Leaves `c` for the maker to resume, unless there is something to take already.
    private func park(_ c: CheckedContinuation<Void, Never>) {
        state.lock()
        guard ready.isEmpty && failure == nil && !finished else {
            state.unlock()
            return c.resume()
        }
        waiting = c
        state.unlock()
    }

    /// Encodes every picture as it comes, in order (the k-th at `pts(k)`), then what the encoder still holds, each
    /// packet through `append`: a video stage's loop.
    func encodeAll(with encoder: VideoEncoder, pts: (Int64) -> Int64, append: (EncodedPacket) async throws -> Void) async throws {
        var k: Int64 = 0
        while let frame = try await next() {
            try Task.checkCancellation()
            for packet in try encoder.encode(frame, pts: pts(k)) { try await append(packet) }
            done(with: frame)
            k += 1
        }
        for packet in try encoder.finish() { try await append(packet) }
    }

    /// `frame` is encoded: the maker may fill it again.
    func done(with frame: Frame) {
        state.lock()
        free.append(frame)
        state.signal()
        state.unlock()
    }

    /// Stops the maker and waits for it (at most the picture it is making); then its readers may be closed.
    func stop() {
        state.lock()
        stopped = true
        state.broadcast()
        while !finished { state.wait() }
        state.unlock()
    }

    private func produce() {
        for n in numbers {
            state.lock()
            while free.isEmpty && !stopped { state.wait() }
            if stopped {
                state.unlock()
                break
            }
            let frame = free.removeLast()
            state.unlock()
            do {
                try make(n, frame)
                hand { $0.ready.append(frame) }
            } catch {
                hand { $0.failure = error }
                break
            }
        }
        hand { $0.finished = true }
    }

    /// Changes the state as `change` says, wakes whoever waits (the stage's task, `stop`).
    private func hand(_ change: (FramesAhead) -> Void) {
        state.lock()
        change(self)
        let waiter = waiting
        waiting = nil
        state.broadcast()
        state.unlock()
        waiter?.resume()
    }
}

extension VideoPlan {
    /// `make`, then the burned captions (`--burn-captions`) drawn on the picture it made; `make` itself without any.
    /// `whole`: the whole output's frame number of the maker's `n` (a stage counting from the frames written).
    func drawingCaptions(_ make: @escaping (Int, Frame) throws(MixWriteError) -> Void,
                         whole: @escaping @Sendable (Int) -> Int = { $0 }) -> (Int, Frame) throws(MixWriteError) -> Void {
        guard let burned else { return make }
        let burner = CaptionBurner(burned), rate = frameRate
        return { n, frame throws(MixWriteError) in
            try make(n, frame)
            try burner.draw(on: frame, at: MediaTime(frames: Int64(whole(n)), rate: rate))
        }
    }
}
