import AudioCore
import COpusFile
import Decoders

/// Ogg Opus from a stream through libopusfile's callbacks with no seek function (its unseekable mode, link by link),
/// decoded as the file decoder does (the plain decoder for mono and stereo, float at 48 kHz, the same channel order).
/// A new link's tags give the title; a link with another channel count ends the stream.
///
/// Threads: one stream thread.
final class OpusStreamDecoder: StreamDecoder {
    let format: AudioFormat
    private let file: OpaquePointer
    private let input: CallbackSource
    private let packets = OpusPacketDecoder()
    private let channelMap: [Int]
    private let onTitle: (String) -> Void
    private var link: Int32 = -1
    private var scratch = [Float](repeating: 0, count: 5760 * 8)
    private var held = 0, heldStart = 0
    private var ended = false

    init(source: any StreamByteSource, onTitle: @escaping (String) -> Void) throws(StreamError) {
        let input = CallbackSource(source)
        var callbacks = OpusFileCallbacks(read: { context, buffer, count in
            let input = Unmanaged<CallbackSource>.fromOpaque(context!).takeUnretainedValue()
            return Int32(input.read(buffer, Int(max(0, count))))
        }, seek: nil, tell: nil, close: nil)
        var error: Int32 = 0
        guard let file = op_open_callbacks(Unmanaged.passUnretained(input).toOpaque(), &callbacks, nil, 0, &error) else {
            throw input.failure(.content("not an Ogg Opus stream libopusfile can read (error \(error))"))
        }
        let channels = Int(op_channel_count(file, -1))
        guard AudioFormat.channelRange.contains(channels) else {
            op_free(file)
            throw .content("Ogg Opus with \(channels) channels")
        }
        format = AudioFormat(sampleRate: 48_000, channels: channels, encoding: .f32)
        channelMap = VorbisDecoder.wavOrder(channels: channels)
        self.file = file
        self.input = input
        self.onTitle = onTitle
        packets.file = file
        op_set_decode_callback(file, opusPacketCallback, Unmanaged.passUnretained(packets).toOpaque())
    }

    deinit { op_free(file) }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        let channels = format.channels
        let wanted = buffer.count / format.bytesPerFrame
        guard wanted > 0, let base = buffer.baseAddress?.assumingMemoryBound(to: Float.self) else { return 0 }
        var holes = 0
        while held == 0 {
            guard !ended else { return 0 }
            var current: Int32 = 0
            let got = scratch.withUnsafeMutableBufferPointer { op_read_float(file, $0.baseAddress, Int32($0.count), &current) }
            if got == OP_HOLE {
                holes += 1
                if holes > 1000 { throw input.failure(.content("no Opus audio after 1000 gaps")) }
                continue
            }
            if got < 0 { throw input.failure(.content("Opus decoding failed (error \(got))")) }
            if got == 0 {
                if let error = input.error { throw error }
                ended = true
                return 0
            }
            if current != link {
                link = current
                guard Int(op_channel_count(file, current)) == channels else {
                    throw .content("the stream changed to \(op_channel_count(file, current)) channels")
                }
                if let title = Self.title(op_tags(file, current)) { onTitle(title) }
            }
            held = Int(got)
            heldStart = 0
        }
        let frames = min(held, wanted)
        scratch.withUnsafeBufferPointer { source in
            for index in 0..<frames {
                let from = (heldStart + index) * channels
                for channel in 0..<channels { base[index * channels + channel] = source[from + channelMap[channel]] }
            }
        }
        heldStart += frames
        held -= frames
        return frames
    }

    private static func title(_ tags: UnsafePointer<OpusTags>?) -> String? {
        guard let tags else { return nil }
        var fields: [(String, String)] = []
        for index in 0..<min(Int(tags.pointee.comments), 256) {
            guard let text = tags.pointee.user_comments?[index] else { continue }
            let length = Int(tags.pointee.comment_lengths?[index] ?? 0)
            guard length > 0 else { continue }
            let field = NetworkText.decode(UnsafeRawBufferPointer(start: text, count: min(length, 4096)))
            guard let equals = field.firstIndex(of: "=") else { continue }
            fields.append((field[..<equals].uppercased(), String(field[field.index(after: equals)...])))
        }
        return OggTitle.title(fields)
    }
}
