import CSpeechShim
import Dispatch
import Engine
import Synchronization

/// Why an announcement could not be spoken.
public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// Renders text with eSpeak NG, caching the result per text (32 texts). The rendering runs on the process's one
/// speech queue (`ESpeak.queue`; a sentence takes tens of milliseconds — never on the decoder or output thread, nor
/// on Swift's cooperative pool). Thread-safe: any task may call `render`, on any number of renderers.
public final class SpeechRenderer: Sendable {
    private struct State {
        var cache: [String: Speech] = [:]
        var order: [String] = []
    }

    private let state = Mutex(State())
    static let cacheLimit = 32

    public init() {}

    public func render(_ text: String) async -> Result<Speech, SpeechError> {
        await withCheckedContinuation { continuation in
            ESpeak.queue.async { continuation.resume(returning: self.renderNow(text)) }
        }
    }

    /// On `ESpeak.queue` only.
    private func renderNow(_ text: String) -> Result<Speech, SpeechError> {
        if let cached = state.withLock({ $0.cache[text] }) { return .success(cached) }
        let rate: Int
        switch ESpeak.open() {
        case let .success(opened): rate = opened
        case let .failure(error): return .failure(error)
        }
        var raw: UnsafeMutablePointer<Int16>?
        let count = fermata_speech_render(text, &raw)
        guard count > 0, let raw else { return .failure(SpeechError(reason: "eSpeak NG could not speak \"\(text)\"")) }
        defer { fermata_speech_free(raw) }
        let speech = Speech(samples: (0..<count).map { Float(raw[$0]) / 32768 }, rate: rate)
        state.withLock { s in
            s.cache[text] = speech
            s.order.append(text)
            if s.order.count > Self.cacheLimit { s.cache[s.order.removeFirst()] = nil }
        }
        return .success(speech)
    }
}

/// The process's one eSpeak NG instance. eSpeak keeps global state and the C shim collects samples into a global
/// buffer, so every renderer speaks through this serial queue, and eSpeak is initialised once (two players in one
/// process, as in the tests, used to initialise and synthesise concurrently, and eSpeak then refused).
/// Threads: `queue` for everything; `open` only on it.
enum ESpeak {
    static let queue = DispatchQueue(label: "fermata.speech")
    private static let opened = Mutex<Result<Int, SpeechError>?>(nil)

    /// The sample rate, after initialising eSpeak on first use; the failure is remembered (said once per player).
    static func open() -> Result<Int, SpeechError> {
        opened.withLock { opened in
            if let opened { return opened }
            let rate = fermata_speech_open("en", 165)
            let result: Result<Int, SpeechError> = rate > 0
                ? .success(Int(rate))
                : .failure(SpeechError(reason: "eSpeak NG is not available (install espeak-ng-data); announcements are off"))
            opened = result
            return result
        }
    }
}
