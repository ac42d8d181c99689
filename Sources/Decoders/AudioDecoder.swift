import AudioCore

/// One open audio file, producing interleaved PCM in `format`.
///
/// Lives on the decoder thread: created, read, seeked and released there only. Implementations own their C handles
/// and close them in `deinit`. Any failure is a `DecoderError`; no method crashes or hangs on bad input.
public protocol AudioDecoder: AnyObject {
    /// The format of the frames `read` produces (constant for the life of the decoder).
    var format: AudioFormat { get }
    /// Exact length in frames when the container states it, else `nil`.
    var totalFrames: Int64? { get }
    /// Fills `buffer` with whole frames (at most `buffer.count / format.bytesPerFrame`) and returns how many.
    /// Returns 0 only at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int
    /// Positions the stream so the next `read` starts at `frame` (clamped to the stream's length).
    func seek(toFrame frame: Int64) throws(DecoderError)
}

/// Why a file could not be decoded. Every case carries the path so one log line says everything.
public enum DecoderError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened or read (missing, permission, I/O error).
    case unreadable(path: String, reason: String)
    /// No decoder recognises the content (a text file named `.flac`, an unknown codec).
    case unsupported(path: String, reason: String)
    /// The content starts as a known format but is damaged (bad header, corrupt frames, truncated data).
    case corrupt(path: String, reason: String)
    /// A seek outside the stream or one the stream cannot perform.
    case seekFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason): "cannot read \(path): \(reason)"
        case let .unsupported(path, reason): "unsupported file \(path): \(reason)"
        case let .corrupt(path, reason): "corrupt file \(path): \(reason)"
        case let .seekFailed(path, reason): "cannot seek in \(path): \(reason)"
        }
    }
}
