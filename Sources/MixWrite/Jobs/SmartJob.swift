/// A job that renders smart (`--smart`: a blend's base, a concat's clips): its option, declared once, and what `on`
/// insists on.
protocol SmartJob {
    /// nil (`auto`): copy the GOPs nothing touches where that is exact; true (`on`): insist; false (`off`): encode all.
    var smart: Bool? { get set }
    /// Copy GOPs without decoding them first (`--trust-copies`).
    var trustCopies: Bool { get set }
    var strict: Bool { get }
}

extension SmartJob {
    /// `smart`: `auto`, `on` or `off`, held as nil, true or false.
    static var smartOption: JobOption<Self> {
        let words = ["auto", "on", "off"], values: [Bool?] = [nil, true, false]
        return JobOption(OptionDeclaration("smart", .choice(words), default: .text("auto"),
                                           help: "auto: the inputs' H.264 GOPs that nothing touches are copied, not encoded, where that is exact; on: insist (refused, saying why, when some cannot be copied); off: encode every frame."),
                         read: { (j, input) throws(JobProblem) in
                             let word: String = try input.value("must be auto, on or off")
                             guard let i = words.firstIndex(of: word) else { throw input.problem("must be auto, on or off") }
                             j.smart = values[i]
                         }, write: { j in j.smart.map { .text($0 ? "on" : "off") } })
    }

    /// `--trust-copies`: the decode check of what a smart render copies (`SmartCheck`) left out.
    static var trustOption: JobOption<Self> {
        .flag("trust-copies", \.trustCopies,
              help: "Smart rendering copies GOPs without decoding them first (as ffmpeg -c copy does): faster, but a damaged GOP is copied as it is.")
    }

    /// `plan`, unless `--smart on` and frames nothing touches are encoded all the same (or nothing is copied): then
    /// refused, saying why; or `--strict` and a GOP was found damaged.
    func insisted(_ plan: SmartPlan) throws(MixWriteError) -> SmartPlan {
        if strict, let d = plan.damaged.first {
            throw .processing(file: d.file, "\(d.what) in its video stream (--strict stops at the first)")
        }
        if smart == true, let why = plan.reason {
            throw .usage("--smart on: \(plan.copies ? "some frames nothing is laid over must be encoded" : "nothing can be copied"): \(why)")
        }
        return plan
    }
}
