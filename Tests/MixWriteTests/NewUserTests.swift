import Foundation
import Testing
import TestSupport

/// What a new user met on real footage and editors' files (each of these failed before it was fixed).
@Suite("What a new user met", .serialized)
struct NewUserTests {
    @Test("a track number that does not exist is refused, naming the tracks that do",
          arguments: [["--mute", "base:0"], ["--mute", "fx:3"], ["--gain", "base:9=-6"], ["--offset", "base:8=1"],
                      ["--duck", "fx:10"], ["--mute", "base:x"]])
    func missingTrack(_ option: [String]) throws {
        let dir = try Oracle.scratch()
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov")] + option + ["-o", dir + "/o.mov"])
        #expect(r.status == 1, "\(option): \(r.stderr)")
        let label = option[1].hasPrefix("fx") ? "fx:1 … fx:2" : "one audio track, base:1"
        #expect(r.stderr.contains("no such track") && r.stderr.contains(label), "\(option): \(r.stderr)")
        #expect(try Oracle.listing(dir).isEmpty)
    }
}
