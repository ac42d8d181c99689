/// A device's clock as a straight line through its readings: frame = intercept + slope × time, fitted by least
/// squares over the last `capacity` readings. One reading is only as exact as the device's position report (a timer
/// tick, a period: up to several milliseconds off); a line through a few hundred of them is exact to a small fraction
/// of that, follows the device's own crystal (its rate against CLOCK_MONOTONIC), and a constant offset in the reports
/// cancels against the round-trip latency, which is measured through the same lines (`LatencyMeasurement`).
///
/// Threads: a value, owned by one task (the recording service).
public struct ClockLine: Sendable, Equatable {
    /// (seconds, frame) pairs, oldest first, relative to `origin` so the sums stay exact in a Double.
    private var points: [(t: Double, f: Double)] = []
    private var origin: (nanoseconds: UInt64, frame: Int64)?
    public let capacity: Int
    /// The nominal rate, used until two readings span 50 ms.
    public let nominalRate: Double

    public static func == (a: ClockLine, b: ClockLine) -> Bool {
        a.capacity == b.capacity && a.nominalRate == b.nominalRate && a.points.count == b.points.count
            && a.origin?.nanoseconds == b.origin?.nanoseconds && a.origin?.frame == b.origin?.frame
            && zip(a.points, b.points).allSatisfy { $0.t == $1.t && $0.f == $1.f }
    }

    public init(nominalRate: Int, capacity: Int = 512) {
        self.nominalRate = Double(max(1, nominalRate))
        self.capacity = max(2, capacity)
    }

    public var count: Int { points.count }

    /// Adds a reading (a repeat of the last one is ignored; one going back in time or frames starts the line anew).
    public mutating func add(frame: Int64, nanoseconds: UInt64) {
        if let origin, nanoseconds >= origin.nanoseconds, frame >= origin.frame {
            let t = Double(nanoseconds - origin.nanoseconds) / 1e9
            let f = Double(frame - origin.frame)
            if let last = points.last {
                if last.t == t && last.f == f { return }
                if t < last.t || f < last.f { reset(); self.add(frame: frame, nanoseconds: nanoseconds); return }
            }
            points.append((t, f))
            if points.count > capacity { points.removeFirst(points.count - capacity) }
        } else {
            reset()
            origin = (nanoseconds, frame)
            points = [(0, 0)]
        }
    }

    public mutating func reset() {
        points.removeAll(keepingCapacity: true)
        origin = nil
    }

    /// The fitted line (frames per second, and the frame at the origin's instant); nil without readings.
    private func fit() -> (slope: Double, intercept: Double)? {
        guard !points.isEmpty else { return nil }
        let n = Double(points.count)
        let mt = points.reduce(0) { $0 + $1.t } / n
        let mf = points.reduce(0) { $0 + $1.f } / n
        var stt = 0.0, stf = 0.0
        for p in points {
            stt += (p.t - mt) * (p.t - mt)
            stf += (p.t - mt) * (p.f - mf)
        }
        let span = (points.last?.t ?? 0) - (points.first?.t ?? 0)
        let slope = span >= 0.05 && stt > 0 ? stf / stt : nominalRate
        return (slope, mf - slope * mt)
    }

    /// The frame the device is at at CLOCK_MONOTONIC `nanoseconds`, as a fraction.
    public func frame(atNanoseconds nanoseconds: UInt64) -> Double? {
        guard let origin, let line = fit() else { return nil }
        let t = (Double(nanoseconds) - Double(origin.nanoseconds)) / 1e9
        return Double(origin.frame) + line.intercept + line.slope * t
    }

    /// The CLOCK_MONOTONIC instant at which the device is at `frame`.
    public func nanoseconds(atFrame frame: Double) -> UInt64? {
        guard let origin, let line = fit(), line.slope > 0 else { return nil }
        let t = (frame - Double(origin.frame) - line.intercept) / line.slope
        let ns = Double(origin.nanoseconds) + t * 1e9
        return ns.isFinite && ns >= 0 && ns < 1.8e19 ? UInt64(ns) : nil
    }

    /// The fitted rate in frames per second (the nominal one until the readings span 50 ms).
    public var rate: Double { fit()?.slope ?? nominalRate }
}
