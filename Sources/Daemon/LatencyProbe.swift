import AudioCore
import AudioOutput
import Recording

/// `fermata audio latency`: plays clicks through the output device and hears them on the capture device, and measures
/// how many capture frames after its heard instant each click arrives — the same mapping a take's start goes through
/// (the output's heard clock and the capture clock as fitted lines, `ClockLine`), so whatever offset those clocks'
/// reports carry is measured with the converters' and the cable's and cancels when a take is placed.
///
/// Threads: `measure` blocks for about five seconds (it owns both devices meanwhile): call it on a thread of its own
/// (`BlockingWork`), never on the cooperative pool, with playback stopped (the output device must be free).
struct LatencyProbe {
    let output: String
    let capture: String
    let rate: Int
    var clicks = 8
    var spacingMilliseconds = 400

    enum Failure: Error, CustomStringConvertible {
        case device(String)
        case notHeard(String)
        var description: String {
            switch self {
            case let .device(text), let .notHeard(text): text
            }
        }
    }

    /// The measured round trip, in frames at `rate`, and how many clicks were heard.
    func measure(outputConfigText: String? = nil, captureConfigText: String? = nil) throws(Failure) -> (frames: Int, heard: Int) {
        let format = AudioFormat(sampleRate: rate, channels: 2, encoding: .s16)
        let sink = ALSASink(device: output, configText: outputConfigText)
        let played: AudioFormat
        // 4 periods of 10 ms. (8 were tried, since an xrun now fails the attempt: the next CI-like run measured the
        // loopback's round trip 2.7 ms short after a play and a stop, and every direct take was 1.7-2.4 ms late. One
        // run does not say it was the buffer; 4 has measured within 0.1 ms in every run before, so it stays.)
        do { played = try sink.open(format, periodFrames: max(64, rate / 100), periods: 4) } catch {
            throw .device(error.description + " (stop playback first: the output device must be free)")
        }
        defer { sink.close() }
        guard played.sampleRate == rate, played.encoding == .s16 || played.encoding == .s32 else {
            throw .device("the output \(output) plays at \(played.sampleRate) Hz, not \(rate) Hz")
        }
        let device = CaptureDevice(name: capture, configText: captureConfigText)
        do { try device.open(format, periodFrames: max(64, rate / 100)) } catch { throw .device(error.description) }
        let captureFormat = device.format ?? format
        let loop = CaptureLoop(device: device, seconds: 12)
        let thread = WorkerThread.started(name: "fermata-latency") { loop.run() }
        defer { loop.stop(); thread.join(); device.close() }

        let click = ClickCorrelation.click(rate: rate)
        let lead = rate / 2, spacing = rate * spacingMilliseconds / 1000
        let total = lead + clicks * spacing + rate / 2
        var outputLine = ClockLine(nominalRate: rate), captureLine = ClockLine(nominalRate: rate)
        let period = max(64, sink.periodFrames)
        let frameBytes = played.bytesPerFrame
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: period * frameBytes, alignment: 16)
        defer { buffer.deallocate() }
        var written = 0
        while written < total {
            let n = min(period, total - written)
            for i in 0..<n {
                let frame = written + i - lead
                let k = frame >= 0 ? frame % spacing : -1
                let value = frame >= 0 && frame / spacing < clicks && k < click.count ? click[k] : 0
                for channel in 0..<played.channels {
                    let offset = (i * played.channels + channel) * played.encoding.bytes
                    // `value` is a click sample in [-1, 1] (`ClickCorrelation.click`: windowed noise), so both
                    // conversions stay inside their integer's range.
                    if played.encoding == .s16 {
                        buffer.storeBytes(of: Int16(value * 32767), toByteOffset: offset, as: Int16.self)
                    } else {
                        buffer.storeBytes(of: Int32(Double(value) * 2_147_483_000), toByteOffset: offset, as: Int32.self)
                    }
                }
            }
            switch sink.write(buffer, frames: n) {
            case let .written(count): written += count
            case .recovered:
                // The device played silence meanwhile: the clicks after it are late against the line (measured again).
                throw .notHeard("the output ran under while the clicks played (an xrun)")
            case let .deviceLost(code), let .failed(code):
                throw .device("the output \(output) failed while the clicks played (error \(-code))")
            }
            let delay = sink.delayReading  // the count and its instant, as the recording's lines read them
            outputLine.add(frame: Int64(written - delay.frames), nanoseconds: delay.nanoseconds)
            let reading = loop.clock.read()
            if reading.nanoseconds > 0 { captureLine.add(frame: reading.frame, nanoseconds: reading.nanoseconds) }
            if loop.lostCode.load(ordering: .relaxed) != 0 { throw .device("the capture device \(capture) went away") }
        }
        sink.drain()
        MonotonicClock.sleep(seconds: 0.3)
        // Frames the capture lost are not counted: its line and the clicks' places would be off (measured again).
        if loop.overruns.load(ordering: .relaxed) > 0 { throw .notHeard("the capture ran over while listening (an xrun)") }
        // The whole capture is still in the ring (12 s of room, nothing released): mono, as floats.
        let bytes = loop.ring.readableBytes(from: loop.ring.releasedPosition)
        let frames = bytes / captureFormat.bytesPerFrame
        var samples = [Float](repeating: 0, count: frames)
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes), alignment: 16)
        defer { raw.deallocate() }
        loop.ring.copy(from: loop.ring.releasedPosition, into: raw, count: bytes)
        for f in 0..<frames {
            let base = f * captureFormat.bytesPerFrame
            samples[f] = captureFormat.encoding == .s16
                ? Float(raw.loadUnaligned(fromByteOffset: base, as: Int16.self)) / 32768
                : Float(raw.loadUnaligned(fromByteOffset: base, as: Int32.self)) / 2_147_483_648
        }
        var predicted: [Int] = []
        for i in 0..<clicks {
            let outputFrame = Double(lead + i * spacing)
            guard let instant = outputLine.nanoseconds(atFrame: outputFrame),
                  let frame = captureLine.frame(atNanoseconds: instant) else { continue }
            predicted.append(Int(frame.rounded()))
        }
        guard predicted.count == clicks else { throw .notHeard("the output's or the capture's clock was not read") }
        let minimum = max(3, clicks / 2)
        guard let found = ClickCorrelation.roundTrip(click, in: samples, predicted: predicted, spacing: spacing,
                                                     rate: rate, minimumHeard: minimum) else {
            throw .notHeard("the clicks were not heard on \(capture) (fewer than \(minimum) of \(clicks)): is it "
                            + "connected to the output, and its level up?")
        }
        return (found.samples, found.heard)
    }
}
