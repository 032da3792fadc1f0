import Foundation
import Testing
@testable import TophhieJSON

/// The hand-written writer must give exactly the bytes `JSONEncoder` gave (alert ids, revision
/// digests and state files were built on them): every accepted file of the JSONTestSuite, and
/// values with the edges of strings, numbers and key order.
@Suite struct JSONWriterTests {
    static func encoder(_ value: JSONValue) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("null".utf8))
    }

    @Test func everyAcceptedSuiteFileIsWrittenAsJSONEncoderWritesIt() {
        var compared = 0
        for name in JSONTestSuiteTests.files where name.hasPrefix("y_") || name.hasPrefix("i_") {
            guard let value = try? JSONValue.parse(JSONTestSuiteTests.contents(name)) else { continue }
            // JSONEncoder refuses non-finite doubles; a parsed file has none, except by overflow.
            if case .double(let d) = value, !d.isFinite { continue }
            #expect(value.canonicalBytes() == JSONWriterTests.encoder(value), "\(name)")
            compared += 1
        }
        #expect(compared >= 95)
    }

    @Test func edgesOfStringsNumbersAndKeysAreWrittenAsJSONEncoderWritesThem() {
        let strings = ["", "a\"b\\c/d", "\u{0}\u{1}\u{1F}\u{7F}", "é\u{2028}\u{2029}😀", "\n\t\r\u{8}\u{C}", "e\u{301}", "</script>"]
        let doubles: [Double] = [0, -0.0, 1, 1.5, 38.72, -9.14, 1e-7, 1e21, 1e15, 1e16, 0.1, 5e-324, 1.7976931348623157e308, 736250400.1229999, 12345678.9]
        let ints: [Int64] = [0, -1, 42, 9, 10, 99, 100, -9, -10, 1_000_000_000_000_000_000, -999_999_999_999_999_999, .max, .min, .min + 1]
        var members: [String: JSONValue] = [:]
        for (i, key) in ["b", "B", "a10", "a9", "é", "z", "_", "ä", "e\u{301}x", "10", "9", ""].enumerated() { members[key] = .int(Int64(i)) }
        let value: JSONValue = .object([
            "strings": .array(strings.map(JSONValue.string)),
            "doubles": .array(doubles.map(JSONValue.double)),
            "ints": .array(ints.map(JSONValue.int)),
            "keys": .object(members),
            "nested": .array([.null, .bool(true), .bool(false), .array([]), .object([:]), .object(["x": .array([.object(["y": .null])])])]),
        ])
        #expect(value.canonicalBytes() == JSONWriterTests.encoder(value))
        #expect(String(decoding: JSONValue.object(members).canonicalBytes(), as: UTF8.self).hasPrefix(#"{"":11,"10":9,"9":10,"B":1,"#))
    }

    /// Strings are copied a stretch at a time between the bytes that need escaping: escapes at
    /// every position of an eight-byte word, runs of them, and long plain stretches around them.
    @Test func stringsWithEscapesAnywhereAreWrittenAsJSONEncoderWritesThem() {
        var strings = Self.stringsWithEscapes(count: 400, longest: 40, seed: 20_261_204)
        for position in 0..<17 {
            strings.append(String(repeating: "x", count: position) + "\"" + String(repeating: "y", count: 16 - position))
            strings.append(String(repeating: "x", count: position) + "\u{0}")
        }
        let written = strings.filter { text in
            JSONValue.string(text).canonicalBytes() != JSONWriterTests.encoder(.string(text))
        }
        #expect(written == [], "written otherwise than JSONEncoder writes them")
    }

    /// `count` strings of pieces drawn at random (a fixed seed): escapes of every kind, plain
    /// stretches shorter and longer than a word, past ASCII; the n-th `n % longest` pieces long.
    static func stringsWithEscapes(count: Int, longest: Int, seed: UInt64) -> [String] {
        var state = seed
        let pieces = ["a", "Z", "/", "\"", "\\", "\n", "\u{1}", "\u{1F}", "\u{7F}", "é", "😀", " ", "abcdefgh", "0123456789abcdef"]
        return (0..<count).map { length in
            var text = ""
            for _ in 0..<(length % longest) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += pieces[Int((state >> 33) % UInt64(pieces.count))]
            }
            return text
        }
    }

    /// Keys are sorted by their UTF-8 bytes however the texts are held: empty, one a prefix of
    /// the other, short and long, non-ASCII, and bridged from Foundation.
    @Test func keysSortByTheirUTF8BytesAsMemory() {
        let texts = ["", "a", "ab", "abc", "B", "b", "é", "e\u{301}", "Zürich", "zz", "\u{1F600}",
                     String(repeating: "k", count: 40), String(repeating: "k", count: 40) + "a",
                     NSString(string: "bridged key, long enough to be held apart") as String, "bridged key"]
        for a in texts {
            for b in texts {
                #expect(JSONWriter.precedes(a, b) == a.utf8.lexicographicallyPrecedes(b.utf8), "\(a) before \(b)")
            }
        }
    }
}
