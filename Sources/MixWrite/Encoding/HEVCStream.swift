/// What smart rendering needs to know of an HEVC stream's bytes: its configuration record (ISO/IEC 14496-15's `hvcC`:
/// the NAL length size, the parameter sets), a NAL unit's type, and which pictures start a GOP that decodes on its own.
/// libx265 gives every encoder the ids 0 for its VPS, SPS and PPS, so an encoded span's sets cannot sit beside an
/// input's in one record as H.264's do (`AVCConfig`): a smart HEVC track carries them in-band instead, each GOP's
/// first picture led by its own stream's sets (the `hev1` sample entry, whose record need not hold every set).
/// Bytes only: nothing is decoded.
struct HVCConfig: Equatable {
    /// The record's bytes as they were (empty for sets read from Annex B).
    var record: [UInt8]
    /// Bytes of each NAL unit's length in a packet (1, 2 or 4).
    var lengthSize: Int
    /// The record's VPS, SPS and PPS units, in that order.
    var parameterSets: [[UInt8]]

    /// Reads a record; nil when `bytes` is not one (Annex B extradata, or none) or it holds no SPS.
    init?(record bytes: [UInt8]) {
        guard bytes.count >= 23, bytes[0] == 1 else { return nil }
        (record, lengthSize) = (bytes, Int(bytes[21] & 3) + 1)
        var at = 23, sets: [[UInt8]] = []
        for _ in 0..<Int(bytes[22]) {
            guard at + 3 <= bytes.count else { return nil }
            let count = Int(bytes[at + 1]) << 8 | Int(bytes[at + 2])
            at += 3
            for _ in 0..<count {
                guard at + 2 <= bytes.count else { return nil }
                let n = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                guard n >= 2, at + 2 + n <= bytes.count else { return nil }
                sets.append(Array(bytes[at + 2..<at + 2 + n]))
                at += 2 + n
            }
        }
        parameterSets = HEVC.parameterSets(in: sets)
        guard parameterSets.contains(where: { HEVC.type($0) == HEVC.sps }) else { return nil }
    }

    /// The parameter sets of Annex B `bytes` (what libx265 gives as its extradata), with the length size the encoder's
    /// packets take once length-prefixed.
    init?(annexB bytes: [UInt8]) {
        parameterSets = HEVC.parameterSets(in: H264.units(annexB: bytes))
        guard parameterSets.contains(where: { HEVC.type($0) == HEVC.sps }) else { return nil }
        (record, lengthSize) = ([], 4)
    }

    /// The parameter sets as a packet's leading NAL units, `lengthSize`-byte lengths first.
    var leadingUnits: [UInt8] {
        parameterSets.flatMap { unit -> [UInt8] in
            (0..<lengthSize).reversed().map { UInt8(truncatingIfNeeded: unit.count >> (8 * $0)) } + unit
        }
    }
}

/// HEVC's NAL unit types (ITU-T H.265, table 7-1) as smart rendering reads them.
enum HEVC {
    static let vps = 32, sps = 33, pps = 34

    /// A unit's type (the first byte's bits 1…6).
    static func type<C: Collection<UInt8>>(_ unit: C) -> Int { unit.first.map { Int($0 >> 1) & 63 } ?? -1 }

    /// Pictures that decode without any before them and whose followers need nothing before them: IDR (with or
    /// without decodable leading pictures).
    static func isIDR(_ type: Int) -> Bool { type == 19 || type == 20 }
    /// A clean random access picture: a GOP start only when no skipped leading picture (RASL) follows it.
    static func isCRA(_ type: Int) -> Bool { type == 21 }
    /// A random access point (IRAP: BLA, IDR, CRA): a picture a decoder may start at.
    static func isIRAP(_ type: Int) -> Bool { (16...23).contains(type) }
    /// A leading picture that refers to pictures before its CRA (an open GOP's).
    static func isRASL(_ type: Int) -> Bool { type == 8 || type == 9 }
    /// A leading picture (RADL or RASL): decoded after its IRAP picture, shown before it.
    static func isLeading(_ type: Int) -> Bool { (6...9).contains(type) }
    /// A picture of any kind (VCL: types 0…31).
    static func isPicture(_ type: Int) -> Bool { (0...31).contains(type) }

    /// The VPS, SPS and PPS among `units`, in that order (a decoder reads a set before the sets that name it).
    static func parameterSets(in units: [[UInt8]]) -> [[UInt8]] {
        [vps, sps, pps].flatMap { t in units.filter { type($0) == t } }
    }

    /// Which packets start a closed GOP, from each packet's units' types in decode order: an IDR picture, or a CRA
    /// picture no RASL picture follows before the next picture that is not a leading one.
    static func closedStarts(_ types: [[Int]]) -> [Bool] {
        types.indices.map { i in
            if types[i].contains(where: isIDR) { return true }
            guard types[i].contains(where: isCRA) else { return false }
            for later in types[(i + 1)...] {
                let pictures = later.filter(isPicture)
                if pictures.contains(where: isRASL) { return false }
                if pictures.contains(where: { !isLeading($0) }) { break }
            }
            return true
        }
    }
}
