/// What smart rendering needs to know of an H.264 stream's bytes: its configuration record (ISO/IEC 14496-15's
/// `avcC`: the NAL length size, the parameter sets), the NAL units of a packet, whether a packet is an IDR picture,
/// and how two encoders' parameter sets live side by side in one record, each set by its own id (the standard allows
/// 32 SPS and 256 PPS in a stream; a slice names its PPS, the PPS its SPS). Bytes only: nothing is decoded.
struct AVCConfig: Equatable {
    var profile: UInt8
    var compatibility: UInt8
    var level: UInt8
    /// Bytes of each NAL unit's length in a packet (1, 2 or 4).
    var lengthSize: Int
    var sps: [[UInt8]]
    var pps: [[UInt8]]
    /// The High profiles' tail (chroma format, bit depths, SPS extensions), as it was; nil when absent.
    var tail: [UInt8]?

    /// Reads a record; nil when `bytes` is not one (Annex B extradata, as MPEG-TS gives, or none).
    init?(record bytes: [UInt8]) {
        guard bytes.count >= 7, bytes[0] == 1, bytes[4] & 3 != 2 else { return nil }
        (profile, compatibility, level, lengthSize) = (bytes[1], bytes[2], bytes[3], Int(bytes[4] & 3) + 1)
        var at = 5
        func sets() -> [[UInt8]]? {
            guard at < bytes.count else { return nil }
            let count = Int(bytes[at]) & (at == 5 ? 31 : 255)
            at += 1
            var out: [[UInt8]] = []
            for _ in 0..<count {
                guard at + 2 <= bytes.count else { return nil }
                let n = Int(bytes[at]) << 8 | Int(bytes[at + 1])
                guard n > 0, at + 2 + n <= bytes.count else { return nil }
                out.append(Array(bytes[at + 2..<at + 2 + n]))
                at += 2 + n
            }
            return out
        }
        guard let s = sets(), let p = sets(), !s.isEmpty, !p.isEmpty else { return nil }
        (sps, pps) = (s, p)
        tail = at < bytes.count ? Array(bytes[at...]) : nil
    }

    /// A record of the parameter sets in Annex B `bytes` (what libx264 gives as its extradata).
    init?(annexB bytes: [UInt8]) {
        let units = H264.units(annexB: bytes)
        let s = units.filter { H264.type($0) == 7 }, p = units.filter { H264.type($0) == 8 }
        guard let first = s.first, first.count >= 4, !p.isEmpty else { return nil }
        (profile, compatibility, level, lengthSize, sps, pps, tail) = (first[1], first[2], first[3], 4, s, p, nil)
    }

    /// The record's bytes.
    var bytes: [UInt8] {
        var out: [UInt8] = [1, profile, compatibility, level, 0xFC | UInt8(lengthSize - 1), 0xE0 | UInt8(sps.count)]
        for s in sps { out += [UInt8(s.count >> 8), UInt8(s.count & 255)] + s }
        out.append(UInt8(pps.count))
        for p in pps { out += [UInt8(p.count >> 8), UInt8(p.count & 255)] + p }
        return out + (tail ?? [])
    }

    /// The ids its SPS and PPS take.
    var spsIDs: Set<Int> { Set(sps.compactMap(H264.parameterSetID)) }
    var ppsIDs: Set<Int> { Set(pps.compactMap(H264.parameterSetID)) }

    /// This record with `other`'s parameter sets after its own, under the higher of the two profiles and levels and
    /// only the constraints both keep; nil when a set of `other` takes an id one of these takes with other bytes (or
    /// the NAL lengths differ). A High profile's tail is written when the merged profile needs one and this record had
    /// none (4:2:0, 8 bits, no SPS extension).
    func combined(with other: AVCConfig) -> AVCConfig? {
        guard lengthSize == other.lengthSize else { return nil }
        var m = self
        for s in other.sps where !m.sps.contains(s) {
            if let id = H264.parameterSetID(s), m.spsIDs.contains(id) { return nil }
            m.sps.append(s)
        }
        for p in other.pps where !m.pps.contains(p) {
            if let id = H264.parameterSetID(p), m.ppsIDs.contains(id) { return nil }
            m.pps.append(p)
        }
        (m.profile, m.level) = (max(profile, other.profile), max(level, other.level))
        m.compatibility = compatibility & other.compatibility
        if m.tail == nil && [100, 110, 122, 144].contains(Int(m.profile)) { m.tail = [0xFD, 0xF8, 0xF8, 0] }
        return m
    }
}

/// H.264's NAL units, read from a packet's bytes.
enum H264 {
    /// A NAL unit's type (5 an IDR slice, 1 another, 7 an SPS, 8 a PPS).
    static func type(_ unit: ArraySlice<UInt8>) -> Int { unit.first.map { Int($0 & 31) } ?? 0 }
    static func type(_ unit: [UInt8]) -> Int { type(unit[...]) }

    /// The units of a packet whose units are each preceded by their length in `lengthSize` bytes; nil when the
    /// lengths do not add up to the packet.
    static func units(_ packet: [UInt8], lengthSize: Int) -> [ArraySlice<UInt8>]? {
        var out: [ArraySlice<UInt8>] = []
        var at = 0
        while at < packet.count {
            guard at + lengthSize <= packet.count else { return nil }
            var n = 0
            for i in 0..<lengthSize { n = n << 8 | Int(packet[at + i]) }
            at += lengthSize
            guard n > 0, at + n <= packet.count else { return nil }
            out.append(packet[at..<at + n])
            at += n
        }
        return out
    }

    /// The units of Annex B bytes (each after a 00 00 01 start code; the zeros before one belong to no unit).
    static func units(annexB b: [UInt8]) -> [[UInt8]] {
        var starts: [Int] = []
        var i = 0
        while i + 2 < b.count {
            if b[i] == 0 && b[i + 1] == 0 && b[i + 2] == 1 { starts.append(i + 3); i += 3 } else { i += 1 }
        }
        return starts.enumerated().compactMap { (k, s) in
            var end = k + 1 < starts.count ? starts[k + 1] - 3 : b.count
            while end > s && b[end - 1] == 0 { end -= 1 }
            return end > s ? Array(b[s..<end]) : nil
        }
    }

    /// Annex B bytes as length-prefixed units (4 bytes each), as MP4 and Matroska store them.
    static func lengthPrefixed(annexB b: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(b.count + 8)
        for u in units(annexB: b) {
            let n = u.count
            out += [UInt8(n >> 24 & 255), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + u
        }
        return out
    }

    /// An SPS's or PPS's id: the first Exp-Golomb number after its header (an SPS's after profile, constraints and
    /// level). nil when the unit is too short.
    static func parameterSetID(_ unit: [UInt8]) -> Int? {
        var bits = BitReader(unit, from: type(unit) == 7 ? 4 : 1)
        return bits.exponentialGolomb()
    }

    /// The smallest id no SPS or PPS of `config` takes, for another encoder's sets to sit beside them.
    static func freeID(besides config: AVCConfig) -> Int? {
        let taken = config.spsIDs.union(config.ppsIDs)
        return (0..<32).first { !taken.contains($0) }
    }
}

/// Reads bits, skipping the emulation-prevention bytes (00 00 03) of a NAL unit.
struct BitReader {
    private let bytes: [UInt8]
    private var byte: Int
    private var bit = 0
    private var zeros = 0

    init(_ bytes: [UInt8], from byte: Int) { (self.bytes, self.byte) = (bytes, byte) }

    mutating func next() -> Int? {
        if bit == 0 {
            guard byte < bytes.count else { return nil }
            if zeros >= 2 && bytes[byte] == 3 {
                byte += 1
                zeros = 0
                guard byte < bytes.count else { return nil }
            }
            zeros = bytes[byte] == 0 ? zeros + 1 : 0
        }
        let v = Int(bytes[byte] >> (7 - bit)) & 1
        bit += 1
        if bit == 8 { (bit, byte) = (0, byte + 1) }
        return v
    }

    /// An unsigned Exp-Golomb number (`ue(v)`); nil past the end or beyond 32 bits.
    mutating func exponentialGolomb() -> Int? {
        var leading = 0
        while true {
            guard let b = next() else { return nil }
            if b == 1 { break }
            leading += 1
            if leading > 31 { return nil }
        }
        var v = 0
        for _ in 0..<leading {
            guard let b = next() else { return nil }
            v = v << 1 | b
        }
        return (1 << leading) - 1 + v
    }
}
