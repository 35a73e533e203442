/// A caption file the output carries: `--captions FILE[:lang=eng:title=English:charenc=latin1]`, a job file's
/// `captions` object. Its times are the output's (the whole movie's, before `--start`).
public struct Caption: Sendable, Hashable, Codable {
    public var file: String
    /// ISO 639-2 (`eng`); empty: untagged.
    public var language = ""
    /// The track's name in players' menus; empty: none.
    public var title = ""
    /// The text's encoding when it is not UTF-8 (an iconv name: `latin1`, `cp1252`); empty: UTF-8.
    public var encoding = ""

    public init(file: String, language: String = "", title: String = "") {
        (self.file, self.language, self.title) = (file, language, title)
    }
}

/// What a job does with captions: the files it adds as subtitle tracks (`--captions`), or draws into the picture
/// (`--burn-captions`). The inputs' own subtitle tracks are carried whatever these say.
public struct CaptionSettings: Sendable, Hashable {
    public var files: [Caption] = []
    /// Draw the caption files into the picture (libass) instead of adding them as tracks.
    public var burn = false

    public init() {}
}
