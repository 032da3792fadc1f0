import Foundation
import Testing
import TophhieJSON
@testable import TophhieRules

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
}
