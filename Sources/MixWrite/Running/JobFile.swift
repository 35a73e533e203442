import Foundation
import FFmpegSupport

/// A job file for `mixwrite batch`: `{"jobs": [ {"kind": KIND, "output": PATH, …} ]}`, KIND one of `kinds`.
/// Each entry is its job's `Codable` form, read through the job's description (`JobOption`): inputs under `fx`,
/// `base`, `clips`, `image`, `audio`, `movie`; every command-line option under its long name (`"threshold": 0.35`,
/// `"size": "640x640"`, `"gain": {"fx": -6}`); a key the kind does not have is an error. Relative paths are
/// relative to the job file's folder. The whole file is decoded and checked before any job runs.
public struct JobFile: Sendable {
    public var path: String
    /// The jobs in the file's order: a job's index is its 0-based place in the file.
    public var jobs: [any MixJob]

    /// Reads and checks the whole file; the first problem is reported with the job's index and the key.
    public init(path: String, threads: Int = 0) throws(MixWriteError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .input(file: path, FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file")
        }
        if let problem = StrictJSON.problem(in: [UInt8](data)) { throw .input(file: path, "is not JSON: \(problem)") }
        let decoder = JSONDecoder()
        decoder.userInfo[JobContext.key] = JobContext(folder: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                                      threads: threads)
        let root: Root
        do { root = try decoder.decode(Root.self, from: data) } catch let problem as JobProblem {
            throw .input(file: path, problem.description)
        } catch {
            throw .input(file: path, "is not JSON (\(error.localizedDescription))")
        }
        jobs = root.jobs.map(\.job)
        // One output however its path is written (`o/x.mp4`, `o/../o/x.mp4`).
        let outputs = jobs.map { Self.identity($0.output) }
        if let dup = outputs.enumerated().first(where: { outputs.firstIndex(of: $0.element) != $0.offset }) {
            let first = outputs.firstIndex(of: dup.element)!
            throw .input(file: path, "job \(dup.offset): output \(jobs[dup.offset].output) is also the output of job \(first)"
                         + (jobs[first].output == jobs[dup.offset].output ? "" : " (\(jobs[first].output))"))
        }
    }


    /// Every kind of job, in the order the schema, the messages and the commands list them: the one list a new kind
    /// joins (as mpv's `video_out_drivers[]`). The command line's commands, the job file, the schema, the option
    /// reference, the tuning page and the tests follow from it.
    static var kinds: [any DescribedJob.Type] {
        [BlendJob.self, ConcatJob.self, StillJob.self, RemixJob.self, KeyJob.self, RenderJob.self] + rehearsal
    }

    /// Kinds a test adds for the time of its run (`JobFile.$rehearsal.withValue([…])`), to show that a kind joins by
    /// this list alone; always empty outside the tests.
    @TaskLocal static var rehearsal: [any DescribedJob.Type] = []

    /// The kinds as the command line and the page see them: each one's name, line of help, example and type.
    @_spi(Tools) public static var kindDescriptions: [KindDescription] {
        kinds.map { KindDescription(name: $0.kind, abstract: $0.abstract, example: $0.example, type: $0) }
    }

    /// `{"jobs": [...]}`, and `$schema` for editors; nothing else.
    private struct Root: Decodable {
        var jobs: [Job]

        init(from decoder: any Swift.Decoder) throws {
            let shape = JobProblem(index: nil, key: nil, what: "must be an object with a \"jobs\" array")
            let c: KeyedDecodingContainer<JobKey>
            do { c = try decoder.container(keyedBy: JobKey.self) } catch { throw shape }
            if let extra = c.allKeys.first(where: { $0.stringValue != "jobs" && $0.stringValue != "$schema" }) {
                throw JobProblem(index: nil, key: nil, what: "unknown top-level key '\(extra.stringValue)' (only \"jobs\")")
            }
            var list: UnkeyedDecodingContainer
            do { list = try c.nestedUnkeyedContainer(forKey: JobKey("jobs")) } catch { throw shape }
            var jobs: [Job] = []
            while !list.isAtEnd {
                let i = list.currentIndex
                do { jobs.append(try list.decode(Job.self)) } catch let e as JobProblem { throw e } catch {
                    throw JobProblem(index: i, key: nil, what: "must be an object")
                }
            }
            self.jobs = jobs
        }
    }

    /// One job, decoded by the kind it names.
    private struct Job: Decodable {
        var job: any MixJob

        init(from decoder: any Swift.Decoder) throws {
            let index = decoder.codingPath.last?.intValue ?? 0
            let c = try decoder.container(keyedBy: JobKey.self)
            let names = JobFile.kinds.map { $0.kind }.joined(separator: ", ")
            guard c.contains(JobKey("kind")) else { throw JobProblem(index: index, key: "kind", what: "is missing (\(names))") }
            guard let kind = try? c.decode(String.self, forKey: JobKey("kind")) else {
                throw JobProblem(index: index, key: "kind", what: "must be a string")
            }
            guard let type = JobFile.kinds.first(where: { $0.kind == kind }) else {
                throw JobProblem(index: index, key: "kind", what: "'\(kind)' is not one of \(names)")
            }
            job = try type.init(from: decoder)
        }
    }
}

/// One kind of job (`JobFile.kinds`) as the command line and the page see it.
@_spi(Tools)
public struct KindDescription {
    /// The job file's `kind` and the command's name: `concat`.
    public let name: String
    public let abstract: String
    public let example: String
    public let type: any MixJob.Type
}

extension MixJob {
    /// Whether the job is one part of several (`--parts N`).
    @_spi(Tools) public var isParted: Bool { (self as? any PartedJob)?.run.parts != nil }
}
