/// The heavy and hostile client loads of issue 13, each timed from its first byte sent to its last byte received.
enum Scenario: CaseIterable {
    /// `add "/"` (the whole library, 5,000 tracks) with the page cache warm.
    case addAllWarm
    /// The same right after dropping the page cache (the daemon's database and binary come from the disk again).
    case addAllCold
    /// One command list of 10,000 `add`s of single files.
    case manyAdds
    /// `search any "<8,000 × a>"` from two clients at once.
    case longSearchTwice
    /// One command list of 200 × `listallinfo` (the client may be dropped at the output limit).
    case listAllInfoFlood

    var title: String {
        switch self {
        case .addAllWarm: "add / (warm cache)"
        case .addAllCold: "add / (cold cache)"
        case .manyAdds: "10,000 adds in a list"
        case .longSearchTwice: "2 × search 8,000 a"
        case .listAllInfoFlood: "200 × listallinfo"
        }
    }

    var dropsCaches: Bool { self == .addAllCold }

    /// Whether refusing the request with an ACK is a fair answer (a daemon may reject an absurd filter value
    /// outright); the ACK is still printed.
    var acceptsRefusal: Bool { self == .longSearchTwice }

    /// Seconds after which the load is abandoned (its connection closed) and recorded as timed out.
    var timeout: Double { self == .listAllInfoFlood || self == .manyAdds ? 90 : 60 }
}

/// How one run of a load went.
struct LoadOutcome: Sendable {
    var seconds: Double
    /// What the answer was, when it is worth printing ("dropped after 60.1 MB", an ACK).
    var note: String?
    /// The load did not end as a well-behaved daemon ends it (a timeout, an unexpected ACK or drop).
    var failed = false
    /// The load got no end within `Scenario.timeout` and was abandoned.
    var timedOut = false
}
