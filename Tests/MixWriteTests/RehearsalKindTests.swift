import Foundation
import Testing
import TestSupport
@_spi(Tools) @testable import MixWrite

/// A kind made for this test alone, `mixonly`: every audio track of its sound files mixed into one sound file. It is
/// its own file (this one) and one line in the list of kinds (`JobFile.$rehearsal`), as a new kind of the library is
/// its own files and one line in `JobFile.kinds`: nothing else of the library names it.
struct MixOnlyJob: Sendable {
    var sounds: [String]
    var output: String
    var run = RunSettings()
    var audio = AudioOptions()
}

extension MixOnlyJob: DescribedJob, CommonJob {
    static let kind = "mixonly"
    static let command = ["mixwrite", "mixonly"]
    static let abstract = "Mix every audio track of the SOUND files into one sound file."
    static let example = "mixwrite mixonly a.m4a b.wav -o mix.m4a"
    static var blank: Self { MixOnlyJob(sounds: [], output: "") }

    static var options: [JobOption<Self>] {
        [.paths("sounds", \.sounds, form: .positional, required: true, valueName: "SOUND", help: "The sound files, mixed."),
         .path("output", \.output, form: .short("-o"), help: "The sound file to write (.m4a, .mka).")]
            + AudioOptions.options.map { $0.lifted(\.audio) } + commonOptions
    }

    init(from decoder: any Swift.Decoder) throws { try self.init(describedBy: decoder) }
    func encode(to encoder: any Swift.Encoder) throws { try encodeDescription(to: encoder) }
    func validate() throws(MixWriteError) { try audio.validate() }
    var inputPaths: [String] { sounds }

    /// A remix of the first file with the others as its extra sound, which gives sound alone into .m4a.
    func prepare() throws(MixWriteError) -> PreparedJob {
        guard let first = sounds.first else { throw .usage("mixonly needs a sound file") }
        var remix = RemixJob(movie: first, output: output)
        (remix.audio, remix.run) = (audio, run)
        remix.audio.files = Array(sounds.dropFirst()) + audio.files
        return try remix.prepare()
    }
}

@Suite("a new kind is one line in the list of kinds and its own files")
struct RehearsalKindTests {
    @Test("a kind that joins the list is a job file's kind, the schema's and the option reference's, read from its words, run")
    func joinsByTheList() async throws {
        let dir = try Oracle.scratch()
        let out = dir + "/mix.m4a"
        let jobs = dir + "/jobs.json"
        let entry = #"{"kind": "mixonly", "sounds": ["\#(Oracle.fixture("tone.m4a"))", "\#(Oracle.fixture("fx.mov"))"], "output": "\#(out)", "gain": {"movie": -6}}"#
        try Data(#"{"jobs": [\#(entry)]}"#.utf8).write(to: URL(fileURLWithPath: jobs))
        // Outside the list, the kind is unknown to a job file.
        #expect(throws: MixWriteError.self) { try JobFile(path: jobs) }
        #expect(!JobSchema.text.contains(#""const": "mixonly""#))

        try await JobFile.$rehearsal.withValue([MixOnlyJob.self]) {
            let file = try JobFile(path: jobs)
            let job = try #require(file.jobs.first as? MixOnlyJob)
            #expect(job.audio.gains == ["movie": -6])
            #expect(JobSchema.text.contains(#""const": "mixonly""#))
            #expect(JobFile.kindDescriptions.last?.name == "mixonly")
            let reference = CommandWords.reference([(name: "mixonly", abstract: MixOnlyJob.abstract, job: MixOnlyJob.self, own: [])])
            #expect(reference.contains("`mixwrite mixonly SOUND... -o OUTPUT [options]`") && reference.contains("`--loudness`"), "\(reference)")
            let (read, _) = try CommandWords.parse(["a.m4a", "b.m4a", "-o", "x.m4a", "--gain", "movie=-6"], as: MixOnlyJob.self, own: [])
            #expect(read.sounds.count == 2 && read.audio.gains == ["movie": -6])
            #expect(job.commandLine.hasPrefix("mixwrite mixonly "), "\(job.commandLine)")

            let report = try await MixWriter(job).run()
            #expect(report.audio?.sources.map(\.name) == ["movie:1", "audio1:1", "audio1:2"], "\(report.audio?.sources.map(\.name) ?? [])")
        }
        // Read back by ffprobe and the CLI's decoder: sound alone, every track's tone in it.
        let probe = try Oracle.probe(out)
        #expect(probe.streams.map(\.kind) == ["audio"])
        let samples = try Oracle.decodeAudio(out, channels: 1)
        for hz in [880.0, 440, 1000] {
            #expect(Oracle.toneLevel(Array(samples.prefix(48_000)), frequency: hz) > -40, "\(hz) Hz is not in the mix")
        }
        #expect(Oracle.toneLevel(Array(samples.prefix(48_000)), frequency: 660) < -60, "base's 660 Hz was never an input")
    }
}
