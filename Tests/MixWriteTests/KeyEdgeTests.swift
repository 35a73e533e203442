import Foundation
import Testing
import TestSupport

/// Key edges as GPUImage draws them: an alpha per pixel. mixwrite's alpha is read back from two `--frame`
/// pictures, fx over a white and over a black base, and held to `GPUImageReference`, which follows
/// GPUImage's own path (GL_LINEAR chroma, the matrix, RGBA8, the blend in float, the writer's 4:2:0).
@Suite("key edges: per-pixel alpha as GPUImage")
struct KeyEdgeTests {
    /// A flat grey movie like `like` (size, rate, matrix), for reading alpha back. Light and dark grey rather than
    /// white and black: fx's chroma at an edge would push a blend over white past the RGB cube, and the clipped
    /// difference would read as a lower alpha.
    /// `space` (`bt709`, `bt601`): that matrix instead of `like`'s.
    static func plain(_ colour: String, like path: String, in dir: String, seconds: Int = 3, space: String? = nil) throws -> String {
        let v = try #require(try Oracle.probe(path).video.first)
        let rate = v.raw["r_frame_rate"] ?? "25/1", space = space ?? v.raw["color_space"] ?? "unknown"
        let out = dir + "/\(colour)-\(seconds)-\(space).mov"
        var args = ["-v", "error", "-y", "-f", "lavfi", "-i", "color=c=\(colour):s=\(v.width ?? 0)x\(v.height ?? 0):r=\(rate):d=\(seconds)",
                    "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p"]
        if space == "bt709" { args += ["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709"] }
        if space == "bt601" { args += ["-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m"] }
        let r = try Oracle.ffmpeg(args + [out])
        guard r.status == 0 else { throw OracleError("making \(out): \(r.stderr)") }
        return out
    }

    /// mixwrite's `--frame T` of fx over `base`, as packed RGB24.
    static func frame(_ fx: String, over base: String, at t: Double, in dir: String, _ extra: [String] = []) throws -> [UInt8] {
        let png = dir + "/\(UUID().uuidString).png"
        let r = try Oracle.mixwrite([fx, base, "--frame", String(t), "-o", png] + extra)
        guard r.status == 0 else { throw OracleError("mixwrite --frame: \(r.stderr)") }
        return try #require(try Oracle.decodeRGB(png).frames.first)
    }

    struct EdgeResult {
        var bandError: Double
        var bandPixels: Int
        var wholeError: Double
        var got: [Double]
        var reference: [Double]
    }

    /// mixwrite's alpha of `fx`'s frame `index` (at time `t`) against GPUImage's (which keys fx in its own
    /// `matrix`); `baseMatrix`: the grey bases (and so the output) in another matrix, fx converted to it.
    static func edgeError(fx: String, index: Int, at t: Double, matrix: GPUImageReference.Matrix, _ extra: [String] = [],
                          key: (Double, Double, Double) = (0, 1, 0), threshold: Double = 0.4,
                          smoothing: Double = 0.1, baseMatrix: GPUImageReference.Matrix? = nil) throws -> EdgeResult {
        let dir = try Oracle.scratch()
        let space = baseMatrix.map { $0 == .bt709 ? "bt709" : "bt601" }
        let light = try plain("0xC0C0C0", like: fx, in: dir, space: space), dark = try plain("0x404040", like: fx, in: dir, space: space)
        let got = GPUImageReference.alpha(over: (try frame(fx, over: light, at: t, in: dir, extra),
                                                 try GPUImageReference.decode(light, frame: 0)),
                                          and: (try frame(fx, over: dark, at: t, in: dir, extra),
                                                try GPUImageReference.decode(dark, frame: 0)), baseMatrix ?? matrix)
        let picture = try GPUImageReference.decode(fx, frame: index)
        let reference = GPUImageReference.blend(fx: picture, base: picture, matrix, key: key, threshold: threshold,
                                                smoothing: smoothing).alpha
        let band = GPUImageReference.edgeBand(reference, width: picture.width, height: picture.height)
        let bandError = band.reduce(0.0) { $0 + abs(got[$1] - reference[$1]) } / Double(max(band.count, 1))
        let wholeError = zip(got, reference).reduce(0.0) { $0 + abs($1.0 - $1.1) } / Double(got.count)
        return EdgeResult(bandError: bandError, bandPixels: band.count, wholeError: wholeError, got: got, reference: reference)
    }

    @Test("thin diagonal and curved edges: mean alpha error on the 2-pixel edge band ≤ 0.02")
    func syntheticEdges() throws {
        let r = try Self.edgeError(fx: Oracle.fixture("edges.mov"), index: 10, at: 0.4, matrix: .bt601)
        print("edges.mov: mean alpha error \(r.bandError) on \(r.bandPixels) edge-band pixels, \(r.wholeError) over the picture")
        #expect(r.bandPixels > 3000, "edge band of \(r.bandPixels) pixels")
        #expect(r.bandError <= 0.02, "mean alpha error on the edge band \(r.bandError)")
        #expect(r.wholeError <= 0.005, "mean alpha error over the picture \(r.wholeError)")
        // Yellow beside cyan: both kept, but GL_LINEAR's mean of the two is green, so GPUImage keys out a
        // thin line between them (x = 259, 260), and so must mixwrite.
        for y in [25, 30, 35, 65, 70, 75] {  // away from the white line, which crosses near y = 45
            let i = y * 320 + 259
            #expect(r.reference[i] > 0.9 && r.got[i] > 0.9, "row \(y): GPUImage \(r.reference[i]), mixwrite \(r.got[i])")
            #expect(r.reference[i - 4] < 0.01 && r.got[i - 4] < 0.01)
        }
    }

    /// `edges.mov` converted to BT.709 (its colours kept, the samples and the tags changed), the same size.
    static func edgesIn709(in dir: String) throws -> String {
        let out = dir + "/edges709.mov"
        let r = try Oracle.ffmpeg(["-y", "-i", Oracle.fixture("edges.mov"), "-vf", "scale=in_color_matrix=bt601:out_color_matrix=bt709:flags=accurate_rnd+full_chroma_int",
                                   "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p",
                                   "-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc", "bt709", out])
        try #require(r.status == 0, "\(r.stderr)")
        return out
    }

    @Test("fx in one matrix over a base in the other (BT.709 over BT.601 and the reverse): edge band ≤ 0.02, as GPUImage keys fx in its own")
    func mixedMatrices() throws {
        let fx709 = try Self.edgesIn709(in: try Oracle.scratch())
        for (fx, matrix, base) in [(fx709, GPUImageReference.Matrix.bt709, GPUImageReference.Matrix.bt601),
                                   (Oracle.fixture("edges.mov"), .bt601, .bt709)] {
            let r = try Self.edgeError(fx: fx, index: 10, at: 0.4, matrix: matrix, baseMatrix: base)
            print("\(matrix) fx over a \(base) base: mean alpha error \(r.bandError) on \(r.bandPixels) edge-band pixels")
            #expect(r.bandPixels > 3000)
            #expect(r.bandError <= 0.02, "\(matrix) over \(base): \(r.bandError)")
        }
    }

    @Test("the --frame picture matches GPUImage's blended picture at PSNR ≥ 45 dB")
    func wholePicture() throws {
        let dir = try Oracle.scratch()
        let fx = Oracle.fixture("edges.mov"), base = Oracle.fixture("base.mov")
        let got = try Self.frame(fx, over: base, at: 0.4, in: dir)
        let blended = GPUImageReference.blend(fx: try GPUImageReference.decode(fx, frame: 10),
                                              base: try GPUImageReference.decode(base, frame: 10), .bt601)
        let reference = blended.rgb.flatMap { [$0.0 * 255, $0.1 * 255, $0.2 * 255] }
        let psnr = Oracle.psnr(got, reference)
        print("--frame vs GPUImage's path: PSNR \(psnr) dB")
        #expect(psnr >= 45, "PSNR \(psnr) dB")
        // The base frame is the one at T: its neighbour is a worse match.
        let other = GPUImageReference.blend(fx: try GPUImageReference.decode(fx, frame: 10),
                                            base: try GPUImageReference.decode(base, frame: 14), .bt601)
        #expect(Oracle.psnr(got, other.rgb.flatMap { [$0.0 * 255, $0.1 * 255, $0.2 * 255] }) < psnr - 3)
    }

    @Test("the movie itself: alpha per pixel in its luma (lossless H.264 read back), edge band ≤ 0.02")
    func movieAlpha() throws {
        let dir = try Oracle.scratch()
        let fx = Oracle.fixture("edges.mov")
        var renderings: [(GPUImageReference.Picture, GPUImageReference.Picture)] = []
        for grey in ["0xC0C0C0", "0x404040"] {
            let base = try Self.plain(grey, like: fx, in: dir, seconds: 1), out = dir + "/\(grey).mov"
            let r = try Oracle.mixwrite([fx, base, "--crf", "0", "-o", out])
            #expect(r.status == 0, "\(r.stderr)")
            renderings.append((try GPUImageReference.decode(out, frame: 10), try GPUImageReference.decode(base, frame: 0)))
        }
        let (light, dark) = (renderings[0], renderings[1])
        let scale = Double(light.1.y[0]) - Double(dark.1.y[0])
        let got = zip(light.0.y, dark.0.y).map { (Double($0) - Double($1)) / scale }
        let picture = try GPUImageReference.decode(fx, frame: 10)
        let reference = GPUImageReference.blend(fx: picture, base: picture, .bt601).alpha
        let band = GPUImageReference.edgeBand(reference, width: picture.width, height: picture.height)
        let error = band.reduce(0.0) { $0 + abs(got[$1] - reference[$1]) } / Double(band.count)
        print("movie (lossless): mean alpha error \(error) on \(band.count) edge-band pixels")
        #expect(band.count > 3000 && error <= 0.02, "mean alpha error \(error) on \(band.count) edge pixels")
        // Where fx is kept, its pixels are fx's own: luma and chroma as decoded.
        let kept = (0..<picture.y.count).filter { reference[$0] == 0 && got[$0] == 0 }
        #expect(kept.count > 10000)
        #expect(kept.allSatisfy { light.0.y[$0] == picture.y[$0] })
    }

    @Test("the corpus's green-screen clips: edge band within 0.02 of GPUImage",
          .enabled(if: Oracle.corpus != nil, "MIXWRITE_CORPUS is not set: the corpus green-screen clips' edges are not measured"))
    func corpusClips() throws {
        let dir = try #require(Oracle.corpus) + "/greenscreen"
        let clips = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".mov") }.sorted()
        #expect(clips.count >= 2)
        for clip in clips {
            let path = dir + "/" + clip
            // Frame 30 of the clip, asked for a third of a frame after it starts.
            let times = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                            "frame=pts_time", "-of", "csv=p=0", path]).stdoutText
                .split(separator: "\n").compactMap { Double($0) }
            let start = try #require(times.count > 30 ? times[30] : nil)
            let r = try Self.edgeError(fx: path, index: 30, at: start + 0.01, matrix: .bt709)
            print("\(clip): mean alpha error \(r.bandError) on \(r.bandPixels) edge-band pixels")
            #expect(r.bandPixels > 1000, "\(clip): edge band of \(r.bandPixels) pixels")
            #expect(r.bandError <= 0.02, "\(clip): mean alpha error on the edge band \(r.bandError)")
        }
    }
}
