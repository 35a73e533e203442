/// A job that renders smart (`--smart`: a blend's base, a concat's clips): its option, declared once, and what `on`
/// insists on.
protocol SmartJob {
    /// `run.smart` and `run.trustCopies` (and `run.strict`, which stops at a damaged GOP).
    var run: RunSettings { get set }
}

extension SmartJob {
    /// `smart` and `trust-copies`, lifted onto the job.
    static var smartOptions: [JobOption<Self>] { RunSettings.smartOptions.map { $0.lifted(\.run) } }

    /// `plan`, unless `--smart on` and frames nothing touches are encoded all the same (or nothing is copied): then
    /// refused, saying why; or `--strict` and a GOP was found damaged.
    func insisted(_ plan: SmartPlan) throws(MixWriteError) -> SmartPlan {
        if run.strict, let d = plan.damaged.first {
            throw .processing(file: d.file, "\(d.what) in its video stream (--strict stops at the first)")
        }
        if run.smart == .on, let why = plan.reason {
            throw .usage("--smart on: \(plan.copies ? "some frames nothing is laid over must be encoded" : "nothing can be copied"): \(why)")
        }
        return plan
    }
}
