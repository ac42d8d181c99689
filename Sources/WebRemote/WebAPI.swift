import FermataCore
import Foundation
import HTTPTypes
import Hummingbird
import MPDProtocol
import NIOCore

/// What the route groups share: the daemon's side (`WebBackend`), the sessions (`WebAccess`), the event hub, the
/// page's files, and the helpers every handler uses to read a request and write an answer.
///
/// A value; shared by every request's task.
struct WebAPI: Sendable {
    let backend: any WebBackend
    let access: WebAccess
    let events: WebEvents
    let assets: WebAssets

    var mpd: any MPDBackend { backend.mpd }

    // MARK: answers

    func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: Self.jsonHeaders, body: .init(byteBuffer: ByteBuffer(bytes: WebJSON.encode(value))))
    }

    static func failure(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: jsonHeaders,
                 body: .init(byteBuffer: ByteBuffer(bytes: WebJSON.encode(WebJSON.Failure(error: message)))))
    }

    static var jsonHeaders: HTTPFields { [.contentType: "application/json", .cacheControl: "no-store"] }

    static let noContent = Response(status: .noContent, headers: [.cacheControl: "no-store"])

    // MARK: reading a request

    /// The JSON body decoded as `T` (at most the context's upload size); a bad or missing body is a 400 saying why.
    func body<T: Decodable>(_ request: Request, _ context: WebContext, as type: T.Type) async throws -> T {
        try Self.decode(T.self, try await Self.collect(request, context))
    }

    /// The same for a call whose body may be left out: nil when it is empty.
    func optionalBody<T: Decodable>(_ request: Request, _ context: WebContext, as type: T.Type) async throws -> T? {
        let buffer = try await Self.collect(request, context)
        return buffer.readableBytes == 0 ? nil : try Self.decode(T.self, buffer)
    }

    /// The whole body, at most the context's upload size (a 413 past it).
    private static func collect(_ request: Request, _ context: WebContext) async throws -> ByteBuffer {
        do {
            return try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw WebFailure(.contentTooLarge, "the request body is larger than \(context.maxUploadSize) bytes")
        }
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ buffer: ByteBuffer) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
        } catch let DecodingError.keyNotFound(key, _) {
            throw WebFailure.bad("the body lacks \(key.stringValue)")
        } catch let DecodingError.typeMismatch(_, context) {
            throw WebFailure.bad("wrong type for \(context.codingPath.map(\.stringValue).joined(separator: "."))")
        } catch {
            throw WebFailure.bad("the body is not the JSON this call takes")
        }
    }

    /// A whole-number query parameter in `range` (absent: `fallback`); anything else is a 400.
    static func integer(_ request: Request, _ name: String, in range: ClosedRange<Int>, default fallback: Int) throws -> Int {
        guard let text = request.uri.queryParameters[name[...]] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw WebFailure.bad("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A text query parameter of at most `maxBytes` bytes (absent: nil).
    static func text(_ request: Request, _ name: String, maxBytes: Int = 1024) throws -> String? {
        guard let value = request.uri.queryParameters[name[...]] else { return nil }
        guard value.utf8.count <= maxBytes else { throw WebFailure.bad("\(name) is longer than \(maxBytes) bytes") }
        return String(value)
    }

    /// A path parameter that must be a number in `range`.
    static func parameter(_ context: WebContext, _ name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = context.parameters.get(name, as: Int.self), range.contains(value) else {
            throw WebFailure.bad("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// The paging of a list: `offset` (0…1,000,000) and `limit` (1…500, 100 by default).
    static func page(_ request: Request) throws -> (offset: Int, limit: Int) {
        (try integer(request, "offset", in: 0...1_000_000, default: 0), try integer(request, "limit", in: 1...500, default: 100))
    }

    /// Runs a backend call, turning the MPD backend's refusals into the API's statuses (a missing song or playlist
    /// 404, a bad argument 400, "not playing" 409, a permission 403).
    @discardableResult
    static func calling<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as MPDError {
            switch error.code {
            case .noExist: throw WebFailure.notFound(error.message)
            case .argument, .notList: throw WebFailure.bad(error.message)
            case .playerSync, .exist, .updateAlready, .playlistMax: throw WebFailure.refused(error.message)
            case .permission, .password: throw WebFailure(.forbidden, error.message)
            default: throw WebFailure(.internalServerError, error.message)
            }
        }
    }
}
