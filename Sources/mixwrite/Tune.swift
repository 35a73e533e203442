import ArgumentParser
import Foundation
import MixWrite
import MixWriteTune
import Synchronization

struct Tune: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Tune the key and the mix in a local web page, then copy the command or render from there.",
        discussion: """
        Prints the page's address (with its token) on stdout and serves until SIGINT or SIGTERM.
        Example: mixwrite tune fx.mov base.mov --audio music.mp3 -o out.mov
        """
    )

    @Argument(help: "The effect clip, shot on a green (or --key-color) screen.")
    var fx: String

    @Argument(help: "The clip shown where FX is keyed out.")
    var base: String

    @Option(name: .shortAndLong, help: "The movie the page's render button writes (it asks before replacing one).")
    var output: String = "tuned.mov"

    @OptionGroup var serving: ServingOptions

    @OptionGroup var blend: BlendOptions

    func run() async throws {
        try await serving.serve(try blend.job(fx: fx, base: base, output: output))
    }
}

/// Where the tuning page is served (`tune`, and `--tune` on a command), and the serving itself.
struct ServingOptions: ParsableArguments {
    @Option(help: "The port to serve the page on (default: a free one).")
    var port: UInt16 = 0

    @Option(help: "The address to serve the page on. Only 127.0.0.1 keeps the page to this machine.")
    var listen: String = "127.0.0.1"

    @Flag(name: .shortAndLong, help: "Print nothing but the address and errors.")
    var quiet = false

    /// Serves `job`'s page until SIGINT or SIGTERM: its address (with its token) on stdout.
    func serve(_ job: BlendJob) async throws {
        try await Self.serve(job.output, listen: listen, port: port, quiet: quiet) { try await TuneServer(job: job, listen: $0, port: $1) }
    }

    /// Serves the page of the server `make` opens on `listen`:`port` until SIGINT or SIGTERM.
    static func serve(_ output: String, listen: String, port: UInt16, quiet: Bool,
                      make: (String, UInt16) async throws -> TuneServer) async throws {
        if listen != "127.0.0.1" && !quiet {
            writeError("mixwrite: warning: serving on \(listen): anyone who can reach it and has the token can read the inputs' pictures and write \(output)\n")
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
struct TuneFlag: ParsableArguments {
    @Flag(help: "Instead of rendering, serve the tuning page for this job (as 'mixwrite tune'), with --port and --listen.")
    var tune = false

    @Option(help: "With --tune: the port to serve the page on (default: a free one).")
    var port: UInt16 = 0

    @Option(help: "With --tune: the address to serve the page on. Only 127.0.0.1 keeps the page to this machine.")
    var listen: String = "127.0.0.1"

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
