import FermataCore

/// Which capture frames become which take: the recording's state machine, with no thread, device or file. It hears
/// where each piece of what the listener hears begins (a loop seam, a track's start, a jump), already placed on the
/// capture's timeline by the driver (the heard instant through the output's and the capture's clock lines, plus the
/// round-trip latency), and answers with the writer's orders: each pass of the loop a take, from the capture frame
/// where the pass is heard to begin, for exactly the pass's length (its source frames at its tempo).
///
/// Threads: a value, owned by the recording service's task.
public struct RecordingPlan: Sendable, Equatable {
    /// The loop the player plays now (a section's or an A–B loop's region), as the driver read it.
    public struct Loop: Sendable, Equatable {
        public var entry: EntryID
        /// The track's queue path (the takes are listed by it).
        public var path: String
        /// The region in source frames at `sourceRate`.
        public var region: LoopRegion
        public var sourceRate: Int
        /// The player's tempo when the driver read it (a step trainer's may be a pass behind the marks).
        public var tempoPercent: Int
        /// The output's rate (0: unknown): with it, a take's tempo is read from its pass's own rate ratio.
        public var deviceRate: Int

        public init(entry: EntryID, path: String, region: LoopRegion, sourceRate: Int, tempoPercent: Int,
                    deviceRate: Int = 0) {
            self.entry = entry
            self.path = path
            self.region = region
            self.sourceRate = sourceRate
            self.tempoPercent = tempoPercent
            self.deviceRate = deviceRate
        }

        /// Milliseconds of the region's ends (the takes' index keys).
        public var startMilliseconds: Int64 { sourceRate > 0 ? region.start * 1000 / Int64(sourceRate) : 0 }
        public var endMilliseconds: Int64 { sourceRate > 0 ? region.end * 1000 / Int64(sourceRate) : 0 }
    }

    /// A place where what is heard begins anew, on the capture's timeline.
    public struct Boundary: Sendable, Equatable {
        public enum Kind: Sendable, Equatable { case seam, start, jump }
        public var kind: Kind
        public var entry: EntryID?
        public var pass: Int
        public var sourceFrame: Int64
        /// Source frames per device frame from here (0: a count-in holds the position).
        public var rateRatio: Double
        /// The capture frame at which the listener's sound from here arrives (nil: the clocks are not known yet).
        public var captureFrame: Int64?

        public init(kind: Kind, entry: EntryID?, pass: Int, sourceFrame: Int64, rateRatio: Double, captureFrame: Int64?) {
            self.kind = kind
            self.entry = entry
            self.pass = pass
            self.sourceFrame = sourceFrame
            self.rateRatio = rateRatio
            self.captureFrame = captureFrame
        }
    }

    /// A take being recorded: capture frames `start..<end`, of pass `pass` at `tempoPercent`.
    public struct Take: Sendable, Equatable {
        public var id: Int64
        public var loop: Loop
        public var pass: Int
        public var tempoPercent: Int
        public var start: Int64
        public var end: Int64
    }

    /// The writer's orders.
    public enum Action: Sendable, Equatable {
        /// Record take `id` from capture frame `start` to `end` (exclusive).
        case record(Take)
        /// End take `id` earlier, at `end` (the next pass began before its computed end, by a frame or two).
        case shorten(id: Int64, end: Int64)
        /// Abandon take `id` (the pass was cut short: a stop, a seek, a pause, the loop changed).
        case abandon(id: Int64, reason: String)
    }

    public private(set) var loop: Loop?
    public private(set) var open: Take?
    public private(set) var nextID: Int64
    /// Takes shorter than this share of their pass are abandoned rather than shortened.
    static let shortenTolerance = 0.01

    public init(nextID: Int64) { self.nextID = max(1, nextID) }

    /// The loop now (nil: none). A different loop abandons the take of the old one if it is still being recorded at
    /// capture frame `now`.
    public mutating func loopChanged(_ newLoop: Loop?, captureFrameNow now: Int64) -> [Action] {
        guard newLoop != loop else { return [] }
        let sameRegion = newLoop?.entry == loop?.entry && newLoop?.region.start == loop?.region.start
            && newLoop?.region.end == loop?.region.end
        loop = newLoop
        if sameRegion { return [] }  // only the tempo or the path's spelling: the take goes on
        return abandonOpen(ifRunningAt: now, reason: "the loop changed")
    }

    /// Playback paused, stopped or went elsewhere without a mark: a take still being recorded at `now` is abandoned.
    public mutating func interrupted(captureFrameNow now: Int64, reason: String) -> [Action] {
        abandonOpen(ifRunningAt: now, reason: reason)
    }

    /// A boundary the listener reached.
    public mutating func heard(_ boundary: Boundary) -> [Action] {
        var actions: [Action] = []
        guard let at = boundary.captureFrame else {
            if let open { actions.append(.abandon(id: open.id, reason: "the clocks were not known yet")) }
            open = nil
            return actions
        }
        if let take = open {
            open = nil
            if take.end > at {
                let length = take.end - take.start
                if Double(take.end - at) <= Double(length) * Self.shortenTolerance, at > take.start {
                    actions.append(.shorten(id: take.id, end: at))
                } else {
                    actions.append(.abandon(id: take.id, reason: "the pass was cut short"))
                }
            }
        }
        guard let loop, boundary.entry == loop.entry, boundary.rateRatio > 0, loop.region.length > 0 else {
            return actions
        }
        let tolerance = Int64(max(1, loop.sourceRate / 1000))
        let passBegins = boundary.kind == .seam || abs(boundary.sourceFrame - loop.region.start) <= tolerance
        guard passBegins else { return actions }
        let length = Int64((Double(loop.region.length) / boundary.rateRatio).rounded())
        // The pass's tempo from its own rate ratio (source frames per output frame): the step trainer's tempo changes
        // at the very seam, before the player's status says so.
        var tempo = loop.tempoPercent
        if loop.deviceRate > 0, loop.sourceRate > 0 {
            tempo = Int((boundary.rateRatio * Double(loop.deviceRate) / Double(loop.sourceRate) * 100).rounded())
        }
        let take = Take(id: nextID, loop: loop, pass: max(1, boundary.pass), tempoPercent: tempo, start: at,
                        end: at + length)
        nextID += 1
        open = take
        actions.append(.record(take))
        return actions
    }

    /// The take being recorded ended by itself at its computed end (the driver saw the capture pass it).
    public mutating func captureReached(_ frame: Int64) {
        if let open, frame >= open.end { self.open = nil }
    }

    private mutating func abandonOpen(ifRunningAt now: Int64, reason: String) -> [Action] {
        guard let take = open else { return [] }
        open = nil
        return now < take.end ? [.abandon(id: take.id, reason: reason)] : []
    }
}
