import CCurlShim
import FermataCore
import Glibc

/// One HTTP(S) transfer read as a stream of bytes: libcurl in its multi interface, driven by whoever reads, so a read
/// waits for bytes in steps of at most `pollMilliseconds` and gives up when `cancelled` says so. The body waits in a
/// bounded queue; when it is full, libcurl pauses the transfer (TCP then slows the server down).
///
/// Bounded in every way a server could stretch: the connection (name resolution, TCP and TLS) within
/// `connectTimeout`, the response head within `headTimeout` and 64 KiB, redirects (http and https only) at most
/// `maxRedirects`, and a transfer that delivers less than a byte a second for `stallSeconds` fails.
///
/// Threads: created, read and released on one stream thread.
final class HTTPConnection: StreamByteSource {
    /// How a connection is bounded (the stream settings fill it).
    struct Limits: Sendable {
        var connectTimeoutMilliseconds = 10_000
        var headTimeout: Duration = .seconds(15)
        var stallSeconds = 10
        var maxRedirects = 5
        /// Body bytes held before the transfer is paused.
        var queueBytes = 256 * 1024
    }

    static let pollMilliseconds: Int32 = 100
    static let userAgent = "Fermata/\(FermataVersion.number)"

    let url: String
    private var handle: OpaquePointer?
    private let limits: Limits
    private let cancelled: () -> Bool
    private var reader = ResponseHeadReader()
    private var body: [UInt8] = []
    private var bodyStart = 0
    private var paused = false
    /// Why a callback aborted the transfer (a bound passed), reported instead of libcurl's "write error".
    private var abort: StreamError?
    private(set) var head: ResponseHead?

    /// Starts the transfer (nothing is sent until the first read or `awaitHead`).
    init(url: String, limits: Limits = Limits(), icyMetadata: Bool = true, cancelled: @escaping () -> Bool)
        throws(StreamError) {
        self.url = url
        self.limits = limits
        self.cancelled = cancelled
        guard Self.initialised else { throw .network("libcurl could not be initialised") }
        var error = [CChar](repeating: 0, count: 256)
        let context = Unmanaged.passUnretained(self).toOpaque()
        let opened: OpaquePointer? = url.withCString { url in
            Self.userAgent.withCString { agent in
                var settings = fm_curl_settings(url: url, user_agent: agent,
                                                connect_timeout_ms: limits.connectTimeoutMilliseconds,
                                                low_speed_seconds: limits.stallSeconds, low_speed_bytes: 1,
                                                max_redirects: limits.maxRedirects, icy_metadata: icyMetadata ? 1 : 0)
                return fm_curl_open(&settings, context, Self.onBody, Self.onHeader, &error, error.count)
            }
        }
        guard let opened else { throw .network("cannot start a transfer: \(Self.text(error))") }
        handle = opened
    }

    deinit { fm_curl_close(handle) }

    private static let initialised: Bool = fm_curl_global_init() != 0

    /// libcurl's version and TLS library, for `doctor`.
    static var libraryVersion: String { String(cString: fm_curl_version()) }

    // MARK: reading

    /// Waits for the final response's head (after redirects); throws when the server refuses or does not answer.
    func awaitHead() throws(StreamError) -> ResponseHead {
        let deadline = ContinuousClock.now + limits.headTimeout
        while head == nil {
            guard !cancelled() else { throw .cancelled }
            guard let handle else { throw .cancelled }
            if fm_curl_pump(handle, Self.pollMilliseconds) == 0 {
                try finish()
                // A last response with no body (a redirect without a Location): its head says what it was.
                if head == nil { head = reader.complete }
                if head == nil { throw .network("the server closed the connection before answering") }
                break
            }
            if head == nil, ContinuousClock.now > deadline {
                throw .network("no answer within \(limits.headTimeout.components.seconds) s")
            }
        }
        // libcurl fails only 4xx and 5xx; a redirect without a Location or a made-up status would pass as a body.
        guard let head, (200..<300).contains(head.status) else {
            throw .refused("the server answered HTTP \(head?.status ?? 0)\(head?.status == 0 ? " (no status)" : "")")
        }
        return head
    }

    /// Reads body bytes: at least one, waiting as needed; 0 at the end of the body.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        guard buffer.count > 0 else { return 0 }
        while bodyStart >= body.count {
            guard !cancelled() else { throw .cancelled }
            guard let handle else { return 0 }
            if paused {
                paused = false
                fm_curl_resume(handle)
                if bodyStart < body.count { break }
            }
            if fm_curl_pump(handle, Self.pollMilliseconds) == 0, bodyStart >= body.count {
                try finish()
                return 0
            }
        }
        let count = min(buffer.count, body.count - bodyStart)
        body.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + bodyStart, byteCount: count)
        }
        bodyStart += count
        if bodyStart == body.count {
            body.removeAll(keepingCapacity: true)
            bodyStart = 0
        }
        return count
    }

    /// After libcurl has ended the transfer: nothing when it completed, else why not.
    private func finish() throws(StreamError) {
        guard let handle else { return }
        if let abort { throw abort }
        var error = [CChar](repeating: 0, count: 256)
        let code = fm_curl_result(handle, &error, error.count)
        guard code != 0 else { return }
        let status = fm_curl_status(handle)
        let text = Self.text(error)
        switch code {
        case 22 where status >= 400:  // CURLE_HTTP_RETURNED_ERROR
            throw .refused("the server answered HTTP \(status)")
        case 47:  // CURLE_TOO_MANY_REDIRECTS
            throw .refused("more than \(limits.maxRedirects) redirects (\(text))")
        case 1, 3:  // CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT
            throw .refused(text)
        case 60, 58, 83, 90, 91:  // certificate problems: a retry will not help
            throw .refused("TLS: \(text)")
        case 28 where head == nil:  // CURLE_OPERATION_TIMEDOUT before any answer
            throw .network("the server sent nothing for \(limits.stallSeconds) s (libcurl: \(text))")
        case 27 where head == nil:  // CURLE_OUT_OF_MEMORY: libcurl's answer to a header line over its 100 KiB limit
            throw .refused("the server's headers are too large (libcurl: \(text))")
        default:
            throw .network(text)
        }
    }

    // MARK: callbacks (inside fm_curl_pump and fm_curl_resume, on this thread)

    private static let onBody: fm_curl_data_fn = { context, bytes, count in
        let connection = Unmanaged<HTTPConnection>.fromOpaque(context!).takeUnretainedValue()
        return connection.takeBody(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private static let onHeader: fm_curl_data_fn = { context, bytes, count in
        let connection = Unmanaged<HTTPConnection>.fromOpaque(context!).takeUnretainedValue()
        return connection.takeHeader(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private func takeBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if head == nil { head = reader.complete ?? ResponseHead(status: Int(fm_curl_status(handle))) }
        if body.count - bodyStart + bytes.count > limits.queueBytes, body.count > bodyStart {
            paused = true
            return Int(FM_CURL_PAUSE)
        }
        if bodyStart > 0 {
            body.removeSubrange(0..<bodyStart)
            bodyStart = 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    private func takeHeader(_ line: UnsafeRawBufferPointer) -> Int {
        do throws(StreamError) {
            try reader.take(line)
        } catch {
            abort = error
            return 0
        }
        // The final response's head: not a redirect (libcurl follows those) and not an interim 1xx.
        if let complete = reader.complete, !(300..<400).contains(complete.status) || complete.status == 304,
           complete.status >= 200 {
            head = complete
        }
        return line.count
    }

    static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Bytes read in order, waiting as needed: an HTTP body, the audio of an ICY stream, a peeked head put back.
///
/// Threads: one stream thread.
protocol StreamByteSource: AnyObject {
    /// At least one byte (waiting for it), or 0 at the end.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int
}
