import ArgumentParser
import Foundation
@_spi(Tools) import MixWrite

struct Sync: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Where each FILE's sound lies on REF's timeline, and how fast its clock runs against REF's.",
        discussion: """
        Each FILE's offset is where its own time 0 falls on REF's timeline (positive: it started after REF); its drift, \
        how much longer (ppm) one of its seconds lasts on REF's clock. A FILE whose sound does not match REF's clearly \
        is reported with no offset, and the exit code is then 1.
        Example: mixwrite sync camera.mp4 lavalier.wav phone.m4a --json
        """
    )

    @Argument(help: "The reference: the recording whose timeline the others are placed on.")
    var reference: String

    @Argument(help: "The recordings to place on it.")
    var files: [String]

    @Option(name: .customLong("otio"), help: "Also write the synced recordings as an OpenTimelineIO timeline, each on tracks of its own at its place.")
    var otio: String?

    @Flag(name: [.customShort("y"), .customLong("overwrite")], help: "Replace the --otio file if it exists.")
    var overwrite = false

    @Flag(help: "Print {\"reference\": REF, \"sources\": [{\"file\", \"offsetSeconds\", \"driftPPM\", \"confidence\"}]}.")
    var json = false

    func run() throws {
        let report = try SyncReport(reference: reference, files: files)
        if let otio { try report.writeTimeline(to: otio, overwrite: overwrite) }
        if json {
            printJSON(report)
        } else {
            for m in report.sources {
                guard let offset = m.offsetSeconds, let drift = m.driftPPM else {
                    print("\(m.file)  no place  (confidence \(String(format: "%.2f", m.confidence)))")
                    continue
                }
                print("\(m.file)  at \(String(format: "%+.4f", offset)) s on \(reference)  drift \(String(format: "%+.1f", drift)) ppm"
                      + "  (confidence \(String(format: "%.2f", m.confidence)))")
            }
        }
        // Every file is reported first; then each failure is said on its line, and the first one's code is the exit's.
        for m in report.sources { if let e = report.errors[m.file] { writeLine("mixwrite: error: \(e.description)") } }
        if let first = report.sources.lazy.compactMap({ report.errors[$0.file] }).first { Mixwrite.exitQuietly(first.exitCode) }
    }
}
