import Foundation
import Testing
import TestSupport

/// probe, batch, progress and reports: what scripts rely on.
@Suite("scripting: probe, batch, progress, reports")
struct ScriptingTests {
    static func json(_ data: Data) throws -> Any { try JSONSerialization.jsonObject(with: data) }

    @Test("probe --json agrees with ffprobe on every stream of the fixtures")
    func probeMatchesFFprobe() throws {
        let files = ["fx.mov", "base.mov", "tone.m4a"].map(Oracle.fixture)
        let r = try Oracle.mixwrite(["probe", "--json"] + files)
        #expect(r.status == 0, "\(r.stderr)")
        let reports = try Self.json(r.stdout) as? [[String: Any]] ?? []
        #expect(reports.count == 3)
        for (file, report) in zip(files, reports) {
            let theirs = try Oracle.probe(file)
            let ours = report["streams"] as? [[String: Any]] ?? []
            #expect(ours.count == theirs.streams.count, "\(file)")
            for (o, t) in zip(ours, theirs.streams) {
                #expect(o["kind"] as? String == t.kind)
                #expect(o["codec"] as? String == t.codec)
                #expect(o["width"] as? Int == t.width)
                #expect(o["height"] as? Int == t.height)
                #expect(o["sampleRate"] as? Int == t.sampleRate)
                #expect(o["channels"] as? Int == t.channels)
                if let d = t.duration { #expect(abs((o["duration"] as? Double ?? -1) - d) < 0.001, "\(file) #\(t.index)") }
            }
        }
    }

    @Test("probe: an unreadable file gets its error entry, after the others, and exit 2")
    func probeUnreadable() throws {
        let r = try Oracle.mixwrite(["probe", "--json", "/nonexistent.mov", Oracle.fixture("fx.mov")])
        #expect(r.status == 2)
        let reports = try Self.json(r.stdout) as? [[String: Any]] ?? []
        #expect(reports.count == 2)
        #expect((reports.first?["error"] as? String)?.contains("no such file") == true)
        #expect((reports.last?["streams"] as? [Any])?.count == 3)
        #expect(r.stderr.contains("/nonexistent.mov"))
    }

    /// A job folder with the fixtures copied in and a job file of relative paths.
    static func jobFolder(_ jobs: String) throws -> String {
        let dir = try Oracle.scratch("jobs")
        for f in ["fx.mov", "base.mov", "noaudio.mov", "tone.m4a"] {
            try FileManager.default.copyItem(atPath: Oracle.fixture(f), toPath: dir + "/" + f)
        }
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try Data(jobs.utf8).write(to: URL(fileURLWithPath: dir + "/jobs.json"))
        return dir
    }

    @Test("batch: relative paths, a failing job named, the others done, exit non-zero, no output for the failure")
    func batchWithFailure() throws {
        let dir = try Self.jobFolder("""
        {"jobs": [
          {"kind": "blend", "fx": "fx.mov", "base": "base.mov", "output": "out/blend.mov", "threshold": 0.35, "gain": {"fx": -6}},
          {"kind": "remix", "movie": "missing.mov", "output": "out/broken.mov"},
          {"kind": "concat", "clips": ["base.mov", "noaudio.mov"], "output": "out/both.mp4", "size": "160x120"},
          {"kind": "still", "image": "\(Oracle.root.path)/Fixtures/../Fixtures/base.mov", "audio": ["tone.m4a"], "output": "out/still.mp4"}
        ]}
        """)
        // Run from another folder: paths are relative to the job file, not to where mixwrite starts.
        let r = try Oracle.run("/bin/sh", ["-c", "cd / && '\(Oracle.mixwrite)' batch '\(dir)/jobs.json' --json"])
        #expect(r.status == 2, "the failing job's exit code: \(r.stderr)")
        let results = try Self.json(r.stdout) as? [[String: Any]] ?? []
        #expect(results.map { $0["status"] as? String ?? "" } == ["done", "failed", "done", "done"])
        #expect((results[1]["error"] as? String)?.contains("missing.mov: no such file") == true)
        #expect(r.stderr.split(separator: "\n").filter { $0.hasPrefix("mixwrite: error: job 1: ") && $0.contains("missing.mov") }.count == 1,
                "the failure on stderr too: \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/broken.mov"))
        #expect(try Oracle.listing(dir + "/out") == ["blend.mov", "both.mp4", "still.mp4"])
        #expect(try Oracle.probe(dir + "/out/both.mp4").video.first?.width == 160)
        // The report of each done job is in the summary.
        let report = results[0]["report"] as? [String: Any]
        #expect((report?["key"] as? [String: Any])?["threshold"] as? Double == 0.35)
    }

    @Test("batch makes the folders its outputs name (and says so with -v); a parent that is a file fails that job, exit 3")
    func batchMakesFolders() throws {
        let dir = try Self.jobFolder("""
        {"jobs": [
          {"kind": "remix", "movie": "fx.mov", "output": "made/deeper/one.mkv"},
          {"kind": "remix", "movie": "fx.mov", "output": "tone.m4a/two.mkv"}
        ]}
        """)
        let r = try Oracle.mixwrite(["batch", dir + "/jobs.json", "-v", "--progress", "none"])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(try Oracle.probe(dir + "/made/deeper/one.mkv").audio.count == 1)
        #expect(r.stderr.contains("made the folder \(dir)/made for job 0"), "\(r.stderr)")
        #expect(r.stderr.contains("made the folder \(dir)/made/deeper for job 0"), "\(r.stderr)")
        #expect(r.stderr.contains("tone.m4a is a file"), "\(r.stderr)")
        #expect(try Oracle.listing(dir + "/made/deeper") == ["one.mkv"])
    }

    @Test("FFmpeg's own log: nothing with -q, one line a file by default, every line with -v, the count in --json")
    func libraryLog() throws {
        let dir = try Oracle.scratch()
        // A transport stream cut after its first parameter sets: its first pictures refer to a PPS not yet seen.
        let full = dir + "/full.ts", cut = dir + "/cut.ts"
        let made = try Oracle.ffmpeg(["-v", "error", "-y", "-i", Oracle.fixture("base.mov"), "-c", "copy", "-bsf:v",
                                      "h264_mp4toannexb", "-f", "mpegts", full])
        try #require(made.status == 0, "\(made.stderr)")
        let bytes = try #require(FileManager.default.contents(atPath: full))
        try bytes.dropFirst(30 * 188).write(to: URL(fileURLWithPath: cut))
        let out = dir + "/out.mkv"
        let quiet = try Oracle.mixwrite(["remix", cut, "-o", out, "-y", "-q"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        let plain = try Oracle.mixwrite(["remix", cut, "-o", out, "-y", "--progress", "none"])
        let lines = plain.stderr.split(separator: "\n")
        #expect(plain.status == 0 && lines.count == 2, "\(plain.stderr)")
        #expect(lines.first?.hasPrefix("mixwrite: warning: \(cut): ") == true && lines.first?.hasSuffix("FFmpeg warnings while probing; -v shows them") == true,
                "\(plain.stderr)")
        let verbose = try Oracle.mixwrite(["remix", cut, "-o", out, "-y", "-v", "--progress", "none"])
        #expect(verbose.stderr.contains("non-existing PPS 0 referenced"), "\(verbose.stderr.prefix(400))")
        let json = try Oracle.mixwrite(["remix", cut, "-o", out, "-y", "-q", "--json"])
        let report = try Self.json(json.stdout) as? [String: Any]
        #expect((report?["libraryWarnings"] as? Int ?? 0) > 0, "\(String(decoding: json.stdout, as: UTF8.self).prefix(300))")
    }

    @Test("batch: the whole file is checked first; an error names the job and the key")
    func batchValidation() throws {
        let dir = try Self.jobFolder("""
        {"jobs": [{"kind": "blend", "fx": "fx.mov", "base": "base.mov", "output": "out/a.mov"},
                  {"kind": "blend", "fx": "fx.mov", "base": "base.mov", "output": "out/b.mov", "treshold": 0.3}]}
        """)
        let r = try Oracle.mixwrite(["batch", dir + "/jobs.json"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("job 1: 'treshold' is not an option"), "\(r.stderr)")
        #expect(try Oracle.listing(dir + "/out").isEmpty, "nothing ran")
    }

    @Test("shards together cover every job exactly once; --shard auto reads Slurm and Kubernetes; --skip-existing")
    func shards() throws {
        let jobs = (0..<7).map { #"{"kind": "remix", "movie": "fx.mov", "output": "out/r\#($0).mkv"}"# }
        let dir = try Self.jobFolder(#"{"jobs": ["# + jobs.joined(separator: ",") + "]}")
        // Every output exists already, so with --skip-existing each shard only lists its jobs.
        for i in 0..<7 { #expect(FileManager.default.createFile(atPath: dir + "/out/r\(i).mkv", contents: Data())) }
        for n in 1...4 {
            var seen: [Int] = []
            for k in 1...n {
                let r = try Oracle.mixwrite(["batch", dir + "/jobs.json", "--shard", "\(k)/\(n)", "--skip-existing", "--json"])
                #expect(r.status == 0, "\(r.stderr)")
                let results = try Self.json(r.stdout) as? [[String: Any]] ?? []
                #expect(results.allSatisfy { $0["status"] as? String == "skipped" })
                seen += results.compactMap { $0["index"] as? Int }
            }
            #expect(seen.sorted() == Array(0..<7), "shares of \(n): \(seen)")
        }
        let slurm = try Oracle.run(Oracle.mixwrite, ["batch", dir + "/jobs.json", "--shard", "auto", "--skip-existing", "--json"],
                                   environment: ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"])
        #expect((try Self.json(slurm.stdout) as? [[String: Any]] ?? []).compactMap { $0["index"] as? Int } == [4, 5, 6])
        // Task 2 of an array 0-3 resubmitted alone (`sbatch --array=2`): Slurm says count 1, minimum 2; with
        // --shards 4 it keeps its share, the third of four (jobs 3 and 4 of 7).
        let resubmitted = try Oracle.run(Oracle.mixwrite, ["batch", dir + "/jobs.json", "--shard", "auto", "--shards", "4", "--skip-existing", "--json"],
                                         environment: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "1", "SLURM_ARRAY_TASK_MIN": "2"])
        #expect((try Self.json(resubmitted.stdout) as? [[String: Any]] ?? []).compactMap { $0["index"] as? Int } == [3, 4],
                "\(resubmitted.stderr)")
        let k8s = try Oracle.run(Oracle.mixwrite, ["batch", dir + "/jobs.json", "--shard", "auto", "--shards", "7", "--skip-existing", "--json"],
                                 environment: ["JOB_COMPLETION_INDEX": "0"])
        #expect((try Self.json(k8s.stdout) as? [[String: Any]] ?? []).compactMap { $0["index"] as? Int } == [0])

        // A real run after one output went missing redoes only that job.
        try FileManager.default.removeItem(atPath: dir + "/out/r2.mkv")
        let retry = try Oracle.mixwrite(["batch", dir + "/jobs.json", "--skip-existing", "--json"])
        let statuses = (try Self.json(retry.stdout) as? [[String: Any]] ?? []).map { $0["status"] as? String ?? "" }
        #expect(statuses == ["skipped", "skipped", "done", "skipped", "skipped", "skipped", "skipped"])
        #expect(try Oracle.probe(dir + "/out/r2.mkv").audio.count == 1)
    }

    @Test("--progress json: a JSON object a line, rising to 1.0; the report names every source")
    func progressAndReport() throws {
        let dir = try Oracle.scratch()
        let r = try Oracle.mixwrite([Oracle.fixture("fx.mov"), Oracle.fixture("base.mov"), "-o", dir + "/o.mov",
                                     "--progress", "json", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }
        let values = lines.compactMap { (try? Self.json(Data($0.utf8))) as? [String: Any] }.compactMap { $0["progress"] as? Double }
        #expect(values.count >= 2)
        #expect(values == values.sorted(), "progress went down: \(values)")
        #expect(values.last == 1.0)
        let report = try Self.json(r.stdout) as? [String: Any]
        let sources = ((report?["audio"] as? [String: Any])?["sources"] as? [[String: Any]]) ?? []
        #expect(sources.map { "\($0["label"]!):\($0["track"]!)" } == ["fx:1", "fx:2", "base:1"])
        #expect((report?["stageSeconds"] as? [String: Double])?.keys.sorted() == ["audio", "video"])
        #expect((report?["peakMemoryMB"] as? Double ?? 0) > 0)
        #expect(report?["output"] as? String == dir + "/o.mov")
    }

    @Test("--help lists every command; completion scripts generate for bash, zsh and fish")
    func helpAndCompletion() throws {
        let help = try Oracle.mixwrite(["--help"])
        #expect(help.status == 0)
        for command in ["blend", "concat", "still", "remix", "probe", "batch"] {
            #expect(help.stdoutText.contains(command), "--help does not list \(command)")
        }
        for shell in ["bash", "zsh", "fish"] {
            let r = try Oracle.mixwrite(["--generate-completion-script", shell])
            #expect(r.status == 0 && r.stdoutText.contains("---complete"), "\(shell): \(r.stdoutText)")
        }
    }

    @Test("bash completion, the installed script in a real bash: files where files go (the default command's too), an option's choices, nothing for a number, option and command names")
    func bashCompletion() throws {
        let dir = try Oracle.scratch()
        for name in ["vid1.mov", "vid2.mp4", "notes.txt", ".hidden.mov"] { try Data().write(to: URL(fileURLWithPath: dir + "/" + name)) }
        try FileManager.default.createDirectory(atPath: dir + "/videos", withIntermediateDirectories: true)
        let script = dir + "/mixwrite.bash"
        try Oracle.mixwrite(["--generate-completion-script", "bash"]).stdout.write(to: URL(fileURLWithPath: script))
        // Each line typed (the last word is completed), through the script's function as bash calls it on TAB.
        let cases: [([String], [String])] = [
            (["concat", dir + "/vid"], [dir + "/vid1.mov", dir + "/vid2.mp4", dir + "/videos"]),
            (["concat", dir + "/"], [dir + "/mixwrite.bash", dir + "/notes.txt", dir + "/vid1.mov", dir + "/vid2.mp4", dir + "/videos"]),
            (["concat", dir + "/."], [dir + "/.hidden.mov"]),
            (["fx.mov", dir + "/vid1"], [dir + "/vid1.mov"]),
            (["fx.mov", "base.mov", "--keyer", ""], ["gpuimage", "fine"]),
            (["concat", "a.mov", "--fit", "f"], ["fit", "fill"]),
            (["fx.mov", "base.mov", "--crf", ""], []),
            (["fx.mov", "base.mov", "-o", dir + "/vid2"], [dir + "/vid2.mp4"]),
            (["fx.mov", "--layer", dir + "/vid1"], [dir + "/vid1.mov"]),
            (["fx.mov", "--key-c"], ["--key-color"]),
            (["con"], ["concat"]),
            (["probe", "--js"], ["--json"]),
            (["batch", "--shard"], ["--shard", "--shards"]),
        ]
        var harness = "source \(script)\n"
        for (typed, _) in cases {
            let words = ([Oracle.mixwrite] + typed).map { "'\($0)'" }.joined(separator: " ")
            harness += "COMP_WORDS=(\(words)); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()\n"
            harness += "_mixwrite mixwrite \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD - 1]}\"; IFS='|'; echo \"${COMPREPLY[*]}\"; unset IFS\n"
        }
        let r = try Oracle.run("/bin/bash", ["-c", harness])
        try #require(r.status == 0, "\(r.stderr)")
        let lines = r.stdoutText.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (i, (typed, expected)) in cases.enumerated() {
            let got = i < lines.count ? lines[i].split(separator: "|").map(String.init) : ["(no line)"]
            #expect(got == expected, "mixwrite \(typed.joined(separator: " "))<TAB>: \(got), expected \(expected)")
        }
    }

    @Test("zsh and fish completion, the installed scripts in the real shells: an option's choices, files where files go",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh") && FileManager.default.isExecutableFile(atPath: "/usr/bin/fish"),
                   "zsh and fish are not installed (make test installs them)"))
    func zshAndFishCompletion() throws {
        let dir = try Oracle.scratch()
        // fish finds `mixwrite` on PATH: a link to the binary under test.
        try FileManager.default.createSymbolicLink(atPath: dir + "/mixwrite", withDestinationPath: Oracle.mixwrite)
        for shell in ["zsh", "fish"] {
            try Oracle.mixwrite(["--generate-completion-script", shell]).stdout.write(to: URL(fileURLWithPath: dir + "/mixwrite." + shell))
        }
        let fixtures = Oracle.fixture("fx")
        // zsh: the function as the completion system calls it, with compadd stood in for to print what is offered.
        let zsh = try Oracle.run("/usr/bin/zsh", ["-c", """
            compdef() { :; }; compadd() { shift 2; print -l -- "$@"; }; source \(dir)/mixwrite.zsh
            words=(mixwrite fx.mov base.mov --keyer ''); CURRENT=5; _mixwrite; print -r -- ---
            words=(mixwrite concat \(fixtures)); CURRENT=3; _mixwrite
            """], environment: ["PATH": dir + ":/usr/bin:/bin"])
        #expect(zsh.stdoutText == "gpuimage\nfine\n---\n\(fixtures)-flac.mkv\n\(fixtures).mov\n", "zsh: \(zsh.stdoutText) \(zsh.stderr)")
        // fish: its own `complete -C`, the candidates for a command line as typed.
        let fish = try Oracle.run("/usr/bin/fish", ["-c", """
            source \(dir)/mixwrite.fish; complete -C 'mixwrite fx.mov base.mov --keyer '; echo ---; complete -C 'mixwrite concat \(fixtures)'
            """], environment: ["PATH": dir + ":/usr/bin:/bin", "HOME": dir])
        let offered = fish.stdoutText.split(separator: "\n").map(String.init)
        #expect(Set(offered.prefix(2)) == ["gpuimage", "fine"] && Set(offered.suffix(2)) == [fixtures + ".mov", fixtures + "-flac.mkv"],
                "fish: \(fish.stdoutText) \(fish.stderr)")
    }

    @Test("the published JSON Schema accepts the README's job file and rejects a misspelt option (python3 jsonschema)",
          .enabled(if: Oracle.hasJSONSchema, "python3 with jsonschema is not installed: the schema is not checked"))
    func schema() throws {
        let script = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        jsonschema.Draft202012Validator.check_schema(schema)
        readme = open(sys.argv[2]).read()
        example = json.loads(readme.split("<!-- job-file -->")[1].split("```json")[1].split("```")[0])
        jsonschema.validate(example, schema)
        bad = {"jobs": [{"kind": "blend", "fx": "a", "base": "b", "output": "o", "treshold": 1}]}
        try:
            jsonschema.validate(bad, schema)
            sys.exit("a misspelt option was accepted")
        except jsonschema.ValidationError:
            pass
        """
        let r = try Oracle.run("/usr/bin/env", ["python3", "-c", script, Oracle.root.path + "/Schemas/jobs.schema.json",
                                                Oracle.root.path + "/README.md"])
        #expect(r.status == 0, "\(r.stderr)")
    }
}
