import AudioCore
import COpusFile
import FermataCore

/// Decodes Opus in Ogg (`.opus`) with libopusfile into interleaved `.f32` PCM at 48 kHz, channels in WAV order.
///
/// The decoder thread only: create, read, seek and release it there.
///
/// Gapless: libopusfile applies RFC 7845 — the pre-skip at the start, the end trim from the last page's granule
/// position, and the header's output gain — so `read` gives exactly the samples the encoder was given.
///
/// Seeking lands on the exact sample. Opus's decoder state takes a while to settle after a jump (libopusfile's own
/// 80 ms pre-roll leaves errors near 0.05 at the target, decaying over about a quarter of a second), so a seek starts
/// `seekPreroll` earlier and drops those samples: what follows matches a straight decode to below 16-bit resolution.
///
/// Chained streams play through while the channel count stays the same (the rate is always 48 kHz); at a link with
/// another channel count the stream ends.
public final class OpusDecoder: AudioDecoder {
    public let format: AudioFormat
    public let totalFrames: Int64?
    public let path: String

    private let file: OpaquePointer
    /// Decodes mono and stereo packets with a plain libopus decoder (see its doc comment for why).
    private let packets = OpusPacketDecoder()
    private let channelMap: [Int]
    private var position: Int64 = 0
    private var skip: Int64 = 0
    /// Decoded frames in `scratch` not handed out yet, from `heldStart` (in libopusfile's channel order).
    private var held = 0
    private var heldStart = 0
    private var ended = false
    /// One Opus packet's worth of samples at most (120 ms at 48 kHz) for every channel.
    private var scratch = [Float](repeating: 0, count: 5760 * 8)

    /// Samples decoded and dropped before a seek target (0.5 s at 48 kHz).
    static let seekPreroll: Int64 = 24_000

    public init(path: String) throws(DecoderError) {
        let probe = try FileProbe(path: path)
        guard probe.isOggOpus else { throw .unsupported(path: path, reason: "not an Ogg Opus stream") }
        var error: Int32 = 0
        guard let file = RawPath.withCString(path, { op_open_file($0, &error) }) else {
            throw Self.error(error, path: path)
        }
        let channels = Int(op_channel_count(file, -1))
        guard AudioFormat.channelRange.contains(channels) else {
            op_free(file)
            throw .unsupported(path: path, reason: "\(channels) channels (1–8 supported)")
        }
        self.file = file
        self.path = path
        packets.file = file
        op_set_decode_callback(file, opusPacketCallback, Unmanaged.passUnretained(packets).toOpaque())
        format = AudioFormat(sampleRate: 48_000, channels: channels, encoding: .f32)
        channelMap = VorbisDecoder.wavOrder(channels: channels)
        totalFrames = Self.playableFrames(file, channels: channels)
    }

    deinit {
        op_free(file)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let channels = format.channels
        var wanted = buffer.count / format.bytesPerFrame
        if let totalFrames { wanted = Int(min(Int64(wanted), max(0, totalFrames - position))) }
        guard wanted > 0, let base = buffer.baseAddress?.assumingMemoryBound(to: Float.self) else { return 0 }
        var produced = 0
        var holes = 0
        while produced < wanted {
            if held > 0 {
                let frames = min(held, wanted - produced)
                let out = base + produced * channels
                scratch.withUnsafeBufferPointer { source in
                    for index in 0..<frames {
                        let from = (heldStart + index) * channels
                        for channel in 0..<channels { out[index * channels + channel] = source[from + channelMap[channel]] }
                    }
                }
                heldStart += frames
                held -= frames
                produced += frames
                continue
            }
            guard !ended else { break }
            var link: Int32 = 0
            let got = scratch.withUnsafeMutableBufferPointer {
                op_read_float(file, $0.baseAddress, Int32($0.count), &link)
            }
            if got == OP_HOLE {
                holes += 1
                if holes > 10_000 { throw .corrupt(path: path, reason: "no audio after 10000 gaps") }
                continue
            }
            if got < 0 {
                if produced > 0 { break }
                throw Self.error(got, path: path)
            }
            if got == 0 || Int(op_channel_count(file, link)) != channels { ended = true; break }
            // Samples before a seek target are dropped; the rest wait in `scratch` until asked for.
            let dropped = Int(min(Int64(got), skip))
            skip -= Int64(dropped)
            heldStart = dropped
            held = Int(got) - dropped
        }
        position += Int64(produced)
        return produced
    }

    public func seek(toFrame frame: Int64) throws(DecoderError) {
        var target = max(0, frame)
        if let totalFrames { target = min(target, totalFrames) }
        let from = max(0, target - Self.seekPreroll)
        packets.reset()
        let result = op_pcm_seek(file, from)
        guard result == 0 else { throw .seekFailed(path: path, reason: "opusfile error \(result) seeking to \(target)") }
        skip = target - from
        held = 0
        position = target
        ended = false
    }

    /// Samples in the leading run of links with the first link's channel count; nil when unseekable.
    static func playableFrames(_ file: OpaquePointer, channels: Int) -> Int64? {
        guard op_seekable(file) != 0 else { return nil }
        var total: Int64 = 0
        for link in 0..<op_link_count(file) {
            guard Int(op_channel_count(file, link)) == channels else { break }
            let frames = op_pcm_total(file, link)
            guard frames >= 0 else { return nil }
            total += frames
        }
        return total
    }

    static func error(_ code: Int32, path: String) -> DecoderError {
        switch code {
        case OP_EREAD: .unreadable(path: path, reason: "read error")
        case OP_EFAULT: .unreadable(path: path, reason: "cannot open: \(PosixFile.errnoString())")
        case OP_ENOTFORMAT: .unsupported(path: path, reason: "not an Ogg Opus stream")
        case OP_EVERSION: .unsupported(path: path, reason: "unsupported Opus version")
        case OP_EBADHEADER, OP_ENOTAUDIO: .corrupt(path: path, reason: "invalid Opus headers")
        case OP_EBADLINK: .corrupt(path: path, reason: "invalid link in the chained stream")
        case OP_EBADTIMESTAMP: .corrupt(path: path, reason: "invalid granule positions")
        default: .corrupt(path: path, reason: "opusfile error \(code)")
        }
    }
}
