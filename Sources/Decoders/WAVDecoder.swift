import AudioCore
import Glibc

/// Reads a RIFF/WAVE file with plain POSIX I/O: PCM 8 (unsigned), 16, 24 and 32-bit (any valid-bit count, plain or
/// WAVE_FORMAT_EXTENSIBLE) as left-justified `.s16`/`.s32`, and IEEE float 32/64-bit as `.f32`.
///
/// The decoder thread only: create, read, seek and release it there.
///
/// A `data` chunk that claims more bytes than the file holds (a truncated file, or a streaming header with size 0 or
/// 0xFFFFFFFF) plays what is there: `totalFrames` counts the whole frames actually present.
public final class WAVDecoder: AudioDecoder {
    public let format: AudioFormat
    public let totalFrames: Int64?
    public let path: String

    private let fd: Int32
    private let layout: WAVLayout
    private let frames: Int64
    private var position: Int64 = 0
    /// Staging for data that needs converting (8-bit, 24-bit, float64); 64 KiB, whole frames.
    private let staging: UnsafeMutableRawPointer
    private let stagingFrames: Int

    private static let stagingBytes = 64 * 1024

    /// Opens `path` and parses its header. Not RIFF/WAVE → `.unsupported`; a bad `fmt ` → `.corrupt`.
    public init(path: String) throws(DecoderError) {
        let fd = try PosixFile.open(path)
        let layout: WAVLayout
        do throws(DecoderError) {
            let size = try PosixFile.size(fd, path: path)
            guard size > 0 else { throw DecoderError.corrupt(path: path, reason: "empty file") }
            layout = try WAVLayout.parse(fd: fd, fileSize: size, path: path, wantInfo: false)
        } catch {
            close(fd)
            throw error
        }
        self.fd = fd
        self.path = path
        self.layout = layout
        format = layout.format
        frames = layout.frames
        totalFrames = layout.frames
        stagingFrames = max(1, Self.stagingBytes / layout.blockAlign)
        staging = UnsafeMutableRawPointer.allocate(byteCount: stagingFrames * layout.blockAlign, alignment: 16)
    }

    deinit {
        close(fd)
        staging.deallocate()
    }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        let outFrameBytes = format.bytesPerFrame
        let wanted = Int(min(Int64(buffer.count / outFrameBytes), frames - position))
        guard wanted > 0, let base = buffer.baseAddress else { return 0 }
        let samplesPerFrame = format.channels
        var produced = 0
        while produced < wanted {
            let out = base + produced * outFrameBytes
            let offset = layout.dataOffset + position * Int64(layout.blockAlign)
            let got: Int
            if isDirectCopy {
                // Same layout as the output: read straight into the caller's buffer.
                let count = wanted - produced
                let bytes = UnsafeMutableRawBufferPointer(start: out, count: count * layout.blockAlign)
                got = try PosixFile.read(fd, into: bytes, at: offset, path: path) / layout.blockAlign
            } else {
                let count = min(wanted - produced, stagingFrames)
                let bytes = UnsafeMutableRawBufferPointer(start: staging, count: count * layout.blockAlign)
                got = try PosixFile.read(fd, into: bytes, at: offset, path: path) / layout.blockAlign
                convert(samples: got * samplesPerFrame, to: out)
            }
            produced += got
            position += Int64(got)
            if got == 0 { break }  // The file shrank after it was opened: end here.
        }
        return produced
    }

    public func seek(toFrame frame: Int64) throws(DecoderError) {
        position = min(max(0, frame), frames)
    }

    // MARK: - Conversion

    /// True when the stored bytes already are the output samples (16/32-bit integer, float32, little-endian host).
    private var isDirectCopy: Bool {
        #if _endian(little)
        switch layout.storage {
        case .signed(2), .signed(4), .float32: return true
        default: return false
        }
        #else
        return false
        #endif
    }

    private func convert(samples count: Int, to out: UnsafeMutableRawPointer) {
        let source = UnsafeRawPointer(staging)
        switch layout.storage {
        case .unsigned8:
            for index in 0..<count {
                let value = Int16(source.load(fromByteOffset: index, as: UInt8.self)) &- 128
                out.storeBytes(of: value &<< 8, toByteOffset: index * 2, as: Int16.self)
            }
        case .signed(2):
            for index in 0..<count {
                let value = Int16(littleEndian: source.loadUnaligned(fromByteOffset: index * 2, as: Int16.self))
                out.storeBytes(of: value, toByteOffset: index * 2, as: Int16.self)
            }
        case .signed(3):
            for index in 0..<count {
                let byte0 = UInt32(source.load(fromByteOffset: index * 3, as: UInt8.self))
                let byte1 = UInt32(source.load(fromByteOffset: index * 3 + 1, as: UInt8.self))
                let byte2 = UInt32(source.load(fromByteOffset: index * 3 + 2, as: UInt8.self))
                let value = Int32(bitPattern: byte0 << 8 | byte1 << 16 | byte2 << 24)
                out.storeBytes(of: value, toByteOffset: index * 4, as: Int32.self)
            }
        case .signed:
            for index in 0..<count {
                let value = Int32(littleEndian: source.loadUnaligned(fromByteOffset: index * 4, as: Int32.self))
                out.storeBytes(of: value, toByteOffset: index * 4, as: Int32.self)
            }
        case .float32:
            for index in 0..<count {
                let bits = UInt32(littleEndian: source.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self))
                out.storeBytes(of: Float(bitPattern: bits), toByteOffset: index * 4, as: Float.self)
            }
        case .float64:
            for index in 0..<count {
                let bits = UInt64(littleEndian: source.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                out.storeBytes(of: Float(Double(bitPattern: bits)), toByteOffset: index * 4, as: Float.self)
            }
        }
    }
}
