import Foundation
import Testing
import TophhieTestSupport
@testable import TophhieReplay

/// CSV's records read a piece at a time (`CSVRows`): the fields written, whatever the pieces.
@Suite struct CSVRowsTests {
    /// A field as RFC 4180 writes it: quoted, its quotes doubled, when it holds a delimiter (and
    /// when empty, so a row of one empty field is not a blank line).
    static func written(_ field: String) -> String {
        field.isEmpty || field.contains(where: { ",\"\r\n".unicodeScalars.contains($0.unicodeScalars.first!) })
            ? "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : field
    }

    /// Each record's line, fields and bytes, the text fed in the pieces `cuts` makes of it.
    static func read(_ bytes: [UInt8], cuts: [Int]) throws -> [(line: Int, fields: [String], range: Range<Int>)] {
        var reader = CSVRows()
        var records: [(line: Int, fields: [String], range: Range<Int>)] = []
        var start = 0
        for end in cuts + [bytes.count] where end >= start {
            try bytes[start..<end].withUnsafeBytes { piece in try reader.feed(piece) { records.append(($0, $1.strings, $2)) } }
            start = end
        }
        try reader.finish { records.append(($0, $1.strings, $2)) }
        return records
    }

    @Test func fieldsAreReadAsWrittenWhereverTheTextIsCut() throws {
        var generator = SeededGenerator(seed: 46)
        let pieces = ["a", "bc", ",", "\"", "\n", "\r\n", " ", "\u{E9}", "\u{1F600}", "x,y", "\"\""]
        for _ in 0..<300 {
            let width = Int.random(in: 1...4, using: &generator)
            let rows = (0..<Int.random(in: 1...4, using: &generator)).map { _ in
                (0..<width).map { _ in (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined() }
            }
            let lineBreak = Bool.random(using: &generator) ? "\n" : "\r\n"
            let bytes = Array((rows.map { $0.map(Self.written).joined(separator: ",") }.joined(separator: lineBreak) + lineBreak).utf8)
            var cuts = (0..<Int.random(in: 0...4, using: &generator)).map { _ in Int.random(in: 0...bytes.count, using: &generator) }.sorted()
            if Bool.random(using: &generator) { cuts = Array(0...bytes.count) }
            let read = try Self.read(bytes, cuts: cuts)
            #expect(read.map(\.fields) == rows, "\(String(decoding: bytes, as: UTF8.self).debugDescription) cut at \(cuts)")
            // Each record's bytes read again alone give its fields (a streamed replay's second pass).
            for record in read {
                #expect(try Self.read(Array(bytes[record.range]), cuts: []).map(\.fields) == [record.fields], "\(String(decoding: bytes[record.range], as: UTF8.self).debugDescription) \(record.fields)")
                // And read as one record, its lists made at their size.
                #expect(try Array(bytes[record.range]).withUnsafeBytes { try CSVRows.fields(ofRecord: $0) }.strings == record.fields)
            }
            // The line each record starts on: one more than the line breaks before it.
            for record in read {
                #expect(record.line == 1 + bytes[..<record.range.lowerBound].filter { $0 == 0x0A }.count)
            }
        }
    }

    /// A second pass reads only its columns: the others come back empty, whether quoted or not,
    /// first, last or between.
    @Test func onlyTheFieldsKeptAreMadeIntoText() throws {
        let row = "a,\"b, \"\"c\"\"\",d,\"e\nf\",g\r\n"
        let all = try row.utf8.withContiguousStorageIfAvailable { try CSVRows.fields(ofRecord: UnsafeRawBufferPointer($0)).strings }
        #expect(all == ["a", "b, \"c\"", "d", "e\nf", "g"])
        for mask in [[true, false, true, false, true], [false, true, false, true, false], [false, false, false, false, false], [true]] {
            let kept = try row.utf8.withContiguousStorageIfAvailable { try CSVRows.fields(ofRecord: UnsafeRawBufferPointer($0), keeping: mask).strings }
            let expected = all!.indices.map { $0 < mask.count && !mask[$0] ? "" : all![$0] }
            #expect(kept == expected, "\(mask)")
        }
    }

    /// Fields not kept are walked over, yet still checked, counted and told from an empty line:
    /// a row of one field no one reads is a row (the table refuses its count), not a blank.
    @Test func fieldsNotKeptAreWalkedOverAndStillCounted() throws {
        var reader = CSVRows()
        reader.keepingAfterHeader = { header in header.map { $0 == "b" } }
        var rows: [(Int, [String])] = []
        let text = Array("a,b\n\"x, \"\"y\"\"\",\"z\"\nlonely\n\n\"\"\n".utf8)
        try text.withUnsafeBytes { bytes in
            try reader.feed(bytes) { line, fields, _ in rows.append((line, fields.strings)) }
            try reader.finish { line, fields, _ in rows.append((line, fields.strings)) }
        }
        #expect(rows.map(\.0) == [1, 2, 3, 5])
        #expect(rows.map(\.1) == [["a", "b"], ["", "z"], [""], [""]])
        var refusing = CSVRows(keeping: [false, true])
        #expect(throws: CSVTable.Failure(line: 1, message: "a quote inside an unquoted field")) {
            try Array("ab\"c,d\n".utf8).withUnsafeBytes { bytes in try refusing.feed(bytes) { _, _, _ in } }
        }
    }

    @Test func aQuoteInsideAnUnquotedFieldIsRefusedAtItsLineWhereverTheTextIsCut() throws {
        let bytes = Array("a,b\n\"x\ny\",1\nzz\"z,2\n".utf8)
        for cut in 0...bytes.count {
            #expect(throws: CSVTable.Failure(line: 4, message: "a quote inside an unquoted field")) { _ = try Self.read(bytes, cuts: [cut]) }
        }
    }
}
