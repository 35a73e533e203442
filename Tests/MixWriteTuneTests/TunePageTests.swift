import Foundation
import Testing
import TestSupport

/// The page in a real browser: Debian's chromium, headless, driven through chromedriver (WebDriver over HTTP).
@Suite("tune: the page in headless chromium")
struct TunePageTests {
    static let available = ["/usr/bin/chromium", "/usr/bin/chromedriver", "/usr/bin/curl"]
        .allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }

    @Test("the page loads; the threshold slider moved by the keyboard changes the picture, which matches --frame",
          .enabled(if: available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func sliderChangesPicture() throws {
        let dir = try Oracle.scratch()
        let tune = try TuneProcess([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/tuned.mov"])
        defer { tune.stop() }
        let browser = try Browser()
        defer { browser.quit() }
        try browser.open(tune.url)
        let first = try browser.waitForPictures(atLeast: 1)
        #expect((try browser.script("return document.getElementById('picture').naturalWidth") as? NSNumber)?.intValue == 320)
        #expect((try browser.script("return document.getElementById('mix').rows.length") as? NSNumber)?.intValue == 4, "a row a track")
        let before = try browser.picturePNG(into: dir + "/before.png")

        // Twenty steps left with the keyboard: 0.4 → 0.3, each step a new picture asked for.
        let slider = try browser.element("threshold")
        try browser.keys(String(repeating: "\u{E012}", count: 20), to: slider)
        #expect(try browser.script("return document.getElementById('threshold').value") as? String == "0.3")
        _ = try browser.waitForPictures(atLeast: first + 1, source: "%22threshold%22%3A0.3")
        let after = try browser.picturePNG(into: dir + "/after.png")
        #expect(before != after, "the picture changed")

        let t = try #require(try browser.script("return document.getElementById('t').value") as? String)
        let frame = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "--frame", t, "--threshold", "0.3",
                                         "-o", dir + "/frame.png"])
        try #require(frame.status == 0, "\(frame.stderr)")
        let luma = Oracle.psnr(try Oracle.decodeRGB(dir + "/after.png", extraFilters: "format=gray").frames[0],
                               try Oracle.decodeRGB(dir + "/frame.png", extraFilters: "format=gray").frames[0].map(Double.init))
        let earlier = Oracle.psnr(try Oracle.decodeRGB(dir + "/before.png", extraFilters: "format=gray").frames[0],
                                  try Oracle.decodeRGB(dir + "/frame.png", extraFilters: "format=gray").frames[0].map(Double.init))
        print("browser picture vs --frame at \(t) s, threshold 0.3: luma PSNR \(luma) dB (before the move: \(earlier) dB)")
        #expect(luma >= 35 && luma > earlier + 3, "the shown picture is --frame's with the new threshold")

        // The command follows the slider.
        let command = try browser.waitFor("return document.getElementById('command').value") { ($0 as? String)?.contains("--threshold 0.3") == true }
        #expect((command as? String)?.contains("-o \(dir)/tuned.mov") == true)

        // The audition: a click, then the <video> plays the blend with the new threshold; its picture at T,
        // drawn by the browser, is --frame's.
        try browser.call("POST", "/session/\(browser.session)/element/\(try browser.element("auditionButton"))/click", "{}")
        let made = try browser.waitFor("return window.mwAudition || document.getElementById('status').textContent") { $0 is NSNumber }
        print("audition made and playable in \(made ?? "?") ms")
        let duration = try browser.script("return document.getElementById('audition').duration") as? NSNumber
        #expect(abs((duration?.doubleValue ?? 0) - 2) < 0.05, "the fixture's 2 s, all of it: \(String(describing: duration))")
        _ = try browser.script("""
            const v = document.getElementById('audition'); v.pause(); v.dataset.seeked = "";
            v.onseeked = () => { v.dataset.seeked = "1"; }; v.currentTime = \(t);
            return 0
            """)
        _ = try browser.waitFor("return document.getElementById('audition').dataset.seeked") { $0 as? String == "1" }
        _ = try browser.canvasPNG(of: "audition", into: dir + "/audition.png")
        let played = Oracle.psnr(try Oracle.decodeRGB(dir + "/audition.png", extraFilters: "format=gray").frames[0],
                                 try Oracle.decodeRGB(dir + "/frame.png", extraFilters: "format=gray").frames[0].map(Double.init))
        print("audition's picture at \(t) s vs --frame: luma PSNR \(played) dB")
        #expect(played >= 33, "the audition shows the blend with the page's settings")

        let timings = (try browser.script("return window.mwTimings") as? [NSNumber] ?? []).map(\.doubleValue)
        print("picture round trips in the browser (ms): \(timings.map { Int($0) })")
        try browser.screenshot(into: dir + "/page.png")
        print("screenshot: \(dir)/page.png")
    }
}

extension TunePageTests {
    /// Where an element is drawn, and the window's inner size, in CSS pixels.
    @Test("the clean plate from the page: \"this frame\" saves fx's picture beside the output, the picture is keyed by it, the command names it; a plate the page names itself is refused unread and the picture kept",
          .enabled(if: available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func cleanPlate() throws {
        let dir = try Oracle.scratch()
        let tune = try TuneProcess([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/tuned.mov", "--keyer", "fine"])
        defer { tune.stop() }
        let browser = try Browser()
        defer { browser.quit() }
        try browser.open(tune.url)
        let first = try browser.waitForPictures(atLeast: 1)
        try browser.call("POST", "/session/\(browser.session)/element/\(try browser.element("plateButton"))/click", "{}")
        let saved = try browser.waitFor("return document.getElementById('cleanPlate').value") { ($0 as? String)?.hasSuffix(".jpg") == true }
        let plate = try #require(saved as? String)
        #expect(plate.hasPrefix(dir + "/tuned-plate-") && FileManager.default.fileExists(atPath: plate), "\(plate)")
        _ = try browser.waitForPictures(atLeast: first + 1, source: "tuned-plate-")
        let command = try browser.waitFor("return document.getElementById('command').value") { ($0 as? String)?.contains("--clean-plate") == true }
        #expect((command as? String)?.contains("--clean-plate \(plate)") == true, "\(command ?? "")")
        // A file the page names itself (here a real picture beside the output) is not read: the page keys only by the
        // command line's plates and those it took, so that it cannot have the server open any file. Said, the last good
        // plate kept.
        let grey = dir + "/grey.png"
        try #require(try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "color=c=0x808080:s=64x48", "-frames:v", "1", grey]).status == 0)
        // Typed as a whole (a clear first would itself be a change: no plate).
        _ = try browser.script("const f = document.getElementById('cleanPlate'); f.value = '\(grey)'; f.dispatchEvent(new Event('change'))")
        let said = try browser.waitFor("return document.getElementById('status').textContent") {
            ($0 as? String)?.contains("not a plate the command line named or this page took") == true
        }
        #expect((said as? String)?.contains(grey) == false, "the refusal says nothing of the file: \(said ?? "")")
        #expect(try browser.script("return document.getElementById('cleanPlate').value") as? String == plate, "the last good plate kept")
    }

    @Test("the fine keyer chosen on the page with pure green reads the screen's colour from fx's border: the picture is --keyer fine's given no colour, the command names the colour",
          .enabled(if: available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func fineReadsScreen() throws {
        let dir = try Oracle.scratch()
        // An orange box on a sea-green screen (2E8B57), which pure green as the fine keyer's key leaves showing.
        let fx = dir + "/sea.mp4", base = Oracle.fixture("base.mov")
        try #require(try Oracle.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "color=c=0x2E8B57:s=320x240:r=25:d=1",
                                        "-vf", "drawbox=x=110:y=70:w=100:h=100:c=0xC08040:t=fill", "-c:v", "libx264", "-crf", "18",
                                        "-pix_fmt", "yuv420p", fx]).status == 0)
        // The same clip as a second layer, its own key switched on its own row.
        let tune = try TuneProcess([fx, base, "-o", dir + "/tuned.mov", "--layer", fx + ":place=0,0,160,120"])
        defer { tune.stop() }
        let browser = try Browser()
        defer { browser.quit() }
        try browser.open(tune.url)
        let first = try browser.waitForPictures(atLeast: 1)
        _ = try browser.script("const k = document.getElementById('layerKey0keyer'); k.value = 'fine'; k.dispatchEvent(new Event('change')); return 0")
        let layerRead = try browser.waitFor("return document.getElementById('layerKey0keyColor').value") { ($0 as? String).map { !$0.isEmpty && $0 != "00FF00" } == true }
        #expect((try browser.script("return document.getElementById('keyColor').value") as? String) ?? "" != layerRead as? String,
                "the FX's own key is left as it was")
        _ = try browser.script("const k = document.getElementById('keyer'); k.value = 'fine'; k.dispatchEvent(new Event('change')); return 0")
        let read = try browser.waitFor("return document.getElementById('keyColor').value") { ($0 as? String).map { !$0.isEmpty && $0 != "00FF00" } == true }
        let hex = try #require(read as? String)
        #expect(layerRead as? String == hex, "the layer's screen is the same clip's: \(layerRead ?? "")")
        _ = try browser.waitForPictures(atLeast: first + 1, source: "%22" + hex)
        let command = try browser.waitFor("return document.getElementById('command').value") { ($0 as? String)?.contains("--keyer fine") == true }
        #expect((command as? String)?.contains("--key-color \(hex)") == true, "\(command ?? "")")
        #expect((try browser.script("return document.getElementById('status').textContent") as? String)?.contains("key colour \(hex) read from its border") == true)
        // The picture shown is the command line's --keyer fine given no colour, not given pure green.
        _ = try browser.picturePNG(into: dir + "/shown.png")
        let t = try #require(try browser.script("return document.getElementById('t').value") as? String)
        var psnr: [Double] = []
        for extra in [[], ["--key-color", "00FF00"]] {
            let png = dir + "/frame\(extra.count).png"
            let r = try Oracle.mixwrite([fx, base, "--keyer", "fine", "--frame", t, "-o", png, "--layer", fx + ":place=0,0,160,120:keyer=fine"] + extra)
            try #require(r.status == 0, "\(r.stderr)")
            psnr.append(Oracle.psnr(try Oracle.decodeRGB(dir + "/shown.png", extraFilters: "format=gray").frames[0],
                                    try Oracle.decodeRGB(png, extraFilters: "format=gray").frames[0].map(Double.init)))
        }
        print("the page's fine key (\(hex)) against --frame --keyer fine: luma PSNR \(psnr[0]) dB; given 00FF00: \(psnr[1]) dB")
        #expect(psnr[0] >= 35 && psnr[0] > psnr[1] + 3, "the shown picture is --keyer fine's as the command line reads the colour: \(psnr)")
    }

    static func box(_ browser: Browser, _ id: String) throws -> (x: Double, y: Double, width: Double, height: Double) {
        let r = try browser.script("""
            const b = document.getElementById('\(id)').getBoundingClientRect(); return [b.x, b.y, b.width, b.height]
            """) as? [NSNumber] ?? []
        guard r.count == 4 else { throw OracleError("no box for \(id)") }
        return (r[0].doubleValue, r[1].doubleValue, r[2].doubleValue, r[3].doubleValue)
    }

    @Test("the layout in a landscape and a portrait window: the whole picture at fit, 400 % drawing 4x and scrolling, the status in sight; a bad box said and its last good value kept; the matte white where fx is kept",
          .enabled(if: available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func layout() throws {
        let dir = try Oracle.scratch()
        // A landscape result (the fixtures, 320x240) in a wide window, and a portrait one (--size 240x426) in a tall one.
        for (size, window) in [(nil as String?, (1400, 1000)), ("240x426", (900, 1200))] {
            let tune = try TuneProcess([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/tuned.mov"]
                                       + (size.map { ["--size", $0] } ?? []))
            defer { tune.stop() }
            let browser = try Browser(width: window.0, height: window.1)
            defer { browser.quit() }
            try browser.open(tune.url)
            _ = try browser.waitForPictures(atLeast: 1)
            let (w, h) = size == nil ? (320.0, 240.0) : (240.0, 426.0)
            let stage = try Self.box(browser, "stage"), picture = try Self.box(browser, "picture")
            print("window \(window): stage \(stage), picture at fit \(picture)")
            // Fit: all of it inside the stage, and as large as the stage allows (one side filled).
            #expect(picture.x >= stage.x - 0.5 && picture.y >= stage.y - 0.5, "\(picture) in \(stage)")
            #expect(picture.x + picture.width <= stage.x + stage.width + 0.5 && picture.y + picture.height <= stage.y + stage.height + 0.5,
                    "the whole picture is in sight: \(picture) in \(stage)")
            #expect(picture.width >= stage.width - 2 || picture.height >= stage.height - 2, "fit fills a side: \(picture)")
            #expect(abs(picture.width / picture.height - w / h) < 0.02, "its shape kept")
            // 400 %: four screen pixels a pixel, the stage scrolling to show the rest.
            _ = try browser.script("const z = document.getElementById('zoom'); z.value = '4'; z.dispatchEvent(new Event('change')); return 0")
            let zoomed = try Self.box(browser, "picture")
            #expect(abs(zoomed.width - 4 * w) < 1 && abs(zoomed.height - 4 * h) < 1, "400 %: \(zoomed)")
            let scrolls = try browser.script("const s = document.getElementById('stage'); return s.scrollHeight > s.clientHeight") as? Bool
            #expect(scrolls == true, "the stage scrolls at 400 %")
            // The status line is at the top of the panel: in sight without scrolling.
            let bar = try Self.box(browser, "status")
            #expect(bar.y >= 0 && bar.y < 60, "status at \(bar)")
            guard size == nil else { continue }

            // A bad offset: marked, said beside the box and at the top, the setting kept; a good one clears it.
            let offset = try #require(try browser.script("""
                const i = document.querySelector('#mix tr[data-track="fx:1"] input[size="4"]'); i.value = 'abc';
                i.dispatchEvent(new Event('input')); return [i.className, i.nextSibling.textContent,
                document.getElementById('status').textContent, document.getElementById('status').className]
                """) as? [String])
            #expect(offset[0] == "bad" && offset[1] == "kept 0" && offset[2].contains("abc") && offset[3] == "error", "\(offset)")
            let fixed = try browser.waitFor("""
                const i = document.querySelector('#mix tr[data-track="fx:1"] input[size="4"]'); if (i.value !== '0.25') {
                i.value = '0.25'; i.dispatchEvent(new Event('input')); }
                return document.getElementById('status').className + '|' + document.getElementById('command').value
                """) { ($0 as? String).map { $0.hasPrefix("|") && $0.contains("--offset fx:1=0.25") } == true }
            #expect((fixed as? String)?.contains("--offset fx:1=0.25") == true, "the command follows at once: \(fixed ?? "")")
            // "auto" is an offset too: the track placed by its sound (the command says so), then seconds again.
            for (typed, said) in [("auto", "--offset fx:1=auto"), ("0.25", "--offset fx:1=0.25")] {
                let command = try browser.waitFor("""
                    const i = document.querySelector('#mix tr[data-track="fx:1"] input[size="4"]'); if (i.value !== '\(typed)') {
                    i.value = '\(typed)'; i.dispatchEvent(new Event('input')); }
                    return document.getElementById('status').className + '|' + document.getElementById('command').value
                    """) { ($0 as? String).map { $0.hasPrefix("|") && $0.contains(said) } == true }
                #expect((command as? String)?.contains(said) == true, "\(typed): \(command ?? "")")
            }
            // Loudness "loud": refused, the box put back to its last good value when left.
            let loud = try browser.script("""
                const l = document.getElementById('loudness'); l.value = 'loud'; l.dispatchEvent(new Event('input'));
                const marked = l.className; l.dispatchEvent(new Event('change')); return [marked, l.value, l.className]
                """) as? [String]
            #expect(loud == ["bad", "", ""], "\(loud ?? [])")
            // The boxes' ranges are the job file's (`loudness` -50 … -5 LUFS, an `offset` from 0 s): outside them, refused.
            for (selector, value) in [("#loudness", "-60"), ("#mix tr[data-track=\"fx:1\"] input[size=\"4\"]", "-1")] {
                let said = try browser.script("""
                    const b = document.querySelector('\(selector)'); b.value = '\(value)'; b.dispatchEvent(new Event('input'));
                    const r = [b.className, document.getElementById('status').textContent]; b.dispatchEvent(new Event('change')); return r
                    """) as? [String]
                #expect(said?[0] == "bad" && said?[1].contains("\"\(value)\" is not a number from") == true, "\(selector): \(said ?? [])")
            }

            // It opens in the middle of where fx shows; the matte is white where fx is kept.
            #expect((try browser.script("return document.getElementById('t').value") as? String).flatMap(Double.init) == 1)
            _ = try browser.script("const v = document.getElementById('view'); v.value = 'matte'; v.dispatchEvent(new Event('change')); return 0")
            _ = try browser.waitForPictures(atLeast: 2, source: "view=matte")
            _ = try browser.picturePNG(into: dir + "/matte.png")
            _ = try browser.script("const v = document.getElementById('view'); v.value = 'fx'; v.dispatchEvent(new Event('change')); return 0")
            _ = try browser.waitForPictures(atLeast: 3, source: "view=fx")
            _ = try browser.picturePNG(into: dir + "/fx.png")
            let matte = try Oracle.decodeRGB(dir + "/matte.png").frames[0], fx = try Oracle.decodeRGB(dir + "/fx.png").frames[0]
            var agree = 0, decided = 0
            for i in stride(from: 0, to: fx.count, by: 3) {
                let green = Int(fx[i + 1]) - max(Int(fx[i]), Int(fx[i + 2]))   // the screen: far greener than red or blue
                guard green > 100 || green < 0 else { continue }
                decided += 1
                if (matte[i] > 128) == (green < 0) { agree += 1 }
            }
            #expect(decided > 1000 && Double(agree) / Double(decided) > 0.95, "matte white where fx is kept: \(agree) of \(decided)")
            try browser.screenshot(into: dir + "/layout.png")
        }
        // HEAD answers as GET does, without a body.
        let tune = try TuneProcess.fixtures(scratch: "head")
        defer { tune.stop() }
        let head = try Oracle.run("/usr/bin/curl", ["-s", "-I", "--max-time", "10", tune.url])
        #expect(head.stdoutText.hasPrefix("HTTP/1.1 200") && head.stdoutText.lowercased().contains("content-length:"), "\(head.stdoutText)")
    }
}

/// A headless chromium behind chromedriver, spoken to in WebDriver's JSON over HTTP (with curl).
final class Browser {
    private let driver = Process()
    private let base: String
    private(set) var session = ""

    /// `arguments`: more of chromium's switches (`--allow-file-access-from-files` for a page read from a file).
    init(width: Int = 1200, height: Int = 900, arguments: [String] = []) throws {
        let port = try RawHTTP.freePort()
        base = "http://127.0.0.1:\(port)"
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=\(port)"]
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        for _ in 0..<100 {
            if (try? call("GET", "/status")) != nil { break }
            usleep(100_000)
        }
        let capabilities = #"{"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\#(width),\#(height)"\#(arguments.map { ", \"\($0)\"" }.joined())]}}}}"#
        let created = try? call("POST", "/session", capabilities) as? [String: Any]
        guard let id = created?["sessionId"] as? String else {
            kill(driver.processIdentifier, SIGKILL)
            driver.waitUntilExit()
            throw OracleError("no WebDriver session: \(created ?? [:])")
        }
        session = id
    }

    func quit() {
        if !session.isEmpty { _ = try? call("DELETE", "/session/\(session)") }
        // chromedriver lets SIGTERM wait; its browser is gone with the session, so nothing is lost to SIGKILL.
        kill(driver.processIdentifier, SIGKILL)
        driver.waitUntilExit()
    }

    /// One WebDriver command: its `value`.
    @discardableResult
    func call(_ method: String, _ path: String, _ body: String? = nil) throws -> Any? {
        var args = ["-s", "-m", "60", "-X", method, base + path, "-H", "Content-Type: application/json"]
        if let body { args += ["-d", body] }
        let r = try Oracle.run("/usr/bin/curl", args, timeout: 90)
        guard r.status == 0 else { throw OracleError("curl \(method) \(path): exit \(r.status)") }
        let object = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
        if let value = object?["value"] as? [String: Any], let error = value["error"] as? String {
            throw OracleError("WebDriver \(path): \(error): \(value["message"] ?? "")")
        }
        return object?["value"]
    }

    func open(_ url: String) throws { try call("POST", "/session/\(session)/url", Self.json(["url": url])) }

    func script(_ source: String) throws -> Any? {
        try call("POST", "/session/\(session)/execute/sync", Self.json(["script": source, "args": [] as [Any]]))
    }

    func element(_ id: String) throws -> String {
        let found = try call("POST", "/session/\(session)/element", Self.json(["using": "css selector", "value": "#\(id)"])) as? [String: Any]
        return try #require(found?.values.first as? String, "no element #\(id)")
    }

    /// Keys typed into an element, as a user's keyboard would (WebDriver's key codes for arrows).
    func keys(_ text: String, to element: String) throws {
        // No click first: a click on a range input moves it to where it lands.
        // WebDriver's keys are private-use characters; sent as JSON escapes, ASCII on the command line.
        let escaped = text.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\u%04x", $0.value) }.joined()
        try call("POST", "/session/\(session)/element/\(element)/value", #"{"text": ""# + escaped + #""}"#)
    }

    /// Waits (at most 30 s) until `script` returns a value `done` accepts; that value.
    func waitFor(_ source: String, _ done: (Any?) -> Bool) throws -> Any? {
        var last: Any?
        for _ in 0..<300 {
            last = try script(source)
            if done(last) { return last }
            usleep(100_000)
        }
        throw OracleError("waited 30 s for: \(source) (last: \(String(describing: last)))")
    }

    /// Waits until the main picture has loaded `count` times (and its address has `source` in it); the count.
    func waitForPictures(atLeast count: Int, source: String = "") throws -> Int {
        let v = try waitFor("""
            const i = document.getElementById('picture');
            return [Number(i.dataset.loaded || 0), i.src, window.mwBusy(), (document.getElementById('threshold') || {}).value,
                    document.getElementById('status').textContent]
            """) {
            guard let a = $0 as? [Any], let n = (a.first as? NSNumber)?.intValue, let src = a.dropFirst().first as? String,
                  let busy = (a.dropFirst(2).first as? NSNumber)?.boolValue else { return false }
            return n >= count && !busy && (source.isEmpty || src.contains(source))
        }
        return ((v as? [Any])?.first as? NSNumber)?.intValue ?? 0
    }

    /// The picture as the browser decoded it, drawn into a canvas at its own size and saved as PNG.
    func picturePNG(into path: String) throws -> Data { try canvasPNG(of: "picture", into: path) }

    /// An image's or a video's current picture, drawn by the browser into a canvas at its own size, as PNG.
    func canvasPNG(of id: String, into path: String) throws -> Data {
        let url = try script("""
            const i = document.getElementById('\(id)'), c = document.createElement('canvas');
            c.width = i.naturalWidth || i.videoWidth; c.height = i.naturalHeight || i.videoHeight;
            c.getContext('2d').drawImage(i, 0, 0);
            return c.toDataURL('image/png');
            """) as? String ?? ""
        let data = try #require(Data(base64Encoded: String(url.drop { $0 != "," }.dropFirst())), "no picture from the canvas")
        try data.write(to: URL(fileURLWithPath: path))
        return data
    }

    func screenshot(into path: String) throws {
        let b64 = try call("GET", "/session/\(session)/screenshot") as? String ?? ""
        try #require(Data(base64Encoded: b64), "no screenshot").write(to: URL(fileURLWithPath: path))
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: (try? JSONSerialization.data(withJSONObject: object)) ?? Data(), as: UTF8.self)
    }
}
