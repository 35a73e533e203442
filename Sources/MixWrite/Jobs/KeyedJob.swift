import FFmpegSupport

/// A job that keys fx (the blend, the key layer): the key's options, read and written in one place for both.
protocol KeyedJob {
    var key: KeySettings { get set }
    /// Pick the key colour from fx's border (`--key-color auto`).
    var autoKeyColor: Bool { get set }
}

extension KeyedJob {
    /// The checks every keying job makes of its key.
    func validateKey() throws(MixWriteError) {
        try Self.keyOptions.checkRanges(self)
        try KeyKernel.check()
    }

    /// The key: `key-color` (RRGGBB or auto), `threshold`, `smoothing`, `despill`; GPUImage's defaults left out.
    static var keyOptions: [JobOption<Self>] {
        let defaults = KeySettings()
        return [
            JobOption(OptionDeclaration("key-color", .text(pattern: "^(#?[0-9A-Fa-f]{6}|auto)$", orNumber: false), valueName: "RRGGBB|auto",
                                        default: .text(defaults.keyColorHex),
                                        help: "The screen colour to key out, as RRGGBB, or auto to read it from fx's border."),
                      read: { (job, input) throws(JobProblem) in
                          let text: String = try input.value("must be RRGGBB or \"auto\"")
                          if text.lowercased() == "auto" {
                              job.autoKeyColor = true
                          } else {
                              guard let rgb = OptionValue.color(text) else { throw input.problem("must be RRGGBB or \"auto\"") }
                              job.key.keyColor = KeyColor(rgb)
                          }
                      }, write: { job in
                          job.autoKeyColor ? .text("auto") : job.key.keyColor == defaults.keyColor ? nil : .text(job.key.keyColorHex)
                      }),
            .number("threshold", \.key.threshold, default: defaults.threshold, 0...1,
                    help: "How far from the key colour a pixel is still keyed out, 0 to 1 (GPUImage's thresholdSensitivity)."),
            .number("smoothing", \.key.smoothing, default: defaults.smoothing, 0...1, help: "The width of the soft edge past the threshold, 0 to 1."),
            .flag("despill", \.key.despill, help: "Pull the key colour's spill out of fx's kept pixels near the key."),
        ]
    }
}
