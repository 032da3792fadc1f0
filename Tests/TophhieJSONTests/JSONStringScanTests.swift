import Foundation
import Testing
@testable import TophhieJSON

/// The word-at-a-time search gives what a byte-at-a-time one gives, at every alignment.
@Suite struct JSONStringScanTests {
    static func reference(_ bytes: [UInt8], from: Int) -> Int {
        var index = from
        while index < bytes.count, bytes[index] != 0x22, bytes[index] != 0x5C { index += 1 }
        return index
    }

    @Test func findsTheFirstQuoteOrBackslashAtEveryAlignment() {
        var generator = SystemRandomNumberGenerator()
        // Bytes either side of the two targets, the high ones included, where a borrow could mislead.
        let alphabet: [UInt8] = [0x21, 0x23, 0x5B, 0x5D, 0x20, 0x7F, 0x80, 0xA0, 0xA2, 0xDC, 0xFF, 0x61, 0x00, 0x01, 0x1F, 0x22, 0x5C]
        for _ in 0..<2000 {
            let count = Int.random(in: 0...40, using: &generator)
            let bytes = (0..<count).map { _ in alphabet[Int.random(in: 0..<(Bool.random(using: &generator) ? alphabet.count - 5 : alphabet.count), using: &generator)] }
            for from in 0...count {
                let found = bytes.withUnsafeBytes { JSONStringScan.quoteOrBackslash(in: $0, from: from) }
                #expect(found == Self.reference(bytes, from: from), "\(bytes) from \(from)")
                var control = from
                while control < count, bytes[control] != 0x22, bytes[control] != 0x5C, bytes[control] >= 0x20 { control += 1 }
                #expect(bytes.withUnsafeBytes { JSONStringScan.quoteBackslashOrControl(in: $0, from: from) } == control, "\(bytes) from \(from)")
            }
        }
    }

    @Test(arguments: [
        (#""abc" tail"#, 5),
        (#""a\"b" tail"#, 6),
        (#""a\\" tail"#, 5),
        (#""\\\"\\"x"#, 8),
        (#""0123456789abcdef\"0123456789" x"#, 30),
        (#""unterminated"#, -1),
        (#""ends in a backslash\"#, -1),
    ])
    func endsAfterTheClosingQuote(text: String, end: Int) {
        let bytes = Array(text.utf8)
        let found = bytes.withUnsafeBytes { JSONStringScan.end(in: $0, contentsFrom: 1) }
        #expect(found == (end < 0 ? nil : end))
    }

    @Test func textIsCheckedAsUTF8WhereverTheFirstNonASCIIByteFalls() {
        for length in 0...20 {
            for position in -1..<length {
                var bytes = [UInt8]((0..<length).map { UInt8(0x61 + $0 % 26) })
                if position >= 0 { bytes[position] = 0xFF }
                let text = bytes.withUnsafeBufferPointer { JSONStringScan.text($0) }
                #expect(text == (position >= 0 ? nil : String(decoding: bytes, as: UTF8.self)), "\(length) \(position)")
                #expect(bytes.withUnsafeBytes { JSONStringScan.isASCII($0) } == (position < 0), "\(length) \(position)")
            }
        }
        let valid = Array("x ÉAé 漢字 🙂 ok".utf8)
        #expect(valid.withUnsafeBufferPointer { JSONStringScan.text($0) } == "x ÉAé 漢字 🙂 ok")
        for cut in [[0xC3], [0xED, 0xA0, 0x80], [0xE6, 0xBC], [0xC0, 0x80]] as [[UInt8]] {
            let bytes = Array("ascii prefix".utf8) + cut + Array("tail".utf8)
            #expect(bytes.withUnsafeBufferPointer { JSONStringScan.text($0) } == nil, "\(cut)")
        }
    }

    /// The string members named, read from the start of the element at `range` only.
    static func leading(_ bytes: [UInt8], _ range: Range<Int>, named names: [String]) -> [String?] {
        bytes.withUnsafeBytes { JSONLeadingMembers.strings(UnsafeRawBufferPointer(rebasing: $0[range]), named: names) }
    }

    @Test func leadingStringsStopWhereTheirNamesAreFound() {
        let text = #"x {"id" : "a\u00e9\"b", "n": {"id": "inner"}, "list": ["createdDateTime"], "createdDateTime":"2024-05-01T10:00:00Z", "z": }"#
        let bytes = Array(text.utf8)
        let range = 2..<bytes.count
        #expect(Self.leading(bytes, range, named: ["id", "createdDateTime"]) == ["aé\"b", "2024-05-01T10:00:00Z"])
        // What is past the last name is never read: the broken member at the end does not count.
        #expect(Self.leading(bytes, range, named: ["createdDateTime", "missing"]) == ["2024-05-01T10:00:00Z", nil])
        #expect(Self.leading(bytes, range, named: ["n"]) == [nil], "not a string")
        #expect(Self.leading(Array(#"{"id":1}"#.utf8), 0..<8, named: ["id"]) == [nil])
        #expect(Self.leading(Array(#"["id"]"#.utf8), 0..<6, named: ["id"]) == [nil])
        // Read strictly: a raw control byte or invalid UTF-8 is no string.
        #expect(Self.leading(Array("{\"id\":\"a\u{01}b\"}".utf8), 0..<11, named: ["id"]) == [nil])
        #expect(Self.leading(Array(#"{"id":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8), 0..<11, named: ["id"]) == [nil])
        // A name is the whole name: not one it begins or ends.
        #expect(Self.leading(Array(#"{"i":"1","idx":"2","xid":"3","id":"4"}"#.utf8), 0..<38, named: ["id", "i"]) == ["4", "1"])
        // The range ends the element: a value running past it is not read.
        #expect(Self.leading(Array(#"{"id":"abc"}"#.utf8), 0..<8, named: ["id"]) == [nil])
    }

    /// Numbers, booleans and null before the names (a record written with its names sorted puts
    /// `autonomousSystemNumber` and `isInteractive` first) are passed over whole.
    @Test func scalarsBeforeTheNamesArePassedOver() throws {
        let text = #"{"autonomousSystemNumber":33771,"flag":true, "gone" : null,"n":-1.5e3,"createdDateTime":"2022-03-18T18:13:37Z","id":"ef1e"}"#
        let bytes = Array(text.utf8)
        #expect(Self.leading(bytes, 0..<bytes.count, named: ["id", "createdDateTime"]) == ["ef1e", "2022-03-18T18:13:37Z"])
        let both = bytes.withUnsafeBytes { JSONLeadingMembers.idAndTime($0) }
        #expect(both?.id == "ef1e" && both?.time == GraphTimestamp.parse("2022-03-18T18:13:37Z"))
        #expect(bytes.withUnsafeBytes { JSONLeadingMembers.time($0) } == both?.time)
    }

    /// The first pass reads only a record's time (`time`), checking its id without decoding it:
    /// it must accept and refuse exactly the records `idAndTime` does, with the same time.
    @Test func aRecordsTimeAloneAgreesWithItsIdAndTime() throws {
        var records: [[UInt8]] = [
            #"{"id":"0a1b","createdDateTime":"2024-05-01T10:00:00.1234567Z"}"#,
            #"{"createdDateTime":"2024-05-01T10:00:00Z","id":"x"}"#,
            #"{"id":"","createdDateTime":"2024-05-01T10:00:00Z"}"#,
            #"{"id":7,"createdDateTime":"2024-05-01T10:00:00Z"}"#,
            #"{"id":"a\u00e9","createdDateTime":"2024-05-01T10:00:00Z"}"#,
            #"{"id":"\"","createdDateTime":"2024-05-01T10:00:00Z"}"#,
            #"{"id":"é","createdDateTime":"2024-05-01T10:00:00+02:00"}"#,
            #"{"id":"a","createdDateTime":"2024-05-01T10:00:00\u005a"}"#,
            #"{"id":"a","createdDateTime":"2024-05-01T10:00:00"}"#,
            #"{"id":"a","createdDateTime":"2024-02-30T10:00:00Z"}"#,
            #"{"id":"a","createdDateTime":20240501}"#,
            #"{"id":"a"}"#,
            #"{"createdDateTime":"2024-05-01T10:00:00Z"}"#,
            #"[{"id":"a","createdDateTime":"2024-05-01T10:00:00Z"}]"#,
            "{\"id\":\"a\u{01}\",\"createdDateTime\":\"2024-05-01T10:00:00Z\"}",
            // The usual start read straight through, and starts just off it.
            #"{ "id" : "a" ,"createdDateTime"  :  "2024-05-01T10:00:00Z" }"#,
            "{\n\t\"id\":\r\n\"a\",\n\"createdDateTime\":\"2024-05-01T10:00:00Z\"}",
            #"{"id":"a","createdDateTimeX":"2024-05-01T10:00:00Z","createdDateTime":"2024-05-02T10:00:00Z"}"#,
            #"{"id":"a" "createdDateTime":"2024-05-01T10:00:00Z"}"#,
            #"{"id":"a","createdDateTime":"2024-05-01T10:00:00Z"#,
            #"{"id":"a","createdDateTime""#,
            #"{"id":"a","#,
            #"{"id""#,
            #"{"#,
            "",
        ].map { Array($0.utf8) }
        records.append(Array(#"{"id":""#.utf8) + [0xC3, 0x28] + Array(#"","createdDateTime":"2024-05-01T10:00:00Z"}"#.utf8))
        records.append(Array(#"{"id":"a","createdDateTime":"2024-05-01T10:00:00"#.utf8) + [0xFF] + Array(#"Z"}"#.utf8))
        // And every object of the JSON parsing suite, with an id and a time put first.
        for name in JSONTestSuiteTests.files {
            let body = JSONTestSuiteTests.contents(name)
            guard body.first == UInt8(ascii: "{"), body.count > 2 else { continue }
            records.append(Array(#"{"id":"s","createdDateTime":"2024-05-01T10:00:00Z","#.utf8) + body.dropFirst())
            records.append(Array(body))
        }
        var accepted = 0
        for record in records {
            let (time, both) = record.withUnsafeBytes { (JSONLeadingMembers.time($0), JSONLeadingMembers.idAndTime($0)) }
            #expect(time == both?.time, "\(String(decoding: record, as: UTF8.self))")
            if time != nil { accepted += 1 }
        }
        #expect(accepted >= 8, "the corpus has records both accept")
    }

    /// A string with escapes is its runs and its escapes' scalars, as Foundation's reader reads
    /// it: escapes of every kind between runs of ASCII and of other scripts, at every length.
    @Test func escapedStringsReadAsFoundationReadsThem() throws {
        let pieces = ["a", "Lagos", #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#, #"\u00e9"#, #"\u20AC"#, #"\ud83d\ude00"#,
                      "é", "日本", "😀", #"{\"city\": \"Köln\"}"#, " "]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<400 {
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for _ in 0..<(1 + Int(state >> 60)) {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text += pieces[Int(state >> 33) % pieces.count]
            }
            let json = "[\"" + text + "\"]"
            let expected = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]
            #expect(try JSONValue.parse(Data(json.utf8)) == .array([.string(try #require(expected?.first))]), "\(json)")
        }
    }

    /// A string with escapes refused says where, as before: a byte that is not UTF-8 at the end
    /// of its run, a control character, a bad escape or a lone surrogate where it is.
    @Test func escapedStringsAreRefusedWhereTheyGoWrong() {
        let cases: [([UInt8], Int, String)] = [
            (Array(#"["a\n"#.utf8) + [0xFF] + Array(#"b"]"#.utf8), 7, "invalid UTF-8 in a string"),
            (Array(#"["a\n"#.utf8) + [0xC3] + Array(#"\tb"]"#.utf8), 6, "invalid UTF-8 in a string"),
            (Array(#"["a\nb"#.utf8) + [0x0A] + Array(#"c"]"#.utf8), 6, "control character in a string"),
            (Array(#"["a\q"]"#.utf8), 5, "invalid escape"),
            (Array(#"["a\ud800x"]"#.utf8), 9, "unpaired surrogate in a \\u escape"),
            (Array(#"["a\n"#.utf8), 5, "unterminated string"),
        ]
        for (bytes, offset, message) in cases {
            #expect(throws: JSONParseError(offset: offset, message: message)) { try JSONValue.parse(Data(bytes)) }
        }
    }
}
