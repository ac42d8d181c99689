import CSpeech

/// Spoken announcements: renders text with eSpeak NG and resamples it (soxr) to the device rate, caching the result
/// per text and rate so a repeated announcement costs nothing.
///
/// Threads: the decoder thread only (eSpeak keeps global state). Rendering allocates and takes tens of
/// milliseconds; it happens ahead of the audio, never on the output thread.
final class SpeechRenderer {
    private var rate: Int?
    private var failure: String?
    private var cache: [String: [Float]] = [:]
    private var order: [String] = []
    static let cacheLimit = 32

    /// Mono samples at `deviceRate`, or the reason there are none.
    func render(_ text: String, deviceRate: Int) -> Result<[Float], SpeechError> {
        let key = "\(deviceRate)|\(text)"
        if let cached = cache[key] { return .success(cached) }
        guard let speechRate = open() else { return .failure(SpeechError(reason: failure ?? "speech unavailable")) }
        var raw: UnsafeMutablePointer<Int16>?
        let count = fermata_speech_render(text, &raw)
        guard count > 0, let raw else { return .failure(SpeechError(reason: "eSpeak NG could not speak \"\(text)\"")) }
        defer { fermata_speech_free(raw) }
        var speech = (0..<count).map { Float(raw[$0]) / 32768 }
        if speechRate != deviceRate { speech = resample(speech, from: speechRate, to: deviceRate) }
        cache[key] = speech
        order.append(key)
        if order.count > Self.cacheLimit { cache[order.removeFirst()] = nil }
        return .success(speech)
    }

    private func open() -> Int? {
        if let rate { return rate }
        if failure != nil { return nil }
        let opened = fermata_speech_open("en", 165)
        guard opened > 0 else {
            failure = "eSpeak NG is not available (install espeak-ng-data); announcements are off"
            return nil
        }
        rate = Int(opened)
        return rate
    }

    private func resample(_ input: [Float], from: Int, to: Int) -> [Float] {
        guard let resampler = Resampler(inputRate: from, outputRate: to, channels: 1) else { return input }
        var output: [Float] = []
        output.reserveCapacity(input.count * to / from + 1024)
        let scratchFrames = 8192
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: scratchFrames)
        defer { scratch.deallocate() }
        input.withUnsafeBufferPointer { samples in
            resampler.process(samples.baseAddress!, frames: samples.count, scratch: scratch,
                              scratchFrames: scratchFrames) { block, n in output.append(contentsOf: UnsafeBufferPointer(start: block, count: n)) }
        }
        resampler.flush(scratch: scratch, scratchFrames: scratchFrames) { block, n in
            output.append(contentsOf: UnsafeBufferPointer(start: block, count: n))
        }
        return output
    }
}

/// Why an announcement could not be spoken.
struct SpeechError: Error, Sendable {
    var reason: String
}
