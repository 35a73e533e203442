internal import CKeyKernel
import FFmpegSupport

/// How one clip of a concat gives way to the next: a cut, or one of FFmpeg's `xfade` transitions over `seconds`, the
/// two clips overlapping by that long (the pictures by the kind, every audio track of both cross-faded).
public struct Transition: Sendable, Equatable, CustomStringConvertible {
    /// By `xfade`'s names, with its pictures.
    public enum Kind: String, Sendable, CaseIterable {
        case cut, fade, fadeblack, fadewhite, wipeleft, wiperight, wipeup, wipedown, slideleft, slideright, slideup, slidedown,
             circleopen
    }

    public var kind: Kind
    /// How long the clips overlap; 0 for a cut.
    public var seconds: Double

    public static let cut = Transition(kind: .cut, seconds: 0)
    /// The length `KIND` alone gives: xfade's default.
    public static let defaultSeconds = 1.0
    /// xfade's longest.
    static let longest = 60.0

    public init(kind: Kind, seconds: Double = Transition.defaultSeconds) {
        self.kind = kind
        self.seconds = kind == .cut ? 0 : seconds
    }

    /// `KIND[:SECONDS]`, as the command line and a job file give it (`fade`, `wipeleft:0.5`).
    public var description: String {
        kind == .cut ? "cut" : "\(kind.rawValue):\(NumberText.shortest(seconds))"
    }

    /// `KIND[:SECONDS]` read, or what is wrong with it.
    static func parse(_ text: String) -> Result<Transition, TransitionProblem> {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let kind = Kind(rawValue: parts[0]) else { return .failure(.unknownKind(parts[0])) }
        guard parts.count == 2 else { return .success(Transition(kind: kind)) }
        guard kind != .cut else { return .failure(.cutHasNoLength) }
        guard let s = Double(parts[1]), s.isFinite else { return .failure(.notSeconds(parts[1])) }
        guard s > 0 else { return .failure(.notPositive(s)) }
        guard s <= longest else { return .failure(.tooLong(s)) }
        return .success(Transition(kind: kind, seconds: s))
    }

    /// A JSON Schema pattern of `KIND[:SECONDS]`.
    static var pattern: String {
        "^(cut|(" + Kind.allCases.dropFirst().map(\.rawValue).joined(separator: "|") + ")(:[0-9]*\\.?[0-9]+)?)$"
    }
}

/// Why a `KIND[:SECONDS]` is refused.
enum TransitionProblem: Error, CustomStringConvertible {
    case unknownKind(String), cutHasNoLength, notSeconds(String), notPositive(Double), tooLong(Double)

    var description: String {
        switch self {
        case .unknownKind(let k):
            "'\(k)' is not a transition (\(Transition.Kind.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .cutHasNoLength: "a cut has no length"
        case .notSeconds(let s): "'\(s)' is not a length in seconds"
        case .notPositive(let s): "the length \(NumberText.shortest(s)) s must be more than 0"
        case .tooLong(let s): "the length \(NumberText.shortest(s)) s is over xfade's longest (\(Int(Transition.longest)) s)"
        }
    }
}

/// Where a sequence's piece gives way to the next: the kind, and the output frames the two share.
struct Crossing: Sendable, Equatable {
    var kind: Transition.Kind
    var frames: Int

    /// xfade's progress at shared frame `k` of `frames`: 1 (all the outgoing picture) at the first, falling by
    /// 1/frames a frame, in floats as xfade divides its timestamps.
    func progress(at k: Int) -> Float { 1 - Float(k) / Float(frames) }

    /// xfade's arithmetic (CKeyKernel's transition family, the same function at every level).
    static let kernel: MWTransitionKernel = {
        guard let k = mw_transition_kernel(KeyKernel.level) else { preconditionFailure("no transition kernel at level \(KeyKernel.level)") }
        return k.pointee
    }()

    /// The output picture at shared frame `k`: `outgoing` giving way to `incoming` (both the output's size and format).
    func draw(_ outgoing: Frame, _ incoming: Frame, into out: Frame, at k: Int) {
        guard let c = kind.kernel else { return }
        let p = max(0, min(1, progress(at: k)))
        let bytes = out.pixelFormat == .yuv420p10 ? 2 : 1
        let top = (1 << (bytes == 2 ? 10 : 8)) - 1
        for i in 0..<3 {
            let chroma = i > 0
            var plane = MWTransitionPlane(
                a: UnsafePointer(outgoing.plane(i)), b: UnsafePointer(incoming.plane(i)), out: out.plane(i),
                aStride: outgoing.stride(i), bStride: incoming.stride(i), outStride: out.stride(i),
                width: Int32(chroma ? (out.width + 1) / 2 : out.width), height: Int32(chroma ? (out.height + 1) / 2 : out.height),
                shiftX: chroma ? 1 : 0, shiftY: chroma ? 1 : 0, frameWidth: Int32(out.width), frameHeight: Int32(out.height),
                black: Int32(chroma ? top / 2 : 0), white: Int32(chroma ? top / 2 : top), bytes: Int32(bytes))
            Self.kernel.plane(c, p, &plane)
        }
    }
}

extension Transition.Kind {
    /// The kernel's kind; nil for a cut.
    var kernel: MWTransitionKind? {
        switch self {
        case .cut: nil
        case .fade: MW_FADE
        case .fadeblack: MW_FADEBLACK
        case .fadewhite: MW_FADEWHITE
        case .wipeleft: MW_WIPELEFT
        case .wiperight: MW_WIPERIGHT
        case .wipeup: MW_WIPEUP
        case .wipedown: MW_WIPEDOWN
        case .slideleft: MW_SLIDELEFT
        case .slideright: MW_SLIDERIGHT
        case .slideup: MW_SLIDEUP
        case .slidedown: MW_SLIDEDOWN
        case .circleopen: MW_CIRCLEOPEN
        }
    }
}
