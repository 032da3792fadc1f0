import Foundation
import TophhieTestSupport
import Testing
import TophhieJSON
@testable import TophhieRules
@testable import TophhieRulesFast

/// A streamed sign-in's revision sees every change to a value its rules read, and none to one
/// they do not; values of other kinds, or split otherwise between slots, do not meet.
@Suite struct SlotRevisionTests {
    static func revision(_ values: [JSONValue?]) -> String {
        var revision = SlotRevision()
        for value in values { revision.add(slot: value) }
        return revision.text
    }

    @Test func valuesOfOtherKindsOrSplitsGiveOtherRevisions() {
        let cases: [[JSONValue?]] = [
            [], [nil], [.null], [.string("")], [.string("null")], [.int(0)], [.string("0")], [.double(0)], [.double(-0.0)],
            [.bool(false)], [.bool(true)], [.array([])], [.object([:])], [.array([.null])], [.array([]), .null],
            [.string("ab"), .string("c")], [.string("a"), .string("bc")], [.string("abc")], [nil, .string("abc")],
            [.string("a")], [.string("a\u{0}")], [.string("abcdefg")], [.string("abcdefgh")], [.string("abcdefgh\u{0}")],
            [.string("abcdefghi")], [.string("abcdefghijklmnop")], [.string("abcdefghijklmnoq")], [.string("bbcdefghijklmnop")],
            [.object(["a": .int(1)])], [.object(["a": .int(2)])], [.object(["b": .int(1)])], [.object(["a": .string("1")])],
            [.object(["a": .int(1), "b": .int(2)])], [.array([.int(1), .int(2)])], [.array([.int(2), .int(1)])],
            // A short string is one word with its length on top: not the words of another kind.
            [.string("i")], [.int(0x69)], [.string("\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}\u{0}")], [.string("\u{0}")],
            [.int(Int64(bitPattern: 0x0100_0000_0000_0061))], [.double(Double(bitPattern: 0x0100_0000_0000_0061))],
            [.string("a"), .string("b")], [.string("ab")], [.array([.string("a")])], [.array([.string("a"), .string("")])],
        ]
        let texts = cases.map(SlotRevisionTests.revision)
        for (i, text) in texts.enumerated() {
            #expect(text.utf8.count == 14 && text.utf8.allSatisfy { $0 < 0x80 }, "\(cases[i])")
            for j in texts.indices where j != i && texts[j] == text {
                Issue.record("\(cases[i]) and \(cases[j]) share \(text)")
            }
        }
        // The same values, the same revision; an object's key order does not count.
        #expect(SlotRevisionTests.revision([.object(["a": .int(1), "b": .int(2)])]) == SlotRevisionTests.revision([.object(["b": .int(2), "a": .int(1)])]))
        #expect(SlotRevisionTests.revision([.string("x"), nil]) == SlotRevisionTests.revision([.string("x"), nil]))
    }

    /// Ids and texts that differ in one byte anywhere, at every length around the word size.
    @Test func aChangeOfOneByteAnywhereIsSeen() {
        var seen: [String: String] = [:]
        for length in 0...40 {
            let base = String(repeating: "a", count: length)
            var variants = [base]
            for position in 0..<length {
                var bytes = Array(base.utf8)
                bytes[position] = UInt8(ascii: "b")
                variants.append(String(decoding: bytes, as: UTF8.self))
            }
            for text in variants {
                let revision = SlotRevisionTests.revision([.string(text)])
                if let other = seen[revision] { Issue.record("'\(text)' and '\(other)' share \(revision)") }
                seen[revision] = text
            }
        }
        #expect(seen.count == (0...40).reduce(0) { $0 + $1 + 1 })
    }

    /// Through a layout: a read field's change is a new revision, an unread one's is not.
    @Test func anEventsRevisionFollowsTheFieldsItsRulesRead() throws {
        let layout = EventLayout(slots: [FieldSlot.intern(["status", "errorCode"]), FieldSlot.intern(["location", "city"])])
        func revision(_ text: String) throws -> String? { try layout.event(Array(text.utf8)).revision }
        let base = try revision(#"{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":50126},"location":{"city":"Leeds"},"appDisplayName":"A"}"#)
        #expect(try revision(#"{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":50126},"location":{"city":"Leeds"},"appDisplayName":"B"}"#) == base)
        #expect(try revision(#"{"location":{"city":"Leeds"},"id":"x","status":{"errorCode":50126},"createdDateTime":"2024-05-01T10:00:00Z"}"#) == base)
        #expect(try revision(#"{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":0},"location":{"city":"Leeds"}}"#) != base)
        #expect(try revision(#"{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":50126},"location":{"city":"York"}}"#) != base)
        #expect(try revision(#"{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":50126},"location":{}}"#) != base)
        #expect(try revision(#"{"id":"x","createdDateTime":"2024-05-01T10:00:01Z","status":{"errorCode":50126},"location":{"city":"Leeds"}}"#) != base)
    }

    /// An event's revision is its slots' values hashed in slot order, whatever their kinds:
    /// strings are hashed where they lie, everything else through `add(slot:)`.
    @Test func anEventsRevisionIsItsSlotsHashedInOrder() throws {
        let layout = EventLayout(slots: ["status.errorCode", "location.city", "appDisplayName", "deviceDetail", "riskEventTypes_v2",
                                         "isInteractive", "location.geoCoordinates.latitude", "userId"].map { FieldSlot.intern(path: $0) })
        let records = [
            #"{"id":"x","createdDateTime":"2024-05-01T10:00:00Z","status":{"errorCode":50126},"location":{"city":"Leeds","geoCoordinates":{"latitude":53.8}},"appDisplayName":"Azure Portal","deviceDetail":{"browser":"Edge 120"},"riskEventTypes_v2":["a","b"],"isInteractive":true,"userId":"5f1c8a52-6d4b-4b62-9a52-0f0c3f6a2b11"}"#,
            #"{"id":"y","createdDateTime":"2024-05-01T10:00:01Z","status":{"errorCode":0},"location":{"city":"York"},"appDisplayName":null,"riskEventTypes_v2":[],"isInteractive":false}"#,
            #"{"id":"a sign-in id longer than fifteen bytes","createdDateTime":"2024-05-01T10:00:02.1234567Z","location":{"city":"Zürich"},"userId":"u"}"#,
        ]
        var revisions = Set<String>()
        for text in records {
            let event = try layout.event(Array(text.utf8))
            var expected = SlotRevision()
            for value in event.values.withValues({ Array($0) }) { expected.add(slot: value) }
            #expect(event.revision == expected.text, "\(text)")
            revisions.insert(event.revision ?? "")
        }
        #expect(revisions.count == records.count)
    }
}
