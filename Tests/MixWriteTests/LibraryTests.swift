import Foundation
import Testing
import TestSupport
import MixWrite   // not @testable: only what an embedder sees

/// The README's library example, on the fixtures, through the public API alone: a blend with an extra audio file,
/// its preview picture, the job as a command and an entry, and a job file run.
@Suite("the library as an embedder uses it (public API only)")
struct LibraryTests {
    @Test("the README's example: a blend, a preview picture, the job as text, a job file run")
    func readmeExample() async throws {
        let dir = try Oracle.scratch()
        var job = BlendJob(fx: Oracle.fixture("fx.mov"), base: Oracle.fixture("base.mov"), output: dir + "/out.mov")
        job.key.threshold = 0.35
        job.audio.files = [Oracle.fixture("tone.m4a")]
        job.audio.gains = ["audio1": -9]
        job.run.length = 1
        let report = try await MixWriter(job).run()
        #expect(report.audio?.sources.map(\.name) == ["fx:1", "fx:2", "base:1", "audio1:1"], "\(report.audio?.sources.map(\.name) ?? [])")
        let streams = try Oracle.probe(dir + "/out.mov").streams
        #expect(streams.map { $0.kind } == ["video", "audio"])
        #expect(abs((streams.first?.duration ?? 0) - 1) < 0.05, "\(streams.first?.duration ?? 0)")

        let preview = try BlendPreview(job: job)
        let jpeg = try preview.picture(at: 0.5, key: job.key, view: .composite)
        #expect(jpeg.starts(with: [0xFF, 0xD8]) && jpeg.count > 1000, "a JPEG")
        #expect(job.commandLine.contains("--threshold 0.35") && job.commandLine.contains("--gain audio1=-9"), "\(job.commandLine)")

        var again = job
        again.output = dir + "/again.mov"
        let path = dir + "/jobs.json"
        try Data(#"{"jobs": [\#(again.jobEntry)]}"#.utf8).write(to: URL(fileURLWithPath: path))
        let file = try JobFile(path: path)
        let results = await JobFile.run(file.jobs[...], concurrency: 1, skipExisting: false)
        #expect(results.map(\.status) == [.done], "\(results.map(\.error))")
        #expect(results.first?.report?.audio?.sources.count == 4)
    }
}
