import Foundation
import Testing
import TestSupport

/// `mixwrite tune`'s server against a peer on the same machine that means harm: raw sockets to the printed port,
/// loopback only, every loop bounded in count and time.
@Suite("tune: the server against a hostile peer")
struct TuneHardeningTests {
    static func start(_ extra: [String] = [], output: String? = nil) throws -> TuneProcess {
        try TuneProcess.fixtures(extra, output: output, scratch: "hardening")
    }

    /// The CPU seconds a process has used (user + system), from /proc/PID/stat.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.range(of: ")", options: .backwards)!.upperBound...].split(separator: " ")
        // After the command's name: state is field 3, utime 14 and stime 15 (1-based) of the whole line.
        let ticks = Double(fields[11])! + Double(fields[12])!
        return ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test("ambiguous framing is refused with 400 and the connection closed: two Hosts, Origins or Content-Lengths, Content-Length with Transfer-Encoding, a target naming another host; chunked bodies 411", .hangGuard)
    func strictFraming() throws {
        let tune = try Self.start()
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        let host = "Host: 127.0.0.1:\(port)"
        let origin = "Origin: http://127.0.0.1:\(port)"
        let post = "POST /api/command?token=\(token) HTTP/1.1"
        let cases: [(String, String, Int)] = [
            ("two Hosts, the wrong one first", "GET /api/info?token=\(token) HTTP/1.1\r\nHost: evil.example\r\n\(host)\r\n\r\n", 400),
            ("two Hosts, the right one first", "GET /api/info?token=\(token) HTTP/1.1\r\n\(host)\r\nHost: evil.example\r\n\r\n", 400),
            ("no Host", "GET /api/info?token=\(token) HTTP/1.1\r\n\r\n", 400),
            ("two Origins", "\(post)\r\n\(host)\r\nOrigin: http://evil.example\r\n\(origin)\r\nContent-Length: 2\r\n\r\n{}", 400),
            ("two different Content-Lengths", "\(post)\r\n\(host)\r\n\(origin)\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}", 400),
            ("two equal Content-Lengths", "\(post)\r\n\(host)\r\n\(origin)\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 400),
            ("Content-Length with Transfer-Encoding",
             "\(post)\r\n\(host)\r\n\(origin)\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400),
            ("a chunked body", "\(post)\r\n\(host)\r\n\(origin)\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 411),
            ("an absolute target naming another host", "GET http://evil.example/api/info?token=\(token) HTTP/1.1\r\n\(host)\r\n\r\n", 400),
            ("an absolute target naming another port",
             "GET http://127.0.0.1:\(port + 1)/api/info?token=\(token) HTTP/1.1\r\n\(host)\r\n\r\n", 400),
            ("a request line that is not HTTP", "HELLO\r\n\r\n", 400),
        ]
        for (what, request, status) in cases {
            // No `Connection: close` in these requests: the server must close by itself.
            let connection = try RawConnection(port: port, timeout: 20)
            connection.send(request)
            let started = Date()
            let answer = try RawHTTP.parse(connection.readToEnd())
            #expect(answer.status == status, "\(what): \(answer.status) \(answer.text)")
            #expect(answer.headers["connection"] == "close", "\(what)")
            #expect(Date().timeIntervalSince(started) < 15, "\(what): the connection was closed after the answer")
        }
        // Its own address in the absolute form is a request like any other.
        let own = try RawHTTP.send(port: port, "GET http://127.0.0.1:\(port)/api/info?token=\(token) HTTP/1.1\r\n\(host)\r\nConnection: close\r\n\r\n")
        #expect(own.status == 200)
        #expect(try RawHTTP.get(port: port, "/api/info?token=\(token)").status == 200, "still serving")
    }

    @Test("limits: headers over 16 KB 431, a 256 KB unfinished header line costs no CPU, a body over 64 KB 413 before any of it is sent, the 65th connection 503", .hangGuard)
    func limits() throws {
        let tune = try Self.start()
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        let host = "Host: 127.0.0.1:\(port)"

        let long = try RawHTTP.get(port: port, "/api/info?token=\(token)", extra: ["X-Padding: " + String(repeating: "a", count: 17 * 1024)])
        #expect(long.status == 431, "\(long.status)")
        let many = try RawHTTP.get(port: port, "/api/info?token=\(token)", extra: (0..<200).map { "X-\($0): \(String(repeating: "b", count: 90))" })
        #expect(many.status == 431 || many.status == 400, "\(many.status)")
        let within = try RawHTTP.get(port: port, "/api/info?token=\(token)", extra: ["X-Padding: " + String(repeating: "a", count: 12 * 1024)])
        #expect(within.status == 200, "headers of 12 KB are served")

        // A request line that never ends, sent as fast as the socket takes it: refused at 16 KB, so the server
        // spends next to nothing however much more comes.
        let pid = tune.process.processIdentifier
        let before = try Self.cpuSeconds(pid)
        let endless = try RawConnection(port: port, timeout: 10)
        endless.send("GET /" + String(repeating: "a", count: 256 * 1024))
        let refused = try RawHTTP.parse(endless.readToEnd())
        usleep(500_000)
        let spent = try Self.cpuSeconds(pid) - before
        print("CPU spent on a 256 KB unfinished request line: \(spent) s")
        #expect(refused.status == 431 || refused.status == 400, "\(refused.status)")
        #expect(spent <= 0.5, "\(spent) CPU-s")

        // A body announced at 10 MB: refused on its Content-Length, without the client sending a byte of it.
        let big = try RawConnection(port: port, timeout: 10)
        big.send("POST /api/command?token=\(token) HTTP/1.1\r\n\(host)\r\nOrigin: http://127.0.0.1:\(port)\r\n"
                 + "Content-Type: application/json\r\nContent-Length: 10000000\r\n\r\n")
        let tooLarge = try RawHTTP.parse(big.readToEnd())
        #expect(tooLarge.status == 413 && tooLarge.headers["connection"] == "close", "\(tooLarge.status)")

        // 64 connections open at once, doing nothing: the next one is told 503 and closed; once they are gone,
        // the page is served again.
        var open = try (0..<64).map { _ in try RawConnection(port: port, timeout: 10) }
        usleep(300_000)
        let extra = try RawHTTP.get(port: port, "/api/info?token=\(token)")
        #expect(extra.status == 503, "\(extra.status)")
        open.removeAll()
        usleep(300_000)
        #expect(try RawHTTP.get(port: port, "/api/info?token=\(token)").status == 200)
    }

    @Test("an idle connection and a slow (slowloris) request are closed within 15 s", .hangGuard)
    func slowPeers() throws {
        let tune = try Self.start()
        defer { tune.stop() }
        let port = tune.port
        let idle = try RawConnection(port: port, timeout: 30)
        let slow = try RawConnection(port: port, timeout: 30)
        let started = Date()
        // One byte of headers every half second: never a whole request.
        let trickle = Thread {
            let bytes = Array("GET /api/info HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "z"), count: 60)
            for b in bytes where slow.send(Data([b])) { usleep(500_000) }
        }
        trickle.start()
        #expect(idle.waitForClose(), "the idle connection is closed")
        let idleAfter = Date().timeIntervalSince(started)
        #expect(slow.waitForClose(), "the slow request is closed")
        let slowAfter = Date().timeIntervalSince(started)
        print("closed after: idle \(idleAfter) s, slow headers \(slowAfter) s")
        #expect(idleAfter <= 15 && slowAfter <= 15)
        #expect(try RawHTTP.get(port: port, "/api/info?token=\(tune.token)").status == 200, "still serving")
    }

    @Test("every number of every endpoint: 1e300, -1e300, NaN and 1e19 are 400, and the server goes on",
          .hangGuard)
    func hostileNumbers() throws {
        let dir = try Oracle.scratch()
        let tune = try Self.start(output: dir + "/tuned.mov")
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        let origin = "http://127.0.0.1:\(port)"
        let values = ["1e300", "-1e300", "NaN", "1e19"]
        var answers: [(String, Int)] = []
        for value in values {
            for (path, parameters) in [("/api/picture", ["t", "threshold", "smoothing", "captions"]), ("/api/pick", ["t", "x", "y"]), ("/api/screen", ["layer"])] {
                for name in parameters {
                    var query = ["t": "1", "x": "10", "y": "10"]
                    // The key's numbers go in the key's JSON, as the page sends them; a caption file's place in its list.
                    if name == "threshold" || name == "smoothing" { query["key"] = #"{"\#(name)":\#(value)}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) }
                    else if name == "captions" { query[name] = #"[{"index":\#(value),"lang":"","title":""}]"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics) }
                    else { query[name] = value }
                    let text = query.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
                    answers.append(("GET \(path) \(name)=\(value)", try RawHTTP.get(port: port, "\(path)?token=\(token)&\(text)").status))
                }
            }
            let plain = #"{"key": {"key-color": "00FF00", "threshold": 0.4, "smoothing": 0.1}}"#
            answers.append(("POST /api/audition t=\(value)",
                            try RawHTTP.post(port: port, "/api/audition?token=\(token)&t=\(value)", json: plain, origin: origin).status))
            let bodies = [#""threshold": V, "smoothing": 0.1}"#, #""threshold": 0.4, "smoothing": V}"#,
                          #""threshold": 0.4, "smoothing": 0.1}, "gain": {"fx:1": V}"#,
                          #""threshold": 0.4, "smoothing": 0.1}, "offset": {"base": V}"#,
                          #""threshold": 0.4, "smoothing": 0.1}, "loudness": V"#,
                          #""threshold": 0.4, "smoothing": 0.1}, "duck": {"fx": V}"#,
                          #""threshold": 0.4, "smoothing": 0.1}, "captions": [{"index": V, "lang": "", "title": ""}]"#]
            for body in bodies {
                let json = #"{"key": {"key-color": "00FF00", "# + body.replacingOccurrences(of: "V", with: value) + "}"
                for path in ["/api/command", "/api/render", "/api/audition?t=1"] {
                    let target = path + (path.contains("?") ? "&" : "?") + "token=\(token)"
                    answers.append(("POST \(path) \(json)", try RawHTTP.post(port: port, target, json: json, origin: origin).status))
                }
            }
        }
        #expect(answers.count == 4 * (8 + 1 + 21))
        for (what, status) in answers { #expect(status == 400, "\(what): \(status)") }
        #expect(try RawHTTP.get(port: port, "/api/info?token=\(token)").status == 200, "still serving")
        #expect(tune.process.isRunning)
        let started = try Oracle.listing(dir)
        #expect(started.isEmpty, "no render was started: \(started)")
    }

    @Test("killed in the middle of a render, the server leaves a temporary file that its next start removes",
          .hangGuard)
    func killedMidRender() throws {
        let dir = try Oracle.scratch()
        let base = dir + "/long-base.mov"
        let made = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x240:r=25:d=30", "-f", "lavfi", "-i",
                                      "sine=f=660:r=48000:d=30", "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", base])
        try #require(made.status == 0, "\(made.stderr)")
        let output = dir + "/tuned.mov"
        let arguments = [Oracle.fixture("fx.mov"), base, "-o", output]
        let first = try TuneProcess(arguments)
        let settings = #"{"key": {"key-color": "00FF00", "threshold": 0.4, "smoothing": 0.1}}"#
        let started = try RawHTTP.post(port: first.port, "/api/render?token=\(first.token)", json: settings,
                                       origin: "http://127.0.0.1:\(first.port)")
        try #require(started.status == 202, "\(started.text)")
        let deadline = Date().addingTimeInterval(30)
        while try !Oracle.listing(dir).contains(where: { $0.hasSuffix(".tmp") }) && Date() < deadline { usleep(10_000) }
        first.stop(SIGKILL)
        let left = try Oracle.listing(dir).filter { $0.hasSuffix(".tmp") }
        try #require(left.count == 1 && left[0].hasPrefix(".tuned.mov.mixwrite-"), "a killed render leaves its file: \(left)")

        let second = try TuneProcess(arguments)
        let after = try Oracle.listing(dir)
        #expect(after == ["long-base.mov"], "the next start removed it: \(after)")
        // A temporary file of a process that is still running is not touched.
        // `.tuned.mov.mixwrite-HOST-PID-N.tmp` (the host's name may have dashes of its own).
        let prefix = left[0].split(separator: "-", omittingEmptySubsequences: false).dropLast(2).joined(separator: "-")
        let live = dir + "/\(prefix)-\(second.process.processIdentifier)-1.tmp"
        #expect(FileManager.default.createFile(atPath: live, contents: Data("in use".utf8)))
        let again = try RawHTTP.post(port: second.port, "/api/render?token=\(second.token)", json: settings,
                                     origin: "http://127.0.0.1:\(second.port)")
        #expect(again.status == 202, "\(again.text)")
        var state: [String: Any] = [:]
        for _ in 0..<1200 {
            state = try RawHTTP.get(port: second.port, "/api/render?token=\(second.token)").json
            if state["state"] as? String != "running" { break }
            usleep(100_000)
        }
        #expect(state["state"] as? String == "done", "\(state)")
        #expect(second.stop(SIGTERM).status == 0)
        #expect(Set(try Oracle.listing(dir)) == ["long-base.mov", "tuned.mov", live.split(separator: "/").last.map(String.init)!])
    }

    @Test("the mix table starts at the command line's gains and offsets, track by track; the page's command renders what it shows, defaults left out",
          .hangGuard)
    func mixTableTellsTheTruth() throws {
        let dir = try Oracle.scratch()
        let tune = try Self.start(["--audio", Oracle.fixture("tone.m4a"), "--gain", "audio1=-9", "--gain", "fx=-4", "--gain", "fx:2=-2",
                                   "--offset", "fx=0.25", "--mute", "base"], output: dir + "/tuned.mov")
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        let info = try RawHTTP.get(port: port, "/api/info?token=\(token)").json
        let settings = try #require(info["settings"] as? [String: Any])
        let gains = settings["gain"] as? [String: Double] ?? [:]
        #expect(gains == ["audio1:1": -9, "fx:1": -4, "fx:2": -6], "a source's gain on each of its tracks, added to the track's own: \(gains)")
        #expect(settings["offset"] as? [String: Double] == ["fx:1": 0.25, "fx:2": 0.25])
        #expect(settings["mute"] as? [String] == ["base:1"])

        // The fader of audio1:1 moved to -3 (the page sends every track's value, as it shows them).
        var moved = settings
        moved["gain"] = ["audio1:1": -3.0, "fx:1": -4.0, "fx:2": -6.0]
        let body = String(decoding: try JSONSerialization.data(withJSONObject: moved), as: UTF8.self)
        let answer = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: body, origin: "http://127.0.0.1:\(port)")
        try #require(answer.status == 200, "\(answer.text)")
        let command = try #require(answer.json["command"] as? String)
        print("the page's command: \(command)")
        #expect(command.contains("--gain audio1=-3") && !command.contains("=-9"), "\(command)")
        #expect(!command.contains("--key-color") && !command.contains("--threshold") && !command.contains("--smoothing"),
                "defaults are left out: \(command)")

        // Run as printed, with --json: every track's gain and offset is what the page showed.
        let run = try Oracle.run("/bin/sh", ["-c", "mixwrite() { '\(Oracle.mixwrite)' \"$@\"; }; \(command) --json -q"])
        try #require(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: run.stdout) as? [String: Any]
        let sources = (report?["audio"] as? [String: Any])?["sources"] as? [[String: Any]] ?? []
        let rendered = Dictionary(uniqueKeysWithValues: sources.map {
            ("\($0["label"] as? String ?? ""):\($0["track"] as? Int ?? 0)", ($0["gainDB"] as? Double ?? .nan, $0["offsetSeconds"] as? Double ?? .nan))
        })
        #expect(rendered.count == 3, "base muted: \(rendered.keys.sorted())")
        #expect(rendered["audio1:1"]?.0 == -3 && rendered["fx:1"]?.0 == -4 && rendered["fx:2"]?.0 == -6, "\(rendered)")
        #expect(rendered["fx:1"]?.1 == 0.25 && rendered["fx:2"]?.1 == 0.25 && rendered["audio1:1"]?.1 == 0, "\(rendered)")
    }
}
