import Foundation
import Testing
import TestSupport

/// fx placed in time (`--at`, `--in`, `--out`) and space (`--place`, `--opacity`), and several layers (`--layer`, a job
/// file's `layers`): read back by the ffmpeg CLI, against its own `setpts` + `scale` + `overlay` and `adelay` + `amix`.
@Suite("layers: fx placed in time and space, several of them, the sound with its picture")
struct LayerTests {
    static func mixwrite(_ arguments: [String]) throws -> Oracle.Result {
        try Oracle.mixwrite(arguments + ["--progress", "none"], timeout: 300)
    }

    static func make(_ args: [String]) throws {
        let r = try Oracle.ffmpeg(["-y", "-v", "error"] + args)
        try #require(r.status == 0, "\(r.stderr)")
    }

    /// FFmpeg's luma PSNR (its `psnr` filter's `y` average over every frame) of `a` against `b`.
    static func lumaPSNR(_ a: String, _ b: String) throws -> Double {
        let r = try Oracle.ffmpeg(["-i", a, "-i", b, "-lavfi", "[0:v][1:v]psnr", "-f", "null", "-"])
        guard let line = r.stderr.split(separator: "\n").last(where: { $0.contains("PSNR") }),
              let field = line.split(separator: " ").first(where: { $0.hasPrefix("y:") }) else {
            throw OracleError("no PSNR: \(r.stderr)")
        }
        let value = field.dropFirst(2)
        return value == "inf" ? .infinity : Double(value) ?? 0
    }

    /// The sound of `a` against `b` (decoded to stereo floats): their difference's level below `b`'s, in dB.
    static func soundDifference(_ a: String, _ b: String) throws -> (level: Double, samples: (Int, Int)) {
        let (x, y) = (try Oracle.decodeAudio(a, channels: 2), try Oracle.decodeAudio(b, channels: 2))
        let n = min(x.count, y.count)
        let difference = zip(x.prefix(n), y.prefix(n)).map { $0 - $1 }
        return (Oracle.rms(difference[...]) - Oracle.rms(y.prefix(n)), (x.count, y.count))
    }

    /// A green-screen fx of 2 s at 25 fps whose frame 15 (0.6 s) has a white box, with a beep from 0.6 to 0.7 s and
    /// silence elsewhere (FLAC); base: 4 s of grey and silence.
    static func flashAndBeep(in dir: String) throws -> (fx: String, base: String) {
        let fx = dir + "/flash.mkv", base = dir + "/grey.mkv"
        try make(["-f", "lavfi", "-i", "color=c=0x00FF00:s=320x240:r=25:d=2,drawbox=x=100:y=80:w=120:h=80:color=white:t=fill:enable='eq(n,15)'",
                  "-f", "lavfi", "-i", "aevalsrc='if(between(t,0.6,0.7),0.3*sin(2*PI*1000*t),0)':s=48000:d=2",
                  "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", "-c:a", "flac", fx])
        try make(["-f", "lavfi", "-i", "color=c=0x808080:s=320x240:r=25:d=4", "-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo",
                  "-t", "4", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", "-c:a", "flac", base])
        return (fx, base)
    }

    /// The md5 of each decoded picture of a movie's video.
    static func pictures(_ path: String) throws -> [String] {
        let f = try Oracle.ffmpeg(["-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"])
        return f.stdoutText.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { String($0.split(separator: ",").last ?? "") }
    }

    /// Mean luma of a rectangle of an RGB24 frame.
    static func brightness(_ frame: [UInt8], width: Int, _ r: (x: Int, y: Int, w: Int, h: Int)) -> Double {
        var sum = 0.0
        for y in r.y..<(r.y + r.h) {
            for x in r.x..<(r.x + r.w) {
                let i = 3 * (y * width + x)
                sum += 0.2126 * Double(frame[i]) + 0.7152 * Double(frame[i + 1]) + 0.0722 * Double(frame[i + 2])
            }
        }
        return sum / Double(r.w * r.h)
    }

    @Test("--at 1.2 --in 0.2 --place: fx's flash and beep land together at 1.6 s (frame 40, sample 76800), in the rectangle only; base alone before")
    func flashAndBeepTogether() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.flashAndBeep(in: dir)
        let out = dir + "/out.mkv"
        let r = try Self.mixwrite([fx, base, "-o", out, "--at", "1.2", "--in", "0.2", "--place", "160,120,160,120",
                                   "--crf", "0", "--audio-codec", "pcm"])
        try #require(r.status == 0, "\(r.stderr)")
        let movie = try Oracle.decodeRGB(out)
        try #require(movie.frames.count == 100, "\(movie.frames.count) frames")
        // The box, 120×80 at (100, 80) of fx, is 60×40 at (210, 160) of the output: halved into the bottom-right quarter.
        let box = (x: 214, y: 164, w: 52, h: 32), elsewhere = (x: 20, y: 20, w: 100, h: 80)
        let lit = movie.frames.indices.filter { Self.brightness(movie.frames[$0], width: 320, box) > 200 }
        #expect(lit == [40], "the flash is at frames \(lit)")
        for n in [0, 29, 30, 40, 99] {
            #expect(abs(Self.brightness(movie.frames[n], width: 320, elsewhere) - 128) < 3, "frame \(n): outside the rectangle, base")
        }
        // The screen is keyed out wherever fx shows, so only the flash differs from base.
        #expect(abs(Self.brightness(movie.frames[35], width: 320, box) - 128) < 3)
        let sound = Oracle.channel(try Oracle.decodeAudio(out, channels: 2), 0, of: 2)
        let onset = try #require(sound.firstIndex { abs($0) > 0.05 })
        let end = try #require(sound.lastIndex { abs($0) > 0.05 })
        print("flash at frame \(lit), beep from sample \(onset) to \(end)")
        #expect(abs(onset - 76_800) <= 48, "the beep starts at sample \(onset), not 76800 (1.6 s)")
        #expect(abs(end - 81_600) <= 48, "the beep ends at sample \(end), not 81600 (1.7 s)")
        #expect(sound.count == 192_000, "the sound lasts \(sound.count) samples, as the picture's 4 s")
    }

    @Test("an alpha fx at 1 s, from 0.5 s of it, halved into a rectangle: within 40 dB (luma) and -40 dB (sound) of the CLI's setpts + scale + overlay and adelay + amix")
    func againstTheCLI() throws {
        let dir = try Oracle.scratch()
        let fx = dir + "/fx.mov", base = dir + "/base.mkv", out = dir + "/out.mkv", reference = dir + "/reference.mkv"
        try Self.make(["-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=2", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=2",
                       "-vf", AlphaTests.disc, "-af", "volume=-14dB", "-ac", "2", "-c:v", "prores_ks", "-profile:v", "4444", "-pix_fmt", "yuva444p10le",
                       "-c:a", "pcm_s24le", fx])
        try Self.make(["-f", "lavfi", "-i", "smptebars=s=320x240:r=25:d=3", "-f", "lavfi", "-i", "sine=f=1000:r=48000:d=3",
                       "-af", "volume=-14dB", "-ac", "2", "-c:v", "libx264", "-qp", "0", "-pix_fmt", "yuv420p", "-c:a", "flac", base])
        let r = try Self.mixwrite([fx, base, "-o", out, "--at", "1", "--in", "0.5", "--place", "40,20,160,120",
                                   "--crf", "0", "--audio-codec", "pcm"])
        try #require(r.status == 0, "\(r.stderr)")
        let graph = "[1:v]trim=start=0.5,setpts=PTS-STARTPTS+1/TB,scale=160:120[f];"
            + "[0:v][f]overlay=40:20:enable='gte(t,1)':eof_action=pass:format=yuv420,format=yuv420p[v];"
            + "[1:a]atrim=start=0.5,asetpts=PTS-STARTPTS,adelay=1000:all=1[d];[0:a][d]amix=inputs=2:normalize=0:duration=first[a]"
        let c = try Oracle.ffmpeg(["-y", "-v", "error", "-i", base, "-i", fx, "-filter_complex", graph, "-map", "[v]", "-map", "[a]",
                                   "-c:v", "libx264", "-qp", "0", "-c:a", "pcm_s24le", reference])
        try #require(c.status == 0, "\(c.stderr)")
        let psnr = try Self.lumaPSNR(out, reference)
        let (level, counts) = try Self.soundDifference(out, reference)
        print("placed alpha fx against the CLI: luma PSNR \(psnr) dB, sound difference \(level) dB, samples \(counts)")
        #expect(psnr >= 40)
        #expect(level <= -40)
        #expect(abs(counts.0 - counts.1) <= 2 * 1024, "the sound's lengths: \(counts)")
    }

    @Test("two layers: --layer and a job file's layers make the same pictures; every track named fx1:… fx2:…, each a stem")
    func severalLayers() throws {
        let dir = try Oracle.scratch()
        let fx = Oracle.fixture("fx-flac.mkv"), base = Oracle.fixture("base-flac.mkv"), second = Oracle.fixture("fx.mov")
        let byWords = dir + "/words.mkv", byFile = dir + "/file.mkv"
        let common = ["--crf", "0", "--audio-codec", "pcm"]
        let r = try Self.mixwrite([fx, base, "-o", byWords, "--place", "0,0,160,120", "--stems", "--json",
                                   "--layer", "\(second):at=0.5:place=160,120,160,120:opacity=0.6:key-color=auto"] + common)
        try #require(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let sources = ((report["audio"] as? [String: Any])?["sources"] as? [[String: Any]]) ?? []
        let names = sources.map { "\($0["label"] ?? ""):\($0["track"] ?? "")" }
        #expect(names == ["fx1:1", "fx1:2", "fx2:1", "fx2:2", "base:1"], "\(names)")
        let titles = try Oracle.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "a", "-show_entries", "stream_tags=title",
                                                          "-of", "csv=p=0", byWords]).stdoutText.split(separator: "\n").map(String.init)
        // The mix (titled so) first, then a stem a track.
        #expect(titles == ["Mix", "fx1:1", "fx1:2", "fx2:1", "fx2:2", "base:1"], "\(titles)")

        let jobs = dir + "/jobs.json"
        let entry = """
            {"jobs": [{"kind": "blend", "fx": "\(fx)", "base": "\(base)", "output": "\(byFile)", "place": [0, 0, 160, 120],
              "crf": 0, "audio-codec": "pcm", "stems": true,
              "layers": [{"fx": "\(second)", "at": 0.5, "place": "160,120,160,120", "opacity": 0.6, "key-color": "auto"}]}]}
            """
        try Data(entry.utf8).write(to: URL(fileURLWithPath: jobs))
        let b = try Oracle.mixwrite(["batch", jobs, "--progress", "none"], timeout: 300)
        try #require(b.status == 0, "\(b.stderr)")
        let (words, file) = (try Self.pictures(byWords), try Self.pictures(byFile))
        #expect(words.count == 50 && words == file)
        // The second layer shows from 0.5 s: before, the bottom-right quarter is base's; after, it is not.
        let movie = try Oracle.decodeRGB(byWords)
        let plain = try Oracle.decodeRGB(base)
        let quarter = (x: 160, y: 120, w: 160, h: 120)
        let before = abs(Self.brightness(movie.frames[5], width: 320, quarter) - Self.brightness(plain.frames[5], width: 320, quarter))
        #expect(before < 2, "before --at, the layer's rectangle is base's (\(before))")
    }

    @Test("bad placements and layer specs: exit 1 naming the layer and the value; an unreadable layer file: exit 2 naming it; nothing written",
          arguments: [
            (["--place", "0,0,0,120"], 1, "--place 0,0,0,120: the rectangle has no area"),
            (["--place", "320,0,100,100"], 1, "--place 320,0,100,100: the rectangle is wholly outside the 320x240 frame"),
            (["--place", "9223372036854775807,0,100,100"], 1, "each number must be within ±8192 pixels"),
            (["--in", "1", "--out", "0.5"], 1, "--out 0.5 must be after --in 1"),
            (["--at", "-1"], 1, "--at -1: must be between 0"),
            (["--at", "2.5"], 1, "--at 2.5 is past the output's end (2 s)"),
            (["--opacity", "1.5"], 1, "--opacity 1.5: must be between 0 and 1"),
            (["--layer", "FX:at=soon"], 1, "--at 'soon' is not a number"),
            (["--layer", "FX:size=2"], 1, "'size=2' is not NAME=VALUE"),
            (["--layer", "FX:at=3"], 1, "layer fx2 (FX): --at 3 is past the output's end"),
            (["--layer", "FX:place=-500,0,100,100"], 1, "layer fx2 (FX): --place -500,0,100,100: the rectangle is wholly outside"),
            (["--layer", "FX:in=2:out=1"], 1, "layer fx2 (FX): --out 1 must be after --in 2"),
            (["--layer", "/no/such/layer.mov:at=1"], 2, "/no/such/layer.mov: no such file"),
          ] as [([String], Int32, String)])
    func badInput(extra: [String], status: Int32, message: String) throws {
        let dir = try Oracle.scratch("bad-layer-" + String(extra.joined(separator: "_").filter { $0.isLetter || $0.isNumber }.suffix(40)))
        let fx = Oracle.fixture("fx.mov")
        let words = extra.map { $0.replacingOccurrences(of: "FX", with: fx) }
        let r = try Self.mixwrite([fx, Oracle.fixture("base.mov"), "-o", dir + "/out.mov"] + words)
        #expect(r.status == status, "\(words): \(r.stderr)")
        let wanted = message.replacingOccurrences(of: "FX", with: fx)
        #expect(r.stderr.contains(wanted), "\(words): \(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "one line: \(r.stderr)")
        let left = try Oracle.listing(dir)
        #expect(left.isEmpty, "nothing written: \(left)")
    }

    @Test("--offset fx on a whole fx warns that its picture stays; --offset fx:2 (a track) does not")
    func offsetWarns() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        let whole = try Self.mixwrite([fx, base, "-o", dir + "/a.mov", "--offset", "fx=1"])
        #expect(whole.status == 0 && whole.stderr.contains("--offset fx=1 delays fx's sound only, not its picture; --at moves both together"),
                "\(whole.stderr)")
        let track = try Self.mixwrite([fx, base, "-o", dir + "/b.mov", "--offset", "fx:2=1"])
        #expect(track.status == 0 && !track.stderr.contains("--at moves both"), "\(track.stderr)")
    }

    @Test("a placed layer that starts inside part 2 of 2: joined, the very pictures and sound packets of one render")
    func layerAcrossParts() throws {
        let dir = try Oracle.scratch()
        let one = dir + "/one.mov", joined = dir + "/joined.mov"
        let command = [Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--crf", "0",
                       "--at", "0.9", "--in", "0.3", "--place", "100,60,200,150"]
        let r = try PartsTests.mixwrite(command + ["-o", one])
        try #require(r.status == 0, "\(r.stderr)")
        try PartsTests.renderParts(command, out: joined, n: 2)
        let (a, b) = (try Self.pictures(one), try Self.pictures(joined))
        #expect(a.count == 50 && a == b)
        #expect(try PartsTests.audioPackets(joined) == PartsTests.audioPackets(one))
    }

    @Test("--hdr keep: a grey layer placed in a quarter is the whole-frame grey's picture there (203 cd/m²), base elsewhere")
    func placedIntoHDR() throws {
        let dir = try Oracle.scratch()
        let base = try ColorTests.hdrClip("arib-std-b67", in: dir)
        let grey = try ColorTests.flatFx("0x808080", in: dir)
        let whole = dir + "/whole.mov", placed = dir + "/placed.mov"
        for (out, extra) in [(whole, [String]()), (placed, ["--place", "0,0,160,120"])] {
            let r = try Self.mixwrite([grey, base, "--hdr", "keep", "--crf", "0", "-o", out] + extra)
            try #require(r.status == 0, "\(r.stderr)")
        }
        let (w, p, b) = (try Oracle.decodeRGB(whole), try Oracle.decodeRGB(placed), try Oracle.decodeRGB(base))
        try #require(w.frames.count == p.frames.count && p.frames.count == b.frames.count && !p.frames.isEmpty)
        func region(_ frame: [UInt8], _ x0: Int, _ y0: Int) -> [UInt8] {
            var out: [UInt8] = []
            for y in y0..<(y0 + 100) {
                let start: Int = 3 * (y * 320 + x0)
                out += frame[start..<(start + 3 * 140)]
            }
            return out
        }
        var (inside, outside) = (0.0, 0.0)
        for n in p.frames.indices {
            inside += Oracle.psnr(region(p.frames[n], 10, 10), region(w.frames[n], 10, 10).map(Double.init))
            outside += Oracle.psnr(region(p.frames[n], 170, 130), region(b.frames[n], 170, 130).map(Double.init))
        }
        let count = Double(p.frames.count)
        print("--hdr keep, a placed grey: inside \(inside / count) dB of the whole-frame grey, outside \(outside / count) dB of base")
        #expect(inside / count >= 40)
        #expect(outside / count >= 38)
    }

    @Test("a still picture as a layer is held for its span (--at, --out; else to the end), as the whole fx to the end; --in on it refused")
    func stillHeld() throws {
        let dir = try Oracle.scratch()
        let (_, base) = try Self.flashAndBeep(in: dir)
        let logo = dir + "/red.png"
        try Self.make(["-f", "lavfi", "-i", "color=c=0xE02020:s=64x48", "-frames:v", "1", logo])
        // Mean red minus green in the rectangle 100,80 120×80 of each frame: the logo's red, else base's grey.
        func shown(_ out: String) throws -> [Bool] {
            let frames = try Oracle.decodeRGB(out).frames
            return frames.map { f in
                var sum = 0
                for y in 90..<150 { for x in 110..<210 { sum += Int(f[3 * (y * 320 + x)]) - Int(f[3 * (y * 320 + x) + 1]) } }
                return sum / 6000 > 100
            }
        }
        let spans = [("at=0.5:out=1", 13 ..< 38), ("at=2.2", 55 ..< 100)]   // 25 fps: 0.52 … 1.48 s; 2.2 s to the end (4 s)
        for (spec, frames) in spans {
            let out = dir + "/\(spec.prefix(6)).mkv"
            let r = try Self.mixwrite([base, base, "--layer", logo + ":" + spec + ":place=100,80,120,80", "-o", out, "-q",
                                       "--duration", "base"])
            try #require(r.status == 0, "\(spec): \(r.stderr)")
            let got = try shown(out)
            let expected = (0..<got.count).map { frames.contains($0) }
            #expect(got.count == 100 && got == expected,
                    "\(spec): shown at frames \(got.indices.filter { got[$0] }), expected \(frames) of \(got.count)")
        }
        // The whole fx: over every frame of base.
        let whole = dir + "/whole.mkv"
        let r = try Self.mixwrite([logo, base, "-o", whole, "-q"])
        try #require(r.status == 0, "\(r.stderr)")
        let frames = try Oracle.decodeRGB(whole).frames
        #expect(frames.count == 100 && frames.allSatisfy { Int($0[3 * (120 * 320 + 160)]) > 180 }, "the still fx over every frame")
        let refused = try Self.mixwrite([Oracle.fixture("fx.mov"), base, "--layer", logo + ":at=1:in=0.5", "-o", dir + "/no.mkv"])
        #expect(refused.status == 1 && refused.stderr.contains("is a still picture"), "\(refused.stderr)")
    }

    @Test("an fx with an alpha opaque everywhere (a green screen saved as RGBA) is laid by it with a warning naming --key chroma; keyed with it")
    func opaqueAlphaWarned() throws {
        let dir = try Oracle.scratch()
        let (_, base) = try Self.flashAndBeep(in: dir)
        let png = dir + "/screen.png"
        try Self.make(["-f", "lavfi", "-i", "color=c=0x00FF00:s=320x240,drawbox=x=100:y=80:w=120:h=80:color=white:t=fill,format=rgba",
                       "-frames:v", "1", png])
        let laid = try Self.mixwrite([png, base, "--frame", "1", "-o", dir + "/laid.png"])
        #expect(laid.status == 0 && laid.stderr.contains("screen.png: its alpha is opaque everywhere") && laid.stderr.contains("--key chroma"),
                "\(laid.stderr)")
        let keyed = try Self.mixwrite([png, base, "--key", "chroma", "--frame", "1", "-o", dir + "/keyed.png"])
        #expect(keyed.status == 0 && !keyed.stderr.contains("warning"), "\(keyed.stderr)")
        let picture = try Oracle.decodeRGB(dir + "/keyed.png").frames[0]
        let corner = (Int(picture[0]), Int(picture[1]), Int(picture[2])), middle = 3 * (120 * 320 + 160)
        #expect(abs(corner.0 - 128) < 8 && abs(corner.1 - 128) < 8 && picture[middle] > 240, "keyed: base's grey at the corner \(corner), fx's white in the middle")
    }

    @Test("the report lists every layer (file, at, in, out, place, opacity, key, tracks) and each track's place on the output; -v's plan says them")
    func reportedLayers() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.flashAndBeep(in: dir)
        let second = "\(fx):at=1.2:in=0.2:out=1.4:place=0,0,160,120:opacity=0.5:threshold=0.3"
        let r = try Self.mixwrite([Oracle.fixture("fx.mov"), base, "--layer", second, "-o", dir + "/out.mkv", "--json"])
        try #require(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let layers = try #require(report["layers"] as? [[String: Any]], "\(report.keys.sorted())")
        #expect(layers.map { $0["name"] as? String } == ["fx1", "fx2"] && layers.map { $0["fx"] as? String } == [Oracle.fixture("fx.mov"), fx])
        let two = layers[1]
        #expect(two["at"] as? Double == 1.2 && two["in"] as? Double == 0.2 && two["out"] as? Double == 1.4
                && two["place"] as? [Int] == [0, 0, 160, 120] && two["opacity"] as? Double == 0.5, "\(two)")
        #expect((two["key"] as? [String: Any])?["threshold"] as? Double == 0.3 && two["compositing"] as? String == "chroma key", "\(two)")
        #expect(layers[0]["tracks"] as? [String] == ["fx1:1", "fx1:2"] && two["tracks"] as? [String] == ["fx2:1"], "\(layers)")
        let sources = (report["audio"] as? [String: Any])?["sources"] as? [[String: Any]] ?? []
        let at = sources.filter { $0["label"] as? String == "fx2" }.map { $0["atSeconds"] as? Double }
        #expect(at == [1.2], "fx2's track starts at 1.2 s of the output: \(sources)")
        let verbose = try Self.mixwrite([Oracle.fixture("fx.mov"), base, "--layer", second, "-o", dir + "/v.mkv", "-v"])
        #expect(verbose.stderr.contains("fx2  \(fx)  at 1.2 s; its 0.2 s to 1.4 s; in 0,0,160,120; opacity 0.5")
                && verbose.stderr.contains("starts at 1.2 s of the output"), "\(verbose.stderr)")
    }

    @Test("layers alone: a job file whose 'layers' give every layer (no 'fx') and --layer for each on the command line make the pictures of fx + --layer; refused without any, or with fx's own options")
    func layersAlone() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.flashAndBeep(in: dir)
        let first = ":at=0.5:place=0,0,160,120", second = ":at=1:place=160,120,160,120"
        let reference = dir + "/reference.mkv", command = dir + "/command.mkv", file = dir + "/file.mkv"
        var r = try Self.mixwrite([fx, base, "--at", "0.5", "--place", "0,0,160,120", "--layer", fx + second, "-o", reference])
        try #require(r.status == 0, "\(r.stderr)")
        r = try Self.mixwrite(["--layer", fx + first, "--layer", fx + second, base, "-o", command])
        try #require(r.status == 0, "\(r.stderr)")
        let jobs = dir + "/jobs.json"
        try Data("""
            {"jobs": [{"kind": "blend", "base": "\(base)", "output": "\(file)",
                       "layers": [{"fx": "\(fx)", "at": 0.5, "place": [0, 0, 160, 120]}, {"fx": "\(fx)", "at": 1, "place": [160, 120, 160, 120]}]}]}
            """.utf8).write(to: URL(fileURLWithPath: jobs))
        r = try Oracle.mixwrite(["batch", jobs, "--progress", "none"], timeout: 300)
        try #require(r.status == 0, "\(r.stdoutText) \(r.stderr)")
        let pictures = try Self.pictures(reference), fromCommand = try Self.pictures(command), fromFile = try Self.pictures(file)
        #expect(!pictures.isEmpty && fromCommand == pictures && fromFile == pictures, "the three renders differ")
        // Nothing to lay, or the fx's own options with no fx to take them: refused, naming the job and the key.
        for (entry, said) in [(#""base": "\#(base)", "output": "\#(dir)/a.mkv""#, "job 0: 'fx' is missing"),
                              (#""base": "\#(base)", "output": "\#(dir)/b.mkv", "at": 2, "layers": [{"fx": "\#(fx)"}]"#, "the fx's own options")] {
            try Data(#"{"jobs": [{"kind": "blend", \#(entry)}]}"#.utf8).write(to: URL(fileURLWithPath: jobs))
            let refused = try Oracle.mixwrite(["batch", jobs, "--progress", "none"])
            #expect(refused.status == 2 && refused.stderr.contains(said), "\(entry): \(refused.stderr)")   // a bad job file, as batch says
        }
        let bare = try Oracle.mixwrite([base, "-o", dir + "/c.mkv"])
        #expect(bare.status == 1 && bare.stderr.contains("missing FX (or --layer gives every layer)"), "\(bare.stderr)")
    }

    @Test("key=none (--key none) lays a layer as it is, opaque: a green screen stays green in its rectangle, a half-transparent picture covers; its key options said to do nothing")
    func unkeyedLayer() throws {
        let dir = try Oracle.scratch()
        let (fx, base) = try Self.flashAndBeep(in: dir)
        let half = dir + "/half.png"
        try Self.make(["-f", "lavfi", "-i", "color=c=red@0.5:s=64x48,format=rgba", "-frames:v", "1", half])
        // The mean colour of a rectangle of the picture at 1 s.
        func mean(_ args: [String], _ name: String, _ r: (Int, Int, Int, Int)) throws -> ([Double], String) {
            let png = dir + "/\(name).png"
            let out = try Self.mixwrite(args + ["--frame", "1", "-o", png])
            try #require(out.status == 0, "\(name): \(out.stderr)")
            let p = try Oracle.decodeRGB(png).frames[0]
            var sums = [0.0, 0.0, 0.0]
            for y in r.1 + 4 ..< r.1 + r.3 - 4 { for x in r.0 + 4 ..< r.0 + r.2 - 4 { for c in 0..<3 { sums[c] += Double(p[3 * (y * 320 + x) + c]) } } }
            return (sums.map { $0 / Double((r.2 - 8) * (r.3 - 8)) }, out.stderr)
        }
        let rect = (160, 120, 160, 120)
        let (keyed, _) = try mean([Oracle.fixture("fx.mov"), base, "--layer", fx + ":place=160,120,160,120"], "keyed", rect)
        let (plain, said) = try mean([Oracle.fixture("fx.mov"), base, "--layer", fx + ":place=160,120,160,120:key=none:threshold=0.2"],
                                     "plain", rect)
        #expect(keyed[1] < 160 && plain[1] > 230 && plain[0] < 30 && plain[2] < 30, "keyed \(keyed), as it is \(plain): fx's screen shows")
        #expect(said.contains("laid as it is (--key none), so --threshold does nothing"), "\(said)")
        // A picture with its own half alpha: over base by it by default, opaque with --key none.
        let (byAlpha, _) = try mean([half, base], "alpha", (0, 0, 320, 240))
        let (covered, _) = try mean([half, base, "--key", "none"], "none", (0, 0, 320, 240))
        #expect(abs(byAlpha[0] - 192) < 12 && covered[0] > 235 && covered[1] < 20, "by its alpha \(byAlpha), as it is \(covered)")
        let r = try Self.mixwrite([half, base, "--key", "none", "-o", dir + "/r.mkv", "--json", "--length", "0.2"])
        let report = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        #expect(report?["compositing"] as? String == "as it is", "\(report?["compositing"] ?? "none")")
    }
}
