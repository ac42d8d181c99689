import FermataCore
import CVorbis

/// Reads Ogg Vorbis comments and stream properties with vorbisfile (headers and page granules only; no audio is
/// decoded). Comments and format come from the first link; the duration is what `VorbisDecoder` plays.
///
/// Stateless; callable from any thread.
enum VorbisTagReader {
    static func read(path: String) throws(DecoderError) -> TrackTags {
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        defer { file.deallocate() }
        let result = RawPath.withCString(path) { ov_fopen($0, file) }
        guard result == 0 else { throw VorbisDecoder.error(result, path: path, action: "open") }
        defer { ov_clear(file) }
        guard let info = ov_info(file, 0) else { throw .corrupt(path: path, reason: "no Vorbis stream info") }
        var tags = TrackTags()
        tags.codec = "vorbis"
        tags.sampleRate = Int(info.pointee.rate)
        tags.channels = Int(info.pointee.channels)
        tags.bitsPerSample = 0
        if let frames = VorbisDecoder.playableFrames(file), tags.sampleRate > 0 {
            tags.duration = Double(frames) / Double(tags.sampleRate)
        }
        guard let comment = ov_comment(file, 0), let entries = comment.pointee.user_comments,
              let lengths = comment.pointee.comment_lengths else { return tags }
        for index in 0..<Int(comment.pointee.comments) {
            guard let entry = entries[index] else { continue }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: Int(lengths[index]))
            tags.applyVorbisComment(bytes)
            if tags.embeddedPictureBytes == nil { tags.embeddedPictureBytes = pictureBytes(bytes) }
        }
        return tags
    }

    /// The picture-data length of a `METADATA_BLOCK_PICTURE=<base64 FLAC picture block>` comment, else nil.
    static func pictureBytes(_ entry: UnsafeBufferPointer<UInt8>) -> Int? {
        let key = Array("METADATA_BLOCK_PICTURE=".utf8)
        guard entry.count > key.count,
              zip(entry.prefix(key.count), key).allSatisfy({ $0 & 0xDF == $1 & 0xDF }) else { return nil }
        let text = UnsafeBufferPointer(rebasing: entry[key.count...])
        let bodyLength = text.count / 4 * 3
        return TagText.pictureDataLength(bodyLength: bodyLength) { offset, count in
            let bytes = TagText.base64Prefix(text, count: offset + count)
            return bytes.count == offset + count ? Array(bytes[offset...]) : nil
        }
    }
}
