import AudioCore
import AudioOutput
@testable import Engine
import Testing

/// The output thread's device lifecycle with no thread or device: requests and write results in, the recorded sink
/// and cursor actions out. `DeviceLossTests` and the kernel lab's card unbind prove the same on a running engine.
@Suite struct OutputMachineTests {
    /// Records what the machine does; the device opens unless `opens` is false, and pauses in hardware when
    /// `pausesInHardware`.
    final class Recorder: OutputEnvironment {
        enum Action: Equatable {
            case open(AudioFormat), close, pause(Bool), drop, drain, settle(Int), rewindToHeard, rewindToReleased
            case emit(String)
        }

        var actions: [Action] = []
        var opens = true
        var pausesInHardware = true
        private(set) var deviceIsOpen = false

        func openDevice(_ format: AudioFormat) -> Result<AudioFormat, SinkOpenError> {
            actions.append(.open(format))
            deviceIsOpen = opens
            return opens ? .success(format) : .failure(SinkOpenError(device: "hw:9", reason: "busy", code: -16))
        }

        func closeDevice() {
            actions.append(.close)
            deviceIsOpen = false
        }

        func pauseDevice(_ on: Bool) -> Bool {
            actions.append(.pause(on))
            return pausesInHardware
        }

        func dropDevice() { actions.append(.drop) }
        func drainDevice() { actions.append(.drain) }
        func settle(milliseconds: Int) { actions.append(.settle(milliseconds)) }
        func rewindToHeard() { actions.append(.rewindToHeard) }
        func rewindToReleased() { actions.append(.rewindToReleased) }
        func emit(_ event: OutputEvent) { actions.append(.emit("\(event)")) }
    }

    static let cd = AudioFormat(sampleRate: 44_100, channels: 2, encoding: .s16)
    static let hiRes = AudioFormat(sampleRate: 96_000, channels: 2, encoding: .s32, validBits: 24)

    static func running() -> (OutputMachine, Recorder) {
        var machine = OutputMachine()
        let env = Recorder()
        _ = machine.flush(FlushRequest(kind: .drop, format: cd, settleMilliseconds: 0), paused: false, env)
        env.actions.removeAll()
        return (machine, env)
    }

    @Test func aStartOpensTheDeviceAndAnswersItsFormat() {
        var machine = OutputMachine()
        let env = Recorder()
        let answer = machine.flush(FlushRequest(kind: .drop, format: Self.cd, settleMilliseconds: 0), paused: false, env)
        #expect(env.actions == [.open(Self.cd)] && answer == Self.cd && machine.phase == .running)
    }

    @Test func deviceLossThenRetriesUntilItReturnsAndPlaysOn() {
        var (machine, env) = Self.running()
        machine.wrote(.written(256), env)
        machine.wrote(.recovered, env)
        #expect(env.actions == [.emit("underrun")] && machine.phase == .running, "an underrun is recovered in place")

        env.actions.removeAll()
        machine.wrote(.deviceLost(-19), env)
        #expect(env.actions == [.close, .rewindToReleased, .emit("deviceLost(code: -19, opening: false)")])
        #expect(machine.phase == .waitingForDevice && machine.published == .waitingForDevice)

        env.actions.removeAll()
        env.opens = false
        let reopenedWhileGone = machine.retryDevice(paused: false, env)
        #expect(!reopenedWhileGone)
        #expect(env.actions == [.open(Self.cd), .close] && machine.phase == .waitingForDevice, "still gone")

        env.actions.removeAll()
        env.opens = true
        let reopened = machine.retryDevice(paused: false, env)
        #expect(reopened)
        #expect(env.actions == [.open(Self.cd), .emit("deviceRestored")] && machine.phase == .running)

        // A write error is a loss too; a pause asked for meanwhile is honoured when the device returns.
        machine.wrote(.failed(-5), env)
        #expect(machine.phase == .waitingForDevice)
        let reopenedPaused = machine.retryDevice(paused: true, env)
        #expect(reopenedPaused)
        #expect(machine.phase == .paused(inHardware: false))
    }

    @Test func aDeviceAbsentAtStartIsWaitedForAtTheAskedFormat() {
        var machine = OutputMachine()
        let env = Recorder()
        env.opens = false
        let answer = machine.flush(FlushRequest(kind: .drop, format: Self.cd, settleMilliseconds: 0), paused: false, env)
        #expect(env.actions == [.open(Self.cd), .emit("deviceLost(code: -16, opening: true)")])
        #expect(machine.phase == .waitingForDevice && answer == Self.cd, "the decoder keeps writing at the format")
        // A later start while waiting keeps waiting (the retry timer opens it).
        env.actions.removeAll()
        _ = machine.flush(FlushRequest(kind: .drop, format: Self.cd, settleMilliseconds: 0), paused: false, env)
        #expect(env.actions == [.open(Self.cd), .emit("deviceLost(code: -16, opening: true)")]
                && machine.phase == .waitingForDevice)
    }

    @Test func pauseHoldsTheDeviceOrDropsItAndRewinds() {
        var (machine, env) = Self.running()
        let paused = machine.setPaused(true, env)
        #expect(paused)
        #expect(env.actions == [.pause(true)] && machine.phase == .paused(inHardware: true))
        let pausedAgain = machine.setPaused(true, env)
        #expect(!pausedAgain, "already paused")
        let resumed = machine.setPaused(false, env)
        #expect(resumed)
        #expect(env.actions == [.pause(true), .pause(false)] && machine.phase == .running)

        env.actions.removeAll()
        env.pausesInHardware = false
        let pausedByDropping = machine.setPaused(true, env)
        #expect(pausedByDropping)
        #expect(env.actions == [.pause(true), .rewindToHeard] && machine.phase == .paused(inHardware: false))
        let resumedAfterDropping = machine.setPaused(false, env)
        #expect(resumedAfterDropping)
        #expect(env.actions == [.pause(true), .rewindToHeard], "nothing held: nothing to resume in the device")
        #expect(machine.phase == .running)
    }

    @Test func aReopenWaitsForTheRingAndSettles() {
        var (machine, env) = Self.running()
        #expect(!machine.canFlush(.reopen, ringHasData: true), "what is queued plays out first")
        #expect(machine.canFlush(.reopen, ringHasData: false) && machine.canFlush(.drop, ringHasData: true))
        let answer = machine.flush(FlushRequest(kind: .reopen, format: Self.hiRes, settleMilliseconds: 40),
                                   paused: false, env)
        #expect(env.actions == [.drain, .close, .settle(40), .open(Self.hiRes)])
        #expect(answer == Self.hiRes && machine.format == Self.hiRes && machine.phase == .running)
    }

    @Test func stopAndTheStreamsEndCloseTheDevice() {
        var (machine, env) = Self.running()
        _ = machine.setPaused(true, env)
        env.actions.removeAll()
        let answer = machine.flush(FlushRequest(kind: .close, format: nil, settleMilliseconds: 0), paused: true, env)
        #expect(env.actions == [.drop, .close] && answer == nil && machine.phase == .closed)

        (machine, env) = Self.running()
        machine.streamEnded(env)
        #expect(env.actions == [.drain, .close] && machine.phase == .closed)
    }
}
