import AudioCore
import AudioOutput
import CALSA
import Glibc

/// An ALSA capture PCM (`record.device`: `hw:CARD=…`, `plughw:…`, or a PCM defined in a configuration text, such as a
/// `type file` PCM with an `infile` in tests), opened at exactly the rate asked for: a device that offers another rate
/// is refused with both rates named, as is one that cannot be opened at all.
///
/// Threads: opened and closed by the recording service; `read` is called by the capture thread only.
public final class CaptureDevice {
    public let name: String
    private let configText: String?
    private var pcm: OpaquePointer?
    private var config: OpaquePointer?
    public private(set) var format: AudioFormat?
    public private(set) var periodFrames = 0
    private let position = ALSAPosition()

    /// Why the device cannot capture, in words for the log, `doctor` and the protocol.
    public struct OpenError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// What one `read` did.
    public enum ReadResult: Equatable {
        case read(frames: Int)
        /// The device ran over (the reader was late) and was recovered in place: frames were lost.
        case overrun
        /// The device went away (unplugged) or failed: the take ends here.
        case lost(code: Int32)
    }

    public init(name: String, configText: String? = nil) {
        self.name = name
        self.configText = configText
    }

    deinit { close() }

    /// Opens at `requested` (channels and encoding may come nearest; the rate must be exact).
    public func open(_ requested: AudioFormat, periodFrames: Int = 1024, periods: Int = 4) throws(OpenError) {
        close()
        var handle: OpaquePointer?
        var result: Int32
        if let configText {
            var top: OpaquePointer?
            var input: OpaquePointer?
            snd_config_top(&top)
            result = configText.withCString { snd_input_buffer_open(&input, $0, strlen($0)) }
            if result >= 0 {
                result = snd_config_load(top, input)
                snd_input_close(input)
            }
            config = top
            if result >= 0 { result = snd_pcm_open_lconf(&handle, name, SND_PCM_STREAM_CAPTURE, 0, top) }
        } else {
            result = snd_pcm_open(&handle, name, SND_PCM_STREAM_CAPTURE, 0)
        }
        guard result >= 0, let handle else { throw failure(result, "cannot open the capture device \(name)") }
        pcm = handle
        do throws(OpenError) {
            try configure(handle, requested, periodFrames: periodFrames, periods: periods)
        } catch {
            close()
            throw error
        }
    }

    private func configure(_ handle: OpaquePointer, _ requested: AudioFormat, periodFrames: Int,
                           periods: Int) throws(OpenError) {
        var hw: OpaquePointer?
        snd_pcm_hw_params_malloc(&hw)
        defer { snd_pcm_hw_params_free(hw) }
        guard snd_pcm_hw_params_any(handle, hw) >= 0,
              snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED) >= 0 else {
            throw OpenError(description: "the capture device \(name) offers no interleaved capture")
        }
        snd_pcm_hw_params_set_rate_resample(handle, hw, 0)
        var actual = requested
        let order: [SampleEncoding] = [requested.encoding] + [.s32, .s16].filter { $0 != requested.encoding }
        guard let encoding = order.first(where: {
            snd_pcm_hw_params_set_format(handle, hw, $0 == .s16 ? SND_PCM_FORMAT_S16_LE : SND_PCM_FORMAT_S32_LE) >= 0
        }) else { throw OpenError(description: "the capture device \(name) takes neither S16 nor S32 samples") }
        actual.encoding = encoding
        actual.validBits = encoding == .s16 ? 16 : 24
        var channels = UInt32(requested.channels)
        guard snd_pcm_hw_params_set_channels_near(handle, hw, &channels) >= 0 else {
            throw OpenError(description: "the capture device \(name) refuses \(requested.channels) channels")
        }
        actual.channels = Int(channels)
        var rate = UInt32(requested.sampleRate), dir: Int32 = 0
        let r = snd_pcm_hw_params_set_rate_near(handle, hw, &rate, &dir)
        guard r >= 0, Int(rate) == requested.sampleRate else {
            throw OpenError(description: "the capture device \(name) refuses \(requested.sampleRate) Hz"
                            + (r >= 0 ? " (it offers \(rate) Hz)" : ""))
        }
        var period = snd_pcm_uframes_t(periodFrames)
        snd_pcm_hw_params_set_period_size_near(handle, hw, &period, &dir)
        var buffer = snd_pcm_uframes_t(Int(period) * periods)
        snd_pcm_hw_params_set_buffer_size_near(handle, hw, &buffer)
        let applied = snd_pcm_hw_params(handle, hw)
        guard applied >= 0 else { throw failure(applied, "the capture device \(name) refused its parameters") }
        snd_pcm_hw_params_get_period_size(hw, &period, &dir)
        self.periodFrames = Int(period)
        // Stamped positions (`ALSAPosition`); the rest of the software parameters stay the device's defaults.
        var sw: OpaquePointer?
        snd_pcm_sw_params_malloc(&sw)
        defer { snd_pcm_sw_params_free(sw) }
        if snd_pcm_sw_params_current(handle, sw) >= 0 {
            ALSAPosition.enableStamps(handle, sw)
            _ = snd_pcm_sw_params(handle, sw)
        }
        let prepared = snd_pcm_prepare(handle)
        guard prepared >= 0 else { throw failure(prepared, "the capture device \(name) cannot start") }
        format = actual
    }

    /// Starts capturing (the first `read` would too; this makes the start instant known).
    public func start() { if let pcm { snd_pcm_start(pcm) } }

    /// Reads up to `frames` frames into `buffer` (blocking up to a period). Capture thread only: no allocation, no
    /// lock, no logging.
    public func read(into buffer: UnsafeMutableRawPointer, frames: Int) -> ReadResult {
        guard let pcm else { return .lost(code: -ENODEV) }
        let n = snd_pcm_readi(pcm, buffer, snd_pcm_uframes_t(frames))
        if n >= 0 { return .read(frames: Int(n)) }
        let code = Int32(n)
        if code == -EPIPE || code == -ESTRPIPE || code == -EINTR {
            return snd_pcm_recover(pcm, code, 1) >= 0 ? .overrun : .lost(code: code)
        }
        if code == -EAGAIN { return .read(frames: 0) }
        return .lost(code: code)
    }

    /// Frames the device has captured that `read` has not returned yet, and the CLOCK_MONOTONIC instant that count
    /// holds at (the kernel's stamp of its position: `ALSAPosition`); 0 frames now when unknown. Capture thread only,
    /// right after a read: no allocation, no lock.
    public func pendingFrames() -> (frames: Int, nanoseconds: UInt64) {
        guard let reading = stampedPosition() else { return (0, MonotonicClock.nanoseconds()) }
        return (reading.frames, reading.nanoseconds)
    }

    /// The device's position with its stamp (`ALSAPosition`); nil when closed or unreadable. Capture thread only.
    public func stampedPosition() -> ALSAPosition.Reading? {
        guard let pcm else { return nil }
        return position.read(pcm)
    }

    public func close() {
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
        if let config { snd_config_delete(config) }
        config = nil
    }

    private func failure(_ code: Int32, _ what: String) -> OpenError {
        OpenError(description: what + ": " + String(cString: snd_strerror(code)))
    }
}
