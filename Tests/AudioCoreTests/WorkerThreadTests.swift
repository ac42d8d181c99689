import AudioCore
import Testing

@Suite struct WorkerThreadTests {
    /// Issue 13: the new thread wrote `schedulingNote` while its owner read it (a data race), so fermatad's start-up
    /// line usually reported the placeholder "normal priority" although SCHED_FIFO had been granted. `start` now
    /// waits for the thread's report: the note read at once must be the outcome of the request. On the old code the
    /// first read saw the placeholder (the new thread had not run yet) in every one of the runs tried here.
    @Test func schedulingNoteIsTheOutcomeOfTheRequestWhenStartReturns() {
        for round in 0..<20 {
            let thread = WorkerThread()
            thread.start(name: "note-test", priority: .realtime(10)) {}
            let note = thread.schedulingNote
            thread.join()
            // As root (CI) SCHED_FIFO is granted; without CAP_SYS_NICE / RLIMIT_RTPRIO the refusal is the outcome.
            #expect(note == "SCHED_FIFO 10" || note.hasPrefix("normal priority (SCHED_FIFO 10 refused: "),
                    "round \(round): \(note)")
        }
    }

    @Test func withoutARequestTheNoteSaysNormalPriorityAndTheBodyRuns() {
        let thread = WorkerThread()
        let ran = Doorbell()
        thread.start(name: "plain") { ran.ring() }
        #expect(thread.schedulingNote == "normal priority")
        #expect(ran.wait(nanoseconds: 60_000_000_000))
        thread.join()
    }
}
