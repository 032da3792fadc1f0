import Foundation
import Testing
@testable import TophhieJSON

/// A string met again in a slot is the one made before, and only ever for the very same bytes;
/// records read with the memory fill their slots exactly as records read alone.
@Suite struct JSONRepeatedTextsTests {
    static func text(_ texts: JSONRepeatedTexts, slot: Int, _ string: String) -> (text: String?, made: Bool) {
        var made = false
        let bytes = Array(string.utf8)
        let text = bytes.withUnsafeBufferPointer { buffer in
            texts.text(slot: slot, buffer) { made = true; return String(decoding: buffer, as: UTF8.self) }
        }
        return (text, made)
    }

    @Test func aStringMetAgainIsNotMadeAgain() {
        let texts = JSONRepeatedTexts(slots: 2)
        for string in ["Chrome 121.0.6167", "GB", "é", "7c1f0c4e-0000-4000-8000-000000000398"] {
            #expect(Self.text(texts, slot: 0, string) == (string, true))
            #expect(Self.text(texts, slot: 0, string) == (string, false))
            // Slots are remembered apart.
            #expect(Self.text(texts, slot: 1, string).made)
        }
        #expect(Self.text(texts, slot: 0, "") == ("", false))
    }

    /// With every hash made equal, strings of other bytes (longer, shorter, one byte apart,
    /// differing past the first eight) are each made, never handed another's.
    @Test func colludingHashesStillCompareTheBytes() {
        let texts = JSONRepeatedTexts(slots: 1, hashMask: 0)
        let strings = ["person397@contoso.com", "person398@contoso.com", "person397@contoso.co", "person397@contoso.comm",
                       "person397", "Person397@contoso.com", "GB", "GR", "", "é"]
        // Each after each other one.
        for first in strings {
            for second in strings where second != first {
                #expect(Self.text(texts, slot: 0, first).text == first)
                let (text, made) = Self.text(texts, slot: 0, second)
                #expect(text == second)
                #expect(made, "\(second) was handed \(first)")
                #expect(Self.text(texts, slot: 0, second) == (second, false))
            }
        }
    }

    @Test func bytesThatAreNotUTF8AreNotRemembered() {
        let texts = JSONRepeatedTexts(slots: 1)
        let invalid: [UInt8] = [0x61, 0xFF]
        for _ in 0..<2 {
            var made = 0
            let text = invalid.withUnsafeBufferPointer { buffer in texts.text(slot: 0, buffer) { made += 1; return nil } }
            #expect(text == nil)
            #expect(made == 1)
        }
    }

    /// A slot whose strings rarely repeat (an id) is given up after its trial; one whose strings
    /// repeat is kept.
    @Test func aSlotOfUniqueStringsIsGivenUp() {
        let texts = JSONRepeatedTexts(slots: 2)
        for n in 0..<JSONRepeatedTexts.trial {
            #expect(texts.remembers(0))
            _ = Self.text(texts, slot: 0, "sign-in \(n)")
            _ = Self.text(texts, slot: 1, "app \(n % 4)")
        }
        #expect(!texts.remembers(0))
        #expect(texts.remembers(1))
    }

    static let paths: [[String]] = [["id"], ["app"], ["status", "errorCode"], ["device"], ["device", "browser"], ["city"]]

    static let records = [
        #"{"id":"1","app":"Office 365 Exchange Online","status":{"errorCode":0},"device":{"browser":"Chrome 121.0.6167"},"city":"Lisbon"}"#,
        #"{"id":"2","app":"Office 365 Exchange Online","status":{"errorCode":"50126"},"device":{"browser":"Chrome 121.0.6167"},"city":"Lisbon"}"#,
        // Escaped, non-ASCII, a number where a string was, null, missing.
        #"{"id":"3","app":"Office 365 Exchange Onlin\u0065","status":{"errorCode":50126},"device":{"browser":7},"city":"Évora"}"#,
        #"{"id":"4","app":"Office 365 Exchange Online","device":{"browser":null},"city":"Évora"}"#,
        #"{"id":"5","app":"Office 365 Exchange Online ","status":{"errorCode":"50126"},"device":{"browser":"Chrome 121.0.6167"},"city":"Lisbon"}"#,
        #"{"id":"6","app":"","city":"Évor"}"#,
        // Written with escapes: the same text written otherwise, other texts written alike.
        #"{"id":"7","app":"Office\/365 \"Online\"","device":{"browser":"{\"b\":\"Edge\"}"},"city":"\u00c9vora"}"#,
        #"{"id":"8","app":"Office\/365 \"Onlinf\"","device":{"browser":"{\"b\":\"Edg\"}"},"city":"\u00c9vor\u0061"}"#,
        #"{"id":"9","app":"Office\\/365 \"Online\"","device":{"browser":"{\"b\":\"Edge\"} "},"city":"Évora"}"#,
        // A string where an object is read under (a dynamic column written as JSON text).
        #"{"id":"10","device":"{\"browser\":\"Edge\"}"}"#,
        #"{"id":"11","device":"{\"browser\":\"Edg\u0065\"}"}"#,
        #"{"id":"12","device":"{\"browser\":\"Edgf\"}"}"#,
    ]

    /// With every hash kept, and with every hash made equal (each string then compared).
    @Test(arguments: [UInt64.max, 0])
    func recordsReadWithTheMemoryFillTheirSlotsAsReadAlone(_ hashMask: UInt64) throws {
        let layout = JSONSlotLayout(paths: Self.paths)
        var sequences: [[String]] = [Self.records + Self.records]
        for first in Self.records { for second in Self.records { sequences.append([first, second, first]) } }
        for sequence in sequences {
            let texts = JSONRepeatedTexts(slots: layout.paths.count, hashMask: hashMask)
            for record in sequence {
                let bytes = Array(record.utf8)
                let alone = try JSONValue.parseSlots(bytes, layout: layout)
                let remembered = try bytes.withUnsafeBytes { try JSONValue.parseSlots($0, from: 0, layout: layout, texts: texts) }
                #expect(remembered.slots == alone, "\(record)")
                #expect(remembered.end == bytes.count)
            }
        }
    }

    /// A string that is not UTF-8, or holds a control byte, fails as it does alone, where it
    /// was remembered before too.
    @Test func aBrokenStringFailsAsItDoesAlone() throws {
        let layout = JSONSlotLayout(paths: Self.paths)
        let texts = layout.repeatedTexts()
        _ = try Array(Self.records[0].utf8).withUnsafeBytes { try JSONValue.parseSlots($0, from: 0, layout: layout, texts: texts) }
        let broken: [[UInt8]] = [
            Array(#"{"id":"1","app":"Office 365 Exchange Onlin"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8),
            Array("{\"id\":\"1\",\"app\":\"Office\u{01}\"}".utf8),
            Array(#"{"id":"1","app":"Office 365 Exchange Online"#.utf8),
        ]
        for bytes in broken {
            let alone = #expect(throws: JSONParseError.self) { _ = try JSONValue.parseSlots(bytes, layout: layout) }
            let remembered = #expect(throws: JSONParseError.self) {
                _ = try bytes.withUnsafeBytes { try JSONValue.parseSlots($0, from: 0, layout: layout, texts: texts) }
            }
            #expect(remembered?.description == alone?.description)
        }
    }
}
