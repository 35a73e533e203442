/// JSON's grammar (RFC 8259) checked to the letter before a job file is decoded: Foundation's reader takes a trailing
/// comma, which another tool (jq, Python's json, a JSON Schema validator) refuses, so a file mixwrite ran could fail
/// elsewhere. The first error is said with its line and column.
struct StrictJSON {
    private let bytes: [UInt8]
    private var at = 0
    /// How deep the arrays and objects open at `at` are: past `deepest`, refused (the check recurses, and so does
    /// Foundation's reader; a job file is a few levels deep).
    private var depth = 0
    static let deepest = 64

    /// nil when `bytes` is one JSON value with nothing after it, else where and what is wrong.
    static func problem(in bytes: [UInt8]) -> String? {
        // A UTF-8 byte order mark before the value, which RFC 8259 lets a reader ignore.
        var reader = StrictJSON(bytes: bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes)
        do throws(Failure) {
            try reader.value()
            reader.space()
            if reader.at < reader.bytes.count { throw reader.fail("more after the end of the JSON value") }
            return nil
        } catch {
            return error.message
        }
    }

    struct Failure: Error { var message: String }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func fail(_ what: String) -> Failure {
        let before = bytes[..<min(at, bytes.count)]
        let line = before.filter { $0 == 0x0A }.count + 1
        let column = before.count - (before.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0) + 1
        return Failure(message: "line \(line), column \(column): \(what)")
    }

    private var next: UInt8? { at < bytes.count ? bytes[at] : nil }

    private mutating func space() { while let c = next, c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { at += 1 } }

    private mutating func expect(_ c: UInt8, _ what: String) throws(Failure) {
        guard next == c else { throw fail(what) }
        at += 1
    }

    private mutating func value() throws(Failure) {
        space()
        guard let c = next else { throw fail("the file ends where a value should be") }
        switch c {
        case UInt8(ascii: "{"): try members(close: UInt8(ascii: "}"), keyed: true)
        case UInt8(ascii: "["): try members(close: UInt8(ascii: "]"), keyed: false)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        case UInt8(ascii: "t"): try word("true")
        case UInt8(ascii: "f"): try word("false")
        case UInt8(ascii: "n"): try word("null")
        default: throw fail("a value was expected here")
        }
    }

    /// An object's members or an array's elements: none, or values separated by commas, with no comma after the last.
    private mutating func members(close: UInt8, keyed: Bool) throws(Failure) {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.deepest else { throw fail("nested deeper than \(Self.deepest) arrays and objects") }
        at += 1
        space()
        if next == close { at += 1; return }
        while true {
            if keyed {
                space()
                guard next == UInt8(ascii: "\"") else { throw fail(next == close ? "a comma before '}' (none is allowed after the last member)" : "a member's name in double quotes was expected") }
                try string()
                space()
                try expect(UInt8(ascii: ":"), "':' was expected after the member's name")
            }
            try value()
            space()
            if next == close { at += 1; return }
            try expect(UInt8(ascii: ","), "',' or '\(Character(Unicode.Scalar(close)))' was expected")
            space()
            if next == close { throw fail("a comma before '\(Character(Unicode.Scalar(close)))' (none is allowed after the last \(keyed ? "member" : "element"))") }
        }
    }

    private mutating func string() throws(Failure) {
        at += 1
        while let c = next {
            at += 1
            if c == UInt8(ascii: "\"") { return }
            if c < 0x20 { at -= 1; throw fail("a control character inside a string (write it escaped)") }
            if c == UInt8(ascii: "\\") {
                guard let e = next, Array("\"\\/bfnrtu".utf8).contains(e) else { throw fail("an escape JSON does not have") }
                at += 1
                if e == UInt8(ascii: "u") {
                    for _ in 0..<4 {
                        guard let h = next, (h >= 0x30 && h <= 0x39) || (h | 0x20 >= 0x61 && h | 0x20 <= 0x66) else { throw fail("\\u takes four hex digits") }
                        at += 1
                    }
                }
            }
        }
        throw fail("the file ends inside a string")
    }

    private mutating func number() throws(Failure) {
        let digit = { (c: UInt8?) in c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        if next == UInt8(ascii: "-") { at += 1 }
        guard digit(next) else { throw fail("a digit was expected") }
        if next == UInt8(ascii: "0") { at += 1; if digit(next) { throw fail("a number may not start with 0") } } else { while digit(next) { at += 1 } }
        if next == UInt8(ascii: ".") {
            at += 1
            guard digit(next) else { throw fail("a digit was expected after '.'") }
            while digit(next) { at += 1 }
        }
        if next == UInt8(ascii: "e") || next == UInt8(ascii: "E") {
            at += 1
            if next == UInt8(ascii: "+") || next == UInt8(ascii: "-") { at += 1 }
            guard digit(next) else { throw fail("a digit was expected in the exponent") }
            while digit(next) { at += 1 }
        }
    }

    private mutating func word(_ w: String) throws(Failure) {
        for c in w.utf8 {
            guard next == c else { throw fail("'\(w)' was expected") }
            at += 1
        }
    }
}
