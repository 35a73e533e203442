import Foundation

/// The text forms of option values, parsed in one place for the command line, job files and reports.
@_spi(Tools)
public enum OptionValue {
    /// `RRGGBB`, `#RRGGBB` or `0xRRGGBB` as RGB in [0, 1] (the key's colour, `ChromaKeyBlend.color(hex:)`).
    public static func color(_ text: String) -> (r: Double, g: Double, b: Double)? { ChromaKeyBlend.color(hex: text) }

    /// RGB in [0, 1] as `RRGGBB`.
    public static func hex(_ c: (r: Double, g: Double, b: Double)) -> String { ChromaKeyBlend.hex(c) }

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

    /// A rectangle: `X,Y,W,H` in whole pixels (`--place`); x and y may be negative (a layer partly outside).
    public static func rect(_ text: String) -> [Int]? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, parts.allSatisfy({ $0 != nil }) else { return nil }
        return parts.compactMap { $0 }
    }
}
