import AudioCore
import CVorbis
import Decoders

/// Ogg Vorbis from a stream through libvorbisfile's callbacks with no seek function (its unseekable mode, which reads
/// chained streams link by link): the library the file decoder uses, with its float output and channel order. A new
/// link's comments (Icecast starts one per song) give the title; a link in another format ends the stream.
///
/// Threads: one stream thread.
final class VorbisStreamDecoder: StreamDecoder {
    let format: AudioFormat
    private let file: UnsafeMutablePointer<OggVorbis_File>
    private let input: CallbackSource
    private let channelMap: [Int]
    private let onTitle: (String) -> Void
    private var link: Int32 = -1
    private var ended = false

    init(source: any StreamByteSource, onTitle: @escaping (String) -> Void) throws(StreamError) {
        let input = CallbackSource(source)
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        let callbacks = ov_callbacks(read_func: { buffer, size, count, context in
            let input = Unmanaged<CallbackSource>.fromOpaque(context!).takeUnretainedValue()
            let (bytes, overflow) = size.multipliedReportingOverflow(by: count)
            guard !overflow, size > 0 else { return 0 }
            return input.read(buffer, bytes) / size
        }, seek_func: nil, close_func: nil, tell_func: nil)
        let result = ov_open_callbacks(Unmanaged.passUnretained(input).toOpaque(), file, nil, 0, callbacks)
        guard result == 0 else {
            file.deallocate()
            throw input.failure(.content("not an Ogg Vorbis stream libvorbisfile can read (error \(result))"))
        }
        guard let info = ov_info(file, -1), AudioFormat.channelRange.contains(Int(info.pointee.channels)),
              AudioFormat.sampleRateRange.contains(info.pointee.rate) else {
            ov_clear(file)
            file.deallocate()
            throw .content("Ogg Vorbis in an unusable format")
        }
        format = AudioFormat(sampleRate: info.pointee.rate, channels: Int(info.pointee.channels), encoding: .f32)
        channelMap = VorbisDecoder.wavOrder(channels: format.channels)
        self.file = file
        self.input = input
        self.onTitle = onTitle
    }

    deinit {
        ov_clear(file)
        file.deallocate()
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        let channels = format.channels
        let wanted = min(buffer.count / format.bytesPerFrame, 4096)
        guard wanted > 0, let base = buffer.baseAddress, !ended else { return 0 }
        var holes = 0
        while true {
            var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            var current: Int32 = 0
            let got = ov_read_float(file, &pcm, Int32(wanted), &current)
            if got == OV_HOLE {
                holes += 1
                if holes > 1000 { throw input.failure(.content("no Vorbis audio after 1000 gaps")) }
                continue
            }
            if got < 0 { throw input.failure(.content("Vorbis decoding failed (error \(got))")) }
            if got == 0 {
                if let error = input.error { throw error }
                ended = true
                return 0
            }
            if current != link {
                link = current
                if let info = ov_info(file, current),
                   info.pointee.rate != format.sampleRate || Int(info.pointee.channels) != channels {
                    throw .content("the stream changed its format to \(info.pointee.rate) Hz, \(info.pointee.channels) channels")
                }
                if let title = OggTitle.vorbis(ov_comment(file, current)) { onTitle(title) }
            }
            guard let pcm else { throw .content("libvorbisfile returned no samples") }
            let frames = Int(got)
            for channel in 0..<channels {
                guard let samples = pcm[channelMap[channel]] else { throw .content("libvorbisfile returned no samples") }
                for index in 0..<frames {
                    base.storeBytes(of: samples[index], toByteOffset: (index * channels + channel) * 4, as: Float.self)
                }
            }
            return frames
        }
    }
}

/// The title a link's comments give: "ARTIST - TITLE", or TITLE alone (as MPD shows an Ogg stream's song).
enum OggTitle {
    static func vorbis(_ comment: UnsafeMutablePointer<vorbis_comment>?) -> String? {
        guard let comment else { return nil }
        var fields: [(String, String)] = []
        let count = Int(comment.pointee.comments)
        for index in 0..<min(count, 256) {
            guard let text = comment.pointee.user_comments?[index] else { continue }
            let length = Int(comment.pointee.comment_lengths?[index] ?? 0)
            guard length > 0 else { continue }
            let bytes = UnsafeRawBufferPointer(start: text, count: min(length, 4096))
            let field = NetworkText.decode(bytes)
            guard let equals = field.firstIndex(of: "=") else { continue }
            fields.append((field[..<equals].uppercased(), String(field[field.index(after: equals)...])))
        }
        return title(fields)
    }

    static func title(_ fields: [(String, String)]) -> String? {
        let title = fields.first { $0.0 == "TITLE" }.map { NetworkText.clean($0.1) }
        let artist = fields.first { $0.0 == "ARTIST" }.map { NetworkText.clean($0.1) }
        switch (artist, title) {
        case let (artist?, title?) where !artist.isEmpty && !title.isEmpty: return "\(artist) - \(title)"
        case let (_, title?) where !title.isEmpty: return title
        default: return nil
        }
    }
}
