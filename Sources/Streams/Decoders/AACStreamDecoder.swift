import AudioCore
import CAVShim
import Decoders

/// AAC in ADTS frames from a stream through FFmpeg's ADTS demuxer and AAC decoder (the ones the file decoder uses,
/// loaded at run time: without FFmpeg an AAC station is refused, naming the packages), reading through FFmpeg's
/// custom I/O. Each decoded frame is handed out whole, interleaved.
///
/// Threads: one stream thread.
final class AACStreamDecoder: StreamDecoder {
    let format: AudioFormat
    private let handle: OpaquePointer
    private let input: CallbackSource
    private var pending: UnsafeRawPointer?
    private var pendingFrames = 0
    private var ended = false
    private var errorText = [CChar](repeating: 0, count: 256)

    init(source: any StreamByteSource) throws(StreamError) {
        let (available, why) = MP4Decoder.availability
        guard available else {
            throw .content("AAC streams need FFmpeg (\(why); install \(MP4Decoder.packages))")
        }
        // From the first real frame (a listener joins mid-frame): false sync words before it are not fed to FFmpeg.
        let input = CallbackSource(try ADTSAligner.aligned(source))
        var info = fm_av_info()
        var text = [CChar](repeating: 0, count: 256)
        guard let handle = fm_av_open_stream({ context, buffer, size in
            let input = Unmanaged<CallbackSource>.fromOpaque(context!).takeUnretainedValue()
            return Int32(input.read(buffer, Int(max(0, size))))
        }, Unmanaged.passUnretained(input).toOpaque(), MP4Decoder.callDeadline, &info, &text, text.count) else {
            throw input.failure(.content("not an AAC stream FFmpeg can read: \(MP4Decoder.text(text))"))
        }
        self.handle = handle
        self.input = input
        // The first frame: HE-AAC's real output rate shows only there.
        var samples: UnsafeRawPointer?
        var pts: Int64 = 0
        let first = fm_av_next(handle, &samples, &pts, &text, text.count)
        let rate = Int(fm_av_sample_rate(handle))
        let encoding: SampleEncoding = info.sample == Int32(FM_AV_S16.rawValue) ? .s16
            : info.sample == Int32(FM_AV_S32.rawValue) ? .s32 : .f32
        format = AudioFormat(sampleRate: AudioFormat.sampleRateRange.contains(rate) ? rate : 44_100,
                             channels: Int(info.channels), encoding: encoding,
                             validBits: encoding == .f32 ? nil : Int(info.bits))
        guard first > 0, let samples, AudioFormat.sampleRateRange.contains(rate) else {
            throw input.failure(.content(first < 0 ? "no decodable AAC: \(MP4Decoder.text(text))" : "no AAC audio"))
        }
        pending = samples
        pendingFrames = Int(first)
    }

    deinit { fm_av_close(handle) }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        let bytesPerFrame = format.bytesPerFrame
        let wanted = buffer.count / bytesPerFrame
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        while pendingFrames == 0 {
            guard !ended else { return 0 }
            var samples: UnsafeRawPointer?
            var pts: Int64 = 0
            let count = fm_av_next(handle, &samples, &pts, &errorText, errorText.count)
            if count == 0 {
                if let error = input.error { throw error }
                ended = true
                return 0
            }
            guard count > 0, let samples else {
                throw input.failure(.content("AAC decoding failed: \(MP4Decoder.text(errorText))"))
            }
            guard Int(fm_av_sample_rate(handle)) == format.sampleRate else {
                throw .content("the stream changed its rate to \(fm_av_sample_rate(handle)) Hz")
            }
            pending = samples
            pendingFrames = Int(count)
        }
        let frames = min(wanted, pendingFrames)
        base.copyMemory(from: pending!, byteCount: frames * bytesPerFrame)
        pending = pending! + frames * bytesPerFrame
        pendingFrames -= frames
        return frames
    }
}
