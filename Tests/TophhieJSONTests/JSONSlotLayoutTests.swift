import Foundation
import Testing
@testable import TophhieJSON

/// Slots filled by the parser must hold exactly what `value(at:)` of the fully parsed object
/// holds: nested paths, prefixes of one another, array indexes, absent paths, repeated keys.
@Suite struct JSONSlotLayoutTests {
    static let text = """
    {"id":"a","status":{"errorCode":50126,"failureReason":"x"},"skip":{"deep":[1,{"k":"v"}]},
     "location":{"city":"Lisbon","geoCoordinates":{"latitude":38.7,"longitude":null}},
     "riskEventTypes_v2":["unfamiliarFeatures","anonymizedIPAddress"],"empty":{},"n\\u0061me":"escaped",
     "twice":{"a":1,"b":2},"twice":{"a":3},"deviceDetail":null,"":"blank"}
    """

    static let paths: [[String]] = [
        ["id"], ["status", "errorCode"], ["status"], ["status", "failureReason"], ["location", "city"],
        ["location", "geoCoordinates", "latitude"], ["location", "geoCoordinates", "longitude"],
        ["riskEventTypes_v2"], ["riskEventTypes_v2", "1"], ["riskEventTypes_v2", "9"], ["empty", "x"],
        ["name"], ["twice", "a"], ["twice", "b"], ["deviceDetail", "browser"], ["absent"], ["absent", "deeper"],
        [""], ["skip", "deep", "1", "k"],
    ]

    @Test func slotsHoldWhatTheParsedObjectHoldsAtEachPath() throws {
        let full = try JSONValue.parse(Data(JSONSlotLayoutTests.text.utf8))
        let slots = try JSONValue.parseSlots(Array(JSONSlotLayoutTests.text.utf8), layout: JSONSlotLayout(paths: JSONSlotLayoutTests.paths))
        for (slot, path) in JSONSlotLayoutTests.paths.enumerated() {
            #expect(slots[slot] == full.value(at: path), "\(path)")
        }
        #expect(slots[12] == .int(3) && slots[13] == nil, "a repeated key keeps only the last object")
    }

    /// A slot that opens objects holds an empty object for one (its paths below filled as
    /// before, no tree of it built), and any other value whole.
    @Test func anOpeningSlotHoldsAnEmptyObjectForAnObjectAndOtherValuesWhole() throws {
        let full = try JSONValue.parse(Data(JSONSlotLayoutTests.text.utf8))
        let opening = Set([2, 7, 14])
        let layout = JSONSlotLayout(paths: JSONSlotLayoutTests.paths + [["deviceDetail"], ["riskEventTypes_v2", "0"]], opening: opening.union([19, 20]))
        let slots = try JSONValue.parseSlots(Array(JSONSlotLayoutTests.text.utf8), layout: layout)
        #expect(slots[2] == .object([:]), "status opened")
        #expect(slots[19] == .null, "a null where an object may be")
        #expect(slots[7] == full.value(at: ["riskEventTypes_v2"]), "a list is held whole")
        #expect(slots[20] == .string("unfamiliarFeatures"))
        for (slot, path) in JSONSlotLayoutTests.paths.enumerated() where !opening.contains(slot) {
            #expect(slots[slot] == full.value(at: path), "\(path)")
        }
    }

    /// Names the layout lacks, met in an object it reads, are watched for their endings, an
    /// escape and bytes past ASCII; names it has, and names in objects walked over or held
    /// whole, are not.
    @Test func namesTheLayoutLacksAreWatchedWhereItReads() throws {
        let layout = JSONSlotLayout(paths: [["a"], ["o", "x"], ["w"]])
        let cases: [(String, Bool)] = [
            (#"{"a":1,"b":2,"o":{"x":1,"y":2}}"#, false),
            (#"{"a":1,"T [UTC]":2}"#, true),
            (#"{"a":1,"o":{"y_dynamic":2}}"#, true),
            (#"{"\u0061":1}"#, false),
            (#"{"\u0062":1}"#, true),
            ("{\"\u{212A}ind\":1}", true),
            (#"{"o":{"\u0079":1}}"#, true),
            (#"{"skipped":{"T [UTC]":1,"\u0062":2,"é":3}}"#, false),
            (#"{"w":{"T [UTC]":1,"é":3}}"#, false),
            (#"{"a":"T [UTC]","b":"\u0062é"}"#, false),
        ]
        for (text, watched) in cases {
            var slots = [JSONValue?](repeating: nil, count: 3)
            let met = try Array(text.utf8).withUnsafeBytes { bytes in
                try slots.withUnsafeMutableBufferPointer { try JSONValue.parseSlots(bytes, layout: layout, into: $0, watching: [Array(" [UTC]".utf8), Array("_dynamic".utf8)]) }
            }
            #expect(met == watched, "\(text)")
            #expect(slots == (try JSONValue.parseSlots(Array(text.utf8), layout: layout)), "\(text)")
        }
    }

    @Test func everySuiteObjectFillsItsLeafPathsAsTheParserReadsThem() throws {
        var compared = 0
        for name in JSONTestSuiteTests.files where name.hasPrefix("y_") {
            let data = JSONTestSuiteTests.contents(name)
            guard case .object = try JSONValue.parse(data) else { continue }
            let full = try JSONValue.parse(data)
            var paths: [[String]] = []
            func collect(_ value: JSONValue, _ path: [String]) {
                if !path.isEmpty { paths.append(path) }
                switch value {
                case .object(let members): for (key, member) in members { collect(member, path + [key]) }
                case .array(let items): for (index, item) in items.enumerated() { collect(item, path + [String(index)]) }
                default: break
                }
            }
            collect(full, [])
            paths.append(["not", "there"])
            let slots = try JSONValue.parseSlots(Array(data), layout: JSONSlotLayout(paths: paths))
            for (slot, path) in paths.enumerated() { #expect(slots[slot] == full.value(at: path), "\(name) \(path)") }
            compared += 1
        }
        #expect(compared >= 12)
    }

    /// Names are found through buckets of their length and end bytes; with more names than
    /// buckets many share one, and names the layout lacks fall in buckets its names use.
    @Test func everyNameIsFoundWhenNamesShareBuckets() throws {
        let names = (0..<300).map { "m\($0)" } + ["", "a", "ab", "ba", "aXb", "bXa", "\u{E9}t\u{E9}", "n\u{301}"]
        let wanted = names.enumerated().filter { $0.offset % 3 != 1 }.map(\.element)
        let layout = JSONSlotLayout(paths: wanted.map { [$0] } + wanted.prefix(40).map { ["nested", $0] })
        let shared = layout.rootBuckets.filter { $0 < 0 }.map(JSONSlotLayout.run)
        #expect(shared.contains { $0.count >= 3 }, "some bucket holds several names, as one run")
        func quoted(_ name: String) -> String { String(decoding: JSONValue.string(name).canonicalBytes(), as: UTF8.self) }
        var members = names.enumerated().map { "\(quoted($0.element)):\($0.offset)" }
        members.append("\"nested\":{" + names.enumerated().map { "\(quoted($0.element)):\(1_000 + $0.offset)" }.joined(separator: ",") + "}")
        let text = "{" + members.joined(separator: ",") + "}"
        let full = try JSONValue.parse(Data(text.utf8))
        let slots = try JSONValue.parseSlots(Array(text.utf8), layout: layout)
        for (slot, path) in layout.paths.enumerated() {
            #expect(slots[slot] == full.value(at: path), "\(path)")
            #expect(slots[slot] != nil, "\(path)")
        }
    }

    /// A level's names ordered by bucket: each bucket says its one name, the run of its names,
    /// or, past what a run can say (from the 32,767th name on), that the level is walked.
    @Test func eachBucketSaysWhereItsNamesAre() throws {
        let keys = (0..<40_000).map { Array("n\($0)".utf8) }.enumerated()
            .sorted { (JSONSlotLayout.bucket(of: $0.element), $0.offset) < (JSONSlotLayout.bucket(of: $1.element), $1.offset) }.map(\.element)
        let buckets = JSONSlotLayout.buckets(for: keys)
        #expect(buckets.contains(JSONSlotLayout.walkTheLevel))
        #expect(buckets.contains { $0 < 0 && $0 != JSONSlotLayout.walkTheLevel })
        for (bucket, entry) in buckets.enumerated() {
            let holders = keys.indices.filter { JSONSlotLayout.bucket(of: keys[$0]) == bucket }
            switch entry {
            case 0: #expect(holders.isEmpty)
            case JSONSlotLayout.walkTheLevel: #expect(holders.count > 1 && holders.last! >= 0x7FFF)
            case ..<0:
                let run = JSONSlotLayout.run(entry)
                #expect(Array(run.start..<(run.start + run.count)) == holders)
            default: #expect(holders == [Int(entry) - 1])
            }
        }
    }

    /// Members no slot reads are walked over by `skipValue`, which must accept and refuse what
    /// `parseValue` in `.skip` mode does, with the same message at the same byte, and stop where
    /// it stops: every file of the JSON test suite, and each cut short at every length up to 40.
    @Test func walkingOverAValueChecksWhatSkippingItInTheParserChecks() throws {
        var compared = 0, refused = 0
        for name in JSONTestSuiteTests.files {
            let whole = Array(JSONTestSuiteTests.contents(name))
            for bytes in [whole] + (0..<min(whole.count, 40)).map({ Array(whole[..<$0]) }) {
                func run(_ body: (inout JSONParser) throws -> Void) -> Result<Int, JSONParseError> {
                    bytes.withUnsafeBytes { raw in
                        JSONParser.parsing(raw) { parser in
                            parser.skipWhitespace()
                            do { try body(&parser); return .success(parser.index) } catch { return .failure(error as! JSONParseError) }
                        }
                    }
                }
                let walked = run { try $0.skipValue(depth: 0) }
                let skipped = run { _ = try $0.parseValue(depth: 0, .skip) }
                #expect(walked == skipped, "\(name), \(bytes.count) bytes")
                compared += 1
                if case .failure = walked { refused += 1 }
            }
        }
        #expect(compared > 3_000 && refused > 1_000)
    }

    @Test func brokenTextIsRefusedAsTheParserRefusesIt() {
        let layout = JSONSlotLayout(paths: [["id"]])
        for text in [#"{"id":"a""#, #"{"id":"a",}"#, #"{"skip":[1,]}"#, #"["id"]"#, #"{"id":"a"} x"#, #"{"skip":"\x"}"#] {
            #expect(throws: JSONParseError.self, "\(text)") { _ = try JSONValue.parseSlots(Array(text.utf8), layout: layout) }
        }
    }
}
