import FFmpegSupport
import Foundation

/// An `.otioz` bundle, as OTIO's `otioz` adapter writes one: a zip of the timeline (`content.otio`, deflated) and its
/// media (`media/NAME`, stored, which the timeline's references name relative to the bundle). The timeline is inflated
/// (zlib); a stored medium is read where it lies in the zip, through FFmpeg's `subfile` protocol: nothing is unpacked
/// or copied. Zip64 (a bundle past 4 GB) is read; an encrypted entry, or a compressed medium, is refused.
struct OTIOBundle: Sendable {
    struct Entry: Sendable {
        var method: UInt16
        var compressedSize: UInt64
        var size: UInt64
        var headerOffset: UInt64
        var encrypted: Bool
    }

    /// The bundle, absolute (a medium's `subfile` URL holds it).
    let path: String
    let entries: [String: Entry]
    /// The bundle's length in bytes.
    private let fileLength: UInt64

    /// A content.otio larger than this is refused (a timeline of a million clips is some hundreds of MB).
    static let timelineLimit: UInt64 = OTIOTimeline.largestJSON

    init(path given: String) throws(MixWriteError) {
        path = URL(fileURLWithPath: given).standardizedFileURL.path
        try MediaFile.checkReadable(given)
        guard let file = FileHandle(forReadingAtPath: path) else { throw .input(file: given, "cannot be read") }
        defer { try? file.close() }
        let notZip = MixWriteError.usage("\(given): is not an OTIO bundle (.otioz): not a zip file")
        guard let end = try? file.seekToEnd(), end >= 22 else { throw notZip }
        fileLength = end
        // The end record is the last 22 bytes, before a comment of at most 65,535.
        let tailLength = Int(min(end, 22 + 65_535))
        let tailStart = end - UInt64(tailLength)
        guard let tail = Self.read(file, at: tailStart, count: tailLength) else { throw .input(file: given, "cannot be read") }
        guard let e = stride(from: tailLength - 22, through: 0, by: -1).first(where: { tail.u32($0) == 0x0605_4b50 }) else { throw notZip }
        var count = UInt64(tail.u16(e + 10)), directorySize = UInt64(tail.u32(e + 12)), directoryOffset = UInt64(tail.u32(e + 16))
        if count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryOffset == 0xFFFF_FFFF {
            // Zip64: a locator just before the end record points at the 64-bit end record.
            let at = tailStart + UInt64(e)
            guard at >= 20, let locator = Self.read(file, at: at - 20, count: 20), locator.u32(0) == 0x0706_4b50,
                  let record = Self.read(file, at: locator.u64(8), count: 56), record.u32(0) == 0x0606_4b50 else { throw notZip }
            (count, directorySize, directoryOffset) = (record.u64(32), record.u64(40), record.u64(48))
        }
        guard directorySize <= 64 << 20, directoryOffset <= end, directorySize <= end - directoryOffset,
              count <= directorySize / 46 + 1,
              let directory = Self.read(file, at: directoryOffset, count: Int(directorySize)) else { throw notZip }
        var entries: [String: Entry] = [:]
        var p = 0
        for _ in 0..<count {
            guard p + 46 <= directory.count, directory.u32(p) == 0x0201_4b50 else { throw notZip }
            let nameLength = Int(directory.u16(p + 28)), extraLength = Int(directory.u16(p + 30)), commentLength = Int(directory.u16(p + 32))
            guard p + 46 + nameLength + extraLength + commentLength <= directory.count else { throw notZip }
            let name = String(decoding: directory[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            var entry = Entry(method: directory.u16(p + 10), compressedSize: UInt64(directory.u32(p + 20)), size: UInt64(directory.u32(p + 24)),
                              headerOffset: UInt64(directory.u32(p + 42)), encrypted: directory.u16(p + 8) & 1 != 0)
            // Zip64's extra field holds, in this order, the sizes and the offset the 32-bit fields could not.
            var x = p + 46 + nameLength
            let extraEnd = x + extraLength
            while x + 4 <= extraEnd {
                let id = directory.u16(x), length = Int(directory.u16(x + 2))
                guard x + 4 + length <= extraEnd else { break }
                if id == 1 {
                    var field = x + 4
                    func next(_ value: inout UInt64) {
                        guard value == 0xFFFF_FFFF, field + 8 <= x + 4 + length else { return }
                        value = directory.u64(field)
                        field += 8
                    }
                    next(&entry.size)
                    next(&entry.compressedSize)
                    next(&entry.headerOffset)
                }
                x += 4 + length
            }
            entries[name] = entry
            p = extraEnd + commentLength
        }
        self.entries = entries
    }

    /// The timeline (`content.otio`), inflated.
    func timeline() throws(MixWriteError) -> Data {
        let name = (path as NSString).lastPathComponent
        guard let entry = entries["content.otio"] else {
            throw .usage("\(path): is not an OTIO bundle: it has no content.otio")
        }
        guard !entry.encrypted else { throw .usage("\(path): its content.otio is encrypted") }
        guard entry.size <= Self.timelineLimit else {
            throw .usage("\(path): its content.otio is \(entry.size >> 20) MB, more than a timeline mixwrite reads (\(Self.timelineLimit >> 20) MB)")
        }
        guard let file = FileHandle(forReadingAtPath: path) else { throw .input(file: path, "cannot be read") }
        defer { try? file.close() }
        guard let start = dataStart(entry, file), entry.compressedSize <= fileLength - start,
              let bytes = Self.read(file, at: start, count: Int(entry.compressedSize)) else {
            throw .usage("\(path): its content.otio is damaged (it lies past the end of \(name))")
        }
        switch entry.method {
        case 0 where entry.size == entry.compressedSize: return Data(bytes)
        case 8:
            // Deflate makes at most 1,032 bytes of one (a size past that is a damaged record, not a timeline).
            guard entry.size <= entry.compressedSize * 1032 + 64, let data = Deflate.inflate(Data(bytes), size: Int(entry.size)) else {
                throw .usage("\(path): its content.otio is damaged (it does not inflate to its recorded size)")
            }
            return data
        default: throw .usage("\(path): its content.otio is compressed by method \(entry.method), not deflate")
        }
    }

    /// The URL FFmpeg reads the bundle's medium `name` at (relative to the bundle, as its timeline names it), or nil when
    /// the bundle has no such entry; a medium that is compressed, encrypted or cut short is refused (`MediumProblem`'s text).
    func medium(_ name: String) -> Result<String, MediumProblem>? {
        var key = name
        while key.hasPrefix("./") { key.removeFirst(2) }
        guard let entry = entries[key] else { return nil }
        guard !entry.encrypted, entry.method == 0, entry.size == entry.compressedSize else {
            return .failure(MediumProblem(message: "its media \(key) is \(entry.encrypted ? "encrypted" : "compressed") in the bundle: "
                                          + "mixwrite reads media stored as OTIO's otioz writes them"))
        }
        guard let file = FileHandle(forReadingAtPath: path) else { return .failure(MediumProblem(message: "\(path) cannot be read")) }
        defer { try? file.close() }
        guard let start = dataStart(entry, file), entry.size <= fileLength - start else {
            return .failure(MediumProblem(message: "its media \(key) is damaged in the bundle (it lies past its end)"))
        }
        let url = "subfile,,start,\(start),end,\(start + entry.size),,:\(path)"
        MediaPath.name(url, "\(path)/\(key)")
        return .success(url)
    }

    struct MediumProblem: Error { var message: String }

    /// Where an entry's bytes start: after its local header (whose name and extra field have their own lengths).
    private func dataStart(_ entry: Entry, _ file: FileHandle) -> UInt64? {
        guard entry.headerOffset <= fileLength, let header = Self.read(file, at: entry.headerOffset, count: 30),
              header.u32(0) == 0x0403_4b50 else { return nil }
        let start = entry.headerOffset + 30 + UInt64(header.u16(26)) + UInt64(header.u16(28))
        return start <= fileLength ? start : nil
    }

    private static func read(_ file: FileHandle, at offset: UInt64, count: Int) -> [UInt8]? {
        guard (try? file.seek(toOffset: offset)) != nil else { return nil }
        guard count > 0 else { return [] }
        guard let data = try? file.read(upToCount: count), data.count == count else { return nil }
        return [UInt8](data)
    }
}

private extension [UInt8] {
    func u16(_ i: Int) -> UInt16 { UInt16(self[i]) | UInt16(self[i + 1]) << 8 }
    func u32(_ i: Int) -> UInt32 { UInt32(u16(i)) | UInt32(u16(i + 2)) << 16 }
    func u64(_ i: Int) -> UInt64 { UInt64(u32(i)) | UInt64(u32(i + 4)) << 32 }
}
