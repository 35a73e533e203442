import ArgumentParser
import Foundation
@_spi(Tools) import MixWrite
#if TuningPage
import MixWriteTune
#endif
import Synchronization

struct Tune: AsyncParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            abstract: "Tune the key and the mix in a local web page, then copy the command or render from there.",
            usage: "mixwrite tune FX BASE [-o OUTPUT (default tuned.mov)] [options]",
            discussion: """
            Prints the page's address (with its token) on stdout and serves until SIGINT or SIGTERM.
            Example: mixwrite tune fx.mov base.mov --audio music.mp3 -o out.mov


            """ + CommandWords.help(for: BlendJob.self, own: ServingOptions.declarations)
                .split(separator: "\n", omittingEmptySubsequences: false).dropFirst(2).joined(separator: "\n"))
    }

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var words: [String] = []

    /// The command in the option reference: a blend's options and where the page is served.
    static var referenceEntry: (name: String, abstract: String, job: any MixJob.Type, own: [OptionDeclaration]) {
        ("tune", configuration.abstract, BlendJob.self, ServingOptions.declarations)
    }

    /// A blend's words; the page's render writes `tuned.mov` unless `-o` says where.
    func run() async throws {
        let given = words.contains { $0 == "-o" || $0 == "--output" || $0.hasPrefix("--output=") }
        let (job, words) = try CommandWords.parse(self.words + (given ? [] : ["-o", "tuned.mov"]), as: BlendJob.self,
                                                  own: ServingOptions.declarations)
        try await ServingOptions(words).serve(job)
    }
}

/// Where the tuning page is served (`tune`, and `--tune` on a command), and the serving itself.
struct ServingOptions {
    static let declarations: [OptionDeclaration] = [
        OptionDeclaration("port", .integer(0...65535), default: .number(0), help: "The port to serve the page on (0: a free one)."),
        OptionDeclaration("listen", .text(pattern: nil, orNumber: false), valueName: "ADDRESS", default: .text("127.0.0.1"),
                          help: "The address to serve the page on. Only 127.0.0.1 keeps the page to this machine."),
        OptionDeclaration("quiet", .flag, form: .short("-q"), help: "Print nothing but the address and errors."),
    ]

    var port: UInt16 = 0
    var listen = "127.0.0.1"
    var quiet = false

    init(_ words: CommandWords) throws {
        if let p = words.text("port") {
            guard let n = UInt16(p) else { throw MixWriteError.usage("--port '\(p)' is not a port (0 to 65535)") }
            port = n
        }
        listen = words.text("listen") ?? listen
        quiet = words.flag("quiet")
    }

    /// Serves `job`'s page until SIGINT or SIGTERM: its address (with its token) on stdout.
    func serve(_ job: BlendJob) async throws {
        try await Self.serve(job.output, listen: listen, port: port, quiet: quiet) { try await TuneServer(job: job, listen: $0, port: $1) }
    }

    /// Serves the page of the server `make` opens on `listen`:`port` until SIGINT or SIGTERM.
    static func serve(_ output: String, listen: String, port: UInt16, quiet: Bool,
                      make: (String, UInt16) async throws -> TuneServer) async throws {
        if listen != "127.0.0.1" && !quiet {
            writeLine("mixwrite: warning: serving on \(listen): anyone who can reach it and has the token can read the inputs' pictures and write \(output)")
        }
        let server: TuneServer
        do { server = try await make(listen, port) } catch let e as MixWriteError { throw e } catch {
            throw MixWriteError.usage("cannot serve on \(listen):\(port): \(error)")
        }
        // The signals are watched before the address is printed: whoever reads it may stop the server at once
        // (a signal before the watcher would have ended the process by its default action).
        let serving = ServingTask()
        let signals = SignalWatcher { _ in serving.cancel() }
        defer { signals.stop() }
        let task = Task { try await server.run { address in FileHandle.standardOutput.write(Data((address + "\n").utf8)) } }
        serving.set(task)
        if signals.caught != nil { task.cancel() }
        do { try await task.value } catch is CancellationError {} catch where signals.caught != nil {} catch {
            throw MixWriteError.usage("cannot serve on \(listen):\(port): \(error)")
        }
        await server.stop()
        if !quiet { writeError("mixwrite: stopped serving\n") }
    }
}

/// `--tune` on a command (the blend, `concat`, `still`, `remix`): instead of rendering, serve the job's page.
struct TuneFlag {
    static let declarations: [OptionDeclaration] = [
        OptionDeclaration("tune", .flag, help: "Instead of rendering, serve the tuning page for this job (as 'mixwrite tune'), with --port and --listen."),
    ] + ServingOptions.declarations.filter { $0.name != "quiet" }.map { d in
        var d = d
        d.help = "With --tune: " + d.help.prefix(1).lowercased() + d.help.dropFirst()
        return d
    }

    var port: UInt16 = 0
    var listen = "127.0.0.1"

    init(_ words: CommandWords) throws {
        let serving = try ServingOptions(words)
        (port, listen) = (serving.port, serving.listen)
    }

    /// Serves the page of the job writing `output` (its server made by `make`) until SIGINT or SIGTERM.
    func serve(_ output: String, quiet: Bool, make: (String, UInt16) async throws -> TuneServer) async throws {
        try await ServingOptions.serve(output, listen: listen, port: port, quiet: quiet, make: make)
    }
}

/// The server's task, for the signal handler, which exists before the task does.
private final class ServingTask: Sendable {
    private let task = Mutex<Task<Void, any Error>?>(nil)

    func set(_ t: Task<Void, any Error>) { task.withLock { $0 = t } }
    func cancel() { task.withLock { $0?.cancel() } }
}

#if !TuningPage
/// The tuning page's place in a mixwrite built without it (`swift build --disable-default-traits`: no HTTP server, no
/// swift-nio): no kind has `--tune`, and `tune` and the blend's `--tune` say how to get the page.
final class TuneServer: Sendable {
    init(job: BlendJob, listen: String, port: UInt16) async throws {
        throw MixWriteError.usage("this mixwrite was built without its tuning page (swift build --disable-default-traits); build it with its default traits for `tune` and --tune")
    }

    static func page(for job: any MixJob, listen: String, port: UInt16) async throws -> TuneServer? { nil }
    static func hasPage(_ kind: any MixJob.Type) -> Bool { false }
    func run(ready: @escaping @Sendable (String) -> Void) async throws {}
    func stop() async {}
}
#endif
