import FFmpegSupport

/// A concat clip as the command line and a job file write it: its file, then its own time after colons: `speed=X`
/// (0.01 to 100: 2 twice as fast, 0.5 half), `reverse` (played backwards), `freeze=S` (its last frame held S seconds
/// more, silent), `pitch=follow` (its sound's pitch moves with the speed, as a tape's; by default it is kept). A colon
/// followed by anything else stays in the file's name (`take:2.mov`).
struct ConcatClip: Sendable, Equatable {
    var path: String
    var speed = 1.0
    var reverse = false
    var freeze = 0.0
    var pitchFollows = false
    /// `speed=1@0,0.25@2,1@4`: speeds at output seconds from the clip's start, linear between them.
    var ramp: [Retime.RampPoint]?

    /// The longest hold a `freeze` gives.
    static let longestFreeze = 3600.0

    /// Reads `word`'s time options from its end; a malformed one is refused naming the clip.
    init(_ word: String) throws(MixWriteError) {
        var parts = word.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        var seen: Set<String> = []
        while parts.count > 1, let last = parts.last {
            let pair = last.split(separator: "=", maxSplits: 1).map(String.init)
            let name = pair[0], value = pair.count > 1 ? pair[1] : nil
            guard ["speed", "reverse", "freeze", "pitch"].contains(name), !seen.contains(name) else { break }
            seen.insert(name)
            parts.removeLast()
            let clip = parts.joined(separator: ":")
            func number(_ range: ClosedRange<Double>, _ words: String) throws(MixWriteError) -> Double {
                guard let text = value, let x = Double(text), x.isFinite else { throw .usage("concat clip \(word): \(name) must be \(words)") }
                guard range.contains(x) else {
                    if name == "speed" && x == 0 { throw .usage("concat clip \(clip): speed=0 would stand still; freeze=S holds its last frame S seconds") }
                    if name == "speed" && x < 0 { throw .usage("concat clip \(clip): speed=\(text): a clip played backwards is `reverse` (with speed=\(NumberText.shortest(-x)))") }
                    throw .usage("concat clip \(clip): \(name)=\(text) must be \(words)")
                }
                return x
            }
            switch name {
            case "speed" where value?.contains("@") == true:
                ramp = try Self.ramp(value ?? "", clip: clip)
                speed = ramp![0].speed
            case "speed": speed = try number(Retime.slowest...Retime.fastest, "a number from 0.01 to 100")
            case "freeze": freeze = try number(0.001...Self.longestFreeze, "seconds from 0.001 to 3600")
            case "reverse":
                guard value == nil else { throw .usage("concat clip \(clip): reverse takes no value") }
                reverse = true
            default:
                guard value == "follow" || value == "keep" else { throw .usage("concat clip \(clip): pitch must be keep or follow") }
                pitchFollows = value == "follow"
            }
        }
        path = parts.joined(separator: ":")
        if ramp != nil && (reverse || pitchFollows) {
            throw .usage("concat clip \(path): a speed ramp is played forwards with its pitch kept (reverse and pitch=follow on a ramp: not yet)")
        }
    }

    /// `SPEED@SECONDS,…`: at least two points, their seconds (of the output, from the clip's start) rising from 0 or
    /// later, each speed 0.01 to 100.
    static func ramp(_ text: String, clip: String) throws(MixWriteError) -> [Retime.RampPoint] {
        let what = "a speed ramp is SPEED@SECONDS,… (1@0,0.25@2,1@4): at least two points, their seconds rising, each speed 0.01 to 100"
        var points: [Retime.RampPoint] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let pair = item.split(separator: "@", omittingEmptySubsequences: false)
            guard pair.count == 2, let v = Double(pair[0]), let t = Double(pair[1]), v.isFinite, t.isFinite,
                  (Retime.slowest...Retime.fastest).contains(v), t >= 0, t <= 86_400, t > (points.last?.at ?? -1) else {
                throw .usage("concat clip \(clip): speed=\(text): " + what)
            }
            points.append(Retime.RampPoint(at: t, speed: v))
        }
        guard points.count >= 2, points.count <= 1000 else { throw .usage("concat clip \(clip): speed=\(text): " + what) }
        return points
    }

    /// Its change of time: nil when it plays as it is (a freeze alone holds the last frame of a clip that does).
    var retime: Retime? {
        guard speed != 1 || reverse || freeze > 0 || ramp != nil else { return nil }
        var r = Retime(speed: Rational(parsing: NumberText.shortest(speed)) ?? Rational(1, 1), reversed: reverse)
        (r.pitchFollows, r.ramp) = (pitchFollows, ramp)
        return r
    }

    /// Its sound's change of time: nil when it plays as it is.
    var soundRetime: Retime? { speed != 1 || reverse || ramp != nil ? retime : nil }

    /// Where a time `t` of its own lies on the output from its start, when its moving part lasts `moving` there: at
    /// its speed, from its end when reversed (a chapter, an event inside it).
    func onOutput(_ t: MediaTime, moving: MediaTime) -> MediaTime {
        guard let r = soundRetime else { return t }
        let at = r.output(t)
        return reverse ? max(.zero, moving - at) : at
    }
}
