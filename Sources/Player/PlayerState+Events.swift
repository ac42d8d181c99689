import Engine
import FermataCore

/// The reducer's answer to what the engine reports: a track began decoding, failed, became audible; the stream ended;
/// the speed trainer moved the tempo.
extension PlayerState {
    /// The decoder began `entry`: it is told what follows (and given the announcement of it, when the words rendered
    /// before this step are for the entry that follows now).
    mutating func decodingStarted(_ entry: EntryID, announcement: (entry: EntryID, speech: Speech)?,
                                  _ step: inout PlayerStep) {
        let next = modes.successor(of: entry, in: queue, afterFailure: false)
        if modes.announcements.onTrackChange, let announcement, announcement.entry == next?.id {
            step.order(.prepareTrackAnnouncement(announcement.entry, announcement.speech,
                                                 duck: modes.announcements.duck))
        }
        step.order(.setUpcoming(after: entry, next.map(item)))
    }

    /// `entry` could not be played: the next one is tried, unless every entry of the queue failed in a row.
    mutating func trackFailed(_ entry: EntryID, reason: String, _ step: inout PlayerStep) {
        step.effects.warnings.append("skipping entry \(entry): \(reason)")
        lastError = reason
        failures[entry] = reason
        let failuresInARow = transport.failed()
        let next = failuresInARow >= max(1, queue.count)
            ? nil : modes.successor(of: entry, in: queue, afterFailure: true)
        step.order(.setUpcoming(after: entry, next.map(item)))
        if next == nil && step.heard.state == .stopped { markStopped(&step) }
    }

    /// `entry` is heard, from the engine's start `generation`. A new entry (not the one a command started or a seek
    /// restarted, which that command saved) starts a song: its priority returns to 0 and, under consume, the entry
    /// heard before leaves the queue.
    mutating func trackAudible(_ entry: EntryID, generation: Int, _ step: inout PlayerStep) {
        let previous = current
        guard transport.heard(entry, generation: generation) else { return }
        step.changed(.player)
        guard previous != entry else { return }
        practiceTouched = false
        entryTempo.entered(entry)
        if queue.startedPlaying(entry) { queueEdited(&step) }
        if modes.consume != .off, let previous, queue.entry(id: previous) != nil {
            queue.remove(id: previous)
            queueEdited(&step)
            if modes.consume == .oneshot {
                modes.consume = .off
                step.changed(.options)
            }
        }
        step.save.state()
    }
}
