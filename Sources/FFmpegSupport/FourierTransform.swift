internal import CFFmpeg

/// A complex fast Fourier transform of one size and direction, unscaled (an inverse after a forward multiplies by the
/// size). Owns its `AVTXContext`; `deinit` frees it.
public final class FourierTransform {
    public let size: Int
    private var context: OpaquePointer?
    private var function: av_tx_fn?

    /// The corresponding FFmpeg call is `av_tx_init` with `AV_TX_FLOAT_FFT`.
    public init(size: Int, inverse: Bool) throws(FFmpegError) {
        self.size = size
        try check(mw_fft_init(&context, &function, Int32(size), inverse ? 1 : 0), "av_tx_init")
    }

    deinit { av_tx_uninit(&context) }

    /// `size` complex values, interleaved (re, im), transformed into `output` (2 × `size` floats too).
    public func transform(_ input: inout [Float], into output: inout [Float]) {
        precondition(input.count == 2 * size && output.count == 2 * size, "FourierTransform: \(size) complex values")
        input.withUnsafeMutableBufferPointer { i in
            output.withUnsafeMutableBufferPointer { o in mw_fft_run(context, function, o.baseAddress, i.baseAddress) }
        }
    }
}
