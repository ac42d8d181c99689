import AudioCore
import FermataCore

/// The listener's settings the player plays by: repeat, single, consume, ReplayGain, volume, speed, count-in and how
/// announcements sound. Pure rules (what follows an entry, which gain a track gets) live beside them.
///
/// Threads: a value, part of `PlayerState`.
struct PlayerModes {
    var repeatMode = RepeatMode.off
    var single = false
    /// `single` is MPD's `oneshot`: it switches itself off once it has stopped playback (`PlayerState.queueEnded`).
    var singleOneshot = false
    var consume = ConsumeMode.off
    var replayGain = ReplayGainMode.off
    var volume = 100
    /// No volume above this (the configuration's `volume_max`, lowered by a card's cap): kept by `PlayerState.updateModes`,
    /// the one place modes change, so every path that sets the volume keeps it.
    var volumeCeiling = 100
    /// No volume below this (the configuration's `volume_min`; 0: none), kept by `updateModes` as the ceiling is; under
    /// a ceiling lower than it, the ceiling wins.
    var volumeFloor = 0
    /// Playback speed in percent (100: untouched).
    var tempoPercent = 100
    /// Transposition in cents (0: untouched), independent of the tempo.
    var transposeCents = 0
    /// The click over the track, when on.
    var metronome: MetronomePlan?
    /// The count-in before playback starts, if any.
    var countIn: CountInPlan?
    var announcements = AnnouncementStyle()

    /// The linear gain the output applies: the volume's.
    var outputGain: Double { VolumeCurve.gain(forVolume: volume) }

    /// What plays after `entry` in `queue`: the same entry again under repeat-track, nothing under single, else the
    /// next in play order (wrapping under repeat-queue). After a failure the entry is never repeated.
    func successor(of entry: EntryID, in queue: PlayQueue, afterFailure: Bool) -> QueueEntry? {
        if repeatMode == .track && !afterFailure { return queue.entry(id: entry) }
        if single && !afterFailure { return nil }
        return queue.entry(after: entry, wrap: repeatMode == .queue)
    }

    /// `auto` as MPD resolves it: track gain while the queue plays in random order (its songs come from anywhere),
    /// album gain in list order.
    func effectiveReplayGain(shuffled: Bool) -> ReplayGainMode {
        guard replayGain == .auto else { return replayGain }
        return shuffled ? .track : .album
    }

    /// The linear ReplayGain for `entry` (1 when off or untagged).
    func replayGain(for entry: QueueEntry, shuffled: Bool) -> Double {
        let info = entry.replayGain
        let gain: Double? = switch effectiveReplayGain(shuffled: shuffled) {
        case .off: nil
        case .track, .auto: info.trackGain.map { ReplayGainMath.linearGain(gainDB: $0, peak: info.trackPeak) }
        case .album: (info.albumGain ?? info.trackGain).map {
            ReplayGainMath.linearGain(gainDB: $0, peak: info.albumGain != nil ? info.albumPeak : info.trackPeak)
        }
        }
        return gain ?? 1
    }

    /// A speed given as a ratio (1 = normal, from the engine or a trainer) in whole percent, within 50–150 % (a
    /// value outside, NaN or infinite cannot trap the conversion).
    static func percent(ofRatio ratio: Double) -> Int {
        guard ratio.isFinite else { return 100 }
        return Int((min(1.5, max(0.5, ratio)) * 100).rounded())
    }

    /// A speed in percent rounded to the 5 % steps a musician dials in, within 50–150 %.
    static func steppedTempo(_ percent: Int) -> Int {
        min(150, max(50, Int((Double(percent) / 5).rounded()) * 5))
    }
}

/// Consume mode: played entries leave the queue; `oneshot` (MPD 0.24) switches itself off after one.
enum ConsumeMode {
    case off
    case on
    case oneshot
}

/// How announcements sound: over the music, ducked, or before it; and whether each new track is announced.
struct AnnouncementStyle {
    var duck = true
    var onTrackChange = false
}
