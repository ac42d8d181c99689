import CSpeech
import Dispatch
import Synchronization

/// Spoken words ready to play: mono samples at eSpeak's rate.
public struct Speech: Sendable {
    public var samples: [Float]
    public var rate: Int

    /// The samples at `deviceRate` (soxr), for the decoder thread to place in the stream.
    func resampled(to deviceRate: Int) -> [Float] {
        guard rate != deviceRate, let resampler = Resampler(inputRate: rate, outputRate: deviceRate, channels: 1) else {
            return samples
        }
        var output: [Float] = []
        output.reserveCapacity(samples.count * deviceRate / rate + 1024)
        let scratchFrames = 8192
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: scratchFrames)
        defer { scratch.deallocate() }
        samples.withUnsafeBufferPointer { input in
            resampler.process(input.baseAddress!, frames: input.count, scratch: scratch, scratchFrames: scratchFrames) {
                output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1))
            }
        }
        resampler.flush(scratch: scratch, scratchFrames: scratchFrames) {
            output.append(contentsOf: UnsafeBufferPointer(start: $0, count: $1))
        }
        return output
    }
}

/// Why an announcement could not be spoken.
public struct SpeechError: Error, Sendable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// Renders text with eSpeak NG on a serial queue of its own (eSpeak keeps global state, and a sentence takes tens of
/// milliseconds — never on the decoder or output thread, nor on Swift's cooperative pool), caching the result per
/// text (32 texts). Thread-safe: any task may call `render`.
public final class SpeechRenderer: Sendable {
    private struct State {
        var rate: Int?
        var failure: String?
        var cache: [String: Speech] = [:]
        var order: [String] = []
    }

    private let queue = DispatchQueue(label: "fermata.speech")
    private let state = Mutex(State())
    static let cacheLimit = 32

    public init() {}

    public func render(_ text: String) async -> Result<Speech, SpeechError> {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.renderNow(text)) }
        }
    }

    /// On `queue` only.
    private func renderNow(_ text: String) -> Result<Speech, SpeechError> {
        if let cached = state.withLock({ $0.cache[text] }) { return .success(cached) }
        guard let rate = open() else {
            return .failure(SpeechError(reason: state.withLock { $0.failure } ?? "speech unavailable"))
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

    /// On `queue` only.
    private func open() -> Int? {
        let known = state.withLock { ($0.rate, $0.failure) }
        if let rate = known.0 { return rate }
        if known.1 != nil { return nil }
        let opened = fermata_speech_open("en", 165)
        state.withLock { s in
            if opened > 0 {
                s.rate = Int(opened)
            } else {
                s.failure = "eSpeak NG is not available (install espeak-ng-data); announcements are off"
            }
        }
        return opened > 0 ? Int(opened) : nil
    }
}
