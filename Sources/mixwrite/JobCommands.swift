import ArgumentParser
@_spi(Tools) import MixWrite
#if TuningPage
import MixWriteTune
#endif

/// Every kind of job of `JobFile.kinds` is a command: the blend's own (the default command, with `--frame`:
/// Blend.swift), and for each other kind this one, its name, help and example the kind's own. A kind that joins the
/// list is a command, with its page when it has one, without a line here.
struct KindCommand<Job: MixJob>: JobCommand {
    static var configuration: CommandConfiguration { kindConfiguration }

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var words: [String] = []
}

enum KindCommands {
    /// The command of each kind, in the list's order.
    static var all: [any JobCommand.Type] {
        JobFile.kindDescriptions.map { ObjectIdentifier($0.type) == ObjectIdentifier(BlendJob.self) ? Blend.self : command(for: $0.type) }
    }

    static func command<J: MixJob>(for type: J.Type) -> any JobCommand.Type { KindCommand<J>.self }

    /// The option reference, `Docs/options.md`: every kind's command, then `tune`.
    static var reference: String {
        let entries = all.map { command in command.referenceEntry }
        return CommandWords.reference(entries + [Tune.referenceEntry])
    }

    /// The command named `name` (a kind's), if any.
    static func named(_ name: String) -> (any JobCommand.Type)? { all.first { $0.kindName == name } }
}
