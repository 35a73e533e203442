import Foundation
import FFmpegSupport

/// A caption file read and checked line by line (SubRip, WebVTT, ASS/SSA), so a bad one is refused naming its line
/// before anything is written. FFmpeg's demuxers, which read it for the output, forgive what this refuses: a bad
/// timestamp line, cues out of order, an ASS `Dialogue` before its section's `Format`, text that is not UTF-8
/// (unless its encoding is given).
struct CaptionFile: Sendable {
    enum Format: String, Sendable { case srt, vtt, ass }

    let path: String
    let format: Format
    /// Each cue's times on the file's own clock, in the file's order.
    let cues: [(start: MediaTime, end: MediaTime)]
    /// The fonts an ASS file's styles name (none for SubRip and WebVTT, drawn in FFmpeg's default style).
    let fonts: [String]

    /// Reads `path`; `encoding` (an iconv name, `latin1`) when its text is not UTF-8.
    init(path: String, encoding: String? = nil) throws(MixWriteError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .input(file: path, FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist")
        }
        let ext = (path as NSString).pathExtension.lowercased()
        let text = try Self.text(data, path: path, encoding: encoding)
        let lines = text.components(separatedBy: "\n").map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
        let first = lines.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? ""
        if first.hasPrefix("WEBVTT") {
            format = .vtt
        } else if first.hasPrefix("[Script Info]") || ext == "ass" || ext == "ssa" {
            format = .ass
        } else if ext == "srt" || first.allSatisfy(\.isNumber) || first.contains("-->") {
            format = .srt
        } else {
            throw .input(file: path, "is not a caption file mixwrite reads (SubRip .srt, WebVTT .vtt, ASS/SSA .ass)")
        }
        switch format {
        case .srt, .vtt: cues = try Self.timedBlocks(lines, path: path, webVTT: format == .vtt)
        case .ass: cues = try Self.dialogues(lines, path: path)
        }
        fonts = format == .ass ? Self.styleFonts(lines) : []
        if cues.isEmpty { throw .input(file: path, "has no cue") }
    }

    /// The file's text: UTF-8 (its byte-order mark dropped), else converted from `encoding`; without one, the first
    /// line that is not UTF-8 named.
    static func text(_ data: Data, path: String, encoding: String?) throws(MixWriteError) -> String {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        if let encoding {
            guard let e = Self.encoding(named: encoding), let s = String(data: Data(bytes), encoding: e) else {
                throw .input(file: path, "cannot be read as \(encoding) (charenc=)")
            }
            return s
        }
        if let s = String(validating: bytes, as: UTF8.self) { return s }
        var line = 1
        for raw in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if String(validating: raw, as: UTF8.self) == nil { break }
            line += 1
        }
        throw .input(file: path, "line \(line): the text is not UTF-8; say its encoding, e.g. \(path):charenc=latin1")
    }

    /// The encodings `charenc=` names (as iconv and FFmpeg's `sub_charenc` spell them).
    static func encoding(named name: String) -> String.Encoding? {
        switch name.lowercased().replacingOccurrences(of: "_", with: "-") {
        case "utf-8", "utf8": .utf8
        case "latin1", "iso-8859-1", "iso8859-1": .isoLatin1
        case "latin2", "iso-8859-2": .isoLatin2
        case "cp1252", "windows-1252": .windowsCP1252
        case "cp1250", "windows-1250": .windowsCP1250
        case "cp1251", "windows-1251": .windowsCP1251
        case "utf-16", "utf16": .utf16
        case "shift-jis", "sjis", "cp932": .shiftJIS
        default: nil
        }
    }

    /// SubRip's and WebVTT's blocks: an optional number or name, a `START --> END` line, text to a blank line. WebVTT's
    /// `NOTE`, `STYLE` and `REGION` blocks are skipped.
    static func timedBlocks(_ lines: [String], path: String, webVTT: Bool) throws(MixWriteError) -> [(start: MediaTime, end: MediaTime)] {
        var cues: [(start: MediaTime, end: MediaTime)] = []
        var i = webVTT ? (lines.firstIndex { $0.hasPrefix("WEBVTT") } ?? 0) + 1 : 0
        while i < lines.count {
            let line = lines[i].trimmingCharacters(in: .whitespaces)
            if line.isEmpty { i += 1; continue }
            if webVTT && (line.hasPrefix("NOTE") || line == "STYLE" || line == "REGION") {
                while i < lines.count && !lines[i].trimmingCharacters(in: .whitespaces).isEmpty { i += 1 }
                continue
            }
            // The cue's number (SubRip) or name (WebVTT), then its timing.
            var timing = i
            if !line.contains("-->") { timing = i + 1 }
            guard timing < lines.count, lines[timing].contains("-->") else {
                throw .input(file: path, "line \(timing + 1): expected a timing line START --> END after '\(line.prefix(40))'")
            }
            let cue = try Self.timing(lines[timing], line: timing + 1, path: path, webVTT: webVTT)
            if let last = cues.last, cue.start < last.start {
                throw .input(file: path, "line \(timing + 1): cues out of order (this one starts at \(Self.clock(cue.start)), "
                             + "before the one above at \(Self.clock(last.start)))")
            }
            cues.append(cue)
            i = timing + 1
            while i < lines.count && !lines[i].trimmingCharacters(in: .whitespaces).isEmpty { i += 1 }
        }
        return cues
    }

    /// `00:00:01,000 --> 00:00:02,500` (SubRip; a dot is read as the comma), `00:01.000 --> 00:02.500 align:start`
    /// (WebVTT, its hours optional and its settings after the end).
    static func timing(_ text: String, line: Int, path: String, webVTT: Bool) throws(MixWriteError) -> (start: MediaTime, end: MediaTime) {
        let halves = text.components(separatedBy: "-->")
        let start = halves.first?.trimmingCharacters(in: .whitespaces) ?? ""
        let end = halves.count == 2 ? String(halves[1].trimmingCharacters(in: .whitespaces).prefix { !$0.isWhitespace }) : ""
        guard halves.count == 2, let a = Self.time(start, hoursOptional: webVTT), let b = Self.time(end, hoursOptional: webVTT) else {
            let form = webVTT ? "[HH:]MM:SS.mmm --> [HH:]MM:SS.mmm" : "HH:MM:SS,mmm --> HH:MM:SS,mmm"
            throw .input(file: path, "line \(line): '\(text.prefix(60))' is not a timing line (\(form))")
        }
        guard b >= a else { throw .input(file: path, "line \(line): the cue ends (\(end)) before it starts (\(start))") }
        return (a, b)
    }

    /// `HH:MM:SS,mmm` or `HH:MM:SS.mmm` (`MM:SS.mmm` where hours are optional), as exact milliseconds.
    static func time(_ text: String, hoursOptional: Bool) -> MediaTime? {
        let fields = text.replacingOccurrences(of: ",", with: ".").split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count == 3 || (hoursOptional && fields.count == 2) else { return nil }
        let secondsParts = fields.last!.split(separator: ".", omittingEmptySubsequences: false)
        guard secondsParts.count == 2, secondsParts[1].count == 3, secondsParts[0].count == 2,
              let s = Int(secondsParts[0]), let ms = Int(secondsParts[1]), s < 60,
              let m = Int(fields[fields.count - 2]), m < 60, fields[fields.count - 2].count == 2 else { return nil }
        let h = fields.count == 3 ? Int(fields[0]) : 0
        guard let h, h >= 0, !(fields.count == 3 && fields[0].isEmpty) else { return nil }
        return MediaTime(value: Int64(((h * 60 + m) * 60 + s) * 1000 + ms), timescale: Int64(1000))
    }

    /// ASS's and SSA's `[Events]`: a `Format:` line naming the fields, then `Dialogue:` lines with `Start` and `End`
    /// (`H:MM:SS.cc`). Their order is free (a renderer sorts them), so it is not checked.
    static func dialogues(_ lines: [String], path: String) throws(MixWriteError) -> [(start: MediaTime, end: MediaTime)] {
        var cues: [(start: MediaTime, end: MediaTime)] = []
        var section = "", format: [String]? = nil
        for (n, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") && line.hasSuffix("]") { (section, format) = (line.lowercased(), nil); continue }
            guard section == "[events]" else { continue }
            if line.hasPrefix("Format:") {
                format = line.dropFirst(7).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
                continue
            }
            guard line.hasPrefix("Dialogue:") else { continue }
            guard let format, let s = format.firstIndex(of: "start"), let e = format.firstIndex(of: "end") else {
                throw .input(file: path, "line \(n + 1): a Dialogue line before its [Events] section's Format line (one naming Start and End)")
            }
            let fields = line.dropFirst(9).split(separator: ",", maxSplits: max(0, format.count - 1), omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard fields.count == format.count, let a = Self.assTime(fields[s]), let b = Self.assTime(fields[e]) else {
                throw .input(file: path, "line \(n + 1): the Dialogue line does not have its Format's \(format.count) fields with "
                             + "times H:MM:SS.CC")
            }
            guard b >= a else { throw .input(file: path, "line \(n + 1): the Dialogue ends (\(fields[e])) before it starts (\(fields[s]))") }
            cues.append((a, b))
        }
        if cues.isEmpty && !lines.contains(where: { $0.lowercased().hasPrefix("[events]") }) {
            throw .input(file: path, "has no [Events] section")
        }
        return cues
    }

    /// The `Fontname` of each `Style:` line, by its section's `Format:`, once each.
    static func styleFonts(_ lines: [String]) -> [String] {
        var format: [String] = [], fonts: [String] = []
        for raw in lines {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") { format = [] }
            if line.hasPrefix("Format:") { format = line.dropFirst(7).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() } }
            guard line.hasPrefix("Style:"), let n = format.firstIndex(of: "fontname") else { continue }
            let fields = line.dropFirst(6).split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            if n < fields.count, !fields[n].isEmpty, !fonts.contains(fields[n]) { fonts.append(fields[n]) }
        }
        return fonts
    }

    /// What fontconfig draws `fonts` in where it has not one of them: `(asked, given)`; none when `fc-match` is not here.
    static func substitutes(_ fonts: [String]) -> [(asked: String, given: String)] {
        fonts.compactMap { font in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/fc-match")
            p.arguments = ["-f", "%{family}", font]
            let out = Pipe()
            (p.standardOutput, p.standardError, p.standardInput) = (out, FileHandle.nullDevice, FileHandle.nullDevice)
            guard (try? p.run()) != nil else { return nil }
            let given = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            let families = given.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard p.terminationStatus == 0, !families.isEmpty, !families.contains(font.lowercased()) else { return nil }
            return (font, given.split(separator: ",").first.map(String.init) ?? given)
        }
    }

    /// ASS's `H:MM:SS.cc` (hundredths).
    static func assTime(_ text: String) -> MediaTime? {
        let f = text.split(separator: ":", omittingEmptySubsequences: false)
        guard f.count == 3, let h = Int(f[0]), let m = Int(f[1]), m < 60 else { return nil }
        let sec = f[2].split(separator: ".", omittingEmptySubsequences: false)
        guard sec.count == 2, let s = Int(sec[0]), s < 60, !sec[1].isEmpty, sec[1].count <= 3, let frac = Int(sec[1]) else { return nil }
        let ms = frac * (sec[1].count == 1 ? 100 : sec[1].count == 2 ? 10 : 1)
        return MediaTime(value: Int64(((h * 60 + m) * 60 + s) * 1000 + ms), timescale: Int64(1000))
    }

    /// `HH:MM:SS.mmm`, for messages.
    static func clock(_ t: MediaTime) -> String {
        let ms = t.ticks(in: Rational(1, 1000))
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
