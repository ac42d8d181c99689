/// Sparse integer sort keys for an ordered list stored one row per item (the queue's runs, `QueueSegments`), so that
/// an edit rewrites only the rows whose relative order changed (SD cards wear out).
///
/// `plan` keeps the longest run of items whose old keys are already increasing in the new order and gives the others
/// new keys between their kept neighbours; when no integer fits, it renumbers everything. Pure; any thread.
enum OrderKeys {
    static let spacing: Int64 = 1 << 20

    /// New keys for the items of `order` that need one; `existing` maps item → current key.
    static func plan<ID: Hashable>(order: [ID], existing: [ID: Int64]) -> [ID: Int64] {
        let keep = keptIndices(order.map { existing[$0] })
        var updates: [ID: Int64] = [:]
        var index = 0
        var previous: Int64 = 0
        while index < order.count {
            if keep.contains(index), let key = existing[order[index]] {
                previous = key
                index += 1
                continue
            }
            var end = index
            while end < order.count && !(keep.contains(end) && existing[order[end]] != nil) { end += 1 }
            let upper = end < order.count ? existing[order[end]]! : previous + spacing * Int64(end - index + 1)
            let step = (upper - previous) / Int64(end - index + 1)
            guard step >= 1 else { return renumber(order) }
            for (offset, i) in (index..<end).enumerated() { updates[order[i]] = previous + step * Int64(offset + 1) }
            previous = previous + step * Int64(end - index)
            index = end
        }
        return updates
    }

    /// Keys for every item, evenly spaced.
    static func renumber<ID: Hashable>(_ order: [ID]) -> [ID: Int64] {
        Dictionary(uniqueKeysWithValues: order.enumerated().map { ($0.element, Int64($0.offset + 1) * spacing) })
    }

    /// Indices of a longest strictly increasing subsequence of the non-nil keys (patience sorting, O(n log n)).
    static func keptIndices(_ keys: [Int64?]) -> Set<Int> {
        var tails: [Int] = []          // index into keys of the smallest tail of each length
        var parent = [Int](repeating: -1, count: keys.count)
        for (i, key) in keys.enumerated() {
            guard let key else { continue }
            var lo = 0, hi = tails.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if keys[tails[mid]]! < key { lo = mid + 1 } else { hi = mid }
            }
            if lo > 0 { parent[i] = tails[lo - 1] }
            if lo == tails.count { tails.append(i) } else { tails[lo] = i }
        }
        var kept = Set<Int>()
        var i = tails.last ?? -1
        while i >= 0 { kept.insert(i); i = parent[i] }
        return kept
    }
}
