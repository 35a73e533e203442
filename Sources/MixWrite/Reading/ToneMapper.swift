import Foundation
import FFmpegSupport

/// HDR to SDR: an HLG or PQ picture (BT.2020, 10 bits) brought to SDR BT.709 (yuv420p, limited range) exactly as
/// FFmpeg's own chain does it (`zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=hable:desat=0,
/// zscale=t=bt709:m=bt709:r=tv,format=yuv420p`), through that chain in an avfilter graph, its first two zscales in
/// one (the same numbers, one float pass over the picture fewer):
///
///     zscale=tin=…:pin=bt2020:min=2020_ncl:t=linear:npl=100:p=bt709, format=gbrpf32le,
///     tonemap=hable:desat=0, zscale=t=bt709:m=bt709:r=tv, format=yuv420p
///
/// Linear light with 100 cd/m² as SDR's white, BT.709 primaries, then Hable's filmic curve (highlights rolled off
/// rather than clipped, as the ffmpeg CLI guides recommend), no desaturation. The filters themselves rather than a
/// table made from them: the same numbers as the CLI by construction, and one place that names the conversion.
/// Dolby Vision 8.4 (iPhone) is its HLG base layer. The picture keeps its size; `PictureConverter` scales after.
final class ToneMapper {
    let transfer: HDRTransfer
    private let primaries: String
    private let matrix: String
    private lazy var filter = PictureFilter(filters)

    /// For `stream`, nil when it is SDR.
    convenience init?(stream: StreamInfo) {
        guard let hdr = stream.hdr else { return nil }
        self.init(transfer: hdr, primaries: stream.primaries, matrix: stream.color.matrix)
    }

    init(transfer: HDRTransfer, primaries: String, matrix: ColorMatrix) {
        self.transfer = transfer
        // zscale's names. An HDR stream's matrix is BT.2020's unless it says BT.709 (untagged reads as BT.601 here).
        self.matrix = matrix == .bt709 ? "709" : "2020_ncl"
        // Untagged primaries on an HDR stream are BT.2020's (the only ones HLG and PQ are used with here).
        self.primaries = primaries == "unknown" || primaries == "unspecified" ? "bt2020" : primaries
    }

    /// What the chain does, in words: `HDR (HLG, bt2020) tone-mapped to SDR BT.709`.
    var description: String { "HDR (\(transfer.rawValue), \(primaries)) tone-mapped to SDR BT.709" }

    /// The filters between the source and the sink.
    var filters: String {
        "zscale=tin=\(transfer.zscaleName):pin=\(primaries):min=\(matrix):t=linear:npl=100:p=bt709,format=gbrpf32le,"
            + "tonemap=tonemap=hable:desat=0,zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
    }

    /// `frame` tone-mapped (a picture this mapper owns, valid until the next call); `frame` itself is kept.
    func map(_ frame: Frame) throws(FFmpegError) -> Frame { try filter.apply(frame) }
}

/// An SDR picture (yuv420p, BT.709 or BT.601) placed into HDR (`--hdr keep`): BT.2020, HLG or PQ, 10 bits, its white
/// at BT.2408's reference white, 203 cd/m² (75 % of HLG's signal, 58 % of PQ's), by zscale.
final class SDRToHDR {
    private let filter: PictureFilter

    init(transfer: HDRTransfer, from matrix: ColorMatrix) {
        let (t, m, p) = matrix == .bt709 ? ("709", "709", "709") : ("601", "470bg", "170m")
        filter = PictureFilter("zscale=tin=\(t):min=\(m):pin=\(p):rin=tv:t=\(transfer.zscaleName):p=2020:m=2020_ncl:r=tv:npl=203,"
                               + "format=yuv420p10le")
    }

    /// `frame` in HDR (a picture this owns, valid until the next call).
    func map(_ frame: Frame) throws(FFmpegError) -> Frame { try filter.apply(frame) }
}

/// Pictures through a chain of FFmpeg's video filters, one at a time; the graph is made for the first picture's
/// size and format (and made again when they change), on every core.
final class PictureFilter {
    let filters: String
    private var graph: FilterGraph?
    private var shape: (width: Int, height: Int, format: PixelFormat)?
    private let output = Frame()

    init(_ filters: String) { self.filters = filters }

    /// `frame` filtered (a picture this owns, valid until the next call); `frame` itself is kept.
    func apply(_ frame: Frame) throws(FFmpegError) -> Frame {
        if shape == nil || shape! != (frame.width, frame.height, frame.pixelFormat) {
            // zscale and tonemap cut a picture into slices, one a core.
            let g = FilterGraph(threads: ProcessInfo.processInfo.activeProcessorCount)
            try g.addVideoSource(width: frame.width, height: frame.height, pixelFormat: frame.pixelFormat)
            try g.addVideoSink()
            try g.configure("[in0]" + filters + "[out]")
            (graph, shape) = (g, (frame.width, frame.height, frame.pixelFormat))
        }
        try graph!.push(frame, to: 0, keep: true)
        output.unref()
        guard case .value = try graph!.pull(into: output) else {
            throw FFmpegError(.invalidArgument, call: "the filters (\(filters)) gave no picture")
        }
        return output
    }
}
