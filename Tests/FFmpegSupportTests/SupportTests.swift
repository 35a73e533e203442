import Foundation
import Testing
import TestSupport
@testable import FFmpegSupport

/// FFmpegSupport on its own, on the fixtures: each owner of a C object against what the ffmpeg and ffprobe CLI
/// read of the same files.
@Suite("FFmpegSupport: demux, decode, filter, encode, mux")
struct SupportTests {
    /// Every frame of a stream, read to the end.
    static func decodeAll(_ path: String, kind: MediaKind) throws -> (frames: [Frame], damaged: Int, decoder: Decoder) {
        let demuxer = try Demuxer(url: path)
        let index = try #require(demuxer.streams.first { $0.kind == kind }?.index)
        demuxer.keepOnly([index])
        let decoder = try Decoder(demuxer: demuxer, streamIndex: index)
        let frames = decoder.frames(from: demuxer)
        var all: [Frame] = []
        while let f = try frames.next() { all.append(f) }
        return (all, frames.damaged, decoder)
    }

    @Test("Demuxer: every stream of fx.mov as ffprobe reads it (kind, codec, size, rate, channels)")
    func demuxerStreams() throws {
        let demuxer = try Demuxer(url: Oracle.fixture("fx.mov"))
        let probe = try Oracle.probe(Oracle.fixture("fx.mov"))
        #expect(demuxer.formatName.contains("mov"))
        let video = demuxer.streams.filter { $0.kind == .video }, audio = demuxer.streams.filter { $0.kind == .audio }
        #expect(video.count == probe.video.count && audio.count == probe.audio.count)
        #expect(video.first?.codec == probe.video.first?.codec && video.first?.width == 320 && video.first?.height == 240)
        #expect(video.first?.frameRate == Rational(25, 1))
        #expect(audio.map(\.codec) == probe.audio.map(\.codec))
        #expect(audio.map(\.sampleRate) == [44100, 48000] && audio.map(\.channels) == [1, 2])
        #expect(abs((demuxer.duration?.seconds ?? 0) - (probe.duration ?? -1)) < 0.05)
    }

    @Test("Demuxer: a missing file and a file that is not media are FFmpegErrors naming the call and the reason")
    func demuxerErrors() throws {
        do {
            _ = try Demuxer(url: "/nonexistent/clip.mov")
            Issue.record("a missing file opened")
        } catch {
            #expect(error.description.contains("avformat_open_input") && error.description.contains("no such file"), "\(error)")
        }
        let text = try Oracle.scratch() + "/notes.mov"
        try Data(String(repeating: "not a movie\n", count: 100).utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: FFmpegError.self) { try Demuxer(url: text) }
    }

    @Test("Decoder: every video frame of base.mov, as many as ffprobe counts, timestamps rising, none damaged")
    func decodeVideo() throws {
        let (frames, damaged, _) = try Self.decodeAll(Oracle.fixture("base.mov"), kind: .video)
        let counted = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                         "stream=nb_read_frames", "-of", "csv=p=0", Oracle.fixture("base.mov")])
        #expect(frames.count == Int(counted.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(damaged == 0)
        let pts = frames.compactMap(\.bestEffortTimestamp)
        #expect(pts.count == frames.count && zip(pts, pts.dropFirst()).allSatisfy { $0 < $1 })
        #expect(frames.allSatisfy { $0.width == 320 && $0.height == 240 && $0.pixelFormat == .yuv420p })
    }

    @Test("Decoder: the end of the stream is a value: draining gives the held frames, draining again nothing")
    func drain() throws {
        let demuxer = try Demuxer(url: Oracle.fixture("base.mov"))
        let index = try #require(demuxer.streams.first { $0.kind == .video }?.index)
        let decoder = try Decoder(demuxer: demuxer, streamIndex: index)
        let packet = Packet()
        var decoded = 0
        while try demuxer.read(into: packet) {
            if packet.streamIndex == index { decoded += try decoder.decode(packet).frames.count }
            packet.unref()
        }
        let held = try decoder.decode(nil)
        #expect(held.frames.count > 0, "B-frames and threads hold frames until the end")
        #expect(decoded + held.frames.count == 50)
        let again = try decoder.decode(nil)
        #expect(again.frames.isEmpty && again.damaged == 0)
    }

    @Test("Decoder: the audio of tone.m4a, sample for sample as long as ffmpeg decodes it")
    func decodeAudio() throws {
        let (frames, _, _) = try Self.decodeAll(Oracle.fixture("tone.m4a"), kind: .audio)
        let samples = frames.reduce(0) { $0 + $1.sampleCount }
        let oracle = try Oracle.decodeAudio(Oracle.fixture("tone.m4a"), rate: 48000, channels: 1).count
        #expect(samples == oracle, "\(samples) samples, ffmpeg's \(oracle)")
        #expect(frames.allSatisfy { $0.sampleRate == 48000 && $0.channelCount == 1 })
    }

    @Test("DecodedFrames.seek: the first frame after a seek to 1 s is the one at 1 s")
    func seek() throws {
        let demuxer = try Demuxer(url: Oracle.fixture("base.mov"))
        let index = try #require(demuxer.streams.first { $0.kind == .video }?.index)
        demuxer.keepOnly([index])
        let decoder = try Decoder(demuxer: demuxer, streamIndex: index)
        let frames = decoder.frames(from: demuxer)
        let target = MediaTime(value: 1, timescale: 1)
        try frames.seek(to: target, skippingUntil: target)
        var first: Frame?
        while let f = try frames.next() {
            let t = MediaTime(ticks: f.bestEffortTimestamp ?? 0, timeBase: decoder.timeBase)
            if t >= target { first = f; break }
        }
        let found = try #require(first)
        #expect(MediaTime(ticks: found.bestEffortTimestamp ?? 0, timeBase: decoder.timeBase) == target)
    }

    @Test("FilterGraph: volume=0.5 halves the tone (-6.02 dB), needsInput until the source closes, then endOfStream")
    func filterGraph() throws {
        let (frames, _, decoder) = try Self.decodeAll(Oracle.fixture("tone.m4a"), kind: .audio)
        let graph = FilterGraph()
        let source = try graph.addAudioSource(matching: decoder)
        try graph.addAudioSink(frameSize: nil)
        try graph.configure("[in0]volume=0.5,aformat=sample_fmts=flt:channel_layouts=mono[out]")
        var peakIn: Float = 0, peakOut: Float = 0
        for f in frames {
            let p = UnsafeRawPointer(f.plane(0)).assumingMemoryBound(to: Float.self)
            peakIn = max(peakIn, (0..<f.sampleCount).map { abs(p[$0]) }.max() ?? 0)
        }
        let inSamples = frames.reduce(0) { $0 + $1.sampleCount }
        var outSamples = 0, states: [String] = []
        func pullAll() throws {
            while true {
                let out = Frame()
                switch try graph.pull(into: out) {
                case .value:
                    let p = UnsafeRawPointer(out.plane(0)).assumingMemoryBound(to: Float.self)
                    peakOut = max(peakOut, (0..<out.sampleCount).map { abs(p[$0]) }.max() ?? 0)
                    outSamples += out.sampleCount
                case .needsInput: states.append("needsInput"); return
                case .endOfStream: states.append("endOfStream"); return
                }
            }
        }
        for f in frames {
            try graph.push(f, to: source)
            try pullAll()
        }
        try graph.close(source)
        try pullAll()
        #expect(states.last == "endOfStream" && states.dropLast().allSatisfy { $0 == "needsInput" })
        #expect(outSamples == inSamples, "the graph takes each pushed frame's samples and gives back as many")
        #expect(abs(20 * log10(Double(peakOut / peakIn)) + 6.02) < 0.05, "in \(peakIn), out \(peakOut)")
    }

    @Test("FilterGraph: a description that does not parse is an FFmpegError naming avfilter_graph_parse_ptr")
    func filterGraphError() throws {
        let (_, _, decoder) = try Self.decodeAll(Oracle.fixture("tone.m4a"), kind: .audio)
        let graph = FilterGraph()
        _ = try graph.addAudioSource(matching: decoder)
        try graph.addAudioSink(frameSize: nil)
        do {
            try graph.configure("[in0]nosuchfilter=1[out]")
            Issue.record("a filter that does not exist was configured")
        } catch {
            #expect(error.call == "avfilter_graph_parse_ptr", "\(error)")
        }
    }

    @Test("Muxer: base.mov's packets copied into Matroska and finished: ffprobe reads the same frames and length")
    func muxCopy() throws {
        let source = try Demuxer(url: Oracle.fixture("base.mov"))
        let out = try Oracle.scratch() + "/copy.mkv"
        let muxer = try Muxer(path: out, format: "matroska")
        let streams = source.streams.filter { $0.kind == .video || $0.kind == .audio }
        var map: [Int: Int] = [:]
        for s in streams { map[s.index] = try muxer.addStream(source.codecParameters(s.index)) }
        try muxer.writeHeader(fastStart: false)
        let packet = Packet()
        var written = 0
        while try source.read(into: packet) {
            if let target = map[packet.streamIndex] {
                try muxer.write(packet.encoded, stream: target, timeBase: streams.first { $0.index == packet.streamIndex }!.timeBase)
                written += 1
            }
            packet.unref()
        }
        try muxer.finish()
        let (original, copy) = (try Oracle.probe(Oracle.fixture("base.mov")), try Oracle.probe(out))
        #expect(copy.video.first?.codec == original.video.first?.codec && copy.audio.first?.codec == original.audio.first?.codec)
        #expect(abs((copy.duration ?? 0) - (original.duration ?? -1)) < 0.05)
        #expect(written > 50)
        let frames = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                                                        "stream=nb_read_frames", "-of", "csv=p=0", out])
        #expect(frames.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "50")
    }

    @Test("Muxer: abandon closes a half-written file without a trailer; a folder that does not exist is an FFmpegError")
    func muxAbandon() throws {
        let dir = try Oracle.scratch()
        let source = try Demuxer(url: Oracle.fixture("base.mov"))
        let video = try #require(source.streams.first { $0.kind == .video })
        let muxer = try Muxer(path: dir + "/half.mov", format: "mov")
        _ = try muxer.addStream(source.codecParameters(video.index))
        try muxer.writeHeader(fastStart: false)
        muxer.abandon()
        // A mov without its index (the trailer) is not a movie.
        #expect(try Oracle.run("/usr/bin/ffprobe", ["-v", "error", dir + "/half.mov"]).status != 0)
        #expect(throws: FFmpegError.self) { try Muxer(path: dir + "/no/such/folder/out.mov", format: "mov") }
    }

    @Test("Encoder: 25 frames of H.264 drained to the last packet; ffprobe decodes 25 frames of the muxed file")
    func encodeAndDrain() throws {
        let settings = Encoder.VideoSettings(width: 64, height: 48, frameRate: Rational(25, 1), crf: 20, preset: "ultrafast",
                                             color: ColorDescription(matrix: .bt709, fullRange: false), threads: 1, globalHeader: true)
        let encoder = try Encoder(video: settings)
        var packets: [EncodedPacket] = []
        for i in 0..<25 {
            let f = try Frame(width: 64, height: 48, pixelFormat: .yuv420p)
            for p in 0..<3 {
                let rows = p == 0 ? 48 : 24
                for y in 0..<rows { f.plane(p).advanced(by: y * f.stride(p)).update(repeating: UInt8((i * 9 + y * 3 + p * 50) & 0xFF), count: p == 0 ? 64 : 32) }
            }
            f.pts = Int64(i)
            packets += try encoder.encode(f)
        }
        let beforeDrain = packets.count
        packets += try encoder.drain()
        #expect(packets.count == 25 && beforeDrain < 25, "\(beforeDrain) before the drain, \(packets.count) after")
        #expect(try encoder.drain().isEmpty, "draining twice gives nothing more")
        let out = try Oracle.scratch() + "/encoded.mov"
        let muxer = try Muxer(path: out, format: "mov")
        let stream = try muxer.addStream(try encoder.codecParameters())
        try muxer.writeHeader(fastStart: false)
        // FFmpeg 5.1's libx264 leaves a packet's duration 0; a muxer then ends the track at the last packet's
        // start (one frame short, by the edit list), so each packet gets its frame, as BlendStage gives it.
        for var p in packets {
            if p.duration <= 0 { p.duration = 1 }
            try muxer.write(p, stream: stream, timeBase: encoder.timeBase)
        }
        try muxer.finish()
        let count = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-count_frames", "-show_entries", "stream=nb_read_frames,codec_name",
                                                       "-of", "csv=p=0", out])
        #expect(count.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "h264,25")
    }

    @Test("FFmpegError: the call, av_strerror's text, and EOF and EAGAIN as codes")
    func errorTexts() {
        let eof = FFmpegError(.endOfFile, call: "av_read_frame")
        #expect(eof.isEndOfFile && eof.description == "av_read_frame: end of file")
        let again = FFmpegError(.tryAgain, call: "avcodec_receive_frame")
        #expect(again.message.lowercased().contains("resource temporarily unavailable"))
        let noSpace = FFmpegError(.errno(ENOSPC), call: "avio_write")
        #expect(noSpace.isNoSpace && noSpace.description.contains("no space left on device"))
        #expect(FFmpegError(.decoderNotFound, call: "avcodec_find_decoder").description.contains("decoder not found"))
    }
}
