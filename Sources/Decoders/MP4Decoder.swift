import AudioCore
import CAVShim
import FermataCore
import Glibc

/// Decodes AAC (LC and HE-AAC) and ALAC in MP4/M4A, and raw ADTS AAC, through FFmpeg (loaded at run time by
/// `CAVShim`), trimming and seeking with Fermata's own arithmetic.
///
/// The decoder thread only: create, read, seek and release it there.
///
/// Gapless: FFmpeg's demuxer is told to ignore the edit list and its decoder not to skip anything; the trim comes from
/// `MP4Layout.trim` (the edit list, else iTunSMPB): the first `priming` decoded samples are dropped and exactly
/// `frames` are played. Every decoded frame is placed by its timestamp, so nothing is counted twice or lost.
///
/// Seeking is sample-accurate: a seek starts decoding two packets before the target with a fresh decoder and drops
/// what lies before it; AAC's overlap then makes the samples those a straight decode gives (bit for bit, except in
/// bands coded as noise substitution, which the standard fills from a random generator: there every pass after the
/// same seek is the same, as a fresh decoder starts the generator afresh). ALAC packets stand alone. Raw ADTS has no
/// index to trust: a seek decodes from the start (fast for AAC, and exact).
public final class MP4Decoder: AudioDecoder {
    public let format: AudioFormat
    public let totalFrames: Int64?
    public let path: String

    private let handle: OpaquePointer
    /// Decoded samples to drop at the start, and the index (in decoded samples) where playback ends.
    private let priming: Int64
    private let end: Int64?
    /// The decoded-sample index a timestamp stands for: pts × num / den.
    private let ptsNum: Int64, ptsDen: Int64
    /// Samples per packet, from the first decoded frame (for the seek pre-roll).
    private let packetFrames: Int64
    private let seekable: Bool
    /// Decoded frames waiting to be handed out, in `format`, and the decoded-sample index of the first of them.
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var pendingIndex: Int64 = 0
    /// The decoded-sample index after the last frame FFmpeg gave (where the next one starts when it has no pts).
    private var decodedEnd: Int64 = 0
    private var ended = false
    /// The decoded-sample index the next `read` must start at after a seek (frames before it are dropped).
    private var seekTarget: Int64 = 0
    private var errorText = [CChar](repeating: 0, count: 256)

    /// Milliseconds any one FFmpeg call may block before the file is given up as unreadable.
    package static let callDeadline: Int32 = 10_000

    /// Whether FFmpeg is installed, and if not which library is missing.
    public static var availability: (available: Bool, reason: String) {
        var why = [CChar](repeating: 0, count: 256)
        let ok = fm_av_available(&why, why.count) != 0
        return (ok, ok ? "" : Self.text(why))
    }

    /// The packages that bring FFmpeg's libraries (for messages).
    public static let packages = "libavformat59 libavcodec59 (Debian 12) or libavformat61 libavcodec61 (Debian 13)"

    /// Opens `path`: MP4/M4A (AAC or ALAC) or ADTS AAC. DRM → `.unsupported`; FFmpeg absent → `.unsupported` naming the
    /// packages; damaged → `.corrupt`.
    public init(path: String) throws(DecoderError) {
        let probe = try FileProbe(path: path)
        var layout: MP4Layout?
        if probe.isMP4 {
            let fd = try PosixFile.open(path)
            defer { close(fd) }
            var file = FileWindow(fd: fd, size: probe.size, path: path)
            layout = try MP4Layout.read(&file)
        } else if !probe.isADTS {
            throw .unsupported(path: path, reason: "not MP4 or ADTS AAC")
        }
        let (available, why) = Self.availability
        guard available else {
            throw .unsupported(path: path, reason: "AAC and ALAC need FFmpeg (\(why); install \(Self.packages))")
        }
        var info = fm_av_info()
        var text = [CChar](repeating: 0, count: 256)
        guard let handle = RawPath.withCString(path, { fm_av_open($0, Self.callDeadline, &info, &text, text.count) }) else {
            throw .corrupt(path: path, reason: "FFmpeg cannot read it: \(Self.text(text))")
        }
        self.handle = handle
        self.path = path
        seekable = layout != nil
        // Decode the first frame: HE-AAC with implicit SBR reveals its real output rate only there.
        var samples: UnsafeRawPointer?
        var pts: Int64 = 0
        let first = fm_av_next(handle, &samples, &pts, &text, text.count)
        guard first > 0, let samples else {
            fm_av_close(handle)
            throw .corrupt(path: path, reason: first < 0 ? "no decodable audio: \(Self.text(text))" : "no audio")
        }
        let rate = Int(fm_av_sample_rate(handle))
        guard AudioFormat.sampleRateRange.contains(rate) else {
            fm_av_close(handle)
            throw .corrupt(path: path, reason: "a sample rate of \(rate) Hz after the first frame")
        }
        let encoding: SampleEncoding = info.sample == Int32(FM_AV_S16.rawValue) ? .s16
            : info.sample == Int32(FM_AV_S32.rawValue) ? .s32 : .f32
        format = AudioFormat(sampleRate: rate, channels: Int(info.channels), encoding: encoding,
                             validBits: encoding == .f32 ? nil : Int(info.bits))
        packetFrames = Int64(first)
        // Timestamps are in the stream's time base; the decoded-sample index is pts × tb × rate.
        ptsNum = info.tb_num * Int64(rate)
        ptsDen = max(1, info.tb_den)
        let scale = layout.map { $0.mediaTimescale > 0 ? Double(rate) / Double($0.mediaTimescale) : 1 } ?? 1
        if let layout, let trim = layout.trim {
            priming = Self.clamped(Double(trim.priming) * scale)
            let frames = Self.clamped(Double(trim.frames) * scale)
            end = priming + frames
            totalFrames = frames
        } else if let layout, layout.decodedLength > 0 {
            priming = 0
            end = nil
            totalFrames = Self.clamped(Double(layout.decodedLength) * scale)
        } else {
            priming = 0
            end = nil
            totalFrames = nil
        }
        stash(samples, frames: Int(first), at: pts == Int64.min ? 0 : index(ofPTS: pts))
    }

    /// A length from the file's numbers as a frame count, never past 2^52 (about 3,000 years at 48 kHz).
    static func clamped(_ value: Double) -> Int64 {
        guard value.isFinite, value > 0 else { return 0 }
        return value < Double(Int64(1) << 52) ? Int64(value.rounded()) : Int64(1) << 52
    }

    /// The decoded-sample index of a timestamp (pts × num / den), without overflow for any pts FFmpeg hands out.
    private func index(ofPTS pts: Int64) -> Int64 {
        let (product, overflow) = pts.multipliedReportingOverflow(by: ptsNum)
        return overflow ? Self.clamped(Double(pts) * Double(ptsNum) / Double(ptsDen)) * pts.signum() : product / ptsDen
    }

    deinit {
        fm_av_close(handle)
    }

    /// The NUL-terminated text in a C character buffer.
    package static func text(_ chars: [CChar]) -> String {
        String(decoding: chars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let bytesPerFrame = format.bytesPerFrame
        let wanted = buffer.count / bytesPerFrame
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        var produced = 0
        while produced < wanted {
            if pendingStart >= pending.count {
                guard try refill() else { break }
                continue
            }
            // Drop what lies before the priming point (or a seek target); stop at the end of the trimmed stream.
            let available = (pending.count - pendingStart) / bytesPerFrame
            if pendingIndex < priming {
                let drop = Int(min(Int64(available), priming - pendingIndex))
                consume(drop)
                continue
            }
            var take = min(available, wanted - produced)
            if let end {
                let left = end - pendingIndex
                if left <= 0 { ended = true; pending.removeAll(keepingCapacity: true); pendingStart = 0; break }
                take = Int(min(Int64(take), left))
            }
            pending.withUnsafeBytes { source in
                (base + produced * bytesPerFrame).copyMemory(from: source.baseAddress! + pendingStart,
                                                             byteCount: take * bytesPerFrame)
            }
            consume(take)
            produced += take
        }
        return produced
    }

    public func seek(toFrame frame: Int64) throws(DecoderError) {
        var target = max(0, frame)
        if let totalFrames { target = min(target, totalFrames) }
        let index = priming + target
        let from = seekable ? max(0, index - 2 * packetFrames) : 0
        let pts = Self.clamped(Double(from) * Double(ptsDen) / Double(max(1, ptsNum)))
        guard fm_av_seek(handle, pts, &errorText, errorText.count) == 0 else {
            throw .seekFailed(path: path, reason: "FFmpeg: \(Self.text(errorText))")
        }
        pending.removeAll(keepingCapacity: true)
        pendingStart = 0
        ended = false
        decodedEnd = 0
        seekTarget = index
    }

    /// Decodes the next frame into `pending`; false at the end.
    private func refill() throws(DecoderError) -> Bool {
        guard !ended else { return false }
        var samples: UnsafeRawPointer?
        var pts: Int64 = 0
        let count = fm_av_next(handle, &samples, &pts, &errorText, errorText.count)
        if count == 0 { ended = true; return false }
        guard count > 0, let samples else {
            throw .corrupt(path: path, reason: "FFmpeg: \(Self.text(errorText))")
        }
        guard fm_av_sample_rate(handle) == Int32(format.sampleRate) else {
            ended = true
            return false
        }
        stash(samples, frames: Int(count), at: pts == Int64.min ? decodedEnd : index(ofPTS: pts))
        // After a seek: drop whatever precedes the target.
        if seekTarget > pendingIndex {
            let drop = Int(min(Int64(count), seekTarget - pendingIndex))
            consume(drop)
        }
        return true
    }

    private func stash(_ samples: UnsafeRawPointer, frames: Int, at index: Int64) {
        let bytes = frames * format.bytesPerFrame
        pending.removeAll(keepingCapacity: true)
        pending.append(contentsOf: UnsafeRawBufferPointer(start: samples, count: bytes))
        pendingStart = 0
        pendingIndex = index
        decodedEnd = index + Int64(frames)
    }

    private func consume(_ frames: Int) {
        pendingStart += frames * format.bytesPerFrame
        pendingIndex += Int64(frames)
    }
}
