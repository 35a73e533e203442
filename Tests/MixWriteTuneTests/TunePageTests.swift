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
          .timeLimit(.minutes(4)))
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
        _ = try browser.waitForPictures(atLeast: first + 1, source: "threshold=0.3")
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

/// A headless chromium behind chromedriver, spoken to in WebDriver's JSON over HTTP (with curl).
final class Browser {
    private let driver = Process()
    private let base: String
    private(set) var session = ""

    init() throws {
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
        let capabilities = #"{"capabilities": {"alwaysMatch": {"goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900"]}}}}"#
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
            return [Number(i.dataset.loaded || 0), i.src, window.mwBusy(), document.getElementById('threshold').value,
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
