import Foundation
import Testing
import TestSupport

/// `--tune` on concat, still, remix and render, in headless chromium: the page of each kind drawn, changed as a person
/// would, and the command it shows run in a shell: the movie it writes shows what the page showed.
@Suite("tune: the concat, still and remix pages in headless chromium")
struct TuneKindsTests {
    /// The page's command run in a shell (its `mixwrite` this build's), replacing its output, with `--json`: the report.
    static func runCommand(_ command: String) throws -> [String: Any] {
        #expect(command.hasPrefix("mixwrite "), "\(command)")
        let r = try Oracle.run("/bin/sh", ["-c", Oracle.mixwrite + command.dropFirst("mixwrite".count) + " -y -q --json"], timeout: 300)
        try #require(r.status == 0, "\(command): \(r.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
    }

    /// The output's picture at `t` as ffmpeg decodes it (an exact seek), against the page's picture: luma PSNR.
    static func psnr(page: String, movie: String, at t: Double, scratch dir: String) throws -> Double {
        let png = dir + "/decoded-\(t).png"
        let r = try Oracle.ffmpeg(["-v", "error", "-y", "-ss", String(t), "-i", movie, "-frames:v", "1", png])
        try #require(r.status == 0, "\(r.stderr)")
        return Oracle.psnr(try Oracle.decodeRGB(page, extraFilters: "format=gray").frames[0],
                           try Oracle.decodeRGB(png, extraFilters: "format=gray").frames[0].map(Double.init))
    }

    static func set(_ browser: Browser, _ id: String, _ value: String, event: String = "input") throws {
        _ = try browser.script("""
            const e = document.getElementById('\(id)'); e.value = '\(value)'; e.dispatchEvent(new Event('\(event)')); return 0
            """)
    }

    /// The page's audition made (its button clicked), its picture at `seconds` into it against `movie`'s at `t`: the
    /// audition's length and the luma PSNR.
    static func audition(_ browser: Browser, at seconds: Double, against movie: String, at t: Double,
                         scratch dir: String) throws -> (duration: Double, psnr: Double) {
        try browser.call("POST", "/session/\(browser.session)/element/\(try browser.element("auditionButton"))/click", "{}")
        _ = try browser.waitFor("return window.mwAudition || document.getElementById('status').textContent") { $0 is NSNumber }
        let duration = (try browser.script("return document.getElementById('audition').duration") as? NSNumber)?.doubleValue ?? 0
        _ = try browser.script("""
            const v = document.getElementById('audition'); v.pause(); v.dataset.seeked = "";
            v.onseeked = () => { v.dataset.seeked = "1"; }; v.currentTime = \(seconds); return 0
            """)
        _ = try browser.waitFor("return document.getElementById('audition').dataset.seeked") { $0 as? String == "1" }
        _ = try browser.canvasPNG(of: "audition", into: dir + "/audition.png")
        return (duration, try psnr(page: dir + "/audition.png", movie: movie, at: t, scratch: dir))
    }

    static func command(_ browser: Browser, containing text: String) throws -> String {
        let c = try browser.waitFor("return document.getElementById('command').value") { ($0 as? String)?.contains(text) == true }
        return c as? String ?? ""
    }

    @Test("concat: each clip's picture, the timeline, a reorder and a removal; the picture at T and the command's movie agree; the audition across a boundary",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func concatPage() throws {
        let dir = try Oracle.scratch("tune-concat")
        let (fx, base, edges) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), Oracle.fixture("edges.mov"))
        let tune = try TuneProcess(command: ["concat", fx, base, edges, "-o", dir + "/c.mp4", "--tune", "-q"])
        defer { tune.stop() }
        let browser = try Browser(width: 1400, height: 1000)
        defer { browser.quit() }
        try browser.open(tune.url)
        _ = try browser.waitForPictures(atLeast: 1)
        #expect(try browser.script("return document.title") as? String == "mixwrite tune: concat")
        // Every clip by its name with its own picture drawn; a block a clip on the timeline; a fader a track.
        let clips = try browser.waitFor("""
            return [...document.querySelectorAll('.clip')].map(c => c.querySelector('.name').textContent + '|' +
                c.querySelector('img').naturalWidth)
            """) { ($0 as? [String])?.allSatisfy { $0.hasSuffix("|320") } == true }
        #expect(clips as? [String] == ["1. fx.mov|320", "2. base.mov|320", "3. edges.mov|320"], "\(clips ?? "")")
        #expect((try browser.script("return document.getElementById('timeline').children.length") as? NSNumber)?.intValue == 3)
        #expect((try browser.script("return document.querySelectorAll('#mix tr[data-track]').length") as? NSNumber)?.intValue == 3)
        #expect(try browser.script("const k = document.getElementById('keyControls'); return k.children.length === 0 && k.offsetParent === null") as? Bool == true,
                "no key on a concat's page")

        // fx.mov moved down (base.mov first), edges.mov removed: the timeline and the command follow.
        _ = try browser.script("document.querySelector('.clip[data-clip=\"0\"] [data-move=\"1\"]').click(); return 0")
        _ = try browser.waitFor("return document.querySelector('.clip .name').textContent") { $0 as? String == "1. base.mov" }
        _ = try browser.script("document.querySelector('.clip[data-clip=\"2\"] [data-remove]').click(); return 0")
        let command = try Self.command(browser, containing: "concat \(base) \(fx) -o")
        #expect(!command.contains("edges.mov"), "\(command)")
        let pieces = try browser.waitFor("return document.getElementById('timeline').children.length") { ($0 as? NSNumber)?.intValue == 2 }
        #expect((pieces as? NSNumber)?.intValue == 2)

        // The picture at 2.5 s (inside fx.mov, now second) as the page draws it, and the command's movie there.
        try Self.set(browser, "t", "2.5")
        _ = try browser.waitForPictures(atLeast: 2, source: "t=2.5")
        _ = try browser.picturePNG(into: dir + "/page.png")
        let report = try Self.runCommand(command)
        let timeline = try #require(report["timeline"] as? [String: Any])
        let starts = (timeline["clips"] as? [[String: Any]] ?? []).map { ($0["start"] as? NSNumber)?.doubleValue ?? -1 }
        let shown = try browser.script("return window.mwInfo.pieces.map(p => p.start)") as? [NSNumber]
        #expect(starts == (shown ?? []).map(\.doubleValue) && starts == [0, 2], "the report's timeline is the page's: \(starts)")
        let psnr = try Self.psnr(page: dir + "/page.png", movie: dir + "/c.mp4", at: 2.5, scratch: dir)
        print("concat page picture at 2.5 s vs the command's movie: luma PSNR \(psnr) dB")
        #expect(psnr >= 35, "the page shows what the command writes")

        // The audition around 2 s crosses the boundary: 1 s of base.mov, then fx.mov; its picture 1.52 s in is the movie's at
        // 2.52 s (inside a frame: at a frame's very start a browser may still show the one before).
        try Self.set(browser, "t", "2")
        let (duration, heard) = try Self.audition(browser, at: 1.52, against: dir + "/c.mp4", at: 2.52, scratch: dir)
        #expect(abs(duration - 3) < 0.05, "3 s: \(duration)")
        print("concat audition's picture 1.52 s in vs the movie at 2.52 s: luma PSNR \(heard) dB")
        #expect(heard >= 30, "the audition is the render's, across the boundary")
        try browser.screenshot(into: dir + "/concat-page.png")
    }

    @Test("concat: a transition chosen at a boundary (kind and length): the timeline shows it, the command says it, the picture inside it is the command's movie's, the audition across it the render's",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func concatTransitionPage() throws {
        let dir = try Oracle.scratch("tune-concat-transition")
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        let tune = try TuneProcess(command: ["concat", base, fx, "-o", dir + "/c.mp4", "--tune", "-q"])
        defer { tune.stop() }
        let browser = try Browser(width: 1400, height: 1000)
        defer { browser.quit() }
        try browser.open(tune.url)
        _ = try browser.waitForPictures(atLeast: 1)
        #expect(try browser.script("return document.querySelector('.boundary select').value") as? String == "cut")
        _ = try browser.script("""
            const row = document.querySelector('.boundary'), kind = row.querySelector('select'), length = row.querySelector('input');
            kind.value = 'wipeleft'; kind.dispatchEvent(new Event('change'));
            length.value = '0.8'; length.dispatchEvent(new Event('change')); return 0
            """)
        let command = try Self.command(browser, containing: "--transition wipeleft:0.8")
        // 2 + 2 s less the 0.8 s they share.
        _ = try browser.waitFor("return window.mwInfo.duration") { ($0 as? NSNumber)?.doubleValue == 3.2 }
        #expect((try browser.script("return document.querySelectorAll('#timeline .crossing').length") as? NSNumber)?.intValue == 1)
        // A length the job file's reader refuses: said in its words, the last good one put back.
        _ = try browser.script("""
            const length = document.querySelector('.boundary input'); length.value = '0'; length.dispatchEvent(new Event('change')); return 0
            """)
        _ = try browser.waitFor("return document.getElementById('status').textContent") { ($0 as? String)?.contains("more than 0") == true }
        _ = try browser.waitFor("return document.querySelector('.boundary input').value") { $0 as? String == "0.8" }

        // Inside the wipe (1.2 … 2 s): the page's picture is the command's movie's.
        try Self.set(browser, "t", "1.6")
        _ = try browser.waitForPictures(atLeast: 2, source: "t=1.6")
        _ = try browser.picturePNG(into: dir + "/page.png")
        let report = try Self.runCommand(command)
        let clips = (report["timeline"] as? [String: Any])?["clips"] as? [[String: Any]] ?? []
        #expect(clips.map { $0["transition"] as? String } == [nil, "wipeleft:0.8"], "\(clips)")
        let psnr = try Self.psnr(page: dir + "/page.png", movie: dir + "/c.mp4", at: 1.6, scratch: dir)
        print("concat page picture inside the wipe vs the command's movie: luma PSNR \(psnr) dB")
        #expect(psnr >= 35, "the page shows what the command writes")

        // The audition around 1.6 s crosses the wipe: its 3 s end with the movie's, from 0.2 s, so 1.41 s into it shows
        // the movie's frame at 1.6 s (inside the frame: at its very start a browser may still show the one before).
        let heard = try Self.audition(browser, at: 1.41, against: dir + "/c.mp4", at: 1.6, scratch: dir).psnr
        print("concat audition inside the wipe vs the movie: luma PSNR \(heard) dB")
        #expect(heard >= 30, "the audition is the render's, across the transition")
        try browser.screenshot(into: dir + "/concat-transition-page.png")
    }

    @Test("concat: a clip's own time typed on the page (speed=2): the timeline and the command follow, the picture at T is the command's movie's; one the reader refuses is said and put back",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func concatRetimePage() throws {
        let dir = try Oracle.scratch("tune-concat-retime")
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        let tune = try TuneProcess(command: ["concat", base, fx + ":reverse", "-o", dir + "/c.mp4", "--tune", "-q"])
        defer { tune.stop() }
        let browser = try Browser(width: 1400, height: 1000)
        defer { browser.quit() }
        try browser.open(tune.url)
        _ = try browser.waitForPictures(atLeast: 1)
        let shown = try browser.script("return [...document.querySelectorAll('.clip .retime')].map(e => e.value)") as? [String]
        #expect(shown == ["", "reverse"], "the command line's own times: \(shown ?? [])")
        func type(_ clip: Int, _ text: String) throws {
            _ = try browser.script("""
                const e = document.querySelector('.clip[data-clip="\(clip)"] .retime'); e.value = '\(text)'; e.dispatchEvent(new Event('change')); return 0
                """)
        }
        try type(1, "speed=2:reverse")
        let command = try Self.command(browser, containing: "\(fx):speed=2:reverse")
        // 2 s of base, then fx's 2 s at twice the speed.
        _ = try browser.waitFor("return window.mwInfo.duration") { ($0 as? NSNumber)?.doubleValue == 3 }
        try type(1, "speed=0")
        _ = try browser.waitFor("return document.getElementById('status').textContent") { ($0 as? String)?.contains("freeze=S holds") == true }
        _ = try browser.waitFor("return document.querySelector('.clip[data-clip=\"1\"] .retime').value") { $0 as? String == "speed=2:reverse" }

        try Self.set(browser, "t", "2.5")
        _ = try browser.waitForPictures(atLeast: 2, source: "t=2.5")
        _ = try browser.picturePNG(into: dir + "/page.png")
        let report = try Self.runCommand(command)
        let clips = (report["timeline"] as? [String: Any])?["clips"] as? [[String: Any]] ?? []
        #expect(clips.map { ($0["speed"] as? NSNumber)?.doubleValue ?? 1 } == [1, -2], "\(clips)")
        let psnr = try Self.psnr(page: dir + "/page.png", movie: dir + "/c.mp4", at: 2.5, scratch: dir)
        print("concat page picture inside a clip at 2× reversed vs the command's movie: luma PSNR \(psnr) dB")
        #expect(psnr >= 35, "the page shows what the command writes")
    }

    @Test("still: its sound tracks named with their files; the picture framed as the size, fit and background say; the command's movie shows it",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func stillPage() throws {
        let dir = try Oracle.scratch("tune-still")
        let image = dir + "/card.png"
        try #require(try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=400x300", "-frames:v", "1", image]).status == 0)
        let tune = try TuneProcess(command: ["still", image, Oracle.fixture("tone.m4a"), "-o", dir + "/s.mp4", "--tune", "-q"])
        defer { tune.stop() }
        let browser = try Browser(width: 1400, height: 1000)
        defer { browser.quit() }
        try browser.open(tune.url)
        let first = try browser.waitForPictures(atLeast: 1)
        #expect((try browser.script("return document.getElementById('picture').naturalWidth") as? NSNumber)?.intValue == 400)
        // Each sound track names its file beside it.
        let row = try browser.script("return document.getElementById('mix').rows[1].cells[0].textContent") as? String
        #expect(row == "audio1:1tone.m4a", "\(row ?? "")")
        // A square frame with red bars: the picture made again at 320×320.
        try Self.set(browser, "size", "320x320")
        try Self.set(browser, "background", "FF0000")
        _ = try browser.waitForPictures(atLeast: first + 1, source: "background=FF0000")
        let size = try browser.waitFor("""
            const i = document.getElementById('picture'); return i.naturalWidth + 'x' + i.naturalHeight
            """) { $0 as? String == "320x320" }
        #expect(size as? String == "320x320")
        _ = try browser.picturePNG(into: dir + "/page.png")
        let rgb = try Oracle.decodeRGB(dir + "/page.png").frames[0]
        #expect(rgb[0] > 200 && rgb[1] < 60 && rgb[2] < 60, "the bar at the top is red: \(rgb[0...2])")
        let command = try Self.command(browser, containing: "--background FF0000")
        #expect(command.contains("--size 320x320"), "\(command)")
        _ = try Self.runCommand(command)
        let psnr = try Self.psnr(page: dir + "/page.png", movie: dir + "/s.mp4", at: 0.5, scratch: dir)
        print("still page picture vs the command's movie: luma PSNR \(psnr) dB")
        #expect(psnr >= 35)
    }

    @Test("remix: the movie's picture at T as it is; a track muted; the audition its sound; the command's movie keeps the video",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func remixPage() throws {
        let dir = try Oracle.scratch("tune-remix")
        let movie = Oracle.fixture("fx.mov")
        let tune = try TuneProcess(command: ["remix", movie, "--audio", Oracle.fixture("tone.m4a"), "-o", dir + "/r.mov", "--tune", "-q"])
        defer { tune.stop() }
        let browser = try Browser(width: 1400, height: 1000)
        defer { browser.quit() }
        try browser.open(tune.url)
        _ = try browser.waitForPictures(atLeast: 1)
        #expect((try browser.script("return document.querySelectorAll('#mix tr[data-track]').length") as? NSNumber)?.intValue == 3)
        let t = try #require(try browser.script("return document.getElementById('t').value") as? String)
        _ = try browser.picturePNG(into: dir + "/page.png")
        let psnr = try Self.psnr(page: dir + "/page.png", movie: movie, at: Double(t) ?? 0, scratch: dir)
        print("remix page picture at \(t) s vs the movie itself: luma PSNR \(psnr) dB")
        #expect(psnr >= 35, "the movie's own picture")

        _ = try browser.script("document.querySelector('#mix tr[data-track=\"movie:2\"] input[type=checkbox]').click(); return 0")
        let command = try Self.command(browser, containing: "--mute movie:2")
        try browser.call("POST", "/session/\(browser.session)/element/\(try browser.element("auditionButton"))/click", "{}")
        _ = try browser.waitFor("return window.mwAudition || document.getElementById('status').textContent") { $0 is NSNumber }
        let played = try browser.script("const v = document.getElementById('audition'); return [v.duration, v.videoWidth]") as? [NSNumber]
        #expect(abs((played?.first?.doubleValue ?? 0) - 2) < 0.05 && played?.last?.intValue == 0, "2 s of sound, no picture: \(played ?? [])")

        let report = try Self.runCommand(command)
        let sources = ((report["audio"] as? [String: Any])?["sources"] as? [[String: Any]] ?? []).map { "\($0["label"] ?? ""):\($0["track"] ?? "")" }
        #expect(sources == ["movie:1", "audio1:1"], "movie:2 muted: \(sources)")
        let written = try Oracle.probe(dir + "/r.mov"), given = try Oracle.probe(movie)
        #expect(written.video.first?.frames == given.video.first?.frames && written.video.first?.codec == given.video.first?.codec,
                "the video copied")
        #expect(written.audio.count == 1)
    }

    @Test("the concat server's guards: token, Host and Origin as the blend's; its own parameters checked (400), the output among the clips refused at start",
          .hangGuard)
    func concatGuards() throws {
        let dir = try Oracle.scratch("tune-concat-guards")
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        let tune = try TuneProcess(command: ["concat", fx, base, "-o", dir + "/c.mp4", "--tune", "-q"])
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        #expect(try RawHTTP.get(port: port, "/api/info").status == 403)
        #expect(try RawHTTP.get(port: port, "/api/info?token=\(token)", host: "evil.example:\(port)").status == 403)
        let settings = #"{"clips": [1, 0], "fit": "fill"}"#
        #expect(try RawHTTP.post(port: port, "/api/command?token=\(token)", json: settings, origin: "http://evil.example").status == 403)
        let ok = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: settings, origin: "http://127.0.0.1:\(port)")
        #expect(ok.status == 200 && (ok.json["command"] as? String)?.contains("concat \(base) \(fx) -o") == true, "\(ok.text)")
        for (query, words) in [("t=1&clips=0,0", "at most once"), ("t=1&clips=0,7", "at most once"), ("t=1&clips=a", "numbers"),
                               ("t=1&clips=", "at least one clip"), ("t=1&fit=squash", "'fit' 'squash' is not one of"),
                               ("t=1&size=big", "'size' must be WIDTHxHEIGHT"), ("t=1&size=8x8", "--size must be between"),
                               ("t=1&fps=fast", "'fps' must be a frame rate"), ("t=1&background=FF0000", "'background' is not an option of a concat job"), ("t=9", "t must be between 0 and 4"),
                               ("t=1&clip=5", "clip 5 is not in the movie"), ("t=1&clips=1&clip=0", "clip 0 is not in the movie"),
                               ("t=1&transitions=spin", "'spin' is not a transition"), ("t=1&transitions=fade:0", "more than 0"),
                               ("t=1&transitions=fade:5", "longer than clip 1"), ("t=1&retimes=%5B1%5D", "retimes must be a JSON array"),
                               ("t=1&retimes=%5B%22%22%5D", "each of the 2 clips"), ("t=1&retimes=%5B%22%22,%22speed=-1%22%5D", "`reverse`"),
                               ("t=1&retimes=%5B%22%22,%22spin%22%5D", "is not its own time")] {
            let r = try RawHTTP.get(port: port, "/api/picture?token=\(token)&\(query)")
            #expect(r.status == 400 && (r.json["error"] as? String)?.contains(words) == true, "\(query): \(r.status) \(r.text)")
        }
        // Good requests: the output's picture reordered and cropped, a clip's own, its timeline (JPEG and JSON).
        for query in ["t=1.5&clips=1,0&fit=fill&size=320x320", "t=0.5&clip=1&clips=1,0&fit=fill&size=320x320", "t=3.9&fps=10"] {
            let r = try RawHTTP.get(port: port, "/api/picture?token=\(token)&\(query)")
            #expect(r.status == 200 && r.body.starts(with: [0xFF, 0xD8]), "\(query): \(r.status)")
        }
        let layout = try RawHTTP.get(port: port, "/api/info?token=\(token)&clips=1&size=320x320")
        #expect(layout.status == 200 && layout.json["width"] as? Int == 320 && layout.json["duration"] as? Double == 2, "\(layout.text)")
        let pick = try RawHTTP.get(port: port, "/api/pick?token=\(token)&t=1&x=1&y=1")
        #expect(pick.status == 400, "no key colour on a concat: \(pick.text)")
        // The page's transition at each boundary, read as the job file's transition-at, written as briefly as it renders.
        let three = try TuneProcess(command: ["concat", fx, base, fx, "-o", dir + "/c3.mp4", "--tune", "-q"])
        defer { three.stop() }
        for (given, says, never) in [(#"["cut", "fade:0.5"]"#, "--transition-at 2=fade:0.5", "--transition-at 1"),
                                     (#"["fade:0.5", "fade:0.5"]"#, "--transition fade:0.5", "--transition-at")] {
            let r = try RawHTTP.post(port: three.port, "/api/command?token=\(three.token)", json: #"{"transitions": \#(given)}"#,
                                     origin: "http://127.0.0.1:\(three.port)")
            let command = r.json["command"] as? String ?? ""
            #expect(r.status == 200 && command.contains(says) && !command.contains(never), "\(given): \(r.text)")
        }
        // -o naming a clip: refused before anything listens.
        let refused = try Oracle.mixwrite(["concat", fx, base, "-o", base, "--tune"], timeout: 60)
        #expect(refused.status == 3 && refused.stderr.contains("is also an input"), "\(refused.status) \(refused.stderr)")
    }

    @Test("a source placed by its sound (--offset audio1=auto): the page's offset says auto, kept through its mix until it gives seconds",
          .hangGuard)
    func autoOffsetKept() throws {
        let dir = try Oracle.scratch("tune-auto-offset")
        // The same bursts of noise twice, the second a second later: audio1 is found a second in.
        let noise = dir + "/noise.wav", later = dir + "/later.wav"
        let bursts = "anoisesrc=d=4:r=48000:a=0.3:seed=3,volume='0.1+0.9*gt(sin(2*PI*t*1.3)*sin(2*PI*t*0.37+1),0)':eval=frame"
        for (path, filter) in [(noise, "anull"), (later, "adelay=1000:all=1")] {
            let r = try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", bursts, "-af", filter, path])
            try #require(r.status == 0, "\(r.stderr)")
        }
        let tune = try TuneProcess(command: ["remix", later, "--audio", noise, "--offset", "audio1=auto", "-o", dir + "/mixed.m4a", "--tune", "-q"])
        defer { tune.stop() }
        let (port, token, origin) = (tune.port, tune.token, "http://127.0.0.1:\(tune.port)")
        // The page's settings, as it is given them: the track's offset "auto".
        let info = try RawHTTP.get(port: port, "/api/info?token=\(token)")
        let offsets = (info.json["settings"] as? [String: Any])?["offset"] as? [String: Any]
        #expect(offsets?["audio1:1"] as? String == "auto", "\(info.text)")
        let kept = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: #"{"gain": {"movie": -6}, "offset": {"audio1:1": "auto"}}"#,
                                    origin: origin)
        let words = kept.json["command"] as? String ?? ""
        #expect(words.contains("--offset audio1=auto") && words.contains("--gain movie=-6"), "\(kept.text)")
        let given = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: #"{"offset": {"audio1": 1.5}}"#, origin: origin)
        let now = given.json["command"] as? String ?? ""
        #expect(now.contains("--offset audio1=1.5") && !now.contains("=auto"), "\(given.text)")
    }

    @Test("remix of a sound-only file: the page's mix without a picture (400 says so), its audition sound, its command",
          .hangGuard)
    func soundOnlyRemix() throws {
        let dir = try Oracle.scratch("tune-sound-only")
        let tune = try TuneProcess(command: ["remix", Oracle.fixture("tone.m4a"), "--audio", Oracle.fixture("fx.mov"),
                                            "-o", dir + "/mixed.m4a", "--tune", "-q"])
        defer { tune.stop() }
        let (port, token) = (tune.port, tune.token)
        let info = try RawHTTP.get(port: port, "/api/info?token=\(token)")
        #expect(info.status == 200 && info.json["width"] as? Int == 0 && info.json["kind"] as? String == "remix", "\(info.text)")
        #expect((info.json["tracks"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["movie:1", "audio1:1", "audio1:2"])
        let picture = try RawHTTP.get(port: port, "/api/picture?token=\(token)&t=1")
        #expect(picture.status == 400 && (picture.json["error"] as? String)?.contains("sound only") == true, "\(picture.text)")
        let settings = #"{"gain": {"audio1": -6}, "mute": ["audio1:2"]}"#
        let origin = "http://127.0.0.1:\(port)"
        let command = try RawHTTP.post(port: port, "/api/command?token=\(token)", json: settings, origin: origin)
        let words = command.json["command"] as? String ?? ""
        #expect(words.contains("--gain audio1=-6") && words.contains("--mute audio1:2"), "\(command.text)")
        let audition = try RawHTTP.post(port: port, "/api/audition?token=\(token)&t=1", json: settings, origin: origin)
        #expect(audition.status == 200, "\(audition.text)")
        try audition.body.write(to: URL(fileURLWithPath: dir + "/audition.m4a"))
        let heard = try Oracle.probe(dir + "/audition.m4a")
        #expect(heard.video.isEmpty && heard.audio.count == 1 && abs((heard.audio.first?.duration ?? 0) - 2) < 0.05,
                "2 s of sound: \(heard.streams.map { "\($0.kind) \($0.duration ?? -1)" })")
    }

    @Test("the page at 1280 and 1920 wide: nothing cut off the panel (the mix's six columns inside it), concat's clip names apart across a transition, a layer's keyer, choke and feather, the still's picture named; screenshots",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func layoutAtWidths() throws {
        let dir = try Oracle.scratch("tune-layout")
        let (fx, base, tone) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), Oracle.fixture("tone.m4a"))
        let image = dir + "/card.png"
        try #require(try Oracle.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=400x300", "-frames:v", "1", image]).status == 0)
        let pages = [
            ("blend", try TuneProcess(command: [fx, base, "--layer", fx + ":at=0.5:place=0,0,160,120", "--audio", tone, "-o", dir + "/b.mov",
                                                "--tune", "-q"])),
            ("concat", try TuneProcess(command: ["concat", fx, base, Oracle.fixture("edges.mov"), "--transition", "fade:0.5", "-o",
                                                 dir + "/c.mp4", "--tune", "-q"])),
            ("still", try TuneProcess(command: ["still", image, tone, "-o", dir + "/s.mp4", "--tune", "-q"])),
        ]
        defer { for (_, page) in pages { page.stop() } }
        let browser = try Browser(width: 1280, height: 1000)
        defer { browser.quit() }
        for width in [1280, 1920] {
            try browser.call("POST", "/session/\(browser.session)/window/rect", Browser.json(["width": width, "height": 1000]))
            for (kind, page) in pages {
                try browser.open(page.url)
                _ = try browser.waitForPictures(atLeast: 1)
                // Whatever the panel shows lies inside it, and it does not scroll sideways.
                let layout = try browser.script("""
                    const a = document.querySelector('aside'), r = a.getBoundingClientRect();
                    const cut = [...a.querySelectorAll('input, select, th, button, output')]
                        .filter(e => e.offsetParent && e.getBoundingClientRect().right > r.right + 0.5)
                        .map(e => e.id || e.textContent);
                    return JSON.stringify({ sideways: a.scrollWidth - a.clientWidth, cut, columns: document.getElementById('mix').rows[0].cells.length });
                    """) as? String ?? ""
                #expect(layout.contains(#""sideways":0"#) && layout.contains(#""cut":[]"#) && layout.contains(#""columns":6"#),
                        "\(kind) at \(width): \(layout)")
                switch kind {
                case "blend":
                    let fields = try browser.script("""
                        return ['keyer', 'choke', 'feather'].map(f => !!document.getElementById('layerKey0' + f)).join(',')
                        """) as? String
                    #expect(fields == "true,true,true", "a layer's keyer, choke and feather: \(fields ?? "")")
                case "concat":
                    // Each clip's name in its own place on the timeline: no label runs into the next.
                    let overlaps = try browser.waitFor("""
                        const d = [...document.querySelectorAll('#timeline div')].filter(e => !e.className);
                        if (d.length < 3) return -1;
                        return d.slice(1).filter((e, i) => d[i].getBoundingClientRect().right > e.getBoundingClientRect().left + 0.5).length;
                        """) { ($0 as? NSNumber).map { $0.intValue >= 0 } ?? false }
                    #expect((overlaps as? NSNumber)?.intValue == 0, "concat at \(width): \(overlaps ?? "none") labels run into the next")
                default:
                    let named = try browser.script("return document.getElementById('stillImage').textContent") as? String
                    #expect(named == image, "the still's picture: \(named ?? "")")
                }
                try browser.screenshot(into: dir + "/\(kind)-\(width).png")
            }
        }
        print("screenshots: \(dir)")
    }

    @Test("render: a timeline's page (the timeline written by --otio): its clips and the crossing on the timeline, a fit changed, the command's movie shows the page's picture",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func renderPage() throws {
        let dir = try Oracle.scratch("tune-render")
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        let otio = dir + "/cut.otio"
        let w = try Oracle.mixwrite(["concat", base, fx, "--transition", "fade:0.4", "-o", dir + "/c.mp4", "--otio", otio, "-q"])
        try #require(w.status == 0, "\(w.stderr)")
        let tune = try TuneProcess(command: ["render", otio, "-o", dir + "/r.mp4", "--tune", "-q"])
        defer { tune.stop() }
        let browser = try Browser(width: 1400, height: 1000)
        defer { browser.quit() }
        try browser.open(tune.url)
        _ = try browser.waitForPictures(atLeast: 1)
        #expect(try browser.script("return window.mwInfo.kind") as? String == "render")
        #expect((try browser.script("return document.querySelectorAll('#timeline div:not(.crossing):not(.event)').length") as? NSNumber)?.intValue == 2)
        #expect((try browser.script("return document.querySelectorAll('#timeline .crossing').length") as? NSNumber)?.intValue == 1)
        try Self.set(browser, "size", "320x180", event: "change")
        let command = try Self.command(browser, containing: "--size 320x180")
        try Self.set(browser, "t", "1.8")
        _ = try browser.waitForPictures(atLeast: 2, source: "t=1.8")
        _ = try browser.picturePNG(into: dir + "/page.png")
        _ = try Self.runCommand(command)
        let psnr = try Self.psnr(page: dir + "/page.png", movie: dir + "/r.mp4", at: 1.8, scratch: dir)
        print("render page picture inside the dissolve vs the command's movie: luma PSNR \(psnr) dB")
        #expect(psnr >= 35, "the page shows what the command writes")
    }
}
