/// Chooses and opens the decoder for a file by sniffing its first bytes; the file extension is never trusted.
///
/// Stateless; callable from any thread, though the decoder it returns belongs to the decoder thread.
public enum DecoderRegistry {
    /// What a supported format is called and how files of it are named: the one list the library scan, `fermata
    /// doctor` and MPD's `decoders` answer all read.
    public struct Format: Sendable, Hashable {
        /// Human-readable name ("Ogg Vorbis").
        public let name: String
        /// The name MPD gives its decoder plugin for it ("vorbis"), for `decoders`.
        public let pluginName: String
        /// Lower-case file extensions without the dot; the first is the usual one.
        public let extensions: [String]
        public let mimeTypes: [String]
    }

    /// One supported format, how to recognise its content, how to open it and how to read its tags.
    struct Plugin: Sendable {
        let format: Format
        var name: String { format.name }
        let sniff: @Sendable (FileProbe) -> Bool
        let open: @Sendable (String) throws(DecoderError) -> any AudioDecoder
        let readTags: @Sendable (String) throws(DecoderError) -> TrackTags
    }

    /// The plugin list, tried in order.
    static let plugins: [Plugin] = [
        Plugin(format: Format(name: "FLAC", pluginName: "flac", extensions: ["flac", "fla"],
                              mimeTypes: ["audio/flac", "audio/x-flac"]), sniff: { $0.isFLAC },
               open: { (path) throws(DecoderError) in try FLACDecoder(path: path) },
               readTags: { (path) throws(DecoderError) in try FLACTagReader.read(path: path) }),
        Plugin(format: Format(name: "Ogg Vorbis", pluginName: "vorbis", extensions: ["ogg", "oga"],
                              mimeTypes: ["audio/ogg", "audio/vorbis"]), sniff: { $0.isOggVorbis },
               open: { (path) throws(DecoderError) in try VorbisDecoder(path: path) },
               readTags: { (path) throws(DecoderError) in try VorbisTagReader.read(path: path) }),
        Plugin(format: Format(name: "WAV", pluginName: "wav", extensions: ["wav", "wave"],
                              mimeTypes: ["audio/wav", "audio/x-wav"]), sniff: { $0.isWAV },
               open: { (path) throws(DecoderError) in try WAVDecoder(path: path) },
               readTags: { (path) throws(DecoderError) in try WAVTagReader.read(path: path) }),
        Plugin(format: Format(name: "Opus", pluginName: "opus", extensions: ["opus"],
                              mimeTypes: ["audio/ogg", "audio/opus"]), sniff: { $0.isOggOpus },
               open: { (path) throws(DecoderError) in try OpusDecoder(path: path) },
               readTags: { (path) throws(DecoderError) in try OpusTagReader.read(path: path) }),
        // Before MP3: an MP4 or ADTS file behind an ID3v2 tag would otherwise be taken for MPEG audio.
        Plugin(format: Format(name: "AAC/ALAC (MP4)", pluginName: "ffmpeg", extensions: ["m4a", "mp4", "m4b", "aac", "m4p"],
                              mimeTypes: ["audio/mp4", "audio/aac", "audio/x-m4a"]), sniff: { $0.isMP4 || $0.isADTS },
               open: { (path) throws(DecoderError) in try MP4Decoder(path: path) },
               readTags: { (path) throws(DecoderError) in try MP4TagReader.read(path: path) }),
        Plugin(format: Format(name: "MP3", pluginName: "mpg123", extensions: ["mp3", "mp2"],
                              mimeTypes: ["audio/mpeg"]), sniff: { $0.isMP3 },
               open: { (path) throws(DecoderError) in try MP3Decoder(path: path) },
               readTags: { (path) throws(DecoderError) in try MP3TagReader.read(path: path) }),
    ]

    /// Extensions of audio formats Fermata does not play: the scan still looks at such files, so each is counted and
    /// named as a scan issue instead of being skipped in silence.
    public static let unplayableExtensions: [String] = [
        "wma", "ape", "mpc", "wv", "aif", "aiff", "aifc", "dsf", "dff", "mka", "ac3", "dts", "tta", "spx", "ra", "mid",
        "midi", "amr", "webm", "caf",
    ]

    /// The supported formats, in sniffing order.
    public static let formats: [Format] = plugins.map(\.format)

    /// Lower-case file extensions (without the dot) worth offering to `open` when scanning a music library.
    public static let supportedExtensions: [String] = formats.flatMap(\.extensions)

    /// Extensions a library scan opens: the supported ones and the known unplayable ones (refused by name).
    public static let scannedExtensions: [String] = supportedExtensions + unplayableExtensions

    /// Human-readable names of the supported formats, in sniffing order.
    public static let decoderNames: [String] = formats.map(\.name)

    /// Opens `path` with the decoder its content calls for.
    ///
    /// Missing or unreadable → `.unreadable`; zero length → `.corrupt("empty file")`; content no plugin recognises
    /// (including Ogg that is not Vorbis) → `.unsupported`; the chosen decoder's own errors otherwise.
    public static func open(path: String) throws(DecoderError) -> any AudioDecoder {
        let probe = try FileProbe(path: path)
        return try plugin(for: probe).open(path)
    }

    /// The name of the format `path` holds, without opening a decoder (same errors as `open`).
    public static func formatName(path: String) throws(DecoderError) -> String {
        try plugin(for: FileProbe(path: path)).name
    }

    static func plugin(for probe: FileProbe) throws(DecoderError) -> Plugin {
        if let plugin = plugins.first(where: { $0.sniff(probe) }) { return plugin }
        if probe.isOgg { throw .unsupported(path: probe.path, reason: "the Ogg stream is neither Vorbis nor Opus") }
        let name = probe.path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        if unplayableExtensions.contains(name), !name.isEmpty {
            throw .unsupported(path: probe.path, reason: "\(name.uppercased()) is not a format Fermata plays " +
                               "(FLAC, Ogg Vorbis, Opus, MP3, AAC/ALAC in MP4 and WAV are)")
        }
        throw .unsupported(path: probe.path, reason: "not FLAC, Ogg Vorbis, Opus, MP3, MP4/AAC or WAV content")
    }
}
