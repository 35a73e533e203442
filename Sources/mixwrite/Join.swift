import ArgumentParser
import MixWrite

struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join",
        abstract: "Join the parts that --parts N --part K rendered into OUT.parts/ into OUT, copying their packets.",
        discussion: """
        Example: mixwrite join show.mp4
        Every part must be there, complete and of one job (the same settings, inputs and N); a missing, partial or \
        foreign part is named and nothing is written (exit 2). OUT.parts/ is removed after the join unless --keep-parts.
        """
    )

    @Argument(help: "The movie the parts make (the job's -o).")
    var output: String

    @Flag(name: [.customShort("y"), .long], help: "Replace OUT if it exists (so does the job's own -y).")
    var overwrite = false

    @Flag(name: .customLong("keep-parts"), help: "Keep OUT.parts/ after the join.")
    var keepParts = false

    @Flag(help: "Print a JSON report on stdout when done.")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func run() async throws {
        let report = try await MixWriter.join(output, overwrite: overwrite, keepParts: keepParts)
        if !quiet { for w in report.warnings { writeLine("mixwrite: warning: \(w)") } }
        if json {
            printJSON(report)
        } else if !quiet {
            writeError("mixwrite: joined \(report.output) (\(formatSeconds(report.duration)), \(report.video?.frames ?? 0) frames)\n")
        }
    }
}
