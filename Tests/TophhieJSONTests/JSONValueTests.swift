import Foundation
import Testing
@testable import TophhieJSON

@Suite struct JSONValueTests {
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
