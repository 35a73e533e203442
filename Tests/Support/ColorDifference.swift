import Foundation

/// CIEDE2000 (Sharma, Wu and Dalal's formulation) between pictures of 8-bit sRGB/BT.709 RGB, by way of CIELAB
/// (D65): how far apart two renderings of the same picture look.
public enum ColorDifference {
    /// The mean CIEDE2000 of two packed RGB24 pictures of the same size.
    public static func meanCIEDE2000(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && a.count % 3 == 0)
        var sum = 0.0
        for i in stride(from: 0, to: a.count, by: 3) {
            sum += ciede2000(lab(a[i], a[i + 1], a[i + 2]), lab(b[i], b[i + 1], b[i + 2]))
        }
        return sum / Double(a.count / 3)
    }

    /// CIELAB of an 8-bit sRGB colour (the BT.709 primaries and D65 white).
    public static func lab(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (l: Double, a: Double, b: Double) {
        func linear(_ v: UInt8) -> Double {
            let c = Double(v) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        let (rl, gl, bl) = (linear(r), linear(g), linear(b))
        let x = (0.4124 * rl + 0.3576 * gl + 0.1805 * bl) / 0.95047
        let y = 0.2126 * rl + 0.7152 * gl + 0.0722 * bl
        let z = (0.0193 * rl + 0.1192 * gl + 0.9505 * bl) / 1.08883
        func f(_ t: Double) -> Double { t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116 }
        return (116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z)))
    }

    public static func ciede2000(_ p: (l: Double, a: Double, b: Double), _ q: (l: Double, a: Double, b: Double)) -> Double {
        let rad = Double.pi / 180
        let c1 = hypot(p.a, p.b), c2 = hypot(q.a, q.b), cm = (c1 + c2) / 2
        let g = 0.5 * (1 - (pow(cm, 7) / (pow(cm, 7) + pow(25, 7))).squareRoot())
        let a1 = (1 + g) * p.a, a2 = (1 + g) * q.a
        let c1p = hypot(a1, p.b), c2p = hypot(a2, q.b)
        func hue(_ b: Double, _ a: Double) -> Double {
            let h = atan2(b, a) / rad
            return h < 0 ? h + 360 : h
        }
        let h1 = hue(p.b, a1), h2 = hue(q.b, a2)
        var dh = h2 - h1
        if c1p * c2p == 0 { dh = 0 } else if dh > 180 { dh -= 360 } else if dh < -180 { dh += 360 }
        let dL = q.l - p.l, dC = c2p - c1p
        let dH = 2 * (c1p * c2p).squareRoot() * sin(dh / 2 * rad)
        let lm = (p.l + q.l) / 2, cmp = (c1p + c2p) / 2
        var hm = h1 + h2
        if c1p * c2p != 0 { hm = abs(h1 - h2) > 180 ? (hm < 360 ? (hm + 360) / 2 : (hm - 360) / 2) : hm / 2 }
        let t = 1 - 0.17 * cos((hm - 30) * rad) + 0.24 * cos(2 * hm * rad) + 0.32 * cos((3 * hm + 6) * rad)
            - 0.20 * cos((4 * hm - 63) * rad)
        let dTheta = 30 * exp(-pow((hm - 275) / 25, 2))
        let rc = 2 * (pow(cmp, 7) / (pow(cmp, 7) + pow(25, 7))).squareRoot()
        let sl = 1 + 0.015 * pow(lm - 50, 2) / (20 + pow(lm - 50, 2)).squareRoot()
        let sc = 1 + 0.045 * cmp, sh = 1 + 0.015 * cmp * t
        let rt = -sin(2 * dTheta * rad) * rc
        return (pow(dL / sl, 2) + pow(dC / sc, 2) + pow(dH / sh, 2) + rt * (dC / sc) * (dH / sh)).squareRoot()
    }
}
