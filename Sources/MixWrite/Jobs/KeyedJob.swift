import FFmpegSupport

/// A job that keys fx (the blend, the key layer): the key's options, read and written in one place for both.
protocol KeyedJob {
    var key: KeySettings { get set }
    /// Pick the key colour from fx's border (`--key-color auto`).
    var autoKeyColor: Bool { get set }
}

extension KeyedJob {
    /// Whether fx's screen colour is read from its border: `--key-color auto`, or the fine keyer given no colour.
    var readsKeyColor: Bool { autoKeyColor || (key.keyer == .fine && !key.keyColorSet) }

    /// Whether `picked` (what `keyPicked` returned) has its colour read from fx: one was to be read, and the border was
    /// a screen (where it was none the fine keyer keeps its default, set).
    func keyColorWasRead(_ picked: KeySettings) -> Bool { readsKeyColor && !picked.keyColorSet }

    /// The key fx (`file`, as it is `keyed`) is keyed by: with `readsKeyColor` its colour read from fx's border, or
    /// its garbage rectangles' (`KeyColorPicker`; a note when GPUImage's is pulled toward the primary). The fine keyer
    /// given no colour keeps the default where that border is no screen, and a note says so; `--key-color auto` refuses
    /// it.
    func keyPicked(for file: MediaFile, keyed: KeyColorPicker.Keyed, notes: inout [String]) throws(MixWriteError) -> KeySettings {
        var key = self.key
        guard readsKeyColor else { return key }
        switch try KeyColorPicker.read(fx: file, key: key, keyed: keyed) {
        case .picked(let pick):
            key.keyColor = pick.color
            if pick.pulled { notes.append(KeyColorPicker.pulledNote(pick, file: file.path)) }
        case .noScreen(let found):
            guard !autoKeyColor else { throw KeyColorPicker.refusal(file.path, found, key) }
            key.keyColorSet = true
            notes.append("\(file.path): \(KeyColorPicker.noScreen(found, key)); the fine keyer keys it by \(key.keyColorHex) "
                         + "(--key-color RRGGBB gives the screen's colour)")
        }
        return key
    }

    /// The checks every keying job makes of its key.
    func validateKey() throws(MixWriteError) {
        try Self.keyOptions.checkRanges(self)
        try checkFineKey()
        try KeyKernel.check()
    }

    /// The clean plate's checks, at planning (`KeySettings.checkCleanPlate`).
    static func checkPlate(_ key: KeySettings, name: String = "") throws(MixWriteError) { try key.checkCleanPlate(name: name) }

    /// The key's options set away from their defaults that do nothing the way fx is laid, said in one line: GPUImage's
    /// threshold, smoothing and despill with the fine keyer, the fine keyer's despill strength with GPUImage's, and
    /// every key option but despill when fx is laid by its own alpha. nil when each option set acts.
    func idleKeyOptions(byAlpha: Bool, unkeyed: Bool = false) -> String? {
        let d = KeySettings()
        var idle: [String] = []
        if byAlpha {
            if autoKeyColor || key.keyColor != d.keyColor { idle.append("--key-color") }
            if key.keyer != d.keyer { idle.append("--keyer") }
        }
        if byAlpha || key.keyer == .fine {
            if key.threshold != d.threshold { idle.append("--threshold") }
            if key.smoothing != d.smoothing { idle.append("--smoothing") }
        }
        if !byAlpha && key.keyer == .fine && key.despill { idle.append("--despill") }
        if (byAlpha || key.keyer == .gpuimage) && key.despillStrength != d.despillStrength { idle.append("--despill-strength") }
        if byAlpha {
            if !key.garbage.isEmpty { idle.append("--garbage") }
            if key.choke != d.choke { idle.append("--choke") }
            if key.feather != d.feather { idle.append("--feather") }
            if key.cleanPlate != nil { idle.append("--clean-plate") }
        }
        guard !idle.isEmpty else { return nil }
        let list = idle.count == 1 ? idle[0] : idle.dropLast().joined(separator: ", ") + " and " + idle.last!
        let verb = idle.count == 1 ? "does" : "do"
        if unkeyed { return "fx is laid as it is (--key none), so \(list) \(verb) nothing" }
        if byAlpha { return "fx is laid by its own alpha, so \(list) \(verb) nothing (--key chroma keys it instead)" }
        if key.keyer == .fine {
            let gpuimage = idle.filter { $0 != "--despill" }
            let why = gpuimage.isEmpty ? "" : "; the fine keyer learns the screen's spread itself"
            return "\(list) \(verb) nothing with --keyer fine (GPUImage's formula's: --keyer gpuimage\(why)\(key.despill ? "; its despill is --despill-strength" : ""))"
        }
        return "\(list) \(verb) nothing with --keyer gpuimage (the fine keyer's: --keyer fine; GPUImage's despill is --despill)"
    }

    /// The fine keyer's key colour is a screen's: one channel above the others. A clean plate is the fine keyer's.
    func checkFineKey() throws(MixWriteError) {
        if key.cleanPlate != nil && key.keyer != .fine {
            throw .usage("--clean-plate is the fine keyer's (--keyer fine): GPUImage's formula keys by one colour everywhere")
        }
        if key.keyer == .fine && !autoKeyColor && FineKeyer.channels(of: key.keyColor) == nil {
            throw .usage("--keyer fine: --key-color \(key.keyColorHex) is no screen's colour (its green, blue or red must stand above the others)")
        }
    }

    /// The key: `key-color` (RRGGBB or auto), `threshold`, `smoothing`, `despill`; GPUImage's defaults left out.
    static var keyOptions: [JobOption<Self>] {
        let defaults = KeySettings()
        return [
            JobOption(OptionDeclaration("key-color", .text(pattern: "^(#?[0-9A-Fa-f]{6}|auto)$", orNumber: false), valueName: "RRGGBB|auto",
                                        default: .text(defaults.keyColorHex),
                                        help: "The screen colour to key out, as RRGGBB, or auto to read it from fx's border (the fine keyer's"
                                            + " default; GPUImage's formula's is 00FF00)."),
                      read: { (job, input) throws(JobProblem) in
                          let text: String = try input.value("must be RRGGBB or \"auto\"")
                          if text.lowercased() == "auto" {
                              job.autoKeyColor = true
                          } else {
                              guard let rgb = OptionValue.color(text) else { throw input.problem("must be RRGGBB or \"auto\"") }
                              (job.key.keyColor, job.key.keyColorSet) = (KeyColor(rgb), true)
                          }
                      }, write: { job in
                          // The fine keyer's pure green is written when set: left out, it would read fx's screen instead.
                          let implied = job.key.keyColor == defaults.keyColor && !(job.key.keyer == .fine && job.key.keyColorSet)
                          return job.autoKeyColor ? .text("auto") : implied ? nil : .text(job.key.keyColorHex)
                      }),
            .number("threshold", \.key.threshold, default: defaults.threshold, 0...1,
                    help: "How far from the key colour a pixel is still keyed out, 0 to 1 (GPUImage's thresholdSensitivity)."),
            .number("smoothing", \.key.smoothing, default: defaults.smoothing, 0...1, help: "The width of the soft edge past the threshold, 0 to 1."),
            .flag("despill", \.key.despill, help: "Pull the key colour's spill out of fx's kept pixels near the key (--keyer gpuimage)."),
            .choice("keyer", \.key.keyer, default: defaults.keyer,
                    help: "gpuimage (GPUImage's formula, exactly) or fine (for real screens: uneven, noisy, 4:2:0, spilling; learns the screen"
                        + " around each pixel; without --key-color it reads the screen's colour from fx's border, as auto)."),
            .number("despill-strength", \.key.despillStrength, default: defaults.despillStrength, 0...1,
                    help: "--keyer fine: how much of the screen's spill near it is taken out, 0 to 1."),
            JobOption(OptionDeclaration("garbage", .texts, valueName: "X,Y,W,H",
                                        help: "Keep fx only inside this rectangle (fx's pixels as keyed); outside it is always cut; repeatable."),
                      read: { (job, input) throws(JobProblem) in
                          job.key.garbage = try input.texts().map { (text) throws(JobProblem) in
                              guard let r = OptionValue.rect(text), r.count == 4, r[2] > 0, r[3] > 0,
                                    r.allSatisfy({ abs($0) <= LayerPlacement.largest }) else {
                                  throw input.problem("'\(text)' must be X,Y,W,H in pixels, the width and height above 0, e.g. \"100,0,800,1080\"")
                              }
                              return r
                          }
                      }, write: { job in
                          job.key.garbage.isEmpty ? nil : .texts(job.key.garbage.map { $0.map(String.init).joined(separator: ",") })
                      }),
            .integer("choke", \.key.choke, default: defaults.choke, 0...64, help: "Shrink the matte by this many pixels."),
            .integer("feather", \.key.feather, default: defaults.feather, 0...64, help: "Soften the matte's edge over this many pixels."),
            JobOption(OptionDeclaration("clean-plate", .path, valueName: "FILE",
                                        help: "--keyer fine: a picture or clip of the empty screen, filmed as fx is; the screen's colour at each"
                                            + " pixel is taken from it (its pictures' mean) instead of learnt from fx."),
                      read: { (job, input) throws(JobProblem) in job.key.cleanPlate = try input.path() },
                      write: { job in job.key.cleanPlate.map { .path($0) } }),
        ]
    }
}

extension KeySettings {
    /// The clean plate's checks: it reads (exit 2 if not) and it is a screen of the key's colour (its mean colour's
    /// screen channel the key's; exit 1 if not). `name` prefixes a layer's message.
    @_spi(Tools) public func checkCleanPlate(name: String = "") throws(MixWriteError) {
        guard let path = cleanPlate else { return }
        let plate = KeyColor(try CleanPlate.meanColor(path))
        let screen = ["red", "green", "blue"]
        // The screen's channel: the one FineKeyer.channels puts in the middle.
        func channel(_ c: KeyColor) -> String? { FineKeyer.channels(of: c).map { screen[$0[1]] } }
        guard let own = channel(plate), own == channel(keyColor) else {
            let what = channel(keyColor).map { "a \($0) screen" } ?? "a screen"
            throw .usage("\(name)--clean-plate \(path) is not \(what): its mean colour is \(plate.hex) (the key colour is \(keyColorHex))")
        }
    }
}

/// A key alone, as a job holds it: what its options read into and write from outside a job (a report's key, the
/// page's).
private struct KeyEntry: KeyedJob {
    var key: KeySettings
    var autoKeyColor = false
}

/// A key is written and read by its options, as a job file holds them (`key-color`, `threshold`, `despill-strength` …):
/// the report's key and the page's are a job entry's. Written whole: every option that has a default is there.
extension KeySettings: Codable {
    public init(from decoder: any Swift.Decoder) throws {
        let c = try decoder.container(keyedBy: JobKey.self)
        try c.refuseUnknown(KeyEntry.keyOptions.map(\.name), of: "a key", index: nil)
        var entry = KeyEntry(key: KeySettings())
        let context = decoder.userInfo[JobContext.key] as? JobContext ?? JobContext(folder: nil, threads: 0)
        try KeyEntry.keyOptions.read(into: &entry, from: c, index: nil, context: context)
        if entry.autoKeyColor { throw JobProblem(index: nil, key: "key-color", what: "must be RRGGBB here (auto is picked when a job starts)") }
        self = entry.key
    }

    public func encode(to encoder: any Swift.Encoder) throws {
        var c = encoder.container(keyedBy: JobKey.self)
        let entry = KeyEntry(key: self)
        for o in KeyEntry.keyOptions {
            try (o.write(entry) ?? o.declaration.defaultValue)?.encode(in: &c, forKey: JobKey(o.name))
        }
    }

    /// The key's options as the job file's schema describes them (type, range, default, help), in their order: what
    /// the tuning page builds its key's controls from.
    @_spi(Tools) public static var optionSchema: String { JobSchema.properties(KeyEntry.keyOptions.map(\.declaration)) }
}
