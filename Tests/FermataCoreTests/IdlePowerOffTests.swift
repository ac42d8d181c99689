import FermataCore
import Testing

/// Idle power-off on a test clock: stopped or paused counts, playing does not, activity starts the count again.
@Suite struct IdlePowerOffTests {
    static let minute: UInt64 = 60_000_000_000

    @Test func afterTheLimitNotPlayingItAsksOnce() {
        var idle = IdlePowerOff(limitNanoseconds: 10 * Self.minute, now: 0)
        #expect(idle.observe(playing: false, at: 9 * Self.minute) == nil)
        #expect(idle.remainingSeconds(at: 9 * Self.minute) == 60)
        #expect(idle.observe(playing: false, at: 10 * Self.minute) == .requestPowerOff(idleSeconds: 600))
        #expect(idle.observe(playing: false, at: 11 * Self.minute) == nil, "asked once")
    }

    @Test func playingStopsTheCountAndStoppingStartsItAgain() {
        var idle = IdlePowerOff(limitNanoseconds: 10 * Self.minute, now: 0)
        #expect(idle.observe(playing: true, at: 9 * Self.minute) == nil)
        #expect(idle.observe(playing: true, at: 30 * Self.minute) == nil)
        #expect(idle.observe(playing: false, at: 31 * Self.minute) == nil, "paused or stopped from here")
        #expect(idle.observe(playing: false, at: 40 * Self.minute) == nil)
        #expect(idle.observe(playing: false, at: 41 * Self.minute) == .requestPowerOff(idleSeconds: 600))
    }

    @Test func activityStartsTheCountAgain() {
        var idle = IdlePowerOff(limitNanoseconds: 10 * Self.minute, now: 0)
        idle.activity(at: 8 * Self.minute)
        #expect(idle.observe(playing: false, at: 17 * Self.minute) == nil)
        #expect(idle.observe(playing: false, at: 18 * Self.minute) == .requestPowerOff(idleSeconds: 600))
        idle.activity(at: 19 * Self.minute)  // the power-off did not come: a new count
        #expect(idle.observe(playing: false, at: 28 * Self.minute) == nil)
        #expect(idle.observe(playing: false, at: 29 * Self.minute) == .requestPowerOff(idleSeconds: 600))
    }

    @Test func zeroIsOff() {
        var idle = IdlePowerOff(limitNanoseconds: 0, now: 0)
        #expect(idle.phase == .disabled)
        #expect(idle.observe(playing: false, at: .max) == nil)
        idle.activity(at: 5)
        #expect(idle.remainingSeconds(at: 5) == nil)
    }
}
