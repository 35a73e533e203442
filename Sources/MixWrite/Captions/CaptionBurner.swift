import FFmpegSupport

/// The caption files drawn into the picture (`--burn-captions`) and when each shows, on the whole output's time.
struct BurnedCaptions: Sendable {
    var files: [Caption]
    /// When some caption shows: every cue's span, cut at the output's end.
    var spans: [Range<MediaTime>]

    /// The whole output's frames at `rate` that show a caption, as smart rendering's touched spans.
    func frames(rate: Rational) -> [Range<Int>] {
        spans.map { s in
            let first = Int(s.lowerBound.ticks(in: rate.inverted, roundingUp: true))
            return first..<max(first, Int(s.upperBound.ticks(in: rate.inverted, roundingUp: true)))
        }.filter { !$0.isEmpty }
    }
}

/// Draws caption files into pictures with FFmpeg's `subtitles` filter (libass: the files' styles, positions and
/// fonts by fontconfig; SubRip in FFmpeg's default style, scaled to the picture's height), one filter a file, as the
/// CLI's `-vf subtitles=FILE` draws them. A picture no caption shows on is left untouched without a filter run.
final class CaptionBurner {
    private let captions: BurnedCaptions
    private var graph: FilterGraph?
    private var shape: (width: Int, height: Int, format: PixelFormat)?
    private let output = Frame()
    /// The pictures' time base in the graph: half milliseconds. libass's clock is whole milliseconds, which the filter
    /// makes by truncating a double (`pts × time base × 1000`): a picture is handed over half a millisecond into its
    /// millisecond, so that the float's error never moves it to the one before (as a time of exactly 0.2 s in
    /// microseconds would).
    private static let timeBase = Rational(1, 2000)

    init(_ captions: BurnedCaptions) { self.captions = captions }

    /// The filters: `subtitles` for each file, its name escaped for the option and for the graph.
    var filters: String {
        captions.files.map { c in
            "subtitles=filename=" + Self.escaped(c.file) + (c.encoding.isEmpty ? "" : ":charenc=" + Self.escaped(c.encoding))
        }.joined(separator: ",")
    }

    /// `text` as an option value inside a filter graph's description: `\`, `'` and `:` escaped for the option, then
    /// `\`, `'`, `[`, `]`, `,` and `;` for the graph (FFmpeg's two levels of escaping).
    static func escaped(_ text: String) -> String {
        func escape(_ s: String, _ special: String) -> String {
            String(s.flatMap { special.contains($0) ? ["\\", $0] : [$0] })
        }
        return escape(escape(text, "\\':"), "\\'[],;")
    }

    /// Whether a caption shows at `time` (the whole output's).
    func shows(at time: MediaTime) -> Bool { captions.spans.contains { $0.contains(time) } }

    /// Draws the captions showing at `time` (the whole output's) onto `frame`, in place.
    func draw(on frame: Frame, at time: MediaTime) throws(MixWriteError) {
        guard shows(at: time) else { return }
        do throws(FFmpegError) {
            if shape == nil || shape! != (frame.width, frame.height, frame.pixelFormat) {
                let g = FilterGraph()
                try g.addVideoSource(width: frame.width, height: frame.height, pixelFormat: frame.pixelFormat, timeBase: Self.timeBase)
                try g.addVideoSink()
                try g.configure("[in0]" + filters + "[out]")
                (graph, shape) = (g, (frame.width, frame.height, frame.pixelFormat))
            }
            frame.pts = 2 * time.ticks(in: Rational(1, 1000), roundingUp: false) + 1
            try graph!.push(frame, to: 0, keep: true)
            output.unref()
            guard case .value = try graph!.pull(into: output) else {
                throw FFmpegError(.invalidArgument, call: "subtitles gave no picture")
            }
            try frame.copyPlanes(from: output)
        } catch {
            throw .processing(file: captions.files.first?.file, "drawing the captions at \(CaptionFile.clock(time)): \(error.message.lowercased())")
        }
    }
}
