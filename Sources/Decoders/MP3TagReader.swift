import Glibc

/// Reads an MP3's tags (ID3v2, then APEv2, then ID3v1 for what is still missing) and its stream properties from
/// the first frame and the Xing/Info/LAME header, without decoding audio.
///
/// Stateless; callable from any thread.
enum MP3TagReader {
    static func read(path: String) throws(DecoderError) -> TrackTags {
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        let size = try PosixFile.size(fd, path: path)
        guard size > 0 else { throw .corrupt(path: path, reason: "empty file") }
        return try read(fd: fd, size: size, path: path)
    }

    static func read(fd: Int32, size: Int64, path: String) throws(DecoderError) -> TrackTags {
        let layout = try MP3Layout.read(fd: fd, size: size, path: path)
        var file = FileWindow(fd: fd, size: size, path: path)
        var tags = TrackTags()
        tags.pictureLocation = try ID3v2.read(&file, into: &tags)
        if let ape = layout.ape { try APEv2.read(&file, at: ape.offset, size: ape.size, items: ape.items, into: &tags) }
        if let id3v1 = layout.id3v1Offset { try ID3v1.read(&file, at: id3v1, into: &tags) }
        tags.codec = "mp3"
        tags.sampleRate = layout.sampleRate
        tags.channels = layout.channels
        let frames = layout.frames
        if frames > 0, layout.sampleRate > 0 { tags.duration = Double(frames) / Double(layout.sampleRate) }
        return tags
    }
}

/// Reads an MP4/M4A's iTunes tags and stream properties from its boxes (`MP4Layout`), without decoding audio.
///
/// Stateless; callable from any thread. The tags are read without FFmpeg, but a file FFmpeg is needed to play is
/// refused (`.unsupported`, naming the packages) when it is not installed, so the scan says which files need it.
enum MP4TagReader {
    static func read(path: String) throws(DecoderError) -> TrackTags {
        let probe = try FileProbe(path: path)
        if probe.isADTS { return try adts(path: path) }
        let fd = try PosixFile.open(path)
        defer { close(fd) }
        var file = FileWindow(fd: fd, size: probe.size, path: path)
        let layout = try MP4Layout.read(&file)
        try requireFFmpeg(path: path)
        var tags = layout.tags
        tags.pictureLocation = layout.picture
        tags.codec = layout.codec == .alac ? "alac" : "aac"
        tags.sampleRate = layout.sampleRate
        tags.channels = layout.channels
        tags.bitsPerSample = layout.codec == .alac ? layout.bitsPerSample : 0
        if layout.mediaTimescale > 0 {
            let frames = layout.trim?.frames ?? layout.decodedLength
            tags.duration = Double(frames) / Double(layout.mediaTimescale)
        }
        return tags
    }

    /// Raw ADTS carries no tags and no length: the format comes from the first frame header.
    private static func adts(path: String) throws(DecoderError) -> TrackTags {
        try requireFFmpeg(path: path)
        let probe = try FileProbe(path: path)
        let head = probe.afterID3
        guard head.count >= 7 else { throw .corrupt(path: path, reason: "truncated ADTS header") }
        let rates = [96_000, 88_200, 64_000, 48_000, 44_100, 32_000, 24_000, 22_050, 16_000, 12_000, 11_025, 8_000, 7_350]
        let rateIndex = Int(head[2] >> 2) & 15
        var tags = TrackTags()
        tags.codec = "aac"
        tags.sampleRate = rateIndex < rates.count ? rates[rateIndex] : 0
        tags.channels = Int(head[2] & 1) << 2 | Int(head[3] >> 6)
        return tags
    }

    private static func requireFFmpeg(path: String) throws(DecoderError) {
        let (available, why) = MP4Decoder.availability
        guard available else {
            throw .unsupported(path: path, reason: "AAC and ALAC need FFmpeg (\(why); install \(MP4Decoder.packages))")
        }
    }
}
