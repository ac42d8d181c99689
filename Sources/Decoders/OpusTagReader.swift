import COpusFile
import FermataCore

/// Reads an Ogg Opus file's comments and properties with libopusfile (headers and the last page's granule only).
///
/// Stateless; callable from any thread.
///
/// Loudness: `R128_TRACK_GAIN`/`R128_ALBUM_GAIN` are Q7.8 fixed-point dB towards −23 LUFS, relative to the audio
/// after the header's output gain (which libopusfile applies while decoding). ReplayGain aims 5 dB louder (−18
/// LUFS), so each becomes a ReplayGain gain of value / 256 + 5 dB. A `REPLAYGAIN_*` comment, if a tagger wrote one,
/// is taken as it is and wins.
enum OpusTagReader {
    /// dB between ReplayGain's reference level and R128's −23 LUFS.
    static let r128ToReplayGain = 5.0

    static func read(path: String) throws(DecoderError) -> TrackTags {
        var error: Int32 = 0
        guard let file = RawPath.withCString(path, { op_open_file($0, &error) }) else {
            throw OpusDecoder.error(error, path: path)
        }
        defer { op_free(file) }
        var tags = TrackTags()
        tags.codec = "opus"
        tags.sampleRate = 48_000
        tags.channels = Int(op_channel_count(file, -1))
        if let frames = OpusDecoder.playableFrames(file, channels: tags.channels) {
            tags.duration = Double(frames) / 48_000
        }
        guard let comments = op_tags(file, 0), let entries = comments.pointee.user_comments,
              let lengths = comments.pointee.comment_lengths else { return tags }
        var r128Track: Double?, r128Album: Double?
        for index in 0..<Int(comments.pointee.comments) {
            guard let entry = entries[index] else { continue }
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(entry).assumingMemoryBound(to: UInt8.self), count: Int(lengths[index]))
            tags.applyVorbisComment(bytes)
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                let key = String(decoding: bytes[..<equals], as: UTF8.self).uppercased()
                let value = String(decoding: bytes[(equals + 1)...], as: UTF8.self)
                if key == "R128_TRACK_GAIN" { r128Track = r128Track ?? q78(value) }
                if key == "R128_ALBUM_GAIN" { r128Album = r128Album ?? q78(value) }
                if key == "METADATA_BLOCK_PICTURE", tags.pictureLocation == nil {
                    tags.embeddedPictureBytes = VorbisTagReader.pictureBytes(bytes)
                    tags.pictureLocation = PictureLocation(offset: 0, length: Int64(bytes.count),
                                                           mimeType: "", storage: .base64Block)
                }
            }
        }
        if let r128Track { tags.replayGain.trackGain = tags.replayGain.trackGain ?? r128Track + r128ToReplayGain }
        if let r128Album { tags.replayGain.albumGain = tags.replayGain.albumGain ?? r128Album + r128ToReplayGain }
        return tags
    }

    /// A Q7.8 gain ("-512" → −2 dB) within ±128 dB; nil for anything else.
    static func q78(_ text: String) -> Double? {
        guard let value = Int(TagText.clean(text)), (-32768...32767).contains(value) else { return nil }
        return Double(value) / 256
    }
}
