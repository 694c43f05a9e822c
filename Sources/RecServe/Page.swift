import Hummingbird

/// The web page's files, compiled into the binary from Page/ (`embedInCode` in
/// Package.swift): plain HTML, CSS and a script, with no build step and nothing fetched from
/// elsewhere.
enum Page {
    struct Asset: Sendable {
        var bytes: [UInt8]
        var contentType: String
    }

    static let index = Asset(bytes: PackageResources.index_html, contentType: "text/html; charset=utf-8")
    /// The installed app's service worker, at the root so that its scope is the whole site.
    static let serviceWorker = Asset(bytes: PackageResources.sw_js, contentType: "text/javascript; charset=utf-8")
    static let manifest = Asset(
        bytes: PackageResources.manifest_webmanifest, contentType: "application/manifest+json; charset=utf-8")

    /// What `/page/<name>` serves.
    static let assets: [String: Asset] = [
        "page.css": Asset(bytes: PackageResources.page_css, contentType: "text/css; charset=utf-8"),
        "page.js": Asset(bytes: PackageResources.page_js, contentType: "text/javascript; charset=utf-8"),
        "record.js": Asset(bytes: PackageResources.record_js, contentType: "text/javascript; charset=utf-8"),
        "capture.js": Asset(bytes: PackageResources.capture_js, contentType: "text/javascript; charset=utf-8"),
        "icon.svg": Asset(bytes: PackageResources.icon_svg, contentType: "image/svg+xml"),
    ]

    /// `no-cache`: a browser may keep the bytes but asks again each time, so a newer binary's
    /// page is never mixed with an older one's script.
    static func response(_ asset: Asset) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: asset.contentType, .cacheControl: "no-cache",
                .contentSecurityPolicy: "default-src 'self'; media-src 'self'; img-src 'self' data:",
                .xContentTypeOptions: "nosniff",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}
