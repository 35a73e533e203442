import Foundation
import Testing
import TestSupport

/// `mixwrite tune`'s server, spoken to in raw HTTP: what it serves, and what it refuses.
@Suite("tune: the server, in raw HTTP")
struct TuneServerTests {
    static func start(_ extra: [String] = [], output: String? = nil) throws -> TuneProcess {
        try TuneProcess.fixtures(extra, output: output, scratch: "tune")
    }

    /// A key in a query, as the page sends it: `key=` and the job file's key options as JSON, percent-encoded.
    static func key(_ json: String) -> String {
        "key=" + (json.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? json)
    }

    @Test("the page and its API answer with the token; without it, or with another Host or Origin, 403", .hangGuard)
    func tokenHostOrigin() throws {
        let tune = try Self.start()
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        #expect(tune.url.hasPrefix("http://127.0.0.1:\(port)/?token="))
        #expect(token.count >= 32, "a token long enough not to be guessed")

        let page = try RawHTTP.get(port: port, "/?token=\(token)")
        #expect(page.status == 200 && page.text.contains("<title>mixwrite tune</title>"))
        #expect(!page.text.contains("http://") && !page.text.contains("https://"), "the page loads nothing from elsewhere")
        let info = try RawHTTP.get(port: port, "/api/info?token=\(token)")
        #expect(info.status == 200)
        let body = info.json
        #expect((body["tracks"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["fx:1", "fx:2", "base:1"])
        #expect(body["width"] as? Int == 320 && body["height"] as? Int == 240)

        // A token one digit off (its last digit changed, whatever it was).
        let wrong = token.dropLast() + (token.hasSuffix("0") ? "1" : "0")
        for target in ["/", "/api/info", "/api/picture?t=1", "/api/info?token=\(wrong)"] {
            let r = try RawHTTP.get(port: port, target)
            #expect(r.status == 403, "\(target): \(r.status)")
        }
        // The page's style and modules (the files of Sources/MixWriteTune/Resources, byte for byte) need no token, a
        // Host still; a write to them is refused.
        let resources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/MixWriteTune/Resources")
        let files = try FileManager.default.contentsOfDirectory(atPath: resources.path).filter { $0 != "index.html" }
        #expect(files.count >= 4, "\(files)")
        for path in files {
            let type = path.hasSuffix(".css") ? "text/css" : "text/javascript"
            let r = try RawHTTP.get(port: port, "/page/" + path)
            #expect(r.status == 200 && r.headers["content-type"]?.hasPrefix(type) == true, "\(path): \(r.status) \(r.headers)")
            #expect(r.body == (try Data(contentsOf: resources.appendingPathComponent(path))), "\(path) as it is in Resources/")
            #expect(try RawHTTP.get(port: port, "/page/" + path, host: "evil.example:\(port)").status == 403)
        }
        #expect(page.body == (try Data(contentsOf: resources.appendingPathComponent("index.html"))))
        #expect(try RawHTTP.get(port: port, "/page/none.js").status == 403, "no file: the token is asked for, as anywhere")
        #expect(try RawHTTP.post(port: port, "/page/page.js?token=\(token)", json: "{}", origin: "http://127.0.0.1:\(port)").status == 405)
        // DNS rebinding: a page at evil.example whose name now resolves to 127.0.0.1 sends its own Host.
        let rebound = try RawHTTP.get(port: port, "/api/info?token=\(token)", host: "evil.example:\(port)")
        #expect(rebound.status == 403 && rebound.text.contains("Host"))
        let settings = #"{"key": {"key-color": "00FF00", "threshold": 0.3, "smoothing": 0.1, "despill": false}}"#
        for origin in [nil, "http://evil.example", "http://127.0.0.1:\(port + 1)"] {
            let r = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: settings, origin: origin)
            #expect(r.status == 403, "Origin \(origin ?? "none"): \(r.status)")
        }
        let ok = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: settings, origin: "http://127.0.0.1:\(port)")
        #expect(ok.status == 200, "\(ok.text)")
        #expect((ok.json["command"] as? String)?.contains("--threshold 0.3") == true, "\(ok.text)")
    }

    @Test("a frame of fx saved as the clean plate keys the preview, the command and the job names it; a plate for GPUImage's keyer, or one the page names itself, is refused (unread)", .hangGuard)
    func cleanPlate() throws {
        let dir = try Oracle.scratch("tune-plate"), output = dir + "/tuned.mov"
        let tune = try Self.start(["--keyer", "fine"], output: output)
        defer { tune.stop() }
        let (port, token, origin) = (tune.port, tune.token, "http://127.0.0.1:\(tune.port)")
        let saved = try RawHTTP.post(port: port, "/api/plate?token=\(token)&t=0.04", json: "{}", origin: origin)
        #expect(saved.status == 200, "\(saved.text)")
        let plate = try #require(saved.json["clean-plate"] as? String)
        #expect(plate == dir + "/tuned-plate-0.040.jpg" && FileManager.default.fileExists(atPath: plate), "\(plate)")
        let keyed = try RawHTTP.get(port: port, "/api/picture?token=\(token)&t=1&" + Self.key(#"{"keyer": "fine", "clean-plate": "\#(plate)"}"#))
        #expect(keyed.status == 200, "\(keyed.text)")
        let settings = #"{"key": {"key-color": "00FF00", "threshold": 0.4, "smoothing": 0.1, "despill": false, "keyer": "fine", "clean-plate": "\#(plate)"}}"#
        let command = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: settings, origin: origin)
        #expect(command.status == 200 && (command.json["command"] as? String)?.contains("--clean-plate \(plate)") == true, "\(command.text)")
        #expect((command.json["job"] as? String)?.contains(#""clean-plate": "\#(plate)""#) == true, "\(command.text)")
        // A plate the page took keys; GPUImage's keyer takes none. A file the page names itself is refused unread, in the
        // same words whether it is a picture, a secret, a file that is no media or nothing at all: the server is no
        // oracle of the machine's files.
        let grey = dir + "/grey.png"
        try #require(try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "color=c=0x808080:s=64x48", "-frames:v", "1", grey]).status == 0)
        var cases = [(Self.key(#"{"keyer": "gpuimage", "clean-plate": "\#(plate)"}"#), "--clean-plate is the fine keyer's")]
        for named in [grey, "/etc/passwd", "/etc/shadow", NSHomeDirectory() + "/.ssh/id_rsa", dir + "/nothing.png"] {
            cases.append((Self.key(#"{"keyer": "fine", "clean-plate": "\#(named)"}"#), "not a plate the command line named or this page took"))
        }
        var refusals: Set<String> = []
        for (query, words) in cases {
            let r = try RawHTTP.get(port: port, "/api/picture?token=\(token)&t=1&\(query)")
            #expect(r.status == 400 && (r.json["error"] as? String)?.contains(words) == true, "\(query): \(r.text)")
            if words.hasPrefix("not a plate") { refusals.insert(r.text) }
        }
        #expect(refusals.count == 1, "one answer for every file the page names: \(refusals)")
        let job = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: settings.replacingOccurrences(of: plate, with: "/etc/shadow"),
                                   origin: origin)
        #expect(job.status == 400 && (job.json["error"] as? String)?.contains("not a plate the command line named") == true, "\(job.text)")
    }

    @Test("parameters are checked (400 with a message), bodies bounded (413), other paths 404, other methods 405",
          .hangGuard)
    func validation() throws {
        let tune = try Self.start()
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        for (query, words) in [("t=2.5", "t must be between 0 and 2"), ("t=-1", "t must be"), ("t=nan", "t must be"),
                               ("t=1&" + Self.key(#"{"threshold": 1.5}"#), "threshold 1.5: must be between 0 and 1"), ("t=1&view=xray", "view must be"),
                               ("t=1&" + Self.key(#"{"key-color": "green"}"#), "'key-color' must be RRGGBB"),
                               ("t=1&" + Self.key(#"{"threshold": "x"}"#), "'threshold' must be a number"),
                               ("t=1&" + Self.key(#"{"keyColour": "00FF00"}"#), "'keyColour' is not an option of a key"),
                               ("t=1&" + Self.key(#"[1]"#), "key must be a JSON object"),
                               ("t=1&" + Self.key(#"{"key-color": "auto"}"#), "auto is picked when a job starts"),
                               (Self.key(#"{"threshold": 0.2}"#), "t must be a number"),
                               // A blend's layers, as the page sends them: each checked as the command line's.
                               ("t=1&layers=%5B%7B%22place%22%3A%5B1%2C2%5D%7D%5D", "--place 1,2: must be X,Y,W,H"),
                               ("t=1&layers=%5B%7B%22place%22%3A%5B500%2C0%2C10%2C10%5D%7D%5D", "wholly outside the 320x240 frame"),
                               ("t=1&layers=%5B%7B%22at%22%3A-1%7D%5D", "--at -1: must be between 0"),
                               ("t=1&layers=%5B%5D", "layers must give each of the 1 layers"),
                               ("t=1&layers=nope", "layers must be a JSON array")] {
            let r = try RawHTTP.get(port: port, "/api/picture?token=\(token)&\(query)")
            #expect(r.status == 400, "\(query): \(r.status)")
            #expect((r.json["error"] as? String)?.contains(words) == true, "\(query): \(r.text)")
        }
        let pick = try RawHTTP.get(port: port, "/api/pick?token=\(token)&t=1&x=320&y=0")
        #expect(pick.status == 400)
        let origin = "http://127.0.0.1:\(port)"
        let unknown = try RawHTTP.post(port: port, "/api/command?token=\(token)",
                                       json: #"{"key": {"key-color": "00FF00", "threshold": 0.4, "smoothing": 0.1, "despill": false}, "gain": {"/etc/passwd": 3}}"#,
                                       origin: origin)
        #expect(unknown.status == 400 && unknown.text.contains("not a source or track"), "\(unknown.text)")
        // The mix is read by the job file's readers: a value out of an option's range is refused in its words.
        for (body, words) in [(#"{"offset": {"fx": -1}}"#, "--offset fx=-1: must be between 0 and 3600 seconds"),
                              (#"{"gain": {"fx": 30}}"#, "--gain fx=30: must be between -60 and 24 dB"),
                              (#"{"duck": {"fx:1": 0.5}}"#, "--duck fx:1=0.5: must be between 1 and 40 dB"),
                              (#"{"loudness": -60}"#, "--loudness -60: must be between -50 and -5 LUFS")] {
            let r = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: body, origin: origin)
            #expect(r.status == 400 && r.text.contains(words), "\(body): \(r.text)")
        }
        // The options the page's controls are made from are the job file's schema of the kind, as published.
        let options = try RawHTTP.get(port: port, "/api/options?token=\(token)").json
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().appendingPathComponent("../../Schemas/jobs.schema.json"))) as? [String: Any]
        let kinds = ((schema?["$defs"] as? [String: Any])?["job"] as? [String: Any])?["oneOf"] as? [[String: Any]] ?? []
        var blend = (kinds.first { (($0["properties"] as? [String: Any])?["kind"] as? [String: Any])?["const"] as? String == "blend" }?["properties"]
                     as? [String: Any]) ?? [:]
        blend["kind"] = nil
        #expect(!blend.isEmpty && NSDictionary(dictionary: options["job"] as? [String: Any] ?? [:]).isEqual(to: blend),
                "/api/options' job is the schema's blend")
        let garbage = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: "{not json", origin: origin)
        #expect(garbage.status == 400)
        let big = String(repeating: " ", count: 100_000)
        let huge = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: big, origin: origin)
        #expect(huge.status == 413)
        let chunked = try RawHTTP.send(port: port, "POST /api/command?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                                       + "Origin: \(origin)\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n")
        #expect(chunked.status == 411, "\(chunked.status)")
        #expect(try RawHTTP.get(port: port, "/etc/passwd?token=\(token)").status == 404)
        #expect(try RawHTTP.get(port: port, "/../../etc/passwd?token=\(token)").status == 404)
        #expect(try RawHTTP.send(port: port, "DELETE /api/info?token=\(token) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nOrigin: \(origin)\r\nConnection: close\r\n\r\n").status == 405)
        // Still serving after all that.
        #expect(try RawHTTP.get(port: port, "/api/picture?token=\(token)&t=1").status == 200)
    }

    @Test("the matte view shows either keyer's matte: with keyer=fine and a choke, the key layer's alpha; a grey key refused (400)",
          .hangGuard)
    func fineMatte() throws {
        let dir = try Oracle.scratch()
        let tune = try Self.start(output: dir + "/tuned.mov")
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        let r = try RawHTTP.get(port: port, "/api/picture?token=\(token)&t=1.2&view=matte&" + Self.key(#"{"keyer": "fine", "key-color": "00FF00", "choke": 2}"#))
        try #require(r.status == 200 && r.headers["content-type"] == "image/jpeg", "\(r.status) \(r.text.prefix(200))")
        try r.body.write(to: URL(fileURLWithPath: "\(dir)/matte.jpg"))
        let layer = dir + "/layer.mov"
        let k = try Oracle.mixwrite(["key", Oracle.fixture("fx.mov"), "-o", layer, "--keyer", "fine", "--key-color", "00FF00", "--choke", "2",
                                     "--progress", "none"])
        try #require(k.status == 0, "\(k.stderr)")
        // The layer's alpha at 1.2 s (frame 30) as the page draws a matte: white where fx is kept (the JPEG's full range).
        let alpha = try Oracle.decodeRGB(layer, extraFilters: "select=eq(n\\,30),alphaextract,format=gray", frames: 1).frames[0]
        let shown = try Oracle.decodeRGB(dir + "/matte.jpg", extraFilters: "format=gray").frames[0]
        let psnr = Oracle.psnr(shown, alpha.map(Double.init))
        print("the page's fine matte vs the key layer's alpha: PSNR \(psnr) dB")
        #expect(psnr >= 30 && Set(alpha).count > 8, "\(psnr) dB, \(Set(alpha).count) alpha values")
        let grey = try RawHTTP.get(port: port, "/api/picture?token=\(token)&t=1.2&view=matte&" + Self.key(#"{"keyer": "fine", "key-color": "808080"}"#))
        #expect(grey.status == 400 && grey.text.contains("no screen's colour"), "\(grey.status) \(grey.text.prefix(200))")
    }

    @Test("the picture matches --frame with the same settings; fx, base and matte views are what they say", .hangGuard)
    func pictureMatchesFrame() throws {
        let dir = try Oracle.scratch()
        let tune = try Self.start(output: dir + "/tuned.mov")
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        for (name, query) in [("composite", "view=composite&" + Self.key(#"{"threshold": 0.3, "smoothing": 0.05}"#)),
                              ("matte", "view=matte&" + Self.key(#"{"threshold": 0.3, "smoothing": 0.05}"#)),
                              ("fx", "view=fx"), ("base", "view=base")] {
            let r = try RawHTTP.get(port: port, "/api/picture?token=\(token)&t=1.2&\(query)")
            #expect(r.status == 200 && r.headers["content-type"] == "image/jpeg", "\(name): \(r.status) \(r.text.prefix(200))")
            try r.body.write(to: URL(fileURLWithPath: "\(dir)/\(name).jpg"))
        }
        let frame = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--frame", "1.2", "--threshold", "0.3",
                                         "--smoothing", "0.05", "-o", dir + "/frame.png"])
        try #require(frame.status == 0, "\(frame.stderr)")
        // The page shows the movie's own picture (4:2:0, keyed as the render keys it); --frame draws GPUImage's
        // per-pixel preview. They are one blend: in luma, equal but for JPEG; in colour, apart only where 4:2:0
        // halves the chroma of a sharp colour edge (testsrc's bars).
        let page = try Oracle.decodeRGB(dir + "/composite.jpg").frames[0]
        let reference = try Oracle.decodeRGB(dir + "/frame.png").frames[0]
        let lumaPSNR = Oracle.psnr(try Oracle.decodeRGB(dir + "/composite.jpg", extraFilters: "format=gray").frames[0],
                                   try Oracle.decodeRGB(dir + "/frame.png", extraFilters: "format=gray").frames[0].map(Double.init))
        let psnr = Oracle.psnr(page, reference.map(Double.init))
        print("tune picture vs --frame: PSNR \(psnr) dB (RGB), \(lumaPSNR) dB (luma)")
        #expect(lumaPSNR >= 35, "the page's picture is the blend --frame draws")
        #expect(psnr >= 25)

        // fx and base: the inputs' own pictures at 1.2 s (frame 30 at 25 fps), as ffmpeg decodes them.
        for name in ["fx", "base"] {
            let shown = try Oracle.decodeRGB("\(dir)/\(name).jpg").frames[0]
            let decoded = try Oracle.decodeRGB(Oracle.fixture("\(name).mov")).frames[30]
            #expect(Oracle.psnr(shown, decoded.map(Double.init)) >= 30, "\(name) view")
        }
        // The matte: white where the composite shows fx (kept), black where it shows base (fx keyed out).
        let matte = try Oracle.decodeRGB(dir + "/matte.jpg").frames[0]
        let fx = try Oracle.decodeRGB(Oracle.fixture("fx.mov")).frames[30]
        let base = try Oracle.decodeRGB(Oracle.fixture("base.mov")).frames[30]
        var agree = 0, decided = 0
        for i in stride(from: 0, to: page.count, by: 3) {
            let toBase = abs(Int(page[i]) - Int(base[i])) + abs(Int(page[i + 1]) - Int(base[i + 1]))
            let toFx = abs(Int(page[i]) - Int(fx[i])) + abs(Int(page[i + 1]) - Int(fx[i + 1]))
            guard abs(toBase - toFx) > 60 else { continue }
            decided += 1
            if (matte[i] > 128) == (toFx < toBase) { agree += 1 }
        }
        #expect(decided > 1000 && Double(agree) / Double(decided) > 0.97, "matte agrees with the composite on \(agree) of \(decided)")
    }

    @Test("50 requests at once: every one answered, pictures intact, still serving", .hangGuard)
    func concurrentRequests() async throws {
        let tune = try Self.start()
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        let statuses = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for i in 0..<50 {
                group.addTask {
                    let t = Double(i % 10) * 0.19
                    let r = try RawHTTP.get(port: port, "/api/picture?token=\(token)&t=\(t)&" + Self.key(#"{"threshold": \#(0.2 + Double(i % 5) * 0.1)}"#) + "&view=\(i % 2 == 0 ? "composite" : "matte")")
                    // A whole JPEG: starts with SOI, ends with EOI.
                    let whole = r.body.starts(with: [0xFF, 0xD8]) && r.body.suffix(2) == Data([0xFF, 0xD9])
                    return (r.status, whole)
                }
            }
            var all: [(Int, Bool)] = []
            for try await s in group { all.append(s) }
            return all
        }
        #expect(statuses.count == 50)
        #expect(statuses.allSatisfy { $0.0 == 200 && $0.1 }, "\(statuses.filter { $0.0 != 200 || !$0.1 })")
        #expect(try RawHTTP.get(port: port, "/api/info?token=\(token)").status == 200)
    }

    @Test("the command it gives writes the movie; render refuses to replace without consent (409), then writes it",
          .hangGuard)
    func commandAndRender() throws {
        let dir = try Oracle.scratch()
        let output = dir + "/tuned.mov"
        let tune = try Self.start(output: output)
        let (port, token) = (tune.port, tune.token)
        let origin = "http://127.0.0.1:\(port)"
        let settings = #"{"key": {"key-color": "00FF00", "threshold": 0.35, "smoothing": 0.1, "despill": true}, "gain": {"fx": -6}, "mute": ["fx:2"], "offset": {"base": 0.5}}"#
        let command = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: settings, origin: origin)
        try #require(command.status == 200, "\(command.text)")
        let text = try #require(command.json["command"] as? String)
        for word in ["--threshold 0.35", "--despill", "--gain fx=-6", "--mute fx:2", "--offset base=0.5", "-o \(output)"] {
            #expect(text.contains(word), "\(word) in \(text)")
        }
        let entry = try #require(command.json["job"] as? String)
        let parsed = try JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: Any]
        #expect(parsed?["kind"] as? String == "blend" && parsed?["threshold"] as? Double == 0.35)
        #expect((parsed?["gain"] as? [String: Double])?["fx"] == -6)

        // The command, run as printed (with this build as `mixwrite`), writes the movie the page describes.
        let run = try Oracle.run("/bin/sh", ["-c", "mixwrite() { '\(Oracle.mixwrite)' \"$@\"; }; \(text) -q"])
        #expect(run.status == 0, "\(run.stderr)")
        let probe = try Oracle.probe(output)
        #expect(probe.video.count == 1 && probe.audio.count == 1)

        // The page's render: the file exists now, so first a 409, then with consent a new movie.
        let refused = try RawHTTP.post(port: port, "/api/render?token=\(token)", json: settings, origin: origin)
        #expect(refused.status == 409 && refused.text.contains("exists"), "\(refused.text)")
        let started = try RawHTTP.post(port: port, "/api/render?token=\(token)&overwrite=1", json: settings, origin: origin)
        #expect(started.status == 202, "\(started.text)")
        var state: [String: Any] = [:]
        for _ in 0..<600 {
            state = try RawHTTP.get(port: port, "/api/render?token=\(token)").json
            if state["state"] as? String != "running" { break }
            usleep(100_000)
        }
        #expect(state["state"] as? String == "done" && state["progress"] as? Double == 1, "\(state)")
        #expect(abs((try Oracle.probe(output).duration ?? 0) - 2) < 0.1)
        let stopped = tune.stop(SIGTERM)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(try Oracle.listing(dir) == ["tuned.mov"], "nothing left behind")
    }

    @Test("audition: the seconds around T with the page's mix, as an MP4; ducking and level match reach the command",
          .hangGuard)
    func audition() throws {
        let tune = try Self.start()
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        let origin = "http://127.0.0.1:\(port)"
        let settings = #"{"key": {"key-color": "00FF00", "threshold": 0.4, "smoothing": 0.1}, "gain": {"fx:1": -6}, "mute": ["base"]}"#
        let r = try RawHTTP.post(port: port, "/api/audition?token=\(token)&t=1", json: settings, origin: origin)
        try #require(r.status == 200, "\(r.text)")
        #expect(r.headers["content-type"] == "video/mp4")
        let movie = try Oracle.scratch() + "/audition.mp4"
        try r.body.write(to: URL(fileURLWithPath: movie))
        let probe = try Oracle.probe(movie)
        #expect(probe.video.first?.codec == "h264" && probe.audio.first?.codec == "aac")
        // The fixture lasts 2 s: the 3 s audition is all of it.
        #expect(abs(try Oracle.decodedDuration(movie, stream: "a:0") - 2) <= 1024.0 / 48000 + 1e-6)
        let left = Oracle.channel(try Oracle.decodeAudio(movie, channels: 2), 0, of: 2)
        let (fx1, fx2, base) = (Oracle.toneLevel(left, frequency: 440), Oracle.toneLevel(left, frequency: 1000),
                                Oracle.toneLevel(left, frequency: 660))
        print("audition tones: fx:1 \(fx1) dB, fx:2 \(fx2) dB, base \(base) dB")
        #expect(abs(fx1 - -18) < 1 && abs(fx2 - -12) < 1, "fx:1 6 dB down, fx:2 at its own -12 dBFS")
        #expect(base < -60, "base muted")
        let leftover = try FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory()).filter { $0.hasPrefix("mixwrite-audition-") }
        #expect(leftover.isEmpty, "\(leftover)")

        for (query, body, words) in [("t=7", settings, "t must be between"),
                                     ("t=1", #"{"key": {"key-color": "00FF00", "threshold": 0.4, "smoothing": 0.1}, "duck": {"base": 50}}"#, "--duck base=50: must be between 1 and 40 dB"),
                                     ("t=1", #"{"key": {"key-color": "00FF00", "threshold": 0.4, "smoothing": 0.1}, "duck": {"fx": 9, "base": 9}}"#, "nothing left")] {
            let bad = try RawHTTP.post(port: port, "/api/audition?token=\(token)&\(query)", json: body, origin: origin)
            #expect(bad.status == 400 && bad.text.contains(words), "\(query) \(body): \(bad.text)")
        }
        let ducked = #"{"key": {"key-color": "00FF00", "threshold": 0.4, "smoothing": 0.1}, "duck": {"base": 9}, "level-match": true}"#
        let command = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: ducked, origin: origin)
        let text = command.json["command"] as? String ?? ""
        #expect(text.contains("--duck base=9") && text.contains("--level-match"), "\(text)")
        #expect((command.json["job"] as? String)?.contains(#""duck": {"base": 9}"#) == true)
    }

    @Test("stops on SIGINT with exit 0; a bad input is refused before serving (exit 2); --listen warns", .hangGuard)
    func lifecycle() throws {
        let tune = try Self.start()
        let stopped = tune.stop(SIGINT)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(throws: (any Error).self) { try RawHTTP.get(port: tune.port, "/?token=\(tune.token)") }

        let bad = try Oracle.mixwrite(["tune", "/nonexistent.mov", Oracle.fixture("base.mov")], timeout: 30)
        #expect(bad.status == 2 && bad.stderr.contains("/nonexistent.mov") && bad.stdoutText.isEmpty, "\(bad.stderr)")

        let open = try Self.start(["--listen", "0.0.0.0", "--port", "0"])
        let out = open.stop()
        #expect(out.stderr.contains("warning: serving on 0.0.0.0"), "\(out.stderr)")
    }
}
