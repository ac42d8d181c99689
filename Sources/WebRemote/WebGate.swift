import FermataCore
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// What every request passes before its handler, in order:
///
/// 1. **Cross-site requests refused.** A request that changes something (POST, PUT, DELETE, PATCH) must carry
///    `X-Fermata-Request` (a form or an image on another site cannot send a custom header, and no CORS pre-flight is
///    ever answered yes), and an `Origin`, when the browser sends one, must name this box (the `Host` it asked);
///    `Sec-Fetch-Site: cross-site` is refused too. Nothing changes state on a GET.
/// 2. **Who it is.** From the box itself (loopback) the owner; else the session cookie's role, or none — then only the
///    page's files, `/api/session` and `/api/login` are answered (401 for the rest).
/// 3. **What a guest may reach**: the status, the events and the controls (the handler allows play, pause, skip and
///    the volume); everything else is 403.
/// 4. **Answers**: a refusal becomes `{"error": "..."}` with its status; anything else unexpected a 500 (logged,
///    never the error's text); every answer carries the page's security headers (a content security policy that
///    allows nothing but this box's own files, no framing, no sniffing, no referrer).
///
/// A value; every request's task runs it.
struct WebGate: RouterMiddleware {
    typealias Context = WebContext

    let access: WebAccess
    let logger: Logger

    static let cookieName = "fermata_session"
    static let requestHeader = HTTPField.Name("X-Fermata-Request")!
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    /// Paths a request without a session may reach besides the page's own files.
    static let publicPaths: Set<String> = ["/api/session", "/api/login"]
    /// Paths a guest may reach.
    static let guestPaths: Set<String> = ["/api/session", "/api/login", "/api/logout", "/api/status", "/api/events",
                                          "/api/control"]

    func handle(_ request: Request, context: WebContext,
                next: (Request, WebContext) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await admit(request, context, next)
        } catch let failure as WebFailure {
            response = WebAPI.failure(failure.status, failure.message)
        } catch let error as HTTPError {
            // Hummingbird's own refusals: no such route (404), a method the route lacks (405), a body too large.
            response = WebAPI.failure(error.status, error.status == .notFound ? "no such page" : error.status.reasonPhrase)
        } catch {
            logger.warning("web: \(request.method) \(request.uri.path): \(error)")
            response = WebAPI.failure(.internalServerError, "the box could not answer this request")
        }
        for (name, value) in Self.securityHeaders where response.headers[name] == nil { response.headers[name] = value }
        return response
    }

    private func admit(_ request: Request, _ context: WebContext,
                       _ next: (Request, WebContext) async throws -> Response) async throws -> Response {
        if let refusal = Self.crossSiteRefusal(request) { throw WebFailure(.forbidden, refusal) }
        let path = request.uri.path
        var context = context
        if context.isLoopback {
            context.role = .owner
        } else if let cookie = Self.sessionCookie(request) {
            context.role = await access.role(ofCookie: cookie)
        }
        let isAPI = path.hasPrefix("/api/") && path != "/api/openapi.yaml"
        if isAPI, !Self.publicPaths.contains(path) {
            guard let role = context.role else { throw WebFailure(.unauthorized, "log in first") }
            if role == .guest, !Self.guestPaths.contains(path) {
                throw WebFailure(.forbidden, "a guest may play, pause, skip and change the volume")
            }
        }
        return try await next(request, context)
    }

    /// Why a request that changes something is refused as cross-site, or nil.
    static func crossSiteRefusal(_ request: Request) -> String? {
        guard ![.get, .head].contains(request.method) else { return nil }
        if request.headers[secFetchSite] == "cross-site" { return "cross-site requests are refused" }
        guard request.headers[requestHeader] != nil else {
            return "a request that changes something must carry X-Fermata-Request"
        }
        if let origin = request.headers[.origin] {
            guard let host = request.head.authority,
                  origin == "http://" + host || origin == "https://" + host else {
                return "this request came from another site (\(origin))"
            }
        }
        return nil
    }

    /// The session cookie's value, when the request has one.
    static func sessionCookie(_ request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for part in field.split(separator: ";") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == cookieName {
                    return pair[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// The `Set-Cookie` of a new session: HttpOnly (no script reads it), SameSite=Strict (no other site sends it),
    /// 30 days.
    static func sessionCookieHeader(_ value: String) -> String {
        "\(cookieName)=\(value); Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000"
    }

    static let clearedCookie = "\(cookieName)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"

    static let securityHeaders: [(HTTPField.Name, String)] = [
        (HTTPField.Name("Content-Security-Policy")!,
         "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
            + "manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"),
        (HTTPField.Name("X-Content-Type-Options")!, "nosniff"),
        (HTTPField.Name("X-Frame-Options")!, "DENY"),
        (HTTPField.Name("Referrer-Policy")!, "no-referrer"),
    ]
}
