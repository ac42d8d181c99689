import FermataCore
import AudioCore
import CFLAC
import Glibc

/// Decodes a FLAC file with libFLAC into interleaved, left-justified integer PCM: `.s16` for 4–16-bit sources,
/// `.s32` for 17–32-bit ones, `validBits` set to the source depth.
///
/// The decoder thread only: create, read, seek and release it there. libFLAC calls back into this object
/// synchronously from inside `read` and `seek`, on the calling thread, so nothing is shared between threads.
///
/// Damage is never silent: a libFLAC error callback (lost sync, bad header, CRC mismatch), a frame that disagrees
/// with STREAMINFO, or a stream that ends before (or runs past) STREAMINFO's sample count makes `read` throw
/// `.corrupt`. The audio MD5 is not checked.
public final class FLACDecoder: AudioDecoder {
    public private(set) var format = AudioFormat(sampleRate: 1, channels: 1, encoding: .s16)
    public private(set) var totalFrames: Int64?
    public let path: String

    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    private var initialised = false
    private var sawStreamInfo = false
    private var sourceBits = 16
    private var shift: Int32 = 0
    private var maxBlockSize = 0
    /// Decoded frames not yet handed out, already interleaved in `format` (a block can outsize the caller's buffer).
    private var pending: UnsafeMutableRawPointer
    private var pendingBytes = 0
    private var pendingStart = 0
    private var pendingCount = 0
    /// Index of the frame after the last one libFLAC delivered.
    private var decodedEnd: Int64 = 0
    private var atEnd = false
    /// `process_single` calls in a row that produced no audio (metadata blocks); bounded so nothing can spin.
    private var idleSteps = 0
    /// The first damage seen; `read` throws it.
    private var failure: DecoderError?

    /// Opens `path` and reads its metadata. Not FLAC → `.unsupported`; bad or missing STREAMINFO → `.corrupt`.
    public init(path: String) throws(DecoderError) {
        let probe = try FileProbe(path: path)
        guard probe.isFLAC else { throw .unsupported(path: path, reason: "no fLaC signature") }
        guard let decoder = FLAC__stream_decoder_new() else {
            throw .unreadable(path: path, reason: "cannot allocate a FLAC decoder")
        }
        self.path = path
        self.decoder = decoder
        pending = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        pendingBytes = 16

        FLAC__stream_decoder_set_md5_checking(decoder, 0)
        let client = Unmanaged.passUnretained(self).toOpaque()
        // The path's raw bytes (a file name need not be UTF-8: `RawPath`).
        let status = RawPath.withCString(path) {
            FLAC__stream_decoder_init_file(decoder, $0, flacWriteCallback, flacMetadataCallback, flacErrorCallback, client)
        }
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            if status == FLAC__STREAM_DECODER_INIT_STATUS_ERROR_OPENING_FILE {
                throw .unreadable(path: path, reason: "libFLAC cannot open the file")
            }
            throw .unreadable(path: path, reason: "libFLAC init status \(status.rawValue)")
        }
        initialised = true
        try readMetadata()
    }

    deinit {
        if initialised { FLAC__stream_decoder_finish(decoder) }
        FLAC__stream_decoder_delete(decoder)
        pending.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let bytesPerFrame = format.bytesPerFrame
        let wanted = buffer.count / bytesPerFrame
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        var produced = 0
        while produced < wanted {
            if let failure {
                if produced > 0 { return produced }
                throw failure
            }
            if pendingCount == 0 {
                if atEnd || !decodeNextBlock() { break }
                continue
            }
            let count = min(pendingCount, wanted - produced)
            memcpy(base + produced * bytesPerFrame, pending + pendingStart * bytesPerFrame, count * bytesPerFrame)
            produced += count
            pendingStart += count
            pendingCount -= count
        }
        return produced
    }

    /// Sample-accurate. When libFLAC cannot seek (damaged or missing frames), throws `.seekFailed` and leaves the
    /// decoder rewound to frame 0.
    public func seek(toFrame frame: Int64) throws(DecoderError) {
        let target = max(0, frame)
        pendingCount = 0
        pendingStart = 0
        failure = nil
        atEnd = false
        if let totalFrames, target >= totalFrames {
            // libFLAC cannot seek to the end itself; the next read simply reports the end.
            decodedEnd = totalFrames
            atEnd = true
            return
        }
        decodedEnd = target
        let ok = FLAC__stream_decoder_seek_absolute(decoder, FLAC__uint64(target)) != 0
        if ok, failure == nil { return }
        let reason = failure.map { "\($0)" } ?? "libFLAC state \(stateName)"
        try recoverFromFailedSeek()
        throw .seekFailed(path: path, reason: reason)
    }

    // MARK: - Decoding steps

    private func readMetadata() throws(DecoderError) {
        let ok = FLAC__stream_decoder_process_until_end_of_metadata(decoder) != 0
        if let failure { throw failure }
        guard ok else { throw .corrupt(path: path, reason: "cannot read metadata (libFLAC state \(stateName))") }
        guard sawStreamInfo else { throw .corrupt(path: path, reason: "no STREAMINFO block") }
    }

    /// Decodes one more block into `pending`. Returns false at a clean end of stream; records damage in `failure`.
    private func decodeNextBlock() -> Bool {
        if FLAC__stream_decoder_get_state(decoder) != FLAC__STREAM_DECODER_END_OF_STREAM {
            let ok = FLAC__stream_decoder_process_single(decoder) != 0
            if let failure {
                // Damage right before the end of a short file (a frame cut in half) is reported as truncation.
                if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_END_OF_STREAM,
                   let totalFrames, decodedEnd < totalFrames {
                    self.failure = .corrupt(path: path, reason: "truncated: stream ends at frame \(decodedEnd) of "
                        + "\(totalFrames) (\(failure.reason))")
                }
                return true
            }
            if pendingCount > 0 { return true }
            // A file cut inside a frame ends with process_single failing in END_OF_STREAM: handled below.
            if FLAC__stream_decoder_get_state(decoder) != FLAC__STREAM_DECODER_END_OF_STREAM {
                idleSteps += 1
                if !ok || idleSteps > 100_000 {
                    failure = .corrupt(path: path, reason: "libFLAC stopped (state \(stateName))")
                }
                return true
            }
        }
        if let totalFrames, decodedEnd < totalFrames {
            failure = .corrupt(path: path, reason: "truncated: stream ends at frame \(decodedEnd) of \(totalFrames)")
            return true
        }
        atEnd = true
        return false
    }

    /// After a failed seek libFLAC sits in SEEK_ERROR: flush, rewind to the start and re-read the metadata.
    private func recoverFromFailedSeek() throws(DecoderError) {
        pendingCount = 0
        pendingStart = 0
        failure = nil
        atEnd = false
        if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_SEEK_ERROR {
            _ = FLAC__stream_decoder_flush(decoder)
        }
        guard FLAC__stream_decoder_reset(decoder) != 0 else {
            failure = .corrupt(path: path, reason: "cannot rewind after a failed seek")
            return
        }
        decodedEnd = 0
        do {
            try readMetadata()
        } catch {
            failure = error
        }
    }

    private var stateName: String {
        let state = FLAC__stream_decoder_get_state(decoder)
        switch state {
        case FLAC__STREAM_DECODER_SEARCH_FOR_METADATA: return "SEARCH_FOR_METADATA"
        case FLAC__STREAM_DECODER_READ_METADATA: return "READ_METADATA"
        case FLAC__STREAM_DECODER_SEARCH_FOR_FRAME_SYNC: return "SEARCH_FOR_FRAME_SYNC"
        case FLAC__STREAM_DECODER_READ_FRAME: return "READ_FRAME"
        case FLAC__STREAM_DECODER_END_OF_STREAM: return "END_OF_STREAM"
        case FLAC__STREAM_DECODER_OGG_ERROR: return "OGG_ERROR"
        case FLAC__STREAM_DECODER_SEEK_ERROR: return "SEEK_ERROR"
        case FLAC__STREAM_DECODER_ABORTED: return "ABORTED"
        case FLAC__STREAM_DECODER_MEMORY_ALLOCATION_ERROR: return "MEMORY_ALLOCATION_ERROR"
        default: return "state \(state.rawValue)"
        }
    }

    // MARK: - libFLAC callbacks (called synchronously on the decoder thread)

    fileprivate func receiveStreamInfo(_ info: FLAC__StreamMetadata_StreamInfo) {
        let rate = Int(info.sample_rate), channels = Int(info.channels), bits = Int(info.bits_per_sample)
        let minBlock = Int(info.min_blocksize), maxBlock = Int(info.max_blocksize)
        guard rate > 0, AudioFormat.channelRange.contains(channels), (4...32).contains(bits), maxBlock >= 16, minBlock <= maxBlock else {
            failure = .corrupt(
                path: path,
                reason: "bad STREAMINFO (\(rate) Hz, \(channels) ch, \(bits) bit, blocks \(minBlock)–\(maxBlock))")
            return
        }
        let encoding: SampleEncoding = bits <= 16 ? .s16 : .s32
        format = AudioFormat(sampleRate: rate, channels: channels, encoding: encoding, validBits: bits)
        totalFrames = info.total_samples > 0 ? Int64(info.total_samples) : nil
        sourceBits = bits
        shift = Int32(encoding.bytes * 8 - bits)
        maxBlockSize = maxBlock
        let needed = maxBlock * format.bytesPerFrame
        if needed > pendingBytes {
            pending.deallocate()
            pending = UnsafeMutableRawPointer.allocate(byteCount: needed, alignment: 16)
            pendingBytes = needed
        }
        sawStreamInfo = true
    }

    fileprivate func receiveFrame(
        _ frame: UnsafePointer<FLAC__Frame>, _ channelData: UnsafePointer<UnsafePointer<FLAC__int32>?>
    ) -> FLAC__StreamDecoderWriteStatus {
        let header = frame.pointee.header
        let blockSize = Int(header.blocksize)
        let channels = format.channels
        guard sawStreamInfo else {
            failure = .corrupt(path: path, reason: "audio frame before STREAMINFO")
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        guard Int(header.channels) == channels, Int(header.bits_per_sample) == sourceBits,
              Int(header.sample_rate) == format.sampleRate, blockSize <= maxBlockSize else {
            failure = .corrupt(
                path: path,
                reason: "frame (\(header.sample_rate) Hz, \(header.channels) ch, \(header.bits_per_sample) bit, "
                    + "\(blockSize) samples) disagrees with STREAMINFO")
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        decodedEnd += Int64(blockSize)
        idleSteps = 0
        if let totalFrames, decodedEnd > totalFrames {
            failure = .corrupt(path: path, reason: "more audio than the \(totalFrames) frames STREAMINFO states")
            return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
        }
        for channel in 0..<channels {
            guard let source = channelData[channel] else {
                failure = .corrupt(path: path, reason: "libFLAC delivered no samples for channel \(channel)")
                return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
            }
            if format.encoding == .s16 {
                let out = pending.bindMemory(to: Int16.self, capacity: blockSize * channels)
                for index in 0..<blockSize {
                    out[index * channels + channel] = Int16(truncatingIfNeeded: source[index] &<< shift)
                }
            } else {
                let out = pending.bindMemory(to: Int32.self, capacity: blockSize * channels)
                for index in 0..<blockSize {
                    out[index * channels + channel] = source[index] &<< shift
                }
            }
        }
        pendingStart = 0
        pendingCount = blockSize
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    fileprivate func receiveError(_ status: FLAC__StreamDecoderErrorStatus) {
        guard failure == nil else { return }
        let what: String
        switch status {
        case FLAC__STREAM_DECODER_ERROR_STATUS_LOST_SYNC: what = "lost sync"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_HEADER: what = "bad frame header"
        case FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH: what = "frame CRC mismatch"
        case FLAC__STREAM_DECODER_ERROR_STATUS_UNPARSEABLE_STREAM: what = "unparseable stream"
        case FLAC__STREAM_DECODER_ERROR_STATUS_BAD_METADATA: what = "bad metadata"
        default: what = "decoder error \(status.rawValue)"
        }
        failure = .corrupt(path: path, reason: "\(what) after frame \(decodedEnd)")
    }
}

private func flacWriteCallback(
    _ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ frame: UnsafePointer<FLAC__Frame>?,
    _ buffer: UnsafePointer<UnsafePointer<FLAC__int32>?>?, _ client: UnsafeMutableRawPointer?
) -> FLAC__StreamDecoderWriteStatus {
    guard let frame, let buffer, let client else { return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT }
    return Unmanaged<FLACDecoder>.fromOpaque(client).takeUnretainedValue().receiveFrame(frame, buffer)
}

private func flacMetadataCallback(
    _ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ metadata: UnsafePointer<FLAC__StreamMetadata>?,
    _ client: UnsafeMutableRawPointer?
) {
    guard let metadata, let client, metadata.pointee.type == FLAC__METADATA_TYPE_STREAMINFO else { return }
    Unmanaged<FLACDecoder>.fromOpaque(client).takeUnretainedValue().receiveStreamInfo(metadata.pointee.data.stream_info)
}

private func flacErrorCallback(
    _ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ status: FLAC__StreamDecoderErrorStatus,
    _ client: UnsafeMutableRawPointer?
) {
    guard let client else { return }
    Unmanaged<FLACDecoder>.fromOpaque(client).takeUnretainedValue().receiveError(status)
}
