import CZlib
import Foundation

/// The web remote's page: plain HTML, CSS and JavaScript committed in `Sources/WebRemote/Assets/` and embedded in the
/// program at build time (`.embedInCode`), so a board carries no files beside it and nothing is built on it. Each is
/// gzipped once when the server starts (zlib, level 9) and answered compressed to a browser that accepts gzip, with a
/// strong ETag (its length and a 64-bit hash) so a reload costs a 304.
///
/// Immutable once made; any thread.
struct WebAssets: Sendable {
    struct Asset: Sendable {
        let contentType: String
        let raw: [UInt8]
        let gzip: [UInt8]?
        let etag: String
    }

    private let assets: [String: Asset]

    init() {
        func asset(_ bytes: [UInt8], _ type: String) -> Asset {
            let compressed = Self.gzip(bytes)
            return Asset(contentType: type, raw: bytes, gzip: compressed.map { $0.count < bytes.count ? $0 : nil } ?? nil,
                         etag: "\"\(bytes.count)-\(String(Self.hash(bytes), radix: 16))\"")
        }
        assets = [
            "/": asset(PackageResources.index_html, "text/html; charset=utf-8"),
            "/app.css": asset(PackageResources.app_css, "text/css; charset=utf-8"),
            "/app.js": asset(PackageResources.app_js, "text/javascript; charset=utf-8"),
            "/views.js": asset(PackageResources.views_js, "text/javascript; charset=utf-8"),
            "/manifest.webmanifest": asset(PackageResources.manifest_webmanifest, "application/manifest+json"),
            "/icon.svg": asset(PackageResources.icon_svg, "image/svg+xml"),
            "/icon-180.png": asset(PackageResources.icon_180_png, "image/png"),
            "/api/openapi.yaml": asset(PackageResources.openapi_yaml, "application/yaml; charset=utf-8"),
        ]
    }

    /// The asset at a request path (`/index.html` is `/`); nil for any other path: nothing outside this table, and no
    /// file of the disk, is ever answered.
    func asset(at path: String) -> Asset? { assets[path == "/index.html" ? "/" : path] }

    /// The paths served (for tests).
    var paths: [String] { assets.keys.sorted() }

    /// FNV-1a, 64 bits: an ETag, not a security measure.
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    /// `bytes` gzipped (zlib's deflate with a gzip header, level 9), nil when zlib fails.
    static func gzip(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        // windowBits 15 + 16: the gzip wrapper.
        guard deflateInit2_(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 32)
        let status = input.withUnsafeMutableBufferPointer { inBuffer in
            output.withUnsafeMutableBufferPointer { outBuffer in
                stream.next_in = inBuffer.baseAddress
                stream.avail_in = UInt32(inBuffer.count)
                stream.next_out = outBuffer.baseAddress
                stream.avail_out = UInt32(outBuffer.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        return Array(output.prefix(Int(stream.total_out)))
    }
}
