@testable import StateDatabase
import Testing

@Suite struct OrderKeysTests {
    func apply(_ order: [Int], _ keys: inout [Int: Int64]) -> Int {
        let updates = OrderKeys.plan(order: order, existing: keys)
        keys.merge(updates) { $1 }
        let sorted = order.map { keys[$0]! }
        #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0 < $1 }, "keys increase along \(order)")
        return updates.count
    }

    @Test func appendingTouchesOnlyTheNewRows() {
        var keys: [Int: Int64] = [:]
        #expect(apply(Array(0..<1000), &keys) == 1000)
        #expect(apply(Array(0..<1010), &keys) == 10)
    }

    @Test func movingOneEntryRewritesOneRow() {
        var keys: [Int: Int64] = [:]
        _ = apply(Array(0..<10_000), &keys)
        var order = Array(0..<10_000)
        order.insert(order.removeLast(), at: 0)
        #expect(apply(order, &keys) == 1)
        order.swapAt(10, 5000)
        #expect(apply(order, &keys) == 2)
    }

    @Test func insertingBetweenNeighboursWithoutRoomRenumbers() {
        var keys: [Int: Int64] = [1: 10, 2: 11]
        #expect(apply([1, 3, 2], &keys) == 3)
    }

    @Test func removalsNeedNoWrites() {
        var keys: [Int: Int64] = [:]
        _ = apply(Array(0..<100), &keys)
        #expect(apply(Array(0..<100).filter { $0 % 3 != 0 }, &keys) == 0)
    }
}
