/// A number as the command line writes it: `1`, `0.5` (every option's, `JobOption.format`).
enum NumberText {
    static func shortest(_ x: Double) -> String { x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : String(x) }
    /// Seconds as a person reads them: to the millisecond (`0.534`, not `0.5338666666666667`).
    static func milliseconds(_ x: Double) -> String { shortest((x * 1000).rounded() / 1000) }
}
