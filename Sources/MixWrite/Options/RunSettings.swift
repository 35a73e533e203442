import Foundation

/// What every kind of job shares about how it runs, stored once and held by each job as `run` (as swift-argument-parser's
/// option groups, and as `audio` is): replacing the output, strictness, threads, an excerpt, parts and smart rendering.
/// Each option is declared here once; a kind lifts the lists it takes (`CommonJob`, `ExcerptedJob`, `PartedJob`,
/// `SmartJob`), so a remix has `-y` and `--strict` but no `--parts`.
public struct RunSettings: Sendable, Hashable {
    /// Replace OUT if it exists (`-y`).
    public var overwrite = false
    /// Fail on a track that cannot be decoded or a damaged packet, instead of a warning.
    public var strict = false
    /// Encoder threads; 0: as many as the machine has (batch divides the cores between its jobs).
    public var threads = 0
    /// Write only part of the output (`--start`, `--length`; the page's audition), from `start` (nil: 0) for `length`
    /// (nil: to the end); both nil: the whole movie, whose picture and mix the part has there. Seconds, as the command
    /// line and a job file give them (kept to the microsecond).
    public var start: Double?
    public var length: Double?
    /// `--parts N --part K`: render only part K of N equal parts into `OUT.parts/`, for `mixwrite join`.
    public var parts: Int?
    public var part: Int?
    /// Smart rendering (`--smart`): copy the inputs' H.264 and HEVC GOPs nothing touches where that is exact.
    public var smart = SmartMode.auto
    /// Copy GOPs without decoding them first (`--trust-copies`).
    public var trustCopies = false

    public init() {}

    /// How many parts a job may be split into.
    static let partCounts = 1...10_000

    /// `-y` and `--strict`: every kind's.
    static var commonOptions: [JobOption<Self>] {
        [.flag("overwrite", \.overwrite, form: .short("-y"), help: "Replace OUT if it exists."),
         .flag("strict", \.strict, help: "Fail on an audio track that cannot be decoded or a damaged packet, instead of warning.")]
    }

    /// `--start` and `--length`, in seconds.
    static var excerptOptions: [JobOption<Self>] {
        [.number("start", \.start, 0...86_400 * 366, unit: "seconds", valueName: "S",
                 help: "Write only part of the output, from S seconds (picture and mix as the whole movie has them)."),
         .number("length", \.length, 0...86_400 * 366, unit: "seconds", valueName: "S",
                 help: "Write only S seconds of the output (from --start, or from 0).")]
    }

    /// `--smart` and `--trust-copies`.
    static var smartOptions: [JobOption<Self>] {
        [.choice("smart", \.smart, default: .auto,
                 help: "auto: the inputs' H.264 and HEVC GOPs that nothing touches are copied, not encoded, where that is exact (an HEVC input with --codec hevc); on: insist (refused, saying why, when some cannot be copied); off: encode every frame."),
         .flag("trust-copies", \.trustCopies,
               help: "Smart rendering copies GOPs without decoding them first (as ffmpeg -c copy does): faster, but a damaged GOP is copied as it is.")]
    }

    /// `--parts` and `--part`: a job file usually gives only `parts` (batch hands out the parts as tasks).
    static var partOptions: [JobOption<Self>] {
        [.integer("parts", \.parts, 1...Double(partCounts.upperBound), valueName: "N",
                  help: "Render the job as N parts (for a cluster), this run only --part K of them, into OUT.parts/; 'mixwrite join OUT' joins them."),
         JobOption(OptionDeclaration("part", .text(pattern: "^([0-9]+|auto)$", orNumber: true), valueName: "K",
                                     help: "Which part (1 to N), or auto: the Slurm array task's or Kubernetes Job's index (index mod N, plus 1)."),
                   read: { (run, input) throws(JobProblem) in
                       let text = try input.text("must be a part number or \"auto\"")
                       if text == "auto" {
                           guard let index = SchedulerTask.index else {
                               throw input.problem("auto found neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX")
                           }
                           run.part = index % max(1, run.parts ?? 1) + 1
                       } else {
                           guard let k = Int(text) else { throw input.problem("'\(text)' is not a part number or auto") }
                           run.part = k
                       }
                   }, write: { $0.part.map { .number(Double($0)) } })]
    }
}

/// Smart rendering (`--smart`): `auto` copies what can be copied exactly; `on` insists (refused, saying why, when
/// frames nothing touches would be encoded all the same); `off` encodes every frame.
public enum SmartMode: String, Sendable, Codable, CaseIterable {
    case auto, on, off
}

/// An HDR input (`--hdr`): `sdr` tone-maps it to SDR BT.709; `keep` keeps an HDR base (a concat's HDR clips) HDR.
public enum HDRMode: String, Sendable, Codable, CaseIterable {
    case sdr, keep
}

/// The task a scheduler runs this process as: a Slurm array task or a Kubernetes Indexed Job's pod.
enum SchedulerTask {
    /// `SLURM_ARRAY_TASK_ID`, else `JOB_COMPLETION_INDEX`.
    static var index: Int? {
        let env = ProcessInfo.processInfo.environment
        return env["SLURM_ARRAY_TASK_ID"].flatMap(Int.init) ?? env["JOB_COMPLETION_INDEX"].flatMap(Int.init)
    }
}
