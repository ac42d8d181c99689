import CFLAC
import Glibc

/// The input side of `ScanReader` for plain FLAC files: the file's first 4 KiB read with one `pread` (enough for the
/// metadata of most files without padding or cover art), served to libFLAC's stream decoder through read callbacks,
/// with further `pread`s only past that window. Also locates the first PICTURE block from the block headers.
///
/// Not thread-safe: owned by one `ScanReader`.
final class FLACScanSource {
    /// Covers STREAMINFO and the comments of most files; more is read only when needed, at most `readAhead` at a
    /// time (libFLAC asks for as much as its buffer holds, which would copy most of a small file).
    static let windowSize = 4 * 1024
    static let readAhead = 16 * 1024

    private var window = [UInt8](repeating: 0, count: windowSize)
    private var windowCount = 0
    private var fd: Int32 = -1
    private var size: Int64 = 0
    private var position: Int64 = 0
    private var path = ""
    // Filled by the decoder callbacks.
    private var tags = TrackTags()
    private var sawStreamInfo = false
    private var decodeError: String?
    private var readError: DecoderError?

    /// Reads the head of the open file `fd`.
    func load(fd: Int32, size: Int64, path: String) throws(DecoderError) {
        self.fd = fd
        self.size = size
        self.path = path
        position = 0
        let wanted = Int(min(Int64(Self.windowSize), size))
        var result: Result<Int, DecoderError> = .success(0)
        window.withUnsafeMutableBytes { raw in
            let head = UnsafeMutableRawBufferPointer(rebasing: raw.prefix(wanted))
            result = Result { () throws(DecoderError) -> Int in try PosixFile.read(fd, into: head, at: 0, path: path) }
        }
        windowCount = try result.get()
    }

    /// `fLaC` at offset 0 (files with ID3v2 tags in front take the generic path).
    var startsWithFLAC: Bool {
        windowCount >= 8 && window[0] == 0x66 && window[1] == 0x4C && window[2] == 0x61 && window[3] == 0x43
    }

    /// Runs libFLAC's stream decoder over the metadata and returns STREAMINFO and the Vorbis comments as tags.
    func decodeMetadata(
        _ decoder: UnsafeMutablePointer<FLAC__StreamDecoder>, path: String
    ) throws(DecoderError) -> TrackTags {
        tags = TrackTags()
        tags.codec = "flac"
        sawStreamInfo = false
        decodeError = nil
        readError = nil
        FLAC__stream_decoder_set_md5_checking(decoder, 0)
        FLAC__stream_decoder_set_metadata_respond(decoder, FLAC__METADATA_TYPE_VORBIS_COMMENT)
        let client = Unmanaged.passUnretained(self).toOpaque()
        let status = FLAC__stream_decoder_init_stream(
            decoder, scanRead, nil, nil, nil, nil, scanWrite, scanMetadata, scanError, client)
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            throw .unreadable(path: path, reason: "libFLAC decoder init status \(status.rawValue)")
        }
        let ok = FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0
        let state = FLAC__stream_decoder_get_state(decoder)
        FLAC__stream_decoder_finish(decoder)
        if let readError { throw readError }
        if let decodeError { throw .corrupt(path: path, reason: decodeError) }
        guard ok, state != FLAC__STREAM_DECODER_ABORTED else {
            throw .corrupt(path: path, reason: "bad FLAC metadata (libFLAC state \(state.rawValue))")
        }
        guard sawStreamInfo else { throw .corrupt(path: path, reason: "no STREAMINFO block") }
        return tags
    }

    /// Walks the metadata block headers: the body of the first PICTURE block, if any. Throws `.corrupt` when the
    /// blocks run past the end of the file (libFLAC reports a file cut inside its metadata as a plain end of stream).
    func firstPicture(path: String) throws(DecoderError) -> (body: Int64, length: Int64)? {
        var offset: Int64 = 4
        var header = [UInt8](repeating: 0, count: 4)
        var picture: (body: Int64, length: Int64)?
        while true {
            if offset + 4 <= Int64(windowCount) {
                for index in 0..<4 { header[index] = window[Int(offset) + index] }
            } else {
                let got = offset + 4 > size ? 0 : try PosixFile.read(fd, into: &header, at: offset, path: path)
                guard got == 4 else {
                    throw .corrupt(path: path, reason: "the FLAC metadata runs past the end of the file")
                }
            }
            let length = Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            if header[0] & 0x7F == 6, picture == nil { picture = (offset + 4, length) }
            offset += 4 + length
            guard offset <= size else {
                throw .corrupt(path: path, reason: "the FLAC metadata runs past the end of the file")
            }
            if header[0] & 0x80 != 0 { return picture }
        }
    }

    // MARK: Decoder callbacks

    fileprivate func read(into buffer: UnsafeMutablePointer<FLAC__byte>, count: Int) -> Int {
        guard position < size else { return 0 }
        if position < Int64(windowCount) {
            let take = min(count, windowCount - Int(position))
            window.withUnsafeBytes { raw in
                UnsafeMutableRawPointer(buffer).copyMemory(from: raw.baseAddress! + Int(position), byteCount: take)
            }
            position += Int64(take)
            return take
        }
        let raw = UnsafeMutableRawBufferPointer(start: buffer, count: min(count, Self.readAhead))
        do throws(DecoderError) {
            let got = try PosixFile.read(fd, into: raw, at: position, path: path)
            position += Int64(got)
            return got
        } catch {
            readError = error
            return -1
        }
    }

    fileprivate func receive(_ metadata: UnsafePointer<FLAC__StreamMetadata>) {
        switch metadata.pointee.type {
        case FLAC__METADATA_TYPE_STREAMINFO:
            let info = metadata.pointee.data.stream_info
            tags.sampleRate = Int(info.sample_rate)
            tags.channels = Int(info.channels)
            tags.bitsPerSample = Int(info.bits_per_sample)
            if info.total_samples > 0, info.sample_rate > 0 {
                tags.duration = Double(info.total_samples) / Double(info.sample_rate)
            }
            let md5 = withUnsafeBytes(of: info.md5sum) { Array($0) }
            tags.audioMD5 = md5.allSatisfy { $0 == 0 } ? nil : TagText.hex(md5)
            sawStreamInfo = true
        case FLAC__METADATA_TYPE_VORBIS_COMMENT:
            let comments = metadata.pointee.data.vorbis_comment
            for index in 0..<Int(comments.num_comments) {
                let entry = comments.comments[index]
                guard let bytes = entry.entry else { continue }
                tags.applyVorbisCommentQuickly(UnsafeBufferPointer(start: bytes, count: Int(entry.length)))
            }
        default:
            break
        }
    }

    fileprivate func fail(_ status: FLAC__StreamDecoderErrorStatus) {
        guard decodeError == nil else { return }
        switch status {
        case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: decodeError = "lost sync in the FLAC metadata"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: decodeError = "bad FLAC header"
        case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: decodeError = "frame CRC mismatch"
        case FLAC__STREAM_DECODER_ERROR_STATUS_UNPARSEABLE_STREAM: decodeError = "unparseable FLAC stream"
        default: decodeError = "bad FLAC metadata (libFLAC error \(status.rawValue))"
        }
    }
}

private func scanRead(
    _ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ buffer: UnsafeMutablePointer<FLAC__byte>?,
    _ bytes: UnsafeMutablePointer<Int>?, _ client: UnsafeMutableRawPointer?
) -> FLAC__StreamDecoderReadStatus {
    guard let buffer, let bytes, let client else { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
    let source = Unmanaged<FLACScanSource>.fromOpaque(client).takeUnretainedValue()
    let got = source.read(into: buffer, count: bytes.pointee)
    guard got >= 0 else { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
    bytes.pointee = got
    return got == 0 ? FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM : FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
}

private func scanWrite(
    _ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ frame: UnsafePointer<FLAC__Frame>?,
    _ buffer: UnsafePointer<UnsafePointer<FLAC__int32>?>?, _ client: UnsafeMutableRawPointer?
) -> FLAC__StreamDecoderWriteStatus {
    FLAC__STREAM_DECODER_WRITE_STATUS_ABORT   // metadata only: audio is never decoded
}

private func scanMetadata(
    _ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ metadata: UnsafePointer<FLAC__StreamMetadata>?,
    _ client: UnsafeMutableRawPointer?
) {
    guard let metadata, let client else { return }
    Unmanaged<FLACScanSource>.fromOpaque(client).takeUnretainedValue().receive(metadata)
}

private func scanError(
    _ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ status: FLAC__StreamDecoderErrorStatus,
    _ client: UnsafeMutableRawPointer?
) {
    guard let client else { return }
    Unmanaged<FLACScanSource>.fromOpaque(client).takeUnretainedValue().fail(status)
}
