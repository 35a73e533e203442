import ArgumentParser
import Foundation
import MixWrite

#if canImport(Glibc)
import Glibc
#endif

struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "probe",
        abstract: "List every stream of each file: kind, codec, size, rate, layout, duration, rotation.",
        discussion: "Example: mixwrite probe phone.mov fx.mov --json"
    )

    @Argument(help: "The files to read.")
    var files: [String]

    @Flag(help: "Print a JSON array, one object a file, each with a 'streams' array.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors: the exit code says whether every file can be read (2 if one cannot).")
    var quiet = false

    func run() throws {
        let reports = files.map { ProbeReport.probe($0) }
        if quiet {
            for r in reports where r.error != nil {
                writeLine("mixwrite: error: \(r.file): \((r.error ?? "").replacingPrefix("\(r.file): ", with: ""))")
            }
            if reports.contains(where: { $0.error != nil }) { Mixwrite.exitQuietly(2) }
            return
        } else if json {
            printJSON(reports)
        } else {
            for r in reports { printTable(r) }
        }
        // Every file is printed first; then one unreadable file makes the exit code 2.
        if let bad = reports.first(where: { $0.error != nil }) {
            throw MixWriteError.input(file: bad.file, (bad.error ?? "").replacingPrefix("\(bad.file): ", with: ""))
        }
    }

    /// A rate as a person reads it: `30000/1001` as 29.97, `25/1` as 25 (the JSON keeps the exact fraction).
    static func decimal(_ rational: String) -> String {
        let parts = rational.split(separator: "/").compactMap { Double($0) }
        guard parts.count == 2, parts[1] != 0 else { return rational }
        let x = parts[0] / parts[1]
        return x == x.rounded() ? String(Int(x)) : String(format: "%.2f", x)
    }

    private func printTable(_ r: ProbeReport) {
        if let error = r.error {
            print("\(r.file): \(error.replacingPrefix("\(r.file): ", with: ""))\n")
            return
        }
        let d = r.duration.map { String(format: "%.3f s", $0) } ?? "?"
        print("\(r.file)  (\(r.format ?? "?"), \(d))")
        for s in r.streams {
            var parts = ["  #\(s.index)", s.kind, s.codec + (s.profile.map { " (\($0))" } ?? "")]
            if let w = s.width, let h = s.height { parts.append("\(w)x\(h)") }
            if let p = s.pixelFormat { parts.append(p) }
            if let sar = s.sampleAspectRatio { parts.append("SAR \(sar)") }
            if let f = s.frameRate { parts.append("\(Self.decimal(f)) fps") }
            if let r = s.sampleRate { parts.append("\(r) Hz") }
            if let l = s.layout { parts.append(l.isEmpty ? "\(s.channels ?? 0) ch" : l) }
            if let d = s.duration { parts.append(String(format: "%.3f s", d)) }
            if let rot = s.rotation, rot != 0 { parts.append("rotated \(rot)°") }
            if s.reflected == true { parts.append("mirrored") }
            if let hdr = s.hdr { parts.append("HDR \(hdr) (\(s.primaries ?? "unknown"))") }
            if s.alpha == true { parts.append("alpha") }
            if let l = s.language { parts.append("[\(l)]") }
            if let t = s.title { parts.append("\"\(t)\"") }
            if let c = s.cues { parts.append("\(c) cue\(c == 1 ? "" : "s")") }
            if s.attachedPicture == true { parts.append("cover art") }
            if s.kind == "audio" && s.channels == 0 { parts.append("NOT USABLE: no channels") } else if !s.decodable { parts.append("NOT DECODABLE") }
            print(parts.joined(separator: "  "))
        }
        if let t = r.timecode { print("  timecode \(t)") }
        for c in r.chapters ?? [] {
            print(String(format: "  chapter %.3f–%.3f s  ", c.start, c.end) + (c.title.isEmpty ? "(untitled)" : c.title))
        }
        print("")
    }
}
