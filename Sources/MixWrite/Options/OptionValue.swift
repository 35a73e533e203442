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

    /// A bit rate as the command line writes it: `192k` for 192000, else the number.
    public static func bitRateText(_ n: Int) -> String { n % 1000 == 0 ? "\(n / 1000)k" : String(n) }

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

extension OptionValue {
    /// The name of `names` a mistyped `word` most likely meant (`--key-colour` → `--key-color`, `treshold` →
    /// `threshold`): the nearest by edits (insert, delete, change, or swap two neighbours), within a third of its
    /// length; nil when none is that near.
    static func nearest(_ word: String, in names: [String]) -> String? {
        let w = Array(word.lowercased())
        var best: (name: String, distance: Int)?
        for name in names {
            let n = Array(name.lowercased())
            var d = Array(repeating: Array(repeating: 0, count: n.count + 1), count: w.count + 1)
            for i in 0...w.count { d[i][0] = i }
            for j in 0...n.count { d[0][j] = j }
            if !w.isEmpty && !n.isEmpty {
                for i in 1...w.count {
                    for j in 1...n.count {
                        d[i][j] = Swift.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (w[i - 1] == n[j - 1] ? 0 : 1))
                        if i > 1, j > 1, w[i - 1] == n[j - 2], w[i - 2] == n[j - 1] { d[i][j] = Swift.min(d[i][j], d[i - 2][j - 2] + 1) }
                    }
                }
            }
            let distance = d[w.count][n.count]
            if distance <= Swift.max(1, n.count / 3), distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// " (did you mean 'X'?)" for `word` among `names`, or nothing.
    static func didYouMean(_ word: String, in names: [String]) -> String {
        nearest(word, in: names).map { " (did you mean '\($0)'?)" } ?? ""
    }
}
