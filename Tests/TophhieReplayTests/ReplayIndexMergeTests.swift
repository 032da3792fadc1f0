import Foundation
import TophhieTestSupport
import Testing
@testable import TophhieRules
@testable import TophhieRulesFast
@testable import TophhieReplay

/// An index sorted in stretches and merged must give exactly the order of sorting it whole:
/// time, then id (read back for sign-ins sharing a time, across stretches too), then place.
@Suite struct ReplayIndexMergeTests {
    /// Entries with few distinct times (so ties cross stretches), repeated ids and ids that
    /// cannot be read back, cut into stretches of every length, read back in blocks of every size.
    @Test(arguments: [1, 2, 3, 7, 64])
    func stretchesMergedGiveTheWholeSort(_ seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let count = Int.random(in: 1...300, using: &generator)
        var ids: [Int: String] = [:]
        var entries: [ReplayIndex.Entry] = []
        for position in 0..<count {
            let offset = position * 10
            entries.append(ReplayIndex.Entry(time: Date(timeIntervalSince1970: Double(Int.random(in: 0..<12, using: &generator))),
                                             offset: offset, length: 10))
            // One in eight has no id to read back (it sorts as "").
            if Int.random(in: 0..<8, using: &generator) > 0 { ids[offset] = String(UnicodeScalar(UInt8(ascii: "a") + UInt8.random(in: 0..<5, using: &generator))) }
        }
        var whole = entries
        ReplayIndex.sort(&whole) { ids[$0.offset] }

        for stretchLength in [1, 2, 5, 33, count] {
            for blockSize in [1, 3, 1000] {
                let stretches = stride(from: 0, to: count, by: stretchLength).map { start in
                    var stretch = Array(entries[start..<min(start + stretchLength, count)])
                    ReplayIndex.sort(&stretch) { ids[$0.offset] }
                    return stretch
                }
                var handed = Array(repeating: 0, count: stretches.count)
                var merge = try ReplayIndexMerge(stretches: stretches.count, refill: { n in
                    let block = Array(stretches[n].dropFirst(handed[n]).prefix(blockSize))
                    handed[n] += block.count
                    return block
                }, id: { ids[$0.offset] })
                var merged: [ReplayIndex.Entry] = []
                while true {
                    #expect(merge.nextTime == (merged.count < whole.count ? whole[merged.count].time : nil))
                    let batch = try merge.next(17)
                    if batch.isEmpty { break }
                    merged += batch
                }
                #expect(merged.map(\.offset) == whole.map(\.offset), "seed \(seed), stretches of \(stretchLength), blocks of \(blockSize)")
            }
        }
    }

    @Test func aFailedRefillIsThrown() throws {
        struct Gone: Error, Equatable {}
        let entry = ReplayIndex.Entry(time: Date(timeIntervalSince1970: 0), offset: 0, length: 1)
        var calls = 0
        var merge = try ReplayIndexMerge(stretches: 1, refill: { _ in
            calls += 1
            if calls > 1 { throw Gone() }
            return [entry]
        }, id: { _ in nil })
        #expect(throws: Gone()) { _ = try merge.next() }
    }
}
