import COpusFile
import CVorbis
import FermataCore

/// The raw comments (`KEY=value` bytes) of an Ogg Vorbis or Opus file's first link.
///
/// Stateless; callable from any thread.
enum VorbisComments {
    static func read(path: String) -> [[UInt8]] {
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        defer { file.deallocate() }
        guard RawPath.withCString(path, { ov_fopen($0, file) }) == 0 else { return [] }
        defer { ov_clear(file) }
        guard let comment = ov_comment(file, 0) else { return [] }
        return entries(comment.pointee.user_comments, comment.pointee.comment_lengths, Int(comment.pointee.comments))
    }

    static func readOpus(path: String) -> [[UInt8]] {
        var error: Int32 = 0
        guard let file = RawPath.withCString(path, { op_open_file($0, &error) }) else { return [] }
        defer { op_free(file) }
        guard let tags = op_tags(file, 0) else { return [] }
        return entries(tags.pointee.user_comments, tags.pointee.comment_lengths, Int(tags.pointee.comments))
    }

    private static func entries(
        _ list: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ lengths: UnsafeMutablePointer<Int32>?, _ count: Int
    ) -> [[UInt8]] {
        guard let list, let lengths else { return [] }
        return (0..<count).compactMap { index in
            list[index].map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self),
                                                         count: Int(lengths[index]))) }
        }
    }
}
