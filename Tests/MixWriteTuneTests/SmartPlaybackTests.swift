import Foundation
import Testing
import TestSupport

/// A smart render (base's GOPs copied beside encoded ones: H.264's two encoders' parameter sets in one record, HEVC's
/// GOPs each led by their own) in a real browser's `<video>`: Debian's chromium, headless, through chromedriver
/// (`Browser`). Beside the page's tests because they share the browser; the render itself is the command line's.
@Suite("smart rendering in chromium: plays to its end, seeks")
struct SmartPlaybackTests {
    @Test("a smart render plays to its end in <video> (no MediaError, currentTime reaches duration) and seeks to every second",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .hangGuard)
    func playsAndSeeks() throws {
        try Self.render(["-c:v", "libx264", "-preset", "veryfast", "-g", "10"], codec: "h264")
    }

    @Test("a smart HEVC render (each GOP led by its sets, hev1) plays to its end in <video> and seeks to every second, where chromium plays HEVC",
          .enabled(if: TunePageTests.available, "needs Debian's chromium and chromium-driver (make test installs them)"),
          .enabled(if: SmartPlaybackTests.playsHEVC, "this chromium plays no HEVC (its canPlayType of hev1 is empty)"),
          .hangGuard)
    func hevcPlaysAndSeeks() throws {
        try Self.render(["-c:v", "libx265", "-x265-params", "log-level=error:keyint=10:min-keyint=10:open-gop=0:scenecut=0"], codec: "hevc")
    }

    /// Whether this machine's chromium says it can play HEVC in MP4 (Debian's does not: no HEVC decoder is built in).
    static let playsHEVC: Bool = {
        guard let dir = try? Oracle.scratch("hevc-probe") else { return false }
        let page = dir + "/probe.html"
        guard (try? #"<script>document.title = document.createElement('video').canPlayType('video/mp4; codecs="hev1.1.6.L93.B0"') || 'no'</script>"#
            .write(toFile: page, atomically: true, encoding: .utf8)) != nil,
              let r = try? Oracle.run("/usr/bin/chromium", ["--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page], timeout: 60) else { return false }
        return r.stdoutText.contains("<title>probably</title>") || r.stdoutText.contains("<title>maybe</title>")
    }()

    /// A 4 s base (320x240, 30 fps, a GOP every 10 frames, encoded with `encoding`) under a layer at 1.5–2.5 s,
    /// rendered smart with `--codec codec` (80 frames copied), then played and sought in chromium.
    static func render(_ encoding: [String], codec: String) throws {
        let dir = try Oracle.scratch()
        let (fx, base, out) = (dir + "/fx.mp4", dir + "/base.mp4", dir + "/smart.mp4")
        for args in [["-f", "lavfi", "-i", "testsrc2=s=320x240:r=30:d=4", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=4"]
                      + encoding + ["-pix_fmt", "yuv420p", "-c:a", "aac", base],
                     ["-f", "lavfi", "-i", "color=c=0x00FF00:s=160x120:r=30:d=2,drawbox=x=40:y=30:w=80:h=60:c=red:t=fill",
                      "-c:v", "libx264", "-pix_fmt", "yuv420p", fx]] {
            let r = try Oracle.ffmpeg(["-y", "-v", "error"] + args)
            try #require(r.status == 0, "\(r.stderr)")
        }
        let r = try Oracle.mixwrite([fx, base, "-o", out, "--at", "1.5", "--out", "1", "--codec", codec, "--json", "--progress", "none"])
        try #require(r.status == 0, "\(r.stderr)")
        let video = try #require((try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])?["video"] as? [String: Any])
        try #require(video["copiedFrames"] as? Int == 80, "the render copies GOPs: \(video)")
        try playAndSeek(dir)
    }

    /// `dir`/smart.mp4 (4 s) in chromium's `<video>`: played to its end at 4×, sought to every half second, the
    /// picture after the last seek drawn.
    static func playAndSeek(_ dir: String) throws {
        try """
            <!doctype html><video id="v" src="smart.mp4" muted playsinline></video>
            <script>
            const v = document.getElementById('v');
            window.result = null; window.errors = [];
            v.onerror = () => { window.errors.push(v.error ? v.error.code + ' ' + v.error.message : 'error'); };
            v.onended = () => { window.result = [v.currentTime, v.duration]; };
            v.playbackRate = 4;
            v.play();
            </script>
            """.write(toFile: dir + "/play.html", atomically: true, encoding: .utf8)

        let browser = try Browser(arguments: ["--allow-file-access-from-files"])
        defer { browser.quit() }
        try browser.open("file://" + dir + "/play.html")
        let ended = try browser.waitFor("return [window.result, window.errors]") {
            guard let a = $0 as? [Any] else { return false }
            return a[0] is [Any] || !((a[1] as? [Any]) ?? []).isEmpty
        }
        let (result, errors) = ((ended as? [Any])?[0] as? [NSNumber], (ended as? [Any])?[1] as? [Any])
        #expect(errors?.isEmpty == true, "MediaError: \(errors ?? [])")
        let times = try #require(result?.map(\.doubleValue), "never ended")
        #expect(abs(times[1] - 4) < 0.05 && times[0] >= times[1] - 0.001, "currentTime \(times[0]) of duration \(times[1])")

        for t in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5] {
            _ = try browser.script("window.seeked = null; v.onseeked = () => { window.seeked = v.currentTime; }; v.currentTime = \(t); return 0")
            let landed = try browser.waitFor("return [window.seeked, window.errors.length]") {
                guard let a = $0 as? [Any] else { return false }
                return a[0] is NSNumber || ((a[1] as? NSNumber)?.intValue ?? 0) > 0
            }
            let at = ((landed as? [Any])?[0] as? NSNumber)?.doubleValue
            #expect(at.map { abs($0 - t) < 0.001 } == true, "a seek to \(t) s landed at \(String(describing: at))")
        }
        #expect((try browser.script("return window.errors.length") as? NSNumber)?.intValue == 0)
        // The picture shown after the last seek: decoded (not blank) where base's copied GOP is.
        let frame = try browser.script("""
            const c = document.createElement('canvas'); c.width = 320; c.height = 240;
            const g = c.getContext('2d'); g.drawImage(v, 0, 0);
            const d = g.getImageData(0, 0, 320, 240).data; let s = 0; for (let i = 0; i < d.length; i += 4) s += d[i + 1];
            return s / (320 * 240)
            """) as? NSNumber
        #expect((frame?.doubleValue ?? 0) > 20, "the picture at 3.5 s is drawn: mean green \(frame?.doubleValue ?? 0)")
    }
}
