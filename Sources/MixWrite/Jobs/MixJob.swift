import Foundation
import FFmpegSupport

/// A job mixwrite can run: one of the kinds `JobFile.kinds` lists. Closed on
/// purpose: what a job does is planned inside the library (`prepare`, internal), so `MixWriter` runs those kinds and
/// refuses any other type that conforms. Its `Codable` form is the job file's entry.
public protocol MixJob: Sendable, Codable {
    /// The job file's `kind`: one of `JobFile.kinds`' names.
    var kind: String { get }
    var output: String { get }
    /// Every file the job reads (an output may not be one of them).
    var inputPaths: [String] { get }
    /// The command that runs the job, a word at a time, and quoted for a shell.
    var commandWords: [String] { get }
    var commandLine: String { get }
    /// The job's entry in a job file: one line of JSON.
    var jobEntry: String { get }
}

/// A job of one of mixwrite's kinds: planned here.
protocol PlannedJob: MixJob {
    /// Checks the options (ranges, names) without opening a file.
    func validate() throws(MixWriteError)
    /// Checks the options and inputs and works out the plan, before anything is written.
    func prepare() throws(MixWriteError) -> PreparedJob
}

/// A job checked and planned: every decision made, nothing written yet.
struct PreparedJob: Sendable {
    let output: OutputFile
    let duration: MediaTime
    let frameRate: Rational?
    /// The picture's stage (any kind), or nil for sound alone.
    let video: (any VideoStage)?
    var audio: AudioMixPlan?
    let key: KeySettings?
    /// Whether `key`'s colour was read from fx's border (`Report.keyPicked`).
    var keyPicked = false
    var warnings: [String] = []
    /// Files read besides the job's inputs (a timeline's media), whose damaged packets are said by name too.
    var media: [String] = []
    /// How inputs' pictures were changed to reach the output's colour (HDR tone-mapped), in words.
    var conversions: [String] = []
    var chapters: [(title: String, start: MediaTime, end: MediaTime)] = []
    /// The subtitle tracks written (the inputs' and `--captions`'), and the captions drawn into the picture.
    var subtitles = SubtitlePlan()
    /// The file's tags: the reference input's creation time, place and camera, the title and start timecode.
    var metadata: [String: String] = [:]
    var timeline: Timeline?
    /// A blend's layers, for the report.
    var layers: [Report.LaidLayer]?
    /// A part of `--parts`: `output` is the part's movie, and its record is written after it.
    var part: PartPlan?
}
