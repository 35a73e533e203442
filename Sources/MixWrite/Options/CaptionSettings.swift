import FFmpegSupport

extension Caption {
    /// `file`, `lang`, `title`, `charenc`: the spec's and the job file's object's.
    static var options: [JobOption<Caption>] {
        [.path("file", \.file, help: "The caption file: SubRip (.srt), WebVTT (.vtt), ASS or SSA."),
         .text("lang", \.language, default: "", help: "Its language, ISO 639-2 (eng, fra, deu, jpn, ara)."),
         .text("title", \.title, default: "", help: "Its name in players' menus."),
         .text("charenc", \.encoding, default: "", help: "Its text's encoding when not UTF-8 (latin1, cp1252, cp1251, shift-jis …).")]
    }

    func validate() throws(MixWriteError) {
        if !language.isEmpty && !(language.count == 3 && language.allSatisfy { $0.isASCII && $0.isLowercase }) {
            throw .usage("--captions \(file): lang=\(language) must be a three-letter ISO 639-2 code (eng, fra, deu, jpn, ara)")
        }
        if !encoding.isEmpty && CaptionFile.encoding(named: encoding) == nil {
            throw .usage("--captions \(file): charenc=\(encoding) is not one mixwrite reads (utf-8, latin1, latin2, cp1250, cp1251, "
                         + "cp1252, utf-16, shift-jis)")
        }
    }
}


extension CaptionSettings {
    /// `captions` and `burn-captions`: the kinds that write a picture.
    static var options: [JobOption<Self>] {
        [.objects("captions", \.files, blank: Caption(file: ""), options: Caption.options, commandWord: "captions",
                  label: { "caption file \($0 + 1)" },
                  help: "A caption file (SubRip, WebVTT, ASS/SSA) in the output's time, added as a subtitle track (mov_text in "
                    + "MOV/MP4, WebVTT in WebM, its own format in Matroska); repeatable. NAME: lang, title, charenc."),
         .flag("burn-captions", \.burn,
               help: "Draw the --captions files into the picture (libass: their styles, positions and fonts) instead of adding them as tracks.")]
    }

    func validate() throws(MixWriteError) {
        for c in files { try c.validate() }
        if burn && files.isEmpty { throw .usage("--burn-captions needs a --captions file to draw") }
    }
}

/// A kind whose output has a picture, and so may carry captions.
protocol CaptionedJob {
    var captions: CaptionSettings { get set }
}

extension CaptionedJob {
    static var captionOptions: [JobOption<Self>] { CaptionSettings.options.map { $0.lifted(\.captions) } }
    /// `captions` alone, for a kind that copies its picture (remix: nothing to draw into).
    static var captionTrackOptions: [JobOption<Self>] { captionOptions.filter { $0.name == "captions" } }
}
