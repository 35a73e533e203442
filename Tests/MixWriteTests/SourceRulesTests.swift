import Foundation
import Testing
import TestSupport
@testable import MixWrite

/// The rules ARCHITECTURE.md draws, held by reading the sources (the compiler does not check folders): the arrows
/// between the library's layers, the length of a function, the count of public types. Each rule is also shown to
/// catch what it forbids (`*Catches`), so that none of them passes by reading nothing.
@Suite("the sources keep the architecture's rules")
struct SourceRulesTests {
    /// The library's layers, bottom up: a file may use the types of its own layer and of those it lists.
    /// The files at the library's root (errors, progress, exports) are the shared words every layer uses.
    static let allowed: [String: Set<String>] = [
        "root": [],
        "Reading": ["root"],
        "Keying": ["root"],
        "Encoding": ["root"],
        "Writing": ["root"],
        "Mixing": ["root", "Reading"],
        "Syncing": ["root", "Reading"],
        "Captions": ["root", "Reading"],
        "Stages": ["root", "Reading", "Mixing", "Captions", "Keying", "Encoding", "Writing"],
        "Options": ["root", "Reading", "Mixing", "Captions", "Keying", "Encoding", "Writing", "Stages", "Syncing"],
        "Jobs": ["root", "Reading", "Mixing", "Captions", "Keying", "Encoding", "Writing", "Stages", "Syncing", "Options"],
        "Timeline": ["root", "Reading", "Mixing", "Captions", "Keying", "Encoding", "Writing", "Stages", "Syncing", "Options", "Jobs"],
        "Kinds": ["root", "Reading", "Mixing", "Captions", "Keying", "Encoding", "Writing", "Stages", "Syncing", "Options", "Jobs", "Timeline"],
        "Previews": ["root", "Reading", "Mixing", "Captions", "Keying", "Encoding", "Writing", "Stages", "Syncing", "Options", "Jobs", "Timeline", "Kinds"],
        "Running": ["root", "Reading", "Mixing", "Captions", "Keying", "Encoding", "Writing", "Stages", "Syncing", "Options", "Jobs", "Timeline", "Kinds", "Previews"],
        "Benchmarking": ["root", "Reading", "Mixing", "Keying", "Encoding", "Writing", "Stages"],
    ]

    static var library: URL { Oracle.root.appendingPathComponent("Sources/MixWrite") }

    /// Every Swift file of the library, by layer (its first folder under Sources/MixWrite, or root).
    static func files() throws -> [(layer: String, path: String, text: String)] {
        let base = library.path + "/"
        let paths = try FileManager.default.subpathsOfDirectory(atPath: library.path).filter { $0.hasSuffix(".swift") }.sorted()
        return try paths.map { p in
            let layer = p.contains("/") ? String(p.split(separator: "/")[0]) : "root"
            return (layer, p, try String(contentsOfFile: base + p, encoding: .utf8))
        }
    }

    /// The code without comments and string literals, so that a type named in a comment is no reference.
    static func code(_ text: String) -> String {
        var out = "", i = text.startIndex
        while i < text.endIndex {
            let rest = text[i...]
            if rest.hasPrefix("//") {
                i = text[i...].firstIndex(of: "\n") ?? text.endIndex
            } else if rest.hasPrefix("/*") {
                i = text.range(of: "*/", range: i..<text.endIndex).map(\.upperBound) ?? text.endIndex
            } else if rest.hasPrefix("\"") {
                let quote = rest.hasPrefix("\"\"\"") ? "\"\"\"" : "\""
                var j = text.index(i, offsetBy: quote.count)
                while j < text.endIndex, !text[j...].hasPrefix(quote) {
                    j = text.index(after: text[j] == "\\" ? text.index(after: j) : j)
                }
                out += "\"\""
                i = j < text.endIndex ? text.index(j, offsetBy: quote.count) : text.endIndex
            } else {
                out.append(text[i])
                i = text.index(after: i)
            }
        }
        return out
    }

    /// The types a file declares at its top level (nested ones are reached through these).
    static func declared(_ code: String) -> [String] {
        let pattern = #/^(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+|internal\s+|fileprivate\s+|private\s+)?(?:final\s+)?(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)/#
        return code.split(separator: "\n").compactMap { line in (try? pattern.firstMatch(in: String(line)))?.output.1 }.map(String.init)
    }

    /// FFmpegSupport's code, whose names the library's files call too (`Demuxer.read(into:)`).
    static func support() throws -> [String] {
        let dir = Oracle.root.appendingPathComponent("Sources/FFmpegSupport").path
        return try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".swift") }.sorted().map {
            code(try String(contentsOfFile: dir + "/" + $0, encoding: .utf8))
        }
    }

    /// A function's name with its first argument's label, as a call writes it: `opacity(into:` for
    /// `func opacity(into layer: Frame)`, `pad(` for `func pad(_ x: Int)` or `func pad()`; a property's bare name.
    static var declaration: Regex<(Substring, Substring, Substring, Substring?, Substring?)> { #/(func|var|let|case)\s+(\w+)(?:\s*<[^>]*>)?(?:\s*\(\s*(\w+)?(\s+\w+)?)?/# }
    static func identity(_ m: Regex<(Substring, Substring, Substring, Substring?, Substring?)>.Match) -> String {
        guard m.output.1 == "func" else { return String(m.output.2) }
        // A label is the first word when a parameter's name follows it; `_` is none.
        let label = m.output.3.map { m.output.4 != nil && $0 == "_" ? "" : $0 + ":" } ?? ""
        return m.output.2 + "(" + label
    }

    /// What a file declares that others reach without naming a type of its own: its top-level functions (called as
    /// `name(`), and the members of its extensions, of any type (called as `.name`), by their identities.
    static func reachedByName(_ code: String) -> (functions: [String], members: [(type: String, name: String)]) {
        let modifiers = #"(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|fileprivate|private|static|final|mutating|nonisolated|@_spi\(\w+\))\s+)*"#
        let extensionStart = try! Regex("^" + modifiers + #"extension\s+([\w.]+)"#)
        var functions: [String] = [], members: [(String, String)] = []
        var depth = 0, extended: String?
        for line in code.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let indented = line.first?.isWhitespace == true
            if depth == 0 {
                extended = nil
                if !indented, line.range(of: #"^(\S+\s+)*func\s"#, options: .regularExpression) != nil,
                   let m = line.firstMatch(of: declaration) { functions.append(identity(m)) }
                if let m = try? extensionStart.firstMatch(in: line), let name = m.output[1].substring { extended = String(name) }
            } else if depth == 1, let extended, indented, let m = line.firstMatch(of: declaration), m.output.1 != "case" {
                members.append((extended, identity(m)))
            }
            depth += line.filter { $0 == "{" }.count - line.filter { $0 == "}" }.count
        }
        return (functions, members)
    }

    /// The identities a file uses: `name(label:` or `name(` for a call (`.`-prefixed for a member's), a member's
    /// bare `.name` for a property.
    static func used(_ code: String) -> (calls: Set<String>, members: Set<String>) {
        var calls = Set<String>(), members = Set<String>()
        for m in code.matches(of: #/(\.?)(\w+)(\s*\(\s*(?:(\w+)\s*:(?!:))?)?/#) {
            let name = String(m.output.2)
            let id = m.output.3 == nil ? name : name + "(" + (m.output.4.map { $0 + ":" } ?? "")
            if m.output.1.isEmpty { calls.insert(id) } else { members.insert(id) }
        }
        return (calls, members)
    }

    /// The references against the arrows: (file, type or name, its layer). A type is found by its name; a top-level
    /// function by a call of it, an extension's member by `.name(label:` (or `.name`), when no other declaration of
    /// the library has that identity (a common one, `run()`, cannot be told apart without the compiler's types).
    static func wrongWay(_ files: [(layer: String, path: String, text: String)]) -> [(String, String, String)] {
        var home: [String: String] = [:]
        let codes = files.map { code($0.text) }
        for (f, c) in zip(files, codes) { for t in declared(c) { home[t] = f.layer } }
        // How often each identity is declared anywhere, FFmpegSupport's too (a function, a property, a local, a case).
        var declarations: [String: Int] = [:]
        for c in codes + ((try? support()) ?? []) { for m in c.matches(of: declaration) { declarations[identity(m), default: 0] += 1 } }
        var functionHome: [String: String] = [:], memberHome: [String: (type: String, layer: String)] = [:]
        for (f, c) in zip(files, codes) {
            let (functions, members) = reachedByName(c)
            for n in functions where declarations[n] == 1 { functionHome[n] = f.layer }
            for (t, n) in members where declarations[n] == 1 { memberHome[n] = (t, f.layer) }
        }
        var found: [(String, String, String)] = []
        for (f, c) in zip(files, codes) {
            let words = Set(c.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
            let visible = { (layer: String) in layer == f.layer || (allowed[f.layer] ?? []).contains(layer) }
            for w in words.sorted() {
                if let layer = home[w], !visible(layer) { found.append((f.path, w, layer)) }
            }
            let (calls, members) = used(c)
            for n in calls.sorted() { if let layer = functionHome[n], !visible(layer) { found.append((f.path, n, layer)) } }
            for n in members.sorted() {
                if let (t, layer) = memberHome[n], !visible(layer) { found.append((f.path, t + "." + n, layer)) }
            }
        }
        return found
    }

    @Test("no file of the library uses a type of a layer above it or beside it")
    func arrows() throws {
        let files = try Self.files()
        #expect(Set(files.map(\.layer)).isSubset(of: Set(Self.allowed.keys)), "a folder the rules do not know")
        for (path, type, layer) in Self.wrongWay(files) {
            Issue.record("\(path) uses \(type), which lives in \(layer)/: against ARCHITECTURE.md's arrows")
        }
    }

    @Test("the arrows' check finds a reference against them (a reader naming a stage's type)")
    func arrowsCatch() throws {
        var files = try Self.files()
        let reader = try #require(files.firstIndex { $0.path == "Reading/PacketReader.swift" })
        files[reader].text += "\nextension PacketReader { func stage() -> BlendStage? { nil } }\n"
        let found = Self.wrongWay(files)
        #expect(found.contains { $0.0 == "Reading/PacketReader.swift" && $0.1 == "BlendStage" }, "\(found)")
    }

    @Test("the arrows' check finds a call through an extension and of a free function declared in a layer above")
    func arrowsCatchExtensionsAndFunctions() throws {
        var files = try Self.files()
        let stage = try #require(files.firstIndex { $0.path == "Stages/KeyLayerStage.swift" })
        files[stage].text += """

            extension KeyAlpha {
                func layerOpacityForTheRuleTest(into layer: Frame) {}
            }
            func stageHelperForTheRuleTest(_ x: Int) -> Int { x }

            """
        let keyer = try #require(files.firstIndex { $0.path == "Keying/FineKeyer.swift" })
        files[keyer].text += "\nfunc ruleTest(_ a: KeyAlpha, _ f: Frame) { a.layerOpacityForTheRuleTest(into: f); _ = stageHelperForTheRuleTest(1) }\n"
        let found = Self.wrongWay(files).filter { $0.0 == "Keying/FineKeyer.swift" }
        #expect(found.contains { $0.1 == "KeyAlpha.layerOpacityForTheRuleTest(into:" && $0.2 == "Stages" }, "\(found)")
        #expect(found.contains { $0.1 == "stageHelperForTheRuleTest(" && $0.2 == "Stages" }, "\(found)")
        // Within the arrows: a stage calling the keyer's own extension is no finding.
        #expect(!Self.wrongWay(files).contains { $0.0 == "Stages/KeyLayerStage.swift" }, "\(found)")
    }

    /// The modules each target may import (the compiler lets a target import any module built before it, so the
    /// package's own dependency lists are held here): the command line and the page never see FFmpeg's types, only
    /// FFmpegSupport imports CFFmpeg, and CKeyKernel is the keyers', the tone mapper's and the transitions'.
    static let imports: [String: Set<String>] = [
        "mixwrite": ["ArgumentParser", "MixWrite", "MixWriteTune", "Foundation", "Glibc", "Darwin", "Dispatch", "Synchronization"],
        "MixWriteTune": ["MixWrite", "HummingbirdCore", "NIOCore", "NIOPosix", "NIOHTTP1", "NIOHTTPTypes", "NIOHTTPTypesHTTP1",
                         "HTTPTypes", "Logging", "Foundation", "Glibc", "Darwin", "Synchronization"],
        "MixWrite": ["FFmpegSupport", "CKeyKernel", "Foundation", "Glibc", "Darwin", "Dispatch", "Synchronization"],
        "FFmpegSupport": ["CFFmpeg", "Foundation", "Glibc", "Darwin", "Synchronization"],
    ]
    static let kernelFiles: Set<String> = ["KeyKernel.swift", "Keying/EdgeMap.swift", "Keying/EdgeSpan.swift",
                                           "Keying/ChromaKeyBlend.swift", "Keying/FineKeyer.swift", "Keying/AlphaBlend.swift", "Reading/ToneMapper.swift", "Stages/Transition.swift",
                                           "Benchmarking/KernelWorkload.swift"]

    /// Imports against the table: (file, module).
    static func wrongImports(_ files: [(target: String, path: String, text: String)]) -> [(String, String)] {
        let pattern = #/^(?:internal |@_spi\(\w+\) |@testable )*import (\w+)/#
        var found: [(String, String)] = []
        for f in files {
            for line in f.text.split(separator: "\n") {
                guard let match = try? pattern.firstMatch(in: String(line)) else { continue }
                let module = String(match.output.1)
                let allowed = imports[f.target]?.contains(module) ?? false
                let kernel = module != "CKeyKernel" || kernelFiles.contains(f.path)
                if !allowed || !kernel { found.append((f.target + "/" + f.path, module)) }
            }
        }
        return found
    }

    static func targetFiles() throws -> [(target: String, path: String, text: String)] {
        let sources = Oracle.root.appendingPathComponent("Sources").path
        return try imports.keys.sorted().flatMap { target in
            let dir = sources + "/" + target
            return try FileManager.default.subpathsOfDirectory(atPath: dir).filter { $0.hasSuffix(".swift") }.sorted().map {
                (target, $0, try String(contentsOfFile: dir + "/" + $0, encoding: .utf8))
            }
        }
    }

    @Test("each target imports only what it may: the command line and the page never FFmpeg, CFFmpeg only FFmpegSupport")
    func targetImports() throws {
        let files = try Self.targetFiles()
        #expect(files.count > 80)
        for (file, module) in Self.wrongImports(files) {
            Issue.record("Sources/\(file) imports \(module): against ARCHITECTURE.md's arrows")
        }
    }

    @Test("the imports' check finds the page importing FFmpegSupport")
    func targetImportsCatch() throws {
        var files = try Self.targetFiles()
        let page = try #require(files.firstIndex { $0.target == "MixWriteTune" })
        files[page].text = "import FFmpegSupport\n" + files[page].text
        #expect(Self.wrongImports(files).contains { $0.1 == "FFmpegSupport" && $0.0.hasPrefix("MixWriteTune/") })
    }

    /// Functions (and initializers, closures given as a `func`'s body) longer than `limit` lines: (file, line, length).
    static func longFunctions(_ text: String, limit: Int) -> [(line: Int, length: Int)] {
        let lines = code(text).split(separator: "\n", omittingEmptySubsequences: false)
        let start = #/^\s*(?:@[\w()]+\s+)*(?:(?:public|internal|private|fileprivate|static|class|override|mutating|nonisolated|final|convenience|required|@_spi\(\w+\))\s+)*(?:func\s|init[(<?]|deinit\b)/#
        var found: [(Int, Int)] = []
        var i = 0
        while i < lines.count {
            guard (try? start.firstMatch(in: String(lines[i]))) != nil else { i += 1; continue }
            var depth = 0, opened = false, j = i
            scan: while j < lines.count {
                // No body (a protocol's requirement): the next declaration, or a signature longer than any.
                if !opened && j > i && ((try? start.firstMatch(in: String(lines[j]))) != nil || j - i > 8) { break }
                for ch in lines[j] {
                    if ch == "{" { depth += 1; opened = true }
                    if ch == "}" { depth -= 1; if opened && depth == 0 { break scan } }
                }
                j += 1
            }
            if opened && j - i + 1 > limit { found.append((i + 1, j - i + 1)) }
            i += 1
        }
        return found
    }

    /// C functions longer than `limit` lines: a body is a brace at file level after a `)`.
    static func longCFunctions(_ text: String, limit: Int) -> [(line: Int, length: Int)] {
        var found: [(Int, Int)] = [], depth = 0, line = 1, start = 0, last: Character = " "
        for ch in code(text) {
            if ch == "\n" { line += 1 }
            if ch == "{" {
                if depth == 0 && last == ")" { start = line }
                depth += 1
            } else if ch == "}" {
                depth -= 1
                if depth == 0 && start > 0 {
                    if line - start + 1 > limit { found.append((start, line - start + 1)) }
                    start = 0
                }
            }
            if !ch.isWhitespace { last = ch }
        }
        return found
    }

    @Test("no function of the sources (Swift and the C kernel and shim) is over 60 lines")
    func functionLength() throws {
        let root = Oracle.root.appendingPathComponent("Sources").path
        let paths = try FileManager.default.subpathsOfDirectory(atPath: root).sorted()
        let swift = paths.filter { $0.hasSuffix(".swift") }, c = paths.filter { $0.hasSuffix(".c") || $0.hasSuffix(".h") }
        #expect(swift.count > 50 && c.count > 10)
        for p in swift + c {
            let text = try String(contentsOfFile: root + "/" + p, encoding: .utf8)
            let long = p.hasSuffix(".swift") ? Self.longFunctions(text, limit: 60) : Self.longCFunctions(text, limit: 60)
            for (line, length) in long {
                Issue.record("Sources/\(p):\(line): a function of \(length) lines (60 at most: split it)")
            }
        }
    }

    @Test("the length check finds a long function")
    func functionLengthCatches() {
        let long = "func f() {\n" + String(repeating: "    x += 1\n", count: 70) + "}\n"
        #expect(Self.longFunctions(long, limit: 60).map(\.length) == [72])
        #expect(Self.longFunctions("func g() { a() }\n", limit: 60).isEmpty)
        let c = "static int f(int x)\n{\n" + String(repeating: "    x++;\n", count: 70) + "}\nstruct s { int a; };\n"
        #expect(Self.longCFunctions(c, limit: 60).map(\.length) == [72])
    }

    /// Every public type is one an embedder sets or reads, and ARCHITECTURE.md says which, with its reason: a new
    /// public type fails this test until it is in the list and in a reason's line (`Type` in backticks) under it.
    @Test("the library's public types are exactly those ARCHITECTURE.md lists (scripts/public-types.sh), each with a reason")
    func publicTypes() throws {
        let r = try Oracle.run("/usr/bin/env", ["bash", Oracle.root.path + "/scripts/public-types.sh"])
        try #require(r.status == 0, "\(r.stderr)")
        let line = r.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        let architecture = try String(contentsOf: Oracle.root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        #expect(architecture.contains(line), "ARCHITECTURE.md does not list the public types as they are: \(line)")
        let reasons = try #require(architecture.components(separatedBy: line).last)
            .split(separator: "\n").filter { $0.hasPrefix("- ") || $0.hasPrefix("  ") }.joined(separator: " ")
        let types = line.split(separator: ":", maxSplits: 1).last?.split(separator: " ").map(String.init) ?? []
        #expect(types.count > 30)
        for t in types { #expect(reasons.contains("`\(t)`"), "ARCHITECTURE.md gives no reason for the public type \(t)") }
    }

    /// ARCHITECTURE.md is a map: every source file it names is there (a name alone anywhere under Sources/, a path
    /// under Sources/MixWrite/ or Sources/).
    @Test("every file ARCHITECTURE.md names exists, and its diagram is at most 30 lines of 100 columns")
    func architectureNamesFiles() throws {
        let text = try String(contentsOf: Oracle.root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let sources = Oracle.root.appendingPathComponent("Sources").path
        let all = try FileManager.default.subpathsOfDirectory(atPath: sources)
        var named = 0
        for m in text.matches(of: #/`([\w+/.-]+\.(?:swift|c|h))`/#) {
            let name = String(m.output.1)
            named += 1
            let found = name.contains("/") ? all.contains { $0 == name || $0.hasSuffix("/" + name) }
                                           : all.contains { ($0 as NSString).lastPathComponent == name }
            #expect(found, "ARCHITECTURE.md names \(name), which is not in Sources/")
        }
        #expect(named > 40)
        let diagram = text.components(separatedBy: "```")[1].split(separator: "\n", omittingEmptySubsequences: false)
        #expect(diagram.count <= 32 && diagram.allSatisfy { $0.count <= 100 }, "the diagram: \(diagram.count) lines")
    }

    @Test("no folder of the library is over 2,500 lines")
    func folderSizes() throws {
        var lines: [String: Int] = [:]
        for f in try Self.files() where f.layer != "root" { lines[f.layer, default: 0] += f.text.split(separator: "\n", omittingEmptySubsequences: false).count - 1 }
        #expect(lines.count > 10)
        for (folder, n) in lines.sorted(by: { $0.key < $1.key }) { #expect(n <= 2500, "Sources/MixWrite/\(folder): \(n) lines") }
    }
}
