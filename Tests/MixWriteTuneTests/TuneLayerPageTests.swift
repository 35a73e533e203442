import Foundation
import Testing
import TestSupport

/// A blend's layers on the page, in headless chromium: a box a layer over the picture and a band a layer under the
/// time slider; a box dragged with the mouse moves its layer in the picture, the command and the job entry.
@Suite("tune: layers on the page in headless chromium")
struct TuneLayerPageTests {
    @Test("two layers: two boxes where they are placed and two bands; the second dragged by the mouse moves in the picture (as --frame draws it), the command and the job entry; its own key typed in",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func dragged() throws {
        let dir = try Oracle.scratch()
        let fx = Oracle.fixture("fx.mov"), base = Oracle.fixture("base.mov")
        let layer = ["--layer", fx + ":at=0.5:place=160,120,160,120"]
        let tune = try TuneProcess([fx, base, "-o", dir + "/tuned.mov", "--place", "0,0,200,150"] + layer)
        defer { tune.stop() }
        let browser = try Browser()
        defer { browser.quit() }
        try browser.open(tune.url)
        let first = try browser.waitForPictures(atLeast: 1)
        #expect((try browser.script("return document.querySelectorAll('.layerbox').length") as? NSNumber)?.intValue == 2)
        #expect((try browser.script("return document.getElementById('spans').children.length") as? NSNumber)?.intValue == 2)
        let picture = try TunePageTests.box(browser, "picture")
        let scale = picture.width / 320
        let box = try browser.script("""
            const b = document.querySelector('.layerbox[data-layer="1"]').getBoundingClientRect(); return [b.x, b.y, b.width, b.height]
            """) as? [NSNumber] ?? []
        try #require(box.count == 4)
        #expect(abs(box[0].doubleValue - picture.x - 160 * scale) < 2 && abs(box[2].doubleValue - 160 * scale) < 2, "the box: \(box), picture \(picture)")
        // Its band starts at 0.5 s of the 2 s movie: a quarter of the bar in.
        let band = try browser.script("return document.getElementById('spans').children[1].style.left") as? String
        #expect(band == "25%", "\(band ?? "")")

        // Dragged up and left by the mouse: (-100, -80) CSS pixels from its middle.
        let (cx, cy) = (Int(box[0].doubleValue + box[2].doubleValue / 2), Int(box[1].doubleValue + box[3].doubleValue / 2))
        try browser.call("POST", "/session/\(browser.session)/actions", """
            {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"}, "actions": [
              {"type": "pointerMove", "duration": 0, "x": \(cx), "y": \(cy), "origin": "viewport"},
              {"type": "pointerDown", "button": 0},
              {"type": "pointerMove", "duration": 150, "x": \(cx - 50), "y": \(cy - 40), "origin": "viewport"},
              {"type": "pointerMove", "duration": 150, "x": \(cx - 100), "y": \(cy - 80), "origin": "viewport"},
              {"type": "pointerUp", "button": 0}]}]}
            """)
        let (x, y) = (160 + Int((-100 / scale).rounded()), 120 + Int((-80 / scale).rounded()))
        let place = "\(x),\(y),160,120"
        let command = try browser.waitFor("return document.getElementById('command').value") { ($0 as? String)?.contains("place=" + place) == true }
        print("dragged to \(place): \(command ?? "")")
        #expect((command as? String)?.contains("--place 0,0,200,150") == true)
        let job = try browser.script("return document.getElementById('job').value") as? String ?? ""
        #expect(job.contains(#""place": "\#(place)""#) && job.contains(#""layers": [{"fx": "\#(fx)""#), "\(job)")
        #expect(try browser.script("return document.getElementById('layer1x').value") as? String == String(x))

        // The picture shown is the one --frame draws with the layer where it was dragged.
        _ = try browser.waitForPictures(atLeast: first + 1, source: "layers=")
        _ = try browser.picturePNG(into: dir + "/dragged.png")
        let t = try #require(try browser.script("return document.getElementById('t').value") as? String)
        let frame = try Oracle.mixwrite([fx, base, "--frame", t, "--place", "0,0,200,150", "--layer", fx + ":at=0.5:place=" + place,
                                         "-o", dir + "/frame.png"])
        try #require(frame.status == 0, "\(frame.stderr)")
        let old = try Oracle.mixwrite([fx, base, "--frame", t, "--place", "0,0,200,150"] + layer + ["-o", dir + "/old.png"])
        try #require(old.status == 0, "\(old.stderr)")
        let gray = { (p: String) throws -> [UInt8] in try Oracle.decodeRGB(p, extraFilters: "format=gray").frames[0] }
        let shown = try gray(dir + "/dragged.png")
        let (now, before) = (Oracle.psnr(shown, try gray(dir + "/frame.png").map(Double.init)), Oracle.psnr(shown, try gray(dir + "/old.png").map(Double.init)))
        print("the dragged layer's picture at \(t) s vs --frame: luma PSNR \(now) dB (the undragged one: \(before) dB)")
        #expect(now >= 35 && now > before + 3)
        // The second layer's own key, typed into its box: the command carries it in the layer's spec.
        let threshold = try browser.element("layerKey0threshold")
        // (Backspaces, not WebDriver's clear: a cleared box is a change, refused and put back.)
        try browser.keys(String(repeating: "\u{E003}", count: 6) + "0.25\u{E007}", to: threshold)
        let keyed = try browser.waitFor("return document.getElementById('command').value") { ($0 as? String)?.contains("threshold=0.25") == true }
        #expect((keyed as? String)?.contains("--threshold") == false, "the FX's key is unchanged: \(keyed ?? "")")
        // The second layer's timing, typed: its box is made from `in`'s declaration (0 up, seconds); a value the
        // declaration refuses is said and the last good one kept.
        let from = try browser.element("layer1in")
        try browser.keys(String(repeating: "\u{E003}", count: 4) + "0.3\u{E007}", to: from)
        let timed = try browser.waitFor("return document.getElementById('command').value") { ($0 as? String)?.contains(":in=0.3") == true }
        #expect((timed as? String)?.contains(":at=0.5") == true, "\(timed ?? "")")
        _ = try browser.script("const f = document.getElementById('layer1in'); f.value = '-2'; f.dispatchEvent(new Event('change'))")
        let said = try browser.waitFor("return document.getElementById('status').textContent") { ($0 as? String)?.contains("in:") == true }
        #expect((said as? String)?.contains("from 0") == true, "\(said ?? "")")
        #expect(try browser.script("return document.getElementById('layer1in').value") as? String == "0.3", "the last good value kept")
        try browser.screenshot(into: dir + "/layers.png")
        print("screenshot: \(dir)/layers.png")
    }
}
