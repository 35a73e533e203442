import ArgumentParser
@_spi(Tools) import MixWrite

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@main
struct Mixwrite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mixwrite",
        abstract: "Write one movie from several sources without losing any of their sound.",
        discussion: discussion,
        version: "mixwrite 0.1.0\n" + MixWriter.ffmpegLibraries,
        subcommands: KindCommands.all + otherCommands,
        defaultSubcommand: Blend.self
    )

    /// The commands besides the kinds' (each kind's is `KindCommands.all`'s).
    static let otherCommands: [any ParsableCommand.Type] = [Probe.self, Sync.self, Batch.self, Join.self, Tune.self]

    /// Every command's name: the kinds' (the blend's first), then the others'.
    static var commandNames: [String] { KindCommands.all.map { $0.kindName } + otherCommands.map { $0._commandName } }

    /// The root help's text: an example of every kind of job (its own), then of the other commands.
    static var discussion: String {
        let kinds = JobFile.kindDescriptions.map { "  " + $0.example }
        let others = ["  mixwrite probe phone.mov --json", "  mixwrite sync camera.mp4 lavalier.wav --json",
                      "  mixwrite batch jobs.json --jobs 2",
                      "  mixwrite fx.mov base.mov -o out.mov --parts 4 --part 2   (then: mixwrite join out.mov)",
                      "  mixwrite tune fx.mov base.mov -o out.mov"]
        return """
            mixwrite FX BASE -o OUT keys the green screen of FX over BASE (GPUImage's chroma-key blend) and \
            mixes every audio track of both into OUT.

            Examples:

            """ + (kinds + others).joined(separator: "\n") + """


            Exit codes: 0 done, 1 bad usage, 2 bad input, 3 output problem, 4 processing failed, \
            130 interrupted (SIGINT), 143 terminated (SIGTERM), 129 hung up (SIGHUP).
            """
    }

    /// A bare `mixwrite`'s answer: how to call it, every command named.
    static var usage: String {
        let names = commandNames.filter { $0 != Blend.kindName }
        return "usage: mixwrite FX BASE -o OUT [options]      (key FX over BASE, every audio track mixed)\n"
            + "       mixwrite \(names.joined(separator: "|")) …\n"
            + "mixwrite --help lists every command; mixwrite COMMAND --help its options.\n"
    }

    /// Parses, runs, and turns every failure into one `mixwrite: error:` line and its documented exit code.
    static func main() async {
        // A closed pipe (`--progress json 2>&1 | head -n 1`) is a failed write, said once, not the end of a render.
        signal(SIGPIPE, SIG_IGN)
        MixWriter.setLibraryLogging(false)
        if CommandLine.arguments.count == 1 {
            // A bare `mixwrite`: how to call it, not a complaint about its first missing word.
            writeError(usage)
            Glibc.exit(1)
        }
        if CommandLine.arguments.dropFirst().first == "---options-reference" {
            // `make docs`: Docs/options.md, from the declarations every command reads its words by.
            print(KindCommands.reference, terminator: "")
            Glibc.exit(0)
        }
        if let answer = Completion.answer(Array(CommandLine.arguments.dropFirst())) {
            print(answer, terminator: "")
            Glibc.exit(0)
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as MixWriteError {
            fail(error.description, code: error.exitCode)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                Glibc.exit(0)
            }
            // argument-parser's own messages (unknown option, missing value) are usage errors: exit 1.
            let message = fullMessage(for: error)
            let firstLine = message.split(separator: "\n").first.map(String.init) ?? message
            fail(firstLine.replacingPrefix("Error: ", with: ""), code: 1,
                 hint: "see 'mixwrite --help'")
        }
    }

    /// Ends with `code` without a message (the summary already said what failed).
    static func exitQuietly(_ code: Int32) -> Never { Glibc.exit(code) }

    static func fail(_ message: String, code: Int32, hint: String? = nil) -> Never {
        var line = "mixwrite: error: \(message)"
        if let hint { line += " (\(hint))" }
        writeLine(line)
        Glibc.exit(code)
    }
}

/// Writes to standard error unbuffered, so a progress line and an error never interleave oddly.
func writeError(_ text: String) {
    _ = writeAll(STDERR_FILENO, text)
}

/// One message line on standard error: a control character in it (a file name's newline) shown escaped (`\n`,
/// `\u{7}`), so that a message is always one line.
func writeLine(_ text: String) {
    let shown = text.unicodeScalars.map { c -> String in
        switch c {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\t"
        case _ where c.value < 0x20 || (0x7F..<0xA0).contains(c.value): "\\u{\(String(c.value, radix: 16))}"
        default: String(c)
        }
    }.joined()
    writeError(shown + "\n")
}

/// Writes `text` to `fd` whole; false when it cannot (a closed pipe: EPIPE, SIGPIPE being ignored).
func writeAll(_ fd: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        offset += n
    }
    return true
}

extension String {
    func replacingPrefix(_ prefix: String, with replacement: String) -> String {
        hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
    }
}
