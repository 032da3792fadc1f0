import Foundation
import Testing
@testable import TophhieJSON

/// A query API table's row read for some of its columns: the elements asked for are what
/// `parse` gives, the others nil, and a text `parse` refuses is refused alike.
@Suite struct JSONArrayElementsTests {
    func elements(_ text: String, _ keeping: [Bool]) throws -> [JSONValue?]? {
        try Array(text.utf8).withUnsafeBytes { try JSONValue.parseElements($0, keeping: keeping) }
    }

    @Test func theElementsAskedForAreParsedAndTheOthersLeftOut() throws {
        let row = #" ["r1", {"a": [1, "x]"]}, null, 50126, "past the names"] "#
        #expect(try elements(row, [true, false, true, true]) == [.string("r1"), nil, .null, .int(50126), nil])
        #expect(try elements(row, [false, true]) == [nil, .object(["a": .array([.int(1), .string("x]")])]), nil, nil, nil])
        #expect(try elements("[]", [true]) == [])
        #expect(try elements(#"{"not": "a row"}"#, [true]) == nil)
        #expect(try elements("7", [true]) == nil)
    }

    @Test(arguments: [(#"["a", {"b": ]"#, [true, false]), (#"["a", "b",]"#, [false, false]), (#"["a"] x"#, [true]), (#"["a", tru]"#, [true, false]), (#"{"a": }"#, [true])])
    func aTextParseRefusesIsRefusedWithTheSameError(_ text: String, _ keeping: [Bool]) throws {
        let expected = try #require(throws: JSONParseError.self) { try JSONValue.parse(Data(text.utf8)) }
        #expect(throws: expected) { try elements(text, keeping) }
    }

    /// Every array of JSONTestSuite, every element asked for: `parse`'s answer, or its refusal.
    @Test func theSuitesArraysReadAsParseReadsThem() {
        for name in JSONTestSuiteTests.files where !name.hasPrefix("i_") {
            let data = JSONTestSuiteTests.contents(name)
            guard data.first == UInt8(ascii: "[") else { continue }
            let parsed = try? JSONValue.parse(data)
            let read = try? data.withUnsafeBytes { try JSONValue.parseElements($0, keeping: Array(repeating: true, count: 64)) }
            if case .array(let items)? = parsed, items.count <= 64 {
                #expect(read == .some(.some(items.map { Optional($0) })), "\(name)")
            } else if parsed == nil {
                #expect(read == nil, "\(name) is refused by parse")
            }
        }
    }
}
