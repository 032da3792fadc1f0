import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast
@testable import TophhieReplay

/// The first pass keeps 24 bytes a sign-in and no id: sign-ins sharing a time are put in the
/// engine's order (time, id, place in the file) from their ids, read back.
@Suite struct ReplayIndexTests {
    @Test func signInsSharingATimeAreOrderedByTheirIdsThenTheirPlace() {
        let records: [(id: String, time: String)] = [
            ("c", "2024-05-01T10:00:00Z"), ("b", "2024-05-01T10:00:00Z"), ("z", "2024-05-01T09:00:00Z"),
            ("a", "2024-05-01T10:00:00Z"), ("b", "2024-05-01T10:00:00Z"), ("a", "2024-05-01T11:00:00Z"),
        ]
        var index = ReplayIndex()
        var ids: [Int: String] = [:]
        for (position, record) in records.enumerated() {
            let bytes = Array(#"{"id":"\#(record.id)","createdDateTime":"\#(record.time)","x":1}"#.utf8)
            let offset = position * 100
            ids[offset] = record.id
            #expect(bytes.withUnsafeBytes { index.add($0, at: offset) })
        }
        #expect(MemoryLayout<ReplayIndex.Entry>.stride == 24)
        var reads = 0
        index.sort { entry in
            reads += 1
            return ids[entry.offset]
        }
        #expect(index.entries.map { ids[$0.offset]! } == ["z", "a", "b", "b", "c", "a"])
        #expect(index.entries.map(\.offset) == [200, 300, 100, 400, 0, 500], "of two copies of b, the earlier in the file first")
        #expect(reads == 4, "only the sign-ins sharing a time are read back")
        #expect(index.latest == GraphTimestamp.parse("2024-05-01T11:00:00Z"))
    }

    @Test func aRecordWithoutAnIdOrATimeIsRefused() {
        var index = ReplayIndex()
        for text in [#"{"createdDateTime":"2024-05-01T10:00:00Z"}"#, #"{"id":"a"}"#, #"{"id":"a","createdDateTime":"yesterday"}"#, "[1]"] {
            #expect(!Array(text.utf8).withUnsafeBytes { index.add($0, at: 0) }, "\(text)")
        }
        // A numeric id is read as the second pass reads it.
        #expect(Array(#"{"id":7,"createdDateTime":"2024-05-01T10:00:00Z"}"#.utf8).withUnsafeBytes { index.add($0, at: 0) })
        #expect(index.entries.count == 1)
    }

    /// Two halves of a file read apart and joined say what one reading says: the count, the
    /// latest time, whether the file is in time order either way (the join itself can break
    /// it), and the runs of each half one after the other.
    @Test(arguments: [1, 2, 3, 4])
    func runsOfTwoHalvesJoinedAreTheRunsOfTheWholeFile(_ runLength: Int) {
        var random = SeededGenerator(seed: UInt64(runLength))
        let start = Date(timeIntervalSince1970: 1_714_557_600)
        for shape in 0..<4 {
            var times: [Date] = (0..<9).map { start.addingTimeInterval(Double($0 * 60)) }
            switch shape {
            case 1: times.reverse()
            case 2: times.swapAt(4, 5)  // out of order where a split may fall
            case 3: times = times.map { _ in start.addingTimeInterval(Double(Int.random(in: 0..<3, using: &random) * 60)) }
            default: break
            }
            var whole = ReplayRuns(length: runLength)
            for (n, time) in times.enumerated() { whole.add(time: time, offset: n * 10, length: 9) }
            for split in 0...times.count {
                var first = ReplayRuns(length: runLength), second = ReplayRuns(length: runLength)
                for n in 0..<split { first.add(time: times[n], offset: n * 10, length: 9) }
                for n in split..<times.count { second.add(time: times[n], offset: n * 10, length: 9) }
                let firstRuns = first.runs
                first.append(second)
                #expect(first.count == whole.count && first.latest == whole.latest && first.first == whole.first, "shape \(shape) split \(split)")
                #expect(first.ascending == whole.ascending && first.descending == whole.descending, "shape \(shape) split \(split)")
                #expect(first.runs == firstRuns + second.runs)
                // Going on after the join is going on after the whole file.
                var more = first, wholeMore = whole
                more.add(time: start, offset: 1000, length: 9)
                wholeMore.add(time: start, offset: 1000, length: 9)
                #expect(more.inOrder == wholeMore.inOrder, "shape \(shape) split \(split)")
            }
        }
    }
}
