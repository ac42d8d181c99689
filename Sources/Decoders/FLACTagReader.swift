import CFLAC
import Glibc

/// Reads FLAC metadata with libFLAC's simple iterator: STREAMINFO, VORBIS_COMMENT, and the size of the first
/// PICTURE (read from its header with `pread`; the picture data itself is never loaded).
///
/// Stateless; callable from any thread.
enum FLACTagReader {
    static func read(path: String) throws(DecoderError) -> TrackTags {
        guard let iterator = FLAC__metadata_simple_iterator_new() else {
            throw .unreadable(path: path, reason: "cannot allocate a FLAC metadata iterator")
        }
        defer { FLAC__metadata_simple_iterator_delete(iterator) }
        guard FLAC__metadata_simple_iterator_init(iterator, path, 1, 0) != 0 else {
            throw error(FLAC__metadata_simple_iterator_status(iterator), path: path)
        }
        var tags = TrackTags()
        tags.codec = "flac"
        var sawStreamInfo = false
        repeat {
            let type = FLAC__metadata_simple_iterator_get_block_type(iterator)
            if type == FLAC__METADATA_TYPE_STREAMINFO || type == FLAC__METADATA_TYPE_VORBIS_COMMENT {
                guard let block = FLAC__metadata_simple_iterator_get_block(iterator) else {
                    throw error(FLAC__metadata_simple_iterator_status(iterator), path: path)
                }
                defer { FLAC__metadata_object_delete(block) }
                if type == FLAC__METADATA_TYPE_STREAMINFO {
                    apply(streamInfo: block.pointee.data.stream_info, to: &tags)
                    sawStreamInfo = true
                } else {
                    let comments = block.pointee.data.vorbis_comment
                    for index in 0..<Int(comments.num_comments) {
                        let entry = comments.comments[index]
                        guard let bytes = entry.entry else { continue }
                        tags.applyVorbisComment(UnsafeBufferPointer(start: bytes, count: Int(entry.length)))
                    }
                }
            } else if type == FLAC__METADATA_TYPE_PICTURE, tags.embeddedPictureBytes == nil {
                let body = Int64(FLAC__metadata_simple_iterator_get_block_offset(iterator)) + 4
                let length = Int(FLAC__metadata_simple_iterator_get_block_length(iterator))
                tags.embeddedPictureBytes = pictureBytes(path: path, body: body, length: length)
            }
        } while FLAC__metadata_simple_iterator_next(iterator) != 0
        let status = FLAC__metadata_simple_iterator_status(iterator)
        guard status == FLAC__METADATA_SIMPLE_ITERATOR_STATUS_OK else { throw error(status, path: path) }
        guard sawStreamInfo else { throw .corrupt(path: path, reason: "no STREAMINFO block") }
        return tags
    }

    private static func apply(streamInfo info: FLAC__StreamMetadata_StreamInfo, to tags: inout TrackTags) {
        tags.sampleRate = Int(info.sample_rate)
        tags.channels = Int(info.channels)
        tags.bitsPerSample = Int(info.bits_per_sample)
        if info.total_samples > 0, info.sample_rate > 0 {
            tags.duration = Double(info.total_samples) / Double(info.sample_rate)
        }
        let md5 = withUnsafeBytes(of: info.md5sum) { Array($0) }
        tags.audioMD5 = md5.allSatisfy { $0 == 0 } ? nil : TagText.hex(md5)
    }

    /// The picture-data length of the PICTURE block whose body starts at `body`; nil when it cannot be read.
    private static func pictureBytes(path: String, body: Int64, length: Int) -> Int? {
        guard let fd = try? PosixFile.open(path) else { return nil }
        defer { close(fd) }
        return TagText.pictureDataLength(bodyLength: length) { offset, count in
            var bytes = [UInt8](repeating: 0, count: count)
            guard let got = try? PosixFile.read(fd, into: &bytes, at: body + Int64(offset), path: path),
                  got == count else { return nil }
            return bytes
        }
    }

    private static func error(_ status: FLAC__Metadata_SimpleIteratorStatus, path: String) -> DecoderError {
        switch status {
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_ERROR_OPENING_FILE:
            .unreadable(path: path, reason: "libFLAC cannot open the file")
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_READ_ERROR, FLAC__METADATA_SIMPLE_ITERATOR_STATUS_SEEK_ERROR:
            .unreadable(path: path, reason: "read error in the FLAC metadata")
        case FLAC__METADATA_SIMPLE_ITERATOR_STATUS_NOT_A_FLAC_FILE:
            .unsupported(path: path, reason: "no fLaC signature")
        default:
            .corrupt(path: path, reason: "bad FLAC metadata (libFLAC status \(status.rawValue))")
        }
    }
}
