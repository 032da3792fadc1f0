import Foundation
import Testing
import TophhieJSON

/// A state written in pieces is the bytes its JSON value gives, whatever its size: values with
/// more members than are written on their own, nested in ones that are.
@Suite struct JSONValueEncoderTests {
    struct Remembered: Codable {
        var id: String
        var time: Date
        var rules: [String]
        var values: [String: String]
    }

    struct State: Codable {
        var version = 1
        var seen: [String: Date] = [:]
        var recent: [Remembered] = []
        var small: [String: [Int]] = ["b": [2, 1], "a": []]
    }

    static func busy(_ count: Int) -> State {
        var state = State()
        for i in 0..<count {
            let id = "id-\(i)-\(String(repeating: "é\"\\", count: i % 5))"
            state.seen[id] = Date(timeIntervalSince1970: 1_700_000_000 + Double(i) / 7)
            state.recent.append(Remembered(id: id, time: Date(timeIntervalSince1970: Double(i)), rules: ["r/\(i % 3)"], values: ["ipAddress": "10.0.\(i % 256).1", "city": i % 2 == 0 ? "London" : "Zürich\n"]))
        }
        return state
    }

    @Test(arguments: [0, 3, 256, 257, 5_000])
    func piecesMakeTheBytesTheValueGives(count: Int) throws {
        let state = Self.busy(count)
        var pieces: [[UInt8]] = []
        try JSONValueEncoder().encode(state, pieces: { pieces.append($0) })
        let expected = try JSONValueEncoder().encode(state).canonicalBytes()
        #expect(Array(pieces.joined()) == expected)
        #expect(try JSONValueEncoder().encodeBytes(state) == expected)
        // Every piece but the last holds at least 64 KB: the file is written in few writes.
        #expect(pieces.dropLast().allSatisfy { $0.count >= 1 << 16 }, "\(pieces.map(\.count))")
        if count == 5_000 { #expect(pieces.count > 1) }
    }

    /// What `write` throws stops the encoding and reaches the caller.
    @Test func aFailingWriteStopsTheEncoding() {
        struct Full: Error, Equatable {}
        var calls = 0
        #expect(throws: Full()) {
            try JSONValueEncoder().encode(Self.busy(5_000), pieces: { _ in calls += 1; throw Full() })
        }
        #expect(calls == 1)
    }
}

/// The collections read and written without a container read and write as `Codable` does:
/// the same JSON, the same values back, and a wrong member named by its path.
@Suite struct StateCollectionsTests {
    struct Held: Codable, Equatable {
        var texts: [String: String]
        var times: [String: Date]
        var names: [String]
        var nested: [String: [String: String]]
    }

    @Test func theyWriteAndReadAsCodableDoes() throws {
        let held = Held(texts: ["b": "two", "a": "é\"\n"], times: ["x": Date(timeIntervalSince1970: 1_700_000_000.25)], names: ["r/1", "r/0"], nested: ["k": ["z": "1"]])
        let value = try JSONValueEncoder().encode(held)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        foundation.dateEncodingStrategy = .secondsSince1970
        #expect(try JSONValueEncoder().encodeBytes(held) == Array(foundation.encode(held)))
        #expect(try JSONValueDecoder().decode(Held.self, from: value) == held)
    }

    @Test func aWrongMemberIsNamedByItsPath() throws {
        let value = try JSONValue.parse(Data(#"{"texts": {"a": "x", "b": 2}, "times": {}, "names": [], "nested": {}}"#.utf8))
        do {
            _ = try JSONValueDecoder().decode(Held.self, from: value)
            Issue.record("decoded a number as text")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["texts", "b"])
        }
        let names = try JSONValue.parse(Data(#"{"texts": {}, "times": {}, "names": ["a", null], "nested": {}}"#.utf8))
        do {
            _ = try JSONValueDecoder().decode(Held.self, from: names)
            Issue.record("decoded null as text")
        } catch DecodingError.typeMismatch(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["names", "1"])
        }
    }
}
