import Foundation
import Testing
@testable import TophhieJSON

@Suite(.timeLimit(.minutes(20))) struct JSONValueTests {
    let sample = try! JSONValue.parse(Data(#"{"a":{"b":[1,{"c":null}],"n":50126,"f":1.5,"t":true,"s":"x"}}"#.utf8))

    @Test func pathLookupTellsMissingFromNull() {
        #expect(sample.value(atPath: "a.b.1.c") == .null)
        #expect(sample.value(atPath: "a.b.1.d") == nil)
        #expect(sample.value(atPath: "a.zzz") == nil)
        #expect(sample.value(atPath: "a.b.0") == .int(1))
    }

    @Test func scalarsKeepTheirKind() {
        #expect(sample.value(atPath: "a.n") == .int(50126))
        #expect(sample.value(atPath: "a.n")?.scalarText == "50126")
        #expect(sample.value(atPath: "a.f") == .double(1.5))
        #expect(sample.value(atPath: "a.t") == .bool(true))
        #expect(sample.value(atPath: "a.s")?.stringValue == "x")
    }

    @Test func canonicalBytesAreStable() throws {
        let a = try JSONValue.parse(Data(#"{"b":1,"a":[true,null]}"#.utf8))
        let b = try JSONValue.parse(Data(#"{ "a" : [true, null], "b" : 1 }"#.utf8))
        #expect(a.canonicalData() == b.canonicalData())
        #expect(String(decoding: a.canonicalData(), as: UTF8.self) == #"{"a":[true,null],"b":1}"#)
    }
}

@Suite(.timeLimit(.minutes(20))) struct JSONParserTests {
    @Test(arguments: [
        (#"{"a":[1,-2,3.5,1e2,true,false,null,"x"]}"#, JSONValue.object(["a": .array([.int(1), .int(-2), .double(3.5), .double(100), .bool(true), .bool(false), .null, .string("x")])])),
        (#""\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00""#, .string("\"\\/\u{08}\u{0C}\n\r\té😀")),
        ("  [ ]  ", .array([])),
        ("{}", .object([:])),
        ("9223372036854775807", .int(Int64.max)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        (#""ünïcødé""#, .string("ünïcødé")),
        ("[null,true,false]", .array([.null, .bool(true), .bool(false)])),
        ("[false]", .array([.bool(false)])),
    ])
    func readsValues(text: String, value: JSONValue) throws {
        #expect(try JSONValue.parse(Data(text.utf8)) == value)
    }

    @Test(arguments: [
        ("", "invalid JSON at byte 0: unexpected end of input"),
        ("[1,]", "invalid JSON at byte 3: unexpected character"),
        ("{\"a\" 1}", "invalid JSON at byte 5: expected ':' after a member name"),
        ("01", "invalid JSON at byte 2: leading zero in a number"),
        ("\"\\ud800\"", "invalid JSON at byte 7: unpaired surrogate in a \\u escape"),
        ("\"a\nb\"", "invalid JSON at byte 2: control character in a string"),
        ("[1] x", "invalid JSON at byte 4: unexpected text after the value"),
        ("{\"a\":1", "invalid JSON at byte 6: unexpected end of input in an object"),
        ("{\"a\":1 ]", "invalid JSON at byte 7: expected ',' or '}' in an object"),
        ("{1:2}", "invalid JSON at byte 1: expected a member name in quotes"),
        ("[1", "invalid JSON at byte 2: unexpected end of input in an array"),
        ("[1 }", "invalid JSON at byte 3: expected ',' or ']' in an array"),
        ("tru", "invalid JSON at byte 0: unexpected end of input"),
        ("[nulL]", "invalid JSON at byte 1: unexpected character"),
        ("[fals1]", "invalid JSON at byte 1: unexpected character"),
        ("[falsE]", "invalid JSON at byte 1: unexpected character"),
        ("[trUe]", "invalid JSON at byte 1: unexpected character"),
        ("1e999", "invalid JSON at byte 5: number out of range"),
    ])
    func rejectsWithOffsets(text: String, message: String) {
        do {
            _ = try JSONValue.parse(Data(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(Data(text.utf8)) }
    }

    @Test func agreesWithTheDecodableReading() throws {
        let text = #"{"id":"x","n":[0,-0.5,12345678901,{"k":"v"}],"t":true}"#
        let viaParser = try JSONValue.parse(Data(text.utf8))
        let viaDecoder = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(viaParser == viaDecoder)
    }
}
