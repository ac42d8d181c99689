import Glibc

/// The join between two loop passes at a tempo. Each pass is stretched on its own — its end pushed out by the music
/// after B, the next started afresh — so it is exactly its source frames / tempo long; the two streams would meet with
/// a step. So the old stream's output just past the end is kept here, and when the next pass's first frames come the
/// new stream is lined up with it where the two correlate best (skipping up to `searchMilliseconds` of its start, as
/// the stretcher lines up its own segments) and the kept frames fade out under it. The frames skipped are given back
/// at the pass's end (`skipped`: the converter writes that many more of the old stream there), so lengths do not
/// change.
///
/// Threads: owned by `FormatConverter` (the decoder thread). Its buffer is allocated once.
final class StretchJoin {
    static let fadeMilliseconds = 5
    static let searchMilliseconds = 10
    /// The most frames kept: fade and search at 192 kHz.
    static let capacity = 192 * (fadeMilliseconds + searchMilliseconds)
    private let tail: UnsafeMutablePointer<Float>
    private let maxChannels: Int
    /// Frames kept, of which the fade is `fade` long (the rest is room to line up).
    private(set) var frames = 0
    private var fade = 0
    private var channels = 0
    /// Whether the next pass's start is lined up yet, and how much of the fade is mixed.
    private var linedUp = false
    private var mixed = 0
    /// Frames of the pass's start skipped to line it up: the pass owes them at its end.
    private(set) var skipped = 0

    init(maxChannels: Int) {
        self.maxChannels = maxChannels
        tail = .allocate(capacity: Self.capacity * maxChannels)
        tail.initialize(repeating: 0, count: Self.capacity * maxChannels)
    }

    deinit { tail.deallocate() }

    /// Frames to keep at `rate`: the fade and the search.
    static func keptFrames(rate: Int) -> Int {
        min(capacity, max(2, rate * (fadeMilliseconds + searchMilliseconds) / 1000))
    }

    /// Keeps `count` frames of `channels` channels from `samples` (interleaved) to fade out under the next pass.
    func keep(_ samples: UnsafePointer<Float>, frames count: Int, rate: Int, channels: Int) {
        let count = min(count, Self.capacity)
        guard channels > 0, channels <= maxChannels, count > 1 else { return cancel() }
        tail.update(from: samples, count: count * channels)
        frames = count
        fade = min(count / 2, max(1, rate * Self.fadeMilliseconds / 1000))
        self.channels = channels
        linedUp = false
        mixed = 0
        skipped = 0
    }

    /// Forgets the kept frames (a seek, a stop, a count-in between the passes, the untouched path at 100 %).
    func cancel() {
        frames = 0
        mixed = 0
        linedUp = false
    }

    /// Forgets everything (a seek, a stop, the untouched path).
    func reset() {
        cancel()
        skipped = 0
    }

    /// The pass ended: its skipped frames are given back (`skipped` read first).
    func passEnded() { skipped = 0 }

    /// Fades the kept frames out under the first frames of `block` (the next pass, `count` frames, same channels),
    /// first lining the new stream up with them; returns how many frames at the block's start to skip (the rest is the
    /// pass, mixed).
    func mix(into block: UnsafeMutablePointer<Float>, frames count: Int, channels: Int) -> Int {
        guard frames > 0, channels == self.channels, count > 0 else {
            cancel()
            return 0
        }
        var skip = 0
        if !linedUp {
            linedUp = true
            skip = bestSkip(in: block, frames: count)
            skipped = skip
        }
        let n = min(count - skip, fade - mixed)
        for i in 0..<max(0, n) {
            let incoming = Float((Double(mixed + i) + 0.5) / Double(fade))
            for c in 0..<channels {
                let index = (skip + i) * channels + c
                block[index] = block[index] * incoming + tail[(mixed + i) * channels + c] * (1 - incoming)
            }
        }
        mixed += max(0, n)
        if mixed >= fade { cancel() }
        return skip
    }

    /// How many frames of the new stream's start to skip so that its next `fade` frames best match the kept ones
    /// (normalised cross-correlation); 0 when the block is too short to search.
    private func bestSkip(in block: UnsafePointer<Float>, frames count: Int) -> Int {
        let search = min(frames - fade, count - fade)
        guard fade > 0, search > 0 else { return 0 }
        var best = 0, bestScore = -Double.infinity
        for candidate in 0...search {
            var dot = 0.0, energy = 1e-12
            for i in 0..<(fade * channels) {
                let new = Double(block[candidate * channels + i])
                dot += new * Double(tail[i])
                energy += new * new
            }
            let score = dot / energy.squareRoot()
            if score > bestScore { (best, bestScore) = (candidate, score) }
        }
        return best
    }
}
