import AudioCore
import CALSA
import Glibc

/// An ALSA playback PCM (`default`, `plughw:CARD=…`, or a PCM defined in a configuration text the caller supplies,
/// such as a `type file` capture for tests).
///
/// Opens interleaved, tries the requested encoding first and falls back to what the device takes; never lets alsa-lib
/// resample (Fermata's own resampler is better), so the returned format may differ in rate too.
/// Threads: the output thread only.
public final class ALSASink: AudioSink {
    public let device: String
    private let configText: String?
    private var pcm: OpaquePointer?
    private var config: OpaquePointer?
    private var canPause = false
    private let position = ALSAPosition()
    public private(set) var periodFrames = 0
    public var name: String { "ALSA \(device)" }
    public var isOpen: Bool { pcm != nil }

    /// - Parameters:
    ///   - device: the PCM name, e.g. `default` or `plughw:CARD=sndrpihifiberry,DEV=0`.
    ///   - configText: when given, the PCM is looked up only in this ALSA configuration (`snd_pcm_open_lconf`).
    public init(device: String = "default", configText: String? = nil) {
        self.device = device
        self.configText = configText
    }

    deinit { close() }

    public func open(_ requested: AudioFormat, periodFrames: Int, periods: Int) throws(SinkOpenError) -> AudioFormat {
        close()
        var handle: OpaquePointer?
        let result: Int32
        if let configText {
            config = try Self.loadConfig(configText, device: device)
            result = snd_pcm_open_lconf(&handle, device, SND_PCM_STREAM_PLAYBACK, 0, config)
        } else {
            result = snd_pcm_open(&handle, device, SND_PCM_STREAM_PLAYBACK, 0)
        }
        guard result >= 0, let handle else {
            // alsa-lib prints its own reason ("Unknown PCM …") for the first failed open; the retries every second
            // while the device is away stay quiet until it opens again.
            fermata_alsa_quiet_errors(1)
            throw failure(result, "open")
        }
        fermata_alsa_quiet_errors(0)
        pcm = handle
        do throws(SinkOpenError) {
            return try configure(handle, requested, periodFrames: periodFrames, periods: periods)
        } catch {
            close()
            throw error
        }
    }

    private func configure(
        _ handle: OpaquePointer, _ requested: AudioFormat, periodFrames: Int, periods: Int
    ) throws(SinkOpenError) -> AudioFormat {
        var hw: OpaquePointer?
        snd_pcm_hw_params_malloc(&hw)
        defer { snd_pcm_hw_params_free(hw) }
        var r = snd_pcm_hw_params_any(handle, hw)
        guard r >= 0 else { throw failure(r, "no hardware configuration") }
        snd_pcm_hw_params_set_rate_resample(handle, hw, 0)
        r = snd_pcm_hw_params_set_access(handle, hw, SND_PCM_ACCESS_RW_INTERLEAVED)
        guard r >= 0 else { throw failure(r, "interleaved access refused") }
        var actual = requested
        let order: [SampleEncoding] = [requested.encoding] + [.s32, .s16, .f32].filter { $0 != requested.encoding }
        guard let encoding = order.first(where: { snd_pcm_hw_params_set_format(handle, hw, Self.alsaFormat($0)) >= 0 })
        else { throw SinkOpenError(device: device, reason: "no supported sample format (tried S16/S32/FLOAT)") }
        actual.encoding = encoding
        if encoding != requested.encoding { actual.validBits = encoding == .s16 ? 16 : min(32, max(24, actual.validBits)) }
        var channels = UInt32(requested.channels)
        r = snd_pcm_hw_params_set_channels_near(handle, hw, &channels)
        guard r >= 0 else { throw failure(r, "\(requested.channels) channels refused") }
        actual.channels = Int(channels)
        var rate = UInt32(requested.sampleRate)
        var dir: Int32 = 0
        r = snd_pcm_hw_params_set_rate_near(handle, hw, &rate, &dir)
        guard r >= 0 else { throw failure(r, "rate \(requested.sampleRate) refused") }
        actual.sampleRate = Int(rate)
        var period = snd_pcm_uframes_t(periodFrames)
        snd_pcm_hw_params_set_period_size_near(handle, hw, &period, &dir)
        var bufferSize = snd_pcm_uframes_t(Int(period) * periods)
        snd_pcm_hw_params_set_buffer_size_near(handle, hw, &bufferSize)
        r = snd_pcm_hw_params(handle, hw)
        guard r >= 0 else { throw failure(r, "hardware parameters refused") }
        snd_pcm_hw_params_get_period_size(hw, &period, &dir)
        snd_pcm_hw_params_get_buffer_size(hw, &bufferSize)
        canPause = snd_pcm_hw_params_can_pause(hw) != 0
        self.periodFrames = Int(period)

        var sw: OpaquePointer?
        snd_pcm_sw_params_malloc(&sw)
        defer { snd_pcm_sw_params_free(sw) }
        snd_pcm_sw_params_current(handle, sw)
        snd_pcm_sw_params_set_start_threshold(handle, sw, bufferSize - period)
        snd_pcm_sw_params_set_avail_min(handle, sw, period)
        ALSAPosition.enableStamps(handle, sw)
        r = snd_pcm_sw_params(handle, sw)
        guard r >= 0 else { throw failure(r, "software parameters refused") }
        r = snd_pcm_prepare(handle)
        guard r >= 0 else { throw failure(r, "prepare") }
        return actual
    }

    public func close() {
        if let pcm { snd_pcm_close(pcm) }
        pcm = nil
        if let config { snd_config_delete(config) }
        config = nil
    }

    public func write(_ buffer: UnsafeRawPointer, frames: Int) -> SinkWriteResult {
        guard let pcm else { return .deviceLost(0) }
        let n = snd_pcm_writei(pcm, buffer, snd_pcm_uframes_t(frames))
        if n >= 0 { return .written(Int(n)) }
        let code = Int32(n)
        switch -code {
        case EAGAIN:
            return .written(0)
        case EPIPE, ESTRPIPE, EINTR:
            return snd_pcm_recover(pcm, code, 1) >= 0 ? .recovered : .failed(code)
        case ENODEV, EBADFD, EIO, ENXIO:
            return .deviceLost(code)
        default:
            return .failed(code)
        }
    }

    public func pause(_ on: Bool) -> Bool {
        guard let pcm, canPause else { return false }
        if snd_pcm_pause(pcm, on ? 1 : 0) >= 0 { return true }
        if !on { snd_pcm_prepare(pcm) }
        return false
    }

    public func drop() {
        guard let pcm else { return }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
    }

    public func drain() {
        guard let pcm else { return }
        snd_pcm_drain(pcm)
        snd_pcm_prepare(pcm)
    }

    public var delayFrames: Int {
        guard let pcm else { return 0 }
        var delay = snd_pcm_sframes_t(0)
        return snd_pcm_delay(pcm, &delay) >= 0 ? max(0, Int(delay)) : 0
    }

    public var delayReading: (frames: Int, nanoseconds: UInt64) {
        guard let reading = stampedPosition() else { return (0, MonotonicClock.nanoseconds()) }
        return (reading.frames, reading.nanoseconds)
    }

    /// The device's position with its stamp (`ALSAPosition`); nil when closed or unreadable. Output thread only.
    public func stampedPosition() -> ALSAPosition.Reading? {
        guard let pcm else { return nil }
        return position.read(pcm)
    }

    private func failure(_ code: Int32, _ what: String) -> SinkOpenError {
        SinkOpenError(device: device, reason: "\(what): \(String(cString: snd_strerror(code)))", code: code)
    }

    private static func alsaFormat(_ encoding: SampleEncoding) -> snd_pcm_format_t {
        switch encoding {
        case .s16: SND_PCM_FORMAT_S16_LE
        case .s32: SND_PCM_FORMAT_S32_LE
        case .f32: SND_PCM_FORMAT_FLOAT_LE
        }
    }

    private static func loadConfig(_ text: String, device: String) throws(SinkOpenError) -> OpaquePointer? {
        var top: OpaquePointer?
        var input: OpaquePointer?
        guard snd_config_top(&top) >= 0 else { throw SinkOpenError(device: device, reason: "config: out of memory") }
        let r = text.withCString { snd_input_buffer_open(&input, $0, strlen($0)) }
        guard r >= 0 else { snd_config_delete(top); throw SinkOpenError(device: device, reason: "config input") }
        let loaded = snd_config_load(top, input)
        snd_input_close(input)
        guard loaded >= 0 else {
            snd_config_delete(top)
            throw SinkOpenError(device: device, reason: "config text: \(String(cString: snd_strerror(loaded)))")
        }
        return top
    }
}
