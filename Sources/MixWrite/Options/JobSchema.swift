import Foundation

/// `Schemas/jobs.schema.json`, written from the jobs' declarations: every kind's keys, each with its type, range,
/// choices, default and help. Never edited by hand: `make schema` writes it, and a test fails when the committed
/// file is not what the declarations give.
@_spi(Tools)
public enum JobSchema {
    static func ref(_ name: String) -> JSON { .object([("$ref", .string("#/$defs/\(name)"))]) }

    /// Options' schemas as one object, by name in their order (the tuning page's controls).
    static func properties(_ declarations: [OptionDeclaration]) -> String {
        JSON.object(declarations.map { ($0.name, property($0)) }).text(indent: "")
    }

    /// One option's schema: its value's, then its default and its help.
    static func property(_ d: OptionDeclaration) -> JSON {
        var fields = value(d.shape)
        if let v = d.defaultValue { fields.append(("default", json(v))) }
        fields.append(("description", .string(d.help)))
        return .object(fields)
    }

    static func value(_ shape: OptionShape) -> [(String, JSON)] {
        switch shape {
        case .flag: return [("type", .string("boolean"))]
        case .number(let r, _): return [("type", .string("number"))] + bounds(r)
        case .integer(let r): return [("type", .string("integer"))] + bounds(r)
        case .choice(let values): return [("enum", .array(values.map(JSON.string)))]
        case .text(let pattern, let orNumber):
            let text: [(String, JSON)] = [("type", .string("string"))] + (pattern.map { [("pattern", .string($0))] } ?? [])
            return orNumber ? [("oneOf", .array([.object(text), .object([("type", .string("number"))])]))] : text
        case .pairs(let r, _, let bare, let word):
            let number: [(String, JSON)] = [("type", .string("number"))] + bounds(r)
            let value = word.map { [("oneOf", JSON.array([.object(number), .object([("enum", .array([.string($0)]))])]))] } ?? number
            let table: [(String, JSON)] = [("type", .string("object")), ("additionalProperties", .object(value))]
            guard bare != nil else { return table }
            return [("oneOf", .array([.object(table), .object([("type", .string("array")), ("items", .object([("type", .string("string"))]))])]))]
        case .texts:
            let text = JSON.object([("type", .string("string"))])
            return [("oneOf", .array([text, .object([("type", .string("array")), ("items", text)])]))]
        case .rect:
            let numbers = JSON.object([("type", .string("array")), ("items", .object([("type", .string("integer"))])),
                                       ("minItems", .number(4)), ("maxItems", .number(4))])
            let text = JSON.object([("type", .string("string")), ("pattern", .string("^-?[0-9]+,-?[0-9]+,[0-9]+,[0-9]+$"))])
            return [("oneOf", .array([numbers, text]))]
        case .layers(let options):
            let object = JSON.object([
                ("type", .string("object")),
                ("properties", .object(options.map { ($0.name, property($0)) })),
                ("required", .array(options.filter(\.required).map { .string($0.name) })),
                ("additionalProperties", .bool(false)),
            ])
            return [("type", .string("array")), ("items", object)]
        case .path: return [("$ref", .string("#/$defs/path"))]
        case .paths: return [("$ref", .string("#/$defs/paths"))]
        case .events:
            let event = JSON.object([
                ("type", .string("object")),
                ("required", .array([.string("clip"), .string("time"), .string("name")])),
                ("additionalProperties", .bool(false)),
                ("properties", .object([
                    ("clip", .object([("type", .string("integer")), ("minimum", .number(0))])),
                    ("time", .object([("type", .string("number")), ("minimum", .number(0))])),
                    ("name", .object([("type", .string("string"))])),
                ])),
            ])
            return [("oneOf", .array([ref("path"), .object([("type", .string("array")), ("items", event)])]))]
        }
    }

    static func bounds(_ r: ClosedRange<Double>?) -> [(String, JSON)] {
        r.map { [("minimum", .number($0.lowerBound)), ("maximum", .number($0.upperBound))] } ?? []
    }

    static func json(_ v: JobValue) -> JSON {
        switch v {
        case .flag: return .bool(true)
        case .number(let x): return .number(x)
        case .text(let s), .path(let s): return .string(s)
        case .texts(let l), .paths(let l): return .array(l.map(JSON.string))
        case .pairs(let p, let w):
            return .object((p.map { ($0.key, JSON.number($0.value)) } + w.map { ($0.key, JSON.string($0.value)) }).sorted { $0.0 < $1.0 })
        case .events, .layers: return .array([])
        }
    }
}

/// JSON with its keys in the order given (JSONSerialization sorts or scrambles them), for a schema a person reads.
enum JSON {
    case string(String)
    case number(Double)
    case bool(Bool)
    case array([JSON])
    case object([(String, JSON)])

    func text(indent: String) -> String {
        let inner = indent + "  "
        switch self {
        case .string(let s): return Self.quoted(s)
        case .number(let x): return JobOption<Int>.format(x)
        case .bool(let b): return b ? "true" : "false"
        case .array(let items):
            if items.isEmpty { return "[]" }
            return "[\n" + items.map { inner + $0.text(indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
        case .object(let fields):
            if fields.isEmpty { return "{}" }
            return "{\n" + fields.map { inner + Self.quoted($0.0) + ": " + $0.1.text(indent: inner) }.joined(separator: ",\n")
                + "\n" + indent + "}"
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}
