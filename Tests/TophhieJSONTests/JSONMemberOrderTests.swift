import Foundation
import Testing
@testable import TophhieJSON

/// Records read with the member order learned from the records before them fill their slots
/// exactly as records read alone: a name that differs from the one predicted at its place (a
/// longer or shorter one sharing its start, one written with escapes, members reordered or
/// missing, a nested object's members) is found the usual way and learned.
@Suite struct JSONMemberOrderTests {
    static let paths: [[String]] = [
        ["id"], ["idx"], ["i"], ["status", "errorCode"], ["status", "failureReason"], ["location", "city"],
        ["location", "geo", "lat"], ["name"], ["other"], [""],
    ]

    static let records = [
        #"{"id":"1","idx":2,"i":3,"status":{"errorCode":0,"failureReason":null},"location":{"city":"Lisbon","geo":{"lat":38.7}},"name":"a"}"#,
        #"{"id":"2","idx":2,"i":3,"status":{"errorCode":50126,"failureReason":"x"},"location":{"city":"Porto","geo":{"lat":41.1}},"name":"b"}"#,
        // Shorter and longer names sharing the start of the ones before.
        #"{"i":"3","id":4,"idx":5,"status":{"errorCod":1,"errorCode":2},"location":{"cit":"no","city":"Faro"},"nam":"x","name":"c"}"#,
        // Names written with escapes where the plain ones were learned.
        #"{"\u0069d":"4","idx":2,"i":3,"status":{"error\u0043ode":7},"location":{"city":"Braga","ge\u006f":{"lat":1}},"n\u0061me":"d"}"#,
        // Members reordered, missing, unknown, repeated; an empty name; nested objects swapped.
        #"{"other":{"deep":[1,2]},"":"blank","location":{"geo":{"lat":2},"city":"Evora"},"status":{"failureReason":"y"},"id":"5","id":"6"}"#,
        #"{"id":"7"}"#,
        #"{"id":"8","idx":2,"i":3,"status":{"errorCode":0,"failureReason":null},"location":{"city":"Lisbon","geo":{"lat":38.7}},"name":"a"}"#,
        #"{"id":"9","idx":2,"i":3,"status":{"errorCode":0,"failureReason":null},"location":{"city":"Lisbon","geo":{"lat":38.7}},"name":"a"}"#,
    ]

    @Test func recordsReadWithTheLearnedOrderFillTheirSlotsAsReadAlone() throws {
        let layout = JSONSlotLayout(paths: Self.paths)
        // Every order of reading: each record after each other one, and the whole list twice.
        var sequences: [[String]] = [Self.records + Self.records]
        for first in Self.records { for second in Self.records { sequences.append([first, second, second]) } }
        for sequence in sequences {
            let order = layout.memberOrder()
            // The same, each record read as a whole document (the Graph file's check).
            let documentOrder = layout.memberOrder()
            for record in sequence {
                let bytes = Array(record.utf8)
                let alone = try JSONValue.parseSlots(bytes, layout: layout)
                let ordered = try bytes.withUnsafeBytes { try JSONValue.parseSlots($0, from: 0, layout: layout, order: order) }
                #expect(ordered.slots == alone, "\(record)")
                #expect(ordered.end == bytes.count)
                let document = try bytes.withUnsafeBytes { try JSONValue.parseSlots($0, layout: layout, order: documentOrder) }
                #expect(document == alone, "\(record)")
            }
        }
    }

    /// A malformed name after a learned one still fails as it does alone.
    @Test func aBrokenNameFailsAsItDoesAlone() throws {
        let layout = JSONSlotLayout(paths: Self.paths)
        let order = layout.memberOrder()
        _ = try Array(Self.records[0].utf8).withUnsafeBytes { try JSONValue.parseSlots($0, from: 0, layout: layout, order: order) }
        for broken in [#"{"id"#, #"{"id":"1","idx"#, "{\"id\u{01}\":1}", #"{"id":"1","i\"#] {
            let alone = #expect(throws: JSONParseError.self) { _ = try JSONValue.parseSlots(Array(broken.utf8), layout: layout) }
            let ordered = #expect(throws: JSONParseError.self) {
                _ = try Array(broken.utf8).withUnsafeBytes { try JSONValue.parseSlots($0, from: 0, layout: layout, order: order) }
            }
            #expect(ordered?.description == alone?.description, "\(broken)")
            let document = #expect(throws: JSONParseError.self) {
                _ = try Array(broken.utf8).withUnsafeBytes { try JSONValue.parseSlots($0, layout: layout, order: order) }
            }
            #expect(document?.description == alone?.description, "\(broken)")
        }
        // Text after a record read whole with a learned order is refused as it is alone.
        let trailing = Self.records[0] + " x"
        let alone = #expect(throws: JSONParseError.self) { _ = try JSONValue.parseSlots(Array(trailing.utf8), layout: layout) }
        let document = #expect(throws: JSONParseError.self) {
            _ = try Array(trailing.utf8).withUnsafeBytes { try JSONValue.parseSlots($0, layout: layout, order: order) }
        }
        #expect(document?.description == alone?.description)
    }
}

/// A learned name compared eight bytes at a time: equal only when every one of its bytes is,
/// whatever lies past it in either place, and however few bytes may be read past the name.
@Suite struct MemberNameComparisonTests {
    @Test func namesAreEqualExactlyWhenTheirBytesAre() {
        for length in 0...JSONMemberOrder.longest {
            let name = (0..<length).map { UInt8(0x61 + $0 % 26) }
            // The learned room holds a longer name's leftovers past this one.
            let learned = name + [UInt8](repeating: 0x7A, count: JSONMemberOrder.longest - length)
            for trailing in [0, 1, 7, 8, 20] {
                var read = name + [UInt8](repeating: 0x22, count: trailing)
                let same = learned.withUnsafeBytes { l in read.withUnsafeBytes { r in
                    JSONMemberOrder.same(l.baseAddress!, r.baseAddress!, length, readable: r.count)
                } }
                #expect(same, "length \(length), \(trailing) bytes after")
                for place in 0..<length {
                    read[place] ^= 0x01
                    let differs = learned.withUnsafeBytes { l in read.withUnsafeBytes { r in
                        JSONMemberOrder.same(l.baseAddress!, r.baseAddress!, length, readable: r.count)
                    } }
                    #expect(!differs, "length \(length), byte \(place) changed, \(trailing) bytes after")
                    read[place] ^= 0x01
                }
            }
        }
    }
}
