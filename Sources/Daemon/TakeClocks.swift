import Engine
import Recording

/// The two clock lines a recording places its takes by — the output's (when each ring frame is heard) and the
/// capture's (which capture frame is taken in when) — fed one reading of each per tick, each line restarted when its
/// device's readings start a new line: the output's epoch (a flush, a rewind, a reopening, an underrun) and the
/// capture's (an overrun: the frames the device lost are not counted). An xrun on either side also cuts the take being
/// recorded: the music stopped for a moment, or the capture has a hole.
///
/// Threads: a value, owned by the recording session (the recording service's task).
struct TakeClocks {
    private(set) var output: ClockLine
    private(set) var capture: ClockLine
    let latencyFrames: Int
    private var outputEpoch = 0
    private var outputXruns: Int?
    private var captureEpoch: Int?

    init(outputRate: Int, captureRate: Int, latencyFrames: Int) {
        output = ClockLine(nominalRate: outputRate)
        capture = ClockLine(nominalRate: captureRate)
        self.latencyFrames = latencyFrames
    }

    /// Takes one reading of each clock; answers why the take being recorded must be abandoned, if an xrun happened
    /// since the last readings.
    mutating func sample(heard: HeardClockReading, capture reading: CaptureClockReading) -> String? {
        var cut: String?
        if heard.bytesPerFrame > 0 {
            if heard.epoch != outputEpoch {
                outputEpoch = heard.epoch
                output.reset()
            }
            if let seen = outputXruns, heard.xruns != seen {
                cut = "the output ran under (an xrun): the music stopped for a moment"
            }
            outputXruns = heard.xruns
            output.add(frame: heard.frame, nanoseconds: heard.nanoseconds)
        }
        if reading.nanoseconds > 0 {
            if let seen = captureEpoch, reading.epoch != seen {
                capture.reset()
                cut = "the capture ran over (an xrun): frames were lost"
            }
            captureEpoch = reading.epoch
            capture.add(frame: reading.frame, nanoseconds: reading.nanoseconds)
        }
        return cut
    }

    /// Where the listener's sound from `mark` arrives in the capture: its heard instant through the output's line,
    /// that instant through the capture's line, plus the round trip. Nil until both lines have a dozen readings of
    /// their current epochs, or for a mark of an older output epoch.
    func captureFrame(for mark: HeardMark) -> Int64? {
        guard mark.epoch == outputEpoch, output.count >= 12, capture.count >= 12,
              let instant = output.nanoseconds(atFrame: Double(mark.frame)),
              let frame = capture.frame(atNanoseconds: instant), frame.isFinite, abs(frame) < 1e15 else { return nil }
        return Int64(frame.rounded()) + Int64(latencyFrames)
    }
}
