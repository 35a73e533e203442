import ArgumentParser
@_spi(Tools) import MixWrite

/// Shell completion, bash, zsh and fish alike: each script hands the words typed to `mixwrite ---complete INDEX
/// WORDS…`, which answers from the commands' declarations (`CommandWords.completions`): option names after a dash,
/// an option's choices (`--keyer`: gpuimage, fine), files where a file goes, nothing where a number goes. The default
/// command takes the words when the first is not a command's name (`mixwrite fx.mov base.mov --keyer <TAB>`), which
/// argument-parser's own scripts could not do: they offered the commands' names there, and options where a file goes.
enum Completion {
    static var commands: [String] { Mixwrite.commandNames + ["help"] }

    /// What `mixwrite ARGUMENTS` prints instead of running, if it is a completion request: the script a shell installs
    /// (`--generate-completion-script SHELL`), or the candidates (`---complete INDEX WORDS…`, one a line).
    static func answer(_ arguments: [String]) -> String? {
        // bash hands the words as typed (`clip\ o`, `"clip o`); zsh and fish, as the shell reads them.
        if let mode = arguments.first, mode == "---complete" || mode == "---complete-typed", arguments.count >= 2,
           let index = Int(arguments[1]) {
            let words = arguments.dropFirst(2).map { mode == "---complete" ? $0 : typed($0) }
            let prefix = index < words.count ? words[index] : ""
            return candidates(words: words, index: index, prefix: prefix).map { $0 + "\n" }.joined()
        }
        if arguments.count == 2, arguments[0] == "--generate-completion-script" { return script(for: arguments[1]) }
        return nil
    }

    /// A word as typed, as the shell will read it: backslash escapes and quotes (an unclosed one too) taken out, as
    /// `ls`'s completion reads `clip\ o` and `"clip o` (a `~/` is the home folder's, which `files(matching:)` reads).
    static func typed(_ word: String) -> String {
        var out = "", quote: Character?, escaped = false
        for c in word {
            if escaped {
                // Inside double quotes a backslash escapes only what is special there.
                if quote == "\"", !"$`\"\\\n".contains(c) { out.append("\\") }
                (out, escaped) = (out + String(c), false)
            } else if c == "\\" && quote != "'" {
                escaped = true
            } else if quote == nil && (c == "'" || c == "\"") {
                quote = c
            } else if c == quote {
                quote = nil
            } else {
                out.append(c)
            }
        }
        return out
    }

    /// The candidates for word `index` of `words` (`words[0]` is the program), which starts with `prefix`.
    static func candidates(words: [String], index: Int, prefix: String) -> [String] {
        guard index >= 1 else { return [] }
        let named = words.count > 1 && commands.contains(words[1]) && index > 1
        let command = named ? words[1] : "blend"
        var found: [String]
        switch command {
        case let name where KindCommands.named(name) != nil:
            found = KindCommands.named(name)!.completions(words: words, index: index, prefix: prefix)
        case "tune": found = CommandWords.completions(for: BlendJob.self, own: ServingOptions.declarations, words: words, index: index, prefix: prefix)
        case "help": found = commands.filter { $0 != "help" }
        case "probe": found = plain(Probe.self, prefix: prefix)
        case "sync": found = plain(Sync.self, prefix: prefix)
        case "batch": found = plain(Batch.self, prefix: prefix)
        default: found = plain(Join.self, prefix: prefix)
        }
        if index == 1 && !prefix.hasPrefix("-") { found = commands.filter { $0.hasPrefix(prefix) } + found }
        return found.filter { $0.hasPrefix(prefix) }
    }

    /// A command declared with argument-parser's own properties (probe, sync, batch, join): its options' names as its help
    /// lists them after a dash, else files.
    static func plain(_ command: any ParsableCommand.Type, prefix: String) -> [String] {
        guard prefix.hasPrefix("-") else { return CommandWords.files(matching: prefix) }
        let help = command.helpMessage(columns: 1000)
        var names: [String] = []
        for word in help.split(whereSeparator: { " ,\n[]<>".contains($0) }) where word.hasPrefix("-") && word.count > 1 {
            let name = String(word.prefix { $0 == "-" || $0.isLetter || $0.isNumber })
            if name.count > 1 && !names.contains(name) { names.append(name) }
        }
        return names
    }

    static func script(for shell: String) -> String? {
        switch shell {
        case "bash":
            return """
            # mixwrite's completion for bash: the candidates come from mixwrite itself (its options' declarations).
            # The words go as typed (mixwrite reads escapes, quotes and ~/ as bash will); its answers are the
            # candidates, which bash quotes as it puts them on the line (-o filenames).
            _mixwrite() {
                local IFS=$'\\n'
                COMPREPLY=($("${COMP_WORDS[0]}" ---complete-typed "${COMP_CWORD}" "${COMP_WORDS[@]}" 2>/dev/null))
            }
            complete -o filenames -o bashdefault -F _mixwrite mixwrite

            """
        case "zsh":
            return """
            #compdef mixwrite
            # mixwrite's completion for zsh: the candidates come from mixwrite itself (its options' declarations).
            _mixwrite() {
                local -a candidates
                candidates=("${(@f)$("${words[1]}" ---complete "$((CURRENT - 1))" "${words[@]}" 2>/dev/null)}")
                compadd -f -- "${candidates[@]}"
            }
            if [ "$funcstack[1]" = "_mixwrite" ]; then _mixwrite "$@"; else compdef _mixwrite mixwrite; fi

            """
        case "fish":
            return """
            # mixwrite's completion for fish: the candidates come from mixwrite itself (its options' declarations).
            function __mixwrite_complete
                set -l words (commandline -opc) (commandline -ct)
                mixwrite ---complete (math (count $words) - 1) $words 2>/dev/null
            end
            complete -c mixwrite -f -a '(__mixwrite_complete)'

            """
        default:
            return nil
        }
    }
}
