import Foundation
import Testing
@testable import TophhieJSON

@Suite(.timeLimit(.minutes(20))) struct JSONPageTests {
    /// A page of three events whose second carries `damage` inside its device name.
    static func page(damage: [UInt8], id: String = "b") -> Data {
        var bytes = Array(#"{"@odata.context":"ctx","@odata.count": 3,"value":[{"id":"a","n":1},"#.utf8)
        bytes += Array(#"{"id":"\#(id)","deviceDetail":{"displayName":"P"#.utf8) + damage + Array(#"C"}},"#.utf8)
        bytes += Array(#"{"id":"c","n":[true,null,-2.5e3]}],"@odata.nextLink":"https://graph.microsoft.com/next"}"#.utf8)
        return Data(bytes)
    }

    @Test(arguments: [
        ([0xC3, 0x28, 0xFF] as [UInt8], "invalid UTF-8 in a string"),
        ([0x01], "control character in a string"),
        (Array(#"\ud800"#.utf8), "unpaired surrogate in a \\u escape"),
        (Array(#"\udc00x"#.utf8), "unpaired surrogate in a \\u escape"),
        (Array(#"\q"#.utf8), "invalid escape"),
    ])
    func oneDamagedElementCostsOnlyThatElement(damage: [UInt8], message: String) throws {
        let data = Self.page(damage: damage)
        #expect(throws: JSONParseError.self) { try JSONValue.parse(data) }
        let page = try JSONPage.read(data, arrayMember: "value")
        let elements = try #require(page.elements)
        #expect(elements.count == 3)
        #expect(elements[0] == .value(.object(["id": .string("a"), "n": .int(1)])))
        guard case .damaged(let id, let error) = elements[1] else { Issue.record("got \(elements[1])"); return }
        #expect(id == "b")
        #expect(error.message == message)
        #expect(elements[2] == .value(.object(["id": .string("c"), "n": .array([.bool(true), .null, .double(-2500)])])))
        #expect(page.members["@odata.nextLink"] == .string("https://graph.microsoft.com/next"))
        #expect(page.members["@odata.count"] == .int(3))
        #expect(page.members["value"] == nil)
    }

    @Test func aDamagedIDLeavesTheElementNameless() throws {
        let page = try JSONPage.read(Data(#"{"value":[{"id":"x\#u{01}y"},{"id":"z"}]}"#.utf8), arrayMember: "value")
        #expect(page.elements?.first == .damaged(id: nil, error: JSONParseError(offset: 8, message: "control character in a string")))
        #expect(page.elements?.last == .value(.object(["id": .string("z")])))
    }

    @Test func aCleanPageReadsAsTheStrictParserReadsIt() throws {
        let data = Data(#"{"value":[{"id":"a"},2,"three",[4]],"@odata.nextLink":"n"}"#.utf8)
        let page = try JSONPage.read(data, arrayMember: "value")
        #expect(page.elements == [.value(.object(["id": .string("a")])), .value(.int(2)), .value(.string("three")), .value(.array([.int(4)]))])
        #expect(page.members == ["@odata.nextLink": .string("n")])
    }

    @Test func withoutTheArrayMemberThereAreNoElements() throws {
        let page = try JSONPage.read(Data(#"{"value":{"id":"a"}}"#.utf8), arrayMember: "value")
        #expect(page.elements == nil)
        #expect(page.members["value"] == .object(["id": .string("a")]))
    }

    /// The array is walked once for its elements and its end: the members after it must start
    /// where it ends, brackets and quotes inside its strings notwithstanding.
    @Test(arguments: [
        (#"{"a":1,"value":[{"id":"x]"}, [[],"}"] , "]"],"n":"m"}"#, [#"{"id":"x]"}"#, #"[[],"}"]"#, #""]""#], ["a": .int(1), "n": .string("m")]),
        (#"{"value":[],"n":"m"}"#, [], ["n": .string("m")]),
        (#"{"value" : [ 7 ] ,"n":"m","a":1}"#, ["7"], ["a": .int(1), "n": .string("m")]),
    ] as [(String, [String], [String: JSONValue])])
    func extentsFindTheElementsAndTheMembersAfterThem(text: String, elements: [String], members: [String: JSONValue]) throws {
        let bytes = Array(text.utf8)
        let page = try bytes.withUnsafeBytes { raw in
            let page = try JSONPage.extents(raw, arrayMember: "value")
            return (members: page.members, elements: page.elements.map { $0.map { String(decoding: raw[$0], as: UTF8.self) } })
        }
        #expect(page.elements == elements)
        #expect(page.members == members)
    }

    @Test(arguments: [
        (#"{"value":[{"id":"a\#u{01}"#, "unterminated string"),
        (#"{"value":[{"id":"a\#u{01}"}"#, "unexpected end of input in an array"),
        (#"{"value":[{"id":"a\#u{01}"}}],"x":1}"#, "expected ',' or ']' in an array"),
        (#"{"value":[{"id":"a\#u{01}"}],"x":}"#, "expected a value"),
        (#"{"value":[{"id":"a\#u{01}"} {"id":"b"}]}"#, "expected ',' or ']' in an array"),
        (#"["value"]"#, "expected an object"),
    ])
    func damageThatBreaksTheStructureFailsThePage(text: String, message: String) {
        #expect {
            _ = try JSONPage.read(Data(text.utf8), arrayMember: "value")
        } throws: { error in
            (error as? JSONParseError)?.message == message
        }
    }

    @Test func damageOutsideTheArrayFailsThePage() {
        let data = Data(#"{"value":[{"id":"a\#u{01}"}],"@odata.nextLink":"n\#u{01}"}"#.utf8)
        #expect {
            _ = try JSONPage.read(data, arrayMember: "value")
        } throws: { error in
            (error as? JSONParseError)?.message == "control character in a string"
        }
    }
}
