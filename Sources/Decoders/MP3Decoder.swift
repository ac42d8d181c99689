import AudioCore
import CMPG123
import FermataCore
import Glibc

/// Decodes MPEG-1/2/2.5 Layer III (and I/II) with libmpg123 into interleaved `.f32` PCM.
///
/// The decoder thread only: create, read, seek and release it there.
///
/// Gapless: libmpg123 trims the encoder delay and padding the LAME/Xing/Info header states, and its own decoder
/// delay (529 samples), so `read` gives exactly the source's samples. Seeking is sample-accurate and lands on the
/// samples a straight decode gives (libmpg123 decodes the frames before the target to refill the bit reservoir;
/// `MP3DecoderTests` compare a seek with a straight decode). A stream whose sample rate or channel count changes
/// part-way ends at the change: the first run plays, the rest does not.
public final class MP3Decoder: AudioDecoder {
    public let format: AudioFormat
    public let totalFrames: Int64?
    public let path: String

    private let handle: OpaquePointer
    private var position: Int64 = 0
    private var ended = false

    /// Bytes of junk libmpg123 may skip to find the next frame before it gives up on the file.
    static let resyncLimit = 256 * 1024

    /// Opens `path`. Not MPEG audio → `.unsupported`; no decodable frame → `.corrupt`; cannot read → `.unreadable`.
    public init(path: String) throws(DecoderError) {
        let layout = try MP3Layout.read(path: path)
        guard let handle = MP3Library.newHandle() else {
            throw .unreadable(path: path, reason: "cannot allocate an mpg123 decoder")
        }
        self.handle = handle
        self.path = path
        fm_mpg123_set(handle, MPG123_FLAGS, Int(MPG123_GAPLESS.rawValue | MPG123_QUIET.rawValue | MPG123_FORCE_FLOAT.rawValue))
        fm_mpg123_set(handle, MPG123_RESYNC_LIMIT, Self.resyncLimit)
        // Frame index for sample-accurate seeks in a file of any length (grows as needed).
        fm_mpg123_set(handle, MPG123_INDEX_SIZE, -1000)
        mpg123_format_none(handle)
        for rate in MP3Layout.sampleRates {
            mpg123_format(handle, rate, Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue), Int32(MPG123_ENC_FLOAT_32.rawValue))
        }
        let opened = RawPath.withCString(path) { mpg123_open(handle, $0) }
        guard opened == MPG123_OK.rawValue else {
            let reason = Self.message(handle)
            mpg123_delete(handle)
            throw .unreadable(path: path, reason: "mpg123 cannot open it: \(reason)")
        }
        var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
        guard mpg123_getformat(handle, &rate, &channels, &encoding) == MPG123_OK.rawValue,
              rate > 0, (1...2).contains(channels) else {
            let reason = Self.message(handle)
            mpg123_close(handle)
            mpg123_delete(handle)
            throw .corrupt(path: path, reason: "no MPEG audio frame could be decoded (\(reason))")
        }
        // The length is exact when the Xing/Info header counts the frames; otherwise libmpg123 counts them.
        if !layout.hasFrameCount { mpg123_scan(handle) }
        let length = Int64(mpg123_length(handle))
        totalFrames = length > 0 ? length : nil
        format = AudioFormat(sampleRate: rate, channels: Int(channels), encoding: .f32)
    }

    deinit {
        mpg123_close(handle)
        mpg123_delete(handle)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let bytesPerFrame = format.bytesPerFrame
        var wanted = buffer.count / bytesPerFrame
        if let totalFrames { wanted = Int(min(Int64(wanted), max(0, totalFrames - position))) }
        guard wanted > 0, let base = buffer.baseAddress, !ended else { return 0 }
        var produced = 0
        var errors = 0
        while produced < wanted {
            var done = 0
            let result = mpg123_read(handle, base + produced * bytesPerFrame, (wanted - produced) * bytesPerFrame, &done)
            produced += done / bytesPerFrame
            switch result {
            case MPG123_OK.rawValue:
                continue
            case MPG123_DONE.rawValue:
                ended = true
            case MPG123_NEW_FORMAT.rawValue:
                var rate = 0, channels: Int32 = 0, encoding: Int32 = 0
                mpg123_getformat(handle, &rate, &channels, &encoding)
                if rate == format.sampleRate && Int(channels) == format.channels { continue }
                ended = true
            default:
                // A damaged frame libmpg123 could not skip on its own: give what came, fail if nothing did.
                errors += 1
                if produced > 0 && errors < 8 { continue }
                if produced > 0 { ended = true; break }
                throw .corrupt(path: path, reason: "MPEG audio error at frame \(position): \(Self.message(handle))")
            }
            break
        }
        position += Int64(produced)
        return produced
    }

    public func seek(toFrame frame: Int64) throws(DecoderError) {
        var target = max(0, frame)
        if let totalFrames { target = min(target, totalFrames) }
        let landed = mpg123_seek(handle, off_t(target), SEEK_SET)
        guard landed >= 0 else {
            throw .seekFailed(path: path, reason: "mpg123 cannot seek to frame \(target): \(Self.message(handle))")
        }
        position = Int64(landed)
        ended = false
    }

    static func message(_ handle: OpaquePointer) -> String {
        guard let text = mpg123_strerror(handle) else { return "unknown error" }
        return String(cString: text)
    }
}

/// libmpg123's one-time set-up, done before the first handle on any thread.
///
/// Stateless apart from the library's own global tables; callable from any thread.
package enum MP3Library {
    private static let initialised: Bool = { mpg123_init() == MPG123_OK.rawValue }()

    package static func newHandle() -> OpaquePointer? {
        guard initialised else { return nil }
        var error: Int32 = 0
        return mpg123_new(nil, &error)
    }
}
