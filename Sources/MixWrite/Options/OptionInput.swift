import Foundation

/// A job file's value under one option's key, read as that option needs it.
struct OptionInput {
    let container: KeyedDecodingContainer<JobKey>
    let name: String
    let index: Int?
    let context: JobContext

    func problem(_ what: String) -> JobProblem { JobProblem(index: index, key: name, what: what) }

    /// The value as a `T`; `what` says what it must be when it is not one.
    func value<T: Decodable>(_ what: String) throws(JobProblem) -> T {
        do { return try container.decode(T.self, forKey: JobKey(name)) } catch { throw problem(what) }
    }

    /// A value that may be given either way (a path or a list, a number or a text).
    func either<A: Decodable, B: Decodable>(_ a: A.Type, _ b: B.Type, _ what: String) throws(JobProblem) -> Either<A, B> {
        if let v = try? container.decode(A.self, forKey: JobKey(name)) { return .first(v) }
        if let v = try? container.decode(B.self, forKey: JobKey(name)) { return .second(v) }
        throw problem(what)
    }

    enum Either<A, B> { case first(A), second(B) }

    /// One of a choice's values.
    func choice<T: RawRepresentable & CaseIterable>() throws(JobProblem) -> T where T.RawValue == String {
        let s: String = try value("must be a string")
        guard let v = T(rawValue: s) else { throw problem("'\(s)' is not one of \(T.allCases.map(\.rawValue).joined(separator: ", "))") }
        return v
    }

    /// A path, relative to the job file's folder.
    func path() throws(JobProblem) -> String { resolve(try value("must be a path")) }

    /// A path or an array of them.
    func paths() throws(JobProblem) -> [String] {
        switch try either(String.self, [String].self, "must be a path or an array of paths") {
        case .first(let s): return [resolve(s)]
        case .second(let a): return a.map(resolve)
        }
    }

    /// An array of objects, each read by `options` into a copy of `blank` (a blend's layers): an unknown key, a
    /// missing input or a wrong value is a problem of this key naming the object by `label` (its index from 0:
    /// `layer fx2: 'at' must be a number`).
    func objects<T>(_ blank: T, _ options: [JobOption<T>], label: (Int) -> String) throws(JobProblem) -> [T] {
        var list: UnkeyedDecodingContainer
        do { list = try container.nestedUnkeyedContainer(forKey: JobKey(name)) } catch { throw problem("must be an array of objects") }
        var objects: [T] = []
        let names = Set(options.map(\.name))
        while !list.isAtEnd {
            let n = label(objects.count)
            let object: KeyedDecodingContainer<JobKey>
            do { object = try list.nestedContainer(keyedBy: JobKey.self) } catch { throw problem("\(n) must be an object") }
            if let unknown = object.allKeys.map(\.stringValue).sorted().first(where: { !names.contains($0) }) {
                throw problem("\(n): '\(unknown)' is not one of its options" + OptionValue.didYouMean(unknown, in: Array(names)))
            }
            var value = blank
            do { try options.read(into: &value, from: object, index: index, context: context) } catch {
                throw JobProblem(index: index, key: name, what: "\(n): '\(error.key ?? "")' \(error.what)", file: error.file)
            }
            objects.append(value)
        }
        return objects
    }

    /// A string or an array of them.
    func texts() throws(JobProblem) -> [String] {
        switch try either(String.self, [String].self, "must be a string or an array of strings") {
        case .first(let s): return [s]
        case .second(let a): return a
        }
    }

    /// A number given as a number or as text ("30", "30000/1001", "192k"), as text.
    func text(_ what: String) throws(JobProblem) -> String {
        switch try either(String.self, Double.self, what) {
        case .first(let s): return s
        case .second(let d): return NumberText.shortest(d)
        }
    }

    func resolve(_ p: String) -> String {
        guard let folder = context.folder, !p.hasPrefix("/") else { return p }
        return folder + "/" + p
    }
}

// MARK: - Decoding's context and problems

/// What a job file's decoding needs to know besides the JSON: its folder (relative paths) and the threads each
/// job gets. Without one (a job decoded on its own), paths are taken as they are.
struct JobContext: Sendable {
    static let key = CodingUserInfoKey(rawValue: "mixwrite.job-context")!
    var folder: String?
    var threads: Int
}

/// A problem in a job file: which job, which key, what is wrong.
struct JobProblem: Error, CustomStringConvertible {
    var index: Int?
    var key: String?
    var what: String
    /// A file the value names that cannot be read (concat's events): bad input, not bad usage.
    var file: String?

    var description: String {
        var s = index.map { "job \($0): " } ?? ""
        if let key { s += "'\(key)' " }
        return s + what
    }
}

extension KeyedDecodingContainer where K == JobKey {
    /// A key that is none of `names` (an entry's, a key's, the page's settings): refused, naming it and the nearest
    /// name; the first such in order, so the message is the same from run to run.
    func refuseUnknown(_ names: [String], of what: String, index: Int?) throws(JobProblem) {
        let known = Set(names)
        guard let unknown = allKeys.map(\.stringValue).sorted().first(where: { !known.contains($0) }) else { return }
        throw JobProblem(index: index, key: unknown,
                         what: "is not an option of \(what)" + OptionValue.didYouMean(unknown, in: names.filter { $0 != "kind" }))
    }
}

struct JobKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
