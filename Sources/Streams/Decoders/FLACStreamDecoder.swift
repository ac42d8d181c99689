import AudioCore
import CFLAC

/// FLAC from a stream (native or in Ogg) through libFLAC's stream decoder with no seek callbacks, packed as the file
/// decoder packs it (16-bit samples as s16, more as s32, left-justified with the meaningful bits in `validBits`).
/// A damaged frame is skipped (libFLAC resynchronises); a frame in another format ends the stream.
///
/// Threads: one stream thread (libFLAC calls back on it, inside `process_single`).
final class FLACStreamDecoder: StreamDecoder {
    private(set) var format = AudioFormat(sampleRate: 44_100, channels: 2, encoding: .s16)
    private let decoder: UnsafeMutablePointer<FLAC__StreamDecoder>
    private let input: CallbackSource
    private var info: (rate: Int, channels: Int, bits: Int)?
    private var shift: Int32 = 0
    /// Decoded frames not yet handed out, in `format`.
    private var pending: [UInt8] = []
    private var pendingStart = 0
    private var failure: StreamError?
    private var ended = false
    private var damaged = 0

    init(source: any StreamByteSource, ogg: Bool) throws(StreamError) {
        guard let decoder = FLAC__stream_decoder_new() else { throw .content("cannot allocate a FLAC decoder") }
        self.decoder = decoder
        input = CallbackSource(source)
        let client = Unmanaged.passUnretained(self).toOpaque()
        let status = ogg
            ? FLAC__stream_decoder_init_ogg_stream(decoder, flacStreamRead, nil, nil, nil, nil, flacStreamWrite,
                                                   flacStreamMetadata, flacStreamError, client)
            : FLAC__stream_decoder_init_stream(decoder, flacStreamRead, nil, nil, nil, nil, flacStreamWrite,
                                               flacStreamMetadata, flacStreamError, client)
        guard status == FLAC__STREAM_DECODER_INIT_STATUS_OK else {
            throw .content("libFLAC cannot read this stream (init status \(status.rawValue))")
        }
        // The first frame gives the format (STREAMINFO may be missing when a stream is joined mid-way).
        while pending.isEmpty {
            guard FLAC__stream_decoder_process_single(decoder) != 0 else {
                throw input.failure(failure ?? .content("no FLAC audio frame could be decoded"))
            }
            if let failure { throw input.failure(failure) }
            if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_END_OF_STREAM {
                throw input.failure(.content("the stream ended before any FLAC audio frame"))
            }
        }
    }

    deinit {
        FLAC__stream_decoder_finish(decoder)
        FLAC__stream_decoder_delete(decoder)
    }

    func decode(into buffer: UnsafeMutableRawBufferPointer) throws(StreamError) -> Int {
        let bytesPerFrame = format.bytesPerFrame
        let wanted = buffer.count / bytesPerFrame
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        while pendingStart >= pending.count {
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            guard !ended else { return 0 }
            let ok = FLAC__stream_decoder_process_single(decoder) != 0
            if let failure { throw input.failure(failure) }
            if FLAC__stream_decoder_get_state(decoder) == FLAC__STREAM_DECODER_END_OF_STREAM || !ok {
                if let error = input.error { throw error }
                guard ok else { throw .content("FLAC decoding failed") }
                ended = true
            }
        }
        let frames = min(wanted, (pending.count - pendingStart) / bytesPerFrame)
        pending.withUnsafeBytes { source in
            base.copyMemory(from: source.baseAddress! + pendingStart, byteCount: frames * bytesPerFrame)
        }
        pendingStart += frames * bytesPerFrame
        return frames
    }

    // MARK: libFLAC's callbacks

    fileprivate func read(_ buffer: UnsafeMutablePointer<FLAC__byte>, _ count: UnsafeMutablePointer<Int>)
        -> FLAC__StreamDecoderReadStatus {
        let got = input.read(buffer, count.pointee)
        count.pointee = got
        return got > 0 ? FLAC__STREAM_DECODER_READ_STATUS_CONTINUE
            : input.error != nil ? FLAC__STREAM_DECODER_READ_STATUS_ABORT : FLAC__STREAM_DECODER_READ_STATUS_END_OF_STREAM
    }

    fileprivate func receive(_ frame: UnsafePointer<FLAC__Frame>, _ channelData: UnsafePointer<UnsafePointer<FLAC__int32>?>)
        -> FLAC__StreamDecoderWriteStatus {
        let header = frame.pointee.header
        let rate = Int(header.sample_rate), channels = Int(header.channels), bits = Int(header.bits_per_sample)
        let blockSize = Int(header.blocksize)
        if let info {
            guard info == (rate, channels, bits) else {
                failure = .content("the stream changed its format to \(rate) Hz, \(channels) channels, \(bits) bit")
                return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
            }
        } else {
            guard AudioFormat.sampleRateRange.contains(rate), AudioFormat.channelRange.contains(channels),
                  (4...32).contains(bits) else {
                failure = .content("FLAC in an unusable format (\(rate) Hz, \(channels) channels, \(bits) bit)")
                return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT
            }
            info = (rate, channels, bits)
            let encoding: SampleEncoding = bits <= 16 ? .s16 : .s32
            format = AudioFormat(sampleRate: rate, channels: channels, encoding: encoding, validBits: bits)
            shift = Int32(encoding.bytes * 8 - bits)
        }
        let start = pending.count
        pending.append(contentsOf: repeatElement(0, count: blockSize * format.bytesPerFrame))
        pending.withUnsafeMutableBytes { raw in
            let out = raw.baseAddress! + start
            for channel in 0..<channels {
                guard let source = channelData[channel] else { continue }
                if format.encoding == .s16 {
                    let samples = out.assumingMemoryBound(to: Int16.self)
                    for index in 0..<blockSize {
                        samples[index * channels + channel] = Int16(truncatingIfNeeded: source[index] &<< shift)
                    }
                } else {
                    let samples = out.assumingMemoryBound(to: Int32.self)
                    for index in 0..<blockSize { samples[index * channels + channel] = source[index] &<< shift }
                }
            }
        }
        return FLAC__STREAM_DECODER_WRITE_STATUS_CONTINUE
    }

    fileprivate func damagedFrame() {
        damaged += 1
        if damaged > 1000 { failure = .content("over 1000 damaged FLAC frames") }
    }
}

private func flacStreamRead(_ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ buffer: UnsafeMutablePointer<FLAC__byte>?,
                            _ count: UnsafeMutablePointer<Int>?, _ client: UnsafeMutableRawPointer?)
    -> FLAC__StreamDecoderReadStatus {
    guard let buffer, let count, let client else { return FLAC__STREAM_DECODER_READ_STATUS_ABORT }
    return Unmanaged<FLACStreamDecoder>.fromOpaque(client).takeUnretainedValue().read(buffer, count)
}

private func flacStreamWrite(_ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ frame: UnsafePointer<FLAC__Frame>?,
                             _ buffer: UnsafePointer<UnsafePointer<FLAC__int32>?>?, _ client: UnsafeMutableRawPointer?)
    -> FLAC__StreamDecoderWriteStatus {
    guard let frame, let buffer, let client else { return FLAC__STREAM_DECODER_WRITE_STATUS_ABORT }
    return Unmanaged<FLACStreamDecoder>.fromOpaque(client).takeUnretainedValue().receive(frame, buffer)
}

private func flacStreamMetadata(_ decoder: UnsafePointer<FLAC__StreamDecoder>?,
                                _ metadata: UnsafePointer<FLAC__StreamMetadata>?, _ client: UnsafeMutableRawPointer?) {}

private func flacStreamError(_ decoder: UnsafePointer<FLAC__StreamDecoder>?, _ status: FLAC__StreamDecoderErrorStatus,
                             _ client: UnsafeMutableRawPointer?) {
    guard let client else { return }
    Unmanaged<FLACStreamDecoder>.fromOpaque(client).takeUnretainedValue().damagedFrame()
}
