import FermataCore
import AudioCore
import CVorbis
import Glibc

/// Decodes an Ogg Vorbis file with vorbisfile into interleaved `.f32` PCM, channels in WAV/ALSA order.
///
/// The decoder thread only: create, read, seek and release it there.
///
/// Chained files: links with the same rate and channel count play straight through as one stream. When a later link
/// changes the rate or the channel count, the stream ends (`read` returns 0) at the end of the first compatible run
/// of links, and `totalFrames` counts only that run; the rest of the file is not played.
///
/// Vorbis orders 3–8 channels differently from WAV (for 5.1: L C R Ls Rs LFE); they are reordered to the WAV order
/// (L R C LFE Ls Rs) that FLAC, WAV and ALSA use.
public final class VorbisDecoder: AudioDecoder {
    public let format: AudioFormat
    public let totalFrames: Int64?
    public let path: String

    private let file: UnsafeMutablePointer<OggVorbis_File>
    /// Output channel → Vorbis channel.
    private let channelMap: [Int]
    private var position: Int64 = 0
    /// Set when an unseekable stream reaches a link with another format.
    private var stopped = false

    /// Largest number of frames asked of vorbisfile per call.
    private static let chunkFrames: Int32 = 4096

    /// Opens `path`. Not Ogg Vorbis → `.unsupported`; damaged headers → `.corrupt`; cannot read → `.unreadable`.
    public init(path: String) throws(DecoderError) {
        let probe = try FileProbe(path: path)
        guard probe.isOgg else { throw .unsupported(path: path, reason: "no Ogg page signature") }
        guard probe.isOggVorbis else { throw .unsupported(path: path, reason: "the Ogg stream is not Vorbis") }
        let file = UnsafeMutablePointer<OggVorbis_File>.allocate(capacity: 1)
        let result = RawPath.withCString(path) { ov_fopen($0, file) }
        guard result == 0 else {
            file.deallocate()
            throw Self.error(result, path: path, action: "open")
        }
        guard let first = ov_info(file, 0), AudioFormat.channelRange.contains(Int(first.pointee.channels)), first.pointee.rate > 0 else {
            let channels = ov_info(file, 0)?.pointee.channels ?? 0
            ov_clear(file)
            file.deallocate()
            throw .unsupported(path: path, reason: "\(channels) channels (1–8 supported)")
        }
        let rate = first.pointee.rate, channels = Int(first.pointee.channels)
        totalFrames = Self.playableFrames(file)
        self.file = file
        self.path = path
        format = AudioFormat(sampleRate: Int(rate), channels: channels, encoding: .f32)
        channelMap = Self.wavOrder(channels: channels)
    }

    deinit {
        ov_clear(file)
        file.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let channels = format.channels
        let wanted = buffer.count / format.bytesPerFrame
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        var produced = 0
        var holes = 0
        while produced < wanted, !stopped {
            var ask = min(wanted - produced, Int(Self.chunkFrames))
            if let totalFrames {
                let left = totalFrames - position
                if left <= 0 { break }
                ask = min(ask, Int(left))
            }
            var pcm: UnsafeMutablePointer<UnsafeMutablePointer<Float>?>?
            var link: Int32 = 0
            let got = ov_read_float(file, &pcm, Int32(ask), &link)
            if got == OV_HOLE {
                // A gap (garbage between pages, a lost page): vorbisfile has resynchronised; keep going.
                holes += 1
                if holes > 10_000 { throw .corrupt(path: path, reason: "no audio after 10000 gaps") }
                continue
            }
            if got < 0 {
                if produced > 0 { return produced }
                throw Self.error(Int32(got), path: path, action: "decode")
            }
            if got == 0 {
                if let totalFrames, position < totalFrames, produced == 0 {
                    throw .corrupt(path: path, reason: "truncated: stream ends at frame \(position) of \(totalFrames)")
                }
                break
            }
            if let info = ov_info(file, link), info.pointee.rate != format.sampleRate
                || Int(info.pointee.channels) != channels {
                // Only reachable in an unseekable stream, where the run length is not known up front.
                stopped = true
                break
            }
            guard let pcm else { throw .corrupt(path: path, reason: "vorbisfile returned no sample buffers") }
            let frames = Int(got)
            let out = base + produced * format.bytesPerFrame
            for channel in 0..<channels {
                guard let source = pcm[channelMap[channel]] else {
                    throw .corrupt(path: path, reason: "vorbisfile returned no samples for channel \(channel)")
                }
                for index in 0..<frames {
                    out.storeBytes(of: source[index], toByteOffset: (index * channels + channel) * 4, as: Float.self)
                }
            }
            produced += frames
            position += Int64(frames)
        }
        return produced
    }

    public func seek(toFrame frame: Int64) throws(DecoderError) {
        var target = max(0, frame)
        stopped = false
        if let totalFrames {
            target = min(target, totalFrames)
            if target == totalFrames {
                position = target
                return
            }
        }
        let result = ov_pcm_seek(file, target)
        guard result == 0 else {
            throw .seekFailed(path: path, reason: "vorbisfile error \(result) seeking to frame \(target)")
        }
        position = target
    }

    // MARK: - Helpers

    /// Frames in the leading run of links that share the first link's rate and channel count; nil if unseekable.
    static func playableFrames(_ file: UnsafeMutablePointer<OggVorbis_File>) -> Int64? {
        guard ov_seekable(file) != 0, let first = ov_info(file, 0) else { return nil }
        var frames: Int64 = 0
        for link in 0..<Int32(ov_streams(file)) {
            guard let info = ov_info(file, link), info.pointee.rate == first.pointee.rate,
                  info.pointee.channels == first.pointee.channels else { break }
            let linkFrames = ov_pcm_total(file, link)
            guard linkFrames >= 0 else { break }
            frames += linkFrames
        }
        return frames
    }

    /// Maps a vorbisfile return code to a `DecoderError`.
    static func error(_ code: Int32, path: String, action: String) -> DecoderError {
        switch code {
        case -1: return .unreadable(path: path, reason: "cannot open: \(PosixFile.errnoString())")
        case OV_EREAD: return .unreadable(path: path, reason: "read error while trying to \(action)")
        // Callers sniff a Vorbis identification packet first, so a refusal here means damaged or missing headers.
        case OV_ENOTVORBIS: return .corrupt(path: path, reason: "damaged or incomplete Vorbis headers")
        case OV_EVERSION: return .unsupported(path: path, reason: "unsupported Vorbis version")
        case OV_EBADHEADER: return .corrupt(path: path, reason: "invalid Vorbis headers")
        case OV_EBADLINK: return .corrupt(path: path, reason: "invalid link in the chained stream")
        default: return .corrupt(path: path, reason: "vorbisfile error \(code) while trying to \(action)")
        }
    }

    /// For each WAV-order output channel, the Vorbis channel that feeds it (Vorbis I spec, section 4.3.9).
    package static func wavOrder(channels: Int) -> [Int] {
        switch channels {
        case 3: [0, 2, 1]
        case 5: [0, 2, 1, 3, 4]
        case 6: [0, 2, 1, 5, 3, 4]
        case 7: [0, 2, 1, 6, 5, 3, 4]
        case 8: [0, 2, 1, 7, 5, 6, 3, 4]
        default: Array(0..<channels)
        }
    }
}
