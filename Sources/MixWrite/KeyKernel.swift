internal import CKeyKernel
import Foundation

/// Which level of the keyer's C kernel runs (CKeyKernel's table, `mw_key_kernel`): the best this CPU has, unless
/// `MIXWRITE_KERNEL_LEVEL` forces another (to compare levels on one machine, or to rule one out when a result
/// looks wrong). 0 is the scalar reference, 1 plain x86-64, 2 SSE4.2, 3 AVX2, 4 AVX-512; every level gives the
/// same bytes.
enum KeyKernel {
    /// The highest level this CPU runs (0 on other processors than x86-64: the reference alone).
    static let best = mw_cpu_level()

    /// The level in use, or why the forced one cannot be.
    static let chosen: Result<Int32, MixWriteError> = chosen(forced: ProcessInfo.processInfo.environment["MIXWRITE_KERNEL_LEVEL"])

    static func chosen(forced: String?) -> Result<Int32, MixWriteError> {
        guard let forced, !forced.isEmpty else { return .success(best) }
        guard let level = Int32(forced), (0...4).contains(level) else {
            return .failure(.usage("MIXWRITE_KERNEL_LEVEL=\(forced): a kernel level is 0 (the scalar reference), 1 (x86-64), "
                                   + "2 (SSE4.2), 3 (AVX2) or 4 (AVX-512)"))
        }
        guard level <= best else {
            return .failure(.usage("MIXWRITE_KERNEL_LEVEL=\(forced): this CPU runs kernel levels 0 to \(best)"))
        }
        return .success(level)
    }

    /// The level the keyer runs at (the best when a forced one is refused: `check` reports that before any work).
    static var level: Int32 { (try? chosen.get()) ?? best }

    /// Refuses a forced level that is not one, or that this CPU lacks.
    static func check() throws(MixWriteError) { _ = try chosen.get() }

    /// The functions of `level` (at most `best`).
    static func table(_ level: Int32) -> MWKeyKernel {
        guard let t = mw_key_kernel(level) else { preconditionFailure("kernel level \(level) is above this CPU's \(best)") }
        return t.pointee
    }
}
