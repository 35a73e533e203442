/// The text forms of option values, parsed in one place for the command line, job files and reports.
public enum OptionValue {
    /// `RRGGBB`, `#RRGGBB` or `0xRRGGBB` as RGB in [0, 1].
    public static func color(_ text: String) -> (r: Double, g: Double, b: Double)? {
        var hex = Substring(text)
        if hex.hasPrefix("#") { hex = hex.dropFirst() } else if hex.lowercased().hasPrefix("0x") { hex = hex.dropFirst(2) }
        guard hex.count == 6, hex.allSatisfy(\.isHexDigit), let v = UInt32(hex, radix: 16) else { return nil }
        return (Double(v >> 16 & 0xFF) / 255, Double(v >> 8 & 0xFF) / 255, Double(v & 0xFF) / 255)
    }

    /// RGB in [0, 1] as `RRGGBB`.
    public static func hex(_ c: (r: Double, g: Double, b: Double)) -> String {
        [c.r, c.g, c.b].map { v in
            let s = String(Int((min(max(v, 0), 1) * 255).rounded()), radix: 16, uppercase: true)
            return s.count == 1 ? "0" + s : s
        }.joined()
    }

    /// A bit rate: `192k`, `192000`.
    public static func bitRate(_ text: String) -> Int? {
        var digits = Substring(text.lowercased())
        var scale = 1
        if digits.hasSuffix("k") { digits = digits.dropLast(); scale = 1000 }
        guard let n = Int(digits), n > 0 else { return nil }
        return n * scale
    }

    /// A picture size: `1280x720`.
    public static func size(_ text: String) -> (width: Int, height: Int)? {
        let parts = text.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w > 0, h > 0 else { return nil }
        return (w, h)
    }
}
