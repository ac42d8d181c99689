import AudioCore

/// A decoder of a network stream's bytes as they arrive: it reads its `StreamByteSource` (which waits for the
/// network) and hands out interleaved PCM in `format`. Unlike a file's decoder it cannot seek, and it knows its format
/// only once the first frames have been decoded (`init` reads that far).
///
/// Threads: created, read and released on one stream thread.
protocol StreamDecoder: AnyObject {
    /// The format of the frames `decode` produces; constant (a stream that changes it ends with `.content`).
    var format: AudioFormat { get }
    /// Fills `buffer` with whole frames and returns how many; 0 only at the end of the stream.
    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int
}

/// The decoders by format, opened on a source.
enum StreamDecoders {
    /// Opens the decoder for `format` on `source`; `onTitle` hears titles carried inside the stream (Ogg comments).
    static func open(_ format: StreamFormat, source: any StreamByteSource,
                     onTitle: @escaping (String) -> Void) throws(StreamError) -> any StreamDecoder {
        switch format {
        case .mp3: try MP3StreamDecoder(source: source)
        case .aac: try AACStreamDecoder(source: source)
        case .oggVorbis: try VorbisStreamDecoder(source: source, onTitle: onTitle)
        case .oggOpus: try OpusStreamDecoder(source: source, onTitle: onTitle)
        case .flac, .oggFLAC: try FLACStreamDecoder(source: source, ogg: format == .oggFLAC)
        case .playlist: throw .content("a playlist inside a playlist's stream")
        }
    }
}

/// What a C library's read callback needs: the source, and the first error it met (the library only sees "end").
///
/// Threads: one stream thread (the library calls back on it).
final class CallbackSource {
    let source: any StreamByteSource
    var error: StreamError?

    init(_ source: any StreamByteSource) { self.source = source }

    /// Reads into `buffer`: the count, or 0 at the end or after an error (kept in `error`).
    func read(_ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
        guard let buffer, count > 0, error == nil else { return 0 }
        do throws(StreamError) {
            return try source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: count))
        } catch {
            self.error = error
            return 0
        }
    }

    /// The source's error when there was one, else `fallback`.
    func failure(_ fallback: StreamError) -> StreamError { error ?? fallback }
}
