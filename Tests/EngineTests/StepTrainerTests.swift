@testable import Engine
import FermataCore
import Testing

/// The step trainer's schedule as a value, and the decoder machine applying it at seams only: every tempo change at a
/// pass boundary, the stretched pass ended exactly there (`finishPass`), "again" falling back a step at the next seam.
@Suite struct StepTrainerValueTests {
    typealias Action = ScriptedDecoderEnvironment.Action

    /// The tempo of each of `passes` passes, pressing "again" during the passes in `again` (from 1).
    static func schedule(_ plan: SpeedTrainerPlan, passes: Int, again: Set<Int> = []) -> [Int] {
        var trainer = StepTrainer(plan: plan)
        var tempos: [Int] = []
        for pass in 1...passes {
            tempos.append(trainer.tempoPercent)
            if again.contains(pass) { trainer.again() }
            _ = trainer.passEnded()
        }
        return tempos
    }

    @Test func seventyToAHundredInFivesTwoPassesEach() {
        let plan = SpeedTrainerPlan(startPercent: 70, stepPercent: 5, everyPasses: 2, ceilingPercent: 100)
        #expect(Self.schedule(plan, passes: 16) == [70, 70, 75, 75, 80, 80, 85, 85, 90, 90, 95, 95, 100, 100, 100, 100])
        #expect(plan.steps == 6, "the target after 6 steps: 12 passes")
    }

    @Test func aStepThatOvershootsStopsAtTheTarget() {
        let plan = SpeedTrainerPlan(startPercent: 70, stepPercent: 20, everyPasses: 1, ceilingPercent: 100)
        #expect(Self.schedule(plan, passes: 4) == [70, 90, 100, 100])
    }

    /// "Again" in pass 4 (the second at 75 %): that pass does not count and the next is a step down; pressed at the
    /// start tempo it stays there. Without fallback, "again" only starts the step's passes over.
    @Test func againFallsBackAStepOrStartsTheStepOver() {
        var plan = SpeedTrainerPlan(startPercent: 70, stepPercent: 5, everyPasses: 2, ceilingPercent: 100, fallsBack: true)
        #expect(Self.schedule(plan, passes: 9, again: [1, 4]) == [70, 70, 70, 75, 70, 70, 75, 75, 80])
        plan.fallsBack = false
        #expect(Self.schedule(plan, passes: 7, again: [4]) == [70, 70, 75, 75, 75, 75, 80])
        // From the target after an overshooting step, back to the last step below it.
        let big = SpeedTrainerPlan(startPercent: 70, stepPercent: 20, everyPasses: 1, ceilingPercent: 100, fallsBack: true)
        #expect(Self.schedule(big, passes: 5, again: [3]) == [70, 90, 100, 90, 100])
    }

    @Test func plansOutOfRangeAreRefused() {
        for plan in [SpeedTrainerPlan(startPercent: 40, stepPercent: 5, everyPasses: 1, ceilingPercent: 100),
                     SpeedTrainerPlan(startPercent: 70, stepPercent: 0, everyPasses: 1, ceilingPercent: 100),
                     SpeedTrainerPlan(startPercent: 70, stepPercent: 5, everyPasses: 0, ceilingPercent: 100),
                     SpeedTrainerPlan(startPercent: 70, stepPercent: 5, everyPasses: 1_001, ceilingPercent: 100),
                     SpeedTrainerPlan(startPercent: 90, stepPercent: 5, everyPasses: 1, ceilingPercent: 80),
                     SpeedTrainerPlan(startPercent: .max, stepPercent: .max, everyPasses: .max, ceilingPercent: .min)] {
            #expect(plan.problem != nil, "\(plan)")
        }
        #expect(SpeedTrainerPlan.standard.problem == nil)
    }

    /// In the machine: the tempo changes only at the seam (after the pass's `finishPass`, before the next pass's
    /// mark), announced for the pass that begins there; "again" sent mid-pass takes the next pass a step down.
    @Test func theMachineChangesTheTempoAtSeamsOnly() {
        var machine = DecoderMachineTests.machine()
        let env = DecoderMachineTests.environment([DecoderMachineTests.a: .init(format: DecoderMachineTests.cd,
                                                                                frames: 200_000)])
        let plan = SpeedTrainerPlan(startPercent: 80, stepPercent: 10, everyPasses: 1, ceilingPercent: 100,
                                    fallsBack: true)
        machine.handle(.setTrainer(plan), env)
        machine.handle(.start(DecoderMachineTests.a, frame: 0, generation: 1, countIn: nil), env)
        machine.handle(.setLoop(entry: 1, LoopRegion(start: 0, end: 20_000, repeatCount: 3)), env)
        env.clear()
        DecoderMachineTests.step(&machine, env) { machine in
            if case let .decoding(cursor, _) = machine.phase { cursor.passes >= 1 && cursor.position > 5_000 } else { false }
        }
        machine.handle(.trainerAgain, env)
        DecoderMachineTests.step(&machine, env) { $0.phase == .awaitingSuccessor(after: 1) }
        let tempos = env.actions.compactMap { action -> Double? in
            if case let .tempo(value, _) = action { value } else { nil }
        }
        // Pass 1 at 80, pass 2 at 90, "again" in pass 2: pass 3 at 80, pass 4 at 90.
        #expect(tempos == [0.9, 0.8, 0.9])
        let events = env.actions.compactMap { action -> EngineEvent? in if case let .event(e) = action { e } else { nil } }
        #expect(events == [.tempoChanged(0.9, entry: 1, pass: 2), .tempoChanged(0.8, entry: 1, pass: 3),
                           .tempoChanged(0.9, entry: 1, pass: 4)])
        // At each seam: the pass ends exactly at B, then the tempo (and its event), then the next pass's mark.
        for index in env.actions.indices {
            guard case .tempo = env.actions[index] else { continue }
            #expect(env.actions[index - 2] == .finishPass(at: 20_000), "\(env.actions[(index - 3)...(index + 1)])")
            #expect(env.actions[index + 2] == .mark(.seam, 1, frame: 0, holds: false))
        }
    }
}
