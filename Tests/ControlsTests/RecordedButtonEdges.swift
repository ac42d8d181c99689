// Edge sequences as a GPIO line request delivers them: kernel timestamp (CLOCK_MONOTONIC ns), line name, logical
// level (1 = pressed / contact closed; active-low lines with pull-ups). Bounce follows measured tactile-switch
// behaviour: 3-7 transitions within 0.3-2.5 ms of the first, gaps growing towards the end. Generated once from a
// seeded model (and kept as data so the tests replay exactly); `fermata gpio monitor --raw` prints real recordings
// in the same format for new fixtures.

/// Button recordings.
enum RecordedButtonEdges {
    /// Play: one 120 ms press; 3-7 bounces on closing and on opening.
    static let playTap = """
        1000000000 GPIO17 1
        1000164821 GPIO17 0
        1000235091 GPIO17 1
        1000296260 GPIO17 0
        1000305571 GPIO17 1
        1000417575 GPIO17 0
        1000478630 GPIO17 1
        1120000000 GPIO17 0
        1120692199 GPIO17 1
        1121235470 GPIO17 0
        """

    /// Play: a quick double tap (55 ms down, 65 ms up, 60 ms down) with bounce; on v1 some events repeat a level.
    static let playDoubleTap = """
        1000000000 GPIO17 1
        1000181881 GPIO17 0
        1000379226 GPIO17 1
        1000469697 GPIO17 1
        1000550305 GPIO17 1
        1000551509 GPIO17 0
        1000578333 GPIO17 1
        1055000000 GPIO17 0
        1056426904 GPIO17 1
        1056434925 GPIO17 0
        1121434925 GPIO17 1
        1122210652 GPIO17 0
        1122316551 GPIO17 1
        1181434925 GPIO17 0
        1182363833 GPIO17 1
        1182458947 GPIO17 0
        """

    /// Play: held 850 ms.
    static let playLongPress = """
        1000000000 GPIO17 1
        1002148919 GPIO17 0
        1002335838 GPIO17 1
        1850000000 GPIO17 0
        1850101876 GPIO17 1
        1850148669 GPIO17 0
        1850178750 GPIO17 1
        1850208065 GPIO17 0
        1850263527 GPIO17 1
        1850282304 GPIO17 0
        """

    /// Next: held 1.05 s (seek repeats), then a 90 ms tap.
    static let nextHoldThenTap = """
        1000000000 GPIO5 1
        1000473186 GPIO5 0
        1000559384 GPIO5 1
        2050000000 GPIO5 0
        2051191002 GPIO5 1
        2051362539 GPIO5 0
        2051902362 GPIO5 1
        2051998121 GPIO5 0
        2351998121 GPIO5 1
        2352328369 GPIO5 0
        2352895323 GPIO5 1
        2441998121 GPIO5 0
        2442447169 GPIO5 1
        2442579924 GPIO5 0
        2442757161 GPIO5 1
        2442817132 GPIO5 0
        2442920494 GPIO5 1
        2443052187 GPIO5 0
        """

    /// Loop: tap (A), tap 2 s later (B), long press 3 s later (clear).
    static let loopTapTapLong = """
        1000000000 GPIO12 1
        1000464460 GPIO12 0
        1000618334 GPIO12 1
        1000678624 GPIO12 0
        1000679814 GPIO12 1
        1100000000 GPIO12 0
        1100646676 GPIO12 1
        1100809819 GPIO12 0
        1100908702 GPIO12 1
        1101670508 GPIO12 0
        3101670508 GPIO12 1
        3101964342 GPIO12 0
        3102113304 GPIO12 1
        3102140938 GPIO12 0
        3102298771 GPIO12 1
        3211670508 GPIO12 0
        3211879767 GPIO12 1
        3211982399 GPIO12 0
        6211982399 GPIO12 1
        6212660590 GPIO12 0
        6212679660 GPIO12 1
        7111982399 GPIO12 0
        7112525508 GPIO12 1
        7112944633 GPIO12 0
        7112952397 GPIO12 1
        7113223282 GPIO12 0
        """

    /// Next, then previous 35 ms later, released together: the stop chord.
    static let chordNextPrevious = """
        1000000000 GPIO5 1
        1000754792 GPIO5 0
        1001538673 GPIO5 1
        1001878265 GPIO5 0
        1002265768 GPIO5 1
        1035000000 GPIO6 1
        1035489079 GPIO6 0
        1036188822 GPIO6 1
        1036277792 GPIO6 0
        1036341922 GPIO6 1
        1036522949 GPIO6 0
        1036794026 GPIO6 1
        1180000000 GPIO6 0
        1180120543 GPIO6 1
        1180185175 GPIO6 0
        1180198237 GPIO6 1
        1180202729 GPIO6 0
        1180221681 GPIO6 1
        1180313513 GPIO6 0
        1200000000 GPIO5 0
        1200085685 GPIO5 1
        1200149435 GPIO5 0
        1200447449 GPIO5 1
        1200510196 GPIO5 0
        """
}
