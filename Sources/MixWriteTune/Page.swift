/// The tuning page's files, as they are in `Resources/` (plain HTML, CSS and JavaScript modules: no CDN, no build
/// step), compiled into the binary by SwiftPM (`embedInCode`), so an installed mixwrite (`make install`, the .deb)
/// needs no folder beside it. `/` is the page; its style and modules are under `/page/`.
enum Page {
    struct File {
        var type: String
        var bytes: [UInt8]
    }

    static let files: [String: File] = [
        "/": File(type: "text/html; charset=utf-8", bytes: PackageResources.index_html),
        "/page/page.css": File(type: "text/css; charset=utf-8", bytes: PackageResources.page_css),
        "/page/api.js": File(type: "text/javascript; charset=utf-8", bytes: PackageResources.api_js),
        "/page/controls.js": File(type: "text/javascript; charset=utf-8", bytes: PackageResources.controls_js),
        "/page/page.js": File(type: "text/javascript; charset=utf-8", bytes: PackageResources.page_js),
    ]

    /// A file of the page by its path; the page itself asks for the token, its style and modules do not (a module's
    /// `import` carries no query, and they hold nothing of the job).
    static func file(_ path: String) -> File? { files[path] }

    static func isAsset(_ path: String) -> Bool { path != "/" && files[path] != nil }
}
