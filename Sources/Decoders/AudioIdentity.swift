import Glibc

/// A fingerprint of a file's audio that stays the same when the file is renamed, moved or re-tagged, so a library
/// can recognise the same recording under a new path.
///
/// Stateless; callable from any thread (a library scanner calls it from its reading threads).
///
/// - FLAC with a STREAMINFO MD5: `flac-md5:<md5 of the decoded samples>:<frames>`; no I/O beyond what `TagReader`
///   already did.
/// - FLAC without one: `flac:<hash>:<frames>`, a `ContentHasher` over the first and last 64 KiB of the frames
///   (a trailing ID3v1 tag left out) and the frames region's length.
/// - WAV: `wav:<hash>:<bytes>`, the same over the `data` chunk.
/// - Ogg Vorbis: `vorbis:<hash>:<frames>`, a hash of the first 64 KiB of audio *packet* data (page headers left
///   out, so re-paginating the stream when its comments are rewritten does not change it) and the length in frames.
///
/// - MP3: `mp3:<hash>:<bytes>` over the frames between the ID3v2 tag and any APEv2/ID3v1 tags.
/// - AAC/ALAC: `aac:`/`alac:<hash>:<bytes>` over the `mdat` box (raw ADTS: the file after any ID3v2 tag).
/// - Opus: `opus:<hash>:<frames>`, the Vorbis scheme after Opus's two header packets.
///
/// At most about 128 KiB is read per file, in 64 KiB reads; nothing is kept afterwards.
public enum AudioIdentity {
    /// Bytes hashed from each end of the audio.
    static let window = 64 * 1024

    /// The fingerprint of `path`, whose tags `tags` were read by `TagReader` (their codec and length are used).
    public static func fingerprint(path: String, tags: TrackTags) throws(DecoderError) -> String {
        let frames = tags.duration.map { Int64(($0 * Double(tags.sampleRate)).rounded()) } ?? -1
        switch tags.codec {
        case "flac":
            if let md5 = tags.audioMD5 { return "flac-md5:\(md5):\(frames)" }
            let hash = try flacFramesHash(path: path)
            return "flac:\(hash):\(frames)"
        case "wav":
            let (hash, bytes) = try wavDataHash(path: path)
            return "wav:\(hash):\(bytes)"
        case "vorbis":
            let hash = try OggPacketHash.hash(path: path, limit: window)
            return "vorbis:\(hash):\(frames)"
        case "opus":
            let hash = try OggPacketHash.hash(path: path, limit: window, headerPackets: 2)
            return "opus:\(hash):\(frames)"
        case "mp3":
            let fd = try PosixFile.open(path)
            defer { close(fd) }
            let size = try PosixFile.size(fd, path: path)
            let layout = try MP3Layout.read(fd: fd, size: size, path: path)
            let hash = try hashRegion(fd: fd, start: layout.audioStart, end: layout.audioEnd, path: path)
            return "mp3:\(hash):\(layout.audioEnd - layout.audioStart)"
        case "aac", "alac":
            let fd = try PosixFile.open(path)
            defer { close(fd) }
            let size = try PosixFile.size(fd, path: path)
            var file = FileWindow(fd: fd, size: size, path: path)
            let probe = try FileProbe(path: path)
            // Raw ADTS: the whole file is audio. MP4: the media data box, which re-tagging moves but never changes.
            let region = probe.isMP4 ? try MP4Layout.read(&file).mdat : (probe.id3Length, size - probe.id3Length)
            guard let region else { throw .corrupt(path: path, reason: "no media data box (mdat)") }
            let hash = try hashRegion(fd: fd, start: region.offset, end: region.offset + region.length, path: path)
            return "\(tags.codec):\(hash):\(region.length)"
        default:
            throw .unsupported(path: path, reason: "no audio fingerprint for codec \(tags.codec)")
        }
    }

    /// Hashes the region `start..<end` of `fd`: its length, its first `window` bytes and its last `window` bytes.
    static func hashRegion(fd: Int32, start: Int64, end: Int64, path: String) throws(DecoderError) -> String {
        var hasher = ContentHasher()
        let length = max(0, end - start)
        hasher.update(UInt64(length))
        var buffer = [UInt8](repeating: 0, count: window)
        let head = Int(min(length, Int64(window)))
        let got = try PosixFile.read(fd, into: &buffer, at: start, path: path)
        buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(min(got, head)))) }
        if length > Int64(window) {
            let tailStart = max(start + Int64(window), end - Int64(window))
            let tail = Int(end - tailStart)
            let more = try PosixFile.read(fd, into: &buffer, at: tailStart, path: path)
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0.prefix(min(more, tail)))) }
        }
        return hasher.hexDigest()
    }

    private static func flacFramesHash(path: String) throws(DecoderError) -> String {
        let probe = try FileProbe(path: path)
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        var offset = probe.id3Length + 4
        var header = [UInt8](repeating: 0, count: 4)
        while true {
            guard try PosixFile.read(fd, into: &header, at: offset, path: path) == 4 else {
                throw .corrupt(path: path, reason: "FLAC metadata runs past the end of the file")
            }
            let length = Int64(header[1]) << 16 | Int64(header[2]) << 8 | Int64(header[3])
            offset += 4 + length
            if header[0] & 0x80 != 0 { break }
        }
        var end = probe.size
        var trailer = [UInt8](repeating: 0, count: 3)
        if end - offset >= 128, try PosixFile.read(fd, into: &trailer, at: end - 128, path: path) == 3,
           trailer == Array("TAG".utf8) {
            end -= 128
        }
        return try hashRegion(fd: fd, start: offset, end: end, path: path)
    }

    private static func wavDataHash(path: String) throws(DecoderError) -> (String, Int64) {
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        let size = try PosixFile.size(fd, path: path)
        let layout = try WAVLayout.parse(fd: fd, fileSize: size, path: path, wantInfo: false)
        let hash = try hashRegion(fd: fd, start: layout.dataOffset, end: layout.dataOffset + layout.dataBytes,
                                  path: path)
        return (hash, layout.dataBytes)
    }
}
