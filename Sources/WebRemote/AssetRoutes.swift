import HTTPTypes
import Hummingbird
import NIOCore

/// The page's own files (`WebAssets`): `/`, `/app.css`, `/app.js`, `/views.js`, the manifest, the icons and
/// `/api/openapi.yaml`. Gzipped for a browser that says it takes gzip; `no-cache` with an ETag, so a reload after an
/// upgrade fetches the new page and otherwise costs a 304. Any other path is a 404: no file of the disk is reachable.
///
/// A value; its handlers run on the requests' tasks.
struct AssetRoutes: Sendable {
    let assets: WebAssets

    func register(on router: Router<WebContext>) {
        for path in assets.paths {
            router.get(RouterPath(path)) { request, _ in answer(path, request) }
            router.head(RouterPath(path)) { request, _ in answer(path, request) }
        }
        router.get("/index.html") { request, _ in answer("/", request) }
    }

    func answer(_ path: String, _ request: Request) -> Response {
        guard let asset = assets.asset(at: path) else { return WebAPI.failure(.notFound, "no such page") }
        var headers: HTTPFields = [.contentType: asset.contentType, .cacheControl: "no-cache", .eTag: asset.etag,
                                   .vary: "Accept-Encoding"]
        if request.headers[values: .ifNoneMatch].contains(where: { $0.contains(asset.etag) }) {
            return Response(status: .notModified, headers: headers)
        }
        let acceptsGzip = request.headers[values: .acceptEncoding].contains { $0.lowercased().contains("gzip") }
        let body: [UInt8]
        if acceptsGzip, let gzip = asset.gzip {
            headers[.contentEncoding] = "gzip"
            body = gzip
        } else {
            body = asset.raw
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}
