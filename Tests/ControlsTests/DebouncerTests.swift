@testable import Controls
import Testing

@Suite struct DebouncerTests {
    let ms: UInt64 = 1_000_000

    @Test func reportsTheLevelOnceItHasBeenQuietForThePeriod() {
        var d = Debouncer(period: 10 * ms, initial: false)
        for (t, level) in [(0, true), (1, false), (2, true), (3, false), (4, true)] {
            #expect(d.edge(level: level, at: UInt64(t) * ms) == nil)
        }
        #expect(d.deadline == 14 * ms)
        #expect(d.expire(now: 13 * ms) == nil)
        let out = d.expire(now: 14 * ms)
        #expect(out?.level == true && out?.at == 14 * ms)
        #expect(d.deadline == nil && d.stable)
    }

    @Test func aGlitchThatReturnsToTheStableLevelReportsNothing() {
        var d = Debouncer(period: 10 * ms, initial: false)
        _ = d.edge(level: true, at: 0)
        _ = d.edge(level: false, at: 1 * ms)
        #expect(d.expire(now: 11 * ms) == nil)
        #expect(d.deadline == nil && !d.stable)
    }

    @Test func repeatedLevelsFromTheV1KernelPathStillRestartTheQuietPeriod() {
        var d = Debouncer(period: 10 * ms, initial: false)
        _ = d.edge(level: true, at: 0)
        _ = d.edge(level: true, at: 5 * ms)
        #expect(d.deadline == 15 * ms)
    }

    @Test func periodZeroPassesChangesAtOnceAndDropsRepeats() {
        var d = Debouncer(period: 0, initial: false)
        #expect(d.edge(level: true, at: 1) == true)
        #expect(d.edge(level: true, at: 2) == nil)
        #expect(d.edge(level: false, at: 3) == false)
        #expect(d.deadline == nil)
    }
}
