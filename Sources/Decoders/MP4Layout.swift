import AudioCore

/// What an MP4/M4A file's boxes say about its first audio track: codec, format, length, the gapless trim (edit list or
/// iTunSMPB), the iTunes tags and where the cover art and the audio data are.
///
/// A value type built by walking the box tree through a `FileWindow`: only the boxes it needs are read, the cover
/// art is located, never read, and every size is checked against its parent (a box past its parent's end, or one
/// under 8 bytes, ends the walk of that parent, so no box can loop or run past the file). Used by `MP4Decoder`, the tag
/// reader and the scan, on whichever thread reads the file. Hand-written: the scan reads every M4A and is timed
/// against MPD's; fuzzed in `Tests/Tools/fuzz`.
struct MP4Layout {
    /// The stream's codec, from the first sample entry of the audio track.
    enum Codec: Equatable {
        case aac
        case alac
        /// FairPlay (`drms`) or other encrypted (`enca`) audio: an `.m4p` from the iTunes Store before 2009.
        case protected
        case other(String)
    }

    var codec: Codec = .other("none")
    var channels = 0
    var sampleRate = 0
    var bitsPerSample = 0
    /// The media time scale (`mdhd`) and the movie's (`mvhd`, for edit-list durations).
    var mediaTimescale: Int64 = 0
    var movieTimescale: Int64 = 0
    /// Sum of the sample durations (`stts`), in the media time scale: every sample the decoder will produce.
    var decodedLength: Int64 = 0
    /// The first edit (empty edits skipped): media time where playback starts and how long it lasts (movie scale).
    var edit: (mediaTime: Int64, duration: Int64)?
    /// iTunSMPB: priming, padding and the source's sample count.
    var iTunSMPB: (priming: Int64, padding: Int64, frames: Int64)?
    var tags = TrackTags()
    var picture: PictureLocation?
    /// The audio data (`mdat`): its body, for the identity hash.
    var mdat: (offset: Int64, length: Int64)?
    var sawMovie = false

    /// Box types whose children are boxes.
    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "udta", "ilst", "dinf"]

    /// Walks the file. Not MP4 → `.unsupported`; no `moov` or no audio track → `.corrupt`; DRM → `.unsupported`.
    static func read(_ file: inout FileWindow) throws(DecoderError) -> MP4Layout {
        var layout = MP4Layout()
        var state = WalkState()
        try layout.walk(&file, from: 0, to: file.size, depth: 0, state: &state)
        let path = file.path
        guard layout.sawMovie else {
            throw .corrupt(path: path, reason: "no movie box (moov): the file is incomplete or not an MP4")
        }
        guard state.foundAudio else { throw .unsupported(path: path, reason: "the MP4 has no audio track") }
        switch layout.codec {
        case .protected:
            throw .unsupported(path: path, reason: "DRM-protected (iTunes FairPlay, .m4p): it cannot be played " +
                               "without Apple's keys; remove the protection or re-buy it as plain AAC")
        case let .other(name):
            throw .unsupported(path: path, reason: "MP4 audio in \(name) (AAC and ALAC supported)")
        default: break
        }
        guard layout.sampleRate > 0, AudioFormat.channelRange.contains(layout.channels) else {
            throw .corrupt(path: path, reason: "\(layout.channels) channels at \(layout.sampleRate) Hz in the sample entry")
        }
        return layout
    }

    /// The trim the file asks for, in media samples: (priming to drop, samples to play); nil when none is stated.
    var trim: (priming: Int64, frames: Int64)? {
        if let edit, edit.mediaTime >= 0, mediaTimescale > 0, movieTimescale > 0 {
            let priming = edit.mediaTime
            // Sizes from the file: Double, so no product of two of them can overflow.
            let scaled = Double(edit.duration) * Double(mediaTimescale) / Double(movieTimescale)
            let stated = scaled < Double(Int64(1) << 52) ? Int64(scaled) : Int64(1) << 52
            let available = max(0, decodedLength - priming)
            // A coarse movie time scale (FFmpeg writes 1/1000 s) rounds the duration: when it lands within one tick
            // of the samples there are, the sample table is the exact count.
            let tick = (mediaTimescale + movieTimescale - 1) / movieTimescale
            let frames = stated == 0 || abs(stated - available) <= tick ? available : min(stated, available)
            return (priming, frames)
        }
        if let iTunSMPB {
            return (iTunSMPB.priming, min(iTunSMPB.frames, max(0, decodedLength - iTunSMPB.priming)))
        }
        return nil
    }

    private struct WalkState {
        var boxes = 0
        var inAudioTrack = false
        var foundAudio = false
        var trackHandler = ""
        /// Values of the track being walked, kept only if it turns out to be the first audio track.
        var pending = MP4Layout()
    }

    private mutating func walk(
        _ file: inout FileWindow, from start: Int64, to end: Int64, depth: Int, state: inout WalkState
    ) throws(DecoderError) {
        var offset = start
        while offset + 8 <= end {
            state.boxes += 1
            guard state.boxes < 100_000, depth < 12, let size32 = try file.be32(at: offset),
                  let typeBytes = try file.bytes(at: offset + 4, count: 4) else { return }
            let type = String(decoding: typeBytes, as: UTF8.self)
            var size = Int64(size32), header: Int64 = 8
            if size32 == 1 {
                guard let large = try file.be64(at: offset + 8), large < UInt64(Int64.max) else { return }
                size = Int64(large)
                header = 16
            } else if size32 == 0 {
                size = end - offset
            }
            guard size >= header, size <= end - offset else { return }
            let body = offset + header, bodyEnd = offset + size
            try visit(type, &file, body: body, end: bodyEnd, depth: depth, state: &state)
            offset = bodyEnd
        }
    }

    private mutating func visit(
        _ type: String, _ file: inout FileWindow, body: Int64, end: Int64, depth: Int, state: inout WalkState
    ) throws(DecoderError) {
        switch type {
        case "moov":
            sawMovie = true
            try walk(&file, from: body, to: end, depth: depth + 1, state: &state)
        case "mdat":
            if mdat == nil { mdat = (body, end - body) }
        case "mvhd":
            guard let version = try file.u8(at: body) else { return }
            movieTimescale = Int64(try file.be32(at: body + (version == 1 ? 20 : 12)) ?? 0)
        case "trak":
            guard !state.foundAudio else { return }
            state.pending = MP4Layout()
            state.trackHandler = ""
            try walk(&file, from: body, to: end, depth: depth + 1, state: &state)
            if state.trackHandler == "soun" {
                state.foundAudio = true
                codec = state.pending.codec
                channels = state.pending.channels
                sampleRate = state.pending.sampleRate
                bitsPerSample = state.pending.bitsPerSample
                mediaTimescale = state.pending.mediaTimescale
                decodedLength = state.pending.decodedLength
                edit = state.pending.edit
            }
        case "hdlr" where depth >= 2:
            if let handler = try file.bytes(at: body + 8, count: 4), state.trackHandler.isEmpty {
                state.trackHandler = String(decoding: handler, as: UTF8.self)
            }
        case "mdhd":
            guard let version = try file.u8(at: body) else { return }
            state.pending.mediaTimescale = Int64(try file.be32(at: body + (version == 1 ? 20 : 12)) ?? 0)
        case "elst":
            try readEditList(&file, body: body, end: end, into: &state.pending)
        case "stts":
            guard let count = try file.be32(at: body + 4), Int64(count) * 8 <= end - body - 8 else { return }
            var total: Int64 = 0
            for index in 0..<Int64(count) {
                guard let samples = try file.be32(at: body + 8 + index * 8),
                      let delta = try file.be32(at: body + 12 + index * 8) else { return }
                // Each product fits (32 × 32 bits < 2^64 only unsigned): bound the sum long before Int64's end.
                let (product, overflow) = UInt64(samples).multipliedReportingOverflow(by: UInt64(delta))
                guard !overflow, product < UInt64(1) << 50 else { return }
                total += Int64(product)
                if total > Int64(1) << 50 { return }
            }
            state.pending.decodedLength = total
        case "stsd":
            // Full box, entry count, then the first sample entry.
            guard let entrySize = try file.be32(at: body + 8), let entryType = try file.bytes(at: body + 12, count: 4)
            else { return }
            let entry = body + 16, entryEnd = body + 8 + Int64(entrySize)
            guard entryEnd <= end, entryEnd >= entry + 28 else { return }
            let name = String(decoding: entryType, as: UTF8.self)
            switch name {
            case "mp4a": state.pending.codec = .aac
            case "alac": state.pending.codec = .alac
            case "drms", "enca": state.pending.codec = .protected
            default: state.pending.codec = .other(name)
            }
            state.pending.channels = Int(try file.be32(at: entry + 16).map { $0 >> 16 } ?? 0)
            state.pending.bitsPerSample = Int(try file.be32(at: entry + 16).map { $0 & 0xFFFF } ?? 0)
            state.pending.sampleRate = Int((try file.be32(at: entry + 24) ?? 0) >> 16)
            if name == "alac" {
                try readALACCookie(&file, from: entry + 28, to: entryEnd, into: &state.pending)
            } else if name == "enca" || name == "mp4a" {
                // An `mp4a` entry with a protection scheme (`sinf`) is encrypted all the same.
                if try containsBox("sinf", &file, from: entry + 28, to: entryEnd) { state.pending.codec = .protected }
            }
        case "meta":
            // A full box in MP4 (version and flags first); QuickTime's has none. Tell them by the next size.
            let skip: Int64 = (try file.bytes(at: body + 4, count: 4)).map { $0.elementsEqual("hdlr".utf8) } == true ? 0 : 4
            try walk(&file, from: body + skip, to: end, depth: depth + 1, state: &state)
        case "ilst":
            try readItems(&file, from: body, to: end)
        default:
            if Self.containers.contains(type) {
                try walk(&file, from: body, to: end, depth: depth + 1, state: &state)
            }
        }
    }

    private func readEditList(
        _ file: inout FileWindow, body: Int64, end: Int64, into track: inout MP4Layout
    ) throws(DecoderError) {
        guard let version = try file.u8(at: body), let count = try file.be32(at: body + 4) else { return }
        let entrySize: Int64 = version == 1 ? 20 : 12
        guard count > 0, Int64(count) * entrySize <= end - body - 8 else { return }
        for index in 0..<Int64(min(count, 16)) {
            let at = body + 8 + index * entrySize
            let duration: Int64, mediaTime: Int64
            if version == 1 {
                guard let d = try file.be64(at: at), let m = try file.be64(at: at + 8) else { return }
                duration = Int64(truncatingIfNeeded: d)
                mediaTime = Int64(truncatingIfNeeded: m)
            } else {
                guard let d = try file.be32(at: at), let m = try file.be32(at: at + 4) else { return }
                duration = Int64(d)
                mediaTime = Int64(Int32(bitPattern: m))
            }
            if mediaTime == -1 { continue }  // an empty edit (a delay before the track starts)
            guard duration >= 0, mediaTime >= 0, mediaTime < Int64(1) << 50 else { return }
            track.edit = (mediaTime, duration)
            return
        }
    }

    /// ALAC's magic cookie: frame length, bit depth, channels, sample rate.
    private func readALACCookie(
        _ file: inout FileWindow, from start: Int64, to end: Int64, into track: inout MP4Layout
    ) throws(DecoderError) {
        var offset = start
        while offset + 8 <= end {
            guard let size = try file.be32(at: offset), size >= 8, Int64(size) <= end - offset,
                  let type = try file.bytes(at: offset + 4, count: 4) else { return }
            if type.elementsEqual("alac".utf8), size >= 36, let cookie = try file.bytes(at: offset + 12, count: 24) {
                let c = Array(cookie)
                track.bitsPerSample = Int(c[5])
                track.channels = Int(c[9])
                track.sampleRate = Int(UInt32(c[20]) << 24 | UInt32(c[21]) << 16 | UInt32(c[22]) << 8 | UInt32(c[23]))
                return
            }
            offset += Int64(size)
        }
    }

    private func containsBox(
        _ wanted: String, _ file: inout FileWindow, from start: Int64, to end: Int64
    ) throws(DecoderError) -> Bool {
        var offset = start
        var steps = 0
        while offset + 8 <= end, steps < 64 {
            steps += 1
            guard let size = try file.be32(at: offset), size >= 8, Int64(size) <= end - offset,
                  let type = try file.bytes(at: offset + 4, count: 4) else { return false }
            if type.elementsEqual(wanted.utf8) { return true }
            offset += Int64(size)
        }
        return false
    }

    /// The iTunes metadata items (`ilst`): each an atom holding a `data` atom (and `mean`/`name` for `----`).
    private mutating func readItems(_ file: inout FileWindow, from start: Int64, to end: Int64) throws(DecoderError) {
        var offset = start
        var items = 0
        while offset + 8 <= end, items < 4096 {
            items += 1
            guard let size = try file.be32(at: offset), size >= 8, Int64(size) <= end - offset,
                  let typeBytes = try file.bytes(at: offset + 4, count: 4) else { return }
            let key = Array(typeBytes)
            var name = ""
            var data: (type: UInt32, offset: Int64, length: Int64)?
            var child = offset + 8
            let itemEnd = offset + Int64(size)
            while child + 8 <= itemEnd {
                guard let childSize = try file.be32(at: child), childSize >= 8, Int64(childSize) <= itemEnd - child,
                      let childType = try file.bytes(at: child + 4, count: 4) else { break }
                if childType.elementsEqual("name".utf8), childSize > 12, childSize < 1024,
                   let text = try file.bytes(at: child + 12, count: Int(childSize) - 12) {
                    name = String(decoding: text, as: UTF8.self)
                } else if childType.elementsEqual("data".utf8), childSize >= 16, data == nil,
                          let kind = try file.be32(at: child + 8) {
                    data = (kind & 0xFFFFFF, child + 16, Int64(childSize) - 16)
                }
                child += Int64(childSize)
            }
            offset = itemEnd
            guard let data else { continue }
            try apply(key: key, name: name, data: data, &file)
        }
    }

    private mutating func apply(
        key: [UInt8], name: String, data: (type: UInt32, offset: Int64, length: Int64), _ file: inout FileWindow
    ) throws(DecoderError) {
        if key.elementsEqual("covr".utf8) {
            guard picture == nil, data.length > 0 else { return }
            picture = PictureLocation(offset: data.offset, length: data.length,
                                      mimeType: data.type == 14 ? "image/png" : "image/jpeg", storage: .plain)
            tags.embeddedPictureBytes = Int(data.length)
            return
        }
        guard data.length <= 1 << 16, let raw = try file.bytes(at: data.offset, count: Int(data.length)) else { return }
        let bytes = Array(raw)
        let text = { TagText.clean(String(decoding: bytes, as: UTF8.self)) }
        func pair() -> Int? { bytes.count >= 4 ? Int(bytes[2]) << 8 | Int(bytes[3]) : nil }
        // Item names are ISO-8859-1 (`©` is the byte 0xA9).
        switch String(decoding: key.map { UInt16($0) }, as: UTF16.self) {
        case "\u{A9}nam": tags.apply(key: "TITLE", value: text())
        case "\u{A9}ART": tags.apply(key: "ARTIST", value: text())
        case "aART": tags.apply(key: "ALBUMARTIST", value: text())
        case "\u{A9}alb": tags.apply(key: "ALBUM", value: text())
        case "\u{A9}day": tags.apply(key: "DATE", value: text())
        case "\u{A9}gen": tags.apply(key: "GENRE", value: text())
        case "\u{A9}wrt": tags.apply(key: "COMPOSER", value: text())
        case "gnre":
            if let index = bytes.count >= 2 ? Int(bytes[0]) << 8 | Int(bytes[1]) : nil, index >= 1,
               ID3v1.genres.indices.contains(index - 1) {
                tags.apply(key: "GENRE", value: ID3v1.genres[index - 1])
            }
        case "trkn": if let number = pair(), number > 0 { tags.apply(key: "TRACKNUMBER", value: String(number)) }
        case "disk": if let number = pair(), number > 0 { tags.apply(key: "DISCNUMBER", value: String(number)) }
        case "tmpo":
            let value = bytes.count >= 2 ? Int(bytes[0]) << 8 | Int(bytes[1]) : Int(bytes.first ?? 0)
            if value > 0 { tags.apply(key: "BPM", value: String(value)) }
        case "----":
            let upper = name.uppercased()
            if upper == "ITUNSMPB" {
                iTunSMPB = Self.parseSMPB(text())
            } else if upper.hasPrefix("REPLAYGAIN_") {
                tags.apply(key: upper, value: text())
            } else if upper == "MUSICBRAINZ TRACK ID" {
                tags.apply(key: "MUSICBRAINZ_TRACKID", value: text())
            } else if let key = ID3v2.musicBrainzKeys[upper] {
                tags.apply(key: key, value: text())
            }
        default: break
        }
    }

    /// " 00000000 00000840 000001CA 00000000003F31F6 …" → priming 0x840, padding 0x1CA, frames 0x3F31F6.
    static func parseSMPB(_ text: String) -> (priming: Int64, padding: Int64, frames: Int64)? {
        let fields = text.split(separator: " ")
        guard fields.count >= 4, let priming = Int64(fields[1], radix: 16), let padding = Int64(fields[2], radix: 16),
              let frames = Int64(fields[3], radix: 16), priming >= 0, padding >= 0, frames > 0 else { return nil }
        return (priming, padding, frames)
    }
}

