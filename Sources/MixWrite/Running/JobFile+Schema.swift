import Foundation

extension JobSchema {
    /// The schema as JSON text, two-space indented, keys in the declarations' order, ending with a newline.
    public static var text: String { document.text(indent: "") + "\n" }

    static var document: JSON {
        .object([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string("https://mixwrite.invalid/schemas/jobs.schema.json")),
            ("title", .string("mixwrite batch job file")),
            ("description", .string("Jobs for `mixwrite batch`. Relative paths are relative to the job file's folder. Options use the "
                + "command line's long names. Written by `make schema` from the jobs' declarations: do not edit.")),
            ("type", .string("object")),
            ("required", .array([.string("jobs")])),
            ("additionalProperties", .bool(false)),
            ("properties", .object([
                ("$schema", .object([("type", .string("string"))])),
                ("jobs", .object([("type", .string("array")), ("items", .object([("$ref", .string("#/$defs/job"))]))])),
            ])),
            ("$defs", .object([
                ("path", .object([("type", .string("string")), ("minLength", .number(1))])),
                ("paths", .object([("oneOf", .array([ref("path"), .object([("type", .string("array")), ("items", ref("path"))])]))])),
                ("job", .object([
                    ("type", .string("object")),
                    ("required", .array([.string("kind"), .string("output")])),
                    ("oneOf", .array(JobFile.kinds.map(kindSchema))),
                ])),
            ])),
        ])
    }

    static func kindSchema(_ kind: any DescribedJob.Type) -> JSON {
        let options = kind.declarations
        return .object([
            ("properties", .object([("kind", .object([("const", .string(kind.kind))]))] + options.map { ($0.name, property($0)) })),
            ("required", .array(options.filter(\.required).map { .string($0.name) })),
            ("additionalProperties", .bool(false)),
        ])
    }
}
