import Foundation
import TophhieRules
import TophhieRulesFast

/// Sorted stretches of a replay index merged into the engine's order, a block of each at a
/// time: how a file in no time order is replayed when its index is too large to sort in memory
/// (each stretch sorted and spilled to disk as the first pass fills it).
///
/// The order is `ReplayIndex.sort`'s: event time, then id (read back only for entries of
/// different stretches that share a time), then place in the file. Pure: the caller reads the
/// blocks and the ids.
public struct ReplayIndexMerge {
    private var blocks: [[ReplayIndex.Entry]]
    private var positions: [Int]
    /// The id of each stretch's head, once read back (a tie needed it); nil inside when it could not be.
    private var headIDs: [String??]
    private let refill: (Int) throws -> [ReplayIndex.Entry]
    private let id: (ReplayIndex.Entry) -> String?

    /// - Parameters:
    ///   - stretches: how many sorted stretches there are.
    ///   - refill: the next block of entries of stretch `n`, in its order; empty when it has no more.
    ///   - id: reads back the id of an entry; nil when it cannot (it then sorts as "").
    /// - Throws: what `refill` throws.
    public init(stretches: Int, refill: @escaping (Int) throws -> [ReplayIndex.Entry], id: @escaping (ReplayIndex.Entry) -> String?) throws {
        self.refill = refill
        self.id = id
        blocks = try (0..<stretches).map(refill)
        positions = Array(repeating: 0, count: stretches)
        headIDs = Array(repeating: nil, count: stretches)
    }

    /// The time of the entry `next` would give.
    public var nextTime: Date? {
        var earliest: Date?
        for n in blocks.indices where positions[n] < blocks[n].count {
            let time = blocks[n][positions[n]].time
            if earliest.map({ time < $0 }) ?? true { earliest = time }
        }
        return earliest
    }

    /// The next entry in the engine's order; nil when every stretch is spent.
    /// - Throws: what `refill` throws.
    /// - Complexity: O(stretches), and a read back for each head that ties with another.
    public mutating func next() throws -> ReplayIndex.Entry? {
        var best = -1
        for n in blocks.indices where positions[n] < blocks[n].count {
            if best < 0 || precedes(n, best) { best = n }
        }
        guard best >= 0 else { return nil }
        let entry = blocks[best][positions[best]]
        positions[best] += 1
        headIDs[best] = nil
        if positions[best] == blocks[best].count {
            blocks[best] = try refill(best)
            positions[best] = 0
        }
        return entry
    }

    /// Up to `count` entries, in order.
    /// - Throws: what `refill` throws.
    public mutating func next(_ count: Int) throws -> [ReplayIndex.Entry] {
        var entries: [ReplayIndex.Entry] = []
        entries.reserveCapacity(count)
        while entries.count < count, let entry = try next() { entries.append(entry) }
        return entries
    }

    private mutating func precedes(_ a: Int, _ b: Int) -> Bool {
        let first = blocks[a][positions[a]], second = blocks[b][positions[b]]
        if first.time != second.time { return first.time < second.time }
        let (firstID, secondID) = (headID(a), headID(b))
        if firstID != secondID { return firstID < secondID }
        return first.offset < second.offset
    }

    private mutating func headID(_ n: Int) -> String {
        if let known = headIDs[n] { return known ?? "" }
        let read = id(blocks[n][positions[n]])
        headIDs[n] = .some(read)
        return read ?? ""
    }
}
