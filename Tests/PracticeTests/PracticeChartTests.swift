import FermataCore
import Testing

/// `fermata practice --chart`: the exact text for a fixed week, on a terminal and in a pipe.
@Suite struct PracticeChartTests {
    static let week = PracticeChart(
        days: [
            .init(date: "2026-11-16", weekday: "Mon", seconds: 2_520),  // 42 min: the busiest day, a full bar
            .init(date: "2026-11-17", weekday: "Tue", seconds: 0),
            .init(date: "2026-11-18", weekday: "Wed", seconds: 1_260),  // half
            .init(date: "2026-11-19", weekday: "Thu", seconds: 590),
            .init(date: "2026-11-20", weekday: "Fri", seconds: 20),
            .init(date: "2026-11-21", weekday: "Sat", seconds: 2_000),
            .init(date: "2026-11-22", weekday: "Sun", seconds: 300),
        ],
        tracks: [("Prelude - J. S. Bach", 3_000), ("Largo - Dvořák", 2_100), ("Scales", 1_590), ("Silence", 0)])

    @Test func aWeekInAPipe() {
        var chart = Self.week
        chart.width = 20
        #expect(chart.render(terminal: false) == """
            Practice 2026-11-16 to 2026-11-22: 1 h 52 min in all
            Mon 11-16  ####################  42 min
            Tue 11-17                        0 min
            Wed 11-18  ##########            21 min
            Thu 11-19  #####                 10 min
            Fri 11-20  #                     0 min
            Sat 11-21  ################      33 min
            Sun 11-22  ##                    5 min
            Most practised:
                50 min  Prelude - J. S. Bach
                35 min  Largo - Dvořák
                27 min  Scales

            """)
    }

    @Test func aWeekOnATerminalUsesEighthBlocks() {
        var chart = Self.week
        chart.width = 10
        let lines = chart.render(terminal: true).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == "Mon 11-16  ██████████  42 min")
        #expect(lines[3] == "Wed 11-18  █████       21 min")
        #expect(lines[4] == "Thu 11-19  ██▍         10 min")  // 590/2520 of 80 eighths = 18.7 → 19: 2 cells and 3/8
        #expect(lines[5] == "Fri 11-20  ▏           0 min", "a little practice still shows")
    }

    @Test func anEmptyWeekSaysSo() {
        let chart = PracticeChart(days: [.init(date: "2026-11-16", weekday: "Mon", seconds: 0)], tracks: [])
        #expect(chart.render(terminal: false) == """
            Practice 2026-11-16 to 2026-11-16: 0 min in all
            Mon 11-16                                            0 min
            Nothing played in these days.

            """)
    }
}
