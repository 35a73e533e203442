/// How fx is keyed: GPUImage's chroma-key settings (key colour, threshold, smoothing) and the despill. Their
/// defaults are GPUImage's `init`'s, written here alone (the options, the page and the reports read them).
public struct KeySettings: Sendable, Hashable, Codable {
    /// The screen's colour. GPUImage's default: pure green.
    public var keyColor: KeyColor
    public var threshold: Double
    public var smoothing: Double
    /// Pull the key colour's cast out of kept fx pixels near the key (GPUImage has none).
    public var despill: Bool

    public init(keyColor: KeyColor = KeyColor(r: 0, g: 1, b: 0), threshold: Double = 0.4, smoothing: Double = 0.1,
                despill: Bool = false) {
        self.keyColor = keyColor
        self.threshold = threshold
        self.smoothing = smoothing
        self.despill = despill
    }

    enum CodingKeys: String, CodingKey { case keyColor, threshold, smoothing, despill }

    /// A report's key: `despill` may be left out (false).
    public init(from decoder: any Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        keyColor = try c.decode(KeyColor.self, forKey: .keyColor)
        threshold = try c.decode(Double.self, forKey: .threshold)
        smoothing = try c.decode(Double.self, forKey: .smoothing)
        despill = try c.decodeIfPresent(Bool.self, forKey: .despill) ?? false
    }

    /// "RRGGBB" as in the key colour, for reports.
    public var keyColorHex: String { keyColor.hex }
}

/// A key colour, RGB in [0, 1]; written as `RRGGBB` (in a report, a job file, the page).
public struct KeyColor: Sendable, Hashable, Codable {
    public var r: Double
    public var g: Double
    public var b: Double

    public init(r: Double, g: Double, b: Double) {
        (self.r, self.g, self.b) = (r, g, b)
    }

    init(_ rgb: (r: Double, g: Double, b: Double)) { self.init(r: rgb.r, g: rgb.g, b: rgb.b) }

    /// `RRGGBB`, `#RRGGBB` or `0xRRGGBB`; nil for anything else.
    public init?(hex: String) {
        guard let rgb = ChromaKeyBlend.color(hex: hex) else { return nil }
        self.init(rgb)
    }

    public var hex: String { ChromaKeyBlend.hex((r, g, b)) }

    public init(from decoder: any Swift.Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let c = KeyColor(hex: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not RRGGBB"))
        }
        self = c
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(hex)
    }
}
