import AudioCore
import Decoders

/// A network stream as the decoder thread reads it: the PCM its `StreamSession` has put in the ring, never waiting
/// for the network. `readAvailable` says "nothing yet" apart from "the end"; the frame count starts at 0 when the
/// stream was opened, and seeking moves within what the ring still holds (the recent past and what is buffered).
///
/// Threads: the decoder thread only.
public final class LiveDecoder: AudioDecoder {
    /// What a read found.
    public enum Read: Equatable {
        case frames(Int)
        /// Nothing buffered now; the stream goes on.
        case waiting
        case ended
        case failed(String)
    }

    public let session: StreamSession
    public let format: AudioFormat
    public let totalFrames: Int64? = nil
    private let ring: StreamRing
    /// The next byte to read.
    private var position = 0
    private var starved = false

    /// The session's decoder, once `session.readiness` is `.ready`.
    public init?(session: StreamSession) {
        guard let ring = session.ring else { return nil }
        self.session = session
        self.ring = ring
        format = ring.format
        position = ring.seekable.lowerBound
    }

    public func readAvailable(into buffer: UnsafeMutableRawBufferPointer) -> Read {
        guard let base = buffer.baseAddress else { return .frames(0) }
        let bytes = ring.read(from: position, into: base, count: buffer.count)
        if bytes > 0 {
            position += bytes
            ring.consumer(at: position)
            session.room.ring()
            starved = false
            return .frames(bytes / format.bytesPerFrame)
        }
        switch session.phase {
        case .ended: return .ended
        case let .failed(why): return .failed(why)
        case .connecting, .playing:
            if !starved {
                starved = true
                session.underruns.add(1, ordering: .relaxed)
            }
            return .waiting
        }
    }

    /// As `readAvailable`, with "nothing yet" as 0 frames (the AudioDecoder contract has no word for it).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(DecoderError) -> Int {
        switch readAvailable(into: buffer) {
        case let .frames(count): return count
        case .waiting, .ended: return 0
        case let .failed(why): throw .unreadable(path: session.url, reason: why)
        }
    }

    /// Moves to `frame` (counted from the stream's opening), within what the ring holds.
    public func seek(toFrame frame: Int64) throws(DecoderError) {
        let bytes = frame.multipliedReportingOverflow(by: Int64(format.bytesPerFrame))
        let wanted = bytes.overflow ? Int.max : Int(clamping: bytes.partialValue)
        let range = ring.seekable
        position = min(max(wanted, range.lowerBound), range.upperBound) / format.bytesPerFrame * format.bytesPerFrame
        ring.consumer(at: position)
    }

    /// The frame the next read starts at.
    public var frame: Int64 { Int64(position / format.bytesPerFrame) }
}
