import FermataCore

/// The step trainer's progress on the A–B loop: the tempo of the pass being decoded and how many passes it has
/// played at it. A value the decoder machine asks at each seam (`passEnded`), so every tempo change happens at a pass
/// boundary: start at the plan's start, a step up every `everyPasses` passes, then the target for good. "Again"
/// (`again`) makes the pass being decoded not count; with a plan that falls back, the next pass is a step slower (not
/// below the start).
///
/// Threads: owned by `DecoderMachine` (the decoder thread); `StepTrainerTests` drive it alone.
struct StepTrainer: Equatable {
    let plan: SpeedTrainerPlan
    /// Steps taken up from the start (the tempo is the plan's tempo after them).
    private(set) var steps = 0
    /// Passes completed at the current tempo.
    private(set) var passesAtTempo = 0
    /// "Again" was asked during the pass being decoded.
    private(set) var againPending = false

    init(plan: SpeedTrainerPlan) { self.plan = plan }

    /// The tempo of the pass being decoded, in percent.
    var tempoPercent: Int { plan.tempoPercent(afterSteps: steps) }
    /// The same as a factor (1 = normal).
    var tempo: Double { Double(tempoPercent) / 100 }

    /// The pass being decoded ended at its seam: the tempo of the next pass when it differs (a step up or, after
    /// "again" with fallback, a step down), nil when it stays.
    mutating func passEnded() -> Double? {
        let before = tempoPercent
        if againPending {
            againPending = false
            passesAtTempo = 0
            if plan.fallsBack, steps > 0 {
                // From the target, a step back is the last step below it (the step that reached it may be short).
                steps = min(steps, plan.steps) - 1
            }
        } else {
            passesAtTempo += 1
            if passesAtTempo >= plan.everyPasses, before < plan.ceilingPercent {
                steps += 1
                passesAtTempo = 0
            }
        }
        return tempoPercent == before ? nil : tempo
    }

    /// "Again": the pass being decoded does not count (and falls back a step at its end with a plan that does so).
    mutating func again() { againPending = true }

    /// Whether the target tempo is reached.
    var reachedTarget: Bool { tempoPercent >= plan.ceilingPercent }
}
