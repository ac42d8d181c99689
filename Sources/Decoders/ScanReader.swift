import CFLAC
import Glibc

/// What a library scan learns from one file: its tags, a fingerprint of its audio (`AudioIdentity`), and the hash and
/// size of its embedded cover art (`PictureHash`), which is never held in memory whole.
public struct ScannedFile: Sendable {
    public var tags: TrackTags
    public var fingerprint: String
    public var pictureHash: String?
    public var pictureBytes: Int?
}

/// Reads files for a library scan with as few system calls as possible, the scan being timed against MPD's.
///
/// A plain FLAC file (the common case) is opened once and its head read with one `pread`; libFLAC's stream decoder
/// parses its metadata from that buffer (STREAMINFO and VORBIS_COMMENT through the metadata callback; PICTURE blocks
/// are skipped by libFLAC and only located, to be hashed from the same descriptor). Everything else (FLAC behind
/// ID3v2 tags, Ogg Vorbis, WAV, anything unrecognised) goes through `TagReader`, which chooses by content, so the
/// results and errors are the same as `TagReader.read` plus `AudioIdentity` and `PictureHash`.
///
/// Not thread-safe: one instance per scanning thread (it reuses one libFLAC decoder and one buffer).
public final class ScanReader {
    private let source = FLACScanSource()
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>?
    /// What one file may cost (`ReadBudget.scan` unless a test sets a smaller one).
    private let budget: ReadBudget

    public init(budget: ReadBudget = .scan) {
        decoder = FLAC__stream_decoder_new()
        self.budget = budget
    }

    deinit {
        if let decoder { FLAC__stream_decoder_delete(decoder) }
    }

    /// Reads `path`. Same errors as `TagReader.read` (unreadable, unsupported, corrupt, "empty file").
    /// `size`: the file's size when the caller has just `stat`ed it (saves a system call), else nil.
    /// A file over its `ReadBudget` fails with `.corrupt` ("over its scan budget"), a scan issue like any other.
    public func read(path: String, size knownSize: Int64? = nil) throws(DecoderError) -> ScannedFile {
        try budget.armed { () throws(DecoderError) -> ScannedFile in try readWithinBudget(path: path, size: knownSize) }
    }

    private func readWithinBudget(path: String, size knownSize: Int64?) throws(DecoderError) -> ScannedFile {
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        let size: Int64
        if let knownSize { size = knownSize } else { size = try PosixFile.size(fd, path: path) }
        guard size > 0 else { throw .corrupt(path: path, reason: "empty file") }
        try source.load(fd: fd, size: size, path: path)
        guard source.startsWithFLAC, let decoder else { return try generic(path: path) }
        var tags = try source.decodeMetadata(decoder, path: path)
        var picture: (hash: String, bytes: Int)?
        if let block = try source.firstPicture(path: path) {
            picture = PictureHash.flacPicture(fd: fd, body: block.body, length: block.length, path: path)
            tags.embeddedPictureBytes = picture?.bytes
        }
        let fingerprint: String
        if let md5 = tags.audioMD5 {
            let frames = tags.duration.map { Int64(($0 * Double(tags.sampleRate)).rounded()) } ?? -1
            fingerprint = "flac-md5:\(md5):\(frames)"
        } else {
            fingerprint = try AudioIdentity.fingerprint(path: path, tags: tags)
        }
        return ScannedFile(tags: tags, fingerprint: fingerprint, pictureHash: picture?.hash,
                           pictureBytes: picture?.bytes)
    }

    /// The content-sniffing path for everything but plain FLAC.
    private func generic(path: String) throws(DecoderError) -> ScannedFile {
        let tags = try TagReader.read(path: path)
        let fingerprint = try AudioIdentity.fingerprint(path: path, tags: tags)
        let picture = tags.embeddedPictureBytes == nil ? nil
            : PictureHash.hash(path: path, codec: tags.codec, location: tags.pictureLocation)
        return ScannedFile(tags: tags, fingerprint: fingerprint, pictureHash: picture?.hash,
                           pictureBytes: picture?.bytes)
    }
}
