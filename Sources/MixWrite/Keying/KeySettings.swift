/// Which keyer keys fx: GPUImage's formula (the default, bit for bit GPUImage's blend) or the fine keyer for real
/// screens (`FineKeyer`: uneven, noisy, 4:2:0, spilling).
public enum Keyer: String, Sendable, Hashable, Codable, CaseIterable {
    case gpuimage, fine
}

/// How fx is keyed: the keyer, GPUImage's chroma-key settings (key colour, threshold, smoothing) and the despill, and
/// the matte's refinements (garbage rectangles, choke, feather). GPUImage's defaults are its `init`'s, written here
/// alone (the options, the page and the reports read them).
public struct KeySettings: Sendable, Hashable {
    public var keyer: Keyer
    /// The screen's colour. GPUImage's default: pure green.
    public var keyColor: KeyColor
    /// Whether `keyColor` was set (`--key-color RRGGBB`, or kept as the default where fx's border is no screen). The
    /// fine keyer given none reads the screen's colour from fx's border, as `--key-color auto` does; GPUImage's formula
    /// keys by pure green.
    public var keyColorSet = false
    /// GPUImage's formula's (the fine keyer learns the screen's spread itself).
    public var threshold: Double
    public var smoothing: Double
    /// GPUImage's keyer: pull the key colour's cast out of kept fx pixels near the key (GPUImage has none).
    public var despill: Bool
    /// The fine keyer: how much of the screen's spill it takes out near the screen, 0 … 1.
    public var despillStrength: Double
    /// Rectangles (x, y, width, height in fx's pixels as it is keyed) outside which fx is always cut; none: no garbage
    /// matte.
    public var garbage: [[Int]]
    /// Pixels the matte shrinks by, and over which it is softened.
    public var choke: Int
    public var feather: Int
    /// `--clean-plate`: a picture or clip of the empty screen, filmed as fx is (the fine keyer's screen at each pixel);
    /// nil: the screen is learnt from fx.
    public var cleanPlate: String?

    public init(keyColor: KeyColor = KeyColor(r: 0, g: 1, b: 0), threshold: Double = 0.4, smoothing: Double = 0.1,
                despill: Bool = false) {
        self.keyer = .gpuimage
        self.keyColor = keyColor
        self.threshold = threshold
        self.smoothing = smoothing
        self.despill = despill
        (despillStrength, garbage, choke, feather) = (1, [], 0, 0)
    }

    /// The matte is made as a picture of its own (the fine keyer's, or GPUImage's refined) rather than GPUImage's
    /// blend keying each pixel as it blends.
    public var makesMatte: Bool { keyer == .fine || !garbage.isEmpty || choke > 0 || feather > 0 }

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
