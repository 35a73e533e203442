import Foundation
import Testing
import TestSupport

/// The command line's caption files on the page, in headless chromium: each kept or dropped, its track's language
/// and title typed, drawn into the picture or not; the picture shown is the one the CLI's `subtitles` filter draws
/// on the same frame, and the command the page writes renders it.
@Suite("tune: captions on the page in headless chromium")
struct TuneCaptionPageTests {
    /// `text` shown from `from` to `to` seconds, as SubRip.
    static func srt(_ path: String, _ from: String, _ to: String, _ text: String) throws {
        try "1\n00:00:\(from) --> 00:00:\(to)\n\(text)\n\n".write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// A luma PSNR of two pictures (PNG or JPEG files).
    static func psnr(_ a: String, _ b: String) throws -> Double {
        Oracle.psnr(try Oracle.decodeRGB(a, extraFilters: "format=gray").frames[0],
                    try Oracle.decodeRGB(b, extraFilters: "format=gray").frames[0].map(Double.init))
    }

    /// Frame `n` of `movie` with `captions` drawn by the CLI's `subtitles` filter (libass), as PNG.
    static func cliBurned(_ movie: String, captions: String, frame n: Int, into png: String) throws {
        let r = try Oracle.ffmpeg(["-v", "error", "-y", "-i", movie, "-vf", "subtitles=\(captions),select=eq(n\\,\(n))",
                                   "-frames:v", "1", png])
        try #require(r.status == 0, "\(r.stderr)")
    }

    @Test("a blend with two caption files: one dropped, the other tagged and burned; the picture is the CLI's subtitles filter's, a bad language is said and put back, the command renders it",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func blendCaptions() throws {
        let dir = try Oracle.scratch("tune-captions")
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        try Self.srt(dir + "/words.srt", "00,500", "01,800", "Words on the page")
        try Self.srt(dir + "/other.srt", "00,000", "02,000", "Another file")
        let tune = try TuneProcess([fx, base, "-o", dir + "/tuned.mp4", "--captions", dir + "/words.srt:lang=eng:title=English",
                                    "--captions", dir + "/other.srt"])
        defer { tune.stop() }
        let browser = try Browser(width: 1400, height: 1000)
        defer { browser.quit() }
        try browser.open(tune.url)
        let first = try browser.waitForPictures(atLeast: 1)
        #expect((try browser.script("return document.querySelectorAll('.caption').length") as? NSNumber)?.intValue == 2)
        #expect(try browser.script("return document.getElementById('caption0lang').value") as? String == "eng")
        #expect(try browser.script("return [0, 1].map(i => document.getElementById('caption' + i + 'keep').checked)") as? [Bool] == [true, true])
        let t = try #require(try browser.script("return document.getElementById('t').value") as? String)
        _ = try browser.picturePNG(into: dir + "/plain.png")

        // The second dropped: the command no longer names it.
        _ = try browser.script("document.getElementById('caption1keep').click(); return 0")
        let dropped = try TuneKindsTests.command(browser, containing: "words.srt")
        #expect(!dropped.contains("other.srt"), "\(dropped)")
        // A language that is no ISO 639-2 code: said, and the last good one put back.
        try TuneKindsTests.set(browser, "caption0lang", "english", event: "change")
        let said = try browser.waitFor("return document.getElementById('status').textContent") { ($0 as? String)?.contains("lang=english") == true }
        print("a bad language: \(said ?? "")")
        _ = try browser.waitFor("return document.getElementById('caption0lang').value") { $0 as? String == "eng" }
        try TuneKindsTests.set(browser, "caption0title", "Anglais", event: "change")
        _ = try TuneKindsTests.command(browser, containing: "title=Anglais")

        // Burned: the picture at T has the words, as the CLI's subtitles filter draws them on the plain blend's frame.
        _ = try browser.script("document.getElementById('burnCaptions').click(); return 0")
        let command = try TuneKindsTests.command(browser, containing: "--burn-captions")
        _ = try browser.waitForPictures(atLeast: first + 1, source: "burn-captions=1")
        _ = try browser.picturePNG(into: dir + "/burned.png")
        let plain = try Oracle.mixwrite([fx, base, "-o", dir + "/plain.mov"])
        try #require(plain.status == 0, "\(plain.stderr)")
        let rate = try #require(try browser.script("return window.mwInfo.frameRate") as? NSNumber).doubleValue
        let n = Int(((Double(t) ?? 0) * rate).rounded(.down))
        try Self.cliBurned(dir + "/plain.mov", captions: dir + "/words.srt", frame: n, into: dir + "/cli.png")
        let (burned, unburned) = (try Self.psnr(dir + "/burned.png", dir + "/cli.png"), try Self.psnr(dir + "/plain.png", dir + "/cli.png"))
        print("page picture at \(t) s (frame \(n)) vs the CLI's subtitles filter: luma PSNR \(burned) dB burned, \(unburned) dB before")
        #expect(burned >= 35 && burned > unburned + 5, "the page draws the captions as libass does in the CLI")

        // The page's command renders the movie it showed: its frame at T is the page's picture.
        let report = try TuneKindsTests.runCommand(command)
        #expect(report["output"] as? String == dir + "/tuned.mp4")
        let rendered = try TuneKindsTests.psnr(page: dir + "/burned.png", movie: dir + "/tuned.mp4", at: Double(t) ?? 0, scratch: dir)
        print("page picture vs the command's movie at \(t) s: luma PSNR \(rendered) dB")
        #expect(rendered >= 35)
        #expect(try Oracle.probe(dir + "/tuned.mp4").streams.allSatisfy { $0.kind != "subtitle" }, "burned, not muxed: \(command)")
    }

    @Test("a concat opened with --burn-captions draws them (the render's frame); unticked, the picture and command lose them; a remix's page lists its captions without a burn box",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func sequenceCaptions() throws {
        let dir = try Oracle.scratch("tune-captions-concat")
        let (fx, base) = (Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"))
        try Self.srt(dir + "/cues.srt", "00,000", "04,000", "Across both clips")
        let tune = try TuneProcess(command: ["concat", base, fx, "-o", dir + "/c.mp4", "--captions", dir + "/cues.srt:lang=fra",
                                             "--burn-captions", "--tune", "-q"])
        defer { tune.stop() }
        let browser = try Browser(width: 1400, height: 1000)
        defer { browser.quit() }
        try browser.open(tune.url)
        let first = try browser.waitForPictures(atLeast: 1)
        #expect(try browser.script("return document.getElementById('burnCaptions').checked") as? Bool == true)
        let t = try #require(try browser.script("return document.getElementById('t').value") as? String)
        _ = try browser.picturePNG(into: dir + "/burned.png")
        let report = try TuneKindsTests.runCommand(try TuneKindsTests.command(browser, containing: "--burn-captions"))
        #expect(report["output"] as? String == dir + "/c.mp4")
        let burned = try TuneKindsTests.psnr(page: dir + "/burned.png", movie: dir + "/c.mp4", at: Double(t) ?? 0, scratch: dir)

        _ = try browser.script("document.getElementById('burnCaptions').click(); return 0")
        let command = try TuneKindsTests.command(browser, containing: "lang=fra")
        #expect(!command.contains("--burn-captions"), "\(command)")
        _ = try browser.waitForPictures(atLeast: first + 1, source: "burn-captions=0")
        _ = try browser.picturePNG(into: dir + "/plain.png")
        let unburned = try TuneKindsTests.psnr(page: dir + "/plain.png", movie: dir + "/c.mp4", at: Double(t) ?? 0, scratch: dir)
        print("concat page at \(t) s vs the burned render: luma PSNR \(burned) dB burned, \(unburned) dB unticked")
        #expect(burned >= 35 && burned > unburned + 5)

        let remix = try TuneProcess(command: ["remix", fx, "-o", dir + "/r.mov", "--captions", dir + "/cues.srt", "--tune", "-q"])
        defer { remix.stop() }
        try browser.open(remix.url)
        _ = try browser.waitForPictures(atLeast: 1)
        let shown = try browser.script("""
            return [document.querySelectorAll('.caption').length, getComputedStyle(document.querySelector('[data-part=burn]')).display]
            """) as? [Any]
        #expect((shown?.first as? NSNumber)?.intValue == 1 && shown?.last as? String == "none", "\(shown ?? [])")
    }
}
