internal import CFFmpeg
import Foundation

/// Raw deflate data (RFC 1951, as a zip file stores an entry) inflated by zlib, which libavformat links too.
public enum Deflate {
    /// The bytes `compressed` inflates to, which must be exactly `size` of them (what the zip recorded); nil when it is
    /// not deflate data, ends early, or holds more than `size` (a zip bomb stops at `size` + 1).
    public static func inflate(_ compressed: Data, size: Int) -> Data? {
        guard size >= 0 else { return nil }
        var out = Data(count: size + 1)
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var input = compressed
        let status: Int32 = input.withUnsafeMutableBytes { src in
            out.withUnsafeMutableBytes { dst in
                stream.next_in = src.bindMemory(to: Bytef.self).baseAddress
                stream.avail_in = uInt(src.count)
                stream.next_out = dst.bindMemory(to: Bytef.self).baseAddress
                stream.avail_out = uInt(dst.count)
                return CFFmpeg.inflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == size else { return nil }
        out.removeLast()
        return out
    }
}
