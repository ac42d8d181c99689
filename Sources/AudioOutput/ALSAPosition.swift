import AudioCore
import CALSA

/// A PCM's position as ALSA's kernel stamps it: the frames between the application's pointer and the hardware's
/// (`delay`: written and not yet played, or captured and not yet read) with the CLOCK_MONOTONIC instant the hardware
/// pointer was at that place, both from one `snd_pcm_status` call. Reading `snd_pcm_delay` and then the clock paired a
/// count with a later instant whenever the thread was preempted between the two (a loaded board, a VM's vCPU): the
/// recording's clock lines then placed a take up to 12 ms late. The kernel takes the stamp with the pointer, under
/// the stream's lock; a device that gives no usable stamp (zero, or not within the read) is stamped with the instant
/// of the read, as before.
///
/// Threads: one owner, the thread that reads or writes the PCM (the output or the capture thread); `read` does not
/// allocate or lock (its status block is allocated at `init`).
public final class ALSAPosition {
    private var status: OpaquePointer?

    public init() { snd_pcm_status_malloc(&status) }
    deinit { snd_pcm_status_free(status) }

    /// Asks `pcm` to stamp its hardware pointer on every status, with CLOCK_MONOTONIC: set on `sw` (its software
    /// parameters, before `snd_pcm_sw_params`). A device that refuses keeps its default (the fallback applies).
    public static func enableStamps(_ pcm: OpaquePointer, _ sw: OpaquePointer?) {
        snd_pcm_sw_params_set_tstamp_mode(pcm, sw, SND_PCM_TSTAMP_ENABLE)
        snd_pcm_sw_params_set_tstamp_type(pcm, sw, SND_PCM_TSTAMP_TYPE_MONOTONIC)
    }

    /// One reading: the delay in frames, the instant it holds at, and whether that instant is the device's stamp
    /// (false: the device gave none, and the instant is the read's end).
    public struct Reading: Equatable, Sendable {
        public var frames: Int
        public var nanoseconds: UInt64
        public var stamped: Bool
    }

    /// The position now; nil when the status cannot be read.
    public func read(_ pcm: OpaquePointer) -> Reading? {
        let before = MonotonicClock.nanoseconds()
        guard let status, snd_pcm_status(pcm, status) >= 0 else { return nil }
        let after = MonotonicClock.nanoseconds()
        let frames = max(0, Int(snd_pcm_status_get_delay(status)))
        var stamp = snd_htimestamp_t()
        snd_pcm_status_get_htstamp(status, &stamp)
        guard stamp.tv_sec >= 0, stamp.tv_nsec >= 0, stamp.tv_sec < 1 << 40 else {
            return Reading(frames: frames, nanoseconds: after, stamped: false)
        }
        let nanoseconds = UInt64(stamp.tv_sec) * 1_000_000_000 + UInt64(stamp.tv_nsec)
        // The kernel stamps the pointer while answering this call: a stamp outside it is another clock, or none.
        guard nanoseconds >= before, nanoseconds <= after else {
            return Reading(frames: frames, nanoseconds: after, stamped: false)
        }
        return Reading(frames: frames, nanoseconds: nanoseconds, stamped: true)
    }
}
