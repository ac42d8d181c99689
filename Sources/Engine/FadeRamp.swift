import AudioCore

/// The output's fade as one value: where the level is and where it is going, applied frame by frame to each block the
/// output writes. The level is the square of a position that moves linearly, one step per frame, so the fade is
/// sample-smooth and monotonic (it never turns back within an order) and sounds even rather than sudden at its end.
/// Steps are worked out at the device's rate on the first block after an order, so a fade asked for while the device
/// is closed lasts what it says once it opens. At unity it touches nothing: the bit-exact path stays bit-exact.
///
/// No allocation, no lock: it runs on the real-time thread. Tested with no thread (`FadeRampTests`).
///
/// Threads: owned by `OutputLoop`, used on the output thread only.
struct FadeRamp {
    enum Motion: Equatable {
        case unity
        /// Towards silence over `milliseconds` from where it is (step per frame once known).
        case falling(milliseconds: Int, step: Double?)
        /// Silent, holding until released.
        case silent
        /// Towards unity over `milliseconds` from where it is.
        case rising(milliseconds: Int, step: Double?)
    }

    /// 0 (silence) to 1 (unity); the level is its square.
    private(set) var position = 1.0
    private(set) var motion = Motion.unity
    /// The order being carried out (0: none yet).
    private(set) var serial = 0

    var level: Double { position * position }
    var isUnity: Bool { motion == .unity }

    /// What the report says now: pending until its first frame is played (taken while the device was closed,
    /// paused or missing, nothing of it was heard yet).
    var state: OutputFadeState {
        switch motion {
        case .unity: .done
        case .falling(_, nil), .rising(_, nil): .pending
        case .falling: .falling
        case .silent: .silent
        case .rising: .rising
        }
    }

    /// Takes a new order.
    mutating func take(_ order: FadeOrder) {
        serial = order.serial
        switch order.kind {
        case .out:
            motion = order.milliseconds == 0 || position <= 0 ? .silent : .falling(milliseconds: order.milliseconds, step: nil)
            if motion == .silent { position = 0 }
        case .fromSilence:
            position = 0
            motion = order.milliseconds == 0 ? .unity : .rising(milliseconds: order.milliseconds, step: nil)
            if motion == .unity { position = 1 }
        case .restore:
            motion = order.milliseconds == 0 || position >= 1 ? .unity : .rising(milliseconds: order.milliseconds, step: nil)
            if motion == .unity { position = 1 }
        }
    }

    /// The output paused, stopped or closed: a fade to silence that has begun lets go (the level is unity again, so
    /// the next play is heard at its volume). One not begun yet — asked for while the device was closed or paused,
    /// or starting — waits for the output to play. True when it let go.
    mutating func release() -> Bool {
        switch motion {
        case .falling(_, .some), .silent:
            position = 1
            motion = .unity
            return true
        case .falling, .unity, .rising:
            return false
        }
    }

    /// Applies the fade to `frames` frames in place; true when the motion changed (reached silence or unity).
    mutating func apply(_ buffer: UnsafeMutableRawPointer, frames: Int, format: AudioFormat) -> Bool {
        guard frames > 0 else { return false }
        switch motion {
        case .unity:
            return false
        case .silent:
            SampleMath.silence(buffer, frames: frames, format: format)
            return false
        case let .falling(milliseconds, step):
            let step = step ?? position / Double(max(1, format.frames(forMilliseconds: milliseconds)))
            let done = Self.ramp(buffer, frames: frames, format: format, from: &position, step: -step, to: 0)
            motion = done < frames ? .silent : .falling(milliseconds: milliseconds, step: step)
            if done < frames {
                SampleMath.silence(buffer + done * format.bytesPerFrame, frames: frames - done, format: format)
                return true
            }
            return false
        case let .rising(milliseconds, step):
            let step = step ?? (1 - position) / Double(max(1, format.frames(forMilliseconds: milliseconds)))
            let done = Self.ramp(buffer, frames: frames, format: format, from: &position, step: step, to: 1)
            motion = done < frames ? .unity : .rising(milliseconds: milliseconds, step: step)
            return done < frames
        }
    }

    /// Multiplies frame after frame by `position²`, moving `position` by `step` after each, until it reaches `end`;
    /// returns how many frames it covered before reaching it (`frames` when it did not). Frames after are untouched.
    private static func ramp(_ buffer: UnsafeMutableRawPointer, frames: Int, format: AudioFormat,
                             from position: inout Double, step: Double, to end: Double) -> Int {
        let channels = format.channels
        var p = position
        var frame = 0
        func reached(_ p: Double) -> Bool { step < 0 ? p <= end : p >= end }
        switch format.encoding {
        case .s16:
            let samples = buffer.assumingMemoryBound(to: Int16.self)
            while frame < frames && !reached(p) {
                let g = p * p
                for c in 0..<channels { let i = frame * channels + c; samples[i] = SampleMath.clampS16(Double(samples[i]) * g) }
                p += step
                frame += 1
            }
        case .s32:
            let samples = buffer.assumingMemoryBound(to: Int32.self)
            while frame < frames && !reached(p) {
                let g = p * p
                for c in 0..<channels { let i = frame * channels + c; samples[i] = SampleMath.clampS32(Double(samples[i]) * g) }
                p += step
                frame += 1
            }
        case .f32:
            let samples = buffer.assumingMemoryBound(to: Float.self)
            while frame < frames && !reached(p) {
                let g = Float(p * p)
                for c in 0..<channels { samples[frame * channels + c] *= g }
                p += step
                frame += 1
            }
        }
        position = reached(p) ? end : p
        return frame
    }
}
