import AudioCore
import CFLAC
import Glibc

/// One take being encoded: libFLAC's stream encoder writing to the take's partial file through our own write
/// callback, so a failed write (a full disk, a device gone) is seen at once, kept as the errno, and the take abandoned
/// — its partial file removed, never committed. Frames come in interleaved in the capture's format (16- or 32-bit
/// signed; 24 valid bits kept as 24).
///
/// Threads: the take writer's thread only (it may block on the disk); never the capture thread.
final class TakeEncoder {
    let format: AudioFormat
    private var encoder: UnsafeMutablePointer<FLAC__StreamEncoder>?
    private let fd: Int32
    /// The first write error (errno), if any.
    fileprivate(set) var writeError: Int32 = 0
    private let samples: UnsafeMutablePointer<FLAC__int32>
    private let blockFrames: Int
    private(set) var frames: Int64 = 0

    /// Opens `path` (created exclusively unless `exclusive` is false: tests write to `/dev/full`) and starts a FLAC
    /// stream at `format`.
    init(path: String, format: AudioFormat, exclusive: Bool = true, blockFrames: Int = 4096) throws(TakeFolder.Failure) {
        self.format = format
        self.blockFrames = blockFrames
        samples = .allocate(capacity: blockFrames * format.channels)
        fd = open(path, O_WRONLY | O_CREAT | (exclusive ? O_EXCL : 0) | O_CLOEXEC, 0o644)
        // Every stored property is set from here: a throw runs `deinit`, which closes and frees.
        guard fd >= 0 else { throw TakeFolder.Failure("creating \(path)", errno: errno) }
        guard let encoder = FLAC__stream_encoder_new() else {
            throw TakeFolder.Failure("starting the FLAC encoder", errno: ENOMEM)
        }
        self.encoder = encoder
        let bits = format.encoding == .s16 ? 16 : min(24, max(16, format.validBits))
        FLAC__stream_encoder_set_channels(encoder, UInt32(format.channels))
        FLAC__stream_encoder_set_bits_per_sample(encoder, UInt32(bits))
        FLAC__stream_encoder_set_sample_rate(encoder, UInt32(format.sampleRate))
        FLAC__stream_encoder_set_compression_level(encoder, 5)
        let status = FLAC__stream_encoder_init_stream(
            encoder, { _, buffer, bytes, _, _, context in
                let me = Unmanaged<TakeEncoder>.fromOpaque(context!).takeUnretainedValue()
                return me.write(buffer!, count: bytes)
            }, { _, offset, context in
                // Seek and tell let libFLAC write the totals and the MD5 into the header when the take ends.
                let me = Unmanaged<TakeEncoder>.fromOpaque(context!).takeUnretainedValue()
                return lseek(me.fd, off_t(offset), SEEK_SET) < 0
                    ? FLAC__STREAM_ENCODER_SEEK_STATUS_ERROR : FLAC__STREAM_ENCODER_SEEK_STATUS_OK
            }, { _, offset, context in
                let me = Unmanaged<TakeEncoder>.fromOpaque(context!).takeUnretainedValue()
                let at = lseek(me.fd, 0, SEEK_CUR)
                guard at >= 0, let offset else { return FLAC__STREAM_ENCODER_TELL_STATUS_ERROR }
                offset.pointee = FLAC__uint64(at)
                return FLAC__STREAM_ENCODER_TELL_STATUS_OK
            }, nil, Unmanaged.passUnretained(self).toOpaque())
        guard status == FLAC__STREAM_ENCODER_INIT_STATUS_OK else {
            FLAC__stream_encoder_delete(encoder)
            self.encoder = nil
            // The header's write may be what failed (a full disk): its errno says so.
            throw TakeFolder.Failure("starting take \(path)", errno: writeError != 0 ? writeError : EINVAL)
        }
    }

    deinit {
        if let encoder { FLAC__stream_encoder_delete(encoder) }
        if fd >= 0 { close(fd) }
        samples.deallocate()
    }

    private func write(_ buffer: UnsafePointer<FLAC__byte>, count: Int) -> FLAC__StreamEncoderWriteStatus {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, buffer + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                writeError = errno
                return FLAC__STREAM_ENCODER_WRITE_STATUS_FATAL_ERROR
            }
            done += n
        }
        return FLAC__STREAM_ENCODER_WRITE_STATUS_OK
    }

    /// Encodes `count` frames at `bytes` (interleaved, `format`). False once a write failed (see `writeError`).
    func append(_ bytes: UnsafeRawPointer, frames count: Int) -> Bool {
        guard let encoder, writeError == 0 else { return false }
        var offset = 0
        let channels = format.channels
        while offset < count {
            let n = min(blockFrames, count - offset)
            let base = bytes + offset * format.bytesPerFrame
            for i in 0..<(n * channels) {
                switch format.encoding {
                case .s16: samples[i] = FLAC__int32(base.loadUnaligned(fromByteOffset: i * 2, as: Int16.self))
                case .s32:
                    let value = base.loadUnaligned(fromByteOffset: i * 4, as: Int32.self)
                    samples[i] = format.validBits >= 24 ? value >> 8 : value >> 16
                default: samples[i] = 0
                }
            }
            guard FLAC__stream_encoder_process_interleaved(encoder, samples, UInt32(n)) != 0 else {
                if writeError == 0 { writeError = EIO }
                return false
            }
            offset += n
            frames += Int64(n)
        }
        return true
    }

    /// Ends the stream (the last frame and the header's totals written). False when a write failed.
    func finish() -> Bool {
        guard let encoder else { return false }
        let ok = FLAC__stream_encoder_finish(encoder) != 0 && writeError == 0
        if !ok && writeError == 0 { writeError = EIO }
        return ok
    }
}
