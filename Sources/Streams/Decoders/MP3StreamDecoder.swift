import AudioCore
import CMPG123
import Decoders

/// MP3 from a stream through libmpg123's feed interface (the library the file decoder uses, with the same 32-bit float
/// output, so a stream decodes to the samples its file would): bytes are fed as the decoder asks for them, and
/// libmpg123 resynchronises on its own after a damaged frame or a mid-frame start.
///
/// Threads: one stream thread.
final class MP3StreamDecoder: StreamDecoder {
    private(set) var format: AudioFormat
    private let handle: OpaquePointer
    private let source: any StreamByteSource
    private let input = ScratchBytes(count: 8192)
    private var ended = false
    /// Bytes fed since the last decoded frame: a stream of anything but MPEG audio is given up after `maxBytesWithoutAudio`.
    private var fedWithoutAudio = 0
    static let maxBytesWithoutAudio = 1 << 20

    init(source: any StreamByteSource) throws(StreamError) {
        guard let handle = MP3Library.newHandle() else { throw .content("cannot allocate an mpg123 decoder") }
        fm_mpg123_set(handle, MPG123_FLAGS, Int(MPG123_QUIET.rawValue | MPG123_FORCE_FLOAT.rawValue))
        fm_mpg123_set(handle, MPG123_RESYNC_LIMIT, 256 * 1024)
        mpg123_format_none(handle)
        for rate in MP3Layout.sampleRates {
            mpg123_format(handle, rate, Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue),
                          Int32(MPG123_ENC_FLOAT_32.rawValue))
        }
        guard mpg123_open_feed(handle) == MPG123_OK.rawValue else {
            mpg123_delete(handle)
            throw .content("mpg123 cannot open a stream")
        }
        self.handle = handle
        self.source = source
        format = AudioFormat(sampleRate: 44_100, channels: 2, encoding: .f32)
        // Feed until the first frame tells the format (before it, the placeholder above is never used).
        var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
        while true {
            var done = 0
            let result = mpg123_read(handle, nil, 0, &done)
            if result == MPG123_NEW_FORMAT.rawValue {
                mpg123_getformat(handle, &rate, &channels, &encoding)
                break
            }
            if result == MPG123_NEED_MORE.rawValue {
                guard try feed() else { throw .content("the stream ended before any MPEG audio frame") }
                continue
            }
            if result == MPG123_ERR.rawValue || result == MPG123_DONE.rawValue {
                throw .content("no MPEG audio frame could be decoded (\(Self.message(handle)))")
            }
        }
        guard rate > 0, (1...2).contains(channels) else { throw .content("MPEG audio in an unusable format") }
        format = AudioFormat(sampleRate: rate, channels: Int(channels), encoding: .f32)
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    /// Feeds the next bytes; false at the end of the stream.
    private func feed() throws(StreamError) -> Bool {
        let count = try source.read(into: input.bytes)
        guard count > 0 else { return false }
        fedWithoutAudio += count
        guard fedWithoutAudio <= Self.maxBytesWithoutAudio else {
            throw .content("1 MiB of the stream held no MPEG audio frame")
        }
        _ = mpg123_feed(handle, input.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
        return true
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        let bytesPerFrame = format.bytesPerFrame
        let wanted = buffer.count / bytesPerFrame
        guard wanted > 0, let base = buffer.baseAddress, !ended else { return 0 }
        while true {
            var done = 0
            let result = mpg123_read(handle, base, wanted * bytesPerFrame, &done)
            let frames = done / bytesPerFrame
            if frames > 0 { fedWithoutAudio = 0 }
            switch result {
            case MPG123_OK.rawValue:
                if frames > 0 { return frames }
            case MPG123_NEED_MORE.rawValue:
                if frames > 0 { return frames }
                guard try feed() else {
                    ended = true
                    return 0
                }
            case MPG123_NEW_FORMAT.rawValue:
                var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
                mpg123_getformat(handle, &rate, &channels, &encoding)
                guard rate == format.sampleRate, Int(channels) == format.channels else {
                    throw .content("the stream changed its format to \(rate) Hz, \(channels) channels")
                }
                if frames > 0 { return frames }
            case MPG123_DONE.rawValue:
                ended = true
                return frames
            default:
                if frames > 0 { return frames }
                throw .content("MPEG audio error: \(Self.message(handle))")
            }
        }
    }

    static func message(_ handle: OpaquePointer) -> String {
        guard let text = mpg123_strerror(handle) else { return "unknown error" }
        return String(cString: text)
    }
}
